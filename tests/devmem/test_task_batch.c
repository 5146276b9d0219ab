/*
 * test_task_batch.c - the doca_task_batch_* functions, over a test-only
 * library ("batch context") that offers batches the way a real one would:
 * through src/internal/sd_task_batch.h on top of the sd_ctx.h core.
 * Bad arguments first, then the batch life cycle.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <doca_ctx.h>
#include <doca_pe.h>

#include "sd_ctx.h"
#include "sd_task_batch.h"

#define OK(x) assert_int_equal((x), DOCA_SUCCESS)
#define ERR(x, e) assert_int_equal((x), (e))

/* ---------------- the test library ---------------- */

struct test_batch {
	struct doca_task_batch base; /* first, as sd_task_batch.h asks */
	bool invalid;                /* its submit op refuses it */
	uint64_t payload;
};

typedef void (*test_batch_cb_t)(struct doca_task_batch *batch, union doca_data batch_user_data,
				union doca_data ctx_user_data);

struct batch_ctx {
	struct doca_ctx ctx;
	struct sd_task_class cls;
	test_batch_cb_t ok_cb, err_cb;
	bool hold;                   /* keep submitted batches until release/stop */
	struct doca_task *held[8];
	uint32_t nheld;
};

static doca_error_t bc_submit(struct doca_task *task)
{
	struct batch_ctx *bc = (struct batch_ctx *)task->cls->ctx;
	struct test_batch *b = (struct test_batch *)task;

	if (b->invalid)
		return DOCA_ERROR_INVALID_VALUE;
	if (!bc->hold) {
		sd_task_complete(task, DOCA_SUCCESS);
		return DOCA_SUCCESS;
	}
	if (bc->nheld == 8)
		return DOCA_ERROR_AGAIN;
	bc->held[bc->nheld++] = task;
	return DOCA_SUCCESS;
}

static void bc_deliver(struct doca_task *task)
{
	struct batch_ctx *bc = (struct batch_ctx *)task->cls->ctx;
	test_batch_cb_t cb = task->status == DOCA_SUCCESS ? bc->ok_cb : bc->err_cb;

	cb((struct doca_task_batch *)task, task->user_data, bc->ctx.user_data);
}

static const struct sd_task_class_ops bc_task_ops = {.submit = bc_submit, .deliver = bc_deliver};

static void bc_release(struct batch_ctx *bc, doca_error_t status)
{
	for (uint32_t i = 0; i < bc->nheld; i++)
		sd_task_complete(bc->held[i], status);
	bc->nheld = 0;
}

static doca_error_t bc_start(struct doca_ctx *ctx)
{
	return ((struct batch_ctx *)ctx)->cls.configured ? DOCA_SUCCESS : DOCA_ERROR_BAD_CONFIG;
}

static void bc_stop(struct doca_ctx *ctx)
{
	bc_release((struct batch_ctx *)ctx, SD_TASK_FLUSHED_STATUS);
	sd_ctx_stop_done(ctx);
}

static int bc_progress(struct doca_ctx *ctx)
{
	(void)ctx;
	return 0;
}

static const struct sd_ctx_ops bc_ops = {.start = bc_start, .stop = bc_stop, .progress = bc_progress};

static struct batch_ctx *bc_create(uint32_t num_batches)
{
	struct batch_ctx *bc = calloc(1, sizeof(*bc));

	assert_non_null(bc);
	sd_ctx_init(&bc->ctx, &bc_ops, "batch_test");
	sd_task_class_init(&bc->cls, &bc->ctx, &bc_task_ops, "batch_test_send", sizeof(struct test_batch));
	OK(sd_task_class_conf(&bc->cls, num_batches));
	return bc;
}

static void bc_destroy(struct batch_ctx *bc)
{
	OK(sd_ctx_fini(&bc->ctx));
	free(bc);
}

/* ---------------- callbacks ---------------- */

static int ok_calls, err_calls;
static doca_error_t last_status;
static uint64_t last_user, last_ctx_user;
static bool free_in_cb = true;

static void record_cb(struct doca_task_batch *batch, union doca_data batch_user_data,
		      union doca_data ctx_user_data)
{
	last_status = doca_task_batch_get_status(batch);
	last_user = batch_user_data.u64;
	last_ctx_user = ctx_user_data.u64;
	if (free_in_cb)
		doca_task_batch_free(batch);
}

static void ok_cb(struct doca_task_batch *batch, union doca_data u, union doca_data c)
{
	ok_calls++;
	record_cb(batch, u, c);
}

