/*
 * test_return_codes.c - the return codes of doca_buf, doca_buf_inventory,
 * doca_buf_pool and doca_buf_arr, one table row per (function, situation).
 *
 * Each row names the function, the situation and the code DOCA's reference
 * gives for it ("ref") or, where the reference is silent, the code softdoca
 * chose ("ours"; see the comment on the row). Every row runs as its own
 * cmocka test on a fresh fixture: a started mmap over MEM_LEN bytes and a
 * started inventory of INV_NUM descriptors. A row cleans up what it made, and
 * the teardown fails if a buffer was left out (destroy answers IN_USE).
 *
 * NO_MEMORY of the create calls is produced in a forked child whose address
 * space is capped (RLIMIT_AS) and whose heap is used up first (skipped under
 * ASan, whose allocator does not fail cleanly there).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_buf.h>
#include <doca_buf_array.h>
#include <doca_buf_inventory.h>
#include <doca_buf_pool.h>
#include <doca_dev.h>
#include <doca_mmap.h>

#if defined(__SANITIZE_ADDRESS__)
#define RC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RC_ASAN 1
#endif
#endif

#define OK(x) assert_int_equal((x), DOCA_SUCCESS)

#define MEM_LEN 4096
#define INV_NUM 4

struct fx {
	struct doca_dev *dev;
	struct doca_mmap *mmap; /* started, range [mem, mem + MEM_LEN) */
	struct doca_buf_inventory *inv; /* started, INV_NUM descriptors */
	uint8_t *mem;
	const struct row *row; /* cmocka hands the test only *state */
};

typedef doca_error_t (*case_fn)(struct fx *f);

struct row {
	const char *name; /* "function: situation" */
	case_fn fn;
	doca_error_t expect;
};

/* ---- helpers ---- */

static struct doca_buf *get_buf(struct fx *f, size_t off)
{
	struct doca_buf *b = NULL;

	OK(doca_buf_inventory_buf_get_by_data(f->inv, f->mmap, f->mem + off, 64, &b));
	return b;
}

static void put_buf(struct doca_buf *b)
{
	OK(doca_buf_dec_refcount(b, NULL));
}

/* A list of two: head a, then b. */
static struct doca_buf *get_list2(struct fx *f, struct doca_buf **second)
{
	struct doca_buf *a = get_buf(f, 0), *b = get_buf(f, 64);

	OK(doca_buf_chain_list(a, b));
	*second = b;
	return a;
}

/* An mmap with its range set but not started. */
static struct doca_mmap *idle_mmap(struct fx *f)
{
	struct doca_mmap *m = NULL;

	OK(doca_mmap_create(&m));
	OK(doca_mmap_add_dev(m, f->dev));
	OK(doca_mmap_set_memrange(m, f->mem, MEM_LEN));
	return m;
}

/*
 * Run fn in a child that cannot allocate: its address space is capped a
 * little above what it uses, and that headroom is then used up.
 */
