/*
 * doca_bench_dma.c - the doca_dma step: memcpy tasks through the public API.
 *
 * Each thread builds its own progress engine, DMA context, buffer inventory,
 * memory and job_count tasks (one source/destination pair each), pinned to
 * its core. Completion callbacks resubmit their task while the run limit
 * allows, so job_count jobs stay in flight per thread.
 *
 * Measurement: the warm-up jobs run and drain first; then all threads meet
 * at a barrier and the measured phase starts. Its duration is from the
 * earliest thread's first measured submit to the latest thread's last
 * completion, from CLOCK_MONOTONIC. A measured task's latency is its
 * submit-to-completion-callback time. In throughput mode one task in
 * BENCH_TIME_EVERY is timed, and the clock is read for the run limit at
 * that pace too: two clock reads per task cost more than a small copy does
 * (64 B tasks ran at a third of their rate timed one by one), and the
 * figure is the library's, not the clock's. Latency mode times every task.
 * A thread keeps up to BENCH_LAT_CAP samples, halving them (every other one)
 * and doubling its sampling stride when full, so long runs keep a uniform
 * sample of the whole run.
 *
 * With local buffers the copies are checked (every destination equals its
 * source) after the run: a benchmark of a wrong copy is not a result.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
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

#include "doca_bench.h"

#define MAX_TOTAL_MEMORY (4ull << 30)

enum phase { PHASE_SETUP, PHASE_WARM, PHASE_MEASURE };

struct shared {
	const struct bench_cfg *cfg;
	struct doca_dev *dev;
	const struct bench_remote *remote;
	uint64_t job_size, out_size;
	uint64_t job_limit; /* measured jobs, all threads; UINT64_MAX = none */
	atomic_uint_fast64_t issued;
	atomic_bool stop;
	uint64_t deadline_ns; /* set by the main thread between barriers 2 and 3 */
	pthread_barrier_t barrier;
	pthread_mutex_t lock;
	pthread_cond_t gate_cv; /* threads wait here until all were created */
	bool gate_open;
	uint64_t start_ns; /* earliest measured submit */
	uint64_t end_ns;   /* latest measured completion */
};

struct worker;

struct job {
	struct worker *w;
	struct doca_dma_task_memcpy *task;
	struct doca_buf *src, *dst;
	uint64_t submit_ns;
	bool timed; /* its latency is measured */
};

struct worker {
	struct shared *sh;
	uint32_t id;
	int core;
	pthread_t thread;
	/* DOCA objects */
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_buf_inventory *inv;
	struct doca_mmap *msrc, *mdst;
	uint8_t *src, *dst; /* local memory (NULL where remote) */
	struct job *jobs;
	uint32_t n_jobs;
	/* run state */
	enum phase phase;
	uint64_t warm_target, warm_submitted;
	uint32_t outstanding;
	uint32_t time_every; /* 1 (latency mode) or BENCH_TIME_EVERY */
	uint64_t submitted, completed, failed;
	doca_error_t first_error;
	uint64_t first_ns, last_ns;
	struct bench_lat_samples lat;
	char err[256];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* now: 0 when the clock was not read for this call (the deadline is then
 * checked at the next call that read it). */
static bool may_submit(struct worker *w, uint64_t now)
{
	struct shared *sh = w->sh;

	if (atomic_load_explicit(&sh->stop, memory_order_relaxed))
		return false;
	if (sh->deadline_ns != 0 && now != 0 && now >= sh->deadline_ns) {
		atomic_store(&sh->stop, true);
		return false;
	}
	if (sh->job_limit != UINT64_MAX && atomic_fetch_add(&sh->issued, 1) >= sh->job_limit) {
		atomic_store(&sh->stop, true);
		return false;
	}
	return true;
}

static void submit(struct job *j)
{
	struct worker *w = j->w;
	doca_error_t err;

	(void)doca_buf_reset_data_len(j->dst);
	j->timed = w->phase == PHASE_MEASURE && w->submitted % w->time_every == 0;
	if (j->timed)
		j->submit_ns = now_ns();
	err = doca_task_submit(doca_dma_task_memcpy_as_task(j->task));
	if (err != DOCA_SUCCESS) {
		w->failed++;
		if (w->first_error == DOCA_SUCCESS)
			w->first_error = err;
		atomic_store(&w->sh->stop, true);
		return;
	}
	w->outstanding++;
	if (w->phase == PHASE_MEASURE) {
		if (w->submitted++ == 0)
			w->first_ns = j->submit_ns; /* the first is always timed */
	} else {
		w->warm_submitted++;
	}
}

static void next(struct job *j, uint64_t now)
{
	struct worker *w = j->w;

	if (w->phase == PHASE_WARM) {
		if (w->warm_submitted < w->warm_target && !atomic_load(&w->sh->stop))
			submit(j);
	} else if (may_submit(w, now)) {
		submit(j);
	}
}

static void ok_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	struct job *j = tud.ptr;
	struct worker *w = j->w;
	uint64_t now = 0;

