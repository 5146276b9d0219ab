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
 *  - The checks are DOCA's for every task, but what cannot change is not
 *    looked up again: a task's mmaps found usable stay so while they show the
 *    same start id (sd_mmap_view), so the cache of them lives across polls,
 *    and the common task (one local segment each side) is checked and copied
 *    inline without a call (copies up to 64 bytes by our own small copy, an
 *    inline completion into the PE's queue).
 *  - Inline copies from SD_DMA_NT_INLINE_MIN bytes use streaming stores when
 *    the context holds SD_DMA_NT_INFLIGHT_MIN bytes or more in flight: the
 *    destinations then do not stay in the caches anyway, and a cached store
 *    reads each line before writing it. Small working sets keep memcpy.
 *  - Medium copies (from SD_DMA_SHARE_MIN bytes) are shared: while the
 *    engine thread holds fewer than SD_DMA_SHARE_AHEAD tasks, every second
 *    one goes there and progress copies the others, so two CPUs copy side by
 *    side (one memcpy loop is what a program would do alone; a DMA engine is
 *    beside the CPU). A process allowed one CPU does not share.
 *  - A program that sleeps on the PE's notification handle instead of
 *    polling is woken as soon as tasks are submitted (the core kicks an
 *    armed PE on submit, and has_work below tells a re-arm that pending
 *    tasks remain), so its next progress executes and completes them.
 *  - A task whose execution fails (bad buffer, permission, remote access)
 *    completes with sd_task_fail: after its error callback the context moves
 *    to STOPPING and the tasks behind it are flushed, as DOCA DMA does. The
 *    poll stops executing at the first failure.
 *  - Large copies go to an engine thread through a lock-free single-producer
 *    single-consumer ring (PE thread -> engine), and come back through a
 *    second ring (engine -> PE thread) followed by sd_pe_wake(), so a program
 *    sleeping on the PE's notification handle wakes up. doca_pe_progress is
 *    therefore never blocked by a multi-megabyte copy. The threads are
 *    created on the first large copy and joined when the context stops.
 *  - Waiting is adaptive: an idle engine thread polls for at most
 *    SD_DMA_SPIN_NS (a task arriving right behind the last one is picked up
 *    without a system call), then sleeps in the kernel on a futex that the
 *    submitter only touches when the thread said it sleeps. No thread of
 *    this engine spins longer than that, so an idle or oversubscribed
 *    process costs no CPU it does not use.
 *  - A large local copy (one source and one destination segment, from
 *    SD_DMA_SPLIT_MIN bytes) is split in two halves: the engine thread copies
 *    the first, a second engine thread the second, and the task completes
 *    once, after both halves are in place. Beyond the caches one core cannot
 *    saturate memory; two can. Copies from SD_DMA_NT_MIN bytes use
 *    non-temporal stores on x86-64 (SSE2, or AVX2 where the CPU has it),
 *    which skip the read-for-ownership of destination lines and keep the
 *    copy from evicting the program's working set; an sfence orders them
 *    before the completion is published. Elsewhere they are memcpy.
 *  - Completion order (DOCA's documentation does not promise that tasks
 *    complete in submission order, and on the card they do not across
 *    sizes): tasks executed on the engine complete in the order they were
 *    submitted among themselves (one FIFO, one engine thread taking it in
 *    order, a split task reported only when both halves are done); a task
 *    copied inline completes in the progress call that copies it, so a small
 *    task submitted behind a large one may complete first. Callbacks run in
 *    completion order.
 *  - Remote copies (a buffer of an mmap created from the other side's export)
 *    whose remote range lies in the exporter's shared pages are local copies
 *    once sd_remote_direct has checked them and given their address here
 *    (resolve_single): inline, shared, split and streamed like any other.
 *    The rest are system calls into the exporter's address space
 *    (sd_remote.h). From SD_DMA_REMOTE_INLINE_MAX bytes on those always go
 *    to the engine thread:
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
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "dma_priv.h"
#include "sd_cpu.h"
#include "sd_env.h"
#include "sd_log.h"
#include "sd_remote.h"

SD_LOG_REGISTER(DMA_ENGINE);

#define SD_DMA_INLINE_MAX_DEFAULT (8u << 20)
#define SD_DMA_REMOTE_INLINE_MAX_DEFAULT (256u << 10)
#define SD_DMA_POLL_BUDGET (8u << 20)
#define SD_DMA_POLL_MAX_TASKS 8u
#define SD_DMA_RING_SIZE 1024u /* power of two */
#define SD_DMA_SPIN_NS 50000u	  /* an idle engine thread polls this long, then sleeps */
#define SD_DMA_INLINE_MAX_LIMIT (1ull << 40)
#define SD_DMA_SPLIT_MIN_DEFAULT (4u << 20)
#define SD_DMA_NT_MIN_DEFAULT (1u << 20)
#define SD_DMA_HALF_CHUNK (1u << 20) /* a split half polls for abort this often */
/* Inline copies use streaming stores from this size when the context holds
 * at least SD_DMA_NT_INFLIGHT_MIN source bytes in flight (estimated as tasks
 * in flight times this task's size). */
#define SD_DMA_NT_INLINE_MIN (32u << 10)
#define SD_DMA_NT_INFLIGHT_MIN (6u << 20)
/* Copies from this size that progress would do inline are shared with the
 * engine thread when the process may run on two CPUs or more: every second
 * one goes there while the engine holds fewer than SD_DMA_SHARE_AHEAD.
 * Whether a second CPU adds bandwidth at medium sizes depends on the
 * machine: on an AMD EPYC VM (2026-12-03) two CPUs copying 256 KiB and
 * 1 MiB tasks moved 20-30% more than one, at 64 KiB the same for twice the
 * CPU time; on an Intel Xeon VM (2026-12-04; 2 MiB of L2 per core) 32, 64
 * and 128 KiB tasks moved 1.4-1.6x more shared (one CPU alone: 0.93-0.99x
 * memcpy), 16 KiB 1.15-1.2x. From 32 KiB the hand-over (a ring push, a
 * completion through the engine's ring) is under 5% of the copy: where a
 * second CPU does not help, sharing costs CPU time, not throughput. */
#define SD_DMA_SHARE_MIN_DEFAULT (32u << 10)
#define SD_DMA_SHARE_AHEAD 4u

/* A sleep the kernel ends: waiters sleep on seq while it is unchanged; a
 * waker bumps seq and wakes only if some waiter said it sleeps. */
struct sd_waiter {
	_Atomic uint32_t seq;
	_Atomic uint32_t sleepers;
};

/* The second half of a split copy, handed to the helper thread. */
struct sd_half_job {
	uint8_t *dst;
	const uint8_t *src;
	size_t len;
	bool nt;
	doca_error_t status;
};

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
	uint64_t nt_inflight_min; /* nt_inline's threshold */
	size_t share_min;	  /* SIZE_MAX: no sharing (one CPU) */
	bool share_turn;	  /* the next shareable task goes to the engine */

	/* PE thread only */
	struct sd_dma_check_cache cache; /* kept across polls: start ids tell when it is stale */
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
	struct sd_waiter sq_wait; /* engine thread sleeps here for sq */
	size_t split_min;
	size_t nt_min;
	uint64_t max_buf_size; /* the device's limits, for quick_check */
	uint32_t max_list;

	/* the helper thread (second halves); started with the engine thread */
	bool helper_running;
	pthread_t helper;
	struct sd_half_job job;
	_Atomic uint32_t job_posted; /* bumped by the engine thread per job */
	_Atomic uint32_t job_done;   /* set to job_posted by the helper when finished */
	struct sd_waiter job_wait;   /* helper sleeps here for a job */
	struct sd_waiter done_wait;  /* engine thread sleeps here for the helper */
};

static void (*nt_copy_fn)(uint8_t *d, const uint8_t *s, size_t n);

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Wait until ready(arg): poll for SD_DMA_SPIN_NS, then sleep on w. The
 * waker makes the condition true first, then calls waiter_wake (both sides
 * seq_cst: either the waker sees sleepers, or the waiter sees the condition
 * before sleeping; a bumped seq makes a late FUTEX_WAIT return at once). */
static void waiter_wait(struct sd_waiter *w, bool (*ready)(struct sd_dma_engine *), struct sd_dma_engine *eng)
{
	uint64_t until = 0;
	unsigned int i;

	for (i = 0;; i++) {
		if (ready(eng))
			return;
		if ((i & 63) == 63) {
			uint64_t now = mono_ns();

			if (until == 0)
				until = now + SD_DMA_SPIN_NS;
			else if (now >= until)
				break;
		}
		sd_cpu_relax();
	}
	for (;;) {
		uint32_t seq = atomic_load(&w->seq);

		atomic_fetch_add(&w->sleepers, 1);
		if (ready(eng)) {
			atomic_fetch_sub(&w->sleepers, 1);
			return;
		}
		syscall(SYS_futex, &w->seq, FUTEX_WAIT_PRIVATE, seq, NULL, NULL, 0);
		atomic_fetch_sub(&w->sleepers, 1);
		if (ready(eng))
			return;
	}
}

static void waiter_wake(struct sd_waiter *w)
{
	if (atomic_load(&w->sleepers) == 0)
		return;
	atomic_fetch_add(&w->seq, 1);
	syscall(SYS_futex, &w->seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* ---- non-temporal copy ---- */

#if defined(__x86_64__)
/* Streaming stores need an aligned destination: align it with memcpy, move
 * 64-byte lines, memcpy the tail; the sfence makes the streamed lines
 * globally visible before whatever the caller publishes next. */
static void nt_copy_sse2(uint8_t *d, const uint8_t *s, size_t n)
{
	size_t head = (size_t)(-(uintptr_t)d & 63);

	if (n < head + 256) {
		memcpy(d, s, n);
		return;
	}
	memcpy(d, s, head);
	d += head;
	s += head;
	n -= head;
	for (; n >= 64; n -= 64, d += 64, s += 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)s);
		__m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
		__m128i e = _mm_loadu_si128((const __m128i *)(s + 48));

		_mm_stream_si128((__m128i *)d, a);
		_mm_stream_si128((__m128i *)(d + 16), b);
		_mm_stream_si128((__m128i *)(d + 32), c);
		_mm_stream_si128((__m128i *)(d + 48), e);
	}
	memcpy(d, s, n);
	_mm_sfence();
}

__attribute__((target("avx2"))) static void nt_copy_avx2(uint8_t *d, const uint8_t *s, size_t n)
{
	size_t head = (size_t)(-(uintptr_t)d & 63);

	if (n < head + 256) {
		memcpy(d, s, n);
		return;
	}
	memcpy(d, s, head);
	d += head;
	s += head;
	n -= head;
	for (; n >= 128; n -= 128, d += 128, s += 128) {
		__m256i a = _mm256_loadu_si256((const __m256i *)s);
		__m256i b = _mm256_loadu_si256((const __m256i *)(s + 32));
		__m256i c = _mm256_loadu_si256((const __m256i *)(s + 64));
		__m256i e = _mm256_loadu_si256((const __m256i *)(s + 96));

		_mm256_stream_si256((__m256i *)d, a);
		_mm256_stream_si256((__m256i *)(d + 32), b);
		_mm256_stream_si256((__m256i *)(d + 64), c);
		_mm256_stream_si256((__m256i *)(d + 96), e);
	}
	if (n >= 64) {
		_mm256_stream_si256((__m256i *)d, _mm256_loadu_si256((const __m256i *)s));
		_mm256_stream_si256((__m256i *)(d + 32), _mm256_loadu_si256((const __m256i *)(s + 32)));
		d += 64;
		s += 64;
		n -= 64;
	}
	memcpy(d, s, n);
	_mm_sfence();
}
#endif

static void plain_copy(uint8_t *d, const uint8_t *s, size_t n)
{
	memcpy(d, s, n);
}

static const char *nt_select(void)
{
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2")) {
		nt_copy_fn = nt_copy_avx2;
		return "AVX2 streaming stores";
	}
	nt_copy_fn = nt_copy_sse2;
	return "SSE2 streaming stores";
#else
	nt_copy_fn = plain_copy;
	return "memcpy (no streaming stores on this architecture)";
#endif
}

