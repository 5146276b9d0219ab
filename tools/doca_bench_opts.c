/*
 * doca_bench_opts.c - the command line of doca_bench.
 *
 * The option names are DOCA's doca_bench names for the parts softdoca
 * implements. Options DOCA has that we do not implement are still
 * recognised, so that a command line written for the real tool fails with
 * "not supported by softdoca's doca_bench" rather than a generic "unknown
 * option": the user learns that the name is right and the feature missing.
 * Every value is checked completely (no trailing junk, no overflow, ranges)
 * before anything runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <doca_version.h>

#include "doca_bench.h"

#define BENCH_DEFAULT_JOB_SIZE 1024
#define BENCH_DEFAULT_JOB_COUNT 32
#define BENCH_DEFAULT_WARM_UP 100
#define BENCH_DEFAULT_SECONDS 1.0
#define BENCH_DEFAULT_COMPANION_SIZE (64ull << 20)
#define BENCH_MAX_JOB_SIZE (1ull << 30)

enum {
	OPT_PIPELINE = 0x100,
	OPT_DEVICE,
	OPT_MODE,
	OPT_DATA_PROVIDER,
	OPT_JOB_SIZE,
	OPT_OUT_SIZE,
	OPT_JOB_COUNT,
	OPT_LIMIT_S,
	OPT_LIMIT_JOBS,
	OPT_LIMIT_BYTES,
	OPT_WARM_UP,
	OPT_CORE_MASK,
	OPT_CORE_LIST,
	OPT_CORE_COUNT,
	OPT_TPC,
	OPT_CSV,
	OPT_CSV_APPEND,
	OPT_SWEEP,
	OPT_REMOTE_IN,
	OPT_REMOTE_OUT,
	OPT_COMPANION_STR,
	OPT_COMPANION_ROLE,
	OPT_COMPANION_SIZE,
	OPT_HELP,
	OPT_VERSION,
	OPT_UNSUPPORTED,
};

static const struct option long_opts[] = {
	{"pipeline-steps", required_argument, NULL, OPT_PIPELINE},
	{"device", required_argument, NULL, OPT_DEVICE},
	{"mode", required_argument, NULL, OPT_MODE},
	{"data-provider", required_argument, NULL, OPT_DATA_PROVIDER},
	{"uniform-job-size", required_argument, NULL, OPT_JOB_SIZE},
	{"job-output-buffer-size", required_argument, NULL, OPT_OUT_SIZE},
	{"data-provider-job-count", required_argument, NULL, OPT_JOB_COUNT},
	{"run-limit-seconds", required_argument, NULL, OPT_LIMIT_S},
	{"run-limit-jobs", required_argument, NULL, OPT_LIMIT_JOBS},
	{"run-limit-bytes", required_argument, NULL, OPT_LIMIT_BYTES},
	{"warm-up-jobs", required_argument, NULL, OPT_WARM_UP},
	{"core-mask", required_argument, NULL, OPT_CORE_MASK},
	{"core-list", required_argument, NULL, OPT_CORE_LIST},
	{"core-count", required_argument, NULL, OPT_CORE_COUNT},
	{"threads-per-core", required_argument, NULL, OPT_TPC},
	{"csv-output-file", required_argument, NULL, OPT_CSV},
	{"csv-append-mode", no_argument, NULL, OPT_CSV_APPEND},
	{"sweep", required_argument, NULL, OPT_SWEEP},
	{"use-remote-input-buffers", no_argument, NULL, OPT_REMOTE_IN},
	{"use-remote-output-buffers", no_argument, NULL, OPT_REMOTE_OUT},
	{"companion-connection-string", required_argument, NULL, OPT_COMPANION_STR},
	{"companion", no_argument, NULL, OPT_COMPANION_ROLE},
	{"companion-memory-size", required_argument, NULL, OPT_COMPANION_SIZE},
	{"help", no_argument, NULL, OPT_HELP},
	{"version", no_argument, NULL, OPT_VERSION},
	{"attribute", required_argument, NULL, OPT_UNSUPPORTED},
	{"query", no_argument, NULL, OPT_UNSUPPORTED},
	{"data-provider-input-file", required_argument, NULL, OPT_UNSUPPORTED},
	{"latency-bucket-range", required_argument, NULL, OPT_UNSUPPORTED},
	{"representor", required_argument, NULL, OPT_UNSUPPORTED},
	{"companion-core-list", required_argument, NULL, OPT_UNSUPPORTED},
	{"rt-threads", no_argument, NULL, OPT_UNSUPPORTED},
	{"job-batch-size", required_argument, NULL, OPT_UNSUPPORTED},
	{NULL, 0, NULL, 0},
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: doca_bench --pipeline-steps STEP [options]\n"
		"       doca_bench --companion --companion-connection-string file=PATH|comch=NAME [options]\n"
		"softdoca's doca_bench: the subset of NVIDIA DOCA Bench that softdoca implements.\n"
		"\n"
		"  -d, --device PCI                    device (default: the first one the step can use)\n"
		"      --pipeline-steps STEP           one step: doca_dma, doca_comch::producer or\n"
		"                                      doca_comch::consumer\n"
		"      --mode throughput|latency       latency = one job in flight per thread (default throughput)\n"
		"      --data-provider random-data     the only data provider (default)\n"
		"      --uniform-job-size BYTES        bytes per job (default %u)\n"
		"      --job-output-buffer-size BYTES  destination buffer per job, >= job size (default: job size)\n"
		"      --data-provider-job-count N     jobs per thread kept in flight (default %u, max %u)\n"
		"      --run-limit-seconds S           stop submitting after S seconds\n"
		"      --run-limit-jobs N              stop after N measured jobs (all threads together)\n"
		"      --run-limit-bytes N             stop after N measured input bytes\n"
		"                                      (no limit given: --run-limit-seconds 1)\n"
		"      --warm-up-jobs N                jobs per thread before measuring (default %u)\n"
		"      --core-mask MASK                cores as a hex mask, cores 0-31 (default 0x02)\n"
		"      --core-list LIST                cores as a list/ranges: 0,3,6-10\n"
		"      --core-count N                  use the first N cores of the set\n"
		"      --threads-per-core N            threads per selected core (default 1)\n"
		"      --csv-output-file FILE          one CSV row per test permutation, with a header\n"
		"      --csv-append-mode               append to FILE (header only if FILE is empty)\n"
		"      --sweep PARAM,START,END,+N|*N   or PARAM,V1,V2,...; PARAM: uniform-job-size,\n"
		"                                      core-count, threads-per-core\n"
		"      --use-remote-input-buffers      read the jobs' input from the companion's memory\n"
		"      --use-remote-output-buffers     write the jobs' output into the companion's memory\n"
		"      --companion-connection-string file=PATH\n"
		"                                      doca_dma: where the companion's export descriptor is found\n"
		"      --companion-connection-string comch=NAME\n"
		"                                      Comch steps: the Comch server name of the session (the\n"
		"                                      Arm side is the server, the host side the client)\n"
		"      --companion                     (softdoca) be the companion: with file=PATH export memory\n"
		"                                      with doca_mmap_export_pci, write the descriptor to PATH,\n"
		"                                      wait until it is consumed; with comch=NAME run the other\n"
		"                                      end of the Comch steps of one doca_bench session\n"
		"      --companion-memory-size BYTES   (softdoca) memory the companion exports (default 64 MiB)\n"
		"      --help, --version\n"
		"Recognised but not supported: --attribute, --query, --data-provider-input-file,\n"
		"--latency-bucket-range, --representor, --companion-core-list, --rt-threads, --job-batch-size;\n"
		"multi-step pipelines and other steps (doca_compress::*, doca_sha, doca_aes_gcm::*, doca_ec::*,\n"
		"doca_eth::*, doca_rdma::*); Comch steps on more than one thread.\n",
		BENCH_DEFAULT_JOB_SIZE, BENCH_DEFAULT_JOB_COUNT, BENCH_MAX_INFLIGHT, BENCH_DEFAULT_WARM_UP);
}

static int bad(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "doca_bench: invalid value '%s' for --%s: %s\n", val, opt, why);
	return -1;
}

/* A decimal (or 0x hex) unsigned integer, nothing else. */
static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (s == NULL || *s == '\0' || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

static int opt_u64(const char *opt, const char *val, uint64_t min, uint64_t max, uint64_t *out)
{
	char why[96];

	if (parse_u64(val, out) != 0)
		return bad(opt, val, "not a non-negative integer");
	if (*out < min || *out > max) {
		snprintf(why, sizeof(why), "must be between %" PRIu64 " and %" PRIu64, min, max);
		return bad(opt, val, why);
	}
	return 0;
}

static int add_core(struct bench_cfg *cfg, uint64_t c, const char *opt, const char *val)
{
	uint32_t i;

	if (c >= BENCH_MAX_CORES)
		return bad(opt, val, "core number too large");
	for (i = 0; i < cfg->n_cores; i++)
		if (cfg->cores[i] == (int)c)
			return bad(opt, val, "a core is given twice");
	cfg->cores[cfg->n_cores++] = (int)c;
	return 0;
}

static int parse_core_list(struct bench_cfg *cfg, const char *val)
{
	char buf[1024], *save = NULL, *tok;

	if (strlen(val) >= sizeof(buf) || *val == '\0')
		return bad("core-list", val, "empty or too long");
	strcpy(buf, val);
	cfg->n_cores = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok, '-');
		uint64_t a, b, c;

		if (dash != NULL) {
			*dash = '\0';
			if (parse_u64(tok, &a) != 0 || parse_u64(dash + 1, &b) != 0 || b < a)
				return bad("core-list", val, "a range must be LOW-HIGH");
		} else if (parse_u64(tok, &a) != 0) {
			return bad("core-list", val, "expected core numbers and ranges, e.g. 0,3,6-10");
		} else {
			b = a;
		}
		for (c = a; c <= b; c++)
			if (add_core(cfg, c, "core-list", val) != 0)
				return -1;
	}
	if (cfg->n_cores == 0)
		return bad("core-list", val, "no core");
	return 0;
}

