/*
 * The DOCA rules the pe_* and dma_* samples rely on, for the DMA context
 * (public API only):
 *   - execution is asynchronous: submit completes nothing, and one
 *     doca_pe_progress executes a bounded number of tasks;
 *   - a stop from a completion callback, with tasks in flight, answers
 *     IN_PROGRESS and flushes the rest (pe_async_stop);
 *   - a task that fails at execution (a zero-length source) completes
 *     through its error callback, moves the context to STOPPING and the
 *     remaining tasks are flushed (pe_task_error); doca_task_try_submit
 *     refuses such a task up front;
 *   - IDLE only once every task is freed; stop of an idle context is
 *     SUCCESS, destroy of a busy one IN_USE;
 *   - a program that never polls but sleeps in epoll_wait on the PE's
 *     notification handle is woken by small and large copies alike.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#define OK(x) assert_int_equal((x), DOCA_SUCCESS)
#define NTASKS 64
#define BIG (8u << 20) /* above the inline limit: copied by the engine thread */

struct fx {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	struct doca_buf_inventory *inv;
	struct doca_mmap *mmap;
	uint8_t *mem;
	size_t seg;
	uint32_t slots; /* tasks this fixture has buffers for */
	struct doca_buf *src[NTASKS], *dst[NTASKS];
	struct doca_dma_task_memcpy *t[NTASKS];
	/* what the callbacks saw */
	uint32_t ok, err, flushed, other_err;
	int order[NTASKS]; /* +1 ok, -1 flushed, -2 other error, by task index */
	uint32_t stop_at; /* doca_ctx_stop from the callback that completes this many */
	doca_error_t stop_rc;
	int transitions; /* RUNNING->STOPPING seen */
	int idle;        /* STOPPING->IDLE seen */
	bool keep_tasks; /* callbacks do not free */
};

static void state_cb(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
		     enum doca_ctx_states next)
{
	struct fx *f = ud.ptr;

	(void)ctx;
	if (prev == DOCA_CTX_STATE_RUNNING && next == DOCA_CTX_STATE_STOPPING)
		f->transitions++;
	if (prev == DOCA_CTX_STATE_STOPPING && next == DOCA_CTX_STATE_IDLE)
		f->idle++;
}

static void after_cb(struct fx *f, struct doca_dma_task_memcpy *task)
{
	if (!f->keep_tasks)
		doca_task_free(doca_dma_task_memcpy_as_task(task));
	if (f->stop_at != 0 && f->ok + f->err == f->stop_at)
		f->stop_rc = doca_ctx_stop(f->ctx);
}

static void ok_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	struct fx *f = cud.ptr;

	f->ok++;
	f->order[tud.u64] = 1;
	after_cb(f, task);
}

static void err_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	struct fx *f = cud.ptr;
	doca_error_t st = doca_task_get_status(doca_dma_task_memcpy_as_task(task));

	f->err++;
	if (st == DOCA_ERROR_IO_FAILED) {
		f->flushed++;
		f->order[tud.u64] = -1;
	} else {
		f->other_err++;
		f->order[tud.u64] = -2;
	}
	after_cb(f, task);
}

static struct doca_dev *open_dma_dev(void)
{
	struct doca_devinfo **list = NULL;
	struct doca_dev *dev = NULL;
	uint32_t n = 0, i;

	OK(doca_devinfo_create_list(&list, &n));
	for (i = 0; i < n && dev == NULL; i++)
		if (doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS)
			(void)doca_dev_open(list[i], &dev);
	doca_devinfo_destroy_list(list);
	assert_non_null(dev);
	return dev;
}