/* Copy one range, non-temporal if asked, polling abort between chunks.
 * false if aborted. */
static bool copy_range(uint8_t *d, const uint8_t *s, size_t n, bool nt, const volatile int *abort)
{
	while (n > 0) {
		size_t k = n < SD_DMA_HALF_CHUNK ? n : SD_DMA_HALF_CHUNK;

		if (__atomic_load_n(abort, __ATOMIC_RELAXED))
			return false;
		if (nt)
			nt_copy_fn(d, s, k);
		else
			plain_copy(d, s, k);
		d += k;
		s += k;
		n -= k;
	}
	return true;
}

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

static bool sq_ready(struct sd_dma_engine *eng)
{
	return !ring_empty(&eng->sq) || atomic_load(&eng->quit);
}

static bool job_ready(struct sd_dma_engine *eng)
{
	return atomic_load(&eng->job_posted) != atomic_load_explicit(&eng->job_done, memory_order_relaxed) ||
	       atomic_load(&eng->quit);
}

static bool job_finished(struct sd_dma_engine *eng)
{
	return atomic_load(&eng->job_done) == atomic_load_explicit(&eng->job_posted, memory_order_relaxed);
}

/* The helper: copies the second half of split tasks, one at a time. */
static void *helper_thread(void *arg)
{
	struct sd_dma_engine *eng = arg;

	for (;;) {
		uint32_t posted;

		waiter_wait(&eng->job_wait, job_ready, eng);
		posted = atomic_load(&eng->job_posted);
		if (posted == atomic_load(&eng->job_done)) {
			if (atomic_load(&eng->quit))
				break;
			continue;
		}
		eng->job.status = copy_range(eng->job.dst, eng->job.src, eng->job.len, eng->job.nt, &eng->abort_flag)
					  ? DOCA_SUCCESS
					  : SD_TASK_FLUSHED_STATUS;
		atomic_store(&eng->job_done, posted);
		waiter_wake(&eng->done_wait);
	}
	return NULL;
}

