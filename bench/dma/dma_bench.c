/*
 * dma_bench.c - DOCA DMA throughput against plain memcpy of the same buffers.
 *
 * One DMA context, N memcpy tasks kept in flight (each completion callback
 * resubmits its task), sizes 64 B to 64 MiB; the same buffer pairs copied by
 * memcpy() in the same run, alternating with the DMA repetitions. Public
 * DOCA API only: what a user's program calls.
 *
 * Every row is the median over the repetitions (-r, at least 5 for a figure
 * to quote) with its spread and CPU cost, in the format of
 * bench/common/bench_util.h; the dma row's ratio is the median of the
 * per-repetition DMA/memcpy ratios. CPU time is getrusage(RUSAGE_SELF)
 * around the measured loop, so it includes softdoca's engine thread.
 *
 * --load N: the oversubscribed run. N busy-loop processes per core are
 * forked at start; each repetition measures the size quiet, then with the
 * competitors running, and prints the loaded/quiet ratio of every repetition.
 *
 * Remote mode (--remote): DMA between this process and the other side of
 * the card. It runs dma_exporter from the other flavor's build (--peer-build
 * DIR, default $SOFTDOCA_PEER_BUILD_DIR; its libraries from DIR/src), which
 * exports 128 MiB read-write; tasks read from / write into slices of that
 * mmap (created from the export) while the exporter only waits. Per size
 * (1, 4, 16, 64 MiB) it prints host->Arm and Arm->host rows next to memcpy
 * of the same local buffers, measured in the same run, and the ratios. On
 * the Arm (dpu) side host->Arm is a read of the export, Arm->host a write;
 * on the host side the other way round. --exporter-thp backs the exported
 * memory with transparent huge pages. --peer-wrap 'CMD' starts the exporter
 * through CMD (words split by /bin/sh, the exporter's path and arguments
 * appended), e.g. 'ip netns exec NS' to put it in another network namespace
 * (bench/ucx/run_ucx.sh: remote DMA over UCX across a veth).
 *
 * usage: dma_bench [-p PCI] [-n INFLIGHT] [-r REPS] [-t SECONDS] [-s SIZE] [-w spin|notify]
 *                  [--max-size BYTES] [--csv FILE] [--load N]
 *                  [--remote [--peer-build DIR] [--exporter-thp] [--peer-wrap CMD]]
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "common/bench_util.h"
#include "dma_remote_util.h"

#define MAX_INFLIGHT 1024
#define MAX_SIDE_BYTES (128ull << 20) /* memory per side (src or dst) */

struct bench {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	struct doca_buf_inventory *inv;
	uint32_t depth;
	uint32_t rounds;
	double seconds;
	bool notify;
	int epfd;
	doca_notification_handle_t handle;
	/* remote mode */
	struct doca_mmap *rmmap; /* created from the exporter's export */
	uint8_t *raddr;          /* its range (the exporter's addresses) */
	size_t rlen;
	bool peer_thp; /* exporter memory in transparent huge pages */
	const char *peer_wrap; /* run the exporter through this command (sh words) */
	char wrap_script[BU_WRAP_SCRIPT_MAX]; /* bu_wrap_script of it */
	pid_t peer_pid;
	int peer_in, peer_out;
	/* per run */
	uint64_t completed;
	uint64_t failed;
	bool stop_submitting;
	uint32_t outstanding;
};

static void die(const char *what, doca_error_t err)
{
	fprintf(stderr, "dma_bench: %s: %s\n", what, doca_error_get_descr(err));
	exit(1);
}

#define CHECK(call) \
	do { \
		doca_error_t e_ = (call); \
		if (e_ != DOCA_SUCCESS) \
			die(#call, e_); \
	} while (0)

static void ok_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	struct bench *b = cud.ptr;

	(void)tud;
	b->completed++;
	if (b->stop_submitting) {
		b->outstanding--;
		return;
	}
	doca_buf_reset_data_len(doca_dma_task_memcpy_get_dst(task));
	if (doca_task_submit(doca_dma_task_memcpy_as_task(task)) != DOCA_SUCCESS) {
		b->failed++;
		b->outstanding--;
	}
}

