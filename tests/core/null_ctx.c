/* A test-only library on top of the core contract (see null_ctx.h). */
#include <stdio.h>
#include <stdlib.h>

#include "null_ctx.h"

static struct null_ctx *to_null(struct doca_ctx *ctx)
{
	return (struct null_ctx *)ctx;
}

static void null_finish(struct doca_task *task);

static doca_error_t null_submit(struct doca_task *task)
{
	struct null_task *t = (struct null_task *)task;
	struct null_ctx *nc = to_null(task->cls->ctx);

	if (t->invalid)
		return DOCA_ERROR_INVALID_VALUE;
	if (nc->mode == NULL_MODE_IMMEDIATE) {
		null_finish(task);
		return DOCA_SUCCESS;
	}
	if (nc->nheld == NULL_CTX_MAX_HELD || (nc->queue_limit != 0 && nc->nheld >= nc->queue_limit))
		return DOCA_ERROR_AGAIN;
	nc->held[nc->nheld++] = task;
	return DOCA_SUCCESS;
}

static doca_error_t null_validate(struct doca_task *task)
{
	return ((struct null_task *)task)->bad_param ? DOCA_ERROR_INVALID_VALUE : DOCA_SUCCESS;
}

static void null_finish(struct doca_task *task)
{
	struct null_task *t = (struct null_task *)task;

	if (t->bad_param)
		sd_task_fail(task, DOCA_ERROR_INVALID_VALUE);
	else if (t->fatal)
		sd_task_fail(task, t->result);
	else
		sd_task_complete(task, t->result);
}

static void null_deliver(struct doca_task *task)
{
	struct null_ctx *nc = to_null(task->cls->ctx);
	doca_task_completion_cb_t cb = task->status == DOCA_SUCCESS ? nc->ok_cb : nc->err_cb;

	if (cb != NULL)
		cb(task, task->user_data, nc->ctx.user_data);
}

static const struct sd_task_class_ops null_task_ops = {
	.submit = null_submit,
	.deliver = null_deliver,
	.validate = null_validate,
};

void null_ctx_release(struct null_ctx *nc)
{
	uint32_t i, done = 0;

	while (done < nc->nheld) {
		struct null_task *t = (struct null_task *)nc->held[done++];

		null_finish(&t->base);
		if (t->bad_param || t->fatal)
			break;
	}
	for (i = done; i < nc->nheld; i++)
		nc->held[i - done] = nc->held[i];
	nc->nheld -= done;
}

static void null_flush(struct null_ctx *nc)
{
	uint32_t i;

	for (i = 0; i < nc->nheld; i++)
		sd_task_complete(nc->held[i], SD_TASK_FLUSHED_STATUS);
	nc->nheld = 0;
}

static doca_error_t null_start(struct doca_ctx *ctx)
{
	struct null_ctx *nc = to_null(ctx);

	if (!nc->cls.configured)
		return DOCA_ERROR_BAD_CONFIG;
	nc->stop_requested = false;
	nc->nheld = 0;
	return nc->start_async ? DOCA_ERROR_IN_PROGRESS : DOCA_SUCCESS;
}

static void null_stop(struct doca_ctx *ctx)
{
	struct null_ctx *nc = to_null(ctx);

	null_flush(nc);
	if (nc->stop_async)
		nc->stop_requested = true;
	else
		sd_ctx_stop_done(ctx);
}

static int null_progress(struct doca_ctx *ctx)
{
	struct null_ctx *nc = to_null(ctx);
	int n = 0;

	if (ctx->state == DOCA_CTX_STATE_STARTING) {
		sd_ctx_set_running(ctx);
		return 1;
	}
	if (nc->stop_requested) {
		nc->stop_requested = false;
		sd_ctx_stop_done(ctx);
		return 1;
	}
	if (nc->mode == NULL_MODE_PROGRESS ||
	    (nc->mode == NULL_MODE_THREAD && atomic_exchange(&nc->thread_done, false))) {
		n = (int)nc->nheld;
		null_ctx_release(nc);
		n -= (int)nc->nheld;
	}
	return n;
}

/* Held tasks that the next progress completes without waiting. */
static bool null_has_work(const struct doca_ctx *ctx)
{
	const struct null_ctx *nc = (const struct null_ctx *)ctx;

	return nc->mode == NULL_MODE_PROGRESS && nc->nheld > 0;
}

/* What a library says it waits for, when the test gave it a sentence. */
static bool null_describe_wait(const struct doca_ctx *ctx, uint64_t waited_ms, char *buf, size_t cap)
{
	const struct null_ctx *nc = (const struct null_ctx *)ctx;

	if (nc->wait_text == NULL)
		return false;
	snprintf(buf, cap, "%s (%llu ms)", nc->wait_text, (unsigned long long)waited_ms);
	return true;
}

static const struct sd_ctx_ops null_ctx_ops = {
	.start = null_start,
	.stop = null_stop,
	.progress = null_progress,
	.has_work = null_has_work,
	.describe_wait = null_describe_wait,
};

doca_error_t null_ctx_create(struct null_ctx **nc)
{
	struct null_ctx *n;

	if (nc == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	n = calloc(1, sizeof(*n));
	if (n == NULL)
		return DOCA_ERROR_NO_MEMORY;
	sd_ctx_init(&n->ctx, &null_ctx_ops, "null");
	sd_task_class_init(&n->cls, &n->ctx, &null_task_ops, "null_task", sizeof(struct null_task));
	n->mode = NULL_MODE_PROGRESS;
	*nc = n;
	return DOCA_SUCCESS;
}

doca_error_t null_ctx_destroy(struct null_ctx *nc)
{
	doca_error_t rc;

	if (nc == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	rc = sd_ctx_fini(&nc->ctx);
	if (rc != DOCA_SUCCESS)
		return rc;
	free(nc);
	return DOCA_SUCCESS;
}

struct doca_ctx *null_ctx_as_ctx(struct null_ctx *nc)
{
	return nc == NULL ? NULL : &nc->ctx;
}

doca_error_t null_ctx_set_conf(struct null_ctx *nc, doca_task_completion_cb_t ok_cb, doca_task_completion_cb_t err_cb,
			       uint32_t num_tasks)
{
	doca_error_t rc;

	if (nc == NULL || ok_cb == NULL || err_cb == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	rc = sd_task_class_conf(&nc->cls, num_tasks);
	if (rc != DOCA_SUCCESS)
		return rc;
	nc->ok_cb = ok_cb;
	nc->err_cb = err_cb;
	return DOCA_SUCCESS;
}

doca_error_t null_task_alloc(struct null_ctx *nc, uint64_t value, union doca_data user_data,
			     struct null_task **task)
{
	struct doca_task *t;
	doca_error_t rc;

	if (nc == NULL || task == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	rc = sd_task_alloc(&nc->cls, &t);
	if (rc != DOCA_SUCCESS)
		return rc;
	t->user_data = user_data;
	*task = (struct null_task *)t;
	(*task)->value = value;
	(*task)->result = DOCA_SUCCESS;
	(*task)->invalid = false;
	(*task)->bad_param = false;
	(*task)->fatal = false;
	return DOCA_SUCCESS;
}
