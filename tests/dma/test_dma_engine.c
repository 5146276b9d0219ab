/*
 * The software DMA engine's mechanisms, through the public API only:
 *   - copies are byte-exact at every alignment: every source and
 *     destination offset 0..63 at lengths around the streaming loop's edges
 *     (sub-line, sub-page, odd, a page and a bit), on one engine thread and
 *     split between two (streaming stores), inline in progress (the small
 *     copies' own code up to 64 bytes), and inline with streaming stores
 *     (tasks of about 100 KiB, 6 MiB and more in flight), shared between
 *     progress and the engine thread (plain and streamed), with guard bytes
 *     on both sides of the destination left untouched; small inline copies
 *     between overlapping buffers come out as memmove's;
 *   - the engine's completion order: tasks it executes complete in the order
 *     they were submitted, a split task only once both halves are in place
 *     (checked from its callback), and a stop in the middle flushes the rest
 *     with every task reported exactly once, the successful ones a prefix of
 *     the submission order;
 *   - the wait path sleeps: a program blocked on the PE's notification handle
 *     with a started DMA context, its engine threads running and nothing in
 *     flight, uses under 1% of a core over IDLE_WINDOW_S seconds (3 s rather
 *     than 10 s to keep CI short).
 * The engine's tuning knobs (SOFTDOCA_DMA_INLINE_MAX, _NT_MIN, _SPLIT_MIN, _SHARE_MIN,
 * read when the DMA context is created) push small tasks onto the paths
 * that otherwise only multi-megabyte copies take.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/epoll.h>
#include <sys/resource.h>
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
#define SLOTS 64
#define GUARD 64
#define MAX_LEN (12u << 10)
#define SLOT_SRC (MAX_LEN + 64)
#define SLOT_DST (MAX_LEN + 64 + 2 * GUARD)
#define IDLE_WINDOW_S 3
#define BIG (16u << 20)

struct fx {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	struct doca_buf_inventory *inv;
	struct doca_mmap *mmap;
	uint8_t *mem;
	size_t mem_len;
	uint8_t *src_base, *dst_base;
	struct doca_buf *src[SLOTS], *dst[SLOTS];
	struct doca_dma_task_memcpy *t[SLOTS];
	size_t len[SLOTS];
	size_t slot_src, slot_dst; /* run_batch's slot strides */
	uint32_t done, ok, flushed, bad;
	uint32_t next_expected; /* order check */
	bool check_order;
	bool order_broken;
	bool content_broken;
};

static void ok_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	struct fx *f = cud.ptr;
	uint32_t i = (uint32_t)tud.u64;
	const void *sp = NULL, *dp = NULL;
	size_t dl = 0;

	(void)task;
	f->done++;
	f->ok++;
	if (f->check_order) {
		if (i != f->next_expected)
			f->order_broken = true;
		f->next_expected = i + 1;
	}
	/* Both halves must be in place when the task is reported. */
	OK(doca_buf_get_data(f->src[i], (void **)&sp));
	OK(doca_buf_get_data(f->dst[i], (void **)&dp));
	OK(doca_buf_get_data_len(f->dst[i], &dl));
	if (dl != f->len[i] || memcmp(sp, dp, dl) != 0)
		f->content_broken = true;
}

static void err_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	struct fx *f = cud.ptr;
	(void)tud;
	f->done++;
	if (doca_task_get_status(doca_dma_task_memcpy_as_task(task)) == DOCA_ERROR_IO_FAILED) {
		/* A stop flushes the queued tasks at once, before the engine's
		 * own come back: flushes are not ordered, successes are. */
		f->flushed++;
	} else {
		f->bad++;
	}
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

/* A DMA context with the engine knobs given (NULL: the default), and one
 * mmap of src_len + dst_len bytes. */