static int setup_seg(void **state, size_t seg, uint32_t slots)
{
	struct fx *f = calloc(1, sizeof(*f));
	union doca_data ud;

	assert_non_null(f);
	f->seg = seg;
	f->slots = slots;
	f->dev = open_dma_dev();
	OK(doca_pe_create(&f->pe));
	OK(doca_dma_create(f->dev, &f->dma));
	f->ctx = doca_dma_as_ctx(f->dma);
	OK(doca_dma_task_memcpy_set_conf(f->dma, ok_cb, err_cb, NTASKS));
	ud.ptr = f;
	OK(doca_ctx_set_user_data(f->ctx, ud));
	OK(doca_ctx_set_state_changed_cb(f->ctx, state_cb));
	OK(doca_pe_connect_ctx(f->pe, f->ctx));
	OK(doca_ctx_start(f->ctx));
	f->mem = calloc(2 * (size_t)slots, seg);
	assert_non_null(f->mem);
	OK(doca_mmap_create(&f->mmap));
	OK(doca_mmap_set_memrange(f->mmap, f->mem, 2 * (size_t)slots * seg));
	OK(doca_mmap_set_permissions(f->mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	OK(doca_mmap_add_dev(f->mmap, f->dev));
	OK(doca_mmap_start(f->mmap));
	OK(doca_buf_inventory_create(2 * NTASKS, &f->inv));
	OK(doca_buf_inventory_start(f->inv));
	*state = f;
	return 0;
}

static int setup_small(void **state)
{
	return setup_seg(state, 1024, NTASKS);
}

static enum doca_ctx_states state_of(struct fx *f)
{
	enum doca_ctx_states st;

	OK(doca_ctx_get_state(f->ctx, &st));
	return st;
}

static void wait_idle(struct fx *f)
{
	time_t deadline = time(NULL) + 30;

	while (state_of(f) != DOCA_CTX_STATE_IDLE) {
		doca_pe_progress(f->pe);
		assert_true(time(NULL) < deadline);
	}
}

static int teardown(void **state)
{
	struct fx *f = *state;
	uint32_t i;
	doca_error_t e = doca_ctx_stop(f->ctx);

	assert_true(e == DOCA_SUCCESS || e == DOCA_ERROR_IN_PROGRESS);
	wait_idle(f);
	OK(doca_dma_destroy(f->dma));
	for (i = 0; i < NTASKS; i++) {
		if (f->src[i] != NULL)
			OK(doca_buf_dec_refcount(f->src[i], NULL));
		if (f->dst[i] != NULL)
			OK(doca_buf_dec_refcount(f->dst[i], NULL));
	}
	OK(doca_buf_inventory_stop(f->inv));
	OK(doca_buf_inventory_destroy(f->inv));
	OK(doca_mmap_destroy(f->mmap));
	OK(doca_pe_destroy(f->pe));
	OK(doca_dev_close(f->dev));
	free(f->mem);
	free(f);
	return 0;
}

/* Task i copies segment i (filled with i+1) into segment slots+i. */
static void alloc_tasks(struct fx *f, uint32_t n)
{
	uint32_t i;

	assert_true(n <= f->slots);
	for (i = 0; i < n; i++) {
		union doca_data ud = {.u64 = i};
		uint8_t *s = f->mem + i * f->seg, *d = f->mem + (f->slots + i) * f->seg;

		memset(s, (int)(i + 1), f->seg);
		if (f->src[i] == NULL) {
			OK(doca_buf_inventory_buf_get_by_data(f->inv, f->mmap, s, f->seg, &f->src[i]));
			OK(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, d, f->seg, &f->dst[i]));
		}
		OK(doca_buf_reset_data_len(f->dst[i]));
		OK(doca_dma_task_memcpy_alloc_init(f->dma, f->src[i], f->dst[i], ud, &f->t[i]));
	}
}

static void submit_all(struct fx *f, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		OK(doca_task_submit(doca_dma_task_memcpy_as_task(f->t[i])));
}

static void progress_until_done(struct fx *f, uint32_t n)
{
	time_t deadline = time(NULL) + 30;

	while (f->ok + f->err < n) {
		doca_pe_progress(f->pe);
		assert_true(time(NULL) < deadline);
	}
}

static bool copied(struct fx *f, uint32_t i)
{
	const uint8_t *d = f->mem + (f->slots + i) * f->seg;
	size_t k;

	for (k = 0; k < f->seg; k++)
		if (d[k] != (uint8_t)(i + 1))
			return false;
	return true;
}

/* ---- asynchronous, bounded execution ---- */

static void test_async_bounded(void **state)
{
	struct fx *f = *state;
	size_t inflight;
	uint32_t i;

	alloc_tasks(f, NTASKS);
	submit_all(f, NTASKS);
	/* Nothing completes inside submit. */
	assert_int_equal(f->ok + f->err, 0);
	OK(doca_ctx_get_num_inflight_tasks(f->ctx, &inflight));
	assert_int_equal(inflight, NTASKS);
	OK(doca_pe_get_num_inflight_tasks(f->pe, &inflight));
	assert_int_equal(inflight, NTASKS);
	/* One progress call delivers some, not all. */
	assert_int_equal(doca_pe_progress(f->pe), 1);
	assert_true(f->ok >= 1);
	assert_true(f->ok < NTASKS);
	progress_until_done(f, NTASKS);
	assert_int_equal(f->ok, NTASKS);
	for (i = 0; i < NTASKS; i++)
		assert_true(copied(f, i));
	assert_int_equal(doca_pe_progress(f->pe), 0);
	assert_int_equal(state_of(f), DOCA_CTX_STATE_RUNNING);
}

/* ---- pe_async_stop: stop in the middle flushes the rest ---- */

static void test_stop_in_the_middle(void **state)
{
	struct fx *f = *state;
	uint32_t i;

	alloc_tasks(f, 16);
	submit_all(f, 16);
	f->stop_at = 8;
	progress_until_done(f, 16);
	assert_int_equal(f->stop_rc, DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(f->ok, 8);
	assert_int_equal(f->flushed, 8);
	assert_int_equal(f->other_err, 0);
	for (i = 0; i < 8; i++) {
		assert_int_equal(f->order[i], 1);
		assert_true(copied(f, i));
	}
	for (i = 8; i < 16; i++)
		assert_int_equal(f->order[i], -1);
	wait_idle(f);
	assert_int_equal(f->transitions, 1);
	assert_int_equal(f->idle, 1);
	/* Stopped already: stopping again is SUCCESS (the samples' cleanup). */
	OK(doca_ctx_stop(f->ctx));
}

/* ---- pe_task_error: a failed task stops the context ---- */

static void test_failed_task_stops(void **state)
{
	struct fx *f = *state;
	uint32_t i, n = 32;

	alloc_tasks(f, n);
	OK(doca_buf_reset_data_len(f->src[2])); /* a zero-length source: the device fails it */
	/* try_submit validates: refused, still ours. */
	assert_int_equal(doca_task_try_submit(doca_dma_task_memcpy_as_task(f->t[2])), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(f->ok + f->err, 0);
	/* doca_task_submit does not: every task is taken. */
	submit_all(f, n);
	progress_until_done(f, n);
	assert_int_equal(f->order[0], 1);
	assert_int_equal(f->order[1], 1);
	assert_int_equal(f->order[2], -2);
	for (i = 3; i < n; i++)
		assert_int_equal(f->order[i], -1);
	assert_int_equal(f->ok, 2);
	assert_int_equal(f->other_err, 1);
	assert_int_equal(f->flushed, n - 3);
	assert_int_equal(f->transitions, 1); /* nobody called stop */
	wait_idle(f);
	assert_int_equal(f->idle, 1);
	/* It starts again and works. */
	OK(doca_buf_set_data(f->src[2], f->mem + 2 * f->seg, f->seg));
	memset(f->order, 0, sizeof(f->order));
	f->ok = f->err = f->flushed = f->other_err = 0;
	OK(doca_ctx_start(f->ctx));
	alloc_tasks(f, n);
	submit_all(f, n);
	progress_until_done(f, n);
	assert_int_equal(f->ok, n);
}

static void test_try_submit_checks(void **state)
{
	struct fx *f = *state;
	struct doca_dma_task_memcpy *t;
	union doca_data ud = {.u64 = 0};
	size_t len;

	alloc_tasks(f, 2);
	/* A destination with no room left (its data fills it). */
	OK(doca_buf_get_len(f->dst[1], &len));
	OK(doca_buf_set_data(f->dst[1], f->mem + (f->slots + 1) * f->seg, len));
	assert_int_equal(doca_task_try_submit(doca_dma_task_memcpy_as_task(f->t[1])), DOCA_ERROR_INVALID_VALUE);
	/* Missing buffers: refused by both. */
	doca_task_free(doca_dma_task_memcpy_as_task(f->t[1]));
	OK(doca_dma_task_memcpy_alloc_init(f->dma, f->src[1], NULL, ud, &t));
	assert_int_equal(doca_task_try_submit(doca_dma_task_memcpy_as_task(t)), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(t)), DOCA_ERROR_INVALID_VALUE);
	doca_task_free(doca_dma_task_memcpy_as_task(t));
	/* A good one passes and completes. */
	OK(doca_task_try_submit(doca_dma_task_memcpy_as_task(f->t[0])));
	progress_until_done(f, 1);
	assert_int_equal(f->ok, 1);
	assert_true(copied(f, 0));
	assert_int_equal(state_of(f), DOCA_CTX_STATE_RUNNING);
}

/* ---- IDLE only once every task is freed ---- */

static void test_idle_needs_free(void **state)
{
	struct fx *f = *state;
	int i;

	alloc_tasks(f, 3);
	submit_all(f, 1);
	f->keep_tasks = true;
	assert_int_equal(doca_ctx_stop(f->ctx), DOCA_ERROR_IN_PROGRESS);
	for (i = 0; i < 20; i++)
		doca_pe_progress(f->pe);
	assert_int_equal(f->ok + f->err, 1); /* the submitted one: flushed or done */
	assert_int_equal(state_of(f), DOCA_CTX_STATE_STOPPING);
	assert_int_equal(doca_dma_destroy(f->dma), DOCA_ERROR_IN_USE);
	doca_task_free(doca_dma_task_memcpy_as_task(f->t[0]));
	doca_task_free(doca_dma_task_memcpy_as_task(f->t[1]));
	doca_pe_progress(f->pe);
	assert_int_equal(state_of(f), DOCA_CTX_STATE_STOPPING);
	doca_task_free(doca_dma_task_memcpy_as_task(f->t[2]));
	doca_pe_progress(f->pe);
	assert_int_equal(state_of(f), DOCA_CTX_STATE_IDLE);
	assert_int_equal(f->idle, 1);
	OK(doca_ctx_stop(f->ctx));
}

/* ---- nobody polls: epoll on the notification handle ---- */

/* The pe_event loop: progress until 0, arm, sleep, clear; with a limit on
 * sleeps and on time. Returns the number of sleeps. */
static int event_loop(struct fx *f, uint32_t n, bool progress_first)
{
	doca_notification_handle_t h;
	struct epoll_event e = {.events = EPOLLIN};
	int ep = epoll_create1(0), sleeps = 0;
	time_t deadline = time(NULL) + 30;

	assert_true(ep >= 0);
	OK(doca_pe_get_notification_handle(f->pe, &h));
	e.data.fd = h;
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, h, &e), 0);
	for (;;) {
		if (progress_first) {
			while (doca_pe_progress(f->pe) != 0)
				;
			if (f->ok + f->err >= n)
				break;
		}
		progress_first = true;
		OK(doca_pe_request_notification(f->pe));
		/* Never sleeps forever: 5 s without a wake-up is a failure. */
		assert_int_equal(epoll_wait(ep, &e, 1, 5000), 1);
		OK(doca_pe_clear_notification(f->pe, 0));
		sleeps++;
		assert_true(time(NULL) < deadline);
	}
	close(ep);
	return sleeps;
}

