/*
 * core_priv.h - what pe.c, ctx.c and task.c share (not for other modules;
 * they use src/internal/sd_ctx.h).
 *
 * Invariants:
 * - A context is on exactly one PE list once connected; it leaves only in
 *   sd_ctx_fini. Anything walking the list goes through pe->iter_next so a
 *   callback that destroys a context mid-walk is safe.
 * - A task is in flight (ctx->inflight) from a successful submit until its
 *   completion callback has returned; a context cannot reach IDLE, and so
 *   cannot be destroyed, while one of its tasks sits in a PE queue.
 */
#ifndef SD_CORE_PRIV_H_
#define SD_CORE_PRIV_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "sd_ctx.h"

struct sd_prof_range {
	const char *name;
	uint64_t submit_ns;
	uint64_t complete_ns;
};

/* Range-profiling records of one context, kept by its PE while it runs. */
struct sd_prof {
	struct doca_ctx *ctx;
	struct sd_prof *next;
	uint32_t max;
	uint32_t count;
	uint64_t dropped;
	struct sd_prof_range ranges[];
};

struct doca_pe {
	struct doca_ctx *ctxs;                 /* connected contexts, in connect order */
	struct doca_ctx *iter_next;            /* next context of the walk in progress */
	struct doca_task *cq_head;             /* completed tasks awaiting their callback */
	struct doca_task *cq_tail;
	struct doca_ctx *starting;             /* context inside its ops->start */
	struct sd_prof *profs;
	bool in_progress;                      /* inside doca_pe_progress */
	bool destroy_deferred;                 /* doca_pe_destroy called from a callback */
	enum doca_pe_event_mode event_mode;
	int epfd;                              /* the notification handle */
	int efd;                               /* eventfd inside epfd, written by sd_pe_wake */
	/* Written by engine threads (sd_pe_wake): kept off the PE thread's line. */
	_Alignas(64) _Atomic bool armed;       /* doca_pe_request_notification pending */
	_Atomic bool pending;                  /* sd_pe_wake since the last progress */
};

/* ctx.c */
bool sd_ctx_try_finish_stop(struct doca_ctx *ctx);
void sd_ctx_notify(struct doca_ctx *ctx, enum doca_ctx_states prev);
void sd_prof_record(struct doca_pe *pe, struct doca_task *task, uint64_t now);

/* task.c */
doca_error_t sd_task_pools_alloc(struct doca_ctx *ctx);
void sd_task_pools_free(struct doca_ctx *ctx);
/* doca_task_submit for a core object (graph.c) that wants the completion
 * itself: owner->done replaces the task type's callbacks for this one
 * submission. Nothing is kept if the submission is refused. */
doca_error_t sd_task_submit_owned(struct doca_task *task, struct sd_task_owner *owner);

/* pe.c */
void sd_pe_unlink_ctx(struct doca_pe *pe, struct doca_ctx *ctx);

#endif /* SD_CORE_PRIV_H_ */
