/*
 * test_dma.c - conformance of the DOCA DMA API (public API only, except the
 * one white-box case that forges a buffer outside its mmap, which the public
 * API cannot produce). Bad arguments first.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <cmocka.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "sd_mem.h" /* white-box: only for the forged out-of-mmap buffer */

#define MAX_TRACK 4096

struct tracker {
	uint32_t ok;
	uint32_t err;
	doca_error_t last_err;
	uint32_t n_status;
	doca_error_t status[MAX_TRACK];
	bool free_in_cb;
	bool stop_after_all;
	uint32_t expect;
	uint32_t resubmit_left;
	struct doca_ctx *ctx;
};

struct fx {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	struct doca_buf_inventory *inv;
	struct tracker tr;
	uint64_t max_buf_size;
	uint32_t max_list_len;
	uint32_t max_tasks;
};

static void ok_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	struct tracker *tr = cud.ptr;

	(void)tud;
	tr->ok++;
	if (tr->n_status < MAX_TRACK)
		tr->status[tr->n_status++] = DOCA_SUCCESS;
	if (tr->resubmit_left > 0) {
		tr->resubmit_left--;
		assert_int_equal(doca_buf_reset_data_len(doca_dma_task_memcpy_get_dst(task)), DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(task)), DOCA_SUCCESS);
		return;
	}
	if (tr->free_in_cb)
		doca_task_free(doca_dma_task_memcpy_as_task(task));
	if (tr->stop_after_all && tr->ok + tr->err == tr->expect)
		(void)doca_ctx_stop(tr->ctx);
}

static void err_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	struct tracker *tr = cud.ptr;
	doca_error_t st = doca_task_get_status(doca_dma_task_memcpy_as_task(task));

	(void)tud;
	tr->err++;
	tr->last_err = st;
	if (tr->n_status < MAX_TRACK)
		tr->status[tr->n_status++] = st;
	if (tr->free_in_cb)
		doca_task_free(doca_dma_task_memcpy_as_task(task));
	if (tr->stop_after_all && tr->ok + tr->err == tr->expect)
		(void)doca_ctx_stop(tr->ctx);
}

static struct doca_dev *open_dma_dev(void)
{
	struct doca_devinfo **list = NULL;
	struct doca_dev *dev = NULL;
	uint32_t n = 0, i;

	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	for (i = 0; i < n; i++) {
		if (doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS &&
		    doca_dev_open(list[i], &dev) == DOCA_SUCCESS)
			break;
	}
	doca_devinfo_destroy_list(list);
	assert_non_null(dev);
	return dev;
}

static struct doca_mmap *mk_mmap(struct doca_dev *dev, void *addr, size_t len, uint32_t perms)
{
	struct doca_mmap *m;