static void err_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	struct bench *b = cud.ptr;

	(void)task;
	(void)tud;
	b->failed++;
	b->outstanding--;
}

static struct doca_dev *open_dev(const char *pci)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n, i;

	CHECK(doca_devinfo_create_list(&list, &n));
	for (i = 0; i < n && dev == NULL; i++) {
		uint8_t eq = 1;

		if (doca_dma_cap_task_memcpy_is_supported(list[i]) != DOCA_SUCCESS)
			continue;
		if (pci != NULL && (doca_devinfo_is_equal_pci_addr(list[i], pci, &eq) != DOCA_SUCCESS || !eq))
			continue;
		CHECK(doca_dev_open(list[i], &dev));
	}
	doca_devinfo_destroy_list(list);
	if (dev == NULL) {
		fprintf(stderr, "dma_bench: no DMA-capable device%s%s\n", pci ? " at " : "", pci ? pci : "");
		exit(1);
	}
	return dev;
}

static void wait_for_work(struct bench *b)
{
	struct epoll_event ev;

	if (!b->notify)
		return;
	if (doca_pe_request_notification(b->pe) != DOCA_SUCCESS)
		return;
	/* Re-check after arming, so a completion in between is not slept over. */
	if (doca_pe_progress(b->pe) == 0)
		(void)epoll_wait(b->epfd, &ev, 1, 10);
	(void)doca_pe_clear_notification(b->pe, b->handle);
}

static void progress_until_drained(struct bench *b)
{
	while (b->outstanding > 0) {
		if (doca_pe_progress(b->pe) == 0)
			wait_for_work(b);
	}
}

struct pair_set {
	uint8_t *src;
	uint8_t *dst;
	struct doca_mmap *msrc;
	struct doca_mmap *mdst;
	struct doca_buf *bsrc[MAX_INFLIGHT];
	struct doca_buf *bdst[MAX_INFLIGHT];
	struct doca_dma_task_memcpy *task[MAX_INFLIGHT];
	uint32_t n;
	size_t size;
	/* remote mode: remote slice -> local dst (rd), local src -> remote slice (wr) */
	struct doca_buf *brd[MAX_INFLIGHT];
	struct doca_buf *bwr[MAX_INFLIGHT];
	struct doca_dma_task_memcpy *task_rd[MAX_INFLIGHT];
	struct doca_dma_task_memcpy *task_wr[MAX_INFLIGHT];
	bool remote;
};

static struct doca_mmap *mk_mmap(struct bench *b, void *p, size_t len)
{
	struct doca_mmap *m;