static int parse_core_mask(struct bench_cfg *cfg, const char *val)
{
	uint64_t m;
	uint32_t c;

	if (parse_u64(val, &m) != 0 || m == 0 || m > 0xffffffffull)
		return bad("core-mask", val, "a non-zero mask of cores 0-31, e.g. 0x02");
	cfg->n_cores = 0;
	for (c = 0; c < 32; c++)
		if (m & (1ull << c))
			cfg->cores[cfg->n_cores++] = (int)c;
	return 0;
}

const char *bench_sweep_name(enum bench_sweep_param p)
{
	switch (p) {
	case BENCH_SWEEP_JOB_SIZE:
		return "uniform-job-size";
	case BENCH_SWEEP_CORE_COUNT:
		return "core-count";
	case BENCH_SWEEP_THREADS_PER_CORE:
		return "threads-per-core";
	default:
		return "none";
	}
}

static int sweep_push(struct bench_cfg *cfg, uint64_t v, const char *val)
{
	if (cfg->n_sweep >= BENCH_MAX_SWEEP)
		return bad("sweep", val, "more than 64 values");
	cfg->sweep_values[cfg->n_sweep++] = v;
	return 0;
}

static int parse_sweep(struct bench_cfg *cfg, const char *val)
{
	char buf[1024], *tok[BENCH_MAX_SWEEP + 2], *save = NULL, *t;
	uint32_t n = 0, i;
	uint64_t lo, hi, step, v;
	const char *last;

	if (strlen(val) >= sizeof(buf))
		return bad("sweep", val, "too long");
	strcpy(buf, val);
	for (t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		if (n >= BENCH_MAX_SWEEP + 2)
			return bad("sweep", val, "more than 64 values");
		tok[n++] = t;
	}
	if (n < 3)
		return bad("sweep", val, "expected PARAM,START,END,+STEP|*FACTOR or PARAM,V1,V2,...");
	if (strcmp(tok[0], "uniform-job-size") == 0)
		cfg->sweep = BENCH_SWEEP_JOB_SIZE;
	else if (strcmp(tok[0], "core-count") == 0)
		cfg->sweep = BENCH_SWEEP_CORE_COUNT;
	else if (strcmp(tok[0], "threads-per-core") == 0)
		cfg->sweep = BENCH_SWEEP_THREADS_PER_CORE;
	else {
		fprintf(stderr, "doca_bench: sweeping '%s' is not supported by softdoca's doca_bench "
				"(supported: uniform-job-size, core-count, threads-per-core)\n", tok[0]);
		return -1;
	}
	cfg->n_sweep = 0;
	last = tok[n - 1];
	if (n == 4 && (last[0] == '+' || last[0] == '*')) {
		if (parse_u64(tok[1], &lo) != 0 || parse_u64(tok[2], &hi) != 0 || parse_u64(last + 1, &step) != 0)
			return bad("sweep", val, "START, END and the step must be integers");
		if (lo == 0 || hi < lo)
			return bad("sweep", val, "need 0 < START <= END");
		if ((last[0] == '+' && step == 0) || (last[0] == '*' && step < 2))
			return bad("sweep", val, "the step must be +N (N >= 1) or *N (N >= 2)");
		for (v = lo; v <= hi;) {
			if (sweep_push(cfg, v, val) != 0)
				return -1;
			if (last[0] == '+' ? v > UINT64_MAX - step : v > UINT64_MAX / step)
				break;
			v = last[0] == '+' ? v + step : v * step;
		}
		return 0;
	}
	for (i = 1; i < n; i++) {
		if (parse_u64(tok[i], &v) != 0 || v == 0)
			return bad("sweep", val, "values must be positive integers (or use START,END,+N|*N)");
		if (sweep_push(cfg, v, val) != 0)
			return -1;
	}
	return 0;
}

