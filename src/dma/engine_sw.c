/*
 * engine_sw.c - the software DMA engine.
 *
 * Design (why it looks like this):
 *  - Submission only links the task on a pending FIFO (no copy, no lock):
 *    doca_task_submit stays a few nanoseconds and the copy is asynchronous to
 *    the submitter, as on the card.
 *  - The next progress of the PE checks each pending task against its
 *    mmaps, then copies the ones below SD_DMA_INLINE_MAX right there: for
 *    small copies a thread hand-off costs more than the copy, batching all
 *    pending tasks in one progress call is what reaches millions of tasks per
 *    second, and up to a few MiB a copy in the caller's thread runs at memcpy
 *    speed while the hand-off measurably does not (cross-core wake-ups on a
 *    busy machine). One progress call takes at most SD_DMA_POLL_MAX_TASKS
 *    tasks and copies at most SD_DMA_POLL_BUDGET bytes inline (at least one
 *    task), which bounds how long it blocks and leaves the rest executing
 *    later, as a device would: a stop in the middle flushes them.
 *  - A program that sleeps on the PE's notification handle instead of
 *    polling is woken as soon as tasks are submitted (the core kicks an
 *    armed PE on submit, and has_work below tells a re-arm that pending
 *    tasks remain), so its next progress executes and completes them.
 *  - A task whose execution fails (bad buffer, permission, remote access)
 *    completes with sd_task_fail: after its error callback the context moves
 *    to STOPPING and the tasks behind it are flushed, as DOCA DMA does. The
 *    poll stops executing at the first failure.
 *  - Large copies go to one engine thread through a lock-free single-producer
 *    single-consumer ring (PE thread -> engine), and come back through a
 *    second ring (engine -> PE thread) followed by sd_pe_wake(), so a program
 *    sleeping on the PE's notification handle wakes up. doca_pe_progress is
 *    therefore never blocked by a multi-megabyte copy. The thread is created
 *    on the first large copy and joined when the context stops; it spins
 *    briefly when idle, then sleeps on a condition variable.
 *  - Remote copies (a buffer of an mmap created from the other side's export)
 *    are system calls into the exporter's address space (sd_remote.h). From
 *    SD_DMA_REMOTE_INLINE_MAX bytes on they always go to the engine thread:
 *    a syscall cannot be interrupted halfway by the program and the kernel
 *    copy also pins pages, so doing it in progress would stall the PE thread
 *    (and every other context on it) for each large copy. Below that, one
 *    syscall costs about what a thread hand-off costs, so it runs inline like
 *    a local copy. A failed remote access (exporter died, export revoked)
 *    fails that task with sd_remote's status, logged; the destination's
 *    data length is left as it was.
 *  - Stop flushes pending tasks at once and asks the thread to abandon its
 *    queue (copies are polled for abort every SD_DMA_ABORT_CHUNK bytes), so
 *    stopping with a big backlog is quick. A task is only completed on the PE
 *    thread, with sd_task_complete().
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dma_priv.h"
#include "sd_env.h"
#include "sd_log.h"
#include "sd_remote.h"

SD_LOG_REGISTER(DMA_ENGINE);

#define SD_DMA_INLINE_MAX_DEFAULT (8u << 20)
#define SD_DMA_REMOTE_INLINE_MAX_DEFAULT (256u << 10)
#define SD_DMA_POLL_BUDGET (8u << 20)
#define SD_DMA_POLL_MAX_TASKS 8u
#define SD_DMA_RING_SIZE 1024u /* power of two */
#define SD_DMA_SPIN_ROUNDS 20000
#define SD_DMA_INLINE_MAX_LIMIT (1ull << 40)

struct sd_spsc_ring {
	_Atomic uint32_t head __attribute__((aligned(64))); /* consumer */
	_Atomic uint32_t tail __attribute__((aligned(64))); /* producer */
	struct doca_dma_task_memcpy *slot[SD_DMA_RING_SIZE] __attribute__((aligned(64)));
};

struct sd_dma_engine {
	struct doca_dma *dma;
	struct doca_pe *pe;
	size_t inline_max;
	size_t remote_inline_max;

	/* PE thread only */
	struct doca_dma_task_memcpy *pend_head;
	struct doca_dma_task_memcpy *pend_tail;
	uint32_t worker_outstanding;
	bool stopping;
	bool thread_running;
	pthread_t thread;

