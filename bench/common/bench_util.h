/*
 * bench_util.h - what every benchmark program of bench/ shares: repetitions
 * and their median and spread, CPU cost, one row format on stdout, CSV
 * rows, and the busy-loop competitors of the oversubscribed runs.
 *
 * A row is one (benchmark, size): the median over its repetitions of the
 * operations per second, the GB/s that makes at that size, the spread
 * (max - min) / median of the repetitions, the CPU cost (CPU seconds per GB
 * moved and per million operations, each the median over the repetitions),
 * and optionally a ratio to another row of the same run (the median of the
 * per-repetition ratios, with their own spread). CPU time is getrusage()
 * user + sys of this process around the measured loop, so it includes the
 * threads a library runs in-process (softdoca's engine thread, DPDK's
 * skeleton worker); a benchmark whose work also runs in another process adds
 * that process's time (bu_proc_cpu).
 *
 * The CSV (--csv FILE, appended; bench/run.sh writes the header BU_CSV_HEADER)
 * has one line per repetition and one per median of every row.
 *
 * Header-only (static functions): each program includes it once.
 */
#ifndef BENCH_UTIL_H_
#define BENCH_UTIL_H_

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BU_MAX_REPS 100
#define BU_CSV_HEADER "bench,size,rep,ops_per_s,gb_per_s,cpu_s_per_gb,cpu_s_per_mop,ratio,ratio_to,spread,load"

static FILE *bu_csv;

static inline double bu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds (user + sys) this process used so far, all its threads. */
static inline double bu_cpu(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec * 1e-6;
}

/* CPU seconds of another process (a child; also readable as a zombie before
 * it is reaped), from /proc/PID/stat, in clock ticks; -1 if unreadable. */
