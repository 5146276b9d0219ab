/*
 * core_priv.h - what pe.c, ctx.c, task.c and prof.c share (not for other
 * modules; they use src/internal/sd_ctx.h).
 *
 * Who calls whom (one direction only, no circle):
 *
 *     ctx.c ----> pe.c    (sd_pe_unlink_ctx)
 *       |  \----> task.c  (sd_task_pools_alloc/free)
 *       \-------> prof.c  (range profiling records)
 *     task.c ---> pe.c    (sd_pe_wake on submit while armed)
 *     pe.c -----> prof.c
 *
 * The PE and the task pool report to a context through the narrow
 * interface below, never by calling ctx.c:
 *   - counters in struct doca_ctx: the task pool keeps ctx->allocated and
 *     ctx->inflight (submit, refused submit, free), the PE decrements
 *     ctx->inflight when a callback returns, sd_task_fail sets
 *     ctx->fail_pending;
 *   - struct sd_ctx_core_ops, which ctx.c gives every context at
 *     sd_ctx_init: the PE calls settle() after each delivery round and
 *     ready() when the program arms the notification handle. All state
 *     transitions happen inside ctx.c.
 *
 * Invariants:
 * - A context is on exactly one PE list once connected; it leaves only in
 *   sd_ctx_fini. Anything walking the list goes through pe->iter_next so a
 *   callback that destroys a context mid-walk is safe.
 * - A task is in flight (ctx->inflight) from a successful submit until its
 *   completion callback has returned; a context cannot reach IDLE, and so
 *   cannot be destroyed, while one of its tasks sits in a PE queue or is
 *   still allocated (ctx->allocated).
 */
#ifndef SD_CORE_PRIV_H_
#define SD_CORE_PRIV_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "sd_ctx.h"
#include "sd_log.h"

/* ctx.c's side of the PE <-> context interface. */
struct sd_ctx_core_ops {
	/* After a delivery round: apply a pending failure (RUNNING ->
	 * STOPPING) and finish a stop (STOPPING -> IDLE). Returns 1 if the
	 * state changed. The context may be destroyed by the IDLE callback:
	 * the caller must not touch it afterwards. */
	int (*settle)(struct doca_ctx *ctx);
	/* Whether the next doca_pe_progress has something to do for this
	 * context right now (a transition to make, work the library holds). */
	bool (*ready)(const struct doca_ctx *ctx);
};

struct sd_prof;

struct doca_pe {
	/* First, laid out as struct sd_pe_head (sd_ctx.h), which
	 * sd_task_complete_inline appends to from the libraries. */
	union {
		struct sd_pe_head head;
		struct {
			struct doca_task *cq_head; /* completed tasks awaiting their callback */
			struct doca_task *cq_tail;
		};
	};
	struct doca_ctx *ctxs;                 /* connected contexts, in connect order */
	struct doca_ctx *iter_next;            /* next context of the walk in progress */
	struct doca_ctx *starting;             /* context inside its ops->start */
	struct sd_prof *profs;
	bool in_progress;                      /* inside doca_pe_progress */
	/* Some context may have a transition to make (a task failure to
	 * apply, a stop to finish): set when one gets fail_pending or enters
	 * STOPPING, kept while one stays so; doca_pe_progress walks the
	 * contexts for settle() only while it is set. */
	bool settle_pending;
	/* Stuck-program warning (pe.c): counted on progress calls that did
	 * nothing, the clock read only every PE_STALL_CHECK_EVERY of them. */
	uint32_t idle_calls;
	uint64_t stall_warn_ns;                /* SOFTDOCA_STALL_WARN_MS; 0: off */
	uint64_t stall_since;                  /* 0: something happened since the last check */
	uint64_t stall_next_warn;              /* no new warning before this */
	uint64_t stall_interval;               /* between repeated warnings: 10 s doubling to 60 s */
	/* DEBUG progress summary (pe.c), once per second of activity */
	uint64_t sum_start;
	uint64_t sum_calls;
	uint64_t sum_completions;
	/* The first task failure not yet applied (ctx.c names it in the
	 * RUNNING -> STOPPING reason). */
	struct doca_ctx *fail_ctx;
	doca_error_t fail_status;
	bool destroy_deferred;                 /* doca_pe_destroy called from a callback */
	enum doca_pe_event_mode event_mode;
	int epfd;                              /* the notification handle */
	int efd;                               /* eventfd inside epfd, written by sd_pe_wake */
	/* Written by engine threads (sd_pe_wake): kept off the PE thread's line. */
	_Alignas(64) _Atomic bool armed;       /* doca_pe_request_notification pending */
	_Atomic bool pending;                  /* sd_pe_wake since the last progress */
};

