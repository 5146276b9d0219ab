/*
 * test_mmap_ext.c - thread-safe mmaps (doca_mmap_enable_thread_safety), the
 * DPA calls of doca_mmap (NOT_SUPPORTED after their checks) and
 * doca_buf_inventory_expand, against the public headers.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_buf_pool.h>
#include <doca_dev.h>
#include <doca_mmap.h>

#define OK(x) assert_int_equal((x), DOCA_SUCCESS)
#define ERR(x, e) assert_int_equal((x), (e))

#define NTHREADS 8
#define ROUNDS 20000

static struct doca_dev *open_dev(uint32_t idx)
{
	struct doca_devinfo **list;
	struct doca_dev *dev;
	uint32_t n;

	OK(doca_devinfo_create_list(&list, &n));
	assert_true(n > idx);
	OK(doca_dev_open(list[idx], &dev));
	OK(doca_devinfo_destroy_list(list));
	return dev;
}

/* ---------------- thread safety ---------------- */

static void ts_bad_args_and_states(void **s)
{
	static uint8_t mem[256];
	struct doca_mmap *mmap;

	(void)s;
	ERR(doca_mmap_enable_thread_safety(NULL), DOCA_ERROR_INVALID_VALUE);
	OK(doca_mmap_create(&mmap));
	OK(doca_mmap_set_memrange(mmap, mem, sizeof(mem)));
	OK(doca_mmap_start(mmap));
	ERR(doca_mmap_enable_thread_safety(mmap), DOCA_ERROR_NOT_PERMITTED); /* started */
	OK(doca_mmap_stop(mmap));
	OK(doca_mmap_enable_thread_safety(mmap));
	OK(doca_mmap_enable_thread_safety(mmap)); /* again: nothing changes */
	OK(doca_mmap_destroy(mmap));
}

/* Buffers are not counted: get_num_bufs stays 0, stop and destroy do not refuse. */
static void ts_no_counting(void **s)
{
	static uint8_t mem[256];
	struct doca_buf_inventory *inv;
	struct doca_mmap *mmap;
	struct doca_buf *b, *b2;
	uint32_t v;

	(void)s;
	OK(doca_buf_inventory_create(4, &inv));
	OK(doca_buf_inventory_start(inv));
	OK(doca_mmap_create(&mmap));
	OK(doca_mmap_set_memrange(mmap, mem, sizeof(mem)));
	OK(doca_mmap_enable_thread_safety(mmap));
	OK(doca_mmap_start(mmap));
	OK(doca_buf_inventory_buf_get_by_addr(inv, mmap, mem, 64, &b));
	OK(doca_buf_inventory_buf_dup(inv, b, &b2));
	OK(doca_mmap_get_num_bufs(mmap, &v));
	assert_int_equal(v, 0);
	OK(doca_mmap_stop(mmap));
	ERR(doca_buf_inventory_buf_get_by_addr(inv, mmap, mem, 64, &b2), DOCA_ERROR_BAD_STATE);
	OK(doca_mmap_start(mmap));
	OK(doca_mmap_destroy(mmap)); /* buffers still out: allowed */
	/* releasing them must not touch the destroyed mmap (ASan checks) */
	OK(doca_buf_dec_refcount(b, NULL));
	OK(doca_buf_dec_refcount(b2, NULL));
	OK(doca_buf_inventory_get_num_free_elements(inv, &v));
	assert_int_equal(v, 4);
	OK(doca_buf_inventory_destroy(inv));
}

struct ts_shared {
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv; /* shared by every thread */
	struct doca_buf_pool *pool;     /* shared by every thread */
	uint8_t *mem;
	size_t len;
};

static void *ts_worker(void *arg)
{
	struct ts_shared *sh = arg;
	long bad = 0;

	for (int i = 0; i < ROUNDS; i++) {
		struct doca_buf *b, *p;
		size_t off = (size_t)(i % 64) * 16;
		doca_error_t r;
		void *head;

		r = doca_buf_inventory_buf_get_by_data(sh->inv, sh->mmap, sh->mem + off, 16, &b);
		if (r == DOCA_SUCCESS) {
			if (doca_buf_get_head(b, &head) != DOCA_SUCCESS || head != sh->mem + off)
				bad++;
			if (doca_buf_dec_refcount(b, NULL) != DOCA_SUCCESS)
				bad++;
		} else if (r != DOCA_ERROR_NO_MEMORY) {
			bad++;
		}
		r = doca_buf_pool_buf_alloc(sh->pool, &p);
		if (r == DOCA_SUCCESS) {
			if (doca_buf_dec_refcount(p, NULL) != DOCA_SUCCESS)
				bad++;
		} else if (r != DOCA_ERROR_EMPTY) {
			bad++;
		}
	}
	return (void *)bad;
}