#define BENCH_STEPS_SUPPORTED "doca_dma, doca_comch::producer, doca_comch::consumer"

static int parse_steps(struct bench_cfg *cfg, const char *val)
{
	char buf[512], *save = NULL, *t;
	int n = 0;

	if (strlen(val) >= sizeof(buf) || *val == '\0')
		return bad("pipeline-steps", val, "empty or too long");
	strcpy(buf, val);
	for (t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		n++;
		if (strcmp(t, "doca_dma") == 0) {
			cfg->step = BENCH_STEP_DMA;
			continue;
		}
		if (strcmp(t, "doca_comch::producer") == 0) {
			cfg->step = BENCH_STEP_COMCH_PRODUCER;
			continue;
		}
		if (strcmp(t, "doca_comch::consumer") == 0) {
			cfg->step = BENCH_STEP_COMCH_CONSUMER;
			continue;
		}
		fprintf(stderr, "doca_bench: pipeline step '%s' is not supported by softdoca's doca_bench "
				"(supported: " BENCH_STEPS_SUPPORTED ")\n", t);
		return -1;
	}
	if (n != 1) {
		fprintf(stderr, "doca_bench: --pipeline-steps '%s': multi-step pipelines are not supported by "
				"softdoca's doca_bench; give exactly one step (" BENCH_STEPS_SUPPORTED ")\n", val);
		return -1;
	}
	return 0;
}

