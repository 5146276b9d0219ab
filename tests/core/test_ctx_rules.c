/*
 * The DOCA rules of the ctx/task/PE core that NVIDIA's pe_* samples lean on,
 * one test each (null_ctx as the library; bad arguments first):
 *   - doca_ctx_stop answers as documented (idle: SUCCESS, stopping:
 *     IN_PROGRESS, NULL: INVALID_VALUE, not connected: NOT_CONNECTED);
 *   - a task whose execution fails (sd_task_fail) completes through its
 *     error callback, then the context moves to STOPPING and the remaining
 *     tasks are flushed (pe_task_error);
 *   - a context reaches IDLE only once every task allocated from it is freed;
 *   - doca_task_try_submit validates (the class's validate op), doca_task_submit
 *     does not: the same task is taken and fails at execution;
 *   - the notification handle: clear ignores its handle argument, drains and
 *     disarms; request clears what the last wait left; submitting to an armed
 *     PE, or arming with work waiting, wakes the sleeper at once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>
#include <doca_sync_event.h>

#include "null_ctx.h"

_Static_assert(SD_CTX_MAX_TASK_CLASSES >= 5, "a context may have at least 5 task types (sync event has 5)");

static char events[4096];

static void ev(const char *fmt, ...)
{
	size_t len = strlen(events);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(events + len, sizeof(events) - len, fmt, ap);
	va_end(ap);
}

static const char *st_name(enum doca_ctx_states s)
{
	static const char *const n[] = {"IDLE", "STARTING", "RUNNING", "STOPPING"};

	return (unsigned)s < 4 ? n[s] : "?";
}

static void state_cb(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
		     enum doca_ctx_states next)
{
	(void)ud;
	(void)ctx;
	ev("%s>%s;", st_name(prev), st_name(next));
}

static bool free_in_cb = true;

static void ok_cb(struct doca_task *task, union doca_data tud, union doca_data cud)
{
	(void)cud;
	ev("ok%llu;", (unsigned long long)tud.u64);
	if (free_in_cb)
		doca_task_free(task);
}

static void err_cb(struct doca_task *task, union doca_data tud, union doca_data cud)
{
	(void)cud;
	ev("err%llu:%s;", (unsigned long long)tud.u64, doca_error_get_name(doca_task_get_status(task)));
	if (free_in_cb)
		doca_task_free(task);
}

struct fx {
	struct doca_pe *pe;
	struct null_ctx *nc;
	struct doca_ctx *ctx;
	doca_notification_handle_t h;
};

static void fx_open(struct fx *f, enum null_mode mode, uint32_t num_tasks)
{
	memset(events, 0, sizeof(events));
	free_in_cb = true;
	assert_int_equal(doca_pe_create(&f->pe), DOCA_SUCCESS);
	assert_int_equal(null_ctx_create(&f->nc), DOCA_SUCCESS);
	f->ctx = null_ctx_as_ctx(f->nc);
	f->nc->mode = mode;
	assert_int_equal(null_ctx_set_conf(f->nc, ok_cb, err_cb, num_tasks), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_set_state_changed_cb(f->ctx, state_cb), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(f->pe, f->ctx), DOCA_SUCCESS);
	assert_int_equal(doca_pe_get_notification_handle(f->pe, &f->h), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(f->ctx), DOCA_SUCCESS);
}

static enum doca_ctx_states state_of(struct fx *f)
{
	enum doca_ctx_states st;

	assert_int_equal(doca_ctx_get_state(f->ctx, &st), DOCA_SUCCESS);
	return st;
}

static void fx_close(struct fx *f)
{
	int guard = 0;

	(void)doca_ctx_stop(f->ctx);
	while (state_of(f) != DOCA_CTX_STATE_IDLE && ++guard < 1000)
		doca_pe_progress(f->pe);
	assert_int_equal(state_of(f), DOCA_CTX_STATE_IDLE);
	assert_int_equal(null_ctx_destroy(f->nc), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(f->pe), DOCA_SUCCESS);
}

static struct null_task *task(struct fx *f, uint64_t id)
{
	struct null_task *t = NULL;
	union doca_data ud = {.u64 = id};

	assert_int_equal(null_task_alloc(f->nc, id, ud, &t), DOCA_SUCCESS);
	return t;
}

static void drain(struct doca_pe *pe)
{
	int guard = 0;

	while (doca_pe_progress(pe) != 0 && ++guard < 10000)
		;
}

/* 1 if the handle is readable within timeout_ms. */
static int readable(doca_notification_handle_t h, int timeout_ms)
{
	struct epoll_event e = {.events = EPOLLIN};
	int ep = epoll_create1(0), r;

	assert_true(ep >= 0);
	e.data.fd = h;
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, h, &e), 0);
	r = epoll_wait(ep, &e, 1, timeout_ms);
	close(ep);
	return r;
}

