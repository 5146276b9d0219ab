/*
 * doca_ctx.h - DOCA context: the common lifecycle of every data-path library
 * (DMA, Comch server/client, producer/consumer...).
 *
 * Model: a library creates its own object (doca_dma_create...) and exposes
 * it as a struct doca_ctx (doca_dma_as_ctx...). The context is configured
 * while IDLE (task pools via the library's *_set_conf, user data, the state
 * callback), connected to one progress engine (doca_pe_connect_ctx, see
 * doca_pe.h), then started. Tasks can be allocated and submitted only while
 * it is RUNNING. Stopping flushes whatever has not completed: every such
 * task reaches its error callback (status DOCA_ERROR_IO_FAILED here), and
 * the context goes back to IDLE, where it can be reconfigured or destroyed,
 * once no task is in flight and every task allocated from it has been freed
 * (a task kept after its callback holds the context in STOPPING).
 *
 *     IDLE --doca_ctx_start--> [STARTING] --> RUNNING
 *     RUNNING --doca_ctx_stop--> STOPPING --(no task in flight, all freed)--> IDLE
 *     RUNNING --a task fails at execution--> STOPPING (after its error callback)
 *
 * A task whose execution fails (DMA: a bad buffer, a zero-length source...)
 * completes through its error callback and, as on the card, moves its
 * context to STOPPING right after that callback: the remaining tasks are
 * flushed. Tasks execute asynchronously and one doca_pe_progress handles a
 * bounded number of them, so a stop in the middle finds tasks to flush.
 *
 * Call order:
 *     create (library) -> configure -> doca_pe_connect_ctx -> doca_ctx_start
 *     -> alloc/submit tasks, doca_pe_progress -> doca_ctx_stop
 *     -> doca_pe_progress until IDLE -> destroy (library)
 *
 * doca_ctx_start of a context that starts synchronously returns DOCA_SUCCESS
 * and reports IDLE -> RUNNING to the state callback from within the call; a
 * context that needs a peer or a connection returns DOCA_ERROR_IN_PROGRESS,
 * reports IDLE -> STARTING, and RUNNING later from doca_pe_progress.
 * doca_ctx_stop reports RUNNING -> STOPPING at once; it returns DOCA_SUCCESS
 * if the context could reach IDLE within the call (or was IDLE), else
 * DOCA_ERROR_IN_PROGRESS, and STOPPING -> IDLE is reported from a later
 * doca_pe_progress. A task counts as in flight until its completion callback
 * has returned, so calling doca_ctx_stop from a completion callback always
 * yields STOPPING first and IDLE later.
 *
 * Threading: a context, and the progress engine it is connected to, are used
 * from one thread at a time. Callbacks run on the thread that calls
 * doca_pe_progress (or doca_ctx_start/stop for transitions made there).
 *
 * Range profiling: doca_ctx_profiler_set_max_nranges(ctx,
 * n) with n > 0 records, for up to n tasks submitted with
 * DOCA_TASK_SUBMIT_FLAG_RANGE_PROFILING_REQUESTED (doca_pe.h), the task
 * type and its submit and completion times. NVTX is not available, so when the context
 * returns to IDLE the ranges are printed to stderr as a small table headed
 * "softdoca range profiling (NVTX is not available; submit->complete per
 * task)". n = 0 (the default) turns it off.
 */
#ifndef DOCA_CTX_H_
#define DOCA_CTX_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;
struct doca_devinfo;
struct doca_gpu;
struct doca_dpa;

/* The states of a context (see the diagram above). */
enum doca_ctx_states {
	DOCA_CTX_STATE_IDLE = 0,     /* configurable; no task can be allocated */
	DOCA_CTX_STATE_STARTING = 1, /* started, waiting for a peer/connection */
	DOCA_CTX_STATE_RUNNING = 2,  /* tasks can be allocated and submitted */
	DOCA_CTX_STATE_STOPPING = 3, /* flushing in-flight tasks */
};

/*
 * Called on every state change; the context is already in next_state.
 * user_data is what doca_ctx_set_user_data set.
 */
typedef void (*doca_ctx_state_changed_callback_t)(const union doca_data user_data, struct doca_ctx *ctx,
						  enum doca_ctx_states prev_state,
						  enum doca_ctx_states next_state);