static void defaults(struct bench_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = BENCH_MODE_THROUGHPUT;
	cfg->job_size = BENCH_DEFAULT_JOB_SIZE;
	cfg->job_count = BENCH_DEFAULT_JOB_COUNT;
	cfg->warm_up_jobs = BENCH_DEFAULT_WARM_UP;
	cfg->threads_per_core = 1;
	cfg->cores[0] = 1; /* DOCA's default core mask 0x02 */
	cfg->n_cores = 1;
	cfg->companion_size = BENCH_DEFAULT_COMPANION_SIZE;
}

/* A Comch server name as the connection string gives it: printable, no separators. */
static int check_comch_name(const char *name)
{
	const char *p;

	if (*name == '\0' || strlen(name) > 120) {
		fprintf(stderr, "doca_bench: --companion-connection-string comch=NAME: the name must have 1 to 120 "
				"characters\n");
		return -1;
	}
	for (p = name; *p != '\0'; p++) {
		if (*p <= ' ' || *p > '~' || *p == ',' || *p == '/') {
			fprintf(stderr, "doca_bench: --companion-connection-string comch=%s: the name may not hold "
					"spaces, ',', '/' or control characters\n", name);
			return -1;
		}
	}
	return 0;
}

/*
 * What the Comch steps need and refuse: a companion reached by its Comch
 * server name, one thread (one producer or consumer on one connection), no
 * remote buffers (a Comch message lands in the consumer's own memory), and
 * no output buffer size (the receive buffer is the message's size).
 */