static doca_error_t starved(doca_error_t (*fn)(void))
{
	int status = 0;
	pid_t pid;

#ifdef RC_ASAN
	/* ASan's allocator does not give up gracefully under RLIMIT_AS */
	skip();
#endif
	pid = fork();
	if (pid < 0)
		return DOCA_ERROR_OPERATING_SYSTEM;
	if (pid == 0) {
		long pages = 0;
		FILE *st = fopen("/proc/self/statm", "r");
		struct rlimit rl;
		void *hold = NULL, *p;

		if (st == NULL || fscanf(st, "%ld", &pages) != 1)
			_exit(255);
		fclose(st);
		rl.rlim_cur = rl.rlim_max = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (32u << 20);
		if (setrlimit(RLIMIT_AS, &rl) != 0)
			_exit(255);
		for (size_t sz = 1u << 20; sz >= 16; sz /= 2) {
			while ((p = malloc(sz)) != NULL) {
				*(void **)p = hold;
				hold = p;
			}
		}
		_exit((int)fn());
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return DOCA_ERROR_UNKNOWN;
	return (doca_error_t)WEXITSTATUS(status);
}

/* ================= doca_buf ================= */

static doca_error_t inc_ok(struct fx *f)
{
	struct doca_buf *b = get_buf(f, 0);
	uint16_t rc = 0;
	doca_error_t r = doca_buf_inc_refcount(b, &rc);

	assert_int_equal(rc, 1);
	put_buf(b);
	put_buf(b);
	return r;
}

static doca_error_t inc_not_head(struct fx *f)
{
	struct doca_buf *second, *head = get_list2(f, &second);
	doca_error_t r = doca_buf_inc_refcount(second, NULL);

	put_buf(head);
	return r;
}

static doca_error_t inc_max(struct fx *f)
{
	struct doca_buf *b = get_buf(f, 0);
	doca_error_t r;
	uint16_t rc = 0;

	for (uint32_t i = 1; i < UINT16_MAX; i++)
		OK(doca_buf_inc_refcount(b, NULL));
	OK(doca_buf_get_refcount(b, &rc));
	assert_int_equal(rc, UINT16_MAX);
	r = doca_buf_inc_refcount(b, NULL);
	for (uint32_t i = 0; i < UINT16_MAX; i++)
		put_buf(b);
	return r;
}

static doca_error_t inc_null(struct fx *f)
{
	(void)f;
	return doca_buf_inc_refcount(NULL, NULL);
}

/* ours: a released descriptor is not a buffer any more */
static doca_error_t inc_released(struct fx *f)
{
	struct doca_buf *b = get_buf(f, 0);

	put_buf(b);
	return doca_buf_inc_refcount(b, NULL);
}

static doca_error_t dec_ok(struct fx *f)
{
	struct doca_buf *b = get_buf(f, 0);
	uint16_t rc = 0;
	doca_error_t r = doca_buf_dec_refcount(b, &rc);

	assert_int_equal(rc, 1);
	return r;
}

static doca_error_t dec_not_head(struct fx *f)
{
	struct doca_buf *second, *head = get_list2(f, &second);
	doca_error_t r = doca_buf_dec_refcount(second, NULL);

	put_buf(head);
	return r;
}

static doca_error_t dec_zero(struct fx *f)
{
	struct doca_buf *b = get_buf(f, 0);

	put_buf(b);
	return doca_buf_dec_refcount(b, NULL);
}

static doca_error_t dec_null(struct fx *f)
{
	(void)f;
	return doca_buf_dec_refcount(NULL, NULL);
}

/* The "always SUCCESS" accessors: a valid call, then NULL arguments
 * (the reference forbids them; ours refuses them rather than crash). */
#define ACCESSOR(fn_name, call, out_type)                                                                             \
	static doca_error_t fn_name##_ok(struct fx *f)                                                                 \
	{                                                                                                              \
		struct doca_buf *b = get_buf(f, 0);                                                                    \
		out_type out;                                                                                          \
		doca_error_t r = call(b, &out);                                                                        \
		put_buf(b);                                                                                            \
		return r;                                                                                              \
	}                                                                                                              \
	static doca_error_t fn_name##_null_buf(struct fx *f)                                                           \
	{                                                                                                              \
		out_type out;                                                                                          \
		(void)f;                                                                                               \
		return call(NULL, &out);                                                                               \
	}                                                                                                              \
	static doca_error_t fn_name##_null_out(struct fx *f)                                                           \
	{                                                                                                              \
		struct doca_buf *b = get_buf(f, 0);                                                                    \
		doca_error_t r = call(b, NULL);                                                                        \
		put_buf(b);                                                                                            \
		return r;                                                                                              \
	}

ACCESSOR(get_refcount, doca_buf_get_refcount, uint16_t)
ACCESSOR(get_len, doca_buf_get_len, size_t)
ACCESSOR(get_head, doca_buf_get_head, void *)
ACCESSOR(get_data_len, doca_buf_get_data_len, size_t)
ACCESSOR(get_data, doca_buf_get_data, void *)
ACCESSOR(get_next, doca_buf_get_next_in_list, struct doca_buf *)
ACCESSOR(get_last, doca_buf_get_last_in_list, struct doca_buf *)
ACCESSOR(is_first, doca_buf_is_first_in_list, uint8_t)
ACCESSOR(is_last, doca_buf_is_last_in_list, uint8_t)
ACCESSOR(is_in_list, doca_buf_is_in_list, uint8_t)
ACCESSOR(get_list_len, doca_buf_get_list_len, uint32_t)

static doca_error_t list_len_not_head(struct fx *f)
{
	struct doca_buf *second, *head = get_list2(f, &second);
	uint32_t n;
	doca_error_t r = doca_buf_get_list_len(second, &n);

	put_buf(head);
	return r;
}

static doca_error_t set_data_ok(struct fx *f)
{
	struct doca_buf *b = get_buf(f, 0);
	doca_error_t r = doca_buf_set_data(b, f->mem + 8, 16);

	put_buf(b);
	return r;
}

/* ours: the reference calls a segment outside the buffer undefined */
static doca_error_t set_data_outside(struct fx *f)
{
	struct doca_buf *b = get_buf(f, 0);
	doca_error_t r = doca_buf_set_data(b, f->mem + 8, 64);

	put_buf(b);
	return r;
}

static doca_error_t set_data_null(struct fx *f)
{
	struct doca_buf *b = get_buf(f, 0);
	doca_error_t r = doca_buf_set_data(b, NULL, 0);

	put_buf(b);
	return r;
}

static doca_error_t set_data_len_ok(struct fx *f)
{
	struct doca_buf *b = get_buf(f, 0);
	doca_error_t r = doca_buf_set_data_len(b, 32);

	put_buf(b);
	return r;
}

static doca_error_t set_data_len_outside(struct fx *f)
{
	struct doca_buf *b = get_buf(f, 0);
	doca_error_t r = doca_buf_set_data_len(b, 65);

	put_buf(b);
	return r;
}

static doca_error_t set_data_len_null(struct fx *f)
{
	(void)f;
	return doca_buf_set_data_len(NULL, 0);
}

static doca_error_t reset_data_len_ok(struct fx *f)
{
	struct doca_buf *b = get_buf(f, 0);
	doca_error_t r = doca_buf_reset_data_len(b);

	put_buf(b);
	return r;
}

static doca_error_t reset_data_len_null(struct fx *f)
{
	(void)f;
	return doca_buf_reset_data_len(NULL);
}

static doca_error_t chain_ok(struct fx *f)
{
	struct doca_buf *a = get_buf(f, 0), *b = get_buf(f, 64);
	doca_error_t r = doca_buf_chain_list(a, b);

	if (r != DOCA_SUCCESS)
		put_buf(b);
	put_buf(a);
	return r;
}

static doca_error_t chain_refcount2(struct fx *f)
{
	struct doca_buf *a = get_buf(f, 0), *b = get_buf(f, 64);
	doca_error_t r;

	OK(doca_buf_inc_refcount(b, NULL));
	r = doca_buf_chain_list(a, b);
	put_buf(b);
	put_buf(b);
	put_buf(a);
	return r;
}

/* ours: the reference requires heads but names no code */
static doca_error_t chain_not_head(struct fx *f)
{
	struct doca_buf *second, *head = get_list2(f, &second), *c = get_buf(f, 128);
	doca_error_t r = doca_buf_chain_list(c, second);

	put_buf(c);
	put_buf(head);
	return r;
}

static doca_error_t chain_self(struct fx *f)
{
	struct doca_buf *a = get_buf(f, 0);
	doca_error_t r = doca_buf_chain_list(a, a);

	put_buf(a);
	return r;
}

static doca_error_t chain_null(struct fx *f)
{
	struct doca_buf *a = get_buf(f, 0);
	doca_error_t r = doca_buf_chain_list(a, NULL);

	put_buf(a);
	return r;
}

static doca_error_t chain_tail_ok(struct fx *f)
{
	struct doca_buf *second, *head = get_list2(f, &second), *c = get_buf(f, 128);
	doca_error_t r = doca_buf_chain_list_tail(head, second, c);

	if (r != DOCA_SUCCESS)
		put_buf(c);
	put_buf(head);
	return r;
}

static doca_error_t chain_tail_refcount2(struct fx *f)
{
	struct doca_buf *a = get_buf(f, 0), *b = get_buf(f, 64);
	doca_error_t r;

	OK(doca_buf_inc_refcount(b, NULL));
	r = doca_buf_chain_list_tail(a, a, b);
	put_buf(b);
	put_buf(b);
	put_buf(a);
	return r;
}

/* ours: the given tail is not list1's tail */
static doca_error_t chain_tail_wrong(struct fx *f)
{
	struct doca_buf *second, *head = get_list2(f, &second), *c = get_buf(f, 128);
	doca_error_t r = doca_buf_chain_list_tail(head, head, c);

	put_buf(c);
	put_buf(head);
	return r;
}

static doca_error_t unchain_ok(struct fx *f)
{
	struct doca_buf *second, *head = get_list2(f, &second);
	doca_error_t r = doca_buf_unchain_list(head, second);

	if (r == DOCA_SUCCESS)
		put_buf(second);
	put_buf(head);
	return r;
}

static doca_error_t unchain_not_member(struct fx *f)
{
	struct doca_buf *second, *head = get_list2(f, &second), *c = get_buf(f, 128);
	doca_error_t r = doca_buf_unchain_list(head, c);

	put_buf(c);
	put_buf(head);
	return r;
}

static doca_error_t unchain_same(struct fx *f)
{
	struct doca_buf *second, *head = get_list2(f, &second);
	doca_error_t r = doca_buf_unchain_list(head, head);

	put_buf(head);
	return r;
}

/* ================= doca_buf_inventory ================= */

static doca_error_t inv_create_ok(struct fx *f)
{
	struct doca_buf_inventory *inv = NULL;
	doca_error_t r = doca_buf_inventory_create(8, &inv);

	(void)f;
	if (r == DOCA_SUCCESS)
		OK(doca_buf_inventory_destroy(inv));
	return r;
}

static doca_error_t inv_create_null(struct fx *f)
{
	(void)f;
	return doca_buf_inventory_create(8, NULL);
}

static doca_error_t inv_create_zero(struct fx *f)
{
	struct doca_buf_inventory *inv = NULL;

	(void)f;
	return doca_buf_inventory_create(0, &inv);
}

static doca_error_t inv_create_child(void)
{
	struct doca_buf_inventory *inv = NULL;
	doca_error_t r = doca_buf_inventory_create(1u << 20, &inv);

	if (r == DOCA_SUCCESS)
		doca_buf_inventory_destroy(inv);
	return r;
}

static doca_error_t inv_create_nomem(struct fx *f)
{
	(void)f;
	return starved(inv_create_child);
}

static doca_error_t inv_destroy_ok(struct fx *f)
{
	struct doca_buf_inventory *inv = NULL;

	(void)f;
	OK(doca_buf_inventory_create(2, &inv));
	OK(doca_buf_inventory_start(inv));
	return doca_buf_inventory_destroy(inv);
}

static doca_error_t inv_destroy_null(struct fx *f)
{
	(void)f;
	return doca_buf_inventory_destroy(NULL);
}

static doca_error_t inv_destroy_in_use(struct fx *f)
{
	struct doca_buf *b = get_buf(f, 0);
	doca_error_t r = doca_buf_inventory_destroy(f->inv);

	put_buf(b);
	return r;
}

static doca_error_t inv_start_ok(struct fx *f)
{
	struct doca_buf_inventory *inv = NULL;
	doca_error_t r;

	(void)f;
	OK(doca_buf_inventory_create(2, &inv));
	r = doca_buf_inventory_start(inv);
	OK(doca_buf_inventory_destroy(inv));
	return r;
}

static doca_error_t inv_start_null(struct fx *f)
{
	(void)f;
	return doca_buf_inventory_start(NULL);
}

/* the reference lists only INVALID_VALUE: a second start is no failure */
static doca_error_t inv_start_started(struct fx *f)
{
	return doca_buf_inventory_start(f->inv);
}

static doca_error_t inv_start_stopped(struct fx *f)
{
	struct doca_buf *b = NULL;
	doca_error_t r;

	OK(doca_buf_inventory_stop(f->inv));
	r = doca_buf_inventory_start(f->inv);
	OK(doca_buf_inventory_buf_get_by_data(f->inv, f->mmap, f->mem, 8, &b)); /* retrieval is back */
	put_buf(b);
	return r;
}

static doca_error_t inv_stop_ok(struct fx *f)
{
	return doca_buf_inventory_stop(f->inv);
}

static doca_error_t inv_stop_null(struct fx *f)
{
	(void)f;
	return doca_buf_inventory_stop(NULL);
}

static doca_error_t inv_stop_idle(struct fx *f)
{
	OK(doca_buf_inventory_stop(f->inv));
	return doca_buf_inventory_stop(f->inv);
}

static doca_error_t inv_expand_ok(struct fx *f)
{
	uint32_t n = 0;
	doca_error_t r = doca_buf_inventory_expand(f->inv, 3);

	OK(doca_buf_inventory_get_num_elements(f->inv, &n));
	assert_int_equal(n, r == DOCA_SUCCESS ? INV_NUM + 3 : INV_NUM);
	return r;
}

static doca_error_t inv_expand_null(struct fx *f)
{
	(void)f;
	return doca_buf_inventory_expand(NULL, 3);
}

static doca_error_t inv_expand_zero(struct fx *f)
{
	return doca_buf_inventory_expand(f->inv, 0);
}

static doca_error_t inv_expand_idle(struct fx *f)
{
	OK(doca_buf_inventory_stop(f->inv));
	return doca_buf_inventory_expand(f->inv, 3);
}

static doca_error_t inv_set_ud_ok(struct fx *f)
{
	union doca_data ud = {.u64 = 5};

	return doca_buf_inventory_set_user_data(f->inv, ud);
}

static doca_error_t inv_set_ud_null(struct fx *f)
{
	union doca_data ud = {.u64 = 5};

	(void)f;
	return doca_buf_inventory_set_user_data(NULL, ud);
}

static doca_error_t inv_set_ud_unstarted(struct fx *f)
{
	struct doca_buf_inventory *inv = NULL;
	union doca_data ud = {.u64 = 5};
	doca_error_t r;

	(void)f;
	OK(doca_buf_inventory_create(2, &inv));
	r = doca_buf_inventory_set_user_data(inv, ud);
	OK(doca_buf_inventory_destroy(inv));
	return r;
}

static doca_error_t inv_set_ud_stopped(struct fx *f)
{
	union doca_data ud = {.u64 = 5};

	OK(doca_buf_inventory_stop(f->inv));
	return doca_buf_inventory_set_user_data(f->inv, ud);
}

static doca_error_t inv_get_ud_ok(struct fx *f)
{
	union doca_data ud = {.u64 = 9};
	doca_error_t r = doca_buf_inventory_get_user_data(f->inv, &ud);

	assert_int_equal(ud.u64, 0); /* unset: 0 */
	return r;
}

static doca_error_t inv_get_ud_null(struct fx *f)
{
	return doca_buf_inventory_get_user_data(f->inv, NULL);
}

static doca_error_t inv_num_ok(struct fx *f)
{
	uint32_t n = 0;
	doca_error_t r = doca_buf_inventory_get_num_elements(f->inv, &n);

	assert_int_equal(n, INV_NUM);
	return r;
}

static doca_error_t inv_num_null(struct fx *f)
{
	(void)f;
	return doca_buf_inventory_get_num_elements(NULL, NULL);
}

static doca_error_t inv_free_ok(struct fx *f)
{
	struct doca_buf *b = get_buf(f, 0);
	uint32_t n = 0;
	doca_error_t r = doca_buf_inventory_get_num_free_elements(f->inv, &n);

	assert_int_equal(n, INV_NUM - 1);
	put_buf(b);
	return r;
}

static doca_error_t inv_free_null(struct fx *f)
{
	return doca_buf_inventory_get_num_free_elements(f->inv, NULL);
}

static doca_error_t by_args_ok(struct fx *f)
{
	struct doca_buf *b = NULL;
	doca_error_t r = doca_buf_inventory_buf_get_by_args(f->inv, f->mmap, f->mem, 64, f->mem + 8, 8, &b);

	if (r == DOCA_SUCCESS)
		put_buf(b);
	return r;
}

static doca_error_t by_args_null(struct fx *f)
{
	return doca_buf_inventory_buf_get_by_args(f->inv, f->mmap, f->mem, 64, f->mem, 8, NULL);
}

static doca_error_t by_args_outside(struct fx *f)
{
	struct doca_buf *b = NULL;

	return doca_buf_inventory_buf_get_by_args(f->inv, f->mmap, f->mem + MEM_LEN - 8, 64, f->mem + MEM_LEN - 8, 0,
						  &b);
}

/* ours: the reference calls it undefined */
static doca_error_t by_args_data_outside(struct fx *f)
{
	struct doca_buf *b = NULL;

	return doca_buf_inventory_buf_get_by_args(f->inv, f->mmap, f->mem, 64, f->mem + 32, 64, &b);
}

static doca_error_t drain(struct fx *f, struct doca_buf **out)
{
	for (int i = 0; i < INV_NUM; i++)
		OK(doca_buf_inventory_buf_get_by_data(f->inv, f->mmap, f->mem + 64 * i, 64, &out[i]));
	return DOCA_SUCCESS;
}

static void undrain(struct doca_buf **out)
{
	for (int i = 0; i < INV_NUM; i++)
		put_buf(out[i]);
}

static doca_error_t by_args_empty(struct fx *f)
{
	struct doca_buf *all[INV_NUM], *b = NULL;
	doca_error_t r;

	drain(f, all);
	r = doca_buf_inventory_buf_get_by_args(f->inv, f->mmap, f->mem, 64, f->mem, 8, &b);
	undrain(all);
	return r;
}

static doca_error_t by_addr_empty(struct fx *f)
{
	struct doca_buf *all[INV_NUM], *b = NULL;
	doca_error_t r;

	drain(f, all);
	r = doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem, 64, &b);
	undrain(all);
	return r;
}