/* Several threads take and release buffers on one thread-safe mmap through
 * one shared inventory and one shared pool; none is lost or handed out twice. */
static void ts_concurrent_alloc(void **s)
{
	struct ts_shared sh = {.len = 64 * 1024};
	pthread_t t[NTHREADS];
	uint32_t v;
	void *ret;

	(void)s;
	sh.mem = calloc(1, sh.len);
	assert_non_null(sh.mem);
	OK(doca_mmap_create(&sh.mmap));
	OK(doca_mmap_set_memrange(sh.mmap, sh.mem, sh.len));
	OK(doca_mmap_enable_thread_safety(sh.mmap));
	OK(doca_mmap_start(sh.mmap));
	OK(doca_buf_inventory_create(NTHREADS / 2, &sh.inv)); /* fewer than threads: contention */
	OK(doca_buf_inventory_start(sh.inv));
	OK(doca_buf_pool_create(NTHREADS / 2, 256, sh.mmap, &sh.pool));
	OK(doca_buf_pool_start(sh.pool));
	for (int i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, ts_worker, &sh), 0);
	/* the inventory grows while the workers run */
	OK(doca_buf_inventory_expand(sh.inv, 2));
	for (int i = 0; i < NTHREADS; i++) {
		assert_int_equal(pthread_join(t[i], &ret), 0);
		assert_int_equal((long)ret, 0);
	}
	OK(doca_buf_inventory_get_num_elements(sh.inv, &v));
	assert_int_equal(v, NTHREADS / 2 + 2);
	OK(doca_buf_inventory_get_num_free_elements(sh.inv, &v));
	assert_int_equal(v, NTHREADS / 2 + 2);
	OK(doca_buf_pool_get_num_free_elements(sh.pool, &v));
	assert_int_equal(v, NTHREADS / 2);
	OK(doca_buf_pool_destroy(sh.pool));
	OK(doca_buf_inventory_destroy(sh.inv));
	OK(doca_mmap_destroy(sh.mmap));
	free(sh.mem);
}

/* ---------------- DPA ---------------- */

static void dpa_memrange(void **s)
{
	static uint8_t mem[64];
	struct doca_dpa *dpa = (struct doca_dpa *)1; /* never dereferenced: no DPA */
	struct doca_mmap *mmap;

	(void)s;
	ERR(doca_mmap_set_dpa_memrange(NULL, dpa, 0x1000, 64), DOCA_ERROR_INVALID_VALUE);
	OK(doca_mmap_create(&mmap));
	ERR(doca_mmap_set_dpa_memrange(mmap, NULL, 0x1000, 64), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_set_dpa_memrange(mmap, dpa, 0x1000, 0), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_set_dpa_memrange(mmap, dpa, UINT64_MAX - 8, 64), DOCA_ERROR_INVALID_VALUE); /* overflow */
	ERR(doca_mmap_set_dpa_memrange(mmap, dpa, 0x1000, 64), DOCA_ERROR_NOT_SUPPORTED);
	OK(doca_mmap_set_memrange(mmap, mem, sizeof(mem)));
	ERR(doca_mmap_set_dpa_memrange(mmap, dpa, 0x1000, 64), DOCA_ERROR_NOT_PERMITTED); /* range set */
	OK(doca_mmap_start(mmap));
	ERR(doca_mmap_set_dpa_memrange(mmap, dpa, 0x1000, 64), DOCA_ERROR_BAD_STATE);
	OK(doca_mmap_destroy(mmap));
}