/* A checked local task of one source and one destination segment: split it
 * with the helper if it is large enough, else copy it here. */
static doca_error_t copy_local_single(struct sd_dma_engine *eng, struct doca_dma_task_memcpy *t)
{
	const uint8_t *s = t->eng_src;
	uint8_t *d = t->eng_dst;
	size_t n = t->src->data_len;
	bool nt = t->eng_nt;
	bool ok;

	if (eng->helper_running && n >= eng->split_min && n >= 2) {
		size_t mid = n / 2;
		size_t adj = (size_t)((uintptr_t)(d + mid) & 63); /* the helper's stores start on a line */

		if (mid > adj)
			mid -= adj;
		eng->job.dst = d + mid;
		eng->job.src = s + mid;
		eng->job.len = n - mid;
		eng->job.nt = nt;
		atomic_fetch_add(&eng->job_posted, 1);
		waiter_wake(&eng->job_wait);
		ok = copy_range(d, s, mid, nt, &eng->abort_flag);
		/* The helper's half must be finished before the task can be reported
		 * (or flushed: its buffers go back to the program). */
		waiter_wait(&eng->done_wait, job_finished, eng);
		if (!ok || eng->job.status != DOCA_SUCCESS)
			return DOCA_ERROR_AGAIN;
	} else if (!copy_range(d, s, n, nt, &eng->abort_flag)) {
		return DOCA_ERROR_AGAIN;
	}
	t->dst->data_len += n;
	return DOCA_SUCCESS;
}

