/* DOCA graph conformance tests: public API, with null contexts as the nodes' contexts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include <cmocka.h>

#include <doca_ctx.h>
#include <doca_error.h>
#include <doca_graph.h>
#include <doca_pe.h>

#include "null_ctx.h"

#define OK(x) assert_int_equal((x), DOCA_SUCCESS)

/* What the callbacks saw, in order. */
static char events[4096];

static void ev(const char *fmt, ...)
{
	size_t len = strlen(events);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(events + len, sizeof(events) - len, fmt, ap);
	va_end(ap);
}

/* Task callbacks: a task run by a graph must never reach them. */
static void task_ok_cb(struct doca_task *task, union doca_data tud, union doca_data cud)
{
	(void)task;
	(void)cud;
	ev("task-ok%llu;", (unsigned long long)tud.u64);
}

static void task_err_cb(struct doca_task *task, union doca_data tud, union doca_data cud)
{
	(void)task;
	(void)cud;
	ev("task-err%llu;", (unsigned long long)tud.u64);
}

struct user_cookie {
	const char *name;
	doca_error_t result;
};

static doca_error_t user_cb(void *cookie)
{
	struct user_cookie *c = cookie;

	ev("%s;", c != NULL ? c->name : "null");
	return c != NULL ? c->result : DOCA_SUCCESS;
}

static int resubmits; /* completions left to resubmit from the callback */

static void graph_ok_cb(struct doca_graph_instance *inst, union doca_data iud, union doca_data gud)
{
	(void)gud;
	ev("done%llu;", (unsigned long long)iud.u64);
	if (resubmits > 0) {
		resubmits--;
		OK(doca_graph_instance_submit(inst));
	}
}

static void graph_err_cb(struct doca_graph_instance *inst, union doca_data iud, union doca_data gud)
{
	(void)inst;
	(void)gud;
	ev("failed%llu;", (unsigned long long)iud.u64);
}

struct fx {
	struct doca_pe *pe;
	struct null_ctx *nc[2];
	struct doca_ctx *ctx[2];
	struct doca_graph *graph;
};

static void fx_open(struct fx *f, enum null_mode mode, uint32_t num_tasks)
{
	int i;

	memset(f, 0, sizeof(*f));
	memset(events, 0, sizeof(events));
	resubmits = 0;
	OK(doca_pe_create(&f->pe));
	for (i = 0; i < 2; i++) {
		OK(null_ctx_create(&f->nc[i]));
		f->nc[i]->mode = mode;
		f->ctx[i] = null_ctx_as_ctx(f->nc[i]);
		OK(null_ctx_set_conf(f->nc[i], task_ok_cb, task_err_cb, num_tasks));
		OK(doca_pe_connect_ctx(f->pe, f->ctx[i]));
		OK(doca_ctx_start(f->ctx[i]));
	}
	OK(doca_graph_create(f->pe, &f->graph));
}

static void drain(struct doca_pe *pe)
{
	int guard = 0;

	while (doca_pe_progress(pe) != 0 && ++guard < 10000)
		;
}

static void fx_close(struct fx *f)
{
	enum doca_ctx_states st;
	int i, guard;

	if (f->graph != NULL) {
		OK(doca_graph_stop(f->graph));
		OK(doca_graph_destroy(f->graph));
	}
	for (i = 0; i < 2; i++) {
		(void)doca_ctx_stop(f->ctx[i]);
		guard = 0;
		do {
			doca_pe_progress(f->pe);
			OK(doca_ctx_get_state(f->ctx[i], &st));
		} while (st != DOCA_CTX_STATE_IDLE && ++guard < 1000);
		assert_int_equal(st, DOCA_CTX_STATE_IDLE);
		OK(null_ctx_destroy(f->nc[i]));
	}
	OK(doca_pe_destroy(f->pe));
}

static struct doca_task *new_task(struct fx *f, int ctx, uint64_t id)
{
	struct null_task *t = NULL;
	union doca_data ud = {.u64 = id};

	OK(null_task_alloc(f->nc[ctx], id, ud, &t));
	return &t->base;
}

