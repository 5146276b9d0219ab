/*
 * dpdk_dma_bench.c - the peer of dma_bench in the same run: DPDK's dmadev
 * with its dma_skeleton driver, the closest thing to a software DMA engine
 * people already trust (a worker thread that copies the descriptors it is
 * given, in order).
 *
 * Measured like dma_bench measures softdoca: the same sizes, the same
 * in-flight depth (-n, default 128) over the same number of buffer pairs
 * (min(depth, 128 MiB / size), one copy in flight per pair at most), the same repetitions and seconds, the same
 * row format and CSV (bench/common/bench_util.h). The loop is dmadev's own
 * idiom: enqueue copies (rte_dma_copy) while fewer than depth are in flight,
 * at most 32 per batch, ring the doorbell once per batch (rte_dma_submit),
 * and reap up to 32 completions (rte_dma_completed). CPU time is
 * getrusage(RUSAGE_SELF), which includes the skeleton's worker thread.
 *
 * EAL runs without huge pages or PCI (--no-huge --no-pci --vdev=dma_skeleton
 * --no-shconf), and both the main lcore and the skeleton's control thread may
 * run on any CPU this process may use, as softdoca's threads may. The
 * skeleton copies with the CPU from the addresses it is given, so the
 * buffers are ordinary memory and their IOVAs their virtual addresses
 * (--iova-mode=va). Extra EAL arguments: $DPDK_EAL_ARGS (split at spaces).
 *
 * Exit status 3: the peer cannot run here (EAL init failed, no dma_skeleton
 * device); the message says which, and bench/run.sh carries on without it.
 *
 * usage: dpdk_dma_bench [-n INFLIGHT] [-r REPS] [-t SECONDS] [-s SIZE] [--max-size BYTES] [--csv FILE]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_version.h>

#include "common/bench_util.h"

#define MAX_INFLIGHT 1024
#define MAX_SIDE_BYTES (128ull << 20) /* memory per side, as dma_bench */
#define BATCH 32
#define RING_DESC 2048 /* above any depth, so that only -n limits what is in flight */
#define CANNOT_RUN 3

struct peer {
	int16_t dev;
	uint32_t depth;
	uint32_t reps;
	double seconds;
	uint8_t *src, *dst;
	uint32_t npairs;
	size_t size;
};

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: dpdk_dma_bench [-n INFLIGHT (1..%d)] [-r REPS (1..%d)] [-t SECONDS] [-s SIZE] "
		"[--max-size BYTES] [--csv FILE]\n",
		MAX_INFLIGHT, BU_MAX_REPS);
	exit(status);
}

static unsigned long long parse_num(const char *opt, const char *arg, unsigned long long lo, unsigned long long hi)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno != 0 || end == arg || *end != '\0' || arg[0] == '-' || v < lo || v > hi) {
		fprintf(stderr, "dpdk_dma_bench: %s: '%s' is not a number in %llu..%llu\n", opt, arg, lo, hi);
		usage(2);
	}
	return v;
}

/* "0@(a,b,...)": lcore 0 (the main thread) on every CPU we may use. */
static void lcores_arg(char *buf, size_t n)
{
	cpu_set_t set;
	size_t off;

	off = (size_t)snprintf(buf, n, "--lcores=0@(");
	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		for (int c = 0; c < CPU_SETSIZE && off + 8 < n; c++)
			if (CPU_ISSET(c, &set))
				off += (size_t)snprintf(buf + off, n - off, "%d,", c);
	}
	if (buf[off - 1] == ',')
		off--;
	else
		off += (size_t)snprintf(buf + off, n - off, "0");
	snprintf(buf + off, n - off, ")");
}