/* ---- doca_ctx_stop return codes ---- */

static void test_stop_return_codes(void **state)
{
	struct fx f;
	struct null_ctx *lone;

	(void)state;
	assert_int_equal(doca_ctx_stop(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(null_ctx_create(&lone), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_stop(null_ctx_as_ctx(lone)), DOCA_ERROR_NOT_CONNECTED);
	assert_int_equal(null_ctx_destroy(lone), DOCA_SUCCESS);

	fx_open(&f, NULL_MODE_HOLD, 4);
	assert_int_equal(doca_task_submit(&task(&f, 1)->base), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_ERROR_IN_PROGRESS); /* still stopping */
	drain(f.pe);
	assert_int_equal(state_of(&f), DOCA_CTX_STATE_IDLE);
	/* Stopped: stopping again is no error, and changes nothing. */
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_SUCCESS);
	assert_string_equal(events, "IDLE>RUNNING;RUNNING>STOPPING;err1:DOCA_ERROR_IO_FAILED;STOPPING>IDLE;");
	/* Startable again after that. */
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_SUCCESS);
	fx_close(&f);
}

/* ---- a failed task stops its context (pe_task_error) ---- */

static void test_failed_task_stops_ctx(void **state)
{
	struct fx f;
	struct null_task *t[5];
	size_t n;
	int i;

	(void)state;
	fx_open(&f, NULL_MODE_PROGRESS, 8);
	for (i = 0; i < 5; i++)
		t[i] = task(&f, (uint64_t)i + 1);
	t[2]->fatal = true;
	t[2]->result = DOCA_ERROR_DRIVER;
	for (i = 0; i < 5; i++)
		assert_int_equal(doca_task_submit(&t[i]->base), DOCA_SUCCESS);

	/* 1, 2 done; 3 fails: its error callback, then STOPPING, 4 and 5 flushed. */
	assert_int_equal(doca_pe_progress(f.pe), 1);
	assert_string_equal(events, "IDLE>RUNNING;ok1;ok2;err3:DOCA_ERROR_DRIVER;RUNNING>STOPPING;");
	assert_int_equal(state_of(&f), DOCA_CTX_STATE_STOPPING);
	assert_int_equal(doca_ctx_get_num_inflight_tasks(f.ctx, &n), DOCA_SUCCESS);
	assert_int_equal(n, 2);
	/* No new work is taken while stopping. */
	{
		struct null_task *x;
		union doca_data z = {.u64 = 0};

		assert_int_equal(null_task_alloc(f.nc, 9, z, &x), DOCA_ERROR_BAD_STATE);
	}
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_ERROR_IN_PROGRESS);
	drain(f.pe);
	assert_string_equal(events, "IDLE>RUNNING;ok1;ok2;err3:DOCA_ERROR_DRIVER;RUNNING>STOPPING;"
				    "err4:DOCA_ERROR_IO_FAILED;err5:DOCA_ERROR_IO_FAILED;STOPPING>IDLE;");
	assert_int_equal(state_of(&f), DOCA_CTX_STATE_IDLE);
	fx_close(&f);
}

/* A task completed with an error through sd_task_complete does not stop the
 * context (libraries whose task errors are not fatal, e.g. a Comch send). */
static void test_nonfatal_error_keeps_running(void **state)
{
	struct fx f;
	struct null_task *t;

	(void)state;
	fx_open(&f, NULL_MODE_PROGRESS, 4);
	t = task(&f, 1);
	t->result = DOCA_ERROR_NOT_CONNECTED;
	assert_int_equal(doca_task_submit(&t->base), DOCA_SUCCESS);
	drain(f.pe);
	assert_int_equal(state_of(&f), DOCA_CTX_STATE_RUNNING);
	assert_string_equal(events, "IDLE>RUNNING;err1:DOCA_ERROR_NOT_CONNECTED;");
	fx_close(&f);
}

/* A callback that stops the context itself while a failure is pending: one
 * STOPPING transition, no double stop. */
