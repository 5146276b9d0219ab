/*
 * Context lifecycle: the one state machine every library shares. Every
 * transition is made here; the PE asks for them through
 * sd_ctx_core_ops (core_priv.h) and the task pool only keeps counters.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_ctx.h>
#include <doca_pe.h>

#include "core_priv.h"
#include "sd_log.h"
#include "sd_trace.h"

SD_LOG_REGISTER(CTX);

#define SD_PROF_MAX_NRANGES (1u << 20)

static const char *ctx_name(const struct doca_ctx *ctx)
{
	return ctx->name != NULL ? ctx->name : "unnamed";
}

static int ctx_settle(struct doca_ctx *ctx);
static bool ctx_ready(const struct doca_ctx *ctx);

static const struct sd_ctx_core_ops ctx_core_ops = {
	.settle = ctx_settle,
	.ready = ctx_ready,
};

void sd_ctx_init(struct doca_ctx *ctx, const struct sd_ctx_ops *ops, const char *name)
{
	if (ctx == NULL)
		return;
	memset(ctx, 0, sizeof(*ctx));
	ctx->ops = ops;
	ctx->name = name;
	ctx->state = DOCA_CTX_STATE_IDLE;
	ctx->core = &ctx_core_ops;
}

#define CTX_LOG_DBG_LEVEL 60

static void __attribute__((noinline, cold)) ctx_diag_transition(struct doca_ctx *ctx, enum doca_ctx_states prev,
								  const char *reason)
{
	SD_LOG_DBG("%s ctx %p: %s -> %s (%s)", ctx_name(ctx), (void *)ctx, sd_ctx_state_name(prev),
		   sd_ctx_state_name(ctx->state), reason);
	if (sd_trace_on)
		sd_trace_instant("ctx", "state", "\"ctx\":\"%s\",\"ptr\":\"%p\",\"from\":\"%s\",\"to\":\"%s\","
				 "\"reason\":\"%s\"",
				 ctx_name(ctx), (void *)ctx, sd_ctx_state_name(prev), sd_ctx_state_name(ctx->state),
				 reason);
}

/* Every transition goes through here, with why it happened (our own words:
 * JSON-safe for the trace). */
static void ctx_notify(struct doca_ctx *ctx, enum doca_ctx_states prev, const char *reason)
{
	if (__builtin_expect(sd_trace_on || sd_log_sdk_enabled(CTX_LOG_DBG_LEVEL), 0))
		ctx_diag_transition(ctx, prev, reason);
	if (ctx->state_changed_cb != NULL)
		ctx->state_changed_cb(ctx->user_data, ctx, prev, ctx->state);
}