static void dpa_handle(void **s)
{
	static uint8_t mem[64];
	struct doca_dev *dev = open_dev(0), *other = open_dev(1);
	doca_dpa_dev_mmap_t h;
	struct doca_mmap *mmap;

	(void)s;
	OK(doca_mmap_create(&mmap));
	ERR(doca_mmap_dev_get_dpa_handle(NULL, dev, &h), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_dev_get_dpa_handle(mmap, NULL, &h), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_dev_get_dpa_handle(mmap, dev, NULL), DOCA_ERROR_INVALID_VALUE);
	OK(doca_mmap_add_dev(mmap, dev));
	OK(doca_mmap_set_memrange(mmap, mem, sizeof(mem)));
	ERR(doca_mmap_dev_get_dpa_handle(mmap, other, &h), DOCA_ERROR_NOT_FOUND);
	ERR(doca_mmap_dev_get_dpa_handle(mmap, dev, &h), DOCA_ERROR_NOT_PERMITTED); /* not started */
	OK(doca_mmap_start(mmap));
	ERR(doca_mmap_dev_get_dpa_handle(mmap, dev, &h), DOCA_ERROR_NOT_SUPPORTED);
	OK(doca_mmap_destroy(mmap));
	OK(doca_dev_close(dev));
	OK(doca_dev_close(other));
}

/* ---------------- inventory expand ---------------- */

static void expand(void **s)
{
	static uint8_t mem[256];
	struct doca_buf_inventory *inv;
	struct doca_mmap *mmap;
	struct doca_buf *b[5];
	uint32_t v;
	void *head;

	(void)s;
	ERR(doca_buf_inventory_expand(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	OK(doca_buf_inventory_create(2, &inv));
	ERR(doca_buf_inventory_expand(inv, 0), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_inventory_expand(inv, 1), DOCA_ERROR_BAD_STATE); /* not started */
	OK(doca_buf_inventory_start(inv));
	ERR(doca_buf_inventory_expand(inv, UINT32_MAX), DOCA_ERROR_INVALID_VALUE); /* total over 32 bits */
	OK(doca_mmap_create(&mmap));
	OK(doca_mmap_set_memrange(mmap, mem, sizeof(mem)));
	OK(doca_mmap_start(mmap));
	OK(doca_buf_inventory_buf_get_by_addr(inv, mmap, mem, 8, &b[0]));
	OK(doca_buf_inventory_buf_get_by_addr(inv, mmap, mem + 8, 8, &b[1]));
	ERR(doca_buf_inventory_buf_get_by_addr(inv, mmap, mem, 8, &b[2]), DOCA_ERROR_NO_MEMORY);
	OK(doca_buf_inventory_expand(inv, 3));
	OK(doca_buf_inventory_get_num_elements(inv, &v));
	assert_int_equal(v, 5);
	OK(doca_buf_inventory_get_num_free_elements(inv, &v));
	assert_int_equal(v, 3);
	for (int i = 2; i < 5; i++)
		OK(doca_buf_inventory_buf_get_by_addr(inv, mmap, mem + 8 * i, 8, &b[i]));
	ERR(doca_buf_inventory_buf_get_by_addr(inv, mmap, mem, 8, &b[0]), DOCA_ERROR_NO_MEMORY);
	/* buffers taken before the expand are untouched */
	OK(doca_buf_get_head(b[1], &head));
	assert_ptr_equal(head, mem + 8);
	OK(doca_buf_chain_list(b[0], b[4])); /* old and new descriptors mix */
	ERR(doca_buf_inventory_destroy(inv), DOCA_ERROR_IN_USE);
	OK(doca_buf_dec_refcount(b[0], NULL));
	for (int i = 1; i < 4; i++)
		OK(doca_buf_dec_refcount(b[i], NULL));
	OK(doca_buf_inventory_get_num_free_elements(inv, &v));
	assert_int_equal(v, 5);
	OK(doca_mmap_get_num_bufs(mmap, &v));
	assert_int_equal(v, 0);
	OK(doca_buf_inventory_destroy(inv));
	OK(doca_mmap_destroy(mmap));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ts_bad_args_and_states),
		cmocka_unit_test(ts_no_counting),
		cmocka_unit_test(ts_concurrent_alloc),
		cmocka_unit_test(dpa_memrange),
		cmocka_unit_test(dpa_handle),
		cmocka_unit_test(expand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