	assert_int_equal(doca_mmap_create(&m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(m, addr, len), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(m, perms), DOCA_SUCCESS);
	if (dev != NULL)
		assert_int_equal(doca_mmap_add_dev(m, dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	return m;
}

static void progress_until(struct fx *f, uint32_t done)
{
	struct timespec ts = {0, 1000};
	time_t deadline = time(NULL) + 30;

	while (f->tr.ok + f->tr.err < done) {
		if (doca_pe_progress(f->pe) == 0)
			nanosleep(&ts, NULL);
		assert_true(time(NULL) < deadline);
	}
}

static void wait_idle(struct fx *f)
{
	enum doca_ctx_states st;
	struct timespec ts = {0, 1000};
	time_t deadline = time(NULL) + 30;

	for (;;) {
		assert_int_equal(doca_ctx_get_state(f->ctx, &st), DOCA_SUCCESS);
		if (st == DOCA_CTX_STATE_IDLE)
			break;
		if (doca_pe_progress(f->pe) == 0)
			nanosleep(&ts, NULL);
		assert_true(time(NULL) < deadline);
	}
}

static void stop_ctx(struct fx *f)
{
	doca_error_t err = doca_ctx_stop(f->ctx);

	assert_true(err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS);
	wait_idle(f);
}

static int fx_setup_n(void **state, uint32_t num_tasks, size_t num_bufs)
{
	struct fx *f = calloc(1, sizeof(*f));
	union doca_data ud;

	assert_non_null(f);
	f->dev = open_dma_dev();
	assert_int_equal(doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(f->dev), &f->max_buf_size),
			 DOCA_SUCCESS);
	assert_int_equal(doca_dma_cap_task_memcpy_get_max_buf_list_len(doca_dev_as_devinfo(f->dev),
									&f->max_list_len),
			 DOCA_SUCCESS);
	assert_int_equal(doca_pe_create(&f->pe), DOCA_SUCCESS);
	assert_int_equal(doca_dma_create(f->dev, &f->dma), DOCA_SUCCESS);
	assert_int_equal(doca_dma_cap_get_max_num_tasks(f->dma, &f->max_tasks), DOCA_SUCCESS);
	f->ctx = doca_dma_as_ctx(f->dma);
	assert_non_null(f->ctx);
	assert_int_equal(doca_dma_task_memcpy_set_conf(f->dma, ok_cb, err_cb, num_tasks), DOCA_SUCCESS);
	ud.ptr = &f->tr;
	f->tr.ctx = f->ctx;
	assert_int_equal(doca_ctx_set_user_data(f->ctx, ud), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(f->pe, f->ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(f->ctx), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_create(num_bufs, &f->inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(f->inv), DOCA_SUCCESS);
	*state = f;
	return 0;
}

static int fx_setup(void **state)
{
	return fx_setup_n(state, 64, 1024);
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;
	enum doca_ctx_states st;

	assert_int_equal(doca_ctx_get_state(f->ctx, &st), DOCA_SUCCESS);
	if (st != DOCA_CTX_STATE_IDLE)
		stop_ctx(f);
	assert_int_equal(doca_dma_destroy(f->dma), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_stop(f->inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_destroy(f->inv), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(f->pe), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(f->dev), DOCA_SUCCESS);
	free(f);
	return 0;
}

/* A failed task stopped the context (DOCA): let it reach IDLE and start it
 * again, so the test goes on. */
static void restart_after_failure(struct fx *f)
{
	enum doca_ctx_states st;

	assert_int_equal(doca_ctx_get_state(f->ctx, &st), DOCA_SUCCESS);
	assert_true(st == DOCA_CTX_STATE_STOPPING || st == DOCA_CTX_STATE_IDLE);
	wait_idle(f);
	assert_int_equal(doca_ctx_start(f->ctx), DOCA_SUCCESS);
}

/*
 * Run one task to its callback, free it; returns its status. Every task is
 * first offered to doca_task_try_submit: an invalid one must be refused
 * there (INVALID_VALUE, still the caller's) and then accepted by
 * doca_task_submit, which does not validate, and fail at execution; a
 * failed task moves the context to STOPPING, after which it is restarted.
 */
static doca_error_t run_one(struct fx *f, struct doca_buf *src, struct doca_buf *dst)
{
	struct doca_dma_task_memcpy *t;
	union doca_data ud = {.u64 = 7};
	uint32_t before = f->tr.ok + f->tr.err;
	doca_error_t st, tried;

	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, src, dst, ud, &t), DOCA_SUCCESS);
	tried = doca_task_try_submit(doca_dma_task_memcpy_as_task(t));
	if (tried == DOCA_ERROR_INVALID_VALUE) {
		assert_int_equal(f->tr.ok + f->tr.err, before);
		assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(t)), DOCA_SUCCESS);
	} else {
		assert_int_equal(tried, DOCA_SUCCESS);
	}
	progress_until(f, before + 1);
	st = doca_task_get_status(doca_dma_task_memcpy_as_task(t));
	assert_int_equal(doca_task_get_user_data(doca_dma_task_memcpy_as_task(t)).u64, 7);
	doca_task_free(doca_dma_task_memcpy_as_task(t));
	if (tried != DOCA_SUCCESS)
		assert_int_not_equal(st, DOCA_SUCCESS);
	if (st != DOCA_SUCCESS)
		restart_after_failure(f);
	return st;
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

/* ---------------- bad arguments ---------------- */

static void test_bad_args_object(void **state)
{
	struct doca_dev *dev = open_dma_dev();
	struct doca_dma *dma = NULL;
	struct doca_gpu_dma *gpu;
	uint64_t u64;
	uint32_t u32;

	(void)state;
	assert_int_equal(doca_dma_create(NULL, &dma), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dma_create(dev, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dma_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_dma_as_ctx(NULL));
	assert_int_equal(doca_dma_cap_task_memcpy_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dma_cap_task_memcpy_get_max_buf_size(NULL, &u64), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(dev), NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dma_cap_task_memcpy_get_max_buf_list_len(NULL, &u32), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dma_cap_task_memcpy_get_max_buf_list_len(doca_dev_as_devinfo(dev), NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dma_cap_get_max_num_tasks(NULL, &u32), DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_dma_task_memcpy_as_task(NULL));
	assert_null(doca_dma_task_memcpy_get_src(NULL));
	assert_null(doca_dma_task_memcpy_get_dst(NULL));
	doca_dma_task_memcpy_set_src(NULL, NULL);
	doca_dma_task_memcpy_set_dst(NULL, NULL);

	assert_int_equal(doca_dma_create(dev, &dma), DOCA_SUCCESS);
	assert_int_equal(doca_dma_cap_get_max_num_tasks(dma, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dma_cap_get_max_num_tasks(dma, &u32), DOCA_SUCCESS);
	assert_true(u32 >= 1);
	assert_int_equal(doca_dma_get_gpu_handle(dma, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dma_get_gpu_handle(dma, &gpu), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_dma_task_memcpy_set_conf(NULL, ok_cb, err_cb, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dma_task_memcpy_set_conf(dma, NULL, err_cb, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dma_task_memcpy_set_conf(dma, ok_cb, NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dma_task_memcpy_set_conf(dma, ok_cb, err_cb, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dma_task_memcpy_set_conf(dma, ok_cb, err_cb, u32 + 1), DOCA_ERROR_INVALID_VALUE);
	/* A device in use cannot be closed. */
	assert_int_equal(doca_dev_close(dev), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_dma_destroy(dma), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

static void test_bad_state(void **state)
{
	struct doca_dev *dev = open_dma_dev();
	struct doca_dma *dma;
	struct doca_pe *pe;
	struct doca_dma_task_memcpy *t;
	union doca_data ud = {0};
	struct tracker tr = {0};

	(void)state;
	assert_int_equal(doca_pe_create(&pe), DOCA_SUCCESS);
	assert_int_equal(doca_dma_create(dev, &dma), DOCA_SUCCESS);
	/* Start without a task type configured is refused; the context stays idle. */
	assert_int_equal(doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma)), DOCA_SUCCESS);
	assert_int_not_equal(doca_ctx_start(doca_dma_as_ctx(dma)), DOCA_SUCCESS);
	/* Allocation on an idle context. */
	assert_int_equal(doca_dma_task_memcpy_set_conf(dma, ok_cb, err_cb, 2), DOCA_SUCCESS);
	assert_int_equal(doca_dma_task_memcpy_alloc_init(dma, NULL, NULL, ud, &t), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_dma_task_memcpy_alloc_init(NULL, NULL, NULL, ud, &t), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dma_task_memcpy_alloc_init(dma, NULL, NULL, ud, NULL), DOCA_ERROR_INVALID_VALUE);
	ud.ptr = &tr;
	assert_int_equal(doca_ctx_set_user_data(doca_dma_as_ctx(dma), ud), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_dma_as_ctx(dma)), DOCA_SUCCESS);
	/* Configuration and destroy of a running context. */
	assert_int_equal(doca_dma_task_memcpy_set_conf(dma, ok_cb, err_cb, 2), DOCA_ERROR_BAD_STATE);
	/* DOCA documents IN_USE for a DMA that cannot be destroyed yet. */
	assert_int_equal(doca_dma_destroy(dma), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_dma_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	/* Pool of 2: the third allocation is NO_MEMORY. */
	{
		struct doca_dma_task_memcpy *a, *b, *c;

		ud.u64 = 0;
		assert_int_equal(doca_dma_task_memcpy_alloc_init(dma, NULL, NULL, ud, &a), DOCA_SUCCESS);
		assert_int_equal(doca_dma_task_memcpy_alloc_init(dma, NULL, NULL, ud, &b), DOCA_SUCCESS);
		assert_int_equal(doca_dma_task_memcpy_alloc_init(dma, NULL, NULL, ud, &c), DOCA_ERROR_NO_MEMORY);
		/* Submitting without buffers is refused and leaves the task with the user. */
		assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(a)), DOCA_ERROR_INVALID_VALUE);
		assert_int_equal(doca_task_try_submit(doca_dma_task_memcpy_as_task(a)), DOCA_ERROR_INVALID_VALUE);
		assert_null(doca_dma_task_memcpy_get_src(a));
		doca_task_free(doca_dma_task_memcpy_as_task(a));
		doca_task_free(doca_dma_task_memcpy_as_task(b));
	}
	{
		doca_error_t e = doca_ctx_stop(doca_dma_as_ctx(dma));

		assert_true(e == DOCA_SUCCESS || e == DOCA_ERROR_IN_PROGRESS);
	}
	{
		enum doca_ctx_states st;
		time_t deadline = time(NULL) + 10;

		do {
			doca_pe_progress(pe);
			assert_int_equal(doca_ctx_get_state(doca_dma_as_ctx(dma), &st), DOCA_SUCCESS);
			assert_true(time(NULL) < deadline);
		} while (st != DOCA_CTX_STATE_IDLE);
	}
	assert_int_equal(doca_dma_destroy(dma), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(pe), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

static void test_submit_malformed(void **state)
{
	struct fx *f = *state;
	uint32_t n = f->max_list_len + 1, i;
	size_t seg = 16;
	uint8_t *mem = calloc(n * 2, seg);
	struct doca_mmap *m = mk_mmap(f->dev, mem, n * 2 * seg, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	struct doca_buf *src = NULL, *dst, *b;
	struct doca_dma_task_memcpy *t;
	union doca_data ud = {0};

	/* A source chain one longer than the device allows: refused by
	 * try_submit; doca_task_submit (no validation) takes it and it fails
	 * at execution, which stops the context. */
	for (i = 0; i < n; i++) {
		assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, m, mem + i * seg, seg, &b), DOCA_SUCCESS);
		if (src == NULL)
			src = b;
		else
			assert_int_equal(doca_buf_chain_list(src, b), DOCA_SUCCESS);
	}
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, m, mem + n * seg, n * seg, &dst), DOCA_SUCCESS);
	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, src, NULL, ud, &t), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(t)), DOCA_ERROR_INVALID_VALUE);
	doca_dma_task_memcpy_set_dst(t, dst);
	assert_ptr_equal(doca_dma_task_memcpy_get_dst(t), dst);
	assert_ptr_equal(doca_dma_task_memcpy_get_src(t), src);
	assert_int_equal(doca_task_try_submit(doca_dma_task_memcpy_as_task(t)), DOCA_ERROR_INVALID_VALUE);
	doca_task_free(doca_dma_task_memcpy_as_task(t));
	assert_int_equal(f->tr.ok + f->tr.err, 0);
	assert_int_equal(run_one(f, src, dst), DOCA_ERROR_INVALID_VALUE);

	/* Unchain and release. */
	while (src != NULL) {
		struct doca_buf *next = NULL;

		doca_buf_get_next_in_list(src, &next);
		if (next != NULL)
			assert_int_equal(doca_buf_unchain_list(src, next), DOCA_SUCCESS);
		assert_int_equal(doca_buf_dec_refcount(src, NULL), DOCA_SUCCESS);
		src = next;
	}
	assert_int_equal(doca_buf_dec_refcount(dst, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(m), DOCA_SUCCESS);
	free(mem);
}

/* ---------------- data path ---------------- */

static void test_sizes(void **state)
{
	static const size_t sizes[] = {1, 2, 7, 63, 64, 65, 4095, 4096, 65536, 1000003, 1 << 20, 8 << 20, 48 << 20};
	struct fx *f = *state;
	size_t k;

	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];
		uint8_t *s = malloc(n), *d = malloc(n + 64);
		struct doca_mmap *ms, *md;
		struct doca_buf *bs, *bd;
		size_t dlen = 0;

		if (n > f->max_buf_size) {
			free(s);
			free(d);
			continue;
		}
		fill(s, n, (uint32_t)k + 1);
		memset(d, 0xA5, n + 64);
		ms = mk_mmap(f->dev, s, n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
		md = mk_mmap(f->dev, d, n + 64, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
		assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, ms, s, n, &bs), DOCA_SUCCESS);
		assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, md, d, n, &bd), DOCA_SUCCESS);
		assert_int_equal(run_one(f, bs, bd), DOCA_SUCCESS);
		assert_memory_equal(s, d, n);
		/* Bytes after the destination buffer are untouched. */
		assert_int_equal(d[n], 0xA5);
		assert_int_equal(d[n + 63], 0xA5);
		assert_int_equal(doca_buf_get_data_len(bd, &dlen), DOCA_SUCCESS);
		assert_int_equal(dlen, n);
		assert_int_equal(doca_buf_dec_refcount(bs, NULL), DOCA_SUCCESS);
		assert_int_equal(doca_buf_dec_refcount(bd, NULL), DOCA_SUCCESS);
		assert_int_equal(doca_mmap_destroy(ms), DOCA_SUCCESS);
		assert_int_equal(doca_mmap_destroy(md), DOCA_SUCCESS);
		free(s);
		free(d);
	}
	assert_int_equal(f->tr.err, 0);
}

static struct doca_buf *mk_chain(struct fx *f, struct doca_mmap *m, uint8_t *base, size_t total, uint32_t nseg,
				 bool as_data, uint32_t seed)
{
	struct doca_buf *head = NULL, *b;
	size_t off = 0;
	uint32_t i;

	for (i = 0; i < nseg; i++) {
		size_t left = total - off;
		size_t len;

		if (i == nseg - 1) {
			len = left;
		} else {
			seed = seed * 1103515245u + 12345u;
			/* uneven segments, some empty */
			len = left == 0 ? 0 : (seed >> 8) % (2 * left / (nseg - i) + 1);
			if (len > left)
				len = left;
		}
		/* Segment i starts i bytes further so that 1-byte "empty" segments never overlap. */
		if (as_data)
			assert_int_equal(doca_buf_inventory_buf_get_by_args(f->inv, m, base + off + i, len ? len : 1,
									     base + off + i, len, &b),
					 DOCA_SUCCESS);
		else
			assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, m, base + off + i, len ? len : 1,
									     &b),
					 DOCA_SUCCESS);
		if (head == NULL)
			head = b;
		else
			assert_int_equal(doca_buf_chain_list(head, b), DOCA_SUCCESS);
		off += len;
	}
	return head;
}