static int eal_start(const char *prog)
{
	static char lcores[512], extra[1024];
	char *args[64] = {(char *)prog, "--no-huge", "--no-pci", "--no-shconf", "--no-telemetry", "--iova-mode=va",
			  "--vdev=dma_skeleton", "--log-level=warning", lcores};
	int n = 9;
	const char *env = getenv("DPDK_EAL_ARGS");

	lcores_arg(lcores, sizeof(lcores));
	if (env != NULL) {
		snprintf(extra, sizeof(extra), "%s", env);
		for (char *t = strtok(extra, " "); t != NULL && n < 63; t = strtok(NULL, " "))
			args[n++] = t;
	}
	args[n] = NULL;
	return rte_eal_init(n, args);
}

static int dev_start(struct peer *p)
{
	struct rte_dma_conf conf = {.nb_vchans = 1};
	struct rte_dma_vchan_conf vc = {.direction = RTE_DMA_DIR_MEM_TO_MEM, .nb_desc = RING_DESC};
	struct rte_dma_info info;
	int id = rte_dma_get_dev_id_by_name("dma_skeleton");

	if (id < 0) {
		fprintf(stderr, "dpdk_dma_bench: no dma_skeleton device (%d dmadev(s) available): is DPDK's "
				"librte-dma-skeleton installed? (scripts/install-deps.sh --bench)\n",
			rte_dma_count_avail());
		return -1;
	}
	p->dev = (int16_t)id;
	if (rte_dma_info_get(p->dev, &info) != 0) {
		fprintf(stderr, "dpdk_dma_bench: rte_dma_info_get failed\n");
		return -1;
	}
	if (vc.nb_desc > info.max_desc)
		vc.nb_desc = info.max_desc;
	if (vc.nb_desc < info.min_desc)
		vc.nb_desc = info.min_desc;
	if (p->depth > vc.nb_desc)
		p->depth = vc.nb_desc;
	if (rte_dma_configure(p->dev, &conf) != 0 || rte_dma_vchan_setup(p->dev, 0, &vc) != 0 ||
	    rte_dma_start(p->dev) != 0) {
		fprintf(stderr, "dpdk_dma_bench: could not configure and start dma_skeleton\n");
		return -1;
	}
	return 0;
}

/* Reap completions; false on a failed copy. */
static bool reap(struct peer *p, uint32_t *inflight, uint64_t *done)
{
	bool err = false;
	uint16_t last, c;

	c = rte_dma_completed(p->dev, 0, BATCH, &last, &err);
	*inflight -= c;
	*done += c;
	return !err;
}

/* One repetition (out NULL: a warm-up). */
static void run(struct peer *p, struct bu_series *out)
{
	/* One copy in flight per buffer pair at most, as dma_bench has one task per pair. */
	uint32_t lim = p->depth < p->npairs ? p->depth : p->npairs;
	uint32_t inflight = 0, next = 0, k = 0;
	uint64_t done = 0;
	double t0, t1, c0, c1, deadline;

	c0 = bu_cpu();
	t0 = bu_now();
	deadline = t0 + p->seconds;
	for (;;) {
		uint32_t n = 0;

		while (inflight < lim && n < BATCH) {
			size_t off = (size_t)next * p->size;

			if (rte_dma_copy(p->dev, 0, (rte_iova_t)(uintptr_t)(p->src + off),
					 (rte_iova_t)(uintptr_t)(p->dst + off), (uint32_t)p->size, 0) < 0)
				break;
			next = next + 1 == p->npairs ? 0 : next + 1;
			inflight++;
			n++;
		}
		if (n > 0)
			rte_dma_submit(p->dev, 0);
		if (!reap(p, &inflight, &done)) {
			fprintf(stderr, "dpdk_dma_bench: a copy failed at size %zu\n", p->size);
			exit(1);
		}
		if ((++k & 63) == 0 && bu_now() >= deadline)
			break;
	}
	while (inflight > 0)
		if (!reap(p, &inflight, &done)) {
			fprintf(stderr, "dpdk_dma_bench: a copy failed at size %zu\n", p->size);
			exit(1);
		}
	t1 = bu_now();
	c1 = bu_cpu();
	if (memcmp(p->src, p->dst, p->size) != 0) {
		fprintf(stderr, "dpdk_dma_bench: copy mismatch at size %zu\n", p->size);
		exit(1);
	}
	if (out != NULL)
		bu_add(out, (double)done, t1 - t0, c1 - c0, p->size);
}