static doca_error_t by_data_empty(struct fx *f)
{
	struct doca_buf *all[INV_NUM], *b = NULL;
	doca_error_t r;

	drain(f, all);
	r = doca_buf_inventory_buf_get_by_data(f->inv, f->mmap, f->mem, 64, &b);
	undrain(all);
	return r;
}

static doca_error_t by_addr_ok(struct fx *f)
{
	struct doca_buf *b = NULL;
	doca_error_t r = doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem, 64, &b);

	if (r == DOCA_SUCCESS)
		put_buf(b);
	return r;
}

static doca_error_t by_data_ok(struct fx *f)
{
	struct doca_buf *b = NULL;
	doca_error_t r = doca_buf_inventory_buf_get_by_data(f->inv, f->mmap, f->mem, 64, &b);

	if (r == DOCA_SUCCESS)
		put_buf(b);
	return r;
}

/* ours, as buf_dup documents: retrieval from a stopped inventory */
static doca_error_t by_args_inv_stopped(struct fx *f)
{
	struct doca_buf *b = NULL;

	OK(doca_buf_inventory_stop(f->inv));
	return doca_buf_inventory_buf_get_by_args(f->inv, f->mmap, f->mem, 64, f->mem, 8, &b);
}

static doca_error_t by_args_mmap_idle(struct fx *f)
{
	struct doca_mmap *m = idle_mmap(f);
	struct doca_buf *b = NULL;
	doca_error_t r = doca_buf_inventory_buf_get_by_args(f->inv, m, f->mem, 64, f->mem, 8, &b);

	OK(doca_mmap_destroy(m));
	return r;
}