static void free_chain(struct doca_buf *b)
{
	while (b != NULL) {
		struct doca_buf *next = NULL;

		assert_int_equal(doca_buf_get_next_in_list(b, &next), DOCA_SUCCESS);
		if (next != NULL)
			assert_int_equal(doca_buf_unchain_list(b, next), DOCA_SUCCESS);
		assert_int_equal(doca_buf_dec_refcount(b, NULL), DOCA_SUCCESS);
		b = next;
	}
}

static size_t chain_data_len(struct doca_buf *b)
{
	size_t total = 0, l;

	while (b != NULL) {
		struct doca_buf *next = NULL;

		assert_int_equal(doca_buf_get_data_len(b, &l), DOCA_SUCCESS);
		total += l;
		assert_int_equal(doca_buf_get_next_in_list(b, &next), DOCA_SUCCESS);
		b = next;
	}
	return total;
}

static void test_chains(void **state)
{
	struct fx *f = *state;
	const size_t total = 3000;
	uint32_t max = f->max_list_len, ns, nd, step;
	/* The +1 per segment keeps room for empty (1-byte) segments. */
	uint8_t *s = malloc(total + max), *d = malloc(total + max + 32), *ref = malloc(total + max);
	struct doca_mmap *ms = mk_mmap(f->dev, s, total + max, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	struct doca_mmap *md = mk_mmap(f->dev, d, total + max + 32, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	uint32_t runs = 0;

	/* Every pair of lengths up to the cap (a sparse grid if the cap is huge). */
	step = max > 64 ? max / 32 : 1;
	for (ns = 1; ns <= max; ns += step) {
		for (nd = 1; nd <= max; nd += step) {
			struct doca_buf *bs, *bd, *it;
			size_t off = 0, l;

			fill(s, total + max, ns * 131 + nd);
			memset(d, 0, total + max + 32);
			bs = mk_chain(f, ms, s, total, ns, true, ns * 7 + nd);
			bd = mk_chain(f, md, d, total, nd, false, nd * 11 + ns);
			/* Reference: concatenation of the source data segments. */
			for (it = bs; it != NULL;) {
				struct doca_buf *next = NULL;
				void *p;

				doca_buf_get_data(it, &p);
				doca_buf_get_data_len(it, &l);
				memcpy(ref + off, p, l);
				off += l;
				doca_buf_get_next_in_list(it, &next);
				it = next;
			}
			assert_int_equal(off, total);
			assert_int_equal(run_one(f, bs, bd), DOCA_SUCCESS);
			/* Destination segments filled in order. */
			off = 0;
			for (it = bd; it != NULL;) {
				struct doca_buf *next = NULL;
				void *p;

				doca_buf_get_data(it, &p);
				doca_buf_get_data_len(it, &l);
				assert_memory_equal(p, ref + off, l);
				off += l;
				doca_buf_get_next_in_list(it, &next);
				it = next;
			}
			assert_int_equal(off, total);
			assert_int_equal(chain_data_len(bd), total);
			free_chain(bs);
			free_chain(bd);
			runs++;
		}
	}
	assert_true(runs >= 1);
	assert_int_equal(f->tr.err, 0);
	assert_int_equal(doca_mmap_destroy(ms), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(md), DOCA_SUCCESS);
	free(s);
	free(d);
	free(ref);
}

/* A destination that already holds data receives the copy after it. */
static void test_dst_append(void **state)
{
	struct fx *f = *state;
	uint8_t s[32], d[64];
	struct doca_mmap *ms = mk_mmap(f->dev, s, sizeof(s), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	struct doca_mmap *md = mk_mmap(f->dev, d, sizeof(d), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	struct doca_buf *bs, *bd;
	size_t l;

	memset(s, 'S', sizeof(s));
	memset(d, 'D', sizeof(d));
	assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, ms, s, sizeof(s), &bs), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_args(f->inv, md, d, sizeof(d), d, 10, &bd), DOCA_SUCCESS);
	/* The engine relies on this: an mmap with buffers out cannot be stopped. */
	assert_int_not_equal(doca_mmap_stop(md), DOCA_SUCCESS);
	assert_int_equal(run_one(f, bs, bd), DOCA_SUCCESS);
	assert_int_equal(doca_buf_get_data_len(bd, &l), DOCA_SUCCESS);
	assert_int_equal(l, 10 + sizeof(s));
	assert_int_equal(d[9], 'D');
	assert_int_equal(d[10], 'S');
	assert_int_equal(d[41], 'S');
	assert_int_equal(d[42], 'D');
	/* An empty source is invalid (DOCA: the device fails it), the
	 * destination is left as it was. */
	assert_int_equal(doca_buf_reset_data_len(bs), DOCA_SUCCESS);
	assert_int_equal(run_one(f, bs, bd), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_get_data_len(bd, &l), DOCA_SUCCESS);
	assert_int_equal(l, 10 + sizeof(s));
	assert_int_equal(d[42], 'D');
	doca_buf_dec_refcount(bs, NULL);
	doca_buf_dec_refcount(bd, NULL);
	assert_int_equal(doca_mmap_destroy(ms), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(md), DOCA_SUCCESS);
}

/* ---------------- task failures ---------------- */

static void test_dst_too_small(void **state)
{
	struct fx *f = *state;
	uint8_t s[100], d[100];
	struct doca_mmap *ms = mk_mmap(f->dev, s, sizeof(s), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	struct doca_mmap *md = mk_mmap(f->dev, d, sizeof(d), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	struct doca_buf *bs, *bd;
	size_t l;

	memset(s, 1, sizeof(s));
	memset(d, 0, sizeof(d));
	assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, ms, s, 100, &bs), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, md, d, 99, &bd), DOCA_SUCCESS);
	assert_int_equal(run_one(f, bs, bd), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(f->tr.err, 1);
	assert_int_equal(f->tr.last_err, DOCA_ERROR_INVALID_VALUE);
	for (l = 0; l < sizeof(d); l++)
		assert_int_equal(d[l], 0);
	assert_int_equal(doca_buf_get_data_len(bd, &l), DOCA_SUCCESS);
	assert_int_equal(l, 0);
	doca_buf_dec_refcount(bs, NULL);
	doca_buf_dec_refcount(bd, NULL);
	assert_int_equal(doca_mmap_destroy(ms), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(md), DOCA_SUCCESS);
}

static void test_permissions(void **state)
{
	struct fx *f = *state;
	uint8_t s[64], d[64];
	struct doca_mmap *ms = mk_mmap(f->dev, s, sizeof(s), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	struct doca_mmap *md_ro = mk_mmap(f->dev, d, sizeof(d), DOCA_ACCESS_FLAG_LOCAL_READ_ONLY);
	struct doca_mmap *ms_ro = mk_mmap(f->dev, s, sizeof(s), DOCA_ACCESS_FLAG_LOCAL_READ_ONLY);
	struct doca_mmap *md = mk_mmap(f->dev, d, sizeof(d), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	struct doca_buf *bs, *bd;

	memset(s, 3, sizeof(s));
	memset(d, 0, sizeof(d));
	/* Destination read-only: fails, nothing written. */
	assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, ms, s, 64, &bs), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, md_ro, d, 64, &bd), DOCA_SUCCESS);
	assert_int_equal(run_one(f, bs, bd), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(d[0], 0);
	doca_buf_dec_refcount(bs, NULL);
	doca_buf_dec_refcount(bd, NULL);
	/* Source read-only is fine: it is only read. */
	assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, ms_ro, s, 64, &bs), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, md, d, 64, &bd), DOCA_SUCCESS);
	assert_int_equal(run_one(f, bs, bd), DOCA_SUCCESS);
	assert_int_equal(d[63], 3);
	doca_buf_dec_refcount(bs, NULL);
	doca_buf_dec_refcount(bd, NULL);
	assert_int_equal(doca_mmap_destroy(ms), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(md_ro), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(ms_ro), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(md), DOCA_SUCCESS);
}

