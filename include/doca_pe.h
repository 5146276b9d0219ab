/*
 * doca_pe.h - DOCA progress engine and tasks.
 *
 * Model: a progress engine (PE) drives the contexts connected to it. Work is
 * expressed as tasks: a task is allocated from a context's pool (through the
 * library, e.g. doca_dma_task_memcpy_alloc_init), submitted with
 * doca_task_submit, and completes by a callback - the success or the error
 * callback given to the library's *_set_conf - that runs from
 * doca_pe_progress on the calling thread. In the callback the task is the
 * user's again: it may be freed (doca_task_free), submitted again, or
 * inspected with doca_task_get_status.
 *
 * Call order:
 *     doca_pe_create -> doca_pe_connect_ctx (ctx IDLE) -> doca_ctx_start
 *     -> loop { doca_pe_progress } -> doca_ctx_stop -> progress until IDLE
 *     -> destroy the contexts -> doca_pe_destroy
 *
 * Waiting instead of polling: doca_pe_get_notification_handle gives a file
 * descriptor usable with epoll/poll/select. Arm it with
 * doca_pe_request_notification, wait for it to become readable, call
 * doca_pe_clear_notification, then doca_pe_progress until it returns 0,
 * and arm again. If work is already pending when it is armed (tasks
 * submitted and not yet completed, completions, a state change to make),
 * the handle is readable at once, and submitting a task to an armed PE makes
 * it readable: no wake-up is lost and a program that never polls but sleeps
 * on the handle sees its tasks complete. Arming also clears what the
 * previous wait left (Linux, DOCA_PE_EVENT_MODE_PROGRESS_ALL).
 *
 * Threading: a PE and its contexts are used from one thread at a time; the
 * callbacks run on that thread. doca_pe_progress must not be called from a
 * callback it is running: such a nested call does nothing and returns 0.
 */
#ifndef DOCA_PE_H_
#define DOCA_PE_H_

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <doca_compat.h>
#include <doca_ctx.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_pe;
struct doca_task;
struct doca_task_batch;
struct doca_ctx;

/* How many tasks a task batch can carry (chosen when the batch is allocated). */
enum doca_task_batch_max_tasks_number {
	DOCA_TASK_BATCH_MAX_TASKS_NUMBER_16,
	DOCA_TASK_BATCH_MAX_TASKS_NUMBER_32,
	DOCA_TASK_BATCH_MAX_TASKS_NUMBER_64,
	DOCA_TASK_BATCH_MAX_TASKS_NUMBER_128,
};

/* How many events an event batch can carry. */
enum doca_event_batch_events_number {
	DOCA_EVENT_BATCH_EVENTS_NUMBER_1,
	DOCA_EVENT_BATCH_EVENTS_NUMBER_2,
	DOCA_EVENT_BATCH_EVENTS_NUMBER_4,
	DOCA_EVENT_BATCH_EVENTS_NUMBER_8,
	DOCA_EVENT_BATCH_EVENTS_NUMBER_16,
	DOCA_EVENT_BATCH_EVENTS_NUMBER_32,
	DOCA_EVENT_BATCH_EVENTS_NUMBER_64,
	DOCA_EVENT_BATCH_EVENTS_NUMBER_128,
};

/* Called on task completion (the success or the error callback of a task type). */
typedef void (*doca_task_completion_cb_t)(struct doca_task *task, union doca_data task_user_data,
					  union doca_data ctx_user_data);

/* Flags for doca_task_submit_ex. */
enum doca_task_submit_flag {
	DOCA_TASK_SUBMIT_FLAG_NONE = 0U,
	/* Ring the doorbell now (softdoca always does; accepted). */
	DOCA_TASK_SUBMIT_FLAG_FLUSH = (1U << 0),
	/* The report may be deferred (softdoca reports every task; accepted). */
	DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS = (1U << 1),
	/* Record this task's submit->complete range when the context has
	 * doca_ctx_profiler_set_max_nranges > 0 (see doca_ctx.h). */
	DOCA_TASK_SUBMIT_FLAG_RANGE_PROFILING_REQUESTED = (1U << 2),
};

/* Which contexts doca_pe_progress polls after a notification. softdoca
 * always progresses every connected context; both modes are accepted. */
enum doca_pe_event_mode {
	DOCA_PE_EVENT_MODE_PROGRESS_SELECTIVE,
	DOCA_PE_EVENT_MODE_PROGRESS_ALL,
};

DOCA_STABLE doca_error_t doca_pe_create(struct doca_pe **pe);

/* DOCA_ERROR_IN_USE while contexts are connected (destroy them first).
 * Called from a callback of this PE, the PE is freed when doca_pe_progress
 * returns. */
DOCA_STABLE doca_error_t doca_pe_destroy(struct doca_pe *pe);

/*
 * Poll every connected context, run the callbacks of completed tasks (in
 * completion order) and finish pending state changes. Each call executes a
 * bounded number of the submitted tasks (the rest wait for the next call,
 * and a stop in between flushes them) and runs the callbacks of the tasks
 * completed when it started; tasks that complete from within those
 * callbacks (resubmitted, flushed) are reported by the next call. Returns 1 if anything happened (a callback ran, a state
 * changed), 0 otherwise (and for a NULL pe or a nested call from a callback).
 */
DOCA_STABLE uint8_t doca_pe_progress(struct doca_pe *pe);

/* The fd to wait on (epoll/poll/select); owned by the PE, do not close it. */
DOCA_STABLE doca_error_t doca_pe_get_notification_handle(const struct doca_pe *pe, doca_notification_handle_t *handle);

/* Arm the handle: it becomes readable when there is work for doca_pe_progress
 * (at once if there already is). */
