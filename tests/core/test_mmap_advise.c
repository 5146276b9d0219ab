/* DOCA mmap advise conformance tests: public API only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_mmap_advise.h>
#include <doca_pe.h>

#define OK(x) assert_int_equal((x), DOCA_SUCCESS)
#define BUF_LEN 4096

struct seen {
	int ok;
	int err;
	doca_error_t last_status;
	uint64_t last_user;
};

static void ok_cb(struct doca_mmap_advise_task_invalidate_cache *task, union doca_data tud, union doca_data cud)
{
	struct seen *s = cud.ptr;

	s->ok++;
	s->last_user = tud.u64;
	s->last_status = doca_task_get_status(doca_mmap_advise_task_invalidate_cache_as_doca_task(task));
}

static void err_cb(struct doca_mmap_advise_task_invalidate_cache *task, union doca_data tud, union doca_data cud)
{
	struct seen *s = cud.ptr;

	s->err++;
	s->last_user = tud.u64;
	s->last_status = doca_task_get_status(doca_mmap_advise_task_invalidate_cache_as_doca_task(task));
}

struct fx {
	struct doca_dev *dev[2];
	uint32_t ndev;
	struct doca_pe *pe;
	struct doca_mmap_advise *adv;
	struct doca_ctx *ctx;
	uint8_t *mem;
	struct doca_mmap *mmap[2]; /* [0] has dev[0], [1] only dev[1] (or no device) */
	struct doca_buf_inventory *inv;
	struct seen seen;
};

static struct doca_mmap *mk_mmap(struct doca_dev *dev, void *addr, size_t len)
{
	struct doca_mmap *m;

	OK(doca_mmap_create(&m));
	OK(doca_mmap_set_memrange(m, addr, len));
	OK(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	if (dev != NULL)
		OK(doca_mmap_add_dev(m, dev));
	OK(doca_mmap_start(m));
	return m;
}

static void fx_open(struct fx *f, uint32_t num_tasks)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0, i;
	union doca_data ud;

	memset(f, 0, sizeof(*f));
	OK(doca_devinfo_create_list(&list, &n));
	for (i = 0; i < n && f->ndev < 2; i++)
		if (doca_dev_open(list[i], &f->dev[f->ndev]) == DOCA_SUCCESS)
			f->ndev++;
	doca_devinfo_destroy_list(list);
	assert_true(f->ndev >= 1);
	f->mem = calloc(2, BUF_LEN);
	assert_non_null(f->mem);
	f->mmap[0] = mk_mmap(f->dev[0], f->mem, BUF_LEN);
	f->mmap[1] = mk_mmap(f->ndev > 1 ? f->dev[1] : NULL, f->mem + BUF_LEN, BUF_LEN);
	OK(doca_buf_inventory_create(8, &f->inv));
	OK(doca_buf_inventory_start(f->inv));
	OK(doca_pe_create(&f->pe));
	OK(doca_mmap_advise_create(f->dev[0], &f->adv));
	f->ctx = doca_mmap_advise_as_ctx(f->adv);
	assert_non_null(f->ctx);
	ud.ptr = &f->seen;
	OK(doca_ctx_set_user_data(f->ctx, ud));
	OK(doca_mmap_advise_task_invalidate_cache_set_conf(f->adv, ok_cb, err_cb, num_tasks));
	OK(doca_pe_connect_ctx(f->pe, f->ctx));
	OK(doca_ctx_start(f->ctx));
}

static void fx_close(struct fx *f)
{
	enum doca_ctx_states st;
	doca_error_t rc;
	uint32_t i;
	int guard = 0;

	OK(doca_ctx_get_state(f->ctx, &st));
	if (st != DOCA_CTX_STATE_IDLE) {
		rc = doca_ctx_stop(f->ctx);
		assert_true(rc == DOCA_SUCCESS || rc == DOCA_ERROR_IN_PROGRESS);
	}
	do {
		doca_pe_progress(f->pe);
		OK(doca_ctx_get_state(f->ctx, &st));
	} while (st != DOCA_CTX_STATE_IDLE && ++guard < 1000);
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	/* The device is in use while the context exists. */
	assert_int_equal(doca_dev_close(f->dev[0]), DOCA_ERROR_IN_USE);
	OK(doca_mmap_advise_destroy(f->adv));
	OK(doca_pe_destroy(f->pe));
	OK(doca_buf_inventory_stop(f->inv));
	OK(doca_buf_inventory_destroy(f->inv));
	OK(doca_mmap_stop(f->mmap[0]));
	OK(doca_mmap_destroy(f->mmap[0]));
	OK(doca_mmap_stop(f->mmap[1]));
	OK(doca_mmap_destroy(f->mmap[1]));
	for (i = 0; i < f->ndev; i++)
		OK(doca_dev_close(f->dev[i]));
	free(f->mem);
}

static void progress_until(struct fx *f, int done)
{
	int guard = 0;

	while (f->seen.ok + f->seen.err < done && ++guard < 10000)
		doca_pe_progress(f->pe);
	assert_int_equal(f->seen.ok + f->seen.err, done);
}