static void test_mmap_without_dev(void **state)
{
	struct fx *f = *state;
	uint8_t s[64], d[64];
	struct doca_mmap *ms = mk_mmap(NULL, s, sizeof(s), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	struct doca_mmap *md = mk_mmap(f->dev, d, sizeof(d), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	struct doca_buf *bs, *bd;

	memset(d, 0, sizeof(d));
	assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, ms, s, 64, &bs), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, md, d, 64, &bd), DOCA_SUCCESS);
	assert_int_equal(run_one(f, bs, bd), DOCA_ERROR_INVALID_VALUE);
	doca_buf_dec_refcount(bs, NULL);
	doca_buf_dec_refcount(bd, NULL);
	assert_int_equal(doca_mmap_destroy(ms), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(md), DOCA_SUCCESS);
}

static void test_outside_mmap(void **state)
{
	struct fx *f = *state;
	uint8_t *mem = calloc(1, 256);
	struct doca_mmap *ms = mk_mmap(f->dev, mem, 64, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	struct doca_mmap *md = mk_mmap(f->dev, mem + 128, 64, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	struct doca_buf *bs, *bd;
	uint8_t *saved_addr;
	size_t saved_len;

	assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, ms, mem, 64, &bs), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, md, mem + 128, 64, &bd), DOCA_SUCCESS);
	/* Forge a destination that spills 64 bytes past its mmap. */
	saved_addr = bd->addr;
	saved_len = bd->len;
	bd->addr = mem + 160;
	bd->data = mem + 160;
	bd->len = 64;
	memset(mem + 192, 0x77, 64);
	assert_int_equal(run_one(f, bs, bd), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(mem[192], 0x77);
	assert_int_equal(mem[255], 0x77);
	/* Forge a source outside its mmap. */
	bd->addr = bd->data = saved_addr;
	bd->len = saved_len;
	bs->data = mem + 32;
	assert_int_equal(run_one(f, bs, bd), DOCA_ERROR_INVALID_VALUE);
	bs->data = mem;
	assert_int_equal(run_one(f, bs, bd), DOCA_SUCCESS);
	doca_buf_dec_refcount(bs, NULL);
	doca_buf_dec_refcount(bd, NULL);
	assert_int_equal(doca_mmap_destroy(ms), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(md), DOCA_SUCCESS);
	free(mem);
}

