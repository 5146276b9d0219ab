/*
 * test_pool.c - doca_buf_pool and doca_buf_arr against the public headers:
 * bad arguments first, then states, then behaviour.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <doca_buf.h>
#include <doca_buf_array.h>
#include <doca_buf_inventory.h>
#include <doca_buf_pool.h>
#include <doca_dev.h>
#include <doca_mmap.h>

#define OK(x) assert_int_equal((x), DOCA_SUCCESS)
#define ERR(x, e) assert_int_equal((x), (e))

#define MEM_LEN 4096

struct fixture {
	struct doca_dev *dev;
	struct doca_mmap *mmap;
	uint8_t *mem;
};

static int setup(void **s)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct doca_devinfo **list;
	uint32_t n;

	if (f == NULL)
		return -1;
	f->mem = aligned_alloc(4096, MEM_LEN);
	if (f->mem == NULL)
		return -1;
	OK(doca_devinfo_create_list(&list, &n));
	OK(doca_dev_open(list[0], &f->dev));
	OK(doca_devinfo_destroy_list(list));
	OK(doca_mmap_create(&f->mmap));
	OK(doca_mmap_add_dev(f->mmap, f->dev));
	OK(doca_mmap_set_memrange(f->mmap, f->mem, MEM_LEN));
	*s = f;
	return 0;
}

static int teardown(void **s)
{
	struct fixture *f = *s;

	OK(doca_mmap_destroy(f->mmap));
	OK(doca_dev_close(f->dev));
	free(f->mem);
	free(f);
	return 0;
}

/* ---------------- buffer pool ---------------- */