static struct fx *fx_create(const char *inline_max, const char *nt_min, const char *split_min, size_t src_len,
			    size_t dst_len)
{
	struct fx *f = calloc(1, sizeof(*f));
	union doca_data ud;

	assert_non_null(f);
	f->slot_src = SLOT_SRC;
	f->slot_dst = SLOT_DST;
	if (inline_max != NULL)
		setenv("SOFTDOCA_DMA_INLINE_MAX", inline_max, 1);
	if (nt_min != NULL)
		setenv("SOFTDOCA_DMA_NT_MIN", nt_min, 1);
	if (split_min != NULL)
		setenv("SOFTDOCA_DMA_SPLIT_MIN", split_min, 1);
	f->dev = open_dma_dev();
	OK(doca_pe_create(&f->pe));
	OK(doca_dma_create(f->dev, &f->dma));
	unsetenv("SOFTDOCA_DMA_INLINE_MAX");
	unsetenv("SOFTDOCA_DMA_NT_MIN");
	unsetenv("SOFTDOCA_DMA_SPLIT_MIN");
	f->ctx = doca_dma_as_ctx(f->dma);
	OK(doca_dma_task_memcpy_set_conf(f->dma, ok_cb, err_cb, SLOTS));
	ud.ptr = f;
	OK(doca_ctx_set_user_data(f->ctx, ud));
	OK(doca_pe_connect_ctx(f->pe, f->ctx));
	OK(doca_ctx_start(f->ctx));
	f->mem_len = src_len + dst_len;
	assert_int_equal(posix_memalign((void **)&f->mem, 4096, f->mem_len), 0);
	memset(f->mem, 0, f->mem_len);
	f->src_base = f->mem;
	f->dst_base = f->mem + src_len;
	OK(doca_mmap_create(&f->mmap));
	OK(doca_mmap_set_memrange(f->mmap, f->mem, f->mem_len));
	OK(doca_mmap_set_permissions(f->mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	OK(doca_mmap_add_dev(f->mmap, f->dev));
	OK(doca_mmap_start(f->mmap));
	OK(doca_buf_inventory_create(2 * SLOTS, &f->inv));
	OK(doca_buf_inventory_start(f->inv));
	return f;
}

static void release_bufs(struct fx *f)
{
	uint32_t i;

	for (i = 0; i < SLOTS; i++) {
		if (f->t[i] != NULL)
			doca_task_free(doca_dma_task_memcpy_as_task(f->t[i]));
		if (f->src[i] != NULL)
			OK(doca_buf_dec_refcount(f->src[i], NULL));
		if (f->dst[i] != NULL)
			OK(doca_buf_dec_refcount(f->dst[i], NULL));
		f->t[i] = NULL;
		f->src[i] = f->dst[i] = NULL;
	}
}

static void fx_destroy(struct fx *f)
{
	enum doca_ctx_states st;
	time_t deadline = time(NULL) + 30;
	doca_error_t e;

	release_bufs(f);
	e = doca_ctx_stop(f->ctx);
	assert_true(e == DOCA_SUCCESS || e == DOCA_ERROR_IN_PROGRESS);
	for (;;) {
		OK(doca_ctx_get_state(f->ctx, &st));
		if (st == DOCA_CTX_STATE_IDLE)
			break;
		doca_pe_progress(f->pe);
		assert_true(time(NULL) < deadline);
	}
	OK(doca_dma_destroy(f->dma));
	OK(doca_buf_inventory_stop(f->inv));
	OK(doca_buf_inventory_destroy(f->inv));
	OK(doca_mmap_destroy(f->mmap));
	OK(doca_pe_destroy(f->pe));
	OK(doca_dev_close(f->dev));
	free(f->mem);
	free(f);
}

static void progress_until(struct fx *f, uint32_t n)
{
	time_t deadline = time(NULL) + 60;

	while (f->done < n) {
		doca_pe_progress(f->pe);
		assert_true(time(NULL) < deadline);
	}
}

/* ---- byte-exact at every alignment ---- */

static uint32_t rng = 12345;

static uint8_t next_byte(void)
{
	rng = rng * 1103515245u + 12345u;
	return (uint8_t)(rng >> 16);
}

/* One batch: task k copies len bytes from src slot k at offset so[k] into
 * dst slot k at offset do_[k] (after GUARD bytes), everything else in the
 * slot a known guard pattern. */
static void run_batch(struct fx *f, uint32_t n, const size_t *so, const size_t *dof, size_t len)
{
	uint32_t k;
	size_t j;

	f->done = f->ok = f->flushed = f->bad = 0;
	for (k = 0; k < n; k++) {
		uint8_t *s = f->src_base + (size_t)k * f->slot_src + so[k];
		uint8_t *d = f->dst_base + (size_t)k * f->slot_dst;
		union doca_data ud = {.u64 = k};

		for (j = 0; j < len; j++)
			s[j] = next_byte();
		memset(d, 0xa5, f->slot_dst);
		if (f->src[k] != NULL) {
			OK(doca_buf_dec_refcount(f->src[k], NULL));
			OK(doca_buf_dec_refcount(f->dst[k], NULL));
		}
		OK(doca_buf_inventory_buf_get_by_data(f->inv, f->mmap, s, len, &f->src[k]));
		/* exactly len bytes of room: a copy that overruns cannot be hidden */
		OK(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, d + GUARD + dof[k], len, &f->dst[k]));
		f->len[k] = len;
		if (f->t[k] == NULL)
			OK(doca_dma_task_memcpy_alloc_init(f->dma, f->src[k], f->dst[k], ud, &f->t[k]));
		doca_dma_task_memcpy_set_src(f->t[k], f->src[k]);
		doca_dma_task_memcpy_set_dst(f->t[k], f->dst[k]);
		OK(doca_task_submit(doca_dma_task_memcpy_as_task(f->t[k])));
	}
	progress_until(f, n);
	assert_int_equal(f->ok, n);
	assert_false(f->content_broken);
	for (k = 0; k < n; k++) {
		const uint8_t *s = f->src_base + (size_t)k * f->slot_src + so[k];
		const uint8_t *d = f->dst_base + (size_t)k * f->slot_dst;

		for (j = 0; j < GUARD + dof[k]; j++)
			if (d[j] != 0xa5)
				fail_msg("len %zu src+%zu dst+%zu: byte %zu before the destination overwritten", len,
					 so[k], dof[k], GUARD + dof[k] - j);
		if (memcmp(d + GUARD + dof[k], s, len) != 0)
			fail_msg("len %zu src+%zu dst+%zu: copy differs", len, so[k], dof[k]);
		for (j = GUARD + dof[k] + len; j < f->slot_dst; j++)
			if (d[j] != 0xa5)
				fail_msg("len %zu src+%zu dst+%zu: byte %zu after the destination overwritten", len,
					 so[k], dof[k], j - (GUARD + dof[k] + len));
	}
}

/* Every (src, dst) offset pair in 0..63 at the given length, SLOTS at a time. */
static void all_offsets(struct fx *f, size_t len)
{
	size_t so[SLOTS], dof[SLOTS];
	uint32_t n = 0, a, b;

	for (a = 0; a < 64; a++) {
		for (b = 0; b < 64; b++) {
			so[n] = a;
			dof[n] = b;
			if (++n == SLOTS) {
				run_batch(f, n, so, dof, len);
				n = 0;
			}
		}
	}
	if (n > 0)
		run_batch(f, n, so, dof, len);
}

/* A few offsets at many lengths, and the full grid at lengths that cross
 * the head, the streaming loop and the tail. */
static void nt_sweep(struct fx *f)
{
	static const size_t lens[] = {1,   2,   63,  64,  65,   127,  128,  129,  255,  256,  257,  319,  320, 321,
				      383, 384, 385, 511, 1000, 1023, 4095, 4096, 4097, 4159, 8191, 8193, MAX_LEN};
	static const size_t grid_lens[] = {257, 447, 4097};
	static const size_t offs[] = {0, 1, 15, 16, 31, 32, 33, 48, 63};
	size_t so[SLOTS], dof[SLOTS];
	uint32_t n, i, a, b;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		n = 0;
		for (a = 0; a < sizeof(offs) / sizeof(offs[0]); a++) {
			for (b = 0; b < sizeof(offs) / sizeof(offs[0]); b++) {
				so[n] = offs[a];
				dof[n] = offs[b];
				if (++n == SLOTS) {
					run_batch(f, n, so, dof, lens[i]);
					n = 0;
				}
			}
		}
		if (n > 0)
			run_batch(f, n, so, dof, lens[i]);
	}
	for (i = 0; i < sizeof(grid_lens) / sizeof(grid_lens[0]); i++)
		all_offsets(f, grid_lens[i]);
}

