/*
 * Progress engine: context list, completion queue, notification handle.
 * It polls the libraries (their progress hooks), delivers completions, and
 * then lets each context settle its state through ctx->core (core_priv.h);
 * it never makes a context transition itself.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <doca_pe.h>

#include "core_priv.h"
#include "sd_env.h"
#include "sd_log.h"
#include "sd_trace.h"

SD_LOG_REGISTER(PE);

/* Stuck-program warning: SOFTDOCA_STALL_WARN_MS of nothing completing while
 * work is in flight. The clock is read on one in PE_STALL_CHECK_EVERY
 * progress calls that did nothing (and on each arming of the notification
 * handle), never on a call that delivered something. */
#define PE_STALL_ENV "SOFTDOCA_STALL_WARN_MS"
#define PE_STALL_DEFAULT_MS 3000u
#define PE_STALL_MAX_MS 3600000u
#define PE_STALL_CHECK_EVERY 32u
#define PE_STALL_REPEAT_NS (10ull * 1000000000ull)
#define PE_STALL_REPEAT_MAX_NS (60ull * 1000000000ull)
#define PE_SUMMARY_NS 1000000000ull
#define SD_LOG_DBG_LEVEL 60

_Static_assert(offsetof(struct doca_pe, head) == 0, "sd_pe_head must head struct doca_pe");

uint64_t sd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