static void test_over_max_buf_size(void **state)
{
	struct fx *f = *state;
	size_t n = (size_t)f->max_buf_size + 1;
	uint8_t *s, *d;
	struct doca_mmap *ms, *md;
	struct doca_buf *bs, *bd;

	if (f->max_buf_size > (256u << 20)) {
		skip();
		return;
	}
	s = calloc(1, n);
	d = calloc(1, n);
	assert_non_null(s);
	assert_non_null(d);
	ms = mk_mmap(f->dev, s, n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	md = mk_mmap(f->dev, d, n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	s[n - 1] = 9;
	assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, ms, s, n, &bs), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, md, d, n, &bd), DOCA_SUCCESS);
	assert_int_equal(run_one(f, bs, bd), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(d[n - 1], 0);
	doca_buf_dec_refcount(bs, NULL);
	doca_buf_dec_refcount(bd, NULL);
	assert_int_equal(doca_mmap_destroy(ms), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(md), DOCA_SUCCESS);
	free(s);
	free(d);
}

static void test_unsupported_device(void **state)
{
	struct doca_devinfo **list = NULL;
	struct doca_dev *dev = NULL;
	struct doca_dma *dma = NULL;
	uint32_t n = 0, i, u32;
	uint64_t u64;
	bool found = false;

	(void)state;
	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	for (i = 0; i < n && !found; i++) {
		if (doca_dma_cap_task_memcpy_is_supported(list[i]) != DOCA_ERROR_NOT_SUPPORTED)
			continue;
		found = true;
		assert_int_equal(doca_dma_cap_task_memcpy_get_max_buf_size(list[i], &u64), DOCA_ERROR_NOT_SUPPORTED);
		assert_int_equal(doca_dma_cap_task_memcpy_get_max_buf_list_len(list[i], &u32),
				 DOCA_ERROR_NOT_SUPPORTED);
		assert_int_equal(doca_dev_open(list[i], &dev), DOCA_SUCCESS);
		assert_int_equal(doca_dma_create(dev, &dma), DOCA_ERROR_NOT_SUPPORTED);
		assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
	}
	doca_devinfo_destroy_list(list);
	if (!found)
		skip(); /* the default topology has DMA on every device */
}