/* Every task on the engine thread, streamed, not split. */
static void test_nt_every_alignment(void **state)
{
	struct fx *f = fx_create("0", "0", "18446744073709551615", (size_t)SLOTS * SLOT_SRC, (size_t)SLOTS * SLOT_DST);

	(void)state;
	nt_sweep(f);
	fx_destroy(f);
}

/* Every task split between the two engine threads, both halves streamed. */
static void test_nt_split_every_alignment(void **state)
{
	struct fx *f = fx_create("0", "0", "0", (size_t)SLOTS * SLOT_SRC, (size_t)SLOTS * SLOT_DST);

	(void)state;
	nt_sweep(f);
	fx_destroy(f);
}

/* Every task inline in progress (the default knobs at these sizes). */
static void test_inline_every_alignment(void **state)
{
	struct fx *f = fx_create(NULL, NULL, NULL, (size_t)SLOTS * SLOT_SRC, (size_t)SLOTS * SLOT_DST);

	(void)state;
	nt_sweep(f);
	fx_destroy(f);
}

/* Copies shared between progress and the engine thread (every second one
 * there while it holds few), at every alignment: plainly, and with the
 * engine's share streamed (NT_MIN 0). Where the process may use one CPU
 * only, nothing is shared and these are inline copies again. */
static void shared_sweep(const char *nt_min)
{
	struct fx *f;

	setenv("SOFTDOCA_DMA_SHARE_MIN", "1", 1);
	f = fx_create(NULL, nt_min, NULL, (size_t)SLOTS * SLOT_SRC, (size_t)SLOTS * SLOT_DST);
	unsetenv("SOFTDOCA_DMA_SHARE_MIN");
	nt_sweep(f);
	fx_destroy(f);
}