	/* shared with the engine thread */
	struct sd_spsc_ring sq; /* PE -> engine */
	struct sd_spsc_ring cq; /* engine -> PE */
	volatile int abort_flag;
	_Atomic int quit;
	_Atomic int sleeping;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static bool ring_push(struct sd_spsc_ring *r, struct doca_dma_task_memcpy *t)
{
	uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint32_t head = atomic_load_explicit(&r->head, memory_order_acquire);

	if (tail - head >= SD_DMA_RING_SIZE)
		return false;
	r->slot[tail & (SD_DMA_RING_SIZE - 1)] = t;
	atomic_store_explicit(&r->tail, tail + 1, memory_order_seq_cst);
	return true;
}

static struct doca_dma_task_memcpy *ring_pop(struct sd_spsc_ring *r)
{
	uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint32_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	struct doca_dma_task_memcpy *t;

	if (head == tail)
		return NULL;
	t = r->slot[head & (SD_DMA_RING_SIZE - 1)];
	atomic_store_explicit(&r->head, head + 1, memory_order_release);
	return t;
}

static bool ring_empty(struct sd_spsc_ring *r)
{
	return atomic_load_explicit(&r->head, memory_order_seq_cst) ==
	       atomic_load_explicit(&r->tail, memory_order_seq_cst);
}

static void *engine_thread(void *arg)
{
	struct sd_dma_engine *eng = arg;
	unsigned int idle = 0;

	for (;;) {
		struct doca_dma_task_memcpy *t = ring_pop(&eng->sq);

		if (t != NULL) {
			idle = 0;
			if (__atomic_load_n(&eng->abort_flag, __ATOMIC_RELAXED))
				t->eng_status = SD_TASK_FLUSHED_STATUS;
			else
				t->eng_status = sd_dma_task_copy(t, &eng->abort_flag);
			if (t->eng_status == DOCA_ERROR_AGAIN)
				t->eng_status = SD_TASK_FLUSHED_STATUS;
			/* the PE hands out at most SD_DMA_RING_SIZE tasks: cq cannot be full */
			ring_push(&eng->cq, t);
			sd_pe_wake(eng->pe);
			continue;
		}
		if (atomic_load(&eng->quit))
			break;
		if (++idle < SD_DMA_SPIN_ROUNDS) {
			if ((idle & 63) == 0)
				sched_yield();
			continue;
		}
		pthread_mutex_lock(&eng->lock);
		atomic_store(&eng->sleeping, 1);
		while (ring_empty(&eng->sq) && !atomic_load(&eng->quit))
			pthread_cond_wait(&eng->cond, &eng->lock);
		atomic_store(&eng->sleeping, 0);
		pthread_mutex_unlock(&eng->lock);
		idle = 0;
	}
	return NULL;
}

static void engine_kick(struct sd_dma_engine *eng)
{
	if (atomic_load(&eng->sleeping)) {
		pthread_mutex_lock(&eng->lock);
		pthread_cond_signal(&eng->cond);
		pthread_mutex_unlock(&eng->lock);
	}
}

static doca_error_t sw_create(struct sd_dma_engine **out, struct doca_dma *dma)
{
	struct sd_dma_engine *eng;
	uint64_t inline_max, remote_inline_max;
	doca_error_t err;

	/* Tuning knobs for measurements, not user-facing settings; a refused
	 * value fails the creation (logged by sd_env_u64, naming it). */
	err = sd_env_u64("SOFTDOCA_DMA_INLINE_MAX", SD_DMA_INLINE_MAX_DEFAULT, 0, SD_DMA_INLINE_MAX_LIMIT, &inline_max);
	if (err == DOCA_SUCCESS)
		err = sd_env_u64("SOFTDOCA_DMA_REMOTE_INLINE_MAX", SD_DMA_REMOTE_INLINE_MAX_DEFAULT, 0,
				 SD_DMA_INLINE_MAX_LIMIT, &remote_inline_max);
	if (err != DOCA_SUCCESS)
		return err;
	if (posix_memalign((void **)&eng, 64, sizeof(*eng)) != 0)
		return DOCA_ERROR_NO_MEMORY;
	memset(eng, 0, sizeof(*eng));
	eng->dma = dma;
	eng->inline_max = (size_t)inline_max;
	eng->remote_inline_max = (size_t)remote_inline_max;
	pthread_mutex_init(&eng->lock, NULL);
	pthread_cond_init(&eng->cond, NULL);
	*out = eng;
	return DOCA_SUCCESS;
}

static void sw_destroy(struct sd_dma_engine *eng)
{
	if (eng == NULL)
		return;
	pthread_cond_destroy(&eng->cond);
	pthread_mutex_destroy(&eng->lock);
	free(eng);
}

static doca_error_t sw_start(struct sd_dma_engine *eng, struct doca_pe *pe)
{
	eng->pe = pe;
	eng->stopping = false;
	eng->pend_head = eng->pend_tail = NULL;
	eng->worker_outstanding = 0;
	__atomic_store_n(&eng->abort_flag, 0, __ATOMIC_SEQ_CST);
	atomic_store(&eng->quit, 0);
	return DOCA_SUCCESS;
}

static void sw_stop(struct sd_dma_engine *eng)
{
	struct doca_dma_task_memcpy *t;

	eng->stopping = true;
	__atomic_store_n(&eng->abort_flag, 1, __ATOMIC_SEQ_CST);
	while ((t = eng->pend_head) != NULL) {
		eng->pend_head = t->eng_next;
		sd_task_complete(&t->task, SD_TASK_FLUSHED_STATUS);
	}
	eng->pend_tail = NULL;
	if (eng->thread_running)
		engine_kick(eng);
}

static bool sw_drained(struct sd_dma_engine *eng)
{
	if (eng->pend_head != NULL || eng->worker_outstanding != 0)
		return false;
	if (eng->thread_running) {
		atomic_store(&eng->quit, 1);
		pthread_mutex_lock(&eng->lock);
		pthread_cond_signal(&eng->cond);
		pthread_mutex_unlock(&eng->lock);
		pthread_join(eng->thread, NULL);
		eng->thread_running = false;
	}
	return true;
}

static doca_error_t sw_submit(struct sd_dma_engine *eng, struct doca_dma_task_memcpy *task)
{
	task->eng_next = NULL;
	if (eng->pend_tail != NULL)
		eng->pend_tail->eng_next = task;
	else
		eng->pend_head = task;
	eng->pend_tail = task;
	return DOCA_SUCCESS;
}

static bool start_thread(struct sd_dma_engine *eng)
{
	int rc;

	atomic_store(&eng->quit, 0);
	rc = pthread_create(&eng->thread, NULL, engine_thread, eng);
	if (rc != 0) {
		SD_LOG_WARN("DMA engine thread could not start (%s); copying in progress instead", strerror(rc));
		return false;
	}
	eng->thread_running = true;
	return true;
}

/* An execution failure breaks the context (DOCA); a flush or an abort by
 * stop does not. */
static void finish(struct doca_dma_task_memcpy *t, doca_error_t status)
{
	if (status == DOCA_SUCCESS || status == SD_TASK_FLUSHED_STATUS)
		sd_task_complete(&t->task, status);
	else
		sd_task_fail(&t->task, status);
}

/* TRACE: one line per executed task, its geometry and where it runs. */
static void __attribute__((noinline, cold)) trace_task(const struct doca_dma_task_memcpy *t, size_t total,
							 const char *where)
{
	const struct doca_buf *d = t->dst;

	SD_LOG_TRC("DMA ctx %p: memcpy task %p: %zu bytes from %p (%u segments%s) to %p (%u segments%s), %s",
		   (void *)t->task.cls->ctx, (const void *)t, total, (void *)t->src->data, t->src->list_len,
		   (t->eng_remote & SD_DMA_SRC_REMOTE) ? ", remote" : "", (void *)(d->data + d->data_len), d->list_len,
		   (t->eng_remote & SD_DMA_DST_REMOTE) ? ", remote" : "", where);
}

static int sw_poll(struct sd_dma_engine *eng)
{
	struct sd_dma_check_cache cache = {NULL, NULL};
	size_t inline_bytes = 0;
	struct doca_dma_task_memcpy *t;
	bool kicked = false;
	bool failed = false;
	bool trc = sd_log_sdk_enabled(70); /* once per poll, not per task */
	uint32_t taken = 0;
	int n = 0;

	if (eng->worker_outstanding != 0) {
		while ((t = ring_pop(&eng->cq)) != NULL) {
			eng->worker_outstanding--;
			finish(t, t->eng_status);
			if (t->eng_status != DOCA_SUCCESS && t->eng_status != SD_TASK_FLUSHED_STATUS)
				failed = true;
			n++;
		}
	}

	/* Only the tasks present now: callbacks run later and may resubmit. */
	while (!failed && !eng->stopping && (t = eng->pend_head) != NULL && taken < SD_DMA_POLL_MAX_TASKS) {
		doca_error_t err;
		size_t total;

		err = sd_dma_task_check(t, &cache, &total);
		if (err == DOCA_SUCCESS && total >= (t->eng_remote ? eng->remote_inline_max : eng->inline_max) &&
		    (eng->thread_running || start_thread(eng))) {
			/* Bounding what the engine holds keeps the completion ring from overflowing. */
			if (eng->worker_outstanding >= SD_DMA_RING_SIZE || !ring_push(&eng->sq, t))
				break; /* engine busy: the rest waits for the next progress */
			eng->pend_head = t->eng_next;
			eng->worker_outstanding++;
			if (__builtin_expect(trc, 0))
				trace_task(t, total, "on the engine thread");
			kicked = true;
			taken++;
			continue;
		}
		if (err == DOCA_SUCCESS && inline_bytes >= SD_DMA_POLL_BUDGET && n > 0)
			break; /* this progress call copied enough; the rest goes next time */
		eng->pend_head = t->eng_next;
		if (err == DOCA_SUCCESS) {
			if (__builtin_expect(trc, 0))
				trace_task(t, total, "inline in progress");
			err = sd_dma_task_copy(t, NULL);
			if (err == DOCA_SUCCESS)
				inline_bytes += total;
		}
		finish(t, err);
		if (err != DOCA_SUCCESS)
			failed = true;
		taken++;
		n++;
	}
	if (eng->pend_head == NULL)
		eng->pend_tail = NULL;
	if (kicked)
		engine_kick(eng);
	return n;
}

static bool sw_has_work(const struct sd_dma_engine *eng)
{
	return eng->pend_head != NULL && !eng->stopping;
}

/* The remote memory behind a buffer chain, if any. */
static const struct sd_remote *chain_remote(const struct doca_buf *b)
{
	const struct sd_remote *r;

	for (; b != NULL; b = b->next)
		if (b->mmap != NULL && (r = sd_mmap_remote(b->mmap)) != NULL)
			return r;
	return NULL;
}

static void sw_describe(const struct sd_dma_engine *eng, char *buf, size_t cap)
{
	const struct doca_dma_task_memcpy *t;
	const struct sd_remote *r = NULL;
	uint32_t queued = 0;
	int n;

	for (t = eng->pend_head; t != NULL; t = t->eng_next) {
		queued++;
		if (r == NULL && (r = chain_remote(t->src)) == NULL)
			r = chain_remote(t->dst);
	}
	n = snprintf(buf, cap, "%u queued, %u on the engine thread (copies of %zu bytes or more, remote ones of %zu "
		     "or more)", queued, eng->worker_outstanding, eng->inline_max, eng->remote_inline_max);
	if (n < 0 || (size_t)n >= cap)
		return;
	if (r != NULL)
		snprintf(buf + n, cap - (size_t)n,
			 "; a queued task moves remote memory exported by pid %d on %s (%s side): is that process "
			 "alive and the export still open?",
			 sd_remote_pid(r), sd_remote_pci(r), sd_remote_side(r) == SD_SIDE_DPU ? "Arm" : "host");
	else if (eng->worker_outstanding != 0)
		snprintf(buf + n, cap - (size_t)n, "; the engine thread is still copying (a very large or slow "
			 "remote copy?)");
}

const struct sd_dma_engine_ops sd_dma_sw_engine = {
	.name = "software",
	.create = sw_create,
	.destroy = sw_destroy,
	.start = sw_start,
	.stop = sw_stop,
	.drained = sw_drained,
	.submit = sw_submit,
	.poll = sw_poll,
	.has_work = sw_has_work,
	.describe = sw_describe,
};
