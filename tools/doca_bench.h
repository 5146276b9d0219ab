/*
 * doca_bench.h - softdoca's doca_bench: a compatible subset of NVIDIA's
 * doca_bench (the DOCA pipeline benchmark in /opt/mellanox/doca/tools).
 *
 * Model: one test permutation = one run of the pipeline (one step: doca_dma,
 * doca_comch::producer or doca_comch::consumer). doca_dma runs on T threads
 * (cores x threads per core); each thread owns its progress engine, DMA
 * context, inventory, memory and tasks; the threads share the doca_dev only.
 * The Comch steps run one thread, against a companion process on the other
 * side of the Comch connection that runs the opposite end. A run is: build
 * everything, warm-up jobs (timed by nobody), then the measured jobs until a
 * run limit, then drain. A sweep runs one permutation per value of the swept
 * option.
 *
 * Modules: doca_bench_opts.c parses and checks the command line into a
 * struct bench_cfg; doca_bench_dma.c runs one DMA permutation and fills a
 * struct bench_result; doca_bench_comch*.c are the Comch steps (the session,
 * the fast path, the measuring side's runs and the companion: see
 * doca_bench_comch.h); doca_bench_report.c prints and writes
 * the CSV; doca_bench_remote.c is the DMA companion that exports host memory
 * and the import on the measuring side; doca_bench.c ties them together.
 */
#ifndef DOCA_BENCH_H
#define DOCA_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BENCH_MAX_CORES 256
#define BENCH_MAX_THREADS 256
#define BENCH_MAX_SWEEP 64
#define BENCH_MAX_INFLIGHT 4096

enum bench_mode {
	BENCH_MODE_THROUGHPUT,
	BENCH_MODE_LATENCY,
};

enum bench_step {
	BENCH_STEP_DMA,
	BENCH_STEP_COMCH_PRODUCER, /* this process produces, the companion consumes */
	BENCH_STEP_COMCH_CONSUMER, /* the companion produces, this process consumes */
};

enum bench_sweep_param {
	BENCH_SWEEP_NONE,
	BENCH_SWEEP_JOB_SIZE,
	BENCH_SWEEP_CORE_COUNT,
	BENCH_SWEEP_THREADS_PER_CORE,
};

struct bench_cfg {
	enum bench_step step;
	const char *device;       /* PCI address, NULL = first capable device */
	enum bench_mode mode;
	uint64_t job_size;        /* --uniform-job-size */
	uint64_t out_size;        /* --job-output-buffer-size, 0 = job_size */
	double run_limit_seconds; /* 0 = none */
	uint64_t run_limit_jobs;  /* per run (all threads), 0 = none */
	uint64_t run_limit_bytes; /* per run, 0 = none */
	uint64_t warm_up_jobs;    /* per thread */
	uint32_t job_count;       /* --data-provider-job-count: tasks per thread kept in flight */
	int cores[BENCH_MAX_CORES];
	uint32_t n_cores;         /* the selected core set */
	uint32_t core_count;      /* first N of the set, 0 = all */
	uint32_t threads_per_core;
	bool remote_input;        /* --use-remote-input-buffers */
	bool remote_output;       /* --use-remote-output-buffers */
	const char *companion;    /* --companion-connection-string: file=PATH (DMA) or comch=NAME */
	const char *csv_file;
	bool csv_append;
	enum bench_sweep_param sweep;
	uint64_t sweep_values[BENCH_MAX_SWEEP];
	uint32_t n_sweep;
	/* softdoca extension: run as the companion (export memory, wait) */
	bool companion_role;
	uint64_t companion_size;
};

/* Latency figures of one step, in nanoseconds (from sampled tasks). */
struct bench_latency {
	uint64_t samples;
	uint64_t min, median, p99, p999, max;
	double mean;
};

struct bench_result {
	uint32_t threads;
	uint64_t duration_ns;     /* first measured submit to last completion (slowest thread) */
	uint64_t enqueued;
	uint64_t dequeued;
	uint64_t bytes_in;        /* bytes read by the step */
	uint64_t bytes_out;       /* bytes written */
	struct bench_latency lat;
};

/* The remote memory seen by the measuring side (imported from the companion). */
struct bench_remote {
	struct doca_mmap *mmap;
	uint8_t *addr;
	size_t len;
	char *path; /* descriptor file, removed when done */
};

/* doca_bench_opts.c: 0 = run, 1 = done (help/version printed), <0 = error (printed). */
int bench_parse(int argc, char **argv, struct bench_cfg *cfg);
const char *bench_sweep_name(enum bench_sweep_param p);

/* doca_bench.c */
struct doca_dev;
struct doca_devinfo;
int bench_open_capable_dev(const char *pci, bool (*capable)(struct doca_devinfo *), const char *what,
			   struct doca_dev **dev);

/* doca_bench_dma.c */
int bench_open_dev(const char *pci, struct doca_dev **dev);
int bench_run_dma(const struct bench_cfg *cfg, struct doca_dev *dev, const struct bench_remote *remote,
		  struct bench_result *res);

/* doca_bench_comch*.c: the Comch steps (the measuring side keeps one session
 * to its companion for all permutations) and the Comch companion. */
struct bench_comch;
int bench_comch_open_dev(const char *pci, struct doca_dev **dev);
int bench_comch_check(const struct bench_cfg *cfg, struct doca_dev *dev);
int bench_comch_connect(const struct bench_cfg *cfg, struct doca_dev *dev, struct bench_comch **session);
int bench_run_comch(const struct bench_cfg *cfg, struct bench_comch *session, struct bench_result *res);
void bench_comch_close(struct bench_comch *session);
int bench_comch_companion_run(const struct bench_cfg *cfg, struct doca_dev *dev);
bool bench_is_comch_companion(const struct bench_cfg *cfg);

/* doca_bench_report.c */
const char *bench_step_name(enum bench_step step);
void bench_print_permutation(FILE *f, const struct bench_cfg *cfg);
void bench_print_result(FILE *f, const struct bench_cfg *cfg, const struct bench_result *res);
int bench_csv_open(const struct bench_cfg *cfg, FILE **out);
void bench_csv_row(FILE *f, const struct bench_cfg *cfg, const struct bench_result *res);
void bench_latency_compute(uint64_t *samples, uint64_t n, struct bench_latency *lat);

/* Latency samples of one thread or session: at most BENCH_LAT_CAP are kept;
 * when full, every other one is dropped and the sampling stride doubles, so
 * a run of any length keeps an even spread. v is allocated by the owner
 * (BENCH_LAT_CAP entries). */
#define BENCH_LAT_CAP (1u << 16)
struct bench_lat_samples {
	uint64_t *v;
	uint64_t n, stride, seen;
};
void bench_lat_reset(struct bench_lat_samples *s);
void bench_lat_record(struct bench_lat_samples *s, uint64_t v);

/* Throughput mode times one measured job in BENCH_TIME_EVERY (jobs 0, 64,
 * ...: a clock read costs about what a small job does); latency mode times
 * each. */
#define BENCH_TIME_EVERY 64u
static inline uint32_t bench_time_every(const struct bench_cfg *cfg)
{
	return cfg->mode == BENCH_MODE_LATENCY ? 1u : BENCH_TIME_EVERY;
}

/* doca_bench_remote.c */
int bench_companion_run(const struct bench_cfg *cfg, struct doca_dev *dev);
int bench_remote_import(const struct bench_cfg *cfg, struct doca_dev *dev, struct bench_remote *remote);
void bench_remote_release(struct bench_remote *remote);

uint32_t bench_thread_count(const struct bench_cfg *cfg);

#endif
