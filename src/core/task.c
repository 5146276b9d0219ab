/*
 * Tasks: per-type pools, submission, ownership checks. The pool reports to
 * its context only through the counters of struct doca_ctx (core_priv.h):
 * ctx->allocated for tasks out of their pools, ctx->inflight for submitted
 * ones; the context reads them to decide when it may reach IDLE.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <doca_pe.h>

#include "core_priv.h"
#include "sd_log.h"
#include "sd_trace.h"

SD_LOG_REGISTER(TASK);

#define TASK_ALIGN 16
#define POOL_ALIGN 64
#define KNOWN_SUBMIT_FLAGS \
	(DOCA_TASK_SUBMIT_FLAG_FLUSH | DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS | \
	 DOCA_TASK_SUBMIT_FLAG_RANGE_PROFILING_REQUESTED)

void sd_task_class_init(struct sd_task_class *cls, struct doca_ctx *ctx, const struct sd_task_class_ops *ops,
			const char *name, size_t task_size)
{
	if (cls == NULL)
		return;
	memset(cls, 0, sizeof(*cls));
	cls->ctx = ctx;
	cls->ops = ops;
	cls->name = name;
	cls->task_size = task_size;
	if (task_size < sizeof(struct doca_task))
		SD_LOG_CRIT("Task class %s: size %zu is smaller than struct doca_task", name, task_size);
	if (ctx == NULL)
		return;
	if (ctx->num_classes == SD_CTX_MAX_TASK_CLASSES) {
		SD_LOG_CRIT("%s context: more than %d task classes", ctx->name, SD_CTX_MAX_TASK_CLASSES);
		return;
	}
	ctx->classes[ctx->num_classes++] = cls;
}

static void pool_free(struct sd_task_class *cls)
{
	if (cls->ctx != NULL)
		cls->ctx->allocated -= cls->allocated;
	free(cls->pool);
	cls->pool = NULL;
	cls->free_list = NULL;
	cls->allocated = 0;
}

doca_error_t sd_task_class_conf(struct sd_task_class *cls, uint32_t num_tasks)
{
	if (cls == NULL || cls->ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (cls->ctx->state != DOCA_CTX_STATE_IDLE) {
		SD_LOG_ERR("Failed to configure %s tasks: %s context is not idle", cls->name, cls->ctx->name);
		return DOCA_ERROR_BAD_STATE;
	}
	if (num_tasks == 0) {
		SD_LOG_ERR("Failed to configure %s tasks: number of tasks is 0", cls->name);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (cls->pool != NULL && num_tasks != cls->capacity) {
		if (cls->allocated > 0) {
			SD_LOG_ERR("Failed to configure %s tasks: %" PRIu32 " tasks are still allocated", cls->name,
				   cls->allocated);
			return DOCA_ERROR_BAD_STATE;
		}
		pool_free(cls);
	}
	cls->capacity = num_tasks;
	cls->configured = true;
	return DOCA_SUCCESS;
}

static size_t task_stride(const struct sd_task_class *cls)
{
	return (cls->task_size + TASK_ALIGN - 1) & ~(size_t)(TASK_ALIGN - 1);
}

static doca_error_t pool_alloc(struct sd_task_class *cls)
{
	size_t stride = task_stride(cls);
	size_t bytes;
	void *pool;
	uint32_t i;

	if (stride == 0 || cls->capacity > (SIZE_MAX - POOL_ALIGN) / stride)
		return DOCA_ERROR_NO_MEMORY;
	bytes = ((size_t)cls->capacity * stride + POOL_ALIGN - 1) & ~(size_t)(POOL_ALIGN - 1);
	if (posix_memalign(&pool, POOL_ALIGN, bytes) != 0) {
		SD_LOG_ERR("Failed to allocate %" PRIu32 " %s tasks", cls->capacity, cls->name);
		return DOCA_ERROR_NO_MEMORY;
	}
	memset(pool, 0, bytes);
	cls->pool = pool;
	cls->allocated = 0;
	cls->free_list = NULL;
	/* Build the free list backwards so tasks come out in address order. */
	for (i = cls->capacity; i-- > 0;) {
		struct doca_task *t = (struct doca_task *)((char *)pool + (size_t)i * stride);

		t->cls = cls;
		t->state = SD_TASK_FREE;
		t->next = cls->free_list;
		cls->free_list = t;
	}
	return DOCA_SUCCESS;
}

