/*
 * task_batch.c - the doca_task_batch_* functions.
 *
 * A batch is a task of a batch type (sd_task_batch.h), so submission,
 * ownership, in-flight accounting, flushing and completion all go through
 * the task core; this file adds the batch's own checks and accessors. The
 * magic number turns a pointer that is not a batch into INVALID_VALUE
 * rather than a task operation on the wrong object.
 */
#include <doca_pe.h>

#include "sd_log.h"
#include "sd_task_batch.h"

SD_LOG_REGISTER(TASK_BATCH);

static bool is_batch(const struct doca_task_batch *b, const char *what)
{
	if (b == NULL) {
		SD_LOG_ERR("Failed to %s: task batch is NULL", what);
		return false;
	}
	if (b->magic != SD_TASK_BATCH_MAGIC || b->task.cls == NULL) {
		SD_LOG_ERR("Failed to %s: %p is not a task batch", what, (const void *)b);
		return false;
	}
	return true;
}

doca_error_t doca_task_batch_submit(struct doca_task_batch *task_batch)
{
	if (!is_batch(task_batch, "submit task batch"))
		return DOCA_ERROR_INVALID_VALUE;
	return doca_task_submit(&task_batch->task);
}

/* The library's submit op validates every batch, so both paths check it. */
doca_error_t doca_task_batch_try_submit(struct doca_task_batch *task_batch)
{
	if (!is_batch(task_batch, "submit task batch"))
		return DOCA_ERROR_INVALID_VALUE;
	return doca_task_try_submit(&task_batch->task);
}

void doca_task_batch_free(struct doca_task_batch *task_batch)
{
	if (!is_batch(task_batch, "free task batch"))
		return;
	doca_task_free(&task_batch->task);
}

doca_error_t doca_task_batch_get_status(const struct doca_task_batch *task_batch)
{
	if (!is_batch(task_batch, "get task batch status"))
		return DOCA_ERROR_INVALID_VALUE;
	return doca_task_get_status(&task_batch->task);
}

void doca_task_batch_set_user_data(struct doca_task_batch *task_batch, union doca_data user_data)
{
	if (!is_batch(task_batch, "set task batch user data"))
		return;
	doca_task_set_user_data(&task_batch->task, user_data);
}

union doca_data doca_task_batch_get_user_data(const struct doca_task_batch *task_batch)
{
	union doca_data none = {.u64 = 0};

	if (!is_batch(task_batch, "get task batch user data"))
		return none;
	return doca_task_get_user_data(&task_batch->task);
}

struct doca_ctx *doca_task_batch_get_ctx(const struct doca_task_batch *task_batch)
{
	if (!is_batch(task_batch, "get task batch context"))
		return NULL;
	return doca_task_get_ctx(&task_batch->task);
}

union doca_data doca_task_batch_get_ctx_user_data(const struct doca_task_batch *task_batch)
{
	union doca_data none = {.u64 = 0};
	struct doca_ctx *ctx;

	if (!is_batch(task_batch, "get task batch context user data"))
		return none;
	ctx = doca_task_get_ctx(&task_batch->task);
	return ctx == NULL ? none : ctx->user_data;
}

uint16_t doca_task_batch_get_tasks_num(struct doca_task_batch *task_batch)
{
	if (!is_batch(task_batch, "get task batch tasks number"))
		return 0;
	return task_batch->num_tasks;
}
