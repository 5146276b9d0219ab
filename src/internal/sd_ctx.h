/*
 * sd_ctx.h - the context/task/progress-engine core that every library
 * (DMA, Comch server/client/producer/consumer, sync event, mmap advise,
 * graph) builds on.
 *
 * The state machine lives here once:
 *
 *     IDLE --doca_ctx_start--> STARTING --sd_ctx_set_running--> RUNNING
 *     RUNNING --doca_ctx_stop, sd_ctx_fail, or a task finished with
 *           sd_task_fail--> STOPPING
 *     STOPPING --(no task in flight, every task allocated from the context
 *           freed, and the library called sd_ctx_stop_done)--> IDLE
 *
 * doca_ctx_stop answers SUCCESS when the context reached IDLE (or already
 * was IDLE), IN_PROGRESS when it stays STOPPING; the IDLE transition then
 * happens in a later doca_pe_progress, through the state-changed callback.
 *
 * A library embeds struct doca_ctx first in its own object (to_xxx() casts
 * back) and fills a struct sd_ctx_ops. Tasks embed struct doca_task first;
 * each task type is a struct sd_task_class, whose pool is fixed by the
 * library's *_set_conf(num_tasks) before start.
 *
 * Ownership: doca_task_submit hands a task to the context (state SUBMITTED,
 * counted in flight); the library finishes it with sd_task_complete() (or
 * sd_task_fail()), which only queues it; the completion callback runs later,
 * from doca_pe_progress on the thread that calls it. The task stays "in
 * flight" until its callback returns, so a callback that calls doca_ctx_stop
 * sees STOPPING, as on hardware. A program may give up a task the context
 * holds (doca_task_free of a submitted task, as NVIDIA's secure_channel does
 * with its posted receive tasks before stopping): the task is marked, and
 * when it completes (or is flushed) it goes back to its pool without a
 * callback; the context reaches IDLE once that happened.
 *
 * Submission: doca_task_submit does not validate the task beyond what the
 * library needs to hold it (DOCA: "DOES NOT validate"): a task with bad
 * parameters is accepted and fails when it executes. doca_task_try_submit
 * first runs the class's validate op and refuses an invalid task with
 * INVALID_VALUE, nothing taken.
 *
 * Execution: libraries execute tasks asynchronously to the submitter, from
 * their progress hook or an engine thread, and a progress call handles a
 * bounded number of them, so a stop in the middle finds tasks to flush.
 * A program sleeping on the PE's notification handle is woken when there is
 * work (a task submitted while armed, a library's has_work, sd_pe_wake).
 *
 * Threading: a PE and the contexts connected to it are used from one thread
 * at a time. Library engine threads must not call into this core except
 * sd_pe_wake(), which is thread-safe (and async-signal-safe).
 *
 * Implemented in src/core/ (pe.c, ctx.c, task.c; core_priv.h draws how they
 * talk to each other).
 */
#ifndef SD_CTX_H_
#define SD_CTX_H_

#include "sd_abi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_ctx.h>
#include <doca_error.h>
#include <doca_pe.h>
#include <doca_types.h>

struct sd_task_class;
struct sd_task_owner;

struct doca_task {
	struct sd_task_class *cls;
	union doca_data user_data;
	doca_error_t status;
	uint8_t state;           /* enum sd_task_state */
	union {
		struct {
			uint8_t submit_flags; /* doca_task_submit_flag bits given at submit (and the core's own) */
			uint8_t freed;        /* doca_task_free while the context held it: back to the pool on completion */
		};
		uint16_t unusual;        /* both at once: nonzero sends the delivery the slow way (src/core/pe.c) */
	};
	struct doca_task *next;  /* free list / completion queue link */
	uint64_t submit_ns;      /* CLOCK_MONOTONIC at submit, for range profiling */
	struct sd_task_owner *owner; /* see below; NULL for a task the user submitted */
};

/* A core object (a graph instance) that submitted a task on the user's
 * behalf and takes its completion instead of the task type's callbacks, as
 * DOCA documents for tasks run by a graph. The core sets it for one
 * submission only (src/core/core_priv.h, sd_task_submit_owned) and clears it
 * just before calling done() from doca_pe_progress; libraries never see it:
 * they complete the task with sd_task_complete() as usual. */
struct sd_task_owner {
	void (*done)(struct sd_task_owner *owner, struct doca_task *task);
};

enum sd_task_state {
	SD_TASK_FREE = 0,    /* in its pool */
	SD_TASK_ALLOCATED,   /* with the user */
	SD_TASK_SUBMITTED,   /* with the context/engine */
	SD_TASK_COMPLETING,  /* queued for its callback / inside its callback */
};