/* ---------------- lifecycle ---------------- */

static void stop_in_flight(struct fx *f, size_t size, uint32_t ntasks, bool progress_first)
{
	uint8_t *s = malloc(size * ntasks), *d = malloc(size * ntasks);
	struct doca_mmap *ms = mk_mmap(f->dev, s, size * ntasks, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	struct doca_mmap *md = mk_mmap(f->dev, d, size * ntasks, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	struct doca_buf *bs[64], *bd[64];
	struct doca_dma_task_memcpy *t;
	union doca_data ud = {0};
	size_t inflight = 1;
	uint32_t i;

	assert_true(ntasks <= 64);
	memset(s, 0x5A, size * ntasks);
	f->tr.free_in_cb = true;
	for (i = 0; i < ntasks; i++) {
		assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, ms, s + i * size, size, &bs[i]),
				 DOCA_SUCCESS);
		assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, md, d + i * size, size, &bd[i]),
				 DOCA_SUCCESS);
		assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, bs[i], bd[i], ud, &t), DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(t)), DOCA_SUCCESS);
	}
	assert_int_equal(doca_ctx_get_num_inflight_tasks(f->ctx, &inflight), DOCA_SUCCESS);
	assert_int_equal(inflight, ntasks);
	/* One progress hands large copies to the engine thread: the stop then aborts them there. */
	if (progress_first)
		doca_pe_progress(f->pe);
	stop_ctx(f);
	/* Every task came back exactly once, flushed ones with IO_FAILED. */
	assert_int_equal(f->tr.ok + f->tr.err, ntasks);
	for (i = 0; i < f->tr.n_status; i++)
		assert_true(f->tr.status[i] == DOCA_SUCCESS || f->tr.status[i] == DOCA_ERROR_IO_FAILED);
	for (i = 0; i < ntasks; i++) {
		doca_buf_dec_refcount(bs[i], NULL);
		doca_buf_dec_refcount(bd[i], NULL);
	}
	assert_int_equal(doca_mmap_destroy(ms), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(md), DOCA_SUCCESS);
	free(s);
	free(d);
}