	(void)task;
	(void)cud;
	w->outstanding--;
	if (w->phase == PHASE_MEASURE) {
		w->completed++;
		/* The clock for the timed ones, for the run limit now and then,
		 * and for the last completion (nothing left in flight). */
		if (j->timed || w->completed % w->time_every == 0 || w->outstanding == 0) {
			now = now_ns();
			w->last_ns = now;
		}
		if (j->timed)
			bench_lat_record(&w->lat, now - j->submit_ns);
	}
	next(j, now);
}

static void err_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	struct job *j = tud.ptr;
	struct worker *w = j->w;

	(void)cud;
	w->outstanding--;
	w->failed++;
	if (w->first_error == DOCA_SUCCESS)
		w->first_error = doca_task_get_status(doca_dma_task_memcpy_as_task(task));
	atomic_store(&w->sh->stop, true);
}

static bool dma_capable(struct doca_devinfo *di)
{
	return doca_dma_cap_task_memcpy_is_supported(di) == DOCA_SUCCESS;
}

int bench_open_dev(const char *pci, struct doca_dev **dev)
{
	return bench_open_capable_dev(pci, dma_capable, "doca_dma memcpy tasks", dev);
}

#define W_CHECK(call, what)                                                                          \
	do {                                                                                         \
		doca_error_t e_ = (call);                                                            \
		if (e_ != DOCA_SUCCESS) {                                                            \
			snprintf(w->err, sizeof(w->err), "%s: %s", what, doca_error_get_descr(e_)); \
			return -1;                                                                   \
		}                                                                                    \
	} while (0)

static int local_mmap(struct worker *w, uint8_t **mem, size_t len, struct doca_mmap **m)
{
	if (posix_memalign((void **)mem, 4096, len) != 0) {
		*mem = NULL;
		snprintf(w->err, sizeof(w->err), "out of memory (%zu bytes)", len);
		return -1;
	}
	W_CHECK(doca_mmap_create(m), "doca_mmap_create");
	W_CHECK(doca_mmap_set_memrange(*m, *mem, len), "doca_mmap_set_memrange");
	W_CHECK(doca_mmap_set_permissions(*m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE), "doca_mmap_set_permissions");
	W_CHECK(doca_mmap_add_dev(*m, w->sh->dev), "doca_mmap_add_dev");
	W_CHECK(doca_mmap_start(*m), "doca_mmap_start");
	return 0;
}

static void fill_random(uint8_t *p, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (uint8_t)x;
	}
}