static void *engine_thread(void *arg)
{
	struct sd_dma_engine *eng = arg;

	for (;;) {
		struct doca_dma_task_memcpy *t = ring_pop(&eng->sq);

		if (t == NULL) {
			if (atomic_load(&eng->quit))
				break;
			waiter_wait(&eng->sq_wait, sq_ready, eng);
			continue;
		}
		if (__atomic_load_n(&eng->abort_flag, __ATOMIC_RELAXED))
			t->eng_status = SD_TASK_FLUSHED_STATUS;
		else if (t->eng_remote == 0 && t->src->next == NULL && t->dst->next == NULL)
			t->eng_status = copy_local_single(eng, t);
		else
			t->eng_status = sd_dma_task_copy(t, &eng->abort_flag);
		/* A task that did not complete while a stop was aborting the
		 * engine was flushed; any other failure is the task's own. */
		t->eng_flushed = t->eng_status == DOCA_ERROR_AGAIN ||
				 (t->eng_status != DOCA_SUCCESS && __atomic_load_n(&eng->abort_flag, __ATOMIC_RELAXED));
		if (t->eng_flushed)
			t->eng_status = SD_TASK_FLUSHED_STATUS;
		/* the PE hands out at most SD_DMA_RING_SIZE tasks: cq cannot be full */
		ring_push(&eng->cq, t);
		sd_pe_wake(eng->pe);
	}
	return NULL;
}