static void test_stop_in_flight_small(void **state)
{
	struct fx *f = *state;

	/* Nothing progressed yet: all are flushed. */
	stop_in_flight(f, 256, 32, false);
	assert_int_equal(f->tr.err, 32);
}

static void test_stop_in_flight_large(void **state)
{
	struct fx *f = *state;

	size_t size = f->max_buf_size < (16u << 20) ? (size_t)f->max_buf_size : (16u << 20);

	stop_in_flight(f, size, 6, true);
}

static void test_restart_and_many(void **state)
{
	struct fx *f = *state;
	const uint32_t rounds = 20000, depth = 32;
	uint8_t s[64], d[64 * 32];
	struct doca_mmap *ms = mk_mmap(f->dev, s, sizeof(s), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	struct doca_mmap *md = mk_mmap(f->dev, d, sizeof(d), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	struct doca_buf *bs, *bd[32];
	struct doca_dma_task_memcpy *t[32];
	union doca_data ud = {0};
	uint32_t i;

	/* Stop and start again: the context is reusable. */
	stop_ctx(f);
	assert_int_equal(doca_ctx_start(f->ctx), DOCA_SUCCESS);
	fill(s, sizeof(s), 99);
	assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, ms, s, 64, &bs), DOCA_SUCCESS);
	for (i = 0; i < depth; i++) {
		assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, md, d + 64 * i, 64, &bd[i]), DOCA_SUCCESS);
		assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, bs, bd[i], ud, &t[i]), DOCA_SUCCESS);
	}
	/* Keep depth tasks in flight; each callback resubmits its task. */
	f->tr.resubmit_left = rounds - depth;
	for (i = 0; i < depth; i++)
		assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(t[i])), DOCA_SUCCESS);
	{
		time_t deadline = time(NULL) + 30;

		while (f->tr.ok + f->tr.err < rounds) {
			doca_pe_progress(f->pe);
			assert_true(time(NULL) < deadline);
		}
	}
	assert_int_equal(f->tr.ok, rounds);
	assert_int_equal(f->tr.err, 0);
	for (i = 0; i < depth; i++)
		assert_memory_equal(d + 64 * i, s, 64);
	for (i = 0; i < depth; i++) {
		doca_task_free(doca_dma_task_memcpy_as_task(t[i]));
		doca_buf_dec_refcount(bd[i], NULL);
	}
	doca_buf_dec_refcount(bs, NULL);
	assert_int_equal(doca_mmap_destroy(ms), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(md), DOCA_SUCCESS);
}