static int worker_setup(struct worker *w)
{
	struct shared *sh = w->sh;
	const struct bench_remote *rm = sh->remote;
	uint64_t js = sh->job_size, os = sh->out_size, n = w->n_jobs, max_tasks;
	uint8_t *rsrc = NULL, *rdst = NULL;
	union doca_data ctx_ud = {0};
	uint32_t i;

	W_CHECK(doca_pe_create(&w->pe), "doca_pe_create");
	W_CHECK(doca_dma_create(sh->dev, &w->dma), "doca_dma_create");
	W_CHECK(doca_dma_cap_get_max_num_tasks(w->dma, &i), "doca_dma_cap_get_max_num_tasks");
	max_tasks = i;
	if (n > max_tasks) {
		snprintf(w->err, sizeof(w->err), "--data-provider-job-count %" PRIu64 " is above the device's %"
			 PRIu64 " tasks per context", n, max_tasks);
		return -1;
	}
	W_CHECK(doca_dma_task_memcpy_set_conf(w->dma, ok_cb, err_cb, (uint32_t)n), "doca_dma_task_memcpy_set_conf");
	W_CHECK(doca_ctx_set_user_data(doca_dma_as_ctx(w->dma), ctx_ud), "doca_ctx_set_user_data");
	W_CHECK(doca_pe_connect_ctx(w->pe, doca_dma_as_ctx(w->dma)), "doca_pe_connect_ctx");
	W_CHECK(doca_ctx_start(doca_dma_as_ctx(w->dma)), "doca_ctx_start");
	W_CHECK(doca_buf_inventory_create(2 * n, &w->inv), "doca_buf_inventory_create");
	W_CHECK(doca_buf_inventory_start(w->inv), "doca_buf_inventory_start");

	if (rm != NULL) {
		/* This thread's slice of the companion's memory: [inputs][outputs]. */
		uint64_t per = (sh->cfg->remote_input ? n * js : 0) + (sh->cfg->remote_output ? n * os : 0);
		uint8_t *base = rm->addr + (uint64_t)w->id * per;

		if (sh->cfg->remote_input) {
			rsrc = base;
			base += n * js;
		}
		if (sh->cfg->remote_output)
			rdst = base;
	}
	if (rsrc == NULL) {
		if (local_mmap(w, &w->src, n * js, &w->msrc) != 0)
			return -1;
		fill_random(w->src, n * js, w->id + 1);
	}
	if (rdst == NULL) {
		if (local_mmap(w, &w->dst, n * os, &w->mdst) != 0)
			return -1;
		memset(w->dst, 0, n * os); /* fault the pages in before timing */
	}
	w->jobs = calloc(n, sizeof(*w->jobs));
	if (w->jobs == NULL) {
		snprintf(w->err, sizeof(w->err), "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct job *j = &w->jobs[i];
		union doca_data tud = {.ptr = j};

		j->w = w;
		if (rsrc != NULL)
			W_CHECK(doca_buf_inventory_buf_get_by_data(w->inv, rm->mmap, rsrc + i * js, js, &j->src),
				"doca_buf_inventory_buf_get_by_data (remote input)");
		else
			W_CHECK(doca_buf_inventory_buf_get_by_data(w->inv, w->msrc, w->src + i * js, js, &j->src),
				"doca_buf_inventory_buf_get_by_data");
		if (rdst != NULL)
			W_CHECK(doca_buf_inventory_buf_get_by_addr(w->inv, rm->mmap, rdst + i * os, os, &j->dst),
				"doca_buf_inventory_buf_get_by_addr (remote output)");
		else
			W_CHECK(doca_buf_inventory_buf_get_by_addr(w->inv, w->mdst, w->dst + i * os, os, &j->dst),
				"doca_buf_inventory_buf_get_by_addr");
		W_CHECK(doca_dma_task_memcpy_alloc_init(w->dma, j->src, j->dst, tud, &j->task),
			"doca_dma_task_memcpy_alloc_init");
	}
	bench_lat_reset(&w->lat);
	w->lat.v = malloc(BENCH_LAT_CAP * sizeof(*w->lat.v));
	if (w->lat.v == NULL) {
		snprintf(w->err, sizeof(w->err), "out of memory");
		return -1;
	}
	return 0;
}

static void worker_teardown(struct worker *w)
{
	uint32_t i;

	if (w->jobs != NULL) {
		for (i = 0; i < w->n_jobs; i++) {
			if (w->jobs[i].task != NULL)
				doca_task_free(doca_dma_task_memcpy_as_task(w->jobs[i].task));
			if (w->jobs[i].src != NULL)
				doca_buf_dec_refcount(w->jobs[i].src, NULL);
			if (w->jobs[i].dst != NULL)
				doca_buf_dec_refcount(w->jobs[i].dst, NULL);
		}
		free(w->jobs);
		w->jobs = NULL;
	}
	if (w->dma != NULL) {
		enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;
		struct doca_ctx *ctx = doca_dma_as_ctx(w->dma);

		(void)doca_ctx_get_state(ctx, &st);
		if (st != DOCA_CTX_STATE_IDLE && doca_ctx_stop(ctx) != DOCA_ERROR_BAD_STATE) {
			uint64_t give_up = now_ns() + 10ull * 1000000000ull;

			while (doca_ctx_get_state(ctx, &st) == DOCA_SUCCESS && st != DOCA_CTX_STATE_IDLE &&
			       now_ns() < give_up)
				(void)doca_pe_progress(w->pe);
		}
		(void)doca_dma_destroy(w->dma);
	}
	if (w->pe != NULL)
		(void)doca_pe_destroy(w->pe);
	if (w->inv != NULL) {
		(void)doca_buf_inventory_stop(w->inv);
		(void)doca_buf_inventory_destroy(w->inv);
	}
	if (w->msrc != NULL)
		(void)doca_mmap_destroy(w->msrc);
	if (w->mdst != NULL)
		(void)doca_mmap_destroy(w->mdst);
	free(w->src);
	free(w->dst);
}

static void drain(struct worker *w)
{
	while (w->outstanding > 0) {
		if (doca_pe_progress(w->pe) == 0 && w->sh->deadline_ns != 0 && now_ns() >= w->sh->deadline_ns)
			atomic_store(&w->sh->stop, true);
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	uint32_t i;
	int ok;

	pthread_mutex_lock(&sh->lock);
	while (!sh->gate_open)
		pthread_cond_wait(&sh->gate_cv, &sh->lock);
	pthread_mutex_unlock(&sh->lock);
	if (atomic_load(&sh->stop))
		return NULL; /* not every thread could be created */
	ok = worker_setup(w) == 0;
	if (!ok)
		atomic_store(&sh->stop, true);
	pthread_barrier_wait(&sh->barrier); /* 1: everyone built */
	if (atomic_load(&sh->stop))
		return NULL;

	w->phase = PHASE_WARM;
	w->warm_target = sh->cfg->warm_up_jobs;
	for (i = 0; i < w->n_jobs && w->warm_submitted < w->warm_target; i++)
		submit(&w->jobs[i]);
	drain(w);
	w->phase = PHASE_MEASURE;
	pthread_barrier_wait(&sh->barrier); /* 2: warm-up done everywhere; main sets the deadline */
	pthread_barrier_wait(&sh->barrier); /* 3: go */
	for (i = 0; i < w->n_jobs; i++) {
		if (!may_submit(w, now_ns()))
			break;
		submit(&w->jobs[i]);
	}
	drain(w);
	if (w->completed > 0) {
		pthread_mutex_lock(&sh->lock);
		if (sh->start_ns == 0 || w->first_ns < sh->start_ns)
			sh->start_ns = w->first_ns;
		if (w->last_ns > sh->end_ns)
			sh->end_ns = w->last_ns;
		pthread_mutex_unlock(&sh->lock);
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void bench_latency_compute(uint64_t *s, uint64_t n, struct bench_latency *lat)
{
	uint64_t i;
	double sum = 0;

	memset(lat, 0, sizeof(*lat));
	lat->samples = n;
	if (n == 0)
		return;
	qsort(s, n, sizeof(*s), cmp_u64);
	for (i = 0; i < n; i++)
		sum += (double)s[i];
	lat->min = s[0];
	lat->max = s[n - 1];
	lat->median = s[(n - 1) / 2];
	lat->p99 = s[(n * 99 - 1) / 100 < n ? (n * 99 - 1) / 100 : n - 1];
	lat->p999 = s[(n * 999 - 1) / 1000 < n ? (n * 999 - 1) / 1000 : n - 1];
	lat->mean = sum / (double)n;
}

void bench_lat_reset(struct bench_lat_samples *s)
{
	s->n = s->seen = 0;
	s->stride = 1;
}

void bench_lat_record(struct bench_lat_samples *s, uint64_t v)
{
	uint64_t i;

	if (s->seen++ % s->stride != 0)
		return;
	if (s->n == BENCH_LAT_CAP) {
		for (i = 0; i < BENCH_LAT_CAP / 2; i++)
			s->v[i] = s->v[2 * i];
		s->n = BENCH_LAT_CAP / 2;
		s->stride *= 2;
	}
	s->v[s->n++] = v;
}

uint32_t bench_thread_count(const struct bench_cfg *cfg)
{
	uint32_t cores = cfg->core_count != 0 ? cfg->core_count : cfg->n_cores;

	return cores * cfg->threads_per_core;
}

/* Every core must be one this process may run on: say which one is not. */
static int check_cores(const struct bench_cfg *cfg, uint32_t cores)
{
	cpu_set_t set;
	uint32_t i;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	for (i = 0; i < cores; i++) {
		if (!CPU_ISSET(cfg->cores[i], &set)) {
			fprintf(stderr, "doca_bench: core %d is not available to this process (allowed: see "
					"taskset -p %d)\n", cfg->cores[i], (int)getpid());
			return -1;
		}
	}
	return 0;
}

static int verify_local(const struct worker *w, uint64_t js)
{
	uint32_t i;

	if (w->src == NULL || w->dst == NULL || w->completed + w->warm_submitted == 0)
		return 0;
	for (i = 0; i < w->n_jobs; i++) {
		/* only jobs that ran at least once */
		if ((uint64_t)i >= w->submitted + w->warm_submitted)
			break;
		if (memcmp(w->src + i * js, w->dst + i * w->sh->out_size, js) != 0)
			return -1;
	}
	return 0;
}

int bench_run_dma(const struct bench_cfg *cfg, struct doca_dev *dev, const struct bench_remote *remote,
		  struct bench_result *res)
{
	struct shared sh;
	struct worker *ws;
	uint32_t nthreads = bench_thread_count(cfg), cores = cfg->core_count ? cfg->core_count : cfg->n_cores;
	uint64_t max_buf = 0, per_thread, total = 0, nlat = 0, *all;
	uint32_t i, started = 0;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	memset(&sh, 0, sizeof(sh));
	sh.cfg = cfg;
	sh.dev = dev;
	sh.remote = remote;
	sh.job_size = cfg->job_size;
	sh.out_size = cfg->out_size ? cfg->out_size : cfg->job_size;
	if (sh.out_size < sh.job_size) {
		fprintf(stderr, "doca_bench: --job-output-buffer-size %" PRIu64 " is smaller than the job size %" PRIu64
				"\n", sh.out_size, sh.job_size);
		return -1;
	}
	if (doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(dev), &max_buf) == DOCA_SUCCESS &&
	    (sh.job_size > max_buf || sh.out_size > max_buf)) {
		fprintf(stderr, "doca_bench: job size %" PRIu64 " is above the device's DMA maximum of %" PRIu64
				" bytes\n", sh.out_size, max_buf);
		return -1;
	}
	if (nthreads == 0 || nthreads > BENCH_MAX_THREADS) {
		fprintf(stderr, "doca_bench: %u threads (cores x threads per core): at most %u\n", nthreads,
			BENCH_MAX_THREADS);
		return -1;
	}
	per_thread = (uint64_t)cfg->job_count * (sh.job_size + sh.out_size);
	if (per_thread * nthreads > MAX_TOTAL_MEMORY) {
		fprintf(stderr, "doca_bench: the run needs %" PRIu64 " MiB of buffers (threads x "
				"--data-provider-job-count x job sizes), more than the %llu MiB allowed; lower "
				"--data-provider-job-count\n", (per_thread * nthreads) >> 20, MAX_TOTAL_MEMORY >> 20);
		return -1;
	}
	if (remote != NULL) {
		uint64_t need = (uint64_t)nthreads * cfg->job_count *
				((cfg->remote_input ? sh.job_size : 0) + (cfg->remote_output ? sh.out_size : 0));

		if (need > remote->len) {
			fprintf(stderr, "doca_bench: the remote buffers need %" PRIu64 " bytes but the companion "
					"exported %zu; raise its --companion-memory-size or lower "
					"--data-provider-job-count\n", need, remote->len);
			return -1;
		}
	}
	sh.job_limit = UINT64_MAX;
	if (cfg->run_limit_jobs != 0)
		sh.job_limit = cfg->run_limit_jobs;
	if (cfg->run_limit_bytes != 0) {
		uint64_t j = (cfg->run_limit_bytes + sh.job_size - 1) / sh.job_size;

		if (j < sh.job_limit)
			sh.job_limit = j;
	}
	atomic_init(&sh.issued, 0);
	atomic_init(&sh.stop, false);
	pthread_mutex_init(&sh.lock, NULL);
	pthread_cond_init(&sh.gate_cv, NULL);
	if (check_cores(cfg, cores) != 0)
		return -1;
	ws = calloc(nthreads, sizeof(*ws));
	if (ws == NULL) {
		fprintf(stderr, "doca_bench: out of memory\n");
		return -1;
	}
	for (i = 0; i < nthreads; i++) {
		pthread_attr_t attr;
		cpu_set_t set;
		int e;

		ws[i].sh = &sh;
		ws[i].id = i;
		ws[i].core = cfg->cores[(i / cfg->threads_per_core) % cores];
		ws[i].n_jobs = cfg->job_count;
		ws[i].time_every = bench_time_every(cfg);
		CPU_ZERO(&set);
		CPU_SET(ws[i].core, &set);
		pthread_attr_init(&attr);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		e = pthread_create(&ws[i].thread, &attr, worker_main, &ws[i]);
		pthread_attr_destroy(&attr);
		if (e != 0) {
			fprintf(stderr, "doca_bench: cannot start a thread on core %d: %s\n", ws[i].core,
				e == EINVAL ? "the core does not exist or is not allowed for this process" :
					      strerror(e));
			rc = -1;
			break;
		}
		started++;
	}
	if (rc != 0)
		atomic_store(&sh.stop, true);
	else
		pthread_barrier_init(&sh.barrier, NULL, nthreads + 1);
	pthread_mutex_lock(&sh.lock);
	sh.gate_open = true;
	pthread_cond_broadcast(&sh.gate_cv);
	pthread_mutex_unlock(&sh.lock);
	if (rc == 0) {
		pthread_barrier_wait(&sh.barrier); /* 1 */
		if (!atomic_load(&sh.stop)) {
			pthread_barrier_wait(&sh.barrier); /* 2 */
			if (cfg->run_limit_seconds > 0)
				sh.deadline_ns = now_ns() + (uint64_t)(cfg->run_limit_seconds * 1e9);
			pthread_barrier_wait(&sh.barrier); /* 3 */
		}
	}
	for (i = 0; i < started; i++)
		pthread_join(ws[i].thread, NULL);

	for (i = 0; i < started; i++) {
		struct worker *w = &ws[i];

		if (w->err[0] != '\0' && rc == 0) {
			fprintf(stderr, "doca_bench: thread %u (core %d): %s\n", i, w->core, w->err);
			rc = -1;
		}
		if (w->failed != 0 && rc == 0) {
			fprintf(stderr, "doca_bench: thread %u (core %d): %" PRIu64 " doca_dma jobs failed: %s\n", i,
				w->core, w->failed, doca_error_get_descr(w->first_error));
			rc = -1;
		}
		if (rc == 0 && verify_local(w, sh.job_size) != 0) {
			fprintf(stderr, "doca_bench: thread %u: a destination buffer does not match its source\n", i);
			rc = -1;
		}
		res->enqueued += w->submitted;
		res->dequeued += w->completed;
		nlat += w->lat.n;
	}
	res->threads = nthreads;
	res->duration_ns = sh.end_ns > sh.start_ns ? sh.end_ns - sh.start_ns : 0;
	res->bytes_in = res->dequeued * sh.job_size;
	res->bytes_out = res->dequeued * sh.job_size;
	all = malloc((nlat ? nlat : 1) * sizeof(*all));
	if (all != NULL) {
		for (i = 0; i < started; i++) {
			memcpy(all + total, ws[i].lat.v, ws[i].lat.n * sizeof(*all));
			total += ws[i].lat.n;
		}
		bench_latency_compute(all, total, &res->lat);
		free(all);
	}
	for (i = 0; i < started; i++) {
		worker_teardown(&ws[i]);
		free(ws[i].lat.v);
	}
	free(ws);
	if (started == nthreads)
		pthread_barrier_destroy(&sh.barrier);
	pthread_cond_destroy(&sh.gate_cv);
	pthread_mutex_destroy(&sh.lock);
	if (rc == 0 && res->dequeued == 0) {
		fprintf(stderr, "doca_bench: no job completed in the measured phase\n");
		rc = -1;
	}
	return rc;
}
