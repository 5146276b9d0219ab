/*
 * doca_bench_remote.c - remote buffers: the companion and the import.
 *
 * As in NVIDIA's dma_copy samples, one side (the companion, normally the
 * host) exports memory with doca_mmap_export_pci and the measuring side
 * (normally the Arm) creates an mmap from that export and runs its DMA jobs
 * against it. DOCA's tool reaches its companion over the network; softdoca's
 * reaches it through a descriptor file (--companion-connection-string
 * file=PATH), which keeps the two processes independent of each other's
 * start order within a wait of BENCH_IMPORT_WAIT_S.
 *
 * Hand-over protocol: the companion writes the descriptor (hex, one line) to
 * PATH.tmp and renames it to PATH, so a reader never sees half a file. The
 * measuring side reads PATH, imports, runs every permutation, destroys its
 * mmap and then removes PATH: that removal tells the companion it may revoke
 * the export and exit. The companion also exits on SIGINT/SIGTERM and after
 * its time limit, removing PATH itself, so nothing is left behind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>

#include "doca_bench.h"

#define BENCH_IMPORT_WAIT_S 30
#define BENCH_COMPANION_DEFAULT_S 300
#define BENCH_MAX_DESC 8192

static volatile sig_atomic_t companion_stop;

static void on_signal(int sig)
{
	(void)sig;
	companion_stop = 1;
}

static const char *conn_path(const struct bench_cfg *cfg)
{
	return cfg->companion + 5; /* checked to start with "file=" */
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

static int write_desc(const char *path, const uint8_t *desc, size_t len)
{
	char tmp[4096];
	FILE *f;
	size_t i;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		fprintf(stderr, "doca_bench: companion file name too long\n");
		return -1;
	}
	f = fopen(tmp, "w");
	if (f == NULL) {
		fprintf(stderr, "doca_bench: cannot write %s: %m\n", tmp);
		return -1;
	}
	for (i = 0; i < len; i++)
		fprintf(f, "%02x", desc[i]);
	fputc('\n', f);
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		fprintf(stderr, "doca_bench: cannot publish the descriptor at %s: %m\n", path);
		unlink(tmp);
		return -1;
	}
	return 0;
}

int bench_companion_run(const struct bench_cfg *cfg, struct doca_dev *dev)
{
	const char *path = conn_path(cfg);
	struct doca_mmap *m = NULL;
	const void *desc;
	size_t desc_len = 0, i;
	uint8_t *mem = NULL;
	double limit = cfg->run_limit_seconds > 0 ? cfg->run_limit_seconds : BENCH_COMPANION_DEFAULT_S;
	struct timespec t0, t;
	doca_error_t err;
	int rc = -1;

	if (access(path, F_OK) == 0) {
		fprintf(stderr, "doca_bench: companion: %s already exists (another companion, or one left "
				"over); remove it first\n", path);
		return -1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (posix_memalign((void **)&mem, 4096, cfg->companion_size) != 0) {
		fprintf(stderr, "doca_bench: companion: out of memory for %" PRIu64 " bytes\n", cfg->companion_size);
		return -1;
	}
	for (i = 0; i < cfg->companion_size; i++)
		mem[i] = (uint8_t)(i * 131 + 7);
	if ((err = doca_mmap_create(&m)) != DOCA_SUCCESS ||
	    (err = doca_mmap_set_memrange(m, mem, cfg->companion_size)) != DOCA_SUCCESS ||
	    (err = doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_PCI_READ_WRITE)) !=
		    DOCA_SUCCESS ||
	    (err = doca_mmap_add_dev(m, dev)) != DOCA_SUCCESS || (err = doca_mmap_start(m)) != DOCA_SUCCESS ||
	    (err = doca_mmap_export_pci(m, dev, &desc, &desc_len)) != DOCA_SUCCESS) {
		fprintf(stderr, "doca_bench: companion: cannot export the memory: %s\n", doca_error_get_descr(err));
		goto out;
	}
	if (write_desc(path, desc, desc_len) != 0)
		goto out;
	printf("doca_bench companion: exported %" PRIu64 " bytes, descriptor in %s\n", cfg->companion_size, path);
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = 0;
	for (;;) {
		if (access(path, F_OK) != 0) {
			printf("doca_bench companion: the descriptor was consumed, done\n");
			break;
		}
		if (companion_stop) {
			printf("doca_bench companion: stopped by a signal\n");
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 > limit) {
			fprintf(stderr, "doca_bench: companion: nobody finished with the export within %.0f s\n",
				limit);
			rc = -1;
			break;
		}
		sleep_ms(10);
	}
	unlink(path);
out:
	if (m != NULL)
		(void)doca_mmap_destroy(m);
	free(mem);
	return rc;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int bench_remote_import(const struct bench_cfg *cfg, struct doca_dev *dev, struct bench_remote *rm)
{
	const char *path = conn_path(cfg);
	static uint8_t desc[BENCH_MAX_DESC];
	char line[2 * BENCH_MAX_DESC + 4];
	size_t n = 0, i;
	FILE *f = NULL;
	int waited;
	void *addr;
	doca_error_t err;

	memset(rm, 0, sizeof(*rm));
	for (waited = 0; waited < BENCH_IMPORT_WAIT_S * 100; waited++) {
		f = fopen(path, "r");
		if (f != NULL || errno != ENOENT)
			break;
		sleep_ms(10);
	}
	if (f == NULL) {
		fprintf(stderr, "doca_bench: no companion descriptor at %s after %d s (start the companion: "
				"doca_bench --companion --companion-connection-string file=%s)\n", path,
			BENCH_IMPORT_WAIT_S, path);
		return -1;
	}
	if (fgets(line, sizeof(line), f) == NULL)
		line[0] = '\0';
	fclose(f);
	for (i = 0; line[i] != '\0' && line[i] != '\n'; i += 2) {
		int hi = hexval((unsigned char)line[i]), lo = hi < 0 ? -1 : hexval((unsigned char)line[i + 1]);

		if (hi < 0 || lo < 0 || n >= sizeof(desc)) {
			n = 0;
			break;
		}
		desc[n++] = (uint8_t)(hi << 4 | lo);
	}
	if (n == 0) {
		fprintf(stderr, "doca_bench: %s does not hold a companion descriptor\n", path);
		return -1;
	}
	err = doca_mmap_create_from_export(NULL, desc, n, dev, &rm->mmap);
	if (err != DOCA_SUCCESS) {
		fprintf(stderr, "doca_bench: cannot create an mmap from the companion's export: %s\n",
			doca_error_get_descr(err));
		return -1;
	}
	err = doca_mmap_get_memrange(rm->mmap, &addr, &rm->len);
	if (err != DOCA_SUCCESS) {
		fprintf(stderr, "doca_bench: the imported mmap has no range: %s\n", doca_error_get_descr(err));
		(void)doca_mmap_destroy(rm->mmap);
		rm->mmap = NULL;
		return -1;
	}
	rm->addr = addr;
	rm->path = strdup(path);
	return 0;
}

void bench_remote_release(struct bench_remote *rm)
{
	if (rm->mmap != NULL)
		(void)doca_mmap_destroy(rm->mmap);
	rm->mmap = NULL;
	if (rm->path != NULL) {
		unlink(rm->path); /* tells the companion we are done */
		free(rm->path);
		rm->path = NULL;
	}
}