	CHECK(doca_mmap_create(&m));
	CHECK(doca_mmap_set_memrange(m, p, len));
	CHECK(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	CHECK(doca_mmap_add_dev(m, b->dev));
	CHECK(doca_mmap_start(m));
	return m;
}

static void pairs_create(struct bench *b, struct pair_set *ps, size_t size)
{
	uint64_t n = MAX_SIDE_BYTES / size;
	union doca_data ud = {0};
	uint32_t i;

	if (n > b->depth)
		n = b->depth;
	if (n == 0)
		n = 1;
	ps->n = (uint32_t)n;
	ps->size = size;
	if (posix_memalign((void **)&ps->src, 4096, size * n) != 0 ||
	    posix_memalign((void **)&ps->dst, 4096, size * n) != 0) {
		fprintf(stderr, "dma_bench: out of memory for %zu x %u\n", size, ps->n);
		exit(1);
	}
	if (b->rmmap != NULL)
		drt_fill(ps->src, size * n, 0, 2); /* what the writes send, checked by the exporter */
	else
		memset(ps->src, 0x3c, size * n); /* fault the pages in before timing */
	memset(ps->dst, 0, size * n);
	ps->msrc = mk_mmap(b, ps->src, size * n);
	ps->mdst = mk_mmap(b, ps->dst, size * n);
	for (i = 0; i < ps->n; i++) {
		CHECK(doca_buf_inventory_buf_get_by_data(b->inv, ps->msrc, ps->src + i * size, size, &ps->bsrc[i]));
		CHECK(doca_buf_inventory_buf_get_by_addr(b->inv, ps->mdst, ps->dst + i * size, size, &ps->bdst[i]));
		CHECK(doca_dma_task_memcpy_alloc_init(b->dma, ps->bsrc[i], ps->bdst[i], ud, &ps->task[i]));
	}
	if (b->rmmap == NULL)
		return;
	ps->remote = true;
	for (i = 0; i < ps->n; i++) {
		CHECK(doca_buf_inventory_buf_get_by_data(b->inv, b->rmmap, b->raddr + i * size, size, &ps->brd[i]));
		CHECK(doca_buf_inventory_buf_get_by_addr(b->inv, b->rmmap, b->raddr + i * size, size, &ps->bwr[i]));
		CHECK(doca_dma_task_memcpy_alloc_init(b->dma, ps->brd[i], ps->bdst[i], ud, &ps->task_rd[i]));
		CHECK(doca_dma_task_memcpy_alloc_init(b->dma, ps->bsrc[i], ps->bwr[i], ud, &ps->task_wr[i]));
	}
}

static void pairs_destroy(struct pair_set *ps)
{
	uint32_t i;

	for (i = 0; i < ps->n; i++) {
		doca_task_free(doca_dma_task_memcpy_as_task(ps->task[i]));
		doca_buf_dec_refcount(ps->bsrc[i], NULL);
		doca_buf_dec_refcount(ps->bdst[i], NULL);
		if (ps->remote) {
			doca_task_free(doca_dma_task_memcpy_as_task(ps->task_rd[i]));
			doca_task_free(doca_dma_task_memcpy_as_task(ps->task_wr[i]));
			doca_buf_dec_refcount(ps->brd[i], NULL);
			doca_buf_dec_refcount(ps->bwr[i], NULL);
		}
	}
	CHECK(doca_mmap_destroy(ps->msrc));
	CHECK(doca_mmap_destroy(ps->mdst));
	free(ps->src);
	free(ps->dst);
}

/* Keep the n tasks in flight for about b->seconds; records the repetition in
 * out (NULL: a warm-up). */
static void run_tasks(struct bench *b, struct doca_dma_task_memcpy **task, uint32_t n, size_t size,
		      struct bu_series *out)
{
	double t0, t1, c0, c1, deadline;
	uint32_t i;