static void test_shared_every_alignment(void **state)
{
	(void)state;
	shared_sweep(NULL);
	shared_sweep("0");
}

/* Inline copies large enough, with enough of them in flight, for streaming
 * stores (SLOTS tasks of NT_LEN bytes: over 6 MiB); as the batch drains
 * fewer are in flight and the last ones are plain copies, so both ways are
 * checked at every offset pair of offs. */
#define NT_LEN (100u << 10)

static void test_inline_nt_every_alignment(void **state)
{
	static const size_t offs[] = {0, 1, 31, 32, 33, 63};
	static const size_t extra[] = {0, 1, 63, 65, 4097};
	size_t so[SLOTS], dof[SLOTS];
	size_t slot_src = NT_LEN + 4097 + 64, slot_dst = slot_src + 2 * GUARD;
	struct fx *f = fx_create(NULL, NULL, NULL, (size_t)SLOTS * slot_src, (size_t)SLOTS * slot_dst);
	uint32_t n, i, k;

	(void)state;
	f->slot_src = slot_src;
	f->slot_dst = slot_dst;
	for (i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
		/* SLOTS tasks per batch, the offset pairs repeated to fill it */
		for (n = 0; n < SLOTS; n++) {
			k = n % (uint32_t)(sizeof(offs) / sizeof(offs[0]) * sizeof(offs) / sizeof(offs[0]));
			so[n] = offs[k / (sizeof(offs) / sizeof(offs[0]))];
			dof[n] = offs[k % (sizeof(offs) / sizeof(offs[0]))];
		}
		run_batch(f, SLOTS, so, dof, NT_LEN + extra[i]);
	}
	fx_destroy(f);
}

/* A small inline copy whose source and destination overlap (the program's
 * mistake, but defined): the result is memmove's, at every length up to 64
 * and every shift either way. */