/*
 * Start the context (IDLE only, connected to a PE). Task pools are allocated
 * here. DOCA_SUCCESS: RUNNING. DOCA_ERROR_IN_PROGRESS: STARTING, RUNNING
 * comes from doca_pe_progress. DOCA_ERROR_BAD_STATE: not IDLE.
 * DOCA_ERROR_NOT_CONNECTED: no PE. DOCA_ERROR_INITIALIZATION: the task pools
 * could not be allocated. Any other error: the library refused its
 * configuration; the context stays IDLE.
 */
DOCA_STABLE doca_error_t doca_ctx_start(struct doca_ctx *ctx);

/*
 * Stop the context (RUNNING or STARTING); in-flight tasks are flushed via
 * their error callbacks. DOCA_SUCCESS: IDLE (reached within the call, or
 * already IDLE: stopping a stopped context is no error).
 * DOCA_ERROR_IN_PROGRESS: STOPPING (also when it already was), call
 * doca_pe_progress (and free the tasks) until the state callback reports
 * IDLE. DOCA_ERROR_INVALID_VALUE: ctx is NULL. DOCA_ERROR_NOT_CONNECTED: no PE.
 */
DOCA_STABLE doca_error_t doca_ctx_stop(struct doca_ctx *ctx);

/* Tasks submitted whose completion callback has not yet returned. */
DOCA_STABLE doca_error_t doca_ctx_get_num_inflight_tasks(const struct doca_ctx *ctx, size_t *num_inflight_tasks);

DOCA_STABLE doca_error_t doca_ctx_get_state(const struct doca_ctx *ctx, enum doca_ctx_states *state);

/* cb may be NULL to clear it. */
DOCA_STABLE doca_error_t doca_ctx_set_state_changed_cb(struct doca_ctx *ctx, doca_ctx_state_changed_callback_t cb);

/* Passed to the state callback and, as ctx_user_data, to task callbacks. */
DOCA_STABLE doca_error_t doca_ctx_set_user_data(struct doca_ctx *ctx, union doca_data user_data);
DOCA_STABLE doca_error_t doca_ctx_get_user_data(const struct doca_ctx *ctx, union doca_data *user_data);

/*
 * Flush tasks submitted with DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS whose
 * reports were deferred. softdoca never defers reports, so this only checks
 * its argument.
 */
DOCA_EXPERIMENTAL void doca_ctx_flush_tasks(struct doca_ctx *ctx);

/* No GPU or DPA is emulated: DOCA_ERROR_NOT_SUPPORTED (after argument checks). */
DOCA_EXPERIMENTAL doca_error_t doca_ctx_set_datapath_on_gpu(struct doca_ctx *ctx, struct doca_gpu *gpu_dev);
DOCA_EXPERIMENTAL doca_error_t doca_ctx_set_datapath_on_dpa(struct doca_ctx *ctx, struct doca_dpa *dpa_dev);

/* One completion vector (0) exists; setting it is IDLE only. */
DOCA_EXPERIMENTAL doca_error_t doca_ctx_set_completion_vector(struct doca_ctx *ctx, uint32_t comp_vector);
DOCA_EXPERIMENTAL doca_error_t doca_ctx_cap_get_num_completion_vectors(const struct doca_devinfo *devinfo,
								       uint32_t *num_comp_vectors);

/*
 * Range profiling: record up to max_nranges submit->complete ranges of
 * tasks submitted with DOCA_TASK_SUBMIT_FLAG_RANGE_PROFILING_REQUESTED,
 * printed to stderr when the context reaches IDLE. IDLE only. 0 disables.
 *
 * softdoca extension: DOCA 3.3 has neither this call nor the submit flag (a
 * later DOCA release brings them). Portable programs test the feature macro
 * SOFTDOCA_EXT_RANGE_PROFILING before using either.
 */
#define SOFTDOCA_EXT_RANGE_PROFILING 1
DOCA_EXPERIMENTAL doca_error_t doca_ctx_profiler_set_max_nranges(struct doca_ctx *ctx, uint32_t max_nranges);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_CTX_H_ */