/* An armed PE whose thread just handed over work wakes its waiter (the
 * load is relaxed: only the PE thread sets armed, and a stale true costs
 * one spurious wake-up). */
static inline void sd_pe_note_work(struct doca_pe *pe)
{
	if (atomic_load_explicit(&pe->armed, memory_order_relaxed))
		sd_pe_wake(pe);
}

/* Return a task to its pool (the task pool's one primitive, shared by
 * doca_task_free and the PE for a task freed while the context held it). */
static inline void sd_task_pool_put(struct doca_task *task)
{
	struct sd_task_class *cls = task->cls;

	task->state = SD_TASK_FREE;
	task->freed = 0;
	task->next = cls->free_list;
	cls->free_list = task;
	cls->allocated--;
	cls->ctx->allocated--;
}

/* A submission by sd_task_submit_owned, kept in task->submit_flags next to
 * the program's flags, so that the delivery tells the usual task from every
 * unusual one by one test of task->unusual. */
#define SD_TASK_SUBMIT_OWNED 0x80u
_Static_assert(((DOCA_TASK_SUBMIT_FLAG_FLUSH | DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS |
		 DOCA_TASK_SUBMIT_FLAG_RANGE_PROFILING_REQUESTED) & SD_TASK_SUBMIT_OWNED) == 0,
	       "SD_TASK_SUBMIT_OWNED must not be a DOCA submit flag");

/* task.c */
doca_error_t sd_task_pools_alloc(struct doca_ctx *ctx);
void sd_task_pools_free(struct doca_ctx *ctx);
/* doca_task_submit for a core object (graph.c) that wants the completion
 * itself: owner->done replaces the task type's callbacks for this one
 * submission. Nothing is kept if the submission is refused. */
doca_error_t sd_task_submit_owned(struct doca_task *task, struct sd_task_owner *owner);

/* pe.c */
void sd_pe_unlink_ctx(struct doca_pe *pe, struct doca_ctx *ctx);

/* trace.c (sd_trace.h): the core reads the flag itself, one load and a
 * branch per hook; it is set once, by the library's constructor. */
extern bool sd_trace_on __attribute__((visibility("hidden")));
/* the pid in bits 48..63: task ids differ between the two sides */
extern uint64_t sd_trace_id_tag __attribute__((visibility("hidden")));
void sd_trace_report_setup(void); /* a trace file that could not be opened: logged once */

/* A task's async-span id: its address (unique among tasks in flight; the
 * next submission of the same task reuses it after the end event). */
static inline uint64_t sd_task_trace_id(const struct doca_task *task)
{
	return (uint64_t)(uintptr_t)task ^ sd_trace_id_tag;
}

static inline const char *sd_ctx_state_name(enum doca_ctx_states state)
{
	switch (state) {
	case DOCA_CTX_STATE_IDLE:
		return "IDLE";
	case DOCA_CTX_STATE_STARTING:
		return "STARTING";
	case DOCA_CTX_STATE_RUNNING:
		return "RUNNING";
	case DOCA_CTX_STATE_STOPPING:
		return "STOPPING";
	default:
		return "UNKNOWN";
	}
}

/* Per-event diagnostics (TRACE log, SOFTDOCA_TRACE) cost one test when both
 * are off. */
#define SD_CORE_DIAG_LEVEL 70
#define sd_core_diag_on() __builtin_expect(sd_trace_on || sd_log_sdk_enabled(SD_CORE_DIAG_LEVEL), 0)

/* prof.c: range-profiling records of the contexts of a PE. */
doca_error_t sd_prof_attach(struct doca_ctx *ctx);  /* at start: (re)create ctx's record set */
void sd_prof_discard(struct doca_ctx *ctx);         /* drop ctx's records (failed start, fini) */
void sd_prof_report(struct doca_ctx *ctx);          /* at IDLE: print and drop them */
void sd_prof_record(struct doca_pe *pe, struct doca_task *task, uint64_t now);
void sd_prof_free_all(struct doca_pe *pe);

#endif /* SD_CORE_PRIV_H_ */