static void engine_kick(struct sd_dma_engine *eng)
{
	waiter_wake(&eng->sq_wait);
}

/* CPUs this process may run on: sharing copies with the engine thread only
 * pays when it can run beside the PE thread. */
static int usable_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 1;
	return CPU_COUNT(&set);
}

static doca_error_t sw_create(struct sd_dma_engine **out, struct doca_dma *dma)
{
	struct sd_dma_engine *eng;
	uint64_t inline_max, remote_inline_max, split_min, nt_min, nt_inflight_min, share_min;
	const char *nt_how;
	doca_error_t err;

	/* Tuning knobs for measurements, not user-facing settings; a refused
	 * value fails the creation (logged by sd_env_u64, naming it). */
	err = sd_env_u64("SOFTDOCA_DMA_INLINE_MAX", SD_DMA_INLINE_MAX_DEFAULT, 0, SD_DMA_INLINE_MAX_LIMIT, &inline_max);
	if (err == DOCA_SUCCESS)
		err = sd_env_u64("SOFTDOCA_DMA_REMOTE_INLINE_MAX", SD_DMA_REMOTE_INLINE_MAX_DEFAULT, 0,
				 SD_DMA_INLINE_MAX_LIMIT, &remote_inline_max);
	if (err == DOCA_SUCCESS)
		err = sd_env_u64("SOFTDOCA_DMA_SPLIT_MIN", SD_DMA_SPLIT_MIN_DEFAULT, 0, UINT64_MAX, &split_min);
	if (err == DOCA_SUCCESS)
		err = sd_env_u64("SOFTDOCA_DMA_NT_MIN", SD_DMA_NT_MIN_DEFAULT, 0, UINT64_MAX, &nt_min);
	if (err == DOCA_SUCCESS)
		err = sd_env_u64("SOFTDOCA_DMA_NT_INFLIGHT_MIN", SD_DMA_NT_INFLIGHT_MIN, 0, UINT64_MAX,
				 &nt_inflight_min);
	if (err == DOCA_SUCCESS)
		err = sd_env_u64("SOFTDOCA_DMA_SHARE_MIN", SD_DMA_SHARE_MIN_DEFAULT, 0, UINT64_MAX, &share_min);
	if (err != DOCA_SUCCESS)
		return err;
	if (posix_memalign((void **)&eng, 64, sizeof(*eng)) != 0)
		return DOCA_ERROR_NO_MEMORY;
	memset(eng, 0, sizeof(*eng));
	eng->dma = dma;
	eng->inline_max = (size_t)inline_max;
	eng->remote_inline_max = (size_t)remote_inline_max;
	eng->split_min = split_min > SIZE_MAX ? SIZE_MAX : (size_t)split_min;
	eng->nt_min = nt_min > SIZE_MAX ? SIZE_MAX : (size_t)nt_min;
	eng->nt_inflight_min = nt_inflight_min;
	eng->share_min = share_min > SIZE_MAX || usable_cpus() < 2 ? SIZE_MAX : (size_t)share_min;
	eng->max_buf_size = dma->caps->dma_max_buf_size;
	eng->max_list = dma->caps->dma_max_buf_list_len;
	nt_how = nt_select();
	SD_LOG_DBG("DMA engine: copies of %zu bytes or more on the engine thread (remote: %zu), split in two from %zu, "
		   "non-temporal from %zu (%s)", eng->inline_max, eng->remote_inline_max, eng->split_min, eng->nt_min,
		   nt_how);
	*out = eng;
	return DOCA_SUCCESS;
}