struct sd_task_class_ops {
	/* Validate the task and hand it to the engine. DOCA_SUCCESS: the
	 * context owns it now. DOCA_ERROR_AGAIN: back-pressure, nothing taken.
	 * Any other error: refused, nothing taken. */
	doca_error_t (*submit)(struct doca_task *task);
	/* Call the user's success or error callback (per task->status) with the
	 * concrete task type. Called by the core from doca_pe_progress. */
	void (*deliver)(struct doca_task *task);
	/* Optional: the checks doca_task_try_submit makes before submit
	 * (DOCA_SUCCESS or INVALID_VALUE, logged). NULL: nothing beyond submit's. */
	doca_error_t (*validate)(struct doca_task *task);
};

/* A pool of tasks of one type, owned by one context. */
struct sd_task_class {
	struct doca_ctx *ctx;
	const struct sd_task_class_ops *ops;
	const char *name;
	size_t task_size;        /* sizeof the library's task, doca_task first */
	uint32_t capacity;       /* num_tasks given to set_conf */
	uint32_t allocated;      /* tasks not in the pool */
	void *pool;              /* capacity * task_size bytes, allocated at start */
	struct doca_task *free_list;
	bool configured;
};

struct sd_ctx_ops {
	/* Check the configuration and begin starting. DOCA_SUCCESS: the context
	 * is RUNNING when doca_ctx_start returns. DOCA_ERROR_IN_PROGRESS: it
	 * stays STARTING and the library calls sd_ctx_set_running() from its
	 * progress hook later. Any other error: the context stays IDLE. */
	doca_error_t (*start)(struct doca_ctx *ctx);
	/* Begin stopping: the library must finish (sd_task_complete with a
	 * flush status) every task it holds, now or from later progress, and
	 * call sd_ctx_stop_done() once its own teardown is over. */
	void (*stop)(struct doca_ctx *ctx);
	/* Poll the engine; return how many things happened (0 if nothing). */
	int (*progress)(struct doca_ctx *ctx);
	/* Optional: true when the next progress would do something without
	 * waiting for anything (submitted tasks not yet executed). Read by
	 * doca_pe_request_notification so that an armed PE with such work
	 * wakes its waiter at once. Not for work that arrives through a
	 * watched fd or sd_pe_wake. */
	bool (*has_work)(const struct doca_ctx *ctx);
	/* Optional: for the stuck-program warning (SOFTDOCA_STALL_WARN_MS).
	 * Called from doca_pe_progress when nothing has completed on the PE
	 * for the warning period while this context is running or starting.
	 * Returns true and writes one sentence into buf (what it waits for,
	 * for how long, and the usual cause: "client waiting for server
	 * 'secure_channel' on 3b:00.0 for 3 s: is the Arm side started?")
	 * when it is waiting for something; false when it waits for nothing
	 * (the core then only reports tasks in flight, if any). Also called
	 * from doca_pe_request_notification; only when a warning is due (once
	 * after the period, then every 10 s doubling to 60 s while the silence
	 * lasts), never on a progress call that delivered something. Having
	 * the op keeps the PE's stall clock running while the context is not
	 * IDLE, even with no task in flight. */
	bool (*describe_wait)(const struct doca_ctx *ctx, uint64_t waited_ms, char *buf, size_t cap);
};

#define SD_CTX_MAX_TASK_CLASSES 6

struct sd_ctx_core_ops;

struct doca_ctx {
	const struct sd_ctx_ops *ops;
	const char *name;                 /* "DMA", "comch_server", ... for logs */
	enum doca_ctx_states state;
	struct doca_pe *pe;
	union doca_data user_data;
	doca_ctx_state_changed_callback_t state_changed_cb;
	struct sd_task_class *classes[SD_CTX_MAX_TASK_CLASSES];
	uint32_t num_classes;
	/* Accounting, written by the task pool and the PE (core_priv.h) */
	uint32_t inflight;                /* submitted, callback not yet returned */
	uint32_t allocated;               /* tasks of every class not in their pool */
	bool fail_pending;                /* a task ended with sd_task_fail: stop after its callback */
	bool stop_done;                   /* library finished its stop work */
	const struct sd_ctx_core_ops *core; /* ctx.c's side of the PE interface */
	uint32_t profiler_max_nranges;    /* 0: range profiling off */
	struct doca_ctx *pe_next;         /* PE's list of connected contexts */
};

/* Library side: lifecycle of the embedded ctx. */
void sd_ctx_init(struct doca_ctx *ctx, const struct sd_ctx_ops *ops, const char *name);
/* Before freeing the library object: BAD_STATE unless IDLE; disconnects it
 * from its PE and frees the task pools. */
doca_error_t sd_ctx_fini(struct doca_ctx *ctx);
/* BAD_STATE unless IDLE: the guard for every configuration call. */
doca_error_t sd_ctx_check_idle(const struct doca_ctx *ctx);