static inline double bu_proc_cpu(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The command name may hold spaces: fields count from after its ')'. */
	p = strrchr(buf, ')');
	if (p == NULL || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* The repetitions of one (benchmark, size). */
struct bu_series {
	uint32_t n;
	double ops[BU_MAX_REPS]; /* operations per second */
	double cpu_gb[BU_MAX_REPS];
	double cpu_mop[BU_MAX_REPS];
	double ratio[BU_MAX_REPS]; /* to the paired row, same repetition; 0 if none */
};

/* Record one repetition: ops operations of size bytes in secs, costing cpu CPU seconds. */
static inline void bu_add(struct bu_series *s, double ops, double secs, double cpu, size_t size)
{
	double bytes = ops * (double)size;

	if (s->n >= BU_MAX_REPS)
		return;
	s->ops[s->n] = secs > 0 ? ops / secs : 0;
	s->cpu_gb[s->n] = bytes > 0 ? cpu / (bytes / 1e9) : 0;
	s->cpu_mop[s->n] = ops > 0 ? cpu / (ops / 1e6) : 0;
	s->ratio[s->n] = 0;
	s->n++;
}

static inline int bu_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static inline double bu_median(const double *v, uint32_t n)
{
	double t[BU_MAX_REPS];

	if (n == 0)
		return 0;
	memcpy(t, v, n * sizeof(*t));
	qsort(t, n, sizeof(*t), bu_cmp);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static inline double bu_spread(const double *v, uint32_t n)
{
	double lo = v[0], hi = v[0], m = bu_median(v, n);

	for (uint32_t i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	return m > 0 ? (hi - lo) / m : 0;
}

/* Pair s with base, repetition by repetition (same run, alternating). */
static inline void bu_pair(struct bu_series *s, const struct bu_series *base)
{
	for (uint32_t i = 0; i < s->n && i < base->n; i++)
		s->ratio[i] = base->ops[i] > 0 ? s->ops[i] / base->ops[i] : 0;
}

static inline const char *bu_size_str(size_t size, char *buf, size_t n)
{
	if (size >= (1u << 20) && size % (1u << 20) == 0)
		snprintf(buf, n, "%zu MiB", size >> 20);
	else if (size >= 1024 && size % 1024 == 0)
		snprintf(buf, n, "%zu KiB", size >> 10);
	else
		snprintf(buf, n, "%zu B", size);
	return buf;
}

static inline void bu_header(void)
{
	printf("%-22s %8s %5s %12s %9s %6s %9s %9s %8s %6s %s\n", "bench", "size", "depth", "ops/s", "GB/s",
	       "spread", "cpu-s/GB", "cpu-s/Mop", "ratio", "rspread", "vs");
}

/* Print the row of s (median over its repetitions) and write its CSV lines.
 * ratio_to: name of the row the ratios are to, NULL if none. load: busy-loop
 * processes per core competing (0: none). */
static inline void bu_row(const char *bench, size_t size, uint32_t depth, const struct bu_series *s,
			  const char *ratio_to, int load)
{
	double ops = bu_median(s->ops, s->n), gb = ops * (double)size / 1e9;
	double cgb = bu_median(s->cpu_gb, s->n), cm = bu_median(s->cpu_mop, s->n);
	double sp = bu_spread(s->ops, s->n), r = 0, rsp = 0;
	char sz[32];

	if (s->n == 0)
		return;
	if (ratio_to != NULL) {
		r = bu_median(s->ratio, s->n);
		rsp = bu_spread(s->ratio, s->n);
	}
	printf("%-22s %8s %5u %12.0f %9.3f %6.3f %9.3f %9.3f ", bench, bu_size_str(size, sz, sizeof(sz)), depth, ops,
	       gb, sp, cgb, cm);
	if (ratio_to != NULL)
		printf("%8.3f %6.3f %s\n", r, rsp, ratio_to);
	else
		printf("%8s %6s\n", "-", "-");
	fflush(stdout);
	if (bu_csv == NULL)
		return;
	for (uint32_t i = 0; i < s->n; i++)
		fprintf(bu_csv, "%s,%zu,%u,%.1f,%.4f,%.5f,%.5f,%.4f,%s,,%d\n", bench, size, i + 1, s->ops[i],
			s->ops[i] * (double)size / 1e9, s->cpu_gb[i], s->cpu_mop[i], ratio_to ? s->ratio[i] : 0,
			ratio_to ? ratio_to : "", load);
	fprintf(bu_csv, "%s,%zu,median,%.1f,%.4f,%.5f,%.5f,%.4f,%s,%.4f,%d\n", bench, size, ops, gb, cgb, cm, r,
		ratio_to ? ratio_to : "", sp, load);
	fflush(bu_csv);
}

/* The per-repetition ratios of s, on one line (the oversubscribed runs). */
static inline void bu_ratios_line(const char *what, const struct bu_series *s)
{
	printf("  %s per repetition:", what);
	for (uint32_t i = 0; i < s->n; i++)
		printf(" %.3f", s->ratio[i]);
	printf("\n");
	fflush(stdout);
}

/*
 * --peer-wrap CMD: the benchmark's peer runs as `sh -c SCRIPT sh PEER ARGS...`
 * with SCRIPT = exec CMD "$@": the shell splits CMD's words (e.g. "ip netns
 * exec B"), the peer's own arguments pass through "$@" untouched. False for
 * an empty CMD or one that does not fit.
 */
#define BU_WRAP_SCRIPT_MAX 2048

static inline bool bu_wrap_script(const char *cmd, char script[BU_WRAP_SCRIPT_MAX])
{
	int n;

	if (cmd == NULL || cmd[0] == '\0')
		return false;
	n = snprintf(script, BU_WRAP_SCRIPT_MAX, "exec %s \"$@\"", cmd);
	return n > 0 && n < BU_WRAP_SCRIPT_MAX;
}

static inline bool bu_csv_open(const char *path)
{
	bu_csv = fopen(path, "a");
	if (bu_csv == NULL) {
		perror(path);
		return false;
	}
	return true;
}

/* ---- busy-loop competitors ------------------------------------------------
 * per_core processes per online CPU, each a plain busy loop. They are forked
 * at start (before any library thread exists), stopped, and let run
 * (SIGCONT) only around the measurements under load; they die with this
 * process (PR_SET_PDEATHSIG) even if it is killed. */

#define BU_MAX_LOAD 256

static pid_t bu_load_pid[BU_MAX_LOAD];
static int bu_load_n;

static inline int bu_load_start(int per_core)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int want = per_core * (int)(ncpu > 0 ? ncpu : 1);

	if (want > BU_MAX_LOAD)
		want = BU_MAX_LOAD;
	for (bu_load_n = 0; bu_load_n < want; bu_load_n++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return -1;
		}
		if (pid == 0) {
			volatile unsigned long spin = 0;

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() == 1)
				_exit(0);
			for (;;)
				spin++;
		}
		kill(pid, SIGSTOP);
		bu_load_pid[bu_load_n] = pid;
	}
	return bu_load_n;
}

static inline void bu_load_signal(int sig)
{
	for (int i = 0; i < bu_load_n; i++)
		kill(bu_load_pid[i], sig);
}

static inline void bu_load_on(void)
{
	bu_load_signal(SIGCONT);
	usleep(20000); /* let them reach the CPUs */
}

static inline void bu_load_off(void)
{
	bu_load_signal(SIGSTOP);
}

static inline void bu_load_stop(void)
{
	bu_load_signal(SIGKILL);
	for (int i = 0; i < bu_load_n; i++)
		waitpid(bu_load_pid[i], NULL, 0);
	bu_load_n = 0;
}

#endif /* BENCH_UTIL_H_ */