static void sw_destroy(struct sd_dma_engine *eng)
{
	if (eng == NULL)
		return;
	free(eng);
}

static doca_error_t sw_start(struct sd_dma_engine *eng, struct doca_pe *pe)
{
	eng->pe = pe;
	memset(&eng->cache, 0, sizeof(eng->cache));
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
		waiter_wake(&eng->sq_wait);
		pthread_join(eng->thread, NULL);
		eng->thread_running = false;
	}
	if (eng->helper_running) {
		atomic_store(&eng->quit, 1);
		waiter_wake(&eng->job_wait);
		pthread_join(eng->helper, NULL);
		eng->helper_running = false;
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
	/* Without a helper the engine thread copies split-size tasks whole. */
	rc = pthread_create(&eng->helper, NULL, helper_thread, eng);
	if (rc != 0)
		SD_LOG_WARN("DMA engine helper thread could not start (%s); large copies run on one thread",
			    strerror(rc));
	else
		eng->helper_running = true;
	return true;
}

/* An execution failure breaks the context (DOCA); a flush or an abort by
 * stop does not. Which one it was is said, not read from the status: a
 * real failure may carry the same code as a flush (IO_FAILED). */
static void finish(struct doca_dma_task_memcpy *t, doca_error_t status, bool flushed)
{
	if (status == DOCA_SUCCESS || flushed)
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

/* [p, p+n) inside [base, base+len), p not NULL (unsigned: p below base wraps). */
static inline bool span_in(uintptr_t base, size_t len, const void *p, size_t n)
{
	size_t off = (uintptr_t)p - base;

	return off <= len && n <= len - off;
}

/*
 * The common task, checked and copied without the general walk: one local
 * source segment and one local destination segment whose mmaps were found
 * usable in their current start (cache), no injected fault (the faults hook
 * carries it in the status). It answers true only where sd_dma_task_check
 * would succeed with the same byte count; anything else, error or not, goes
 * the general way, which also logs the error.
 */
static inline bool quick_check(const struct sd_dma_engine *eng, struct doca_dma_task_memcpy *t,
			       const struct sd_dma_check_cache *c, size_t *total)
{
	const struct doca_buf *s = t->src;
	const struct doca_buf *d = t->dst;
	const struct sd_mmap_view *sv, *dv;
	size_t n, room;

	/* c->*_ok_remote is false for a local mmap the cache vouches for */
	if (s->next != NULL || d->next != NULL || !sd_dma_cache_hit(c->src_ok, c->src_ok_id, s->mmap) ||
	    !sd_dma_cache_hit(c->dst_ok, c->dst_ok_id, d->mmap) || c->src_ok_remote || c->dst_ok_remote ||
	    t->task.status != DOCA_SUCCESS || s->list_len > eng->max_list || d->list_len > eng->max_list)
		return false;
	sv = sd_mmap_view_of(s->mmap);
	dv = sd_mmap_view_of(d->mmap);
	n = s->data_len;
	/* n - 1 wraps for n == 0: one compare for 0 < n <= max */
	if (n - 1 >= eng->max_buf_size || s->addr == NULL || s->data < s->addr ||
	    !span_in((uintptr_t)s->addr, s->len, s->data, n) || !span_in((uintptr_t)sv->addr, sv->len, s->data, n))
		return false;
	if (d->addr == NULL || d->data < d->addr || !span_in((uintptr_t)d->addr, d->len, d->data, d->data_len))
		return false;
	room = d->len - (size_t)(d->data - d->addr) - d->data_len;
	if (room < n || !span_in((uintptr_t)dv->addr, dv->len, d->data + d->data_len, room))
		return false;
	t->eng_remote = 0;
	*total = n;
	return true;
}

/* Up to 64 bytes without a call: every byte is loaded before any is stored
 * (two possibly overlapping blocks from each end), so overlapping buffers
 * copy as memmove would. */
#define SD_DMA_SMALL_COPY 64u

static inline void small_copy(uint8_t *d, const uint8_t *s, size_t n)
{
	if (n >= 32) {
		uint8_t a[32], b[32];

		memcpy(a, s, 32);
		memcpy(b, s + n - 32, 32); /* n <= 64: the two blocks cover it */
		memcpy(d, a, 32);
		memcpy(d + n - 32, b, 32);
	} else if (n >= 16) {
		uint8_t a[16], b[16];

		memcpy(a, s, 16);
		memcpy(b, s + n - 16, 16);
		memcpy(d, a, 16);
		memcpy(d + n - 16, b, 16);
	} else if (n >= 8) {
		uint64_t a, b;

		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n >= 4) {
		uint32_t a, b;

		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		memcpy(d, &a, 4);
		memcpy(d + n - 4, &b, 4);
	} else {
		uint8_t a = s[0], b = s[n / 2], c = s[n - 1]; /* n is 1..3 */

		d[0] = a;
		d[n / 2] = b;
		d[n - 1] = c;
	}
}

/*
 * Streaming stores for an inline copy? Only when the copies in flight are
 * larger than the caches can keep: with several MiB of sources (and as much
 * destination) moving round, destination lines are evicted before anyone
 * reads them, and a cached store first reads each line it writes (on this
 * project's machine 128 tasks of 64 KiB in flight copy 1.6x faster with
 * streaming stores, 128 of 32 KiB 1.2x slower). A DMA engine does not fill
 * the CPU's caches with what it writes either.
 */
static inline bool nt_inline(const struct sd_dma_engine *eng, size_t n)
{
	return n >= SD_DMA_NT_INLINE_MIN && (uint64_t)n * eng->dma->ctx.inflight >= eng->nt_inflight_min;
}

/* A single-segment copy in progress (what sd_dma_task_copy does for it). */
/* Always inlined: it is most of the 64-byte task's cost, and a call there
 * measured 5% of the tasks per second. */
static inline __attribute__((always_inline)) void copy_inline(const struct sd_dma_engine *eng,
							      struct doca_dma_task_memcpy *t, uint8_t *d,
							      const uint8_t *s, size_t n)
{
	if (n <= SD_DMA_SMALL_COPY)
		small_copy(d, s, n);
	else if (d < s + n && s < d + n)
		memmove(d, s, n); /* overlap is the program's mistake, not undefined behaviour here */
	else if (nt_inline(eng, n))
		nt_copy_fn(d, s, n); /* ends with a fence: visible before the completion is */
	else
		memcpy(d, s, n);
	t->dst->data_len += n;
}

/*
 * A checked task of one source and one destination segment: where its bytes
 * are for this process's loads and stores (eng_src, eng_dst; eng_dst stays
 * NULL when a remote side is not in the exporter's shared pages, and then
 * sd_dma_task_copy moves it through sd_remote). Remote memory reached this
 * way is copied as local memory is: inline, shared or split, streaming
 * stores when large, no system call per copy beyond sd_remote's checks.
 */
static doca_error_t resolve_single(struct doca_dma_task_memcpy *t, size_t n)
{
	struct sd_remote *r;
	uint8_t *p = NULL;
	doca_error_t err;

	t->eng_src = t->src->data;
	t->eng_dst = t->dst->data + t->dst->data_len;
	if (t->eng_remote == 0)
		return DOCA_SUCCESS;
	if (t->eng_remote & SD_DMA_SRC_REMOTE) {
		r = sd_mmap_remote(t->src->mmap);
		err = sd_remote_direct(r, false, (uint64_t)(uintptr_t)t->eng_src, n, &p);
		t->eng_src = p;
	} else {
		r = sd_mmap_remote(t->dst->mmap);
		err = sd_remote_direct(r, true, (uint64_t)(uintptr_t)t->eng_dst, n, &p);
		t->eng_dst = p;
	}
	if (err != DOCA_SUCCESS)
		SD_LOG_ERR("DMA memcpy task failed: %s %zu bytes of process %d (remote mmap) failed: %s",
			   t->eng_remote & SD_DMA_SRC_REMOTE ? "reading" : "writing", n, sd_remote_pid(r),
			   doca_error_get_descr(err));
	if (err != DOCA_SUCCESS || p == NULL) {
		t->eng_dst = NULL;
		return err;
	}
	t->eng_remote = 0;
	return DOCA_SUCCESS;
}

/*
 * Give this quick-checked task to the engine thread instead of copying it
 * inline? Every second shareable one, while the engine holds few: the PE
 * thread and the engine thread then copy side by side on two CPUs, which is
 * what makes medium copies faster than one memcpy loop. An engine that falls
 * behind (its CPU busy with something else) gets nothing more until it
 * catches up, so the PE thread is never left waiting on it for long.
 */
static bool share_now(struct sd_dma_engine *eng, struct doca_dma_task_memcpy *t, uint8_t *d, const uint8_t *s,
		      size_t n)
{
	if (eng->worker_outstanding >= SD_DMA_SHARE_AHEAD || (d < s + n && s < d + n))
		return false;
	eng->share_turn = !eng->share_turn;
	if (!eng->share_turn || !(eng->thread_running || start_thread(eng)))
		return false;
	t->eng_nt = n >= eng->nt_min || nt_inline(eng, n);
	t->eng_src = s;
	t->eng_dst = d;
	if (!ring_push(&eng->sq, t))
		return false;
	eng->worker_outstanding++;
	return true;
}

/*
 * A flat copy (one source range, one destination range, both plain memory
 * here) taken off the pending list: shared with the engine thread, or
 * copied now and completed. Answers whether it was shared.
 */
static inline __attribute__((always_inline)) bool share_or_copy(struct sd_dma_engine *eng,
								 struct doca_dma_task_memcpy *t, uint8_t *d,
								 const uint8_t *s, size_t total, bool trc,
								 size_t *inline_bytes)
{
	if (total >= eng->share_min && share_now(eng, t, d, s, total)) {
		if (__builtin_expect(trc, 0))
			trace_task(t, total, "shared with the engine thread");
		return true;
	}
	if (__builtin_expect(trc, 0))
		trace_task(t, total, "inline in progress");
	copy_inline(eng, t, d, s, total);
	*inline_bytes += total;
	sd_task_complete_inline(&t->task, DOCA_SUCCESS);
	return false;
}

static int sw_poll(struct sd_dma_engine *eng)
{
	struct sd_dma_check_cache *cache = &eng->cache;
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
			finish(t, t->eng_status, t->eng_flushed);
			if (t->eng_status != DOCA_SUCCESS && !t->eng_flushed)
				failed = true;
			n++;
		}
	}

	/* Only the tasks present now: callbacks run later and may resubmit. */
	while (!failed && !eng->stopping && (t = eng->pend_head) != NULL && taken < SD_DMA_POLL_MAX_TASKS) {
		doca_error_t err;
		size_t total;

		if (quick_check(eng, t, cache, &total) && total < eng->inline_max &&
		    (inline_bytes < SD_DMA_POLL_BUDGET || n == 0)) {
			eng->pend_head = t->eng_next;
			taken++;
			if (share_or_copy(eng, t, t->dst->data + t->dst->data_len, t->src->data, total, trc,
					  &inline_bytes))
				kicked = true;
			else
				n++;
			continue;
		}
		err = sd_dma_task_check(t, cache, &total);
		t->eng_dst = NULL;
		if (err == DOCA_SUCCESS && t->src->next == NULL && t->dst->next == NULL)
			err = resolve_single(t, total);
		if (err == DOCA_SUCCESS && t->eng_dst != NULL && total < eng->inline_max &&
		    (inline_bytes < SD_DMA_POLL_BUDGET || n == 0)) {
			/* remote memory in the shared pages: as a local copy */
			eng->pend_head = t->eng_next;
			taken++;
			if (share_or_copy(eng, t, t->eng_dst, t->eng_src, total, trc, &inline_bytes))
				kicked = true;
			else
				n++;
			continue;
		}
		if (err == DOCA_SUCCESS && total >= (t->eng_remote ? eng->remote_inline_max : eng->inline_max) &&
		    (eng->thread_running || start_thread(eng))) {
			/* Bounding what the engine holds keeps the completion ring from overflowing. */
			t->eng_nt = total >= eng->nt_min;
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
		finish(t, err, false);
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