static int check_comch(const struct bench_cfg *cfg)
{
	const char *step = cfg->step == BENCH_STEP_COMCH_PRODUCER ? "doca_comch::producer" : "doca_comch::consumer";
	uint32_t i;

	if (cfg->companion == NULL || strncmp(cfg->companion, "comch=", 6) != 0) {
		fprintf(stderr, "doca_bench: %s needs --companion-connection-string comch=NAME: the companion "
				"(doca_bench --companion --companion-connection-string comch=NAME on the other side) "
				"runs the opposite end\n", step);
		return -1;
	}
	if (check_comch_name(cfg->companion + 6) != 0)
		return -1;
	if (cfg->remote_input || cfg->remote_output) {
		fprintf(stderr, "doca_bench: --use-remote-input-buffers/--use-remote-output-buffers are not supported "
				"with %s: Comch messages are delivered into the consumer's own memory\n", step);
		return -1;
	}
	if (cfg->out_size != 0) {
		fprintf(stderr, "doca_bench: --job-output-buffer-size is not supported with %s: the receive buffers "
				"have the job size\n", step);
		return -1;
	}
	if ((cfg->core_count != 0 ? cfg->core_count : cfg->n_cores) > 1 || cfg->threads_per_core > 1) {
		fprintf(stderr, "doca_bench: %s runs on one thread in softdoca's doca_bench: select one core "
				"(--core-count 1) and --threads-per-core 1\n", step);
		return -1;
	}
	for (i = 0; i < cfg->n_sweep; i++) {
		if ((cfg->sweep == BENCH_SWEEP_CORE_COUNT || cfg->sweep == BENCH_SWEEP_THREADS_PER_CORE) &&
		    cfg->sweep_values[i] > 1) {
			fprintf(stderr, "doca_bench: --sweep %s: %s runs on one thread in softdoca's doca_bench\n",
				bench_sweep_name(cfg->sweep), step);
			return -1;
		}
	}
	return 0;
}