DOCA_STABLE doca_error_t doca_pe_request_notification(struct doca_pe *pe);

/* Reset the handle after a wake-up: disarm it and drain it. The handle
 * argument is not used on Linux (any value, e.g. 0, is accepted).
 * DOCA_ERROR_OPERATING_SYSTEM if draining it failed. */
DOCA_STABLE doca_error_t doca_pe_clear_notification(struct doca_pe *pe, doca_notification_handle_t handle);

DOCA_EXPERIMENTAL doca_error_t doca_pe_set_event_mode(struct doca_pe *pe, enum doca_pe_event_mode mode);

/* Sum over the connected contexts of doca_ctx_get_num_inflight_tasks. */
DOCA_STABLE doca_error_t doca_pe_get_num_inflight_tasks(const struct doca_pe *pe, size_t *num_inflight_tasks);

/*
 * Connect an IDLE context to this PE; the link lasts until the context is
 * destroyed. DOCA_ERROR_BAD_STATE if the context is not IDLE,
 * DOCA_ERROR_NOT_PERMITTED if it is already connected to a PE.
 */
DOCA_STABLE doca_error_t doca_pe_connect_ctx(struct doca_pe *pe, struct doca_ctx *ctx);

/*
 * Hand a task to its context; it executes asynchronously and its callback
 * runs from a later doca_pe_progress. As DOCA documents, the task's
 * parameters are not validated: a task with bad parameters is accepted and
 * fails when it executes (its error callback runs and, for DMA, the context
 * moves to STOPPING); use doca_task_try_submit to have them checked first.
 * DOCA_ERROR_BAD_STATE: context not RUNNING, or the task is already
 * submitted (or free). DOCA_ERROR_INVALID_VALUE: the task cannot even be
 * queued (e.g. a DMA task without a source or destination).
 * DOCA_ERROR_AGAIN: the engine queue is full, progress and retry. On any
 * error the task stays the user's.
 */
DOCA_STABLE doca_error_t doca_task_submit(struct doca_task *task);

/* As doca_task_submit, with doca_task_submit_flag bits. Unknown bits:
 * DOCA_ERROR_INVALID_VALUE. */
DOCA_EXPERIMENTAL doca_error_t doca_task_submit_ex(struct doca_task *task, uint32_t flags);

/*
 * As doca_task_submit, after validating the task as its type defines (DMA:
 * buffers, mmaps, permissions, sizes, list lengths, a zero-length source or
 * a destination without room): DOCA_ERROR_INVALID_VALUE for an invalid
 * task, nothing taken, the task stays the user's.
 */
DOCA_STABLE doca_error_t doca_task_try_submit(struct doca_task *task);

/*
 * Return a task to its pool. Only a task the user holds (allocated, or in
 * its own completion callback) can be freed; freeing a submitted task or a
 * free task is refused and logged.
 */
DOCA_STABLE void doca_task_free(struct doca_task *task);

/* DOCA_SUCCESS or the error the task completed with (valid in callbacks). */
DOCA_STABLE doca_error_t doca_task_get_status(const struct doca_task *task);

DOCA_STABLE void doca_task_set_user_data(struct doca_task *task, union doca_data user_data);
DOCA_STABLE union doca_data doca_task_get_user_data(const struct doca_task *task);

/* The context the task was allocated from (NULL for a NULL task). */
DOCA_STABLE struct doca_ctx *doca_task_get_ctx(const struct doca_task *task);

/*
 * Task batches: several tasks of one type handled as one unit. A library
 * that offers batches allocates them (its *_task_batch_*_allocate call) from
 * a pool fixed by its set_conf, like tasks; a batch is submitted, completes
 * through the library's batch callback from doca_pe_progress, and is freed,
 * as a whole, with the same ownership rules as a task (it is the user's
 * while allocated and inside its callback; a stop flushes submitted batches
 * through the error callback). It counts as one task in flight. None of the
 * libraries softdoca ships offers batches yet; these calls work on any.
 * A pointer that is not a task batch: DOCA_ERROR_INVALID_VALUE (logged).
 */
DOCA_EXPERIMENTAL doca_error_t doca_task_batch_submit(struct doca_task_batch *task_batch);
/* As doca_task_batch_submit, after the batch type's validation (INVALID_VALUE: refused, nothing taken). */
DOCA_EXPERIMENTAL doca_error_t doca_task_batch_try_submit(struct doca_task_batch *task_batch);
/* Return a batch the user holds to its pool (refused and logged if submitted). */
DOCA_EXPERIMENTAL void doca_task_batch_free(struct doca_task_batch *task_batch);
/* DOCA_SUCCESS or the error the batch completed with (valid in callbacks). */
DOCA_EXPERIMENTAL doca_error_t doca_task_batch_get_status(const struct doca_task_batch *task_batch);
DOCA_EXPERIMENTAL void doca_task_batch_set_user_data(struct doca_task_batch *task_batch, union doca_data user_data);
DOCA_EXPERIMENTAL union doca_data doca_task_batch_get_user_data(const struct doca_task_batch *task_batch);
/* The context that allocated the batch, and its user data. */
DOCA_EXPERIMENTAL struct doca_ctx *doca_task_batch_get_ctx(const struct doca_task_batch *task_batch);
DOCA_EXPERIMENTAL union doca_data doca_task_batch_get_ctx_user_data(const struct doca_task_batch *task_batch);
/* Tasks the batch carries (0 for a NULL batch). */
DOCA_EXPERIMENTAL uint16_t doca_task_batch_get_tasks_num(struct doca_task_batch *task_batch);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_PE_H_ */