static void pool_bad_args(void **s)
{
	struct fixture *f = *s;
	struct doca_buf_pool *pool;
	struct doca_mmap *bare;
	struct doca_buf *b;
	union doca_data ud;
	size_t al;
	uint32_t v;

	ERR(doca_buf_pool_create(0, 64, f->mmap, &pool), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_pool_create(4, 0, f->mmap, &pool), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_pool_create(4, 64, NULL, &pool), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_pool_create(4, 64, f->mmap, NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_pool_create((size_t)UINT32_MAX + 1, 1, f->mmap, &pool), DOCA_ERROR_INVALID_VALUE);
	/* the mmap must have its memory range */
	OK(doca_mmap_create(&bare));
	ERR(doca_buf_pool_create(4, 64, bare, &pool), DOCA_ERROR_INVALID_VALUE);
	OK(doca_mmap_destroy(bare));

	ERR(doca_buf_pool_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_pool_start(NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_pool_stop(NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_pool_set_user_data(NULL, ud), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_pool_get_user_data(NULL, &ud), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_pool_set_element_alignment(NULL, 8), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_pool_get_element_alignment(NULL, &al), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_pool_get_num_elements(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_pool_get_num_free_elements(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_pool_buf_alloc(NULL, &b), DOCA_ERROR_INVALID_VALUE);

	OK(doca_buf_pool_create(4, 64, f->mmap, &pool));
	ERR(doca_buf_pool_get_user_data(pool, NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_pool_get_element_alignment(pool, NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_pool_get_num_elements(pool, NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_pool_get_num_free_elements(pool, NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_pool_buf_alloc(pool, NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_pool_set_element_alignment(pool, 0), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_pool_set_element_alignment(pool, 24), DOCA_ERROR_INVALID_VALUE); /* not a power of 2 */
	OK(doca_buf_pool_destroy(pool));
}

static void pool_states(void **s)
{
	struct fixture *f = *s;
	struct doca_buf_pool *pool;
	union doca_data ud = {.u64 = 5}, got;
	struct doca_buf *b;
	size_t al;
	uint32_t v;

	OK(doca_buf_pool_create(4, 64, f->mmap, &pool));
	OK(doca_buf_pool_get_user_data(pool, &got));
	assert_int_equal(got.u64, 0); /* default */
	OK(doca_buf_pool_get_element_alignment(pool, &al));
	assert_int_equal(al, 1); /* default */
	OK(doca_buf_pool_set_user_data(pool, ud));
	OK(doca_buf_pool_set_element_alignment(pool, 64));
	ERR(doca_buf_pool_buf_alloc(pool, &b), DOCA_ERROR_BAD_STATE); /* not started */
	OK(doca_buf_pool_stop(pool)); /* not started: nothing to stop */
	ERR(doca_buf_pool_start(pool), DOCA_ERROR_BAD_STATE); /* mmap not started */
	OK(doca_mmap_start(f->mmap));
	OK(doca_buf_pool_start(pool));
	ERR(doca_buf_pool_start(pool), DOCA_ERROR_BAD_STATE);
	ERR(doca_buf_pool_set_user_data(pool, ud), DOCA_ERROR_BAD_STATE);
	ERR(doca_buf_pool_set_element_alignment(pool, 8), DOCA_ERROR_BAD_STATE);
	OK(doca_buf_pool_get_user_data(pool, &got));
	assert_int_equal(got.u64, 5);
	/* a started pool's elements are buffers of the mmap */
	OK(doca_mmap_get_num_bufs(f->mmap, &v));
	assert_int_equal(v, 4);
	ERR(doca_mmap_stop(f->mmap), DOCA_ERROR_NOT_PERMITTED);
	OK(doca_buf_pool_buf_alloc(pool, &b));
	ERR(doca_buf_pool_stop(pool), DOCA_ERROR_IN_USE);
	ERR(doca_buf_pool_destroy(pool), DOCA_ERROR_IN_USE);
	OK(doca_buf_dec_refcount(b, NULL));
	OK(doca_buf_pool_stop(pool));
	ERR(doca_buf_pool_buf_alloc(pool, &b), DOCA_ERROR_BAD_STATE); /* stopped */
	OK(doca_mmap_get_num_bufs(f->mmap, &v));
	assert_int_equal(v, 0);
	OK(doca_buf_pool_set_element_alignment(pool, 8)); /* configurable again */
	OK(doca_buf_pool_start(pool));                    /* and restartable */
	OK(doca_buf_pool_destroy(pool));                  /* implicitly stops */
	OK(doca_mmap_get_num_bufs(f->mmap, &v));
	assert_int_equal(v, 0);
	OK(doca_mmap_stop(f->mmap));
}

static void pool_alloc_and_release(void **s)
{
	struct fixture *f = *s;
	struct doca_buf_pool *pool;
	struct doca_buf *b[5];
	void *head, *data;
	size_t len, dlen;
	uint32_t v;
	uint16_t rc;

	OK(doca_mmap_start(f->mmap));
	OK(doca_buf_pool_create(4, 100, f->mmap, &pool));
	OK(doca_buf_pool_get_num_elements(pool, &v));
	assert_int_equal(v, 4);
	OK(doca_buf_pool_start(pool));
	for (int i = 0; i < 4; i++) {
		OK(doca_buf_pool_buf_alloc(pool, &b[i]));
		OK(doca_buf_get_head(b[i], &head));
		OK(doca_buf_get_len(b[i], &len));
		OK(doca_buf_get_data(b[i], &data));
		OK(doca_buf_get_data_len(b[i], &dlen));
		OK(doca_buf_get_refcount(b[i], &rc));
		/* packed elements (alignment 1), an empty data segment at the start */
		assert_ptr_equal(head, f->mem + 100 * i);
		assert_int_equal(len, 100);
		assert_ptr_equal(data, head);
		assert_int_equal(dlen, 0);
		assert_int_equal(rc, 1);
		OK(doca_buf_pool_get_num_free_elements(pool, &v));
		assert_int_equal(v, 3 - i);
	}
	ERR(doca_buf_pool_buf_alloc(pool, &b[4]), DOCA_ERROR_EMPTY);
	/* a pool buffer is an ordinary buffer: data, refcount, lists */
	OK(doca_buf_set_data(b[0], f->mem + 10, 20));
	OK(doca_buf_inc_refcount(b[0], NULL));
	OK(doca_buf_dec_refcount(b[0], NULL));
	OK(doca_buf_pool_get_num_free_elements(pool, &v));
	assert_int_equal(v, 0);
	OK(doca_buf_chain_list(b[1], b[2]));
	OK(doca_buf_dec_refcount(b[1], NULL)); /* releases b[1] and b[2] */
	OK(doca_buf_pool_get_num_free_elements(pool, &v));
	assert_int_equal(v, 2);
	/* the element comes back whole, with an empty data segment */
	OK(doca_buf_dec_refcount(b[0], NULL));
	OK(doca_buf_pool_buf_alloc(pool, &b[0]));
	OK(doca_buf_get_data_len(b[0], &dlen));
	assert_int_equal(dlen, 0);
	OK(doca_buf_get_len(b[0], &len));
	assert_int_equal(len, 100);
	/* duplicating a pool buffer into an inventory */
	struct doca_buf_inventory *inv;
	struct doca_buf *dup;
	OK(doca_buf_inventory_create(2, &inv));
	OK(doca_buf_inventory_start(inv));
	OK(doca_buf_inventory_buf_dup(inv, b[3], &dup));
	OK(doca_buf_get_head(dup, &head));
	assert_ptr_equal(head, f->mem + 300);
	OK(doca_buf_dec_refcount(dup, NULL));
	OK(doca_buf_inventory_destroy(inv));
	OK(doca_buf_dec_refcount(b[0], NULL));
	OK(doca_buf_dec_refcount(b[3], NULL));
	OK(doca_buf_pool_get_num_free_elements(pool, &v));
	assert_int_equal(v, 4);
	OK(doca_buf_pool_destroy(pool));
	OK(doca_mmap_stop(f->mmap));
}

static void pool_alignment_and_size(void **s)
{
	struct fixture *f = *s;
	struct doca_buf_pool *pool;
	struct doca_buf *b[2];
	void *head;

	OK(doca_mmap_start(f->mmap));
	/* 100-byte elements at 128-byte strides: 32 fit in 4 KiB, 33 do not */
	OK(doca_buf_pool_create(33, 100, f->mmap, &pool));
	OK(doca_buf_pool_set_element_alignment(pool, 128));
	ERR(doca_buf_pool_start(pool), DOCA_ERROR_INITIALIZATION);
	OK(doca_buf_pool_destroy(pool));
	OK(doca_buf_pool_create(32, 100, f->mmap, &pool));
	OK(doca_buf_pool_set_element_alignment(pool, 128));
	OK(doca_buf_pool_start(pool));
	OK(doca_buf_pool_buf_alloc(pool, &b[0]));
	OK(doca_buf_pool_buf_alloc(pool, &b[1]));
	OK(doca_buf_get_head(b[1], &head));
	assert_ptr_equal(head, f->mem + 128);
	assert_int_equal((uintptr_t)head % 128, 0);
	OK(doca_buf_dec_refcount(b[0], NULL));
	OK(doca_buf_dec_refcount(b[1], NULL));
	OK(doca_buf_pool_destroy(pool));
	/* packed: 41 elements of 100 bytes need 4100 bytes, 40 of 102 need 4080 */
	OK(doca_buf_pool_create(41, 100, f->mmap, &pool));
	ERR(doca_buf_pool_start(pool), DOCA_ERROR_INITIALIZATION);
	OK(doca_buf_pool_destroy(pool));
	OK(doca_buf_pool_create(40, 102, f->mmap, &pool));
	OK(doca_buf_pool_start(pool));
	OK(doca_buf_pool_destroy(pool));
	/* the last element needs only its own size, not a whole stride:
	 * 2 x 1000 bytes at 2048 alignment fit in 3100 bytes (2048 + 1000) */
	struct doca_mmap *small;
	OK(doca_mmap_create(&small));
	OK(doca_mmap_set_memrange(small, f->mem, 3100));
	OK(doca_mmap_start(small));
	OK(doca_buf_pool_create(2, 1000, small, &pool));
	OK(doca_buf_pool_set_element_alignment(pool, 2048));
	OK(doca_buf_pool_start(pool));
	OK(doca_buf_pool_destroy(pool));
	OK(doca_buf_pool_create(2, 1053, small, &pool)); /* 2048 + 1053 > 3100 */
	OK(doca_buf_pool_set_element_alignment(pool, 2048));
	ERR(doca_buf_pool_start(pool), DOCA_ERROR_INITIALIZATION);
	OK(doca_buf_pool_destroy(pool));
	OK(doca_mmap_destroy(small));
	/* an element larger than the whole range */
	OK(doca_buf_pool_create(1, MEM_LEN + 1, f->mmap, &pool));
	ERR(doca_buf_pool_start(pool), DOCA_ERROR_INITIALIZATION);
	OK(doca_buf_pool_destroy(pool));
	OK(doca_mmap_stop(f->mmap));
}

/* ---------------- buffer array ---------------- */

static void arr_bad_args_and_states(void **s)
{
	struct fixture *f = *s;
	struct doca_buf_arr *arr;
	struct doca_gpu_buf_arr *garr;
	doca_dpa_dev_buf_arr_t darr;
	struct doca_mmap *bare;

	ERR(doca_buf_arr_create(0, &arr), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_arr_create(4, NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_arr_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_arr_set_params(NULL, f->mmap, 64, 0), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_arr_set_target_gpu(NULL, (struct doca_gpu *)1), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_arr_set_target_dpa(NULL, (struct doca_dpa *)1), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_arr_start(NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_arr_stop(NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_arr_get_gpu_handle(NULL, &garr), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_arr_get_dpa_handle(NULL, &darr), DOCA_ERROR_INVALID_VALUE);

	OK(doca_buf_arr_create(16, &arr));
	ERR(doca_buf_arr_set_params(arr, NULL, 64, 0), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_arr_set_params(arr, f->mmap, 0, 0), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_arr_set_params(arr, f->mmap, 64, MEM_LEN), DOCA_ERROR_INVALID_VALUE); /* offset outside */
	OK(doca_mmap_create(&bare));
	ERR(doca_buf_arr_set_params(arr, bare, 64, 0), DOCA_ERROR_INVALID_VALUE); /* no memory range */
	OK(doca_mmap_destroy(bare));
	ERR(doca_buf_arr_set_target_gpu(arr, NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_arr_set_target_dpa(arr, NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_arr_get_gpu_handle(arr, NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_arr_get_dpa_handle(arr, NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_arr_get_gpu_handle(arr, &garr), DOCA_ERROR_BAD_STATE); /* not started */
	ERR(doca_buf_arr_get_dpa_handle(arr, &darr), DOCA_ERROR_BAD_STATE);
	OK(doca_buf_arr_stop(arr)); /* not started: nothing to stop */
	ERR(doca_buf_arr_start(arr), DOCA_ERROR_BAD_STATE); /* no parameters */
	OK(doca_buf_arr_destroy(arr));
}

static void arr_start_checks(void **s)
{
	struct fixture *f = *s;
	struct doca_buf_arr *arr;

	OK(doca_buf_arr_create(16, &arr));
	OK(doca_buf_arr_set_params(arr, f->mmap, 256, 0));
	/* no GPU or DPA to target */
	ERR(doca_buf_arr_set_target_gpu(arr, (struct doca_gpu *)1), DOCA_ERROR_NOT_SUPPORTED);
	ERR(doca_buf_arr_set_target_dpa(arr, (struct doca_dpa *)1), DOCA_ERROR_NOT_SUPPORTED);
	ERR(doca_buf_arr_start(arr), DOCA_ERROR_BAD_STATE); /* mmap not started */
	OK(doca_mmap_start(f->mmap));
	OK(doca_buf_arr_set_params(arr, f->mmap, 256, 1)); /* 16 * 256 + 1 > 4 KiB */
	ERR(doca_buf_arr_start(arr), DOCA_ERROR_NO_MEMORY);
	OK(doca_buf_arr_set_params(arr, f->mmap, 256, 0)); /* fits */
	ERR(doca_buf_arr_start(arr), DOCA_ERROR_BAD_STATE); /* but no target device */
	OK(doca_buf_arr_destroy(arr));
	OK(doca_mmap_stop(f->mmap));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(pool_bad_args, setup, teardown),
		cmocka_unit_test_setup_teardown(pool_states, setup, teardown),
		cmocka_unit_test_setup_teardown(pool_alloc_and_release, setup, teardown),
		cmocka_unit_test_setup_teardown(pool_alignment_and_size, setup, teardown),
		cmocka_unit_test_setup_teardown(arr_bad_args_and_states, setup, teardown),
		cmocka_unit_test_setup_teardown(arr_start_checks, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