static void test_bad_args(void **state)
{
	struct fx f;
	struct doca_mmap_advise *adv;
	struct doca_mmap_advise_task_invalidate_cache *task, *t2;
	struct doca_devinfo *devinfo;
	union doca_data ud = {.u64 = 0};
	uint64_t max = 0;

	(void)state;
	assert_int_equal(doca_mmap_advise_create(NULL, &adv), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_advise_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_mmap_advise_as_ctx(NULL));
	assert_null(doca_mmap_advise_task_invalidate_cache_as_doca_task(NULL));
	assert_null(doca_mmap_advise_task_invalidate_cache_get_buf(NULL));
	doca_mmap_advise_task_invalidate_cache_set_buf(NULL, NULL);
	assert_int_equal(doca_mmap_advise_cap_task_cache_invalidate_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_advise_task_cache_invalidate_get_max_buf_size(NULL, &max),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_set_conf(NULL, ok_cb, err_cb, 1),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_alloc_init(NULL, NULL, ud, &task),
			 DOCA_ERROR_INVALID_VALUE);

	fx_open(&f, 1);
	devinfo = doca_dev_as_devinfo(f.dev[0]);
	OK(doca_mmap_advise_cap_task_cache_invalidate_is_supported(devinfo));
	assert_int_equal(doca_mmap_advise_task_cache_invalidate_get_max_buf_size(devinfo, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	OK(doca_mmap_advise_task_cache_invalidate_get_max_buf_size(devinfo, &max));
	assert_true(max >= BUF_LEN);
	assert_int_equal(doca_mmap_advise_create(f.dev[0], NULL), DOCA_ERROR_INVALID_VALUE);
	/* Configuration of a running context. */
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_set_conf(f.adv, ok_cb, err_cb, 2),
			 DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_mmap_advise_destroy(f.adv), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_alloc_init(f.adv, NULL, ud, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	/* Pool of one. */
	OK(doca_mmap_advise_task_invalidate_cache_alloc_init(f.adv, NULL, ud, &task));
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_alloc_init(f.adv, NULL, ud, &t2),
			 DOCA_ERROR_NO_MEMORY);
	/* A task without a buffer is refused at submit. */
	assert_int_equal(doca_task_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(task)),
			 DOCA_ERROR_INVALID_VALUE);
	doca_task_free(doca_mmap_advise_task_invalidate_cache_as_doca_task(task));
	fx_close(&f);
}

static void test_unconfigured(void **state)
{
	struct doca_devinfo **list = NULL;
	struct doca_dev *dev = NULL;
	struct doca_mmap_advise *adv;
	struct doca_pe *pe;
	uint32_t n = 0;

	(void)state;
	OK(doca_devinfo_create_list(&list, &n));
	assert_true(n > 0);
	OK(doca_dev_open(list[0], &dev));
	doca_devinfo_destroy_list(list);
	OK(doca_pe_create(&pe));
	OK(doca_mmap_advise_create(dev, &adv));
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_set_conf(adv, NULL, err_cb, 1),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_set_conf(adv, ok_cb, NULL, 1),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_set_conf(adv, ok_cb, err_cb, 0),
			 DOCA_ERROR_INVALID_VALUE);
	OK(doca_pe_connect_ctx(pe, doca_mmap_advise_as_ctx(adv)));
	assert_int_equal(doca_ctx_start(doca_mmap_advise_as_ctx(adv)), DOCA_ERROR_BAD_STATE);
	OK(doca_mmap_advise_destroy(adv));
	OK(doca_pe_destroy(pe));
	OK(doca_dev_close(dev));
}

static void test_invalidate(void **state)
{
	struct fx f;
	struct doca_mmap_advise_task_invalidate_cache *task;
	struct doca_buf *buf, *other = NULL;
	union doca_data ud = {.u64 = 42};

	(void)state;
	fx_open(&f, 2);
	memset(f.mem, 0x5a, BUF_LEN);
	OK(doca_buf_inventory_buf_get_by_data(f.inv, f.mmap[0], f.mem, BUF_LEN, &buf));
	OK(doca_mmap_advise_task_invalidate_cache_alloc_init(f.adv, buf, ud, &task));
	assert_ptr_equal(doca_mmap_advise_task_invalidate_cache_get_buf(task), buf);
	OK(doca_task_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(task)));
	/* Submitted: the buffer cannot be changed, the callback waits for progress. */
	doca_mmap_advise_task_invalidate_cache_set_buf(task, NULL);
	assert_ptr_equal(doca_mmap_advise_task_invalidate_cache_get_buf(task), buf);
	assert_int_equal(f.seen.ok + f.seen.err, 0);
	progress_until(&f, 1);
	assert_int_equal(f.seen.ok, 1);
	assert_int_equal(f.seen.last_status, DOCA_SUCCESS);
	assert_int_equal(f.seen.last_user, 42);
	/* The memory is what it was. */
	assert_int_equal(f.mem[0], 0x5a);
	assert_int_equal(f.mem[BUF_LEN - 1], 0x5a);

	/* A buffer whose mmap has not the context's device fails the task. */
	OK(doca_buf_inventory_buf_get_by_addr(f.inv, f.mmap[1], f.mem + BUF_LEN, BUF_LEN, &other));
	doca_mmap_advise_task_invalidate_cache_set_buf(task, other);
	assert_ptr_equal(doca_mmap_advise_task_invalidate_cache_get_buf(task), other);
	OK(doca_task_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(task)));
	progress_until(&f, 2);
	assert_int_equal(f.seen.err, 1);
	assert_int_equal(f.seen.last_status, DOCA_ERROR_INVALID_VALUE);

	/* And the same task goes on working with a good buffer. */
	doca_mmap_advise_task_invalidate_cache_set_buf(task, buf);
	OK(doca_task_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(task)));
	/* Stopping with the completion pending: it is still delivered, then IDLE. */
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_ERROR_IN_PROGRESS);
	progress_until(&f, 3);
	assert_int_equal(f.seen.ok, 2);
	doca_task_free(doca_mmap_advise_task_invalidate_cache_as_doca_task(task));
	OK(doca_buf_dec_refcount(buf, NULL));
	OK(doca_buf_dec_refcount(other, NULL));
	fx_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_unconfigured),
		cmocka_unit_test(test_invalidate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