static void stop_cb(struct doca_task *task, union doca_data tud, union doca_data cud)
{
	struct doca_ctx *ctx = doca_task_get_ctx(task);

	err_cb(task, tud, cud);
	assert_int_equal(doca_ctx_stop(ctx), DOCA_ERROR_IN_PROGRESS);
}

static void test_failed_task_stop_in_callback(void **state)
{
	struct fx f;
	struct null_task *t;

	(void)state;
	fx_open(&f, NULL_MODE_PROGRESS, 4);
	f.nc->err_cb = stop_cb;
	t = task(&f, 1);
	t->bad_param = true;
	assert_int_equal(doca_task_submit(&t->base), DOCA_SUCCESS);
	drain(f.pe);
	assert_string_equal(events, "IDLE>RUNNING;err1:DOCA_ERROR_INVALID_VALUE;RUNNING>STOPPING;STOPPING>IDLE;");
	fx_close(&f);
}

/* ---- IDLE only when every task is freed ---- */

static void test_idle_needs_tasks_freed(void **state)
{
	struct fx f;
	struct null_task *a, *b, *c;

	(void)state;
	fx_open(&f, NULL_MODE_PROGRESS, 4);
	a = task(&f, 1);
	b = task(&f, 2);
	/* Allocated, never submitted: stop cannot finish. */
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_ERROR_IN_PROGRESS);
	drain(f.pe);
	assert_int_equal(state_of(&f), DOCA_CTX_STATE_STOPPING);
	assert_int_equal(null_ctx_destroy(f.nc), DOCA_ERROR_BAD_STATE);
	doca_task_free(&a->base);
	drain(f.pe);
	assert_int_equal(state_of(&f), DOCA_CTX_STATE_STOPPING);
	doca_task_free(&b->base);
	assert_int_equal(doca_pe_progress(f.pe), 1);
	assert_int_equal(state_of(&f), DOCA_CTX_STATE_IDLE);
	assert_string_equal(events, "IDLE>RUNNING;RUNNING>STOPPING;STOPPING>IDLE;");

	/* A flushed task the callback keeps: IDLE once the program frees it. */
	memset(events, 0, sizeof(events));
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_SUCCESS);
	f.nc->mode = NULL_MODE_HOLD;
	free_in_cb = false;
	c = task(&f, 3);
	assert_int_equal(doca_task_submit(&c->base), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_ERROR_IN_PROGRESS);
	drain(f.pe);
	assert_string_equal(events, "IDLE>RUNNING;RUNNING>STOPPING;err3:DOCA_ERROR_IO_FAILED;");
	assert_int_equal(state_of(&f), DOCA_CTX_STATE_STOPPING);
	/* Freed outside progress by a program that sleeps on the handle: the
	 * pending IDLE transition wakes it. */
	assert_int_equal(doca_pe_request_notification(f.pe), DOCA_SUCCESS);
	assert_int_equal(readable(f.h, 0), 0);
	doca_task_free(&c->base);
	assert_int_equal(readable(f.h, 1000), 1);
	assert_int_equal(doca_pe_clear_notification(f.pe, 0), DOCA_SUCCESS);
	assert_int_equal(doca_pe_progress(f.pe), 1);
	assert_int_equal(state_of(&f), DOCA_CTX_STATE_IDLE);
	fx_close(&f);
}

/* ---- try_submit validates, submit does not ---- */

static void test_try_submit_validates(void **state)
{
	struct fx f;
	struct null_task *t;

	(void)state;
	assert_int_equal(doca_task_try_submit(NULL), DOCA_ERROR_INVALID_VALUE);
	fx_open(&f, NULL_MODE_PROGRESS, 4);
	t = task(&f, 1);
	t->bad_param = true;
	assert_int_equal(doca_task_try_submit(&t->base), DOCA_ERROR_INVALID_VALUE);
	/* Refused: still the program's, nothing in flight, still running. */
	assert_int_equal(doca_task_try_submit(&t->base), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(f.ctx->inflight, 0);
	drain(f.pe);
	assert_int_equal(state_of(&f), DOCA_CTX_STATE_RUNNING);
	/* Fixed, it goes through. */
	t->bad_param = false;
	assert_int_equal(doca_task_try_submit(&t->base), DOCA_SUCCESS);
	assert_int_equal(doca_task_try_submit(&t->base), DOCA_ERROR_BAD_STATE); /* submitted */
	drain(f.pe);
	/* What submit refuses, try_submit refuses too. */
	t = task(&f, 2);
	t->invalid = true;
	assert_int_equal(doca_task_try_submit(&t->base), DOCA_ERROR_INVALID_VALUE);
	doca_task_free(&t->base);
	/* doca_task_submit does not validate: taken, fails when executed. */
	t = task(&f, 3);
	t->bad_param = true;
	assert_int_equal(doca_task_submit(&t->base), DOCA_SUCCESS);
	drain(f.pe);
	assert_string_equal(events, "IDLE>RUNNING;ok1;err3:DOCA_ERROR_INVALID_VALUE;RUNNING>STOPPING;STOPPING>IDLE;");
	/* Not running: BAD_STATE before any validation. */
	assert_int_equal(doca_ctx_start(f.ctx), DOCA_SUCCESS);
	t = task(&f, 4);
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_ERROR_IN_PROGRESS);
	t->bad_param = true;
	assert_int_equal(doca_task_try_submit(&t->base), DOCA_ERROR_BAD_STATE);
	doca_task_free(&t->base);
	fx_close(&f);
}