static doca_error_t dup_ok(struct fx *f)
{
	struct doca_buf *second, *head = get_list2(f, &second), *d = NULL;
	uint32_t n = 0;
	doca_error_t r = doca_buf_inventory_buf_dup(f->inv, head, &d);

	if (r == DOCA_SUCCESS) {
		OK(doca_buf_get_list_len(d, &n));
		assert_int_equal(n, 2);
		put_buf(d);
	}
	put_buf(head);
	return r;
}

static doca_error_t dup_null(struct fx *f)
{
	struct doca_buf *d = NULL;

	return doca_buf_inventory_buf_dup(f->inv, NULL, &d);
}

static doca_error_t dup_inv_stopped(struct fx *f)
{
	struct doca_buf *b = get_buf(f, 0), *d = NULL;
	doca_error_t r;

	OK(doca_buf_inventory_stop(f->inv));
	r = doca_buf_inventory_buf_dup(f->inv, b, &d);
	put_buf(b);
	return r;
}

/* A thread-safe mmap can be stopped under its buffers. */
static doca_error_t dup_mmap_stopped(struct fx *f)
{
	struct doca_mmap *m = idle_mmap(f);
	struct doca_buf *b = NULL, *d = NULL;
	doca_error_t r;

	OK(doca_mmap_enable_thread_safety(m));
	OK(doca_mmap_start(m));
	OK(doca_buf_inventory_buf_get_by_data(f->inv, m, f->mem, 64, &b));
	OK(doca_mmap_stop(m));
	r = doca_buf_inventory_buf_dup(f->inv, b, &d);
	put_buf(b);
	OK(doca_mmap_destroy(m));
	return r;
}

static doca_error_t dup_not_head(struct fx *f)
{
	struct doca_buf *second, *head = get_list2(f, &second), *d = NULL;
	doca_error_t r = doca_buf_inventory_buf_dup(f->inv, second, &d);

	put_buf(head);
	return r;
}

static doca_error_t dup_empty(struct fx *f)
{
	struct doca_buf *second, *head = get_list2(f, &second), *c = get_buf(f, 128), *d = NULL;
	doca_error_t r = doca_buf_inventory_buf_dup(f->inv, head, &d); /* 2 needed, 1 free */

	put_buf(c);
	put_buf(head);
	return r;
}

/* ================= doca_buf_pool ================= */

static struct doca_buf_pool *new_pool(struct fx *f, size_t n, size_t sz)
{
	struct doca_buf_pool *p = NULL;

	OK(doca_buf_pool_create(n, sz, f->mmap, &p));
	return p;
}

static doca_error_t pool_create_ok(struct fx *f)
{
	struct doca_buf_pool *p = NULL;
	doca_error_t r = doca_buf_pool_create(4, 64, f->mmap, &p);

	if (r == DOCA_SUCCESS)
		OK(doca_buf_pool_destroy(p));
	return r;
}

static doca_error_t pool_create_null_mmap(struct fx *f)
{
	struct doca_buf_pool *p = NULL;

	(void)f;
	return doca_buf_pool_create(4, 64, NULL, &p);
}

static doca_error_t pool_create_zero(struct fx *f)
{
	struct doca_buf_pool *p = NULL;

	return doca_buf_pool_create(0, 64, f->mmap, &p);
}

static doca_error_t pool_create_zero_size(struct fx *f)
{
	struct doca_buf_pool *p = NULL;

	return doca_buf_pool_create(4, 0, f->mmap, &p);
}

static doca_error_t pool_create_no_range(struct fx *f)
{
	struct doca_mmap *m = NULL;
	struct doca_buf_pool *p = NULL;
	doca_error_t r;

	(void)f;
	OK(doca_mmap_create(&m));
	r = doca_buf_pool_create(4, 64, m, &p);
	OK(doca_mmap_destroy(m));
	return r;
}

static struct doca_mmap *child_mmap;

static doca_error_t pool_create_child(void)
{
	struct doca_buf_pool *p = NULL;
	doca_error_t r = doca_buf_pool_create(1u << 20, 1, child_mmap, &p);

	if (r == DOCA_SUCCESS)
		doca_buf_pool_destroy(p);
	return r;
}

static doca_error_t pool_create_nomem(struct fx *f)
{
	child_mmap = f->mmap;
	return starved(pool_create_child);
}

static doca_error_t pool_destroy_ok(struct fx *f)
{
	struct doca_buf_pool *p = new_pool(f, 4, 64);

	OK(doca_buf_pool_start(p));
	return doca_buf_pool_destroy(p); /* implicitly stops */
}

static doca_error_t pool_destroy_null(struct fx *f)
{
	(void)f;
	return doca_buf_pool_destroy(NULL);
}

static doca_error_t pool_destroy_in_use(struct fx *f)
{
	struct doca_buf_pool *p = new_pool(f, 4, 64);
	struct doca_buf *b = NULL;
	doca_error_t r;

	OK(doca_buf_pool_start(p));
	OK(doca_buf_pool_buf_alloc(p, &b));
	r = doca_buf_pool_destroy(p);
	put_buf(b);
	OK(doca_buf_pool_destroy(p));
	return r;
}

static doca_error_t pool_start_ok(struct fx *f)
{
	struct doca_buf_pool *p = new_pool(f, 4, 64);
	doca_error_t r = doca_buf_pool_start(p);

	OK(doca_buf_pool_destroy(p));
	return r;
}

static doca_error_t pool_start_null(struct fx *f)
{
	(void)f;
	return doca_buf_pool_start(NULL);
}

static doca_error_t pool_start_too_small(struct fx *f)
{
	struct doca_buf_pool *p = new_pool(f, 65, 64); /* 65 * 64 > MEM_LEN */
	doca_error_t r = doca_buf_pool_start(p);

	OK(doca_buf_pool_destroy(p));
	return r;
}

static doca_error_t pool_start_align_too_small(struct fx *f)
{
	struct doca_buf_pool *p = new_pool(f, 4, 65);
	doca_error_t r;

	OK(doca_buf_pool_set_element_alignment(p, 2048)); /* packed they fit; 3 * 2048 + 65 > MEM_LEN */
	r = doca_buf_pool_start(p);
	OK(doca_buf_pool_destroy(p));
	return r;
}

static doca_error_t pool_start_mmap_idle(struct fx *f)
{
	struct doca_mmap *m = idle_mmap(f);
	struct doca_buf_pool *p = NULL;
	doca_error_t r;

	OK(doca_buf_pool_create(4, 64, m, &p));
	r = doca_buf_pool_start(p);
	OK(doca_buf_pool_destroy(p));
	OK(doca_mmap_destroy(m));
	return r;
}

/* ours: the reference names no code for a second start */
static doca_error_t pool_start_started(struct fx *f)
{
	struct doca_buf_pool *p = new_pool(f, 4, 64);
	doca_error_t r;

	OK(doca_buf_pool_start(p));
	r = doca_buf_pool_start(p);
	OK(doca_buf_pool_destroy(p));
	return r;
}

static doca_error_t pool_stop_ok(struct fx *f)
{
	struct doca_buf_pool *p = new_pool(f, 4, 64);
	doca_error_t r;

	OK(doca_buf_pool_start(p));
	r = doca_buf_pool_stop(p);
	OK(doca_buf_pool_destroy(p));
	return r;
}

static doca_error_t pool_stop_null(struct fx *f)
{
	(void)f;
	return doca_buf_pool_stop(NULL);
}