static void test_inline_small_overlap(void **state)
{
	struct fx *f = fx_create(NULL, NULL, NULL, 4096, 4096);
	uint8_t want[256];
	union doca_data ud = {.u64 = 0};
	size_t n, j;
	int shift;

	(void)state;
	for (n = 1; n <= 64; n++) {
		for (shift = -(int)n; shift <= (int)n; shift++) {
			uint8_t *base = f->mem + 512;
			uint8_t *s = base + 100, *d = base + 100 + shift;

			for (j = 0; j < 256; j++)
				base[j] = next_byte();
			memcpy(want, base, 256);
			memmove(want + 100 + shift, want + 100, n);
			OK(doca_buf_inventory_buf_get_by_data(f->inv, f->mmap, s, n, &f->src[0]));
			OK(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, d, n, &f->dst[0]));
			f->len[0] = n;
			if (f->t[0] == NULL)
				OK(doca_dma_task_memcpy_alloc_init(f->dma, f->src[0], f->dst[0], ud, &f->t[0]));
			doca_dma_task_memcpy_set_src(f->t[0], f->src[0]);
			doca_dma_task_memcpy_set_dst(f->t[0], f->dst[0]);
			f->done = f->ok = 0;
			OK(doca_task_submit(doca_dma_task_memcpy_as_task(f->t[0])));
			while (f->done < 1)
				doca_pe_progress(f->pe);
			/* ok_cb compares with the source, which the copy may have overwritten */
			f->content_broken = false;
			assert_int_equal(f->ok, 1);
			if (memcmp(base, want, 256) != 0)
				fail_msg("overlapping copy of %zu bytes shifted by %d differs from memmove", n, shift);
			OK(doca_buf_dec_refcount(f->src[0], NULL));
			OK(doca_buf_dec_refcount(f->dst[0], NULL));
			f->src[0] = f->dst[0] = NULL;
		}
	}
	fx_destroy(f);
}

/* ---- completion order ---- */

/* SLOTS split tasks of varied sizes: reported in submission order, each
 * complete when reported. */
static void test_split_order(void **state)
{
	size_t seg = 256u << 10;
	struct fx *f = fx_create("0", NULL, "1024", (size_t)SLOTS * seg, (size_t)SLOTS * seg);
	uint32_t k, round;

	(void)state;
	f->check_order = true;
	for (round = 0; round < 3; round++) {
		f->done = f->ok = f->flushed = f->bad = 0;
		f->next_expected = 0;
		for (k = 0; k < SLOTS; k++) {
			uint8_t *s = f->src_base + (size_t)k * seg;
			uint8_t *d = f->dst_base + (size_t)k * seg;
			size_t len = (k * 7919u + round * 131u) % seg + 1;
			union doca_data ud = {.u64 = k};

			memset(s, (int)(k + round + 1), len);
			if (f->src[k] != NULL) {
				OK(doca_buf_dec_refcount(f->src[k], NULL));
				OK(doca_buf_dec_refcount(f->dst[k], NULL));
			}
			OK(doca_buf_inventory_buf_get_by_data(f->inv, f->mmap, s, len, &f->src[k]));
			OK(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, d, seg, &f->dst[k]));
			f->len[k] = len;
			if (f->t[k] == NULL)
				OK(doca_dma_task_memcpy_alloc_init(f->dma, f->src[k], f->dst[k], ud, &f->t[k]));
			doca_dma_task_memcpy_set_src(f->t[k], f->src[k]);
			doca_dma_task_memcpy_set_dst(f->t[k], f->dst[k]);
			OK(doca_task_submit(doca_dma_task_memcpy_as_task(f->t[k])));
		}
		progress_until(f, SLOTS);
		assert_int_equal(f->ok, SLOTS);
		assert_false(f->order_broken);
		assert_false(f->content_broken);
	}
	fx_destroy(f);
}

/* A stop with split tasks in flight: each reported once, the successful
 * ones a prefix in submission order and complete, the rest flushed. */
static void test_split_stop(void **state)
{
	size_t seg = 1u << 20;
	struct fx *f = fx_create("0", NULL, "0", (size_t)SLOTS * seg, (size_t)SLOTS * seg);
	time_t deadline = time(NULL) + 30;
	enum doca_ctx_states st;
	doca_error_t e;
	uint32_t k;

	(void)state;
	f->check_order = true;
	for (k = 0; k < SLOTS; k++) {
		union doca_data ud = {.u64 = k};

		memset(f->src_base + (size_t)k * seg, (int)(k + 1), seg);
		OK(doca_buf_inventory_buf_get_by_data(f->inv, f->mmap, f->src_base + (size_t)k * seg, seg, &f->src[k]));
		OK(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->dst_base + (size_t)k * seg, seg, &f->dst[k]));
		f->len[k] = seg;
		OK(doca_dma_task_memcpy_alloc_init(f->dma, f->src[k], f->dst[k], ud, &f->t[k]));
		OK(doca_task_submit(doca_dma_task_memcpy_as_task(f->t[k])));
	}
	doca_pe_progress(f->pe); /* hands them to the engine */
	e = doca_ctx_stop(f->ctx);
	assert_true(e == DOCA_SUCCESS || e == DOCA_ERROR_IN_PROGRESS);
	for (;;) {
		OK(doca_ctx_get_state(f->ctx, &st));
		if (st == DOCA_CTX_STATE_STOPPING && f->done == SLOTS) {
			release_bufs(f); /* IDLE once every task is freed */
		}
		if (st == DOCA_CTX_STATE_IDLE)
			break;
		doca_pe_progress(f->pe);
		assert_true(time(NULL) < deadline);
	}
	assert_int_equal(f->done, SLOTS);
	assert_int_equal(f->ok + f->flushed, SLOTS);
	assert_int_equal(f->bad, 0);
	assert_false(f->order_broken);
	assert_false(f->content_broken);
	/* the ok ones are 0..ok-1: ok_cb saw them in order from 0 */
	OK(doca_ctx_start(f->ctx)); /* and the context starts again */
	fx_destroy(f);
}