int main(int argc, char **argv)
{
	static const size_t all_sizes[] = {64, 256, 1024, 4096, 16384, 65536, 262144, 1u << 20, 4u << 20, 16u << 20,
					   64u << 20};
	static const struct option longopts[] = {
		{"max-size", required_argument, NULL, 'M'},
		{"csv", required_argument, NULL, 'C'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct peer p = {.depth = 128, .reps = 5, .seconds = 0.3};
	size_t one_size = 0, max_size = 64u << 20;
	char *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "n:r:t:s:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			p.depth = (uint32_t)parse_num("-n", optarg, 1, MAX_INFLIGHT);
			break;
		case 'r':
			p.reps = (uint32_t)parse_num("-r", optarg, 1, BU_MAX_REPS);
			break;
		case 't':
			p.seconds = strtod(optarg, &end);
			if (end == optarg || *end != '\0' || !(p.seconds > 0 && p.seconds < 60)) {
				fprintf(stderr, "dpdk_dma_bench: -t: '%s' is not a number of seconds in (0, 60)\n",
					optarg);
				usage(2);
			}
			break;
		case 's':
			one_size = parse_num("-s", optarg, 1, 1u << 30);
			break;
		case 'M':
			max_size = parse_num("--max-size", optarg, 1, 1u << 30);
			break;
		case 'C':
			if (!bu_csv_open(optarg))
				return 1;
			break;
		case 'h':
			usage(0);
			break;
		default:
			usage(2);
		}
	}
	if (optind != argc) {
		fprintf(stderr, "dpdk_dma_bench: unexpected argument '%s'\n", argv[optind]);
		usage(2);
	}
	if (eal_start(argv[0]) < 0) {
		fprintf(stderr, "dpdk_dma_bench: DPDK's EAL did not start: %s\n", rte_strerror(rte_errno));
		return CANNOT_RUN;
	}
	if (dev_start(&p) != 0) {
		rte_eal_cleanup();
		return CANNOT_RUN;
	}
	printf("dpdk_dma_bench: %s dmadev dma_skeleton, %u copies in flight max, batches of %d, median of %u x "
	       "%.2f s\n",
	       rte_version(), p.depth, BATCH, p.reps, p.seconds);
	bu_header();
	for (size_t k = 0; k < (one_size ? 1 : sizeof(all_sizes) / sizeof(all_sizes[0])); k++) {
		size_t size = one_size ? one_size : all_sizes[k];
		uint64_t n = MAX_SIDE_BYTES / size;
		struct bu_series s = {0};

		if (size > max_size)
			continue;
		p.size = size;
		p.npairs = (uint32_t)(n > p.depth ? p.depth : n ? n : 1);
		if (posix_memalign((void **)&p.src, 4096, size * p.npairs) != 0 ||
		    posix_memalign((void **)&p.dst, 4096, size * p.npairs) != 0) {
			fprintf(stderr, "dpdk_dma_bench: out of memory for %zu x %u\n", size, p.npairs);
			return 1;
		}
		memset(p.src, 0x3c, size * p.npairs); /* fault the pages in before timing */
		memset(p.dst, 0, size * p.npairs);
		p.seconds /= 10;
		run(&p, NULL);
		p.seconds *= 10;
		for (uint32_t r = 0; r < p.reps; r++)
			run(&p, &s);
		bu_row("dpdk_skeleton", size, p.depth < p.npairs ? p.depth : p.npairs, &s, NULL, 0);
		free(p.src);
		free(p.dst);
	}
	rte_dma_stop(p.dev);
	rte_dma_close(p.dev);
	rte_eal_cleanup();
	if (bu_csv != NULL)
		fclose(bu_csv);
	return 0;
}