/* argv[1], if given, is a topology file (SOFTDOCA_TOPOLOGY) with other caps. */
/* A large copy finishes on the engine thread: the PE's notification handle
 * must wake a sleeping program. */
static void test_notify_large(void **state)
{
	struct fx *f = *state;
	size_t n = 8 << 20;
	uint8_t *s = malloc(n), *d = calloc(1, n);
	struct doca_mmap *ms = mk_mmap(f->dev, s, n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	struct doca_mmap *md = mk_mmap(f->dev, d, n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	struct doca_buf *bs, *bd;
	struct doca_dma_task_memcpy *t;
	union doca_data ud = {0};
	doca_notification_handle_t h;
	struct epoll_event ev = {.events = EPOLLIN};
	int ep = epoll_create1(0), waits = 0;
	time_t deadline = time(NULL) + 30;

	if (n > f->max_buf_size) {
		doca_mmap_destroy(ms);
		doca_mmap_destroy(md);
		free(s);
		free(d);
		close(ep);
		skip();
		return;
	}
	fill(s, n, 5);
	assert_int_equal(doca_pe_get_notification_handle(f->pe, &h), DOCA_SUCCESS);
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, h, &ev), 0);
	assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, ms, s, n, &bs), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, md, d, n, &bd), DOCA_SUCCESS);
	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, bs, bd, ud, &t), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(t)), DOCA_SUCCESS);
	while (f->tr.ok + f->tr.err == 0) {
		if (doca_pe_progress(f->pe) != 0)
			continue;
		assert_int_equal(doca_pe_request_notification(f->pe), DOCA_SUCCESS);
		if (doca_pe_progress(f->pe) == 0) {
			/* No timeout-driven polling: only a wake-up gets us further. */
			assert_int_equal(epoll_wait(ep, &ev, 1, 10000), 1);
			waits++;
		}
		assert_int_equal(doca_pe_clear_notification(f->pe, h), DOCA_SUCCESS);
		assert_true(time(NULL) < deadline);
	}
	assert_int_equal(f->tr.ok, 1);
	assert_memory_equal(s, d, n);
	doca_task_free(doca_dma_task_memcpy_as_task(t));
	doca_buf_dec_refcount(bs, NULL);
	doca_buf_dec_refcount(bd, NULL);
	assert_int_equal(doca_mmap_destroy(ms), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(md), DOCA_SUCCESS);
	close(ep);
	free(s);
	free(d);
	(void)waits;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_args_object),
		cmocka_unit_test(test_bad_state),
		cmocka_unit_test_setup_teardown(test_submit_malformed, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_sizes, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_chains, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_dst_append, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_dst_too_small, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_permissions, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_mmap_without_dev, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_outside_mmap, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_over_max_buf_size, fx_setup, fx_teardown),
		cmocka_unit_test(test_unsupported_device),
		cmocka_unit_test_setup_teardown(test_stop_in_flight_small, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_stop_in_flight_large, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_restart_and_many, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_notify_large, fx_setup, fx_teardown),
	};

	if (argc > 1)
		setenv("SOFTDOCA_TOPOLOGY", argv[1], 1);
	return cmocka_run_group_tests_name(argc > 1 ? "dma_small_caps" : "dma", tests, NULL, NULL);
}