static int check(struct bench_cfg *cfg, bool have_steps, bool cores_given)
{
	uint64_t v;
	uint32_t i;

	if (cfg->companion_role) {
		if (cfg->companion == NULL || (strncmp(cfg->companion, "file=", 5) != 0 &&
					       strncmp(cfg->companion, "comch=", 6) != 0)) {
			fprintf(stderr, "doca_bench: --companion needs --companion-connection-string file=PATH "
					"(doca_dma) or comch=NAME (Comch steps)\n");
			return -1;
		}
		if (strncmp(cfg->companion, "comch=", 6) == 0 && check_comch_name(cfg->companion + 6) != 0)
			return -1;
		return 0;
	}
	if (!have_steps) {
		fprintf(stderr, "doca_bench: --pipeline-steps is required (supported: " BENCH_STEPS_SUPPORTED "); "
				"see --help\n");
		return -1;
	}
	if (cfg->step != BENCH_STEP_DMA) {
		if (check_comch(cfg) != 0)
			return -1;
	} else {
		if ((cfg->remote_input || cfg->remote_output) && cfg->companion == NULL) {
			fprintf(stderr, "doca_bench: --use-remote-input-buffers/--use-remote-output-buffers need "
					"--companion-connection-string file=PATH\n");
			return -1;
		}
		if (cfg->remote_input && cfg->remote_output) {
			fprintf(stderr, "doca_bench: --use-remote-input-buffers and --use-remote-output-buffers "
					"together are not supported: one side of a DMA copy must be local memory\n");
			return -1;
		}
		if (cfg->companion != NULL && !cfg->remote_input && !cfg->remote_output) {
			fprintf(stderr, "doca_bench: --companion-connection-string is only used with "
					"--use-remote-input-buffers or --use-remote-output-buffers\n");
			return -1;
		}
		if (cfg->companion != NULL && strncmp(cfg->companion, "file=", 5) != 0) {
			fprintf(stderr, "doca_bench: --companion-connection-string '%s' is not supported: softdoca's "
					"companion is reached through a descriptor file, give file=PATH\n",
				cfg->companion);
			return -1;
		}
	}
	if (cfg->run_limit_seconds == 0 && cfg->run_limit_jobs == 0 && cfg->run_limit_bytes == 0)
		cfg->run_limit_seconds = BENCH_DEFAULT_SECONDS;
	if (cfg->mode == BENCH_MODE_LATENCY)
		cfg->job_count = 1;
	if (!cores_given && cfg->n_cores == 1) {
		cpu_set_t set;

		/* DOCA defaults to core 1; where the process may not run there, use its first core. */
		if (sched_getaffinity(0, sizeof(set), &set) == 0 && !CPU_ISSET(1, &set)) {
			for (i = 0; i < CPU_SETSIZE; i++)
				if (CPU_ISSET(i, &set))
					break;
			cfg->cores[0] = (int)i;
		}
	}
	if (cfg->core_count > cfg->n_cores) {
		fprintf(stderr, "doca_bench: --core-count %u is more than the %u selected cores\n", cfg->core_count,
			cfg->n_cores);
		return -1;
	}
	for (i = 0; i < cfg->n_sweep; i++) {
		v = cfg->sweep_values[i];
		if (cfg->sweep == BENCH_SWEEP_JOB_SIZE && (v > BENCH_MAX_JOB_SIZE ||
							   (cfg->out_size != 0 && v > cfg->out_size))) {
			fprintf(stderr, "doca_bench: --sweep: uniform-job-size %" PRIu64 " is above %s\n", v,
				cfg->out_size != 0 ? "--job-output-buffer-size" : "1 GiB");
			return -1;
		}
		if (cfg->sweep == BENCH_SWEEP_CORE_COUNT && v > cfg->n_cores) {
			fprintf(stderr, "doca_bench: --sweep: core-count %" PRIu64 " is more than the %u selected "
					"cores\n", v, cfg->n_cores);
			return -1;
		}
		if (cfg->sweep == BENCH_SWEEP_THREADS_PER_CORE && v > BENCH_MAX_THREADS) {
			fprintf(stderr, "doca_bench: --sweep: threads-per-core %" PRIu64 " is too many\n", v);
			return -1;
		}
	}
	if (cfg->out_size != 0 && cfg->out_size < cfg->job_size && cfg->sweep != BENCH_SWEEP_JOB_SIZE) {
		fprintf(stderr, "doca_bench: --job-output-buffer-size %" PRIu64 " is smaller than "
				"--uniform-job-size %" PRIu64 "\n", cfg->out_size, cfg->job_size);
		return -1;
	}
	return 0;
}