/* ---- the wait path sleeps ---- */

static double cpu_seconds(void)
{
	struct rusage ru;

	assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec / 1e6;
}

static unsigned int thread_count(void)
{
	DIR *dir = opendir("/proc/self/task");
	struct dirent *de;
	unsigned int n = 0;

	assert_non_null(dir);
	while ((de = readdir(dir)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_idle_sleeps(void **state)
{
	struct fx *f = fx_create(NULL, NULL, NULL, BIG, BIG);
	struct epoll_event ev = {.events = EPOLLIN};
	doca_notification_handle_t h;
	union doca_data ud = {.u64 = 0};
	unsigned int threads_before = thread_count();
	double c0, c1, t0, t1;
	int ep, wakes = 0;

	(void)state;
	/* One copy large enough for the engine threads, so they exist and idle. */
	memset(f->src_base, 0x5a, BIG);
	OK(doca_buf_inventory_buf_get_by_data(f->inv, f->mmap, f->src_base, BIG, &f->src[0]));
	OK(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->dst_base, BIG, &f->dst[0]));
	f->len[0] = BIG;
	OK(doca_dma_task_memcpy_alloc_init(f->dma, f->src[0], f->dst[0], ud, &f->t[0]));
	OK(doca_task_submit(doca_dma_task_memcpy_as_task(f->t[0])));
	progress_until(f, 1);
	assert_int_equal(f->ok, 1);
	assert_false(f->content_broken);
	assert_true(thread_count() >= threads_before + 2);

	OK(doca_pe_get_notification_handle(f->pe, &h));
	ep = epoll_create1(EPOLL_CLOEXEC);
	assert_true(ep >= 0);
	ev.data.fd = h;
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, h, &ev), 0);
	while (doca_pe_progress(f->pe) != 0)
		;
	c0 = cpu_seconds();
	t0 = mono_s();
	while ((t1 = mono_s()) < t0 + IDLE_WINDOW_S) {
		int left_ms = (int)((t0 + IDLE_WINDOW_S - t1) * 1000) + 1;

		OK(doca_pe_request_notification(f->pe));
		if (epoll_wait(ep, &ev, 1, left_ms) > 0) {
			wakes++;
			OK(doca_pe_clear_notification(f->pe, 0));
			doca_pe_progress(f->pe);
		}
	}
	c1 = cpu_seconds();
	print_message("idle for %.2f s: %.4f CPU-s (%.3f%% of a core), %d wake-ups, %u threads\n", t1 - t0, c1 - c0,
		      100.0 * (c1 - c0) / (t1 - t0), wakes, thread_count());
	assert_true(c1 - c0 < 0.01 * (t1 - t0));
	assert_true(wakes <= 2); /* nothing in flight: nothing to wake for */
	close(ep);
	fx_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nt_every_alignment),
		cmocka_unit_test(test_nt_split_every_alignment),
		cmocka_unit_test(test_inline_every_alignment),
		cmocka_unit_test(test_inline_nt_every_alignment),
		cmocka_unit_test(test_shared_every_alignment),
		cmocka_unit_test(test_inline_small_overlap),
		cmocka_unit_test(test_split_order),
		cmocka_unit_test(test_split_stop),
		cmocka_unit_test(test_idle_sleeps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