doca_error_t doca_pe_create(struct doca_pe **pe)
{
	struct doca_pe *p;
	struct epoll_event ev = {.events = EPOLLIN};
	uint64_t stall_ms;

	if (pe == NULL) {
		SD_LOG_ERR("Failed to create progress engine: pe is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	sd_trace_report_setup();
	if (sd_env_u64(PE_STALL_ENV, PE_STALL_DEFAULT_MS, 0, PE_STALL_MAX_MS, &stall_ms) != DOCA_SUCCESS) {
		SD_LOG_ERR("Failed to create progress engine: %s is invalid", PE_STALL_ENV);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* aligned: the engine-written flags sit on their own cache line */
	p = aligned_alloc(_Alignof(struct doca_pe), sizeof(*p));
	if (p == NULL) {
		SD_LOG_ERR("Failed to allocate progress engine");
		return DOCA_ERROR_NO_MEMORY;
	}
	memset(p, 0, sizeof(*p));
	p->event_mode = DOCA_PE_EVENT_MODE_PROGRESS_ALL;
	p->stall_warn_ns = stall_ms * 1000000ull;
	atomic_init(&p->armed, false);
	atomic_init(&p->pending, false);

	p->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (p->epfd < 0)
		goto err_free;
	p->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (p->efd < 0)
		goto err_epfd;
	ev.data.fd = p->efd;
	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->efd, &ev) != 0)
		goto err_efd;

	*pe = p;
	SD_LOG_DBG("PE %p created (stall warning after %" PRIu64 " ms%s)", (void *)p, stall_ms,
		   stall_ms == 0 ? ": off" : "");
	return DOCA_SUCCESS;

err_efd:
	close(p->efd);
err_epfd:
	close(p->epfd);
err_free:
	SD_LOG_ERR("Failed to create progress engine notification handle: %s", strerror(errno));
	free(p);
	return DOCA_ERROR_OPERATING_SYSTEM;
}

static void pe_free(struct doca_pe *pe)
{
	sd_prof_free_all(pe);
	close(pe->efd);
	close(pe->epfd);
	free(pe);
}

doca_error_t doca_pe_destroy(struct doca_pe *pe)
{
	if (pe == NULL) {
		SD_LOG_ERR("Failed to destroy progress engine: pe is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (pe->ctxs != NULL) {
		SD_LOG_ERR("Failed to destroy progress engine %p: contexts are still connected", (void *)pe);
		return DOCA_ERROR_IN_USE;
	}
	SD_LOG_DBG("PE %p destroyed%s", (void *)pe,
		   pe->in_progress ? " (from a callback: freed when progress returns)" : "");
	/* Called from one of our callbacks: free once doca_pe_progress unwinds. */
	if (pe->in_progress) {
		pe->destroy_deferred = true;
		return DOCA_SUCCESS;
	}
	pe_free(pe);
	return DOCA_SUCCESS;
}

doca_error_t doca_pe_connect_ctx(struct doca_pe *pe, struct doca_ctx *ctx)
{
	struct doca_ctx **tail;

	if (pe == NULL || ctx == NULL) {
		SD_LOG_ERR("Failed to connect context to progress engine: %s is NULL", pe == NULL ? "pe" : "ctx");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (pe->destroy_deferred) {
		SD_LOG_ERR("Failed to connect %s context: progress engine is being destroyed", ctx->name);
		return DOCA_ERROR_BAD_STATE;
	}
	if (ctx->state != DOCA_CTX_STATE_IDLE) {
		SD_LOG_ERR("Failed to connect %s context: context is not idle", ctx->name);
		return DOCA_ERROR_BAD_STATE;
	}
	if (ctx->pe != NULL) {
		SD_LOG_ERR("Failed to connect %s context: already connected to a progress engine", ctx->name);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	for (tail = &pe->ctxs; *tail != NULL; tail = &(*tail)->pe_next)
		;
	ctx->pe_next = NULL;
	*tail = ctx;
	ctx->pe = pe;
	SD_LOG_DBG("PE %p: %s ctx %p connected", (void *)pe, ctx->name, (void *)ctx);
	return DOCA_SUCCESS;
}

void sd_pe_unlink_ctx(struct doca_pe *pe, struct doca_ctx *ctx)
{
	struct doca_ctx **link;

	for (link = &pe->ctxs; *link != NULL; link = &(*link)->pe_next) {
		if (*link == ctx) {
			*link = ctx->pe_next;
			break;
		}
	}
	if (pe->iter_next == ctx)
		pe->iter_next = ctx->pe_next;
	if (pe->fail_ctx == ctx)
		pe->fail_ctx = NULL;
	SD_LOG_DBG("PE %p: %s ctx %p disconnected", (void *)pe, ctx->name, (void *)ctx);
	ctx->pe_next = NULL;
	ctx->pe = NULL;
}

doca_error_t doca_pe_get_num_inflight_tasks(const struct doca_pe *pe, size_t *num_inflight_tasks)
{
	const struct doca_ctx *ctx;
	size_t n = 0;

	if (pe == NULL || num_inflight_tasks == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	for (ctx = pe->ctxs; ctx != NULL; ctx = ctx->pe_next)
		n += ctx->inflight;
	*num_inflight_tasks = n;
	return DOCA_SUCCESS;
}

doca_error_t doca_pe_set_event_mode(struct doca_pe *pe, enum doca_pe_event_mode mode)
{
	if (pe == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (mode != DOCA_PE_EVENT_MODE_PROGRESS_SELECTIVE && mode != DOCA_PE_EVENT_MODE_PROGRESS_ALL) {
		SD_LOG_ERR("Failed to set progress engine event mode: unknown mode %d", (int)mode);
		return DOCA_ERROR_INVALID_VALUE;
	}
	pe->event_mode = mode;
	return DOCA_SUCCESS;
}

/* Walk the context list; a callback may destroy any context but the current. */
#define PE_FOREACH_CTX(pe, ctx) \
	for ((pe)->iter_next = (pe)->ctxs; ((ctx) = (pe)->iter_next) != NULL && \
					   (((pe)->iter_next = (ctx)->pe_next), 1);)

/* A task's end: TRACE line and the end of its async span. Before its
 * callback, which may free or resubmit it. */
static void __attribute__((noinline, cold)) pe_diag_task_end(struct doca_task *task, const char *how)
{
	struct doca_ctx *ctx = task->cls->ctx;
	const char *status = doca_error_get_name(task->status);

	SD_LOG_TRC("%s ctx %p: %s task %p %s: %s", ctx->name, (void *)ctx, task->cls->name, (void *)task,
		   task->status == DOCA_SUCCESS ? "completed" : "failed", status);
	if (sd_trace_on)
		sd_trace_async_end("task", task->cls->name, sd_task_trace_id(task), "\"status\":\"%s\"%s", status,
				   how);
}

/* One task of a delivery round that needs more than its callback: a range
 * profiling record, the per-task diagnostics, a task the program freed
 * while it was submitted, a task a graph instance runs. */
static void __attribute__((noinline)) pe_deliver_one_slow(struct doca_pe *pe, struct doca_task *task, bool diag,
							  uint64_t *now)
{
	struct sd_task_owner *owner;

	if (task->submit_flags & DOCA_TASK_SUBMIT_FLAG_RANGE_PROFILING_REQUESTED) {
		if (*now == 0)
			*now = sd_now_ns();
		sd_prof_record(pe, task, *now);
	}
	if (diag)
		pe_diag_task_end(task, task->freed ? ",\"callback\":\"none: freed while submitted\"" : "");
	/* Freed by the program while we held it: back to the pool, no
	 * callback (the program gave it up). */
	if (task->freed) {
		sd_task_pool_put(task);
		return;
	}
	/* As in pe_deliver; a task run by a graph goes back to its graph
	 * instance instead of the task type's callbacks (sd_task_owner). */
	task->state = SD_TASK_ALLOCATED;
	owner = task->owner;
	if (owner != NULL) {
		task->owner = NULL;
		owner->done(owner, task);
	} else {
		task->cls->ops->deliver(task);
	}
}

static int __attribute__((noinline)) pe_deliver(struct doca_pe *pe)
{
	struct doca_task *task, *next;
	struct doca_ctx *ctx;
	int n = 0;
	uint64_t now = 0;
	bool diag = sd_core_diag_on(); /* once per batch */

	/* Detach the batch: tasks completed by these callbacks (resubmitted and
	 * finished at once, or flushed by a stop) wait for the next call, so a
	 * callback that resubmits can never keep us here forever. */
	task = pe->cq_head;
	pe->cq_head = NULL;
	pe->cq_tail = NULL;

	if (__builtin_expect(diag, 0)) {
		for (; task != NULL; task = next, n++) {
			next = task->next;
			ctx = task->cls->ctx;
			pe_deliver_one_slow(pe, task, true, &now);
			ctx->inflight--;
		}
		return n;
	}
	for (; task != NULL; task = next, n++) {
		next = task->next;
		ctx = task->cls->ctx;
		/* submit flags, freed while submitted, run by a graph */
		if (__builtin_expect(task->unusual != 0, 0)) {
			pe_deliver_one_slow(pe, task, false, &now);
		} else {
			/* The callback owns the task: it may free or resubmit
			 * it. It still counts in flight until the callback
			 * returns. */
			task->state = SD_TASK_ALLOCATED;
			task->cls->ops->deliver(task);
		}
		ctx->inflight--;
	}
	return n;
}

/* Any context that would explain a silence: tasks in flight, a start in
 * progress, or a library that says it waits for something now. Asked, not
 * assumed from its having describe_wait: a context idle with nothing to say
 * (a server with no message queued) must restart the clock, or the first
 * task it submits after a long quiet is reported at once as stuck since
 * the quiet began. */
static bool pe_waits(const struct doca_pe *pe)
{
	const struct doca_ctx *ctx;
	char scratch[8];

	for (ctx = pe->ctxs; ctx != NULL; ctx = ctx->pe_next) {
		if (ctx->state == DOCA_CTX_STATE_IDLE)
			continue;
		if (ctx->inflight > 0 || ctx->state == DOCA_CTX_STATE_STARTING)
			return true;
		if (ctx->ops != NULL && ctx->ops->describe_wait != NULL &&
		    ctx->ops->describe_wait(ctx, 0, scratch, sizeof(scratch)))
			return true;
	}
	return false;
}

/* One warning per waiting context; returns how many were logged. */
static int pe_stall_warn(struct doca_pe *pe, uint64_t waited_ns)
{
	uint64_t ms = waited_ns / 1000000ull;
	struct doca_ctx *ctx;
	char what[384];
	int n = 0;

	for (ctx = pe->ctxs; ctx != NULL; ctx = ctx->pe_next) {
		if (ctx->state == DOCA_CTX_STATE_IDLE)
			continue;
		what[0] = '\0';
		if (ctx->ops != NULL && ctx->ops->describe_wait != NULL &&
		    ctx->ops->describe_wait(ctx, ms, what, sizeof(what)) && what[0] != '\0') {
			/* the library's own sentence */
		} else if (ctx->inflight > 0) {
			snprintf(what, sizeof(what),
				 "%" PRIu32 " %s tasks in flight on %s ctx %p for %.1f s, none completed: the "
				 "context's engine is not finishing them (a peer that stopped answering? an engine "
				 "blocked on memory?)",
				 ctx->inflight, ctx->name, ctx->name, (void *)ctx, (double)ms / 1000.0);
		} else if (ctx->state == DOCA_CTX_STATE_STARTING &&
			   (ctx->ops == NULL || ctx->ops->describe_wait == NULL)) {
			/* a library with describe_wait said it has nothing to add
			 * (a connecting Comch client warns by itself) */
			snprintf(what, sizeof(what),
				 "%s ctx %p still STARTING after %.1f s: the context waits for something outside "
				 "this process (its peer?)",
				 ctx->name, (void *)ctx, (double)ms / 1000.0);
		} else {
			continue;
		}
		SD_LOG_WARN("PE %p: %s (%s=%" PRIu64 " ms; repeated while it lasts, every 10 s or more)", (void *)pe,
			    what, PE_STALL_ENV, (uint64_t)(pe->stall_warn_ns / 1000000u));
		if (sd_trace_on)
			sd_trace_instant("pe", "stall", "\"ctx\":\"%s\",\"waited_ms\":%" PRIu64, ctx->name, ms);
		n++;
	}
	return n;
}

/* Called on idle progress calls (one in PE_STALL_CHECK_EVERY) and when the
 * program arms the notification handle. The stall clock starts at the first
 * check after activity and restarts while nothing is in flight, so an idle
 * program that submits later is timed from about its submission. */
static void __attribute__((noinline)) pe_stall_check(struct doca_pe *pe)
{
	uint64_t now = sd_now_ns();

	pe->idle_calls = 0;
	if (pe->stall_since == 0 || !pe_waits(pe)) {
		pe->stall_since = now;
		pe->stall_interval = 0;
		pe->stall_next_warn = 0;
		return;
	}
	if (now - pe->stall_since < pe->stall_warn_ns || now < pe->stall_next_warn)
		return;
	if (pe_stall_warn(pe, now - pe->stall_since) == 0)
		return;
	if (pe->stall_interval == 0)
		pe->stall_interval = PE_STALL_REPEAT_NS;
	else if (pe->stall_interval < PE_STALL_REPEAT_MAX_NS)
		pe->stall_interval *= 2;
	if (pe->stall_interval > PE_STALL_REPEAT_MAX_NS)
		pe->stall_interval = PE_STALL_REPEAT_MAX_NS;
	pe->stall_next_warn = now + pe->stall_interval;
}

/* A progress call that did something: its span, the DEBUG summary. */
static void __attribute__((noinline, cold)) pe_diag_progress(struct doca_pe *pe, uint64_t t0, int n, int delivered)
{
	uint64_t now;
	const struct doca_ctx *ctx;
	uint32_t nctx = 0;

	if (sd_trace_on)
		sd_trace_span("pe", "progress", t0, "\"events\":%d,\"completions\":%d", n, delivered);
	if (!sd_log_sdk_enabled(SD_LOG_DBG_LEVEL))
		return;
	now = sd_now_ns();
	if (pe->sum_start == 0)
		pe->sum_start = now;
	pe->sum_calls++;
	pe->sum_completions += (uint64_t)delivered;
	if (now - pe->sum_start < PE_SUMMARY_NS)
		return;
	for (ctx = pe->ctxs; ctx != NULL; ctx = ctx->pe_next)
		nctx++;
	SD_LOG_DBG("PE %p: %" PRIu64 " completions delivered by %" PRIu64 " busy progress calls in %.2f s, %" PRIu32
		   " contexts connected",
		   (void *)pe, pe->sum_completions, pe->sum_calls, (double)(now - pe->sum_start) / 1e9, nctx);
	pe->sum_start = now;
	pe->sum_calls = 0;
	pe->sum_completions = 0;
}

/* A failed task's context stops after its callback; a stopping one may
 * reach IDLE (and be destroyed by that callback: the walk allows it). The
 * flag stays set while a context needed settling, so the walk runs once more
 * after the last one is done (a context cannot be looked at after settle()). */
static int __attribute__((noinline)) pe_settle(struct doca_pe *pe)
{
	struct doca_ctx *ctx;
	bool again = false;
	int n = 0;

	pe->settle_pending = false;
	PE_FOREACH_CTX(pe, ctx) {
		if (ctx->fail_pending || ctx->state == DOCA_CTX_STATE_STOPPING) {
			again = true;
			n += ctx->core->settle(ctx);
		}
	}
	if (again)
		pe->settle_pending = true;
	return n;
}

/* One progress call, inlined twice: plain, and with the trace's span clock
 * (traced), so that the plain call carries nothing of tracing but the
 * check that chose it. pe_deliver and pe_settle stay out of line: a call
 * that finds nothing to do saves and restores only a couple of registers. */
static inline __attribute__((always_inline)) int pe_progress_body(struct doca_pe *pe, bool traced)
{
	struct doca_ctx *ctx;
	int n = 0, delivered = 0;
	uint64_t t0 = traced ? sd_now_ns() : 0;

	pe->in_progress = true;
	if (atomic_load_explicit(&pe->pending, memory_order_relaxed))
		atomic_store(&pe->pending, false);

	PE_FOREACH_CTX(pe, ctx) {
		if (ctx->state != DOCA_CTX_STATE_IDLE && ctx->ops != NULL && ctx->ops->progress != NULL)
			n += ctx->ops->progress(ctx);
	}

	if (pe->cq_head != NULL) {
		delivered = pe_deliver(pe);
		n += delivered;
	}

	if (__builtin_expect(pe->settle_pending, 0))
		n += pe_settle(pe);

	pe->iter_next = NULL;
	if (n > 0) {
		if (pe->stall_since != 0)
			pe->stall_since = 0;
		if (__builtin_expect(traced || sd_log_sdk_enabled(SD_LOG_DBG_LEVEL), 0))
			pe_diag_progress(pe, t0, n, delivered);
	} else if (pe->stall_warn_ns != 0 && ++pe->idle_calls >= PE_STALL_CHECK_EVERY) {
		pe_stall_check(pe);
	}
	pe->in_progress = false;
	if (__builtin_expect(pe->destroy_deferred, 0) && pe->ctxs == NULL)
		pe_free(pe);
	return n;
}

static int __attribute__((noinline, cold)) pe_progress_traced(struct doca_pe *pe)
{
	return pe_progress_body(pe, true);
}

uint8_t doca_pe_progress(struct doca_pe *pe)
{
	if (pe == NULL) {
		SD_LOG_ERR("Failed to progress: pe is NULL");
		return 0;
	}
	/* From one of our callbacks (DOCA forbids it): nothing to do there. */
	if (pe->in_progress)
		return 0;
	if (__builtin_expect(sd_trace_on, 0))
		return pe_progress_traced(pe) > 0 ? 1 : 0;
	return pe_progress_body(pe, false) > 0 ? 1 : 0;
}

void sd_task_complete(struct doca_task *task, doca_error_t status)
{
	if (task == NULL)
		return;
	if (task->state != SD_TASK_SUBMITTED) {
		SD_LOG_ERR("Completing a %s task that is not submitted (state %u)", task->cls->name, task->state);
		return;
	}
	sd_task_complete_inline(task, status); /* the one place that queues */
}

void sd_task_fail(struct doca_task *task, doca_error_t status)
{
	struct doca_ctx *ctx;

	if (task == NULL)
		return;
	if (task->state != SD_TASK_SUBMITTED) {
		SD_LOG_ERR("Failing a %s task that is not submitted (state %u)", task->cls->name, task->state);
		return;
	}
	sd_task_complete(task, status == DOCA_SUCCESS ? DOCA_ERROR_UNEXPECTED : status);
	ctx = task->cls->ctx;
	ctx->fail_pending = true;
	ctx->pe->settle_pending = true;
	if (ctx->pe->fail_ctx == NULL) {
		ctx->pe->fail_ctx = ctx;
		ctx->pe->fail_status = task->status;
	}
	SD_LOG_DBG("%s ctx %p: %s task %p failed (%s): the context stops after its callback", ctx->name,
		   (void *)ctx, task->cls->name, (void *)task, doca_error_get_name(task->status));
}

doca_error_t doca_pe_get_notification_handle(const struct doca_pe *pe, doca_notification_handle_t *handle)
{
	if (pe == NULL || handle == NULL) {
		SD_LOG_ERR("Failed to get notification handle: %s is NULL", pe == NULL ? "pe" : "handle");
		return DOCA_ERROR_INVALID_VALUE;
	}
	*handle = pe->epfd;
	return DOCA_SUCCESS;
}

static void pe_kick(struct doca_pe *pe)
{
	uint64_t one = 1;
	ssize_t r;

	do {
		r = write(pe->efd, &one, sizeof(one));
	} while (r < 0 && errno == EINTR);
}

static bool pe_has_work(struct doca_pe *pe)
{
	struct doca_ctx *ctx;

	if (pe->cq_head != NULL)
		return true;
	for (ctx = pe->ctxs; ctx != NULL; ctx = ctx->pe_next)
		if (ctx->core->ready(ctx))
			return true;
	return false;
}

/* Empty the eventfd; false only if read failed for another reason than
 * "nothing left". */
static bool pe_drain(struct doca_pe *pe)
{
	uint64_t v;

	for (;;) {
		if (read(pe->efd, &v, sizeof(v)) > 0)
			continue;
		if (errno == EINTR)
			continue;
		return errno == EAGAIN || errno == EWOULDBLOCK;
	}
}

doca_error_t doca_pe_request_notification(struct doca_pe *pe)
{
	if (pe == NULL) {
		SD_LOG_ERR("Failed to request notification: pe is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* As DOCA on Linux: arming clears what the previous wait left. */
	if (!pe_drain(pe)) {
		SD_LOG_ERR("Failed to request notification: reading the event fd failed: %s", strerror(errno));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	/* Arm before looking at pending: a concurrent sd_pe_wake either sees
	 * armed and kicks, or set pending before we read it (both seq_cst).
	 * Work that needs no wait (tasks submitted and not yet executed, a
	 * transition to make) kicks at once: on the card the engine would
	 * complete it without anybody polling. */
	if (pe->stall_warn_ns != 0)
		pe_stall_check(pe);
	atomic_store(&pe->armed, true);
	if (atomic_load(&pe->pending) || pe_has_work(pe)) {
		atomic_store(&pe->armed, false);
		pe_kick(pe);
	}
	return DOCA_SUCCESS;
}

/* The handle is not used on Linux (DOCA documents it so; programs pass 0). */
doca_error_t doca_pe_clear_notification(struct doca_pe *pe, doca_notification_handle_t handle)
{
	(void)handle;
	if (pe == NULL) {
		SD_LOG_ERR("Failed to clear notification: pe is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	atomic_store(&pe->armed, false);
	if (!pe_drain(pe)) {
		SD_LOG_ERR("Failed to clear notification: reading the event fd failed: %s", strerror(errno));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	return DOCA_SUCCESS;
}

void sd_pe_wake(struct doca_pe *pe)
{
	if (pe == NULL)
		return;
	atomic_store(&pe->pending, true);
	if (atomic_load(&pe->armed) && atomic_exchange(&pe->armed, false))
		pe_kick(pe);
}

doca_error_t sd_pe_watch_fd(struct doca_pe *pe, int fd)
{
	struct epoll_event ev = {.events = EPOLLIN};

	if (pe == NULL || fd < 0)
		return DOCA_ERROR_INVALID_VALUE;
	ev.data.fd = fd;
	if (epoll_ctl(pe->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		if (errno == EEXIST)
			return DOCA_ERROR_ALREADY_EXIST;
		SD_LOG_ERR("Failed to watch fd %d: %s", fd, strerror(errno));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	return DOCA_SUCCESS;
}

void sd_pe_unwatch_fd(struct doca_pe *pe, int fd)
{
	if (pe == NULL || fd < 0)
		return;
	epoll_ctl(pe->epfd, EPOLL_CTL_DEL, fd, NULL);
}