doca_error_t sd_ctx_fini(struct doca_ctx *ctx)
{
	if (ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (ctx->state != DOCA_CTX_STATE_IDLE) {
		SD_LOG_ERR("Failed to destroy %s context: context is not idle", ctx_name(ctx));
		return DOCA_ERROR_BAD_STATE;
	}
	if (ctx->pe != NULL) {
		sd_prof_discard(ctx);
		sd_pe_unlink_ctx(ctx->pe, ctx);
	}
	sd_task_pools_free(ctx);
	return DOCA_SUCCESS;
}

doca_error_t sd_ctx_check_idle(const struct doca_ctx *ctx)
{
	if (ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (ctx->state != DOCA_CTX_STATE_IDLE) {
		SD_LOG_ERR("%s context is not idle: configuration refused", ctx_name(ctx));
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

void sd_ctx_set_running(struct doca_ctx *ctx)
{
	if (ctx == NULL || ctx->pe == NULL)
		return;
	/* From inside ops->start: doca_ctx_start reports the transition. */
	if (ctx->pe->starting == ctx) {
		ctx->state = DOCA_CTX_STATE_RUNNING;
		return;
	}
	if (ctx->state != DOCA_CTX_STATE_STARTING) {
		SD_LOG_DBG("%s context: set running ignored in state %d", ctx_name(ctx), (int)ctx->state);
		return;
	}
	ctx->state = DOCA_CTX_STATE_RUNNING;
	ctx_notify(ctx, DOCA_CTX_STATE_STARTING, "started by its library");
}

void sd_ctx_stop_done(struct doca_ctx *ctx)
{
	/* Only mark it: the library may still be inside its own code, and the
	 * IDLE callback may destroy the context. doca_ctx_stop or the next
	 * doca_pe_progress makes the transition. */
	if (ctx != NULL)
		ctx->stop_done = true;
}

static void ctx_begin_stop(struct doca_ctx *ctx, const char *reason)
{
	enum doca_ctx_states prev = ctx->state;

	ctx->state = DOCA_CTX_STATE_STOPPING;
	ctx->stop_done = false;
	ctx->fail_pending = false;
	if (ctx->pe != NULL) {
		/* doca_pe_progress finishes the stop (settle) */
		ctx->pe->settle_pending = true;
		if (ctx->pe->fail_ctx == ctx)
			ctx->pe->fail_ctx = NULL;
	}
	ctx_notify(ctx, prev, reason);
	if (ctx->ops != NULL && ctx->ops->stop != NULL)
		ctx->ops->stop(ctx);
	else
		ctx->stop_done = true;
}

void sd_ctx_fail(struct doca_ctx *ctx)
{
	if (ctx == NULL)
		return;
	if (ctx->state != DOCA_CTX_STATE_RUNNING && ctx->state != DOCA_CTX_STATE_STARTING)
		return;
	SD_LOG_ERR("%s context failed: stopping", ctx_name(ctx));
	ctx_begin_stop(ctx, "context failed in its library");
}

/* IDLE needs the library's stop work done, no task in flight and, as DOCA
 * requires, every task allocated from the context back in its pool. */
static bool ctx_can_finish_stop(const struct doca_ctx *ctx)
{
	return ctx->state == DOCA_CTX_STATE_STOPPING && ctx->stop_done && ctx->inflight == 0 && ctx->allocated == 0;
}

static bool ctx_try_finish_stop(struct doca_ctx *ctx)
{
	if (!ctx_can_finish_stop(ctx))
		return false;
	ctx->state = DOCA_CTX_STATE_IDLE;
	ctx->stop_done = false;
	sd_prof_report(ctx);
	/* Last: the callback may destroy the context. */
	ctx_notify(ctx, DOCA_CTX_STATE_STOPPING, "stopped: no task in flight or allocated");
	return true;
}

static int ctx_settle(struct doca_ctx *ctx)
{
	char reason[96];
	int n = 0;

	if (ctx->fail_pending) {
		ctx->fail_pending = false;
		if (ctx->pe != NULL && ctx->pe->fail_ctx == ctx) {
			snprintf(reason, sizeof(reason), "task failed: %s", doca_error_get_name(ctx->pe->fail_status));
			ctx->pe->fail_ctx = NULL;
		} else {
			snprintf(reason, sizeof(reason), "task failed");
		}
		if (ctx->state == DOCA_CTX_STATE_RUNNING || ctx->state == DOCA_CTX_STATE_STARTING) {
			SD_LOG_ERR("%s context: a task failed during execution: the context is stopping, remaining "
				   "tasks are flushed",
				   ctx_name(ctx));
			ctx_begin_stop(ctx, reason);
			n = 1;
		}
	}
	if (ctx->state == DOCA_CTX_STATE_STOPPING && ctx_try_finish_stop(ctx))
		return 1;
	return n;
}

static bool ctx_ready(const struct doca_ctx *ctx)
{
	if (ctx->fail_pending || ctx_can_finish_stop(ctx))
		return true;
	return ctx->state != DOCA_CTX_STATE_IDLE && ctx->ops != NULL && ctx->ops->has_work != NULL &&
	       ctx->ops->has_work(ctx);
}

doca_error_t doca_ctx_start(struct doca_ctx *ctx)
{
	struct doca_ctx *saved;
	doca_error_t rc;

	if (ctx == NULL) {
		SD_LOG_ERR("Failed to start context: ctx is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ctx->state != DOCA_CTX_STATE_IDLE) {
		SD_LOG_ERR("Failed to start %s context: context is not idle", ctx_name(ctx));
		return DOCA_ERROR_BAD_STATE;
	}
	if (ctx->pe == NULL) {
		SD_LOG_ERR("Failed to start %s context: context is not connected to a progress engine",
			   ctx_name(ctx));
		return DOCA_ERROR_NOT_CONNECTED;
	}
	/* DOCA: resource allocation failures at start are INITIALIZATION. */
	rc = sd_task_pools_alloc(ctx);
	if (rc != DOCA_SUCCESS) {
		SD_LOG_ERR("Failed to start %s context: cannot allocate its task pools", ctx_name(ctx));
		return DOCA_ERROR_INITIALIZATION;
	}
	if (sd_prof_attach(ctx) != DOCA_SUCCESS)
		return DOCA_ERROR_INITIALIZATION;

	ctx->stop_done = false;
	ctx->fail_pending = false;
	ctx->state = DOCA_CTX_STATE_STARTING;
	saved = ctx->pe->starting;
	ctx->pe->starting = ctx;
	rc = ctx->ops != NULL && ctx->ops->start != NULL ? ctx->ops->start(ctx) : DOCA_SUCCESS;
	ctx->pe->starting = saved;

	if (rc == DOCA_SUCCESS || (rc == DOCA_ERROR_IN_PROGRESS && ctx->state == DOCA_CTX_STATE_RUNNING)) {
		ctx->state = DOCA_CTX_STATE_RUNNING;
		ctx_notify(ctx, DOCA_CTX_STATE_IDLE, "doca_ctx_start");
		return DOCA_SUCCESS;
	}
	if (rc == DOCA_ERROR_IN_PROGRESS) {
		ctx->state = DOCA_CTX_STATE_STARTING;
		ctx_notify(ctx, DOCA_CTX_STATE_IDLE, "doca_ctx_start: in progress");
		return DOCA_ERROR_IN_PROGRESS;
	}
	ctx->state = DOCA_CTX_STATE_IDLE;
	sd_prof_discard(ctx);
	SD_LOG_ERR("Failed to start %s context: %s", ctx_name(ctx), doca_error_get_name(rc));
	return rc;
}

doca_error_t doca_ctx_stop(struct doca_ctx *ctx)
{
	if (ctx == NULL) {
		SD_LOG_ERR("Failed to stop context: ctx is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ctx->pe == NULL) {
		SD_LOG_ERR("Failed to stop %s context: context is not connected to a progress engine",
			   ctx_name(ctx));
		return DOCA_ERROR_NOT_CONNECTED;
	}
	/* DOCA lists no error for an idle context: it is stopped, which is
	 * what the caller asked (programs stop again in their cleanup). */
	if (ctx->state == DOCA_CTX_STATE_IDLE)
		return DOCA_SUCCESS;
	if (ctx->state == DOCA_CTX_STATE_STOPPING)
		return DOCA_ERROR_IN_PROGRESS;

	ctx_begin_stop(ctx, "doca_ctx_stop");
	/* Do not touch ctx after a successful finish: the IDLE callback may
	 * have destroyed it. */
	if (ctx_try_finish_stop(ctx))
		return DOCA_SUCCESS;
	return DOCA_ERROR_IN_PROGRESS;
}

doca_error_t doca_ctx_get_num_inflight_tasks(const struct doca_ctx *ctx, size_t *num_inflight_tasks)
{
	if (ctx == NULL || num_inflight_tasks == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*num_inflight_tasks = ctx->inflight;
	return DOCA_SUCCESS;
}

doca_error_t doca_ctx_get_state(const struct doca_ctx *ctx, enum doca_ctx_states *state)
{
	if (ctx == NULL || state == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*state = ctx->state;
	return DOCA_SUCCESS;
}

doca_error_t doca_ctx_set_state_changed_cb(struct doca_ctx *ctx, doca_ctx_state_changed_callback_t cb)
{
	if (ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	ctx->state_changed_cb = cb;
	return DOCA_SUCCESS;
}

doca_error_t doca_ctx_set_user_data(struct doca_ctx *ctx, union doca_data user_data)
{
	if (ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	ctx->user_data = user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_ctx_get_user_data(const struct doca_ctx *ctx, union doca_data *user_data)
{
	if (ctx == NULL || user_data == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*user_data = ctx->user_data;
	return DOCA_SUCCESS;
}

void doca_ctx_flush_tasks(struct doca_ctx *ctx)
{
	if (ctx == NULL) {
		SD_LOG_ERR("Failed to flush tasks: ctx is NULL");
		return;
	}
	if (ctx->state == DOCA_CTX_STATE_IDLE)
		SD_LOG_ERR("Failed to flush tasks: %s context is idle", ctx_name(ctx));
}

doca_error_t doca_ctx_set_datapath_on_gpu(struct doca_ctx *ctx, struct doca_gpu *gpu_dev)
{
	if (ctx == NULL || gpu_dev == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (ctx->state != DOCA_CTX_STATE_IDLE)
		return DOCA_ERROR_BAD_STATE;
	SD_LOG_ERR("Failed to set %s context data path on GPU: no GPU is emulated", ctx_name(ctx));
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_ctx_set_datapath_on_dpa(struct doca_ctx *ctx, struct doca_dpa *dpa_dev)
{
	if (ctx == NULL || dpa_dev == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (ctx->state != DOCA_CTX_STATE_IDLE)
		return DOCA_ERROR_BAD_STATE;
	SD_LOG_ERR("Failed to set %s context data path on DPA: no DPA is emulated", ctx_name(ctx));
	return DOCA_ERROR_NOT_SUPPORTED;
}

/* One completion vector (0): every context of a PE shares its eventfd. */
doca_error_t doca_ctx_set_completion_vector(struct doca_ctx *ctx, uint32_t comp_vector)
{
	if (ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (ctx->state != DOCA_CTX_STATE_IDLE)
		return DOCA_ERROR_BAD_STATE;
	if (comp_vector != 0) {
		SD_LOG_ERR("Failed to set completion vector %" PRIu32 ": only vector 0 exists", comp_vector);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_ctx_cap_get_num_completion_vectors(const struct doca_devinfo *devinfo, uint32_t *num_comp_vectors)
{
	if (devinfo == NULL || num_comp_vectors == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*num_comp_vectors = 1;
	return DOCA_SUCCESS;
}

doca_error_t doca_ctx_profiler_set_max_nranges(struct doca_ctx *ctx, uint32_t max_nranges)
{
	if (ctx == NULL) {
		SD_LOG_ERR("Failed to set profiler ranges: ctx is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ctx->state != DOCA_CTX_STATE_IDLE) {
		SD_LOG_ERR("Failed to set profiler ranges: %s context is not idle", ctx_name(ctx));
		return DOCA_ERROR_BAD_STATE;
	}
	if (max_nranges > SD_PROF_MAX_NRANGES) {
		SD_LOG_ERR("Failed to set profiler ranges: %" PRIu32 " exceeds %u", max_nranges,
			   SD_PROF_MAX_NRANGES);
		return DOCA_ERROR_INVALID_VALUE;
	}
	ctx->profiler_max_nranges = max_nranges;
	return DOCA_SUCCESS;
}