/* Library side: state transitions it drives (from its start/progress hooks).
 * Each invokes the user's state-changed callback. */
void sd_ctx_set_running(struct doca_ctx *ctx);
void sd_ctx_stop_done(struct doca_ctx *ctx);
/* The engine failed on its own (peer died...): move to STOPPING as if
 * doca_ctx_stop had been called; tasks are flushed the same way. */
void sd_ctx_fail(struct doca_ctx *ctx);

/* Task classes: register at create time, configure from set_conf (IDLE only). */
void sd_task_class_init(struct sd_task_class *cls, struct doca_ctx *ctx, const struct sd_task_class_ops *ops,
			const char *name, size_t task_size);
doca_error_t sd_task_class_conf(struct sd_task_class *cls, uint32_t num_tasks);

/* Allocation: BAD_STATE unless RUNNING, NO_MEMORY when the pool is empty. */
doca_error_t sd_task_alloc(struct sd_task_class *cls, struct doca_task **task);

/* A task off a pool that is not empty, reset for the user: sd_task_alloc's
 * work once its checks passed. */
static inline struct doca_task *sd_task_pool_take(struct sd_task_class *cls)
{
	struct doca_task *t = cls->free_list;

	cls->free_list = t->next;
	cls->allocated++;
	cls->ctx->allocated++;
	t->next = NULL;
	t->state = SD_TASK_ALLOCATED;
	t->status = DOCA_SUCCESS;
	t->unusual = 0;
	t->user_data.u64 = 0;
	t->owner = NULL;
	return t;
}

/* sd_task_alloc, inline, for a library's *_alloc_init that a program calls
 * once per message: the same checks and result without a call across
 * libraries. Anything but a task handed out (a bad argument, a context not
 * RUNNING, an empty pool) takes the out-of-line way, which logs it. */
static inline doca_error_t sd_task_alloc_inline(struct sd_task_class *cls, struct doca_task **task)
{
	if (__builtin_expect(cls == NULL || task == NULL || cls->ctx == NULL ||
			     cls->ctx->state != DOCA_CTX_STATE_RUNNING || cls->free_list == NULL, 0))
		return sd_task_alloc(cls, task);
	*task = sd_task_pool_take(cls);
	return DOCA_SUCCESS;
}

/* Finish a submitted task: it is queued and its callback runs from the next
 * doca_pe_progress. Must be called on the PE's thread (from the library's
 * submit/progress/stop hooks). */
void sd_task_complete(struct doca_task *task, doca_error_t status);
/* Finish a task whose execution failed in a way that breaks the context
 * (DOCA: the context moves to STOPPING and the remaining tasks are
 * flushed): as sd_task_complete, then, once the task's error callback has
 * run in that doca_pe_progress, the context goes to STOPPING as if
 * doca_ctx_stop had been called. The library should stop executing further
 * tasks; its stop hook flushes them. */
void sd_task_fail(struct doca_task *task, doca_error_t status);

/* The head of struct doca_pe (src/core/core_priv.h): the completion queue
 * sd_task_complete appends to, laid out here for sd_task_complete_inline. */
struct sd_pe_head {
	struct doca_task *cq_head; /* completed tasks awaiting their callback */
	struct doca_task *cq_tail;
};

/* sd_task_complete, inline, for a data path that finishes many tasks per
 * progress call: the same queueing without a call across libraries. A task
 * that is not submitted takes the out-of-line way, which logs it. */
static inline void sd_task_complete_inline(struct doca_task *task, doca_error_t status)
{
	struct sd_pe_head *pe;

	if (__builtin_expect(task->state != SD_TASK_SUBMITTED, 0)) {
		sd_task_complete(task, status);
		return;
	}
	pe = (struct sd_pe_head *)(void *)task->cls->ctx->pe;
	task->status = status;
	task->state = SD_TASK_COMPLETING;
	task->next = NULL;
	if (pe->cq_tail != NULL)
		pe->cq_tail->next = task;
	else
		pe->cq_head = task;
	pe->cq_tail = task;
}

/* Status of tasks flushed by a stop. */
#define SD_TASK_FLUSHED_STATUS DOCA_ERROR_IO_FAILED

/* Progress engine: let a thread other than the PE's say "work is pending"
 * (wakes a waiter on the notification handle). Safe from any thread. */
void sd_pe_wake(struct doca_pe *pe);
/* Add/remove an fd whose readability means "this PE has work" (sockets of
 * the fabric); it becomes part of the notification handle. */
doca_error_t sd_pe_watch_fd(struct doca_pe *pe, int fd);
void sd_pe_unwatch_fd(struct doca_pe *pe, int fd);

uint64_t sd_now_ns(void); /* CLOCK_MONOTONIC */

#endif /* SD_CTX_H_ */