static doca_error_t pool_stop_in_use(struct fx *f)
{
	struct doca_buf_pool *p = new_pool(f, 4, 64);
	struct doca_buf *b = NULL;
	doca_error_t r;

	OK(doca_buf_pool_start(p));
	OK(doca_buf_pool_buf_alloc(p, &b));
	r = doca_buf_pool_stop(p);
	put_buf(b);
	OK(doca_buf_pool_destroy(p));
	return r;
}

/* the reference lists no state error for stop: a stopped pool stays stopped */
static doca_error_t pool_stop_idle(struct fx *f)
{
	struct doca_buf_pool *p = new_pool(f, 4, 64);
	doca_error_t r = doca_buf_pool_stop(p);

	OK(doca_buf_pool_destroy(p));
	return r;
}

#define POOL_SETTER(fn_name, call, good, bad)                                                                         \
	static doca_error_t fn_name##_ok(struct fx *f)                                                                 \
	{                                                                                                              \
		struct doca_buf_pool *p = new_pool(f, 4, 64);                                                         \
		doca_error_t r = call(p, good);                                                                        \
		OK(doca_buf_pool_destroy(p));                                                                          \
		return r;                                                                                              \
	}                                                                                                              \
	static doca_error_t fn_name##_null(struct fx *f)                                                               \
	{                                                                                                              \
		(void)f;                                                                                               \
		return call(NULL, good);                                                                               \
	}                                                                                                              \
	static doca_error_t fn_name##_bad(struct fx *f)                                                                \
	{                                                                                                              \
		struct doca_buf_pool *p = new_pool(f, 4, 64);                                                         \
		doca_error_t r = call(p, bad);                                                                         \
		OK(doca_buf_pool_destroy(p));                                                                          \
		return r;                                                                                              \
	}                                                                                                              \
	static doca_error_t fn_name##_started(struct fx *f)                                                            \
	{                                                                                                              \
		struct doca_buf_pool *p = new_pool(f, 4, 64);                                                         \
		doca_error_t r;                                                                                        \
		OK(doca_buf_pool_start(p));                                                                            \
		r = call(p, good);                                                                                     \
		OK(doca_buf_pool_destroy(p));                                                                          \
		return r;                                                                                              \
	}

static const union doca_data ud_good = {.u64 = 3};
POOL_SETTER(pool_set_ud, doca_buf_pool_set_user_data, ud_good, ud_good)
POOL_SETTER(pool_set_align, doca_buf_pool_set_element_alignment, 64, 3)

static doca_error_t pool_set_align_zero(struct fx *f)
{
	struct doca_buf_pool *p = new_pool(f, 4, 64);
	doca_error_t r = doca_buf_pool_set_element_alignment(p, 0);

	OK(doca_buf_pool_destroy(p));
	return r;
}

#define POOL_GETTER(fn_name, call, out_type, expect)                                                                  \
	static doca_error_t fn_name##_ok(struct fx *f)                                                                 \
	{                                                                                                              \
		struct doca_buf_pool *p = new_pool(f, 4, 64);                                                         \
		out_type out;                                                                                          \
		doca_error_t r;                                                                                        \
		memset(&out, 0xff, sizeof(out));                                                                       \
		r = call(p, &out);                                                                                     \
		assert_memory_equal(&out, &(out_type){expect}, sizeof(out));                                           \
		OK(doca_buf_pool_destroy(p));                                                                          \
		return r;                                                                                              \
	}                                                                                                              \
	static doca_error_t fn_name##_null(struct fx *f)                                                               \
	{                                                                                                              \
		struct doca_buf_pool *p = new_pool(f, 4, 64);                                                         \
		doca_error_t r = call(p, NULL);                                                                        \
		OK(doca_buf_pool_destroy(p));                                                                          \
		return r;                                                                                              \
	}

POOL_GETTER(pool_get_ud, doca_buf_pool_get_user_data, union doca_data, .u64 = 0)
POOL_GETTER(pool_get_align, doca_buf_pool_get_element_alignment, size_t, 1)
POOL_GETTER(pool_get_num, doca_buf_pool_get_num_elements, uint32_t, 4)
POOL_GETTER(pool_get_free, doca_buf_pool_get_num_free_elements, uint32_t, 4)

static doca_error_t pool_alloc_ok(struct fx *f)
{
	struct doca_buf_pool *p = new_pool(f, 4, 64);
	struct doca_buf *b = NULL;
	doca_error_t r;

	OK(doca_buf_pool_start(p));
	r = doca_buf_pool_buf_alloc(p, &b);
	if (r == DOCA_SUCCESS)
		put_buf(b);
	OK(doca_buf_pool_destroy(p));
	return r;
}

static doca_error_t pool_alloc_null(struct fx *f)
{
	struct doca_buf_pool *p = new_pool(f, 4, 64);
	doca_error_t r;

	OK(doca_buf_pool_start(p));
	r = doca_buf_pool_buf_alloc(p, NULL);
	OK(doca_buf_pool_destroy(p));
	return r;
}

static doca_error_t pool_alloc_unstarted(struct fx *f)
{
	struct doca_buf_pool *p = new_pool(f, 4, 64);
	struct doca_buf *b = NULL;
	doca_error_t r = doca_buf_pool_buf_alloc(p, &b);

	OK(doca_buf_pool_destroy(p));
	return r;
}

static doca_error_t pool_alloc_stopped(struct fx *f)
{
	struct doca_buf_pool *p = new_pool(f, 4, 64);
	struct doca_buf *b = NULL;
	doca_error_t r;

	OK(doca_buf_pool_start(p));
	OK(doca_buf_pool_stop(p));
	r = doca_buf_pool_buf_alloc(p, &b);
	OK(doca_buf_pool_destroy(p));
	return r;
}

static doca_error_t pool_alloc_empty(struct fx *f)
{
	struct doca_buf_pool *p = new_pool(f, 2, 64);
	struct doca_buf *a = NULL, *b = NULL, *c = NULL;
	doca_error_t r;

	OK(doca_buf_pool_start(p));
	OK(doca_buf_pool_buf_alloc(p, &a));
	OK(doca_buf_pool_buf_alloc(p, &b));
	r = doca_buf_pool_buf_alloc(p, &c);
	put_buf(a);
	put_buf(b);
	OK(doca_buf_pool_destroy(p));
	return r;
}

/* ================= doca_buf_arr ================= */

static struct doca_buf_arr *new_arr(size_t n)
{
	struct doca_buf_arr *a = NULL;

	OK(doca_buf_arr_create(n, &a));
	return a;
}

/* Not dereferenced: the target calls stop at "no device emulated". */
#define FAKE_GPU ((struct doca_gpu *)(uintptr_t)0x1000)
#define FAKE_DPA ((struct doca_dpa *)(uintptr_t)0x1000)

static doca_error_t arr_create_ok(struct fx *f)
{
	struct doca_buf_arr *a = NULL;
	doca_error_t r = doca_buf_arr_create(16, &a);

	(void)f;
	if (r == DOCA_SUCCESS)
		OK(doca_buf_arr_destroy(a));
	return r;
}

static doca_error_t arr_create_zero(struct fx *f)
{
	struct doca_buf_arr *a = NULL;

	(void)f;
	return doca_buf_arr_create(0, &a);
}

static doca_error_t arr_create_null(struct fx *f)
{
	(void)f;
	return doca_buf_arr_create(16, NULL);
}

static doca_error_t arr_create_child(void)
{
	struct doca_buf_arr *a = NULL;
	doca_error_t r = doca_buf_arr_create(16, &a);

	if (r == DOCA_SUCCESS)
		doca_buf_arr_destroy(a);
	return r;
}

static doca_error_t arr_create_nomem(struct fx *f)
{
	(void)f;
	return starved(arr_create_child);
}