static void err_cb(struct doca_task_batch *batch, union doca_data u, union doca_data c)
{
	err_calls++;
	record_cb(batch, u, c);
}

struct rig {
	struct doca_pe *pe;
	struct batch_ctx *bc;
};

static int setup(void **s)
{
	struct rig *r = calloc(1, sizeof(*r));
	union doca_data cud = {.u64 = 0xc0ffee};

	if (r == NULL)
		return -1;
	OK(doca_pe_create(&r->pe));
	r->bc = bc_create(2);
	r->bc->ok_cb = ok_cb;
	r->bc->err_cb = err_cb;
	OK(doca_ctx_set_user_data(&r->bc->ctx, cud));
	OK(doca_pe_connect_ctx(r->pe, &r->bc->ctx));
	OK(doca_ctx_start(&r->bc->ctx));
	ok_calls = err_calls = 0;
	free_in_cb = true;
	*s = r;
	return 0;
}

static int teardown(void **s)
{
	struct rig *r = *s;
	enum doca_ctx_states st;

	OK(doca_ctx_get_state(&r->bc->ctx, &st));
	if (st == DOCA_CTX_STATE_RUNNING)
		(void)doca_ctx_stop(&r->bc->ctx);
	for (int i = 0; i < 100 && st != DOCA_CTX_STATE_IDLE; i++) {
		doca_pe_progress(r->pe);
		OK(doca_ctx_get_state(&r->bc->ctx, &st));
	}
	bc_destroy(r->bc);
	OK(doca_pe_destroy(r->pe));
	free(r);
	return 0;
}

static struct test_batch *alloc_batch(struct batch_ctx *bc, enum doca_task_batch_max_tasks_number max,
				      uint16_t n)
{
	struct doca_task_batch *b = NULL;

	OK(sd_task_batch_alloc(&bc->cls, max, n, &b));
	((struct test_batch *)b)->invalid = false;
	return (struct test_batch *)b;
}

/* ---------------- tests ---------------- */

static void enums_have_docas_values(void **s)
{
	(void)s;
	assert_int_equal(DOCA_TASK_BATCH_MAX_TASKS_NUMBER_16, 0);
	assert_int_equal(DOCA_TASK_BATCH_MAX_TASKS_NUMBER_32, 1);
	assert_int_equal(DOCA_TASK_BATCH_MAX_TASKS_NUMBER_64, 2);
	assert_int_equal(DOCA_TASK_BATCH_MAX_TASKS_NUMBER_128, 3);
	assert_int_equal(DOCA_EVENT_BATCH_EVENTS_NUMBER_1, 0);
	assert_int_equal(DOCA_EVENT_BATCH_EVENTS_NUMBER_2, 1);
	assert_int_equal(DOCA_EVENT_BATCH_EVENTS_NUMBER_4, 2);
	assert_int_equal(DOCA_EVENT_BATCH_EVENTS_NUMBER_8, 3);
	assert_int_equal(DOCA_EVENT_BATCH_EVENTS_NUMBER_16, 4);
	assert_int_equal(DOCA_EVENT_BATCH_EVENTS_NUMBER_32, 5);
	assert_int_equal(DOCA_EVENT_BATCH_EVENTS_NUMBER_64, 6);
	assert_int_equal(DOCA_EVENT_BATCH_EVENTS_NUMBER_128, 7);
}