	b->completed = 0;
	b->failed = 0;
	b->stop_submitting = false;
	b->outstanding = 0;
	c0 = bu_cpu();
	t0 = bu_now();
	deadline = t0 + b->seconds;
	for (i = 0; i < n; i++) {
		doca_buf_reset_data_len(doca_dma_task_memcpy_get_dst(task[i]));
		CHECK(doca_task_submit(doca_dma_task_memcpy_as_task(task[i])));
		b->outstanding++;
	}
	for (;;) {
		uint32_t k;

		/* Check the clock every few progress calls only. */
		for (k = 0; k < 64; k++) {
			if (doca_pe_progress(b->pe) == 0) {
				wait_for_work(b);
				break;
			}
		}
		if (bu_now() >= deadline)
			break;
	}
	b->stop_submitting = true;
	progress_until_drained(b);
	t1 = bu_now();
	c1 = bu_cpu();
	if (b->failed != 0) {
		fprintf(stderr, "dma_bench: %lu tasks failed\n", (unsigned long)b->failed);
		exit(1);
	}
	if (out != NULL)
		bu_add(out, (double)b->completed, t1 - t0, c1 - c0, size);
}

static void run_dma(struct bench *b, struct pair_set *ps, struct bu_series *out)
{
	run_tasks(b, ps->task, ps->n, ps->size, out);
	if (memcmp(ps->src, ps->dst, ps->size) != 0) {
		fprintf(stderr, "dma_bench: copy mismatch at size %zu\n", ps->size);
		exit(1);
	}
}

static void run_memcpy(struct bench *b, struct pair_set *ps, struct bu_series *out)
{
	double t0, t1, c0, c1, deadline;
	uint64_t copies = 0;

	c0 = bu_cpu();
	t0 = bu_now();
	deadline = t0 + b->seconds;
	do {
		uint32_t k, i;

		for (k = 0; k < 16; k++) {
			for (i = 0; i < ps->n; i++) {
				memcpy(ps->dst + i * ps->size, ps->src + i * ps->size, ps->size);
				/* keep the compiler from collapsing repeated copies */
				__asm__ __volatile__("" ::: "memory");
			}
			copies += ps->n;
			if (ps->size >= (1u << 20))
				break;
		}
	} while (bu_now() < deadline);
	t1 = bu_now();
	c1 = bu_cpu();
	if (out != NULL)
		bu_add(out, (double)copies, t1 - t0, c1 - c0, ps->size);
}

/* ---- remote mode: the exporter on the other side ---- */

#define REMOTE_BYTES MAX_SIDE_BYTES

static bool peer_readline(struct bench *b, char *line, size_t max)
{
	size_t n = 0;

	while (n + 1 < max) {
		struct pollfd pfd = {b->peer_out, POLLIN, 0};
		char c;

		if (poll(&pfd, 1, 30000) <= 0 || read(b->peer_out, &c, 1) != 1)
			return false;
		if (c == '\n')
			break;
		line[n++] = c;
	}
	line[n] = '\0';
	return true;
}

static uint64_t peer_sum(struct bench *b, uint64_t off, uint64_t len)
{
	char cmd[64], line[64];
	int n = snprintf(cmd, sizeof(cmd), "sum %llu %llu\n", (unsigned long long)off, (unsigned long long)len);

	if (write(b->peer_in, cmd, (size_t)n) != n || !peer_readline(b, line, sizeof(line)) ||
	    strncmp(line, "SUM ", 4) != 0) {
		fprintf(stderr, "dma_bench: the exporter does not answer\n");
		exit(1);
	}
	return strtoull(line + 4, NULL, 16);
}

static void remote_start(struct bench *b, const char *peer_build)
{
	char path[1024], line[1024];
	uint8_t desc[512];
	size_t desc_len;
	int out[2], in[2];
	void *addr;

	if (peer_build == NULL || *peer_build == '\0') {
		fprintf(stderr, "dma_bench: --remote needs --peer-build DIR (or SOFTDOCA_PEER_BUILD_DIR): the other "
				"flavor's build, with tests/dma/dma_exporter\n");
		exit(2);
	}
	snprintf(path, sizeof(path), "%s/tests/dma/dma_exporter", peer_build);
	if (access(path, X_OK) != 0) {
		fprintf(stderr, "dma_bench: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	if (pipe(out) != 0 || pipe(in) != 0) {
		perror("dma_bench: pipe");
		exit(1);
	}
	b->peer_pid = fork();
	if (b->peer_pid < 0) {
		perror("dma_bench: fork");
		exit(1);
	}
	if (b->peer_pid == 0) {
		char lib[1024], size[32];

		dup2(out[1], 1);
		dup2(in[0], 0);
		close(out[0]);
		close(out[1]);
		close(in[0]);
		close(in[1]);
		snprintf(lib, sizeof(lib), "%s/src", peer_build);
		setenv("LD_LIBRARY_PATH", lib, 1);
		snprintf(size, sizeof(size), "%llu", (unsigned long long)REMOTE_BYTES);
		if (b->peer_wrap != NULL) {
			execl("/bin/sh", "sh", "-c", b->wrap_script, "sh", path, size, "rw", "1", b->peer_thp ? "thp" : "4k",
			      (char *)NULL);
		} else {
			execl(path, path, size, "rw", "1", b->peer_thp ? "thp" : "4k", (char *)NULL);
		}
		_exit(127);
	}
	close(out[1]);
	close(in[0]);
	b->peer_out = out[0];
	b->peer_in = in[1];
	if (!peer_readline(b, line, sizeof(line)) || strncmp(line, "DESC ", 5) != 0) {
		fprintf(stderr, "dma_bench: the exporter did not print its descriptor\n");
		exit(1);
	}
	desc_len = drt_from_hex(line + 5, desc, sizeof(desc));
	CHECK(doca_mmap_create_from_export(NULL, desc, desc_len, b->dev, &b->rmmap));
	CHECK(doca_mmap_get_memrange(b->rmmap, &addr, &b->rlen));
	b->raddr = addr;
}

static void remote_stop(struct bench *b)
{
	char line[64];
	int status;

	CHECK(doca_mmap_destroy(b->rmmap));
	close(b->peer_in);
	(void)peer_readline(b, line, sizeof(line));
	close(b->peer_out);
	if (waitpid(b->peer_pid, &status, 0) != b->peer_pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fprintf(stderr, "dma_bench: the exporter did not exit cleanly\n");
}

static void remote_verify(struct bench *b, struct pair_set *ps, bool wrote)
{
	uint8_t *want;

	if (wrote) {
		if (peer_sum(b, 0, ps->size) != drt_sum(ps->src, ps->size)) {
			fprintf(stderr, "dma_bench: remote write mismatch at size %zu\n", ps->size);
			exit(1);
		}
		return;
	}
	want = malloc(ps->size);
	if (want == NULL)
		exit(1);
	/* Slice 0 of the export: the pattern, or what the writes put there (same bytes as src). */
	if (memcmp(ps->dst, ps->src, ps->size) != 0) {
		drt_fill(want, ps->size, 0, 1);
		if (memcmp(ps->dst, want, ps->size) != 0) {
			fprintf(stderr, "dma_bench: remote read mismatch at size %zu\n", ps->size);
			exit(1);
		}
	}
	free(want);
}

static void remote_table(struct bench *b, size_t one_size, uint64_t max_size)
{
	static const size_t sizes[] = {1u << 20, 4u << 20, 16u << 20, 64u << 20};
#ifdef DOCA_ARCH_DPU
	const bool read_is_h2a = true; /* the exporter is the host */
#else
	const bool read_is_h2a = false;
#endif
	const char *sfx = b->peer_thp ? "_thp" : "";
	char n_mc[32], n_h2a[32], n_a2h[32];
	size_t k;

	snprintf(n_mc, sizeof(n_mc), "remote_memcpy%s", sfx);
	snprintf(n_h2a, sizeof(n_h2a), "remote_h2a%s", sfx);
	snprintf(n_a2h, sizeof(n_a2h), "remote_a2h%s", sfx);
	printf("dma_bench --remote: this side %s, exporter %d on the other side (%zu MiB exported in %s pages), %u "
	       "task(s) in flight max, median of %u x %.2f s, wait=%s\n",
	       read_is_h2a ? "Arm (dpu)" : "host", (int)b->peer_pid, b->rlen >> 20, b->peer_thp ? "2 MiB THP" : "4 KiB",
	       b->depth, b->rounds, b->seconds, b->notify ? "notify" : "spin");
	bu_header();
	for (k = 0; k < (one_size ? 1 : sizeof(sizes) / sizeof(sizes[0])); k++) {
		size_t size = one_size ? one_size : sizes[k];
		struct bu_series mc = {0}, rd = {0}, wr = {0};
		struct pair_set *ps;
		uint32_t r;

		if (size > max_size || size > b->rlen)
			continue;
		ps = calloc(1, sizeof(*ps));
		if (ps == NULL)
			exit(1);
		pairs_create(b, ps, size);
		b->seconds /= 10;
		run_memcpy(b, ps, NULL);
		run_tasks(b, ps->task_rd, ps->n, size, NULL);
		run_tasks(b, ps->task_wr, ps->n, size, NULL);
		b->seconds *= 10;
		for (r = 0; r < b->rounds; r++) {
			run_memcpy(b, ps, &mc);
			run_tasks(b, ps->task_rd, ps->n, size, &rd);
			remote_verify(b, ps, false);
			run_tasks(b, ps->task_wr, ps->n, size, &wr);
			remote_verify(b, ps, true);
		}
		bu_pair(&rd, &mc);
		bu_pair(&wr, &mc);
		bu_row(n_mc, size, 1, &mc, NULL, 0);
		bu_row(n_h2a, size, ps->n, read_is_h2a ? &rd : &wr, n_mc, 0);
		bu_row(n_a2h, size, ps->n, read_is_h2a ? &wr : &rd, n_mc, 0);
		pairs_destroy(ps);
		free(ps);
	}
}

/* The oversubscribed run at one size: quiet, then with the competitors, per repetition. */
static void load_table(struct bench *b, size_t size, int per_core)
{
	struct bu_series quiet = {0}, loaded = {0};
	char name[32], qname[32];
	struct pair_set *ps = calloc(1, sizeof(*ps));
	uint32_t r;

	if (ps == NULL)
		exit(1);
	snprintf(name, sizeof(name), "dma_load%d", per_core);
	snprintf(qname, sizeof(qname), "dma_quiet_for_load%d", per_core);
	printf("dma_bench --load %d: %d busy-loop process(es) competing (%d per core), %u task(s) in flight max, "
	       "median of %u x %.2f s, wait=%s\n",
	       per_core, bu_load_n, per_core, b->depth, b->rounds, b->seconds, b->notify ? "notify" : "spin");
	bu_header();
	pairs_create(b, ps, size);
	b->seconds /= 10;
	run_dma(b, ps, NULL);
	b->seconds *= 10;
	for (r = 0; r < b->rounds; r++) {
		run_dma(b, ps, &quiet);
		bu_load_on();
		run_dma(b, ps, &loaded);
		bu_load_off();
	}
	bu_pair(&loaded, &quiet);
	bu_row(qname, size, ps->n, &quiet, NULL, 0);
	bu_row(name, size, ps->n, &loaded, qname, per_core);
	bu_ratios_line("loaded/quiet", &loaded);
	pairs_destroy(ps);
	free(ps);
}

static void usage_to(FILE *out, int status)
{
	fprintf(out,
		"usage: dma_bench [-p PCI] [-n INFLIGHT (1..%d)] [-r REPS (1..%d)] [-t SECONDS] [-s SIZE] [-w spin|notify]\n"
		"                 [--max-size BYTES] [--csv FILE] [--load N (1..8, with -s)]\n"
		"                 [--remote [--peer-build DIR] [--exporter-thp] [--peer-wrap CMD]]\n",
		MAX_INFLIGHT, BU_MAX_REPS);
	exit(status);
}

static void usage(void)
{
	usage_to(stderr, 2);
}

/* A whole number in [lo, hi], or a usage error naming the option. */
static unsigned long long parse_num(const char *opt, const char *arg, unsigned long long lo, unsigned long long hi)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno != 0 || end == arg || *end != '\0' || arg[0] == '-' || v < lo || v > hi) {
		fprintf(stderr, "dma_bench: %s: '%s' is not a number in %llu..%llu\n", opt, arg, lo, hi);
		usage();
	}
	return v;
}

int main(int argc, char **argv)
{
	static const size_t all_sizes[] = {64, 256, 1024, 4096, 16384, 65536, 262144, 1u << 20, 4u << 20, 16u << 20,
					   64u << 20};
	struct bench b = {.depth = 128, .rounds = 5, .seconds = 0.3, .notify = true, .epfd = -1};
	static const struct option longopts[] = {
		{"remote", no_argument, NULL, 'R'},
		{"peer-build", required_argument, NULL, 'B'},
		{"exporter-thp", no_argument, NULL, 'T'},
		{"peer-wrap", required_argument, NULL, 'W'},
		{"max-size", required_argument, NULL, 'M'},
		{"csv", required_argument, NULL, 'C'},
		{"load", required_argument, NULL, 'L'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *pci = NULL, *peer_build = getenv("SOFTDOCA_PEER_BUILD_DIR");
	bool remote = false;
	size_t one_size = 0, size_cap = SIZE_MAX, k;
	union doca_data ud;
	uint32_t max_tasks;
	uint64_t max_size;
	int opt, load = 0;
	char *end;

	while ((opt = getopt_long(argc, argv, "p:n:r:t:s:w:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'R':
			remote = true;
			break;
		case 'B':
			peer_build = optarg;
			break;
		case 'T':
			b.peer_thp = true;
			break;
		case 'W':
			if (!bu_wrap_script(optarg, b.wrap_script)) {
				fprintf(stderr, "dma_bench: --peer-wrap: an empty or over-long command\n");
				return 2;
			}
			b.peer_wrap = optarg;
			break;
		case 'M':
			size_cap = parse_num("--max-size", optarg, 1, 1ull << 40);
			break;
		case 'C':
			if (!bu_csv_open(optarg))
				return 1;
			break;
		case 'L':
			load = (int)parse_num("--load", optarg, 1, 8);
			break;
		case 'p':
			pci = optarg;
			break;
		case 'n':
			b.depth = (uint32_t)parse_num("-n", optarg, 1, MAX_INFLIGHT);
			break;
		case 'r':
			b.rounds = (uint32_t)parse_num("-r", optarg, 1, BU_MAX_REPS);
			break;
		case 't':
			b.seconds = strtod(optarg, &end);
			if (end == optarg || *end != '\0' || !(b.seconds > 0 && b.seconds < 60)) {
				fprintf(stderr, "dma_bench: -t: '%s' is not a number of seconds in (0, 60)\n", optarg);
				usage();
			}
			break;
		case 's':
			one_size = parse_num("-s", optarg, 1, 1ull << 40);
			break;
		case 'w':
			if (strcmp(optarg, "spin") == 0)
				b.notify = false;
			else if (strcmp(optarg, "notify") == 0)
				b.notify = true;
			else
				usage();
			break;
		case 'h':
			usage_to(stdout, 0);
			break;
		default:
			usage();
		}
	}
	if (optind != argc) {
		fprintf(stderr, "dma_bench: unexpected argument '%s'\n", argv[optind]);
		usage();
	}
	if (load && (remote || one_size == 0)) {
		fprintf(stderr, "dma_bench: --load needs one size (-s) and no --remote\n");
		usage();
	}
	/* The competitors first, while this process has no other thread. */
	if (load && bu_load_start(load) < 0)
		return 1;

	b.dev = open_dev(pci);
	CHECK(doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(b.dev), &max_size));
	if (max_size > size_cap)
		max_size = size_cap;
	CHECK(doca_pe_create(&b.pe));
	CHECK(doca_dma_create(b.dev, &b.dma));
	CHECK(doca_dma_cap_get_max_num_tasks(b.dma, &max_tasks));
	if (b.depth > max_tasks)
		b.depth = max_tasks;
	if (remote && 3 * b.depth > max_tasks)
		b.depth = max_tasks / 3; /* local, read and write task sets */
	b.ctx = doca_dma_as_ctx(b.dma);
	CHECK(doca_dma_task_memcpy_set_conf(b.dma, ok_cb, err_cb, remote ? 3 * b.depth : b.depth));
	ud.ptr = &b;
	CHECK(doca_ctx_set_user_data(b.ctx, ud));
	CHECK(doca_pe_connect_ctx(b.pe, b.ctx));
	CHECK(doca_ctx_start(b.ctx));
	CHECK(doca_buf_inventory_create(4 * b.depth, &b.inv));
	CHECK(doca_buf_inventory_start(b.inv));
	if (b.notify) {
		struct epoll_event ev = {.events = EPOLLIN};

		CHECK(doca_pe_get_notification_handle(b.pe, &b.handle));
		b.epfd = epoll_create1(EPOLL_CLOEXEC);
		if (b.epfd < 0 || epoll_ctl(b.epfd, EPOLL_CTL_ADD, b.handle, &ev) != 0) {
			fprintf(stderr, "dma_bench: epoll: %s\n", strerror(errno));
			return 1;
		}
	}

	if (remote) {
		signal(SIGPIPE, SIG_IGN);
		remote_start(&b, peer_build);
		remote_table(&b, one_size, max_size);
		remote_stop(&b);
		goto out;
	}
	if (load) {
		if (one_size > max_size) {
			fprintf(stderr, "dma_bench: -s %zu is above the device's maximum of %llu\n", one_size,
				(unsigned long long)max_size);
			return 1;
		}
		load_table(&b, one_size, load);
		bu_load_stop();
		goto out;
	}
	printf("dma_bench: %u task(s) in flight max, median of %u x %.2f s (memcpy and DMA alternating), wait=%s\n",
	       b.depth, b.rounds, b.seconds, b.notify ? "notify" : "spin");
	bu_header();
	for (k = 0; k < (one_size ? 1 : sizeof(all_sizes) / sizeof(all_sizes[0])); k++) {
		size_t size = one_size ? one_size : all_sizes[k];
		struct bu_series dma = {0}, mc = {0};
		struct pair_set *ps;
		uint32_t r;

		if (size > max_size)
			continue;
		ps = calloc(1, sizeof(*ps));
		if (ps == NULL)
			return 1;
		pairs_create(&b, ps, size);
		/* warm-up of both paths (caches, engine thread, page tables) */
		b.seconds /= 10;
		run_memcpy(&b, ps, NULL);
		run_dma(&b, ps, NULL);
		b.seconds *= 10;
		/* Alternate the two, so that both see the same machine. */
		for (r = 0; r < b.rounds; r++) {
			run_memcpy(&b, ps, &mc);
			run_dma(&b, ps, &dma);
		}
		bu_pair(&dma, &mc);
		bu_row("memcpy", size, 1, &mc, NULL, 0);
		bu_row("dma", size, ps->n, &dma, "memcpy", 0);
		pairs_destroy(ps);
		free(ps);
	}

out:
	if (b.epfd >= 0)
		close(b.epfd);
	{
		doca_error_t e = doca_ctx_stop(b.ctx);

		if (e != DOCA_SUCCESS && e != DOCA_ERROR_IN_PROGRESS)
			die("doca_ctx_stop", e);
	}
	{
		enum doca_ctx_states st = DOCA_CTX_STATE_RUNNING;

		while (doca_ctx_get_state(b.ctx, &st) == DOCA_SUCCESS && st != DOCA_CTX_STATE_IDLE)
			doca_pe_progress(b.pe);
	}
	CHECK(doca_dma_destroy(b.dma));
	CHECK(doca_buf_inventory_stop(b.inv));
	CHECK(doca_buf_inventory_destroy(b.inv));
	CHECK(doca_pe_destroy(b.pe));
	CHECK(doca_dev_close(b.dev));
	if (bu_csv != NULL)
		fclose(bu_csv);
	return 0;
}