static void test_epoll_small(void **state)
{
	struct fx *f = *state;
	doca_notification_handle_t h;
	struct epoll_event e = {.events = EPOLLIN};
	int ep = epoll_create1(0);
	uint32_t i;

	/* Arm first, then submit, then sleep: the submit wakes us. */
	OK(doca_pe_get_notification_handle(f->pe, &h));
	e.data.fd = h;
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, h, &e), 0);
	alloc_tasks(f, 16);
	OK(doca_pe_request_notification(f->pe));
	assert_int_equal(epoll_wait(ep, &e, 1, 0), 0);
	submit_all(f, 16);
	assert_int_equal(epoll_wait(ep, &e, 1, 5000), 1);
	OK(doca_pe_clear_notification(f->pe, 0));
	close(ep);
	event_loop(f, 16, true);
	assert_int_equal(f->ok, 16);

	/* Submit first, then arm and sleep (no progress in between). */
	f->ok = 0;
	alloc_tasks(f, 16);
	submit_all(f, 16);
	event_loop(f, 16, false);
	assert_int_equal(f->ok, 16);
	for (i = 0; i < 16; i++)
		assert_true(copied(f, i));
}

static int setup_big(void **state)
{
	return setup_seg(state, BIG, 2);
}

static void test_epoll_large(void **state)
{
	struct fx *f = *state;
	uint64_t max;

	OK(doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(f->dev), &max));
	if (max < BIG)
		skip();
	alloc_tasks(f, 2);
	submit_all(f, 2);
	event_loop(f, 2, false);
	assert_int_equal(f->ok, 2);
	assert_true(copied(f, 0));
	assert_true(copied(f, 1));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_async_bounded, setup_small, teardown),
		cmocka_unit_test_setup_teardown(test_stop_in_the_middle, setup_small, teardown),
		cmocka_unit_test_setup_teardown(test_failed_task_stops, setup_small, teardown),
		cmocka_unit_test_setup_teardown(test_try_submit_checks, setup_small, teardown),
		cmocka_unit_test_setup_teardown(test_idle_needs_free, setup_small, teardown),
		cmocka_unit_test_setup_teardown(test_epoll_small, setup_small, teardown),
		cmocka_unit_test_setup_teardown(test_epoll_large, setup_big, teardown),
	};

	if (argc > 1)
		setenv("SOFTDOCA_TOPOLOGY", argv[1], 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