static void set_inst_id(struct doca_graph_instance *inst, uint64_t id)
{
	union doca_data ud = {.u64 = id};

	OK(doca_graph_instance_set_user_data(inst, ud));
}

/* ---- bad arguments and wrong states ---- */

static void test_bad_args(void **state)
{
	struct fx f;
	struct doca_graph *g2;
	struct doca_graph_node *n_ctx, *n_user, *n_other, *n;
	struct doca_graph_instance *inst, *inst2;
	struct doca_task *task, *task_other;
	union doca_data ud;

	(void)state;
	assert_int_equal(doca_graph_create(NULL, &g2), DOCA_ERROR_INVALID_VALUE);
	fx_open(&f, NULL_MODE_HOLD, 8);
	assert_int_equal(doca_graph_create(f.pe, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_set_conf(NULL, graph_ok_cb, graph_err_cb, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_set_conf(f.graph, NULL, graph_err_cb, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_set_conf(f.graph, graph_ok_cb, NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_set_conf(f.graph, graph_ok_cb, graph_err_cb, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_set_user_data(NULL, ud), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_get_user_data(NULL, &ud), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_get_user_data(f.graph, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_node_create_from_ctx(NULL, f.ctx[0], &n), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_node_create_from_ctx(f.graph, NULL, &n), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_node_create_from_ctx(f.graph, f.ctx[0], NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_node_create_from_user(f.graph, NULL, &n), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_node_create_from_user(NULL, user_cb, &n), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_node_create_from_graph(f.graph, NULL, &n), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_node_create_from_graph(f.graph, f.graph, &n), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_graph_start(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_stop(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_stop(f.graph), DOCA_SUCCESS); /* already stopped */
	assert_int_equal(doca_graph_instance_create(NULL, &inst), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_instance_create(f.graph, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_instance_create(f.graph, &inst), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_instance_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_instance_submit(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_instance_set_user_data(NULL, ud), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_instance_get_user_data(NULL, &ud), DOCA_ERROR_INVALID_VALUE);

	/* Start needs a configuration and a context node. */
	OK(doca_graph_node_create_from_user(f.graph, user_cb, &n_user));
	assert_int_equal(doca_graph_start(f.graph), DOCA_ERROR_BAD_STATE);
	OK(doca_graph_set_conf(f.graph, graph_ok_cb, graph_err_cb, 1));
	assert_int_equal(doca_graph_start(f.graph), DOCA_ERROR_BAD_STATE);
	OK(doca_graph_node_create_from_ctx(f.graph, f.ctx[0], &n_ctx));

	/* Dependencies: both nodes of this graph, no self loop, no cycle. */
	OK(doca_graph_create(f.pe, &g2));
	OK(doca_graph_node_create_from_ctx(g2, f.ctx[1], &n_other));
	assert_int_equal(doca_graph_add_dependency(NULL, n_ctx, n_user), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_add_dependency(f.graph, NULL, n_user), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_add_dependency(f.graph, n_ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_add_dependency(f.graph, n_ctx, n_other), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_add_dependency(f.graph, n_ctx, n_ctx), DOCA_ERROR_NOT_PERMITTED);
	OK(doca_graph_add_dependency(f.graph, n_ctx, n_user));
	OK(doca_graph_add_dependency(f.graph, n_ctx, n_user)); /* again: nothing new */
	assert_int_equal(doca_graph_add_dependency(f.graph, n_user, n_ctx), DOCA_ERROR_NOT_PERMITTED);

	/* A context that is not running blocks the start. */
	OK(doca_ctx_stop(f.ctx[0]));
	assert_int_equal(doca_graph_start(f.graph), DOCA_ERROR_BAD_STATE);
	OK(doca_ctx_start(f.ctx[0]));
	OK(doca_graph_start(f.graph));
	assert_int_equal(doca_graph_start(f.graph), DOCA_ERROR_BAD_STATE);

	/* Started: the shape and the configuration are frozen. */
	assert_int_equal(doca_graph_node_create_from_user(f.graph, user_cb, &n), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_node_create_from_ctx(f.graph, f.ctx[1], &n), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_add_dependency(f.graph, n_ctx, n_user), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_set_conf(f.graph, graph_ok_cb, graph_err_cb, 2), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_set_user_data(f.graph, ud), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_destroy(f.graph), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_pe_destroy(f.pe), DOCA_ERROR_IN_USE);

	/* Instances: within num_instances, node data checked. */
	OK(doca_graph_instance_create(f.graph, &inst));
	assert_int_equal(doca_graph_instance_create(f.graph, &inst2), DOCA_ERROR_NO_MEMORY);
	assert_int_equal(doca_graph_instance_get_user_data(inst, NULL), DOCA_ERROR_INVALID_VALUE);
	task = new_task(&f, 0, 1);
	task_other = new_task(&f, 1, 2);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(NULL, n_ctx, task), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, NULL, task), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, n_ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, n_user, task), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, n_other, task), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, n_ctx, task_other), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, n_ctx, NULL), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_graph_instance_set_user_node_data(NULL, n_user, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_instance_set_sub_graph_node_data(inst, n_ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	/* The context node has no task yet. */
	assert_int_equal(doca_graph_instance_submit(inst), DOCA_ERROR_INVALID_VALUE);
	OK(doca_graph_instance_set_ctx_node_data(inst, n_ctx, task));
	OK(doca_graph_instance_submit(inst));
	assert_int_equal(doca_graph_instance_submit(inst), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, n_ctx, task), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_instance_set_user_data(inst, ud), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_graph_instance_destroy(inst), DOCA_ERROR_IN_USE);
	null_ctx_release(f.nc[0]);
	drain(f.pe);
	assert_string_equal(events, "null;done0;");

	assert_int_equal(doca_graph_stop(f.graph), DOCA_ERROR_IN_USE);
	OK(doca_graph_instance_destroy(inst));
	doca_task_free(task);
	doca_task_free(task_other);
	OK(doca_graph_destroy(g2));
	fx_close(&f);
}

/* ---- dependency order ---- */

/*
 *        A (ctx 0)
 *       /         \
 *   B (user)    C (user)
 *       \         /
 *        D (ctx 1)
 *            |
 *        E (user)
 */
static void test_order(void **state)
{
	struct fx f;
	struct doca_graph_node *a, *b, *c, *d, *e;
	struct doca_graph_instance *inst;
	struct doca_task *ta, *td;
	struct user_cookie cb = {"B", DOCA_SUCCESS}, cc = {"C", DOCA_SUCCESS}, ce = {"E", DOCA_SUCCESS};
	union doca_data gud = {.u64 = 77}, out;
	size_t inflight;

	(void)state;
	fx_open(&f, NULL_MODE_HOLD, 4);
	/* Nodes created out of order: only the dependencies decide. */
	OK(doca_graph_node_create_from_user(f.graph, user_cb, &e));
	OK(doca_graph_node_create_from_ctx(f.graph, f.ctx[1], &d));
	OK(doca_graph_node_create_from_user(f.graph, user_cb, &b));
	OK(doca_graph_node_create_from_user(f.graph, user_cb, &c));
	OK(doca_graph_node_create_from_ctx(f.graph, f.ctx[0], &a));
	OK(doca_graph_add_dependency(f.graph, a, b));
	OK(doca_graph_add_dependency(f.graph, a, c));
	OK(doca_graph_add_dependency(f.graph, b, d));
	OK(doca_graph_add_dependency(f.graph, c, d));
	OK(doca_graph_add_dependency(f.graph, d, e));
	assert_int_equal(doca_graph_add_dependency(f.graph, e, a), DOCA_ERROR_NOT_PERMITTED);
	OK(doca_graph_set_conf(f.graph, graph_ok_cb, graph_err_cb, 1));
	OK(doca_graph_set_user_data(f.graph, gud));
	OK(doca_graph_get_user_data(f.graph, &out));
	assert_int_equal(out.u64, 77);
	OK(doca_graph_start(f.graph));

	OK(doca_graph_instance_create(f.graph, &inst));
	set_inst_id(inst, 5);
	OK(doca_graph_instance_get_user_data(inst, &out));
	assert_int_equal(out.u64, 5);
	ta = new_task(&f, 0, 1);
	td = new_task(&f, 1, 2);
	OK(doca_graph_instance_set_ctx_node_data(inst, a, ta));
	OK(doca_graph_instance_set_ctx_node_data(inst, d, td));
	OK(doca_graph_instance_set_user_node_data(inst, b, &cb));
	OK(doca_graph_instance_set_user_node_data(inst, c, &cc));
	OK(doca_graph_instance_set_user_node_data(inst, e, &ce));

	OK(doca_graph_instance_submit(inst));
	/* Only the root's task is submitted; nothing else runs yet. */
	assert_int_equal(f.nc[0]->nheld, 1);
	assert_ptr_equal(f.nc[0]->held[0], ta);
	assert_int_equal(f.nc[1]->nheld, 0);
	OK(doca_ctx_get_num_inflight_tasks(f.ctx[0], &inflight));
	assert_int_equal(inflight, 1);
	drain(f.pe);
	assert_string_equal(events, "");

	null_ctx_release(f.nc[0]);
	drain(f.pe);
	assert_string_equal(events, "B;C;");
	assert_int_equal(f.nc[1]->nheld, 1);
	assert_ptr_equal(f.nc[1]->held[0], td);

	null_ctx_release(f.nc[1]);
	drain(f.pe);
	/* The tasks' own callbacks never ran. */
	assert_string_equal(events, "B;C;E;done5;");
	assert_int_equal(doca_task_get_status(ta), DOCA_SUCCESS);

	OK(doca_graph_instance_destroy(inst));
	doca_task_free(ta);
	doca_task_free(td);
	fx_close(&f);
}

/* ---- instance reuse and concurrent instances ---- */

#define NINST 4

static void test_reuse(void **state)
{
	struct fx f;
	struct doca_graph_node *a, *b;
	struct doca_graph_instance *inst[NINST];
	struct doca_task *task[NINST];
	int i;

	(void)state;
	fx_open(&f, NULL_MODE_IMMEDIATE, NINST);
	OK(doca_graph_node_create_from_ctx(f.graph, f.ctx[0], &a));
	OK(doca_graph_node_create_from_user(f.graph, user_cb, &b));
	OK(doca_graph_add_dependency(f.graph, a, b));
	OK(doca_graph_set_conf(f.graph, graph_ok_cb, graph_err_cb, NINST));
	OK(doca_graph_start(f.graph));
	for (i = 0; i < NINST; i++) {
		OK(doca_graph_instance_create(f.graph, &inst[i]));
		set_inst_id(inst[i], (uint64_t)i);
		task[i] = new_task(&f, 0, (uint64_t)i);
		OK(doca_graph_instance_set_ctx_node_data(inst[i], a, task[i]));
	}

	/* One instance, resubmitted twice from its completion callback, then once more. */
	resubmits = 2;
	OK(doca_graph_instance_submit(inst[0]));
	drain(f.pe);
	assert_string_equal(events, "null;done0;null;done0;null;done0;");
	memset(events, 0, sizeof(events));
	OK(doca_graph_instance_submit(inst[0]));
	drain(f.pe);
	assert_string_equal(events, "null;done0;");

	/* All instances at once. */
	memset(events, 0, sizeof(events));
	for (i = 0; i < NINST; i++)
		OK(doca_graph_instance_submit(inst[i]));
	drain(f.pe);
	assert_string_equal(events, "null;done0;null;done1;null;done2;null;done3;");

	for (i = 0; i < NINST; i++) {
		OK(doca_graph_instance_destroy(inst[i]));
		doca_task_free(task[i]);
	}
	fx_close(&f);
}

/* A full context delays a node (AGAIN), it does not fail the instance. */
static void test_context_full(void **state)
{
	struct fx f;
	struct doca_graph_node *a;
	struct doca_graph_instance *inst[2];
	struct doca_task *task[2];
	int i, guard = 0;

	(void)state;
	fx_open(&f, NULL_MODE_HOLD, 4);
	f.nc[0]->queue_limit = 1;
	OK(doca_graph_node_create_from_ctx(f.graph, f.ctx[0], &a));
	OK(doca_graph_set_conf(f.graph, graph_ok_cb, graph_err_cb, 2));
	OK(doca_graph_start(f.graph));
	for (i = 0; i < 2; i++) {
		OK(doca_graph_instance_create(f.graph, &inst[i]));
		set_inst_id(inst[i], (uint64_t)i);
		task[i] = new_task(&f, 0, (uint64_t)i);
		OK(doca_graph_instance_set_ctx_node_data(inst[i], a, task[i]));
		OK(doca_graph_instance_submit(inst[i]));
	}
	assert_int_equal(f.nc[0]->nheld, 1);
	while (strcmp(events, "done0;done1;") != 0 && ++guard < 100) {
		null_ctx_release(f.nc[0]);
		doca_pe_progress(f.pe);
	}
	assert_string_equal(events, "done0;done1;");
	for (i = 0; i < 2; i++) {
		OK(doca_graph_instance_destroy(inst[i]));
		doca_task_free(task[i]);
	}
	fx_close(&f);
}

/* ---- failures ---- */

/* A failed task: its dependents never start, the error callback runs. */
static void test_task_failure(void **state)
{
	struct fx f;
	struct doca_graph_node *a, *b, *c;
	struct doca_graph_instance *inst;
	struct doca_task *ta, *tc;
	struct user_cookie cb = {"B", DOCA_SUCCESS};

	(void)state;
	fx_open(&f, NULL_MODE_PROGRESS, 4);
	OK(doca_graph_node_create_from_ctx(f.graph, f.ctx[0], &a));
	OK(doca_graph_node_create_from_user(f.graph, user_cb, &b));
	OK(doca_graph_node_create_from_ctx(f.graph, f.ctx[1], &c));
	OK(doca_graph_add_dependency(f.graph, a, b));
	OK(doca_graph_add_dependency(f.graph, b, c));
	OK(doca_graph_set_conf(f.graph, graph_ok_cb, graph_err_cb, 1));
	OK(doca_graph_start(f.graph));
	OK(doca_graph_instance_create(f.graph, &inst));
	set_inst_id(inst, 9);
	ta = new_task(&f, 0, 1);
	tc = new_task(&f, 1, 3);
	OK(doca_graph_instance_set_ctx_node_data(inst, a, ta));
	OK(doca_graph_instance_set_user_node_data(inst, b, &cb));
	OK(doca_graph_instance_set_ctx_node_data(inst, c, tc));

	((struct null_task *)ta)->result = DOCA_ERROR_IO_FAILED;
	OK(doca_graph_instance_submit(inst));
	drain(f.pe);
	assert_string_equal(events, "failed9;");
	assert_int_equal(doca_task_get_status(ta), DOCA_ERROR_IO_FAILED);

	/* The same instance succeeds once the task does. */
	memset(events, 0, sizeof(events));
	((struct null_task *)ta)->result = DOCA_SUCCESS;
	OK(doca_graph_instance_submit(inst));
	drain(f.pe);
	assert_string_equal(events, "B;done9;");

	/* A failing user node fails the instance too. */
	memset(events, 0, sizeof(events));
	cb.result = DOCA_ERROR_BAD_STATE;
	OK(doca_graph_instance_submit(inst));
	drain(f.pe);
	assert_string_equal(events, "B;failed9;");

	OK(doca_graph_instance_destroy(inst));
	doca_task_free(ta);
	doca_task_free(tc);
	fx_close(&f);
}

/* A failure does not end the instance while other nodes are still running,
 * and nothing new starts after it. */
static void test_failure_waits_for_inflight(void **state)
{
	struct fx f;
	struct doca_graph_node *x, *u, *y;
	struct doca_graph_instance *inst;
	struct doca_task *tx, *ty;
	struct user_cookie cu = {"U", DOCA_ERROR_NOT_FOUND};

	(void)state;
	fx_open(&f, NULL_MODE_HOLD, 4);
	OK(doca_graph_node_create_from_ctx(f.graph, f.ctx[0], &x));
	OK(doca_graph_node_create_from_user(f.graph, user_cb, &u));
	OK(doca_graph_node_create_from_ctx(f.graph, f.ctx[1], &y));
	OK(doca_graph_add_dependency(f.graph, u, y));
	OK(doca_graph_set_conf(f.graph, graph_ok_cb, graph_err_cb, 1));
	OK(doca_graph_start(f.graph));
	OK(doca_graph_instance_create(f.graph, &inst));
	set_inst_id(inst, 1);
	tx = new_task(&f, 0, 1);
	ty = new_task(&f, 1, 2);
	OK(doca_graph_instance_set_ctx_node_data(inst, x, tx));
	OK(doca_graph_instance_set_user_node_data(inst, u, &cu));
	OK(doca_graph_instance_set_ctx_node_data(inst, y, ty));

	OK(doca_graph_instance_submit(inst));
	/* The user root runs from progress, never from submit. */
	assert_string_equal(events, "");
	drain(f.pe);
	assert_string_equal(events, "U;");
	assert_int_equal(f.nc[0]->nheld, 1);
	assert_int_equal(f.nc[1]->nheld, 0);
	assert_int_equal(doca_graph_instance_destroy(inst), DOCA_ERROR_IN_USE);
	null_ctx_release(f.nc[0]);
	drain(f.pe);
	assert_string_equal(events, "U;failed1;");
	assert_int_equal(f.nc[1]->nheld, 0);

	OK(doca_graph_instance_destroy(inst));
	doca_task_free(tx);
	doca_task_free(ty);
	fx_close(&f);
}

/* A root task the context refuses: submit returns the error when nothing runs. */
static void test_root_refused(void **state)
{
	struct fx f;
	struct doca_graph_node *a;
	struct doca_graph_instance *inst;
	struct doca_task *ta;

	(void)state;
	fx_open(&f, NULL_MODE_PROGRESS, 4);
	OK(doca_graph_node_create_from_ctx(f.graph, f.ctx[0], &a));
	OK(doca_graph_set_conf(f.graph, graph_ok_cb, graph_err_cb, 1));
	OK(doca_graph_start(f.graph));
	OK(doca_graph_instance_create(f.graph, &inst));
	ta = new_task(&f, 0, 1);
	OK(doca_graph_instance_set_ctx_node_data(inst, a, ta));
	((struct null_task *)ta)->invalid = true;
	assert_int_equal(doca_graph_instance_submit(inst), DOCA_ERROR_INVALID_VALUE);
	drain(f.pe);
	assert_string_equal(events, "");
	/* Not submitted: it can be fixed and submitted, or destroyed. */
	((struct null_task *)ta)->invalid = false;
	OK(doca_graph_instance_submit(inst));
	drain(f.pe);
	assert_string_equal(events, "done0;");
	OK(doca_graph_instance_destroy(inst));
	doca_task_free(ta);
	fx_close(&f);
}

/* Stopping a context under a running instance flushes its task: the
 * instance fails; the graph cannot stop while instances exist. */
static void test_stop_inflight(void **state)
{
	struct fx f;
	struct doca_graph_node *a, *b;
	struct doca_graph_instance *inst;
	struct doca_task *ta;
	struct user_cookie cb = {"B", DOCA_SUCCESS};
	enum doca_ctx_states st;
	int guard = 0;

	(void)state;
	fx_open(&f, NULL_MODE_HOLD, 4);
	OK(doca_graph_node_create_from_ctx(f.graph, f.ctx[0], &a));
	OK(doca_graph_node_create_from_user(f.graph, user_cb, &b));
	OK(doca_graph_add_dependency(f.graph, a, b));
	OK(doca_graph_set_conf(f.graph, graph_ok_cb, graph_err_cb, 1));
	OK(doca_graph_start(f.graph));
	OK(doca_graph_instance_create(f.graph, &inst));
	set_inst_id(inst, 3);
	ta = new_task(&f, 0, 1);
	OK(doca_graph_instance_set_ctx_node_data(inst, a, ta));
	OK(doca_graph_instance_set_user_node_data(inst, b, &cb));
	OK(doca_graph_instance_submit(inst));

	assert_int_equal(doca_graph_stop(f.graph), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_ctx_stop(f.ctx[0]), DOCA_ERROR_IN_PROGRESS);
	while (events[0] == '\0' && ++guard < 1000)
		doca_pe_progress(f.pe);
	assert_string_equal(events, "failed3;");
	assert_int_equal(doca_task_get_status(ta), DOCA_ERROR_IO_FAILED);
	/* The flushed task is still allocated (the instance holds it): the
	 * context stays STOPPING until it is freed, as DOCA requires. */
	doca_pe_progress(f.pe);
	OK(doca_ctx_get_state(f.ctx[0], &st));
	assert_int_equal(st, DOCA_CTX_STATE_STOPPING);

	assert_int_equal(doca_graph_stop(f.graph), DOCA_ERROR_IN_USE);
	OK(doca_graph_instance_destroy(inst));
	doca_task_free(ta);
	guard = 0;
	do {
		doca_pe_progress(f.pe);
		OK(doca_ctx_get_state(f.ctx[0], &st));
	} while (st != DOCA_CTX_STATE_IDLE && ++guard < 1000);
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	OK(doca_graph_stop(f.graph));
	OK(doca_graph_destroy(f.graph));
	f.graph = NULL;
	fx_close(&f);
}

/* ---- sub-graphs ---- */

static void test_sub_graph(void **state)
{
	struct fx f;
	struct doca_graph *sub;
	struct doca_graph_node *s_ctx, *u, *s, *v, *n;
	struct doca_graph_instance *inst, *sub_inst, *sub_inst2;
	struct doca_task *t;
	struct user_cookie cu = {"U", DOCA_SUCCESS}, cv = {"V", DOCA_SUCCESS};

	(void)state;
	fx_open(&f, NULL_MODE_HOLD, 4);
	OK(doca_graph_create(f.pe, &sub));
	OK(doca_graph_node_create_from_ctx(sub, f.ctx[1], &s_ctx));
	OK(doca_graph_set_conf(sub, graph_ok_cb, graph_err_cb, 2));

	/* The sub-graph must be started first. */
	assert_int_equal(doca_graph_node_create_from_graph(f.graph, sub, &s), DOCA_ERROR_BAD_STATE);
	OK(doca_graph_start(sub));
	OK(doca_graph_node_create_from_user(f.graph, user_cb, &u));
	OK(doca_graph_node_create_from_graph(f.graph, sub, &s));
	OK(doca_graph_node_create_from_user(f.graph, user_cb, &v));
	OK(doca_graph_add_dependency(f.graph, u, s));
	OK(doca_graph_add_dependency(f.graph, s, v));
	OK(doca_graph_set_conf(f.graph, graph_ok_cb, graph_err_cb, 1));
	OK(doca_graph_start(f.graph));
	/* The sub-graph cannot run its parent. */
	assert_int_equal(doca_graph_stop(sub), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_graph(sub, f.graph, &n), DOCA_ERROR_NOT_PERMITTED);
	OK(doca_graph_start(sub));

	OK(doca_graph_instance_create(f.graph, &inst));
	set_inst_id(inst, 1);
	OK(doca_graph_instance_create(sub, &sub_inst));
	OK(doca_graph_instance_create(sub, &sub_inst2));
	t = new_task(&f, 1, 1);
	OK(doca_graph_instance_set_ctx_node_data(sub_inst, s_ctx, t));
	assert_int_equal(doca_graph_instance_set_sub_graph_node_data(inst, s, inst), DOCA_ERROR_NOT_PERMITTED);
	OK(doca_graph_instance_set_sub_graph_node_data(inst, s, sub_inst));
	OK(doca_graph_instance_set_user_node_data(inst, u, &cu));
	OK(doca_graph_instance_set_user_node_data(inst, v, &cv));

	/* In use as node data: neither destroyed nor submitted on its own. */
	assert_int_equal(doca_graph_instance_destroy(sub_inst), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_graph_instance_submit(sub_inst), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_graph_destroy(sub), DOCA_ERROR_BAD_STATE);

	OK(doca_graph_instance_submit(inst));
	drain(f.pe);
	assert_string_equal(events, "U;");
	assert_int_equal(f.nc[1]->nheld, 1);
	null_ctx_release(f.nc[1]);
	drain(f.pe);
	/* The sub-instance reports to its node, not to the sub-graph's callbacks. */
	assert_string_equal(events, "U;V;done1;");

	/* A failing sub-instance fails the node. */
	memset(events, 0, sizeof(events));
	((struct null_task *)t)->result = DOCA_ERROR_IO_FAILED;
	OK(doca_graph_instance_submit(inst));
	drain(f.pe);
	null_ctx_release(f.nc[1]);
	drain(f.pe);
	assert_string_equal(events, "U;failed1;");

	/* Replacing the node data frees the first sub-instance. */
	OK(doca_graph_instance_set_ctx_node_data(sub_inst2, s_ctx, t));
	OK(doca_graph_instance_set_sub_graph_node_data(inst, s, sub_inst2));
	OK(doca_graph_instance_destroy(sub_inst));
	OK(doca_graph_instance_destroy(inst));
	OK(doca_graph_instance_destroy(sub_inst2));
	OK(doca_graph_stop(sub));
	/* Still the sub-graph of a node of the parent. */
	assert_int_equal(doca_graph_destroy(sub), DOCA_ERROR_IN_USE);
	OK(doca_graph_stop(f.graph));
	OK(doca_graph_destroy(f.graph));
	f.graph = NULL;
	OK(doca_graph_destroy(sub));
	doca_task_free(t);
	fx_close(&f);
}

/* Work left for doca_pe_progress wakes a waiter on the notification handle. */
static void test_notification(void **state)
{
	struct fx f;
	struct doca_graph_node *a, *u;
	struct doca_graph_instance *inst;
	struct doca_task *ta;
	struct user_cookie cu = {"U", DOCA_SUCCESS};
	doca_notification_handle_t h;
	struct epoll_event e;

	(void)state;
	fx_open(&f, NULL_MODE_HOLD, 4);
	OK(doca_graph_node_create_from_user(f.graph, user_cb, &u));
	OK(doca_graph_node_create_from_ctx(f.graph, f.ctx[0], &a));
	OK(doca_graph_set_conf(f.graph, graph_ok_cb, graph_err_cb, 1));
	OK(doca_graph_start(f.graph));
	OK(doca_graph_instance_create(f.graph, &inst));
	ta = new_task(&f, 0, 1);
	OK(doca_graph_instance_set_ctx_node_data(inst, a, ta));
	OK(doca_graph_instance_set_user_node_data(inst, u, &cu));
	OK(doca_pe_get_notification_handle(f.pe, &h));
	drain(f.pe);
	OK(doca_pe_request_notification(f.pe));
	assert_int_equal(epoll_wait(h, &e, 1, 0), 0);
	OK(doca_pe_clear_notification(f.pe, h));

	/* Submitted outside progress with a user root: progress has work. */
	OK(doca_graph_instance_submit(inst));
	OK(doca_pe_request_notification(f.pe));
	assert_int_equal(epoll_wait(h, &e, 1, 1000), 1);
	OK(doca_pe_clear_notification(f.pe, h));
	drain(f.pe);
	assert_string_equal(events, "U;");
	null_ctx_release(f.nc[0]);
	drain(f.pe);
	assert_string_equal(events, "U;done0;");
	OK(doca_graph_instance_destroy(inst));
	doca_task_free(ta);
	fx_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_context_full),
		cmocka_unit_test(test_task_failure),
		cmocka_unit_test(test_failure_waits_for_inflight),
		cmocka_unit_test(test_root_refused),
		cmocka_unit_test(test_stop_inflight),
		cmocka_unit_test(test_sub_graph),
		cmocka_unit_test(test_notification),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