int bench_parse(int argc, char **argv, struct bench_cfg *cfg)
{
	bool have_steps = false, cores_given = false;
	uint64_t v;
	int c, idx;

	defaults(cfg);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:", long_opts, &idx)) != -1) {
		/* Only long options have values >= OPT_PIPELINE; idx is valid for them. */
		const char *name = c >= OPT_PIPELINE ? long_opts[idx].name : "device";

		switch (c) {
		case OPT_PIPELINE:
			if (parse_steps(cfg, optarg) != 0)
				return -1;
			have_steps = true;
			break;
		case 'd':
		case OPT_DEVICE:
			if (*optarg == '\0')
				return bad("device", optarg, "empty");
			cfg->device = optarg;
			break;
		case OPT_MODE:
			if (strcmp(optarg, "throughput") == 0)
				cfg->mode = BENCH_MODE_THROUGHPUT;
			else if (strcmp(optarg, "latency") == 0)
				cfg->mode = BENCH_MODE_LATENCY;
			else if (strcmp(optarg, "precision-latency") == 0) {
				fprintf(stderr, "doca_bench: --mode precision-latency is not supported by softdoca's "
						"doca_bench (supported: throughput, latency)\n");
				return -1;
			} else
				return bad(name, optarg, "expected throughput or latency");
			break;
		case OPT_DATA_PROVIDER:
			if (strcmp(optarg, "random-data") != 0) {
				fprintf(stderr, "doca_bench: --data-provider '%s' is not supported by softdoca's "
						"doca_bench (supported: random-data)\n", optarg);
				return -1;
			}
			break;
		case OPT_JOB_SIZE:
			if (opt_u64(name, optarg, 1, BENCH_MAX_JOB_SIZE, &cfg->job_size) != 0)
				return -1;
			break;
		case OPT_OUT_SIZE:
			if (opt_u64(name, optarg, 1, BENCH_MAX_JOB_SIZE, &cfg->out_size) != 0)
				return -1;
			break;
		case OPT_JOB_COUNT:
			if (opt_u64(name, optarg, 1, BENCH_MAX_INFLIGHT, &v) != 0)
				return -1;
			cfg->job_count = (uint32_t)v;
			break;
		case OPT_LIMIT_S: {
			char *end;

			errno = 0;
			cfg->run_limit_seconds = strtod(optarg, &end);
			if (errno != 0 || *end != '\0' || end == optarg || !(cfg->run_limit_seconds > 0) ||
			    cfg->run_limit_seconds > 86400)
				return bad(name, optarg, "seconds, more than 0 and at most 86400");
			break;
		}
		case OPT_LIMIT_JOBS:
			if (opt_u64(name, optarg, 1, UINT64_MAX, &cfg->run_limit_jobs) != 0)
				return -1;
			break;
		case OPT_LIMIT_BYTES:
			if (opt_u64(name, optarg, 1, UINT64_MAX, &cfg->run_limit_bytes) != 0)
				return -1;
			break;
		case OPT_WARM_UP:
			if (opt_u64(name, optarg, 0, UINT64_MAX / 2, &cfg->warm_up_jobs) != 0)
				return -1;
			break;
		case OPT_CORE_MASK:
			if (parse_core_mask(cfg, optarg) != 0)
				return -1;
			cores_given = true;
			break;
		case OPT_CORE_LIST:
			if (parse_core_list(cfg, optarg) != 0)
				return -1;
			cores_given = true;
			break;
		case OPT_CORE_COUNT:
			if (opt_u64(name, optarg, 1, BENCH_MAX_CORES, &v) != 0)
				return -1;
			cfg->core_count = (uint32_t)v;
			break;
		case OPT_TPC:
			if (opt_u64(name, optarg, 1, BENCH_MAX_THREADS, &v) != 0)
				return -1;
			cfg->threads_per_core = (uint32_t)v;
			break;
		case OPT_CSV:
			if (*optarg == '\0')
				return bad(name, optarg, "empty file name");
			cfg->csv_file = optarg;
			break;
		case OPT_CSV_APPEND:
			cfg->csv_append = true;
			break;
		case OPT_SWEEP:
			if (parse_sweep(cfg, optarg) != 0)
				return -1;
			break;
		case OPT_REMOTE_IN:
			cfg->remote_input = true;
			break;
		case OPT_REMOTE_OUT:
			cfg->remote_output = true;
			break;
		case OPT_COMPANION_STR:
			cfg->companion = optarg;
			break;
		case OPT_COMPANION_ROLE:
			cfg->companion_role = true;
			break;
		case OPT_COMPANION_SIZE:
			if (opt_u64(name, optarg, 4096, 1ull << 34, &cfg->companion_size) != 0)
				return -1;
			break;
		case OPT_HELP:
			usage(stdout);
			return 1;
		case OPT_VERSION:
			printf("doca_bench %s (softdoca %s)\n", DOCA_VERSION_STRING, SOFTDOCA_VERSION);
			return 1;
		case OPT_UNSUPPORTED:
			fprintf(stderr, "doca_bench: option --%s is not supported by softdoca's doca_bench\n", name);
			return -1;
		case ':':
			fprintf(stderr, "doca_bench: option %s needs a value\n", argv[optind - 1]);
			return -1;
		default:
			fprintf(stderr, "doca_bench: unknown option '%s' (see --help)\n", argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "doca_bench: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return check(cfg, have_steps, cores_given);
}