doca_error_t sd_task_pools_alloc(struct doca_ctx *ctx)
{
	doca_error_t rc;
	uint32_t i;

	for (i = 0; i < ctx->num_classes; i++) {
		struct sd_task_class *cls = ctx->classes[i];

		if (!cls->configured || cls->pool != NULL)
			continue;
		rc = pool_alloc(cls);
		if (rc != DOCA_SUCCESS)
			return rc;
	}
	return DOCA_SUCCESS;
}

void sd_task_pools_free(struct doca_ctx *ctx)
{
	uint32_t i;

	for (i = 0; i < ctx->num_classes; i++) {
		if (ctx->classes[i]->allocated > 0)
			SD_LOG_WARN("%s context destroyed with %" PRIu32 " %s tasks not freed", ctx->name,
				    ctx->classes[i]->allocated, ctx->classes[i]->name);
		pool_free(ctx->classes[i]);
	}
}

/* sd_task_alloc_inline (sd_ctx.h) is the same, inline. */
doca_error_t sd_task_alloc(struct sd_task_class *cls, struct doca_task **task)
{
	if (cls == NULL || task == NULL || cls->ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (cls->ctx->state != DOCA_CTX_STATE_RUNNING) {
		SD_LOG_ERR("Failed to allocate %s task: %s context is not running", cls->name, cls->ctx->name);
		return DOCA_ERROR_BAD_STATE;
	}
	if (cls->free_list == NULL)
		return DOCA_ERROR_NO_MEMORY;
	*task = sd_task_pool_take(cls);
	return DOCA_SUCCESS;
}

/* The user holds a task while allocated; pe_deliver hands it back (state
 * ALLOCATED) just before its callback runs. */
static inline bool task_held_by_user(const struct doca_task *task)
{
	return task->state == SD_TASK_ALLOCATED;
}

static const char *task_state_name(uint8_t state)
{
	switch (state) {
	case SD_TASK_FREE:
		return "free";
	case SD_TASK_ALLOCATED:
		return "allocated";
	case SD_TASK_SUBMITTED:
		return "submitted";
	case SD_TASK_COMPLETING:
		return "completed, waiting for its callback";
	default:
		return "corrupted";
	}
}

/* A submission taken: TRACE line and the start of its async span (the PE
 * ends it when the completion is delivered). */
static void __attribute__((noinline, cold)) task_diag_submit(struct doca_task *task)
{
	struct doca_ctx *ctx = task->cls->ctx;

	SD_LOG_TRC("%s ctx %p: %s task %p submitted (%" PRIu32 " in flight)", ctx->name, (void *)ctx,
		   task->cls->name, (void *)task, ctx->inflight);
	if (sd_trace_on)
		sd_trace_async_begin("task", task->cls->name, sd_task_trace_id(task),
				     "\"ctx\":\"%s\",\"ctx_ptr\":\"%p\",\"task\":\"%p\"", ctx->name, (void *)ctx,
				     (void *)task);
}

/* Inlined into each entry point, so the plain submit pays nothing for
 * try_submit's validation. */
static inline __attribute__((always_inline)) doca_error_t task_submit(struct doca_task *task, uint32_t flags,
								     bool validate)
{
	struct sd_task_class *cls;
	struct doca_ctx *ctx;
	uint8_t prev;
	doca_error_t rc;

	if (task == NULL) {
		SD_LOG_ERR("Failed to submit task: task is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	cls = task->cls;
	ctx = cls->ctx;
	if (!task_held_by_user(task)) {
		SD_LOG_ERR("Failed to submit %s task: task is %s", cls->name, task_state_name(task->state));
		return DOCA_ERROR_BAD_STATE;
	}
	if (ctx->state != DOCA_CTX_STATE_RUNNING) {
		SD_LOG_ERR("Failed to submit %s task: %s context is not running", cls->name, ctx->name);
		return DOCA_ERROR_BAD_STATE;
	}
	if (validate && cls->ops->validate != NULL) {
		rc = cls->ops->validate(task);
		if (rc != DOCA_SUCCESS)
			return rc;
	}
	prev = task->state;
	task->state = SD_TASK_SUBMITTED;
	task->submit_flags = (uint8_t)flags;
	task->status = DOCA_SUCCESS;
	if (flags & DOCA_TASK_SUBMIT_FLAG_RANGE_PROFILING_REQUESTED)
		task->submit_ns = sd_now_ns();
	/* Count it before the library sees it: it may complete it at once. */
	ctx->inflight++;
	rc = cls->ops->submit(task);
	if (rc != DOCA_SUCCESS) {
		/* A library that completed the task and still reported an error
		 * must not hand the task to two owners: the completion wins. */
		if (task->state != SD_TASK_SUBMITTED) {
			SD_LOG_CRIT("%s task: completed by its library although the submission failed (%s)",
				    cls->name, doca_error_get_name(rc));
			return DOCA_SUCCESS;
		}
		task->state = prev;
		ctx->inflight--;
		return rc;
	}
	if (sd_core_diag_on())
		task_diag_submit(task);
	/* Someone sleeps on the notification handle: the task will complete
	 * without further waiting, so it must be woken. */
	sd_pe_note_work(ctx->pe);
	return DOCA_SUCCESS;
}

doca_error_t doca_task_submit(struct doca_task *task)
{
	return task_submit(task, DOCA_TASK_SUBMIT_FLAG_NONE, false);
}

doca_error_t sd_task_submit_owned(struct doca_task *task, struct sd_task_owner *owner)
{
	doca_error_t rc;

	if (task == NULL || owner == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	/* Set before the library sees the task: it may complete it at once. */
	task->owner = owner;
	rc = task_submit(task, SD_TASK_SUBMIT_OWNED, false);
	if (rc != DOCA_SUCCESS && task->owner == owner)
		task->owner = NULL;
	return rc;
}

/* Same path as doca_task_submit, plus the task type's validation first. */
doca_error_t doca_task_try_submit(struct doca_task *task)
{
	return task_submit(task, DOCA_TASK_SUBMIT_FLAG_NONE, true);
}

doca_error_t doca_task_submit_ex(struct doca_task *task, uint32_t flags)
{
	if (flags & ~(uint32_t)KNOWN_SUBMIT_FLAGS) {
		SD_LOG_ERR("Failed to submit task: unknown submit flags 0x%" PRIx32, flags);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return task_submit(task, flags, false);
}

void doca_task_free(struct doca_task *task)
{
	struct sd_task_class *cls;
	struct doca_ctx *ctx;

	if (task == NULL) {
		SD_LOG_ERR("Failed to free task: task is NULL");
		return;
	}
	cls = task->cls;
	ctx = cls->ctx;
	/* The usual case first: a task the program holds (never marked freed). */
	if (__builtin_expect(task_held_by_user(task), 1)) {
		sd_task_pool_put(task);
		/* The last task of a stopping context: it may reach IDLE now. */
		if (ctx->allocated == 0 && ctx->state == DOCA_CTX_STATE_STOPPING && ctx->pe != NULL)
			sd_pe_note_work(ctx->pe);
		return;
	}
	if (task->state == SD_TASK_FREE || task->freed) {
		SD_LOG_ERR("Failed to free %s task %p: task is already free (double free)", cls->name, (void *)task);
		return;
	}
	/* A graph instance holds it and waits for its completion. */
	if (task->owner != NULL) {
		SD_LOG_ERR("Failed to free %s task %p: task is %s and run by a graph instance", cls->name,
			   (void *)task, task_state_name(task->state));
		return;
	}
	/* Given up while the context holds it: it returns to the pool when it
	 * completes or is flushed, without a callback. */
	SD_LOG_DBG("%s task %p freed while %s: released when the context finishes it", cls->name, (void *)task,
		   task_state_name(task->state));
	task->freed = 1;
}

doca_error_t doca_task_get_status(const struct doca_task *task)
{
	if (task == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return task->status;
}

void doca_task_set_user_data(struct doca_task *task, union doca_data user_data)
{
	if (task == NULL) {
		SD_LOG_ERR("Failed to set task user data: task is NULL");
		return;
	}
	task->user_data = user_data;
}

union doca_data doca_task_get_user_data(const struct doca_task *task)
{
	union doca_data none = {.u64 = 0};

	if (task == NULL)
		return none;
	return task->user_data;
}

struct doca_ctx *doca_task_get_ctx(const struct doca_task *task)
{
	if (task == NULL)
		return NULL;
	return task->cls->ctx;
}
