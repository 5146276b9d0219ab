/* Progress engine, context and task conformance tests (public API + null_ctx). */
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_ctx.h>
#include <doca_error.h>
#include <doca_pe.h>

#include "null_ctx.h"

/* What the callbacks saw, in order. */
static char events[8192];

static void ev(const char *fmt, ...)
{
	size_t len = strlen(events);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(events + len, sizeof(events) - len, fmt, ap);
	va_end(ap);
}

static const char *state_str(enum doca_ctx_states s)
{
	switch (s) {
	case DOCA_CTX_STATE_IDLE:
		return "IDLE";
	case DOCA_CTX_STATE_STARTING:
		return "STARTING";
	case DOCA_CTX_STATE_RUNNING:
		return "RUNNING";
	case DOCA_CTX_STATE_STOPPING:
		return "STOPPING";
	}
	return "?";
}

static void state_cb(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev,
		     enum doca_ctx_states next)
{
	enum doca_ctx_states now;

	(void)user_data;
	assert_int_equal(doca_ctx_get_state(ctx, &now), DOCA_SUCCESS);
	assert_int_equal(now, next);
	ev("%s>%s;", state_str(prev), state_str(next));
}

static void ok_cb(struct doca_task *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)ctx_user_data;
	assert_int_equal(doca_task_get_status(task), DOCA_SUCCESS);
	ev("ok%llu;", (unsigned long long)task_user_data.u64);
	doca_task_free(task);
}

static void err_cb(struct doca_task *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)ctx_user_data;
	ev("err%llu:%s;", (unsigned long long)task_user_data.u64, doca_error_get_name(doca_task_get_status(task)));
	doca_task_free(task);
}

struct fixture {
	struct doca_pe *pe;
	struct null_ctx *nc;
	struct doca_ctx *ctx;
};

static void setup_ctx(struct fixture *f, uint32_t num_tasks)
{
	memset(events, 0, sizeof(events));
	assert_int_equal(doca_pe_create(&f->pe), DOCA_SUCCESS);
	assert_int_equal(null_ctx_create(&f->nc), DOCA_SUCCESS);
	f->ctx = null_ctx_as_ctx(f->nc);
	assert_int_equal(null_ctx_set_conf(f->nc, ok_cb, err_cb, num_tasks), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_set_state_changed_cb(f->ctx, state_cb), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(f->pe, f->ctx), DOCA_SUCCESS);
}

static void teardown_ctx(struct fixture *f)
{
	enum doca_ctx_states st;
	int guard = 0;

	assert_int_equal(doca_ctx_get_state(f->ctx, &st), DOCA_SUCCESS);
	if (st != DOCA_CTX_STATE_IDLE && st != DOCA_CTX_STATE_STOPPING)
		(void)doca_ctx_stop(f->ctx);
	do {
		doca_pe_progress(f->pe);
		assert_int_equal(doca_ctx_get_state(f->ctx, &st), DOCA_SUCCESS);
	} while (st != DOCA_CTX_STATE_IDLE && ++guard < 1000);
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_int_equal(null_ctx_destroy(f->nc), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(f->pe), DOCA_SUCCESS);
}

static struct null_task *alloc_task(struct fixture *f, uint64_t id)
{
	struct null_task *t = NULL;
	union doca_data ud = {.u64 = id};

	assert_int_equal(null_task_alloc(f->nc, id, ud, &t), DOCA_SUCCESS);
	return t;
}

static void drain(struct doca_pe *pe)
{
	int guard = 0;

	while (doca_pe_progress(pe) != 0 && ++guard < 100000)
		;
}

/* ---- bad arguments and wrong states ---- */