static void bad_args(void **s)
{
	struct rig *r = *s;
	union doca_data ud = {.u64 = 1};
	struct doca_task_batch *b = NULL;
	/* something that is not a batch: the calls refuse it, nothing crashes */
	struct test_batch fake;

	memset(&fake, 0, sizeof(fake));
	ERR(doca_task_batch_submit(NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_task_batch_try_submit(NULL), DOCA_ERROR_INVALID_VALUE);
	doca_task_batch_free(NULL);
	ERR(doca_task_batch_get_status(NULL), DOCA_ERROR_INVALID_VALUE);
	doca_task_batch_set_user_data(NULL, ud);
	assert_int_equal(doca_task_batch_get_user_data(NULL).u64, 0);
	assert_null(doca_task_batch_get_ctx(NULL));
	assert_int_equal(doca_task_batch_get_ctx_user_data(NULL).u64, 0);
	assert_int_equal(doca_task_batch_get_tasks_num(NULL), 0);
	ERR(doca_task_batch_submit(&fake.base), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_task_batch_try_submit(&fake.base), DOCA_ERROR_INVALID_VALUE);
	doca_task_batch_free(&fake.base);
	assert_null(doca_task_batch_get_ctx(&fake.base));
	assert_int_equal(doca_task_batch_get_tasks_num(&fake.base), 0);

	/* the library side: capacity and counts */
	ERR(sd_task_batch_alloc(&r->bc->cls, DOCA_TASK_BATCH_MAX_TASKS_NUMBER_16, 17, &b), DOCA_ERROR_INVALID_VALUE);
	ERR(sd_task_batch_alloc(&r->bc->cls, DOCA_TASK_BATCH_MAX_TASKS_NUMBER_16, 0, &b), DOCA_ERROR_INVALID_VALUE);
	ERR(sd_task_batch_alloc(&r->bc->cls, (enum doca_task_batch_max_tasks_number)4, 1, &b),
	    DOCA_ERROR_INVALID_VALUE);
	ERR(sd_task_batch_alloc(&r->bc->cls, DOCA_TASK_BATCH_MAX_TASKS_NUMBER_16, 1, NULL), DOCA_ERROR_INVALID_VALUE);
	OK(sd_task_batch_alloc(&r->bc->cls, DOCA_TASK_BATCH_MAX_TASKS_NUMBER_128, 128, &b));
	assert_int_equal(doca_task_batch_get_tasks_num(b), 128);
	doca_task_batch_free(b);
}

static void accessors(void **s)
{
	struct rig *r = *s;
	struct test_batch *b = alloc_batch(r->bc, DOCA_TASK_BATCH_MAX_TASKS_NUMBER_16, 10);
	union doca_data ud = {.u64 = 99};

	assert_int_equal(doca_task_batch_get_tasks_num(&b->base), 10);
	assert_int_equal(doca_task_batch_get_user_data(&b->base).u64, 0); /* fresh */
	doca_task_batch_set_user_data(&b->base, ud);
	assert_int_equal(doca_task_batch_get_user_data(&b->base).u64, 99);
	assert_ptr_equal(doca_task_batch_get_ctx(&b->base), &r->bc->ctx);
	assert_int_equal(doca_task_batch_get_ctx_user_data(&b->base).u64, 0xc0ffee);
	OK(doca_task_batch_get_status(&b->base));
	doca_task_batch_free(&b->base);
}

static void submit_complete_free(void **s)
{
	struct rig *r = *s;
	struct test_batch *b = alloc_batch(r->bc, DOCA_TASK_BATCH_MAX_TASKS_NUMBER_32, 32);
	union doca_data ud = {.u64 = 7};
	size_t inflight;

	doca_task_batch_set_user_data(&b->base, ud);
	OK(doca_task_batch_submit(&b->base));
	OK(doca_ctx_get_num_inflight_tasks(&r->bc->ctx, &inflight));
	assert_int_equal(inflight, 1); /* a batch counts as one */
	assert_int_equal(ok_calls, 0); /* callbacks only from progress */
	assert_int_equal(doca_pe_progress(r->pe), 1);
	assert_int_equal(ok_calls, 1);
	assert_int_equal(last_status, DOCA_SUCCESS);
	assert_int_equal(last_user, 7);
	assert_int_equal(last_ctx_user, 0xc0ffee);
	OK(doca_ctx_get_num_inflight_tasks(&r->bc->ctx, &inflight));
	assert_int_equal(inflight, 0);

	/* freed in the callback: the pool has both batches again */
	struct doca_task_batch *x = NULL, *y = NULL, *z = NULL;
	OK(sd_task_batch_alloc(&r->bc->cls, DOCA_TASK_BATCH_MAX_TASKS_NUMBER_16, 1, &x));
	OK(sd_task_batch_alloc(&r->bc->cls, DOCA_TASK_BATCH_MAX_TASKS_NUMBER_16, 1, &y));
	ERR(sd_task_batch_alloc(&r->bc->cls, DOCA_TASK_BATCH_MAX_TASKS_NUMBER_16, 1, &z), DOCA_ERROR_NO_MEMORY);
	doca_task_batch_free(x);
	doca_task_batch_free(y);
	doca_task_batch_free(y); /* double free: refused and logged, pool intact */
	OK(sd_task_batch_alloc(&r->bc->cls, DOCA_TASK_BATCH_MAX_TASKS_NUMBER_16, 1, &x));
	OK(sd_task_batch_alloc(&r->bc->cls, DOCA_TASK_BATCH_MAX_TASKS_NUMBER_16, 1, &y));
	ERR(sd_task_batch_alloc(&r->bc->cls, DOCA_TASK_BATCH_MAX_TASKS_NUMBER_16, 1, &z), DOCA_ERROR_NO_MEMORY);
	doca_task_batch_free(x);
	doca_task_batch_free(y);
}

static void try_submit_validates(void **s)
{
	struct rig *r = *s;
	struct test_batch *b = alloc_batch(r->bc, DOCA_TASK_BATCH_MAX_TASKS_NUMBER_64, 3);
	size_t inflight;

	b->invalid = true;
	ERR(doca_task_batch_try_submit(&b->base), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_task_batch_submit(&b->base), DOCA_ERROR_INVALID_VALUE);
	OK(doca_ctx_get_num_inflight_tasks(&r->bc->ctx, &inflight));
	assert_int_equal(inflight, 0);
	/* still the user's: fix it and submit */
	b->invalid = false;
	OK(doca_task_batch_try_submit(&b->base));
	doca_pe_progress(r->pe);
	assert_int_equal(ok_calls, 1);
}

static void ownership_and_flush(void **s)
{
	struct rig *r = *s;
	struct test_batch *b = alloc_batch(r->bc, DOCA_TASK_BATCH_MAX_TASKS_NUMBER_16, 4);
	enum doca_ctx_states st;

	struct test_batch *kept = alloc_batch(r->bc, DOCA_TASK_BATCH_MAX_TASKS_NUMBER_16, 2);

	r->bc->hold = true;
	OK(doca_task_batch_submit(&b->base));
	ERR(doca_task_batch_submit(&b->base), DOCA_ERROR_BAD_STATE); /* already submitted */
	OK(doca_task_batch_submit(&kept->base));
	/* freed while the context owns it: taken back when the context is done
	 * with it, without a callback (as DOCA's own programs rely on) */
	doca_task_batch_free(&b->base);
	assert_int_equal(doca_pe_progress(r->pe), 0);
	assert_int_equal(ok_calls + err_calls, 0);
	/* stop flushes the kept one through the error callback, the freed one silently */
	ERR(doca_ctx_stop(&r->bc->ctx), DOCA_ERROR_IN_PROGRESS);
	for (int i = 0; i < 10; i++)
		doca_pe_progress(r->pe);
	assert_int_equal(err_calls, 1);
	assert_int_equal(ok_calls, 0);
	assert_int_equal(last_status, SD_TASK_FLUSHED_STATUS);
	OK(doca_ctx_get_state(&r->bc->ctx, &st));
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	/* submitting to a stopped context */
	struct doca_task_batch *x = NULL;
	ERR(sd_task_batch_alloc(&r->bc->cls, DOCA_TASK_BATCH_MAX_TASKS_NUMBER_16, 1, &x), DOCA_ERROR_BAD_STATE);
}

static void released_batch_status(void **s)
{
	struct rig *r = *s;
	struct test_batch *b = alloc_batch(r->bc, DOCA_TASK_BATCH_MAX_TASKS_NUMBER_16, 2);

	r->bc->hold = true;
	free_in_cb = false;
	OK(doca_task_batch_submit(&b->base));
	bc_release(r->bc, DOCA_ERROR_IO_FAILED);
	doca_pe_progress(r->pe);
	assert_int_equal(err_calls, 1);
	assert_int_equal(last_status, DOCA_ERROR_IO_FAILED);
	/* after its callback the batch is the user's again: status stays, resubmit works */
	ERR(doca_task_batch_get_status(&b->base), DOCA_ERROR_IO_FAILED);
	bc_release(r->bc, DOCA_SUCCESS);
	OK(doca_task_batch_submit(&b->base));
	bc_release(r->bc, DOCA_SUCCESS);
	doca_pe_progress(r->pe);
	assert_int_equal(ok_calls, 1);
	OK(doca_task_batch_get_status(&b->base));
	doca_task_batch_free(&b->base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(enums_have_docas_values),
		cmocka_unit_test_setup_teardown(bad_args, setup, teardown),
		cmocka_unit_test_setup_teardown(accessors, setup, teardown),
		cmocka_unit_test_setup_teardown(submit_complete_free, setup, teardown),
		cmocka_unit_test_setup_teardown(try_submit_validates, setup, teardown),
		cmocka_unit_test_setup_teardown(ownership_and_flush, setup, teardown),
		cmocka_unit_test_setup_teardown(released_batch_status, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