static doca_error_t arr_destroy_ok(struct fx *f)
{
	struct doca_buf_arr *a = new_arr(16);

	OK(doca_buf_arr_set_params(a, f->mmap, 64, 0));
	return doca_buf_arr_destroy(a);
}

static doca_error_t arr_destroy_null(struct fx *f)
{
	(void)f;
	return doca_buf_arr_destroy(NULL);
}

static doca_error_t arr_params_ok(struct fx *f)
{
	struct doca_buf_arr *a = new_arr(16);
	doca_error_t r = doca_buf_arr_set_params(a, f->mmap, 64, 128);

	OK(doca_buf_arr_destroy(a));
	return r;
}

static doca_error_t arr_params_null(struct fx *f)
{
	return doca_buf_arr_set_params(NULL, f->mmap, 64, 0);
}

static doca_error_t arr_params_null_mmap(struct fx *f)
{
	struct doca_buf_arr *a = new_arr(16);
	doca_error_t r = doca_buf_arr_set_params(a, NULL, 64, 0);

	(void)f;
	OK(doca_buf_arr_destroy(a));
	return r;
}

static doca_error_t arr_params_zero_size(struct fx *f)
{
	struct doca_buf_arr *a = new_arr(16);
	doca_error_t r = doca_buf_arr_set_params(a, f->mmap, 0, 0);

	OK(doca_buf_arr_destroy(a));
	return r;
}

static doca_error_t arr_params_offset_outside(struct fx *f)
{
	struct doca_buf_arr *a = new_arr(16);
	doca_error_t r = doca_buf_arr_set_params(a, f->mmap, 64, MEM_LEN);

	OK(doca_buf_arr_destroy(a));
	return r;
}

#define ARR_TARGET(fn_name, call, fake)                                                                               \
	static doca_error_t fn_name##_null_arr(struct fx *f)                                                           \
	{                                                                                                              \
		(void)f;                                                                                               \
		return call(NULL, fake);                                                                               \
	}                                                                                                              \
	static doca_error_t fn_name##_null_dev(struct fx *f)                                                           \
	{                                                                                                              \
		struct doca_buf_arr *a = new_arr(16);                                                                  \
		doca_error_t r = call(a, NULL);                                                                        \
		(void)f;                                                                                               \
		OK(doca_buf_arr_destroy(a));                                                                           \
		return r;                                                                                              \
	}                                                                                                              \
	static doca_error_t fn_name##_no_device(struct fx *f)                                                          \
	{                                                                                                              \
		struct doca_buf_arr *a = new_arr(16);                                                                  \
		doca_error_t r = call(a, fake);                                                                        \
		(void)f;                                                                                               \
		OK(doca_buf_arr_destroy(a));                                                                           \
		return r;                                                                                              \
	}

ARR_TARGET(arr_gpu, doca_buf_arr_set_target_gpu, FAKE_GPU)
ARR_TARGET(arr_dpa, doca_buf_arr_set_target_dpa, FAKE_DPA)

static doca_error_t arr_start_null(struct fx *f)
{
	(void)f;
	return doca_buf_arr_start(NULL);
}

static doca_error_t arr_start_no_target(struct fx *f)
{
	struct doca_buf_arr *a = new_arr(16);
	doca_error_t r;

	OK(doca_buf_arr_set_params(a, f->mmap, 64, 0));
	r = doca_buf_arr_start(a);
	OK(doca_buf_arr_destroy(a));
	return r;
}

static doca_error_t arr_start_mmap_idle(struct fx *f)
{
	struct doca_mmap *m = idle_mmap(f);
	struct doca_buf_arr *a = new_arr(16);
	doca_error_t r;

	OK(doca_buf_arr_set_params(a, m, 64, 0));
	r = doca_buf_arr_start(a);
	OK(doca_buf_arr_destroy(a));
	OK(doca_mmap_destroy(m));
	return r;
}

static doca_error_t arr_start_too_small(struct fx *f)
{
	struct doca_buf_arr *a = new_arr(64);
	doca_error_t r;

	OK(doca_buf_arr_set_params(a, f->mmap, 64, 64)); /* 64 + 64 * 64 > MEM_LEN */
	r = doca_buf_arr_start(a);
	OK(doca_buf_arr_destroy(a));
	return r;
}

/* ours: without parameters there is no mmap to check */
static doca_error_t arr_start_no_params(struct fx *f)
{
	struct doca_buf_arr *a = new_arr(16);
	doca_error_t r = doca_buf_arr_start(a);

	(void)f;
	OK(doca_buf_arr_destroy(a));
	return r;
}

static doca_error_t arr_stop_null(struct fx *f)
{
	(void)f;
	return doca_buf_arr_stop(NULL);
}

/* the reference lists only INVALID_VALUE for stop */
static doca_error_t arr_stop_idle(struct fx *f)
{
	struct doca_buf_arr *a = new_arr(16);
	doca_error_t r = doca_buf_arr_stop(a);

	(void)f;
	OK(doca_buf_arr_destroy(a));
	return r;
}

static doca_error_t arr_gpu_handle_null(struct fx *f)
{
	struct doca_buf_arr *a = new_arr(16);
	doca_error_t r = doca_buf_arr_get_gpu_handle(a, NULL);

	(void)f;
	OK(doca_buf_arr_destroy(a));
	return r;
}

static doca_error_t arr_gpu_handle_unstarted(struct fx *f)
{
	struct doca_buf_arr *a = new_arr(16);
	struct doca_gpu_buf_arr *g = NULL;
	doca_error_t r = doca_buf_arr_get_gpu_handle(a, &g);

	(void)f;
	OK(doca_buf_arr_destroy(a));
	return r;
}

static doca_error_t arr_dpa_handle_null(struct fx *f)
{
	struct doca_buf_arr *a = new_arr(16);
	doca_error_t r = doca_buf_arr_get_dpa_handle(a, NULL);

	(void)f;
	OK(doca_buf_arr_destroy(a));
	return r;
}

static doca_error_t arr_dpa_handle_unstarted(struct fx *f)
{
	struct doca_buf_arr *a = new_arr(16);
	doca_dpa_dev_buf_arr_t h = 0;
	doca_error_t r = doca_buf_arr_get_dpa_handle(a, &h);

	(void)f;
	OK(doca_buf_arr_destroy(a));
	return r;
}

/* ================= the table ================= */

#define S DOCA_SUCCESS
#define INV DOCA_ERROR_INVALID_VALUE
#define BAD DOCA_ERROR_BAD_STATE
#define NP DOCA_ERROR_NOT_PERMITTED
#define NOMEM DOCA_ERROR_NO_MEMORY