/* ---- notification handle ---- */

static void test_clear_notification(void **state)
{
	struct fx f;

	(void)state;
	assert_int_equal(doca_pe_clear_notification(NULL, 0), DOCA_ERROR_INVALID_VALUE);
	fx_open(&f, NULL_MODE_HOLD, 4);
	/* Armed and woken: readable until cleared; clear ignores the handle. */
	assert_int_equal(doca_pe_request_notification(f.pe), DOCA_SUCCESS);
	sd_pe_wake(f.pe);
	assert_int_equal(readable(f.h, 1000), 1);
	assert_int_equal(readable(f.h, 0), 1); /* level: still readable */
	assert_int_equal(doca_pe_clear_notification(f.pe, 0), DOCA_SUCCESS);
	assert_int_equal(readable(f.h, 0), 0); /* drained */
	/* Disarmed: a wake is remembered, not signalled... */
	sd_pe_wake(f.pe);
	assert_int_equal(readable(f.h, 0), 0);
	/* ... until the next arm. */
	assert_int_equal(doca_pe_request_notification(f.pe), DOCA_SUCCESS);
	assert_int_equal(readable(f.h, 0), 1);
	assert_int_equal(doca_pe_clear_notification(f.pe, f.h + 77), DOCA_SUCCESS);
	assert_int_equal(readable(f.h, 0), 0);
	drain(f.pe);
	/* Arming clears what the previous wait left (PROGRESS_ALL on Linux). */
	assert_int_equal(doca_pe_request_notification(f.pe), DOCA_SUCCESS);
	sd_pe_wake(f.pe);
	assert_int_equal(readable(f.h, 0), 1);
	drain(f.pe); /* the program progressed without clearing */
	assert_int_equal(doca_pe_request_notification(f.pe), DOCA_SUCCESS);
	assert_int_equal(readable(f.h, 0), 0);
	fx_close(&f);
}

/* Nobody polls: a program that arms and sleeps is woken by work it
 * submitted, before or after arming. */
static void test_wake_without_polling(void **state)
{
	struct fx f;

	(void)state;
	fx_open(&f, NULL_MODE_PROGRESS, 4);
	/* Arm, then submit: the submit wakes the handle. */
	assert_int_equal(doca_pe_request_notification(f.pe), DOCA_SUCCESS);
	assert_int_equal(readable(f.h, 0), 0);
	assert_int_equal(doca_task_submit(&task(&f, 1)->base), DOCA_SUCCESS);
	assert_int_equal(readable(f.h, 1000), 1);
	assert_int_equal(doca_pe_clear_notification(f.pe, 0), DOCA_SUCCESS);
	drain(f.pe);
	/* Submit, then arm: the work waiting makes the arm fire at once. */
	assert_int_equal(doca_task_submit(&task(&f, 2)->base), DOCA_SUCCESS);
	assert_int_equal(doca_pe_request_notification(f.pe), DOCA_SUCCESS);
	assert_int_equal(readable(f.h, 1000), 1);
	assert_int_equal(doca_pe_clear_notification(f.pe, 0), DOCA_SUCCESS);
	drain(f.pe);
	/* Nothing left: the armed handle stays quiet. */
	assert_int_equal(doca_pe_request_notification(f.pe), DOCA_SUCCESS);
	assert_int_equal(readable(f.h, 50), 0);
	assert_string_equal(events, "IDLE>RUNNING;ok1;ok2;");
	/* A pending failure is work too. */
	f.nc->mode = NULL_MODE_IMMEDIATE;
	{
		struct null_task *t = task(&f, 3);

		t->fatal = true;
		t->result = DOCA_ERROR_DRIVER;
		assert_int_equal(doca_pe_clear_notification(f.pe, 0), DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(&t->base), DOCA_SUCCESS);
	}
	assert_int_equal(doca_pe_request_notification(f.pe), DOCA_SUCCESS);
	assert_int_equal(readable(f.h, 1000), 1);
	drain(f.pe);
	assert_int_equal(state_of(&f), DOCA_CTX_STATE_IDLE);
	fx_close(&f);
}