static void test_bad_args_pe(void **state)
{
	struct doca_pe *pe;
	doca_notification_handle_t h;
	size_t n;

	(void)state;
	assert_int_equal(doca_pe_create(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_progress(NULL), 0);
	assert_int_equal(doca_pe_get_notification_handle(NULL, &h), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_request_notification(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_clear_notification(NULL, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_get_num_inflight_tasks(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_connect_ctx(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_set_event_mode(NULL, DOCA_PE_EVENT_MODE_PROGRESS_ALL), DOCA_ERROR_INVALID_VALUE);

	assert_int_equal(doca_pe_create(&pe), DOCA_SUCCESS);
	assert_int_equal(doca_pe_get_notification_handle(pe, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_get_num_inflight_tasks(pe, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_connect_ctx(pe, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_set_event_mode(pe, (enum doca_pe_event_mode)7), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_set_event_mode(pe, DOCA_PE_EVENT_MODE_PROGRESS_SELECTIVE), DOCA_SUCCESS);
	assert_int_equal(doca_pe_get_notification_handle(pe, &h), DOCA_SUCCESS);
	assert_true(h >= 0);
	/* Linux: the handle argument is not used (pe_event passes 0). */
	assert_int_equal(doca_pe_clear_notification(pe, h + 1000), DOCA_SUCCESS);
	assert_int_equal(doca_pe_clear_notification(pe, 0), DOCA_SUCCESS);
	assert_int_equal(doca_pe_clear_notification(pe, h), DOCA_SUCCESS);
	assert_int_equal(doca_pe_get_num_inflight_tasks(pe, &n), DOCA_SUCCESS);
	assert_int_equal(n, 0);
	assert_int_equal(doca_pe_progress(pe), 0);
	assert_int_equal(doca_pe_destroy(pe), DOCA_SUCCESS);
}

static void test_bad_args_ctx(void **state)
{
	enum doca_ctx_states st;
	union doca_data ud;
	size_t n;
	uint32_t v;
	struct fixture f;
	struct doca_pe *pe2;

	(void)state;
	assert_int_equal(doca_ctx_start(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_stop(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_get_state(NULL, &st), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_get_num_inflight_tasks(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_set_state_changed_cb(NULL, state_cb), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_set_user_data(NULL, ud), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_get_user_data(NULL, &ud), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_profiler_set_max_nranges(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_set_completion_vector(NULL, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_cap_get_num_completion_vectors(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	doca_ctx_flush_tasks(NULL);

	/* Not connected. */
	memset(events, 0, sizeof(events));
	assert_int_equal(null_ctx_create(&f.nc), DOCA_SUCCESS);
	f.ctx = null_ctx_as_ctx(f.nc);
	assert_int_equal(doca_ctx_get_state(f.ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_get_num_inflight_tasks(f.ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_get_user_data(f.ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(null_ctx_set_conf(f.nc, ok_cb, err_cb, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(null_ctx_set_conf(f.nc, ok_cb, err_cb, 4), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_ERROR_NOT_CONNECTED);
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_ERROR_NOT_CONNECTED);
	assert_int_equal(doca_ctx_set_datapath_on_gpu(f.ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_set_datapath_on_gpu(f.ctx, (struct doca_gpu *)&v), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_ctx_set_datapath_on_dpa(f.ctx, (struct doca_dpa *)&v), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_ctx_set_completion_vector(f.ctx, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_set_completion_vector(f.ctx, 0), DOCA_SUCCESS);
	assert_int_equal(null_ctx_destroy(f.nc), DOCA_SUCCESS);

	/* Wrong states. */
	setup_ctx(&f, 4);
	ud.u64 = 42;
	assert_int_equal(doca_ctx_set_user_data(f.ctx, ud), DOCA_SUCCESS);
	ud.u64 = 0;
	assert_int_equal(doca_ctx_get_user_data(f.ctx, &ud), DOCA_SUCCESS);
	assert_int_equal(ud.u64, 42);
	assert_int_equal(doca_pe_connect_ctx(f.pe, f.ctx), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_pe_create(&pe2), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(pe2, f.ctx), DOCA_ERROR_NOT_PERMITTED);
	/* DOCA lists no error for stopping an idle context. */
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_SUCCESS);
	assert_string_equal(events, "");
	{
		struct null_task *t;
		union doca_data z = {.u64 = 0};

		assert_int_equal(null_task_alloc(f.nc, 0, z, &t), DOCA_ERROR_BAD_STATE);
	}
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_ERROR_BAD_STATE);
	assert_int_equal(null_ctx_set_conf(f.nc, ok_cb, err_cb, 8), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_ctx_profiler_set_max_nranges(f.ctx, 4), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_ctx_set_completion_vector(f.ctx, 0), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_pe_connect_ctx(pe2, f.ctx), DOCA_ERROR_BAD_STATE);
	assert_int_equal(null_ctx_destroy(f.nc), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_pe_destroy(pe2), DOCA_SUCCESS);
	teardown_ctx(&f);
}

static void test_bad_args_task(void **state)
{
	struct fixture f;
	struct null_task *t;
	union doca_data ud;

	(void)state;
	assert_int_equal(doca_task_submit(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_task_try_submit(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_task_submit_ex(NULL, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_task_get_status(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_task_get_ctx(NULL));
	ud = doca_task_get_user_data(NULL);
	assert_int_equal(ud.u64, 0);
	doca_task_free(NULL);
	doca_task_set_user_data(NULL, ud);

	setup_ctx(&f, 4);
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_SUCCESS);
	t = alloc_task(&f, 1);
	assert_ptr_equal(doca_task_get_ctx(&t->base), f.ctx);
	ud.u64 = 77;
	doca_task_set_user_data(&t->base, ud);
	assert_int_equal(doca_task_get_user_data(&t->base).u64, 77);
	assert_int_equal(doca_task_submit_ex(&t->base, 1u << 20), DOCA_ERROR_INVALID_VALUE);
	doca_task_free(&t->base);
	teardown_ctx(&f);
}

/* ---- polling, state order, inflight counts ---- */

static void test_polling(void **state)
{
	struct fixture f;
	size_t n;
	int i;

	(void)state;
	setup_ctx(&f, 8);
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_SUCCESS);
	assert_string_equal(events, "IDLE>RUNNING;");
	for (i = 1; i <= 3; i++)
		assert_int_equal(doca_task_submit(&alloc_task(&f, (uint64_t)i)->base), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_get_num_inflight_tasks(f.ctx, &n), DOCA_SUCCESS);
	assert_int_equal(n, 3);
	assert_int_equal(doca_pe_get_num_inflight_tasks(f.pe, &n), DOCA_SUCCESS);
	assert_int_equal(n, 3);
	assert_int_equal(doca_pe_progress(f.pe), 1);
	assert_string_equal(events, "IDLE>RUNNING;ok1;ok2;ok3;");
	assert_int_equal(doca_pe_progress(f.pe), 0);
	assert_int_equal(doca_ctx_get_num_inflight_tasks(f.ctx, &n), DOCA_SUCCESS);
	assert_int_equal(n, 0);
	/* Nothing in flight: the stop completes within the call. */
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_SUCCESS);
	assert_string_equal(events, "IDLE>RUNNING;ok1;ok2;ok3;RUNNING>STOPPING;STOPPING>IDLE;");
	/* Restart after stop, the pool is reused. */
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(&alloc_task(&f, 9)->base), DOCA_SUCCESS);
	drain(f.pe);
	teardown_ctx(&f);
	assert_non_null(strstr(events, "ok9;"));
}

/* ---- stop with tasks in flight: flushed via the error callback ---- */

static void flush_err_cb(struct doca_task *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	enum doca_ctx_states st;
	struct doca_ctx *ctx = doca_task_get_ctx(task);

	(void)ctx_user_data;
	assert_int_equal(doca_ctx_get_state(ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_STOPPING);
	err_cb(task, task_user_data, ctx_user_data);
}

static void test_stop_flushes(void **state)
{
	struct fixture f;
	enum doca_ctx_states st;
	size_t n;
	int i;

	(void)state;
	setup_ctx(&f, 8);
	f.nc->mode = NULL_MODE_HOLD;
	f.nc->err_cb = flush_err_cb;
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_SUCCESS);
	for (i = 1; i <= 3; i++)
		assert_int_equal(doca_task_submit(&alloc_task(&f, (uint64_t)i)->base), DOCA_SUCCESS);
	assert_int_equal(doca_pe_progress(f.pe), 0);
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(doca_ctx_get_state(f.ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_STOPPING);
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(doca_ctx_get_num_inflight_tasks(f.ctx, &n), DOCA_SUCCESS);
	assert_int_equal(n, 3);
	assert_int_equal(doca_pe_progress(f.pe), 1);
	assert_string_equal(events, "IDLE>RUNNING;RUNNING>STOPPING;"
				    "err1:DOCA_ERROR_IO_FAILED;err2:DOCA_ERROR_IO_FAILED;err3:DOCA_ERROR_IO_FAILED;"
				    "STOPPING>IDLE;");
	assert_int_equal(doca_ctx_get_state(f.ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_SUCCESS);
	teardown_ctx(&f);
}

/* ---- stop from the last completion callback (the dma_local_copy flow) ---- */

static int remaining;

static void stop_on_last_cb(struct doca_task *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct doca_ctx *ctx = doca_task_get_ctx(task);
	enum doca_ctx_states st;

	ok_cb(task, task_user_data, ctx_user_data);
	if (--remaining == 0) {
		assert_int_equal(doca_ctx_stop(ctx), DOCA_ERROR_IN_PROGRESS);
		assert_int_equal(doca_ctx_get_state(ctx, &st), DOCA_SUCCESS);
		assert_int_equal(st, DOCA_CTX_STATE_STOPPING);
	}
}

static void test_stop_from_callback(void **state)
{
	struct fixture f;
	enum doca_ctx_states st;
	int i, guard = 0;

	(void)state;
	setup_ctx(&f, 4);
	f.nc->ok_cb = stop_on_last_cb;
	remaining = 4;
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_SUCCESS);
	for (i = 1; i <= 4; i++)
		assert_int_equal(doca_task_submit(&alloc_task(&f, (uint64_t)i)->base), DOCA_SUCCESS);
	do {
		doca_pe_progress(f.pe);
		assert_int_equal(doca_ctx_get_state(f.ctx, &st), DOCA_SUCCESS);
	} while (st != DOCA_CTX_STATE_IDLE && ++guard < 100);
	assert_string_equal(events, "IDLE>RUNNING;ok1;ok2;ok3;ok4;RUNNING>STOPPING;STOPPING>IDLE;");
	teardown_ctx(&f);
}

/* ---- async start/stop driven by the library's progress hook ---- */

static void test_async_start_stop(void **state)
{
	struct fixture f;
	enum doca_ctx_states st;
	struct null_task *t;
	union doca_data z = {.u64 = 0};

	(void)state;
	setup_ctx(&f, 4);
	f.nc->start_async = true;
	f.nc->stop_async = true;
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(doca_ctx_get_state(f.ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_STARTING);
	assert_int_equal(null_task_alloc(f.nc, 0, z, &t), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_pe_progress(f.pe), 1);
	assert_int_equal(doca_ctx_get_state(f.ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_RUNNING);
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(doca_pe_progress(f.pe), 1);
	assert_int_equal(doca_ctx_get_state(f.ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_string_equal(events, "IDLE>STARTING;STARTING>RUNNING;RUNNING>STOPPING;STOPPING>IDLE;");
	/* Stop while still starting. */
	memset(events, 0, sizeof(events));
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_ERROR_IN_PROGRESS);
	drain(f.pe);
	assert_string_equal(events, "IDLE>STARTING;STARTING>STOPPING;STOPPING>IDLE;");
	teardown_ctx(&f);
}

/* ---- the engine fails on its own (peer died): as if doca_ctx_stop ---- */

static void test_ctx_fail(void **state)
{
	struct fixture f;
	enum doca_ctx_states st;

	(void)state;
	setup_ctx(&f, 4);
	f.nc->mode = NULL_MODE_HOLD;
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(&alloc_task(&f, 1)->base), DOCA_SUCCESS);
	sd_ctx_fail(f.ctx);
	assert_int_equal(doca_ctx_get_state(f.ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_STOPPING);
	sd_ctx_fail(f.ctx); /* already stopping: nothing more */
	assert_int_equal(doca_pe_progress(f.pe), 1);
	assert_int_equal(doca_ctx_get_state(f.ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_string_equal(events, "IDLE>RUNNING;RUNNING>STOPPING;err1:DOCA_ERROR_IO_FAILED;STOPPING>IDLE;");
	teardown_ctx(&f);
}

/* ---- a failing task ---- */

static void test_failing_task(void **state)
{
	struct fixture f;
	struct null_task *t;

	(void)state;
	setup_ctx(&f, 4);
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_SUCCESS);
	t = alloc_task(&f, 5);
	t->result = DOCA_ERROR_INVALID_VALUE;
	assert_int_equal(doca_task_submit(&t->base), DOCA_SUCCESS);
	t = alloc_task(&f, 6);
	assert_int_equal(doca_task_submit(&t->base), DOCA_SUCCESS);
	drain(f.pe);
	assert_string_equal(events, "IDLE>RUNNING;err5:DOCA_ERROR_INVALID_VALUE;ok6;");
	teardown_ctx(&f);
}

/* ---- resubmission from the completion callback ---- */

static int resubmits;

static void resubmit_cb(struct doca_task *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task_user_data;
	(void)ctx_user_data;
	if (++resubmits < 1000) {
		assert_int_equal(doca_task_submit(task), DOCA_SUCCESS);
		/* Submitted again: the user no longer owns it. */
		assert_int_equal(doca_task_submit(task), DOCA_ERROR_BAD_STATE);
		return;
	}
	doca_task_free(task);
}

static void test_resubmit_from_callback(void **state)
{
	struct fixture f;
	int calls = 0;

	(void)state;
	setup_ctx(&f, 2);
	f.nc->mode = NULL_MODE_IMMEDIATE;
	f.nc->ok_cb = resubmit_cb;
	resubmits = 0;
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(&alloc_task(&f, 1)->base), DOCA_SUCCESS);
	/* One callback per progress: a resubmitted task waits for the next call. */
	while (doca_pe_progress(f.pe) != 0)
		calls++;
	assert_int_equal(resubmits, 1000);
	assert_int_equal(calls, 1000);
	assert_int_equal(f.nc->cls.allocated, 0);
	teardown_ctx(&f);
}

/* ---- try_submit, back-pressure, invalid tasks ---- */

static void test_try_submit_and_again(void **state)
{
	struct fixture f;
	struct null_task *a, *b, *c;

	(void)state;
	setup_ctx(&f, 4);
	f.nc->mode = NULL_MODE_HOLD;
	f.nc->queue_limit = 2;
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_SUCCESS);
	a = alloc_task(&f, 1);
	b = alloc_task(&f, 2);
	c = alloc_task(&f, 3);
	assert_int_equal(doca_task_try_submit(&a->base), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit_ex(&b->base, DOCA_TASK_SUBMIT_FLAG_FLUSH |
							   DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_try_submit(&c->base), DOCA_ERROR_AGAIN);
	assert_int_equal(doca_task_submit(&c->base), DOCA_ERROR_AGAIN);
	null_ctx_release(f.nc);
	drain(f.pe);
	/* Still the user's after AGAIN: submit works now. */
	assert_int_equal(doca_task_submit(&c->base), DOCA_SUCCESS);
	null_ctx_release(f.nc);
	drain(f.pe);
	assert_string_equal(events, "IDLE>RUNNING;ok1;ok2;ok3;");

	c = alloc_task(&f, 4);
	c->invalid = true;
	assert_int_equal(doca_task_try_submit(&c->base), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_task_submit(&c->base), DOCA_ERROR_INVALID_VALUE);
	doca_task_free(&c->base);
	assert_int_equal(f.nc->cls.allocated, 0);
	teardown_ctx(&f);
}

/* ---- pool exhaustion and reuse; ownership checks ---- */

static void test_pool(void **state)
{
	struct fixture f;
	struct null_task *t[4], *x;
	union doca_data z = {.u64 = 0};
	int i;

	(void)state;
	setup_ctx(&f, 4);
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_SUCCESS);
	for (i = 0; i < 4; i++)
		t[i] = alloc_task(&f, (uint64_t)i);
	assert_int_equal(null_task_alloc(f.nc, 9, z, &x), DOCA_ERROR_NO_MEMORY);
	doca_task_free(&t[2]->base);
	doca_task_free(&t[2]->base); /* double free: refused */
	assert_int_equal(f.nc->cls.allocated, 3);
	assert_int_equal(null_task_alloc(f.nc, 9, z, &x), DOCA_SUCCESS);
	assert_ptr_equal(x, t[2]);
	assert_int_equal(null_task_alloc(f.nc, 9, z, &x), DOCA_ERROR_NO_MEMORY);
	/* A freed task cannot be submitted. */
	doca_task_free(&t[3]->base);
	assert_int_equal(doca_task_submit(&t[3]->base), DOCA_ERROR_BAD_STATE);
	for (i = 0; i < 3; i++)
		doca_task_free(&t[i]->base);
	assert_int_equal(f.nc->cls.allocated, 0);
	teardown_ctx(&f);
}

/* Freeing a task the context holds (NVIDIA's secure_channel frees its
 * posted receive tasks before stopping): no error, the task stays the
 * context's until it completes, then returns to its pool without a
 * callback. */
static void test_owned_task_refused(void **state)
{
	struct fixture f;
	struct null_task *t, *u;

	(void)state;
	setup_ctx(&f, 2);
	f.nc->mode = NULL_MODE_HOLD;
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_SUCCESS);
	t = alloc_task(&f, 1);
	assert_int_equal(doca_task_submit(&t->base), DOCA_SUCCESS);
	doca_task_free(&t->base); /* submitted: released when it completes */
	assert_int_equal(f.nc->cls.allocated, 1);
	assert_int_equal(doca_task_submit(&t->base), DOCA_ERROR_BAD_STATE);
	doca_task_free(&t->base); /* twice: a double free, refused */
	null_ctx_release(f.nc);
	drain(f.pe); /* no callback; back in the pool */
	assert_int_equal(f.nc->cls.allocated, 0);
	assert_string_equal(events, "IDLE>RUNNING;");

	/* Completed but its callback has not run yet: the same. */
	t = alloc_task(&f, 2);
	u = alloc_task(&f, 3);
	assert_int_equal(doca_task_submit(&t->base), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(&u->base), DOCA_SUCCESS);
	null_ctx_release(f.nc);
	doca_task_free(&t->base);
	assert_int_equal(doca_task_submit(&t->base), DOCA_ERROR_BAD_STATE);
	assert_int_equal(f.nc->cls.allocated, 2);
	drain(f.pe); /* ok_cb frees u only */
	assert_int_equal(f.nc->cls.allocated, 0);
	assert_string_equal(events, "IDLE>RUNNING;ok3;");

	/* Freed while posted, then the stop flushes it: the context reaches
	 * IDLE, no error callback for it. */
	t = alloc_task(&f, 4);
	assert_int_equal(doca_task_submit(&t->base), DOCA_SUCCESS);
	doca_task_free(&t->base);
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_ERROR_IN_PROGRESS);
	drain(f.pe);
	assert_string_equal(events, "IDLE>RUNNING;ok3;RUNNING>STOPPING;STOPPING>IDLE;");
	/* The pool is whole again. */
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_SUCCESS);
	t = alloc_task(&f, 5);
	u = alloc_task(&f, 6);
	doca_task_free(&t->base);
	doca_task_free(&u->base);
	teardown_ctx(&f);
}

/* A callback that neither frees nor resubmits leaves the task with the user. */
static void keep_cb(struct doca_task *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task;
	(void)ctx_user_data;
	ev("kept%llu;", (unsigned long long)task_user_data.u64);
}

static void test_task_kept_after_callback(void **state)
{
	struct fixture f;
	struct null_task *t;

	(void)state;
	setup_ctx(&f, 1);
	f.nc->ok_cb = keep_cb;
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_SUCCESS);
	t = alloc_task(&f, 3);
	assert_int_equal(doca_task_submit(&t->base), DOCA_SUCCESS);
	drain(f.pe);
	assert_int_equal(doca_task_submit(&t->base), DOCA_SUCCESS);
	drain(f.pe);
	doca_task_free(&t->base);
	assert_int_equal(f.nc->cls.allocated, 0);
	assert_string_equal(events, "IDLE>RUNNING;kept3;kept3;");
	teardown_ctx(&f);
}

/* ---- several contexts on one PE; PE destroy with contexts ---- */

static void test_several_contexts(void **state)
{
	struct doca_pe *pe;
	struct null_ctx *nc[3];
	struct null_task *t;
	union doca_data ud;
	size_t n;
	int i, j;

	(void)state;
	memset(events, 0, sizeof(events));
	assert_int_equal(doca_pe_create(&pe), DOCA_SUCCESS);
	for (i = 0; i < 3; i++) {
		assert_int_equal(null_ctx_create(&nc[i]), DOCA_SUCCESS);
		assert_int_equal(null_ctx_set_conf(nc[i], ok_cb, err_cb, 4), DOCA_SUCCESS);
		assert_int_equal(doca_pe_connect_ctx(pe, null_ctx_as_ctx(nc[i])), DOCA_SUCCESS);
		assert_int_equal(doca_ctx_start(null_ctx_as_ctx(nc[i])), DOCA_SUCCESS);
	}
	nc[1]->mode = NULL_MODE_HOLD;
	for (i = 0; i < 3; i++)
		for (j = 0; j < 2; j++) {
			ud.u64 = (uint64_t)(10 * i + j);
			assert_int_equal(null_task_alloc(nc[i], 0, ud, &t), DOCA_SUCCESS);
			assert_int_equal(doca_task_submit(&t->base), DOCA_SUCCESS);
		}
	assert_int_equal(doca_pe_get_num_inflight_tasks(pe, &n), DOCA_SUCCESS);
	assert_int_equal(n, 6);
	assert_int_equal(doca_pe_destroy(pe), DOCA_ERROR_IN_USE);
	drain(pe);
	assert_string_equal(events, "ok0;ok1;ok20;ok21;");
	assert_int_equal(doca_pe_get_num_inflight_tasks(pe, &n), DOCA_SUCCESS);
	assert_int_equal(n, 2);
	assert_int_equal(doca_ctx_stop(null_ctx_as_ctx(nc[1])), DOCA_ERROR_IN_PROGRESS);
	/* The others keep running. */
	ud.u64 = 99;
	assert_int_equal(null_task_alloc(nc[2], 0, ud, &t), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(&t->base), DOCA_SUCCESS);
	drain(pe);
	assert_string_equal(events, "ok0;ok1;ok20;ok21;err10:DOCA_ERROR_IO_FAILED;err11:DOCA_ERROR_IO_FAILED;ok99;");
	for (i = 0; i < 3; i++) {
		enum doca_ctx_states st;

		(void)doca_ctx_stop(null_ctx_as_ctx(nc[i]));
		drain(pe);
		assert_int_equal(doca_ctx_get_state(null_ctx_as_ctx(nc[i]), &st), DOCA_SUCCESS);
		assert_int_equal(st, DOCA_CTX_STATE_IDLE);
		assert_int_equal(null_ctx_destroy(nc[i]), DOCA_SUCCESS);
		if (i < 2)
			assert_int_equal(doca_pe_destroy(pe), DOCA_ERROR_IN_USE);
	}
	assert_int_equal(doca_pe_destroy(pe), DOCA_SUCCESS);
}

/* The IDLE callback destroys its context and the PE (nothing may be touched after). */
static struct doca_pe *cb_pe;

static void destroy_on_idle_cb(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev,
			       enum doca_ctx_states next)
{
	(void)ctx;
	(void)prev;
	if (next == DOCA_CTX_STATE_IDLE) {
		assert_int_equal(null_ctx_destroy((struct null_ctx *)user_data.ptr), DOCA_SUCCESS);
		assert_int_equal(doca_pe_destroy(cb_pe), DOCA_SUCCESS);
		ev("destroyed;");
	}
}

static void test_destroy_from_idle_callback(void **state)
{
	struct fixture f;
	union doca_data ud;

	(void)state;
	setup_ctx(&f, 2);
	cb_pe = f.pe;
	ud.ptr = f.nc;
	assert_int_equal(doca_ctx_set_user_data(f.ctx, ud), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_set_state_changed_cb(f.ctx, destroy_on_idle_cb), DOCA_SUCCESS);
	f.nc->mode = NULL_MODE_HOLD;
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(&alloc_task(&f, 1)->base), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(doca_pe_progress(f.pe), 1); /* flush, IDLE, destroy ctx and PE (deferred) */
	assert_string_equal(events, "err1:DOCA_ERROR_IO_FAILED;destroyed;");
}

/* ---- event-driven waiting on the notification handle ---- */

static int wait_handle(doca_notification_handle_t h, int timeout_ms)
{
	struct epoll_event e;
	int ep = epoll_create1(0), r;

	assert_true(ep >= 0);
	e.events = EPOLLIN;
	e.data.fd = h;
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, h, &e), 0);
	r = epoll_wait(ep, &e, 1, timeout_ms);
	close(ep);
	return r;
}

static void *engine_thread(void *arg)
{
	struct null_ctx *nc = arg;
	struct timespec ts = {.tv_sec = 0, .tv_nsec = 30 * 1000 * 1000};

	nanosleep(&ts, NULL);
	atomic_store(&nc->thread_done, true);
	sd_pe_wake(nc->ctx.pe);
	return NULL;
}

static void test_notification(void **state)
{
	struct fixture f;
	doca_notification_handle_t h;
	pthread_t th;
	int r;

	(void)state;
	setup_ctx(&f, 4);
	assert_int_equal(doca_pe_get_notification_handle(f.pe, &h), DOCA_SUCCESS);
	f.nc->mode = NULL_MODE_THREAD;
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_SUCCESS);

	/* Nothing pending: armed handle stays quiet. */
	assert_int_equal(doca_pe_request_notification(f.pe), DOCA_SUCCESS);
	assert_int_equal(wait_handle(h, 0), 0);
	/* Not armed: a wake is only remembered, the fd stays quiet. */
	assert_int_equal(doca_pe_clear_notification(f.pe, h), DOCA_SUCCESS);
	sd_pe_wake(f.pe);
	assert_int_equal(wait_handle(h, 0), 0);
	/* ... and arming afterwards fires at once (no lost wake-up). */
	assert_int_equal(doca_pe_request_notification(f.pe), DOCA_SUCCESS);
	assert_int_equal(wait_handle(h, 0), 1);
	assert_int_equal(doca_pe_clear_notification(f.pe, h), DOCA_SUCCESS);
	assert_int_equal(wait_handle(h, 0), 0);
	drain(f.pe);

	/* An engine thread completes while we sleep in epoll. */
	assert_int_equal(doca_task_submit(&alloc_task(&f, 1)->base), DOCA_SUCCESS);
	while (doca_pe_progress(f.pe) != 0)
		;
	assert_int_equal(doca_pe_request_notification(f.pe), DOCA_SUCCESS);
	assert_int_equal(pthread_create(&th, NULL, engine_thread, f.nc), 0);
	r = wait_handle(h, 5000);
	assert_int_equal(r, 1);
	assert_int_equal(doca_pe_clear_notification(f.pe, h), DOCA_SUCCESS);
	assert_int_equal(doca_pe_progress(f.pe), 1);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_string_equal(events, "IDLE>RUNNING;ok1;");

	/* Completions already queued when arming: readable immediately. */
	f.nc->mode = NULL_MODE_IMMEDIATE;
	assert_int_equal(doca_task_submit(&alloc_task(&f, 2)->base), DOCA_SUCCESS);
	assert_int_equal(doca_pe_request_notification(f.pe), DOCA_SUCCESS);
	assert_int_equal(wait_handle(h, 1000), 1);
	assert_int_equal(doca_pe_clear_notification(f.pe, h), DOCA_SUCCESS);
	drain(f.pe);
	assert_string_equal(events, "IDLE>RUNNING;ok1;ok2;");

	/* A finished stop also counts as pending work. */
	f.nc->mode = NULL_MODE_HOLD;
	assert_int_equal(doca_task_submit(&alloc_task(&f, 3)->base), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(doca_pe_request_notification(f.pe), DOCA_SUCCESS);
	assert_int_equal(wait_handle(h, 1000), 1);
	assert_int_equal(doca_pe_clear_notification(f.pe, h), DOCA_SUCCESS);
	drain(f.pe);
	teardown_ctx(&f);
}

/* Fds a library watches (fabric sockets) are part of the handle. */
static void test_watch_fd(void **state)
{
	struct doca_pe *pe;
	doca_notification_handle_t h;
	int p[2];
	char c = 'x';

	(void)state;
	assert_int_equal(doca_pe_create(&pe), DOCA_SUCCESS);
	assert_int_equal(doca_pe_get_notification_handle(pe, &h), DOCA_SUCCESS);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(sd_pe_watch_fd(NULL, p[0]), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_pe_watch_fd(pe, -1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_pe_watch_fd(pe, p[0]), DOCA_SUCCESS);
	assert_int_equal(sd_pe_watch_fd(pe, p[0]), DOCA_ERROR_ALREADY_EXIST);
	assert_int_equal(wait_handle(h, 0), 0);
	assert_int_equal(write(p[1], &c, 1), 1);
	assert_int_equal(wait_handle(h, 1000), 1);
	sd_pe_unwatch_fd(pe, p[0]);
	assert_int_equal(wait_handle(h, 0), 0);
	close(p[0]);
	close(p[1]);
	assert_int_equal(doca_pe_destroy(pe), DOCA_SUCCESS);
}

/* ---- range profiling ---- */

static void test_profiling(void **state)
{
	struct fixture f;
	char path[] = "/tmp/sd_core_prof_XXXXXX";
	char buf[4096];
	int fd, saved, i, lines = 0;
	ssize_t len;
	char *p;

	(void)state;
	setup_ctx(&f, 4);
	assert_int_equal(doca_ctx_profiler_set_max_nranges(f.ctx, 1u << 30), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_profiler_set_max_nranges(f.ctx, 2), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_SUCCESS);
	for (i = 1; i <= 3; i++)
		assert_int_equal(doca_task_submit_ex(&alloc_task(&f, (uint64_t)i)->base,
						     DOCA_TASK_SUBMIT_FLAG_RANGE_PROFILING_REQUESTED),
				 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(&alloc_task(&f, 4)->base), DOCA_SUCCESS);
	drain(f.pe);

	fd = mkstemp(path);
	assert_true(fd >= 0);
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_SUCCESS);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	len = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	unlink(path);
	assert_true(len > 0);
	buf[len] = '\0';
	fputs(buf, stdout);
	assert_non_null(strstr(buf, "softdoca range profiling (NVTX is not available; submit->complete per task)"));
	assert_non_null(strstr(buf, "null_task"));
	assert_non_null(strstr(buf, "1 more ranges not recorded"));
	for (p = buf; (p = strstr(p, "null_task")) != NULL; p++)
		lines++;
	assert_int_equal(lines, 2);

	/* n = 0 disables it: nothing printed at the next stop. */
	assert_int_equal(doca_ctx_profiler_set_max_nranges(f.ctx, 0), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit_ex(&alloc_task(&f, 5)->base,
					     DOCA_TASK_SUBMIT_FLAG_RANGE_PROFILING_REQUESTED),
			 DOCA_SUCCESS);
	drain(f.pe);
	teardown_ctx(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_args_pe),
		cmocka_unit_test(test_bad_args_ctx),
		cmocka_unit_test(test_bad_args_task),
		cmocka_unit_test(test_polling),
		cmocka_unit_test(test_stop_flushes),
		cmocka_unit_test(test_stop_from_callback),
		cmocka_unit_test(test_async_start_stop),
		cmocka_unit_test(test_ctx_fail),
		cmocka_unit_test(test_failing_task),
		cmocka_unit_test(test_resubmit_from_callback),
		cmocka_unit_test(test_try_submit_and_again),
		cmocka_unit_test(test_pool),
		cmocka_unit_test(test_owned_task_refused),
		cmocka_unit_test(test_task_kept_after_callback),
		cmocka_unit_test(test_several_contexts),
		cmocka_unit_test(test_destroy_from_idle_callback),
		cmocka_unit_test(test_notification),
		cmocka_unit_test(test_watch_fd),
		cmocka_unit_test(test_profiling),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