#define ACC_ROWS(fn, name)                                                                                            \
	{name ": success (ref: always)", fn##_ok, S}, {name ": NULL buf (ours)", fn##_null_buf, INV},                  \
		{name ": NULL output (ours)", fn##_null_out, INV}

static const struct row rows[] = {
	/* doca_buf */
	{"doca_buf_inc_refcount: success", inc_ok, S},
	{"doca_buf_inc_refcount: not a list head (ref)", inc_not_head, NP},
	{"doca_buf_inc_refcount: at UINT16_MAX (ref)", inc_max, DOCA_ERROR_TOO_BIG},
	{"doca_buf_inc_refcount: NULL (ours)", inc_null, INV},
	{"doca_buf_inc_refcount: released buffer (ours)", inc_released, BAD},
	{"doca_buf_dec_refcount: success", dec_ok, S},
	{"doca_buf_dec_refcount: not a list head (ref)", dec_not_head, NP},
	{"doca_buf_dec_refcount: refcount already 0 (ref)", dec_zero, BAD},
	{"doca_buf_dec_refcount: NULL (ours)", dec_null, INV},
	ACC_ROWS(get_refcount, "doca_buf_get_refcount"),
	ACC_ROWS(get_len, "doca_buf_get_len"),
	ACC_ROWS(get_head, "doca_buf_get_head"),
	ACC_ROWS(get_data_len, "doca_buf_get_data_len"),
	ACC_ROWS(get_data, "doca_buf_get_data"),
	ACC_ROWS(get_next, "doca_buf_get_next_in_list"),
	ACC_ROWS(is_first, "doca_buf_is_first_in_list"),
	ACC_ROWS(is_last, "doca_buf_is_last_in_list"),
	ACC_ROWS(is_in_list, "doca_buf_is_in_list"),
	{"doca_buf_get_last_in_list: success", get_last_ok, S},
	{"doca_buf_get_last_in_list: NULL buf (ref)", get_last_null_buf, INV},
	{"doca_buf_get_last_in_list: NULL output (ref)", get_last_null_out, INV},
	{"doca_buf_get_list_len: success", get_list_len_ok, S},
	{"doca_buf_get_list_len: NULL buf (ref)", get_list_len_null_buf, INV},
	{"doca_buf_get_list_len: NULL output (ref)", get_list_len_null_out, INV},
	{"doca_buf_get_list_len: not a list head (ref)", list_len_not_head, NP},
	{"doca_buf_set_data: success (ref: always)", set_data_ok, S},
	{"doca_buf_set_data: outside the buffer (ours; ref: undefined)", set_data_outside, INV},
	{"doca_buf_set_data: NULL data (ours)", set_data_null, INV},
	{"doca_buf_set_data_len: success (ref: always)", set_data_len_ok, S},
	{"doca_buf_set_data_len: past the buffer (ours; ref: undefined)", set_data_len_outside, INV},
	{"doca_buf_set_data_len: NULL (ours)", set_data_len_null, INV},
	{"doca_buf_reset_data_len: success (ref: always)", reset_data_len_ok, S},
	{"doca_buf_reset_data_len: NULL (ours)", reset_data_len_null, INV},
	{"doca_buf_chain_list: success", chain_ok, S},
	{"doca_buf_chain_list: list2 refcount 2 (ref)", chain_refcount2, NP},
	{"doca_buf_chain_list: list2 not a head (ours)", chain_not_head, NP},
	{"doca_buf_chain_list: list to itself (ours)", chain_self, INV},
	{"doca_buf_chain_list: NULL (ours)", chain_null, INV},
	{"doca_buf_chain_list_tail: success", chain_tail_ok, S},
	{"doca_buf_chain_list_tail: list2 refcount 2 (ref)", chain_tail_refcount2, NP},
	{"doca_buf_chain_list_tail: wrong tail (ours)", chain_tail_wrong, INV},
	{"doca_buf_unchain_list: success", unchain_ok, S},
	{"doca_buf_unchain_list: list2 not in list1 (ref)", unchain_not_member, INV},
	{"doca_buf_unchain_list: list2 is list1 (ref)", unchain_same, INV},

	/* doca_buf_inventory */
	{"doca_buf_inventory_create: success", inv_create_ok, S},
	{"doca_buf_inventory_create: NULL output (ref)", inv_create_null, INV},
	{"doca_buf_inventory_create: 0 elements (ref)", inv_create_zero, INV},
	{"doca_buf_inventory_create: no memory (ref)", inv_create_nomem, NOMEM},
	{"doca_buf_inventory_destroy: success", inv_destroy_ok, S},
	{"doca_buf_inventory_destroy: NULL (ref)", inv_destroy_null, INV},
	{"doca_buf_inventory_destroy: buffer out (ref)", inv_destroy_in_use, DOCA_ERROR_IN_USE},
	{"doca_buf_inventory_start: success", inv_start_ok, S},
	{"doca_buf_inventory_start: NULL (ref)", inv_start_null, INV},
	{"doca_buf_inventory_start: already started (ref lists no state error)", inv_start_started, S},
	{"doca_buf_inventory_start: after stop", inv_start_stopped, S},
	{"doca_buf_inventory_stop: success", inv_stop_ok, S},
	{"doca_buf_inventory_stop: NULL (ref)", inv_stop_null, INV},
	{"doca_buf_inventory_stop: not started (ref lists no state error)", inv_stop_idle, S},
	{"doca_buf_inventory_expand: success", inv_expand_ok, S},
	{"doca_buf_inventory_expand: NULL (ref)", inv_expand_null, INV},
	{"doca_buf_inventory_expand: 0 elements (ref)", inv_expand_zero, INV},
	{"doca_buf_inventory_expand: not started (ref)", inv_expand_idle, BAD},
	{"doca_buf_inventory_set_user_data: success", inv_set_ud_ok, S},
	{"doca_buf_inventory_set_user_data: NULL (ref)", inv_set_ud_null, INV},
	{"doca_buf_inventory_set_user_data: never started (ref)", inv_set_ud_unstarted, BAD},
	{"doca_buf_inventory_set_user_data: stopped (ref)", inv_set_ud_stopped, BAD},
	{"doca_buf_inventory_get_user_data: success", inv_get_ud_ok, S},
	{"doca_buf_inventory_get_user_data: NULL (ref)", inv_get_ud_null, INV},
	{"doca_buf_inventory_get_num_elements: success", inv_num_ok, S},
	{"doca_buf_inventory_get_num_elements: NULL (ref)", inv_num_null, INV},
	{"doca_buf_inventory_get_num_free_elements: success", inv_free_ok, S},
	{"doca_buf_inventory_get_num_free_elements: NULL (ref)", inv_free_null, INV},
	{"doca_buf_inventory_buf_get_by_args: success", by_args_ok, S},
	{"doca_buf_inventory_buf_get_by_args: NULL output (ref)", by_args_null, INV},
	{"doca_buf_inventory_buf_get_by_args: outside the mmap (ref)", by_args_outside, INV},
	{"doca_buf_inventory_buf_get_by_args: data outside (ours; ref: undefined)", by_args_data_outside, INV},
	{"doca_buf_inventory_buf_get_by_args: empty (ref)", by_args_empty, NOMEM},
	{"doca_buf_inventory_buf_get_by_args: inventory stopped (ours)", by_args_inv_stopped, BAD},
	{"doca_buf_inventory_buf_get_by_args: mmap not started (ours)", by_args_mmap_idle, BAD},
	{"doca_buf_inventory_buf_get_by_addr: success", by_addr_ok, S},
	{"doca_buf_inventory_buf_get_by_addr: empty (ref)", by_addr_empty, NOMEM},
	{"doca_buf_inventory_buf_get_by_data: success", by_data_ok, S},
	{"doca_buf_inventory_buf_get_by_data: empty (ref)", by_data_empty, NOMEM},
	{"doca_buf_inventory_buf_dup: success", dup_ok, S},
	{"doca_buf_inventory_buf_dup: NULL source (ref)", dup_null, INV},
	{"doca_buf_inventory_buf_dup: inventory stopped (ref)", dup_inv_stopped, BAD},
	{"doca_buf_inventory_buf_dup: source mmap stopped (ref)", dup_mmap_stopped, BAD},
	{"doca_buf_inventory_buf_dup: source not a list head (ref)", dup_not_head, NP},
	{"doca_buf_inventory_buf_dup: inventory too empty (ref)", dup_empty, NOMEM},

	/* doca_buf_pool */
	{"doca_buf_pool_create: success", pool_create_ok, S},
	{"doca_buf_pool_create: NULL mmap (ref)", pool_create_null_mmap, INV},
	{"doca_buf_pool_create: 0 elements (ref)", pool_create_zero, INV},
	{"doca_buf_pool_create: element size 0 (ref)", pool_create_zero_size, INV},
	{"doca_buf_pool_create: mmap without memory (ref)", pool_create_no_range, INV},
	{"doca_buf_pool_create: no memory (ref)", pool_create_nomem, NOMEM},
	{"doca_buf_pool_destroy: success (started)", pool_destroy_ok, S},
	{"doca_buf_pool_destroy: NULL (ref)", pool_destroy_null, INV},
	{"doca_buf_pool_destroy: buffer out (ref)", pool_destroy_in_use, DOCA_ERROR_IN_USE},
	{"doca_buf_pool_start: success", pool_start_ok, S},
	{"doca_buf_pool_start: NULL (ref)", pool_start_null, INV},
	{"doca_buf_pool_start: range too small (ref)", pool_start_too_small, DOCA_ERROR_INITIALIZATION},
	{"doca_buf_pool_start: too small once aligned (ref)", pool_start_align_too_small, DOCA_ERROR_INITIALIZATION},
	{"doca_buf_pool_start: mmap not started (ref)", pool_start_mmap_idle, BAD},
	{"doca_buf_pool_start: already started (ours)", pool_start_started, BAD},
	{"doca_buf_pool_stop: success", pool_stop_ok, S},
	{"doca_buf_pool_stop: NULL (ref)", pool_stop_null, INV},
	{"doca_buf_pool_stop: buffer out (ref)", pool_stop_in_use, DOCA_ERROR_IN_USE},
	{"doca_buf_pool_stop: not started (ref lists no state error)", pool_stop_idle, S},
	{"doca_buf_pool_set_user_data: success", pool_set_ud_ok, S},
	{"doca_buf_pool_set_user_data: NULL (ref)", pool_set_ud_null, INV},
	{"doca_buf_pool_set_user_data: any value", pool_set_ud_bad, S},
	{"doca_buf_pool_set_user_data: started (ref)", pool_set_ud_started, BAD},
	{"doca_buf_pool_set_element_alignment: success", pool_set_align_ok, S},
	{"doca_buf_pool_set_element_alignment: NULL (ref)", pool_set_align_null, INV},
	{"doca_buf_pool_set_element_alignment: not a power of 2 (ref)", pool_set_align_bad, INV},
	{"doca_buf_pool_set_element_alignment: 0 (ref)", pool_set_align_zero, INV},
	{"doca_buf_pool_set_element_alignment: started (ref)", pool_set_align_started, BAD},
	{"doca_buf_pool_get_user_data: success", pool_get_ud_ok, S},
	{"doca_buf_pool_get_user_data: NULL (ref)", pool_get_ud_null, INV},
	{"doca_buf_pool_get_element_alignment: success", pool_get_align_ok, S},
	{"doca_buf_pool_get_element_alignment: NULL (ref)", pool_get_align_null, INV},
	{"doca_buf_pool_get_num_elements: success", pool_get_num_ok, S},
	{"doca_buf_pool_get_num_elements: NULL (ref)", pool_get_num_null, INV},
	{"doca_buf_pool_get_num_free_elements: success", pool_get_free_ok, S},
	{"doca_buf_pool_get_num_free_elements: NULL (ref)", pool_get_free_null, INV},
	{"doca_buf_pool_buf_alloc: success", pool_alloc_ok, S},
	{"doca_buf_pool_buf_alloc: NULL (ref)", pool_alloc_null, INV},
	{"doca_buf_pool_buf_alloc: never started (ref)", pool_alloc_unstarted, BAD},
	{"doca_buf_pool_buf_alloc: stopped (ref)", pool_alloc_stopped, BAD},
	{"doca_buf_pool_buf_alloc: every element out (ref)", pool_alloc_empty, DOCA_ERROR_EMPTY},

	/* doca_buf_arr (no GPU / DPA emulated: it can never be started) */
	{"doca_buf_arr_create: success", arr_create_ok, S},
	{"doca_buf_arr_create: 0 elements (ref)", arr_create_zero, INV},
	{"doca_buf_arr_create: NULL output (ref)", arr_create_null, INV},
	{"doca_buf_arr_create: no memory (ref)", arr_create_nomem, NOMEM},
	{"doca_buf_arr_destroy: success", arr_destroy_ok, S},
	{"doca_buf_arr_destroy: NULL (ref)", arr_destroy_null, INV},
	{"doca_buf_arr_set_params: success", arr_params_ok, S},
	{"doca_buf_arr_set_params: NULL array (ref)", arr_params_null, INV},
	{"doca_buf_arr_set_params: NULL mmap (ref)", arr_params_null_mmap, INV},
	{"doca_buf_arr_set_params: element size 0 (ref)", arr_params_zero_size, INV},
	{"doca_buf_arr_set_params: offset outside the mmap (ref)", arr_params_offset_outside, INV},
	{"doca_buf_arr_set_target_gpu: NULL array (ref)", arr_gpu_null_arr, INV},
	{"doca_buf_arr_set_target_gpu: NULL GPU (ref)", arr_gpu_null_dev, INV},
	{"doca_buf_arr_set_target_gpu: no GPU emulated", arr_gpu_no_device, DOCA_ERROR_NOT_SUPPORTED},
	{"doca_buf_arr_set_target_dpa: NULL array (ref)", arr_dpa_null_arr, INV},
	{"doca_buf_arr_set_target_dpa: NULL DPA (ref)", arr_dpa_null_dev, INV},
	{"doca_buf_arr_set_target_dpa: no DPA emulated", arr_dpa_no_device, DOCA_ERROR_NOT_SUPPORTED},
	{"doca_buf_arr_start: NULL (ref)", arr_start_null, INV},
	{"doca_buf_arr_start: no target device (ref)", arr_start_no_target, BAD},
	{"doca_buf_arr_start: mmap not started (ref)", arr_start_mmap_idle, BAD},
	{"doca_buf_arr_start: mmap too small (ref)", arr_start_too_small, NOMEM},
	{"doca_buf_arr_start: no parameters (ours)", arr_start_no_params, BAD},
	{"doca_buf_arr_stop: NULL (ref)", arr_stop_null, INV},
	{"doca_buf_arr_stop: not started (ref lists no state error)", arr_stop_idle, S},
	{"doca_buf_arr_get_gpu_handle: NULL output (ref)", arr_gpu_handle_null, INV},
	{"doca_buf_arr_get_gpu_handle: not started (ref)", arr_gpu_handle_unstarted, BAD},
	{"doca_buf_arr_get_dpa_handle: NULL output (ref)", arr_dpa_handle_null, INV},
	{"doca_buf_arr_get_dpa_handle: not started (ref)", arr_dpa_handle_unstarted, BAD},
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
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
	OK(doca_mmap_start(f->mmap));
	OK(doca_buf_inventory_create(INV_NUM, &f->inv));
	OK(doca_buf_inventory_start(f->inv));
	f->row = *state;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	/* every row gives back what it took: these refuse otherwise */
	OK(doca_buf_inventory_destroy(f->inv));
	OK(doca_mmap_destroy(f->mmap));
	OK(doca_dev_close(f->dev));
	free(f->mem);
	free(f);
	return 0;
}

static void run_row(void **state)
{
	struct fx *f = *state;
	const struct row *r = f->row;
	doca_error_t got;

	got = r->fn(f);
	if (got != r->expect)
		fail_msg("%s: expected %s (%d), got %s (%d)", r->name, doca_error_get_name(r->expect), r->expect,
			 doca_error_get_name(got), got);
}

int main(void)
{
	size_t n = sizeof(rows) / sizeof(rows[0]);
	struct CMUnitTest *tests = calloc(n, sizeof(*tests));
	int ret;

	if (tests == NULL)
		return 1;
	for (size_t i = 0; i < n; i++) {
		tests[i].name = rows[i].name;
		tests[i].test_func = run_row;
		tests[i].setup_func = setup;
		tests[i].teardown_func = teardown;
		tests[i].initial_state = (void *)&rows[i];
	}
	ret = _cmocka_run_group_tests("return_codes", tests, n, NULL, NULL);
	free(tests);
	return ret;
}