/* ---- a context with 5 task types: sync event, one pool each ---- */

static void eq_cb(struct doca_sync_event_task_wait_eq *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	doca_task_free(doca_sync_event_task_wait_eq_as_doca_task(t));
}

static void neq_cb(struct doca_sync_event_task_wait_neq *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	doca_task_free(doca_sync_event_task_wait_neq_as_doca_task(t));
}

static void test_sync_event_wait_pools(void **state)
{
	struct doca_devinfo **list;
	struct doca_dev *dev;
	struct doca_sync_event *se;
	struct doca_ctx *ctx;
	struct doca_pe *pe;
	struct doca_sync_event_task_wait_eq *e[3];
	struct doca_sync_event_task_wait_neq *q[2];
	union doca_data ud = {.u64 = 0};
	enum doca_ctx_states st;
	uint32_t n;
	int guard = 0;

	(void)state;
	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	assert_true(n >= 1);
	assert_int_equal(doca_dev_open(list[0], &dev), DOCA_SUCCESS);
	assert_int_equal(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_create(&se), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_publisher_location_remote_pci(se), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_subscriber_location_cpu(se, dev), DOCA_SUCCESS);
	ctx = doca_sync_event_as_ctx(se);
	assert_non_null(ctx);
	assert_int_equal(doca_pe_create(&pe), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_task_wait_eq_set_conf(se, eq_cb, eq_cb, 2), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_task_wait_neq_set_conf(se, neq_cb, neq_cb, 1), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(ctx), DOCA_SUCCESS);
	/* wait_eq has its own 2 tasks, wait_neq its own 1: neither takes the other's. */
	assert_int_equal(doca_sync_event_task_wait_eq_alloc_init(se, 1, UINT64_MAX, ud, &e[0]), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_task_wait_eq_alloc_init(se, 1, UINT64_MAX, ud, &e[1]), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_task_wait_eq_alloc_init(se, 1, UINT64_MAX, ud, &e[2]), DOCA_ERROR_NO_MEMORY);
	assert_int_equal(doca_sync_event_task_wait_neq_alloc_init(se, 1, UINT64_MAX, ud, &q[0]), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_task_wait_neq_alloc_init(se, 1, UINT64_MAX, ud, &q[1]), DOCA_ERROR_NO_MEMORY);
	doca_task_free(doca_sync_event_task_wait_eq_as_doca_task(e[0]));
	assert_int_equal(doca_sync_event_task_wait_neq_alloc_init(se, 1, UINT64_MAX, ud, &q[1]), DOCA_ERROR_NO_MEMORY);
	assert_int_equal(doca_sync_event_task_wait_eq_alloc_init(se, 1, UINT64_MAX, ud, &e[0]), DOCA_SUCCESS);
	doca_task_free(doca_sync_event_task_wait_eq_as_doca_task(e[0]));
	doca_task_free(doca_sync_event_task_wait_eq_as_doca_task(e[1]));
	doca_task_free(doca_sync_event_task_wait_neq_as_doca_task(q[0]));
	(void)doca_ctx_stop(ctx);
	do {
		doca_pe_progress(pe);
		assert_int_equal(doca_ctx_get_state(ctx, &st), DOCA_SUCCESS);
	} while (st != DOCA_CTX_STATE_IDLE && ++guard < 1000);
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_int_equal(doca_sync_event_destroy(se), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(pe), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stop_return_codes),
		cmocka_unit_test(test_failed_task_stops_ctx),
		cmocka_unit_test(test_nonfatal_error_keeps_running),
		cmocka_unit_test(test_failed_task_stop_in_callback),
		cmocka_unit_test(test_idle_needs_tasks_freed),
		cmocka_unit_test(test_try_submit_validates),
		cmocka_unit_test(test_clear_notification),
		cmocka_unit_test(test_wake_without_polling),
		cmocka_unit_test(test_sync_event_wait_pools),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
