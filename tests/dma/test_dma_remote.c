/*
 * test_dma_remote.c - DMA between local memory and the other side's memory
 * (an mmap created from the export of dma_exporter, run from the other
 * flavor's build; the tests skip without -Dpeer_build). Public API only,
 * except two white-box cases: a buffer forged outside its remote mmap and a
 * descriptor forged with a valid checksum.
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

#include "sd_mem.h"    /* white-box: the forged out-of-range buffer */
#include "sd_remote.h" /* white-box: the forged descriptor */
#include "dma_remote_util.h"

#define OK(x) assert_int_equal((x), DOCA_SUCCESS)
#define MIB (1u << 20)
#define EXPORT_SIZE (16 * MIB + 8192)

/* ---------------- the exporter (other flavor) ---------------- */

#define PEER_PROG "tests/dma/dma_exporter"

struct peer {
	struct exu_peer io;
	uint8_t desc[512];
	size_t desc_len;
};

static bool peer_line(struct peer *p, const char *tag, char *rest, size_t restsz)
{
	return exu_peer_line(&p->io, tag, rest, restsz, 20000);
}

static void peer_start(struct peer *p, size_t size, const char *mode, uint32_t seed)
{
	const char *path = exu_peer_path(PEER_PROG);
	char sz[32], sd[32];
	char *const argv[] = {(char *)path, sz, (char *)mode, sd, NULL};

	assert_non_null(path);
	snprintf(sz, sizeof(sz), "%zu", size);
	snprintf(sd, sizeof(sd), "%u", seed);
	memset(p, 0, sizeof(*p));
	assert_int_equal(exu_peer_start(&p->io, path, argv), 0);
	assert_true(exu_peer_desc(&p->io, p->desc, sizeof(p->desc), &p->desc_len, 20000));
	assert_int_equal(p->desc_len, SD_REMOTE_DESC_SIZE);
}

static uint64_t peer_sum(struct peer *p, uint64_t off, uint64_t len)
{
	char cmd[64], rest[64];
	int n = snprintf(cmd, sizeof(cmd), "sum %llu %llu\n", (unsigned long long)off, (unsigned long long)len);

	assert_int_equal(write(p->io.in, cmd, (size_t)n), n);
	assert_true(peer_line(p, "SUM", rest, sizeof(rest)));
	return strtoull(rest, NULL, 16);
}

/* EOF on stdin: the exporter prints its whole checksum and exits 0. */
static uint64_t peer_finish(struct peer *p)
{
	char rest[64];
	int status;

	close(p->io.in);
	assert_true(peer_line(p, "SUM", rest, sizeof(rest)));
	close(p->io.out);
	assert_int_equal(waitpid(p->io.pid, &status, 0), p->io.pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	return strtoull(rest, NULL, 16);
}

static void peer_kill(struct peer *p)
{
	int status;

	kill(p->io.pid, SIGKILL);
	assert_int_equal(waitpid(p->io.pid, &status, 0), p->io.pid);
	close(p->io.in);
	close(p->io.out);
}

/* ---------------- DMA fixture ---------------- */

struct fx {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	struct doca_buf_inventory *inv;
	uint32_t ok, err;
	uint32_t flushed; /* failed with DOCA_ERROR_IO_FAILED, the flush status */
	doca_error_t last;
};

static void ok_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	struct fx *f = cud.ptr;

	(void)tud;
	f->ok++;
	f->last = DOCA_SUCCESS;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static void err_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	struct fx *f = cud.ptr;

	(void)tud;
	f->err++;
	f->last = doca_task_get_status(doca_dma_task_memcpy_as_task(task));
	if (f->last == DOCA_ERROR_IO_FAILED)
		f->flushed++;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static int fx_setup(void **state)
{
	struct doca_devinfo **list;
	struct fx *f;
	union doca_data ud;
	uint32_t n;

	if (exu_peer_path(PEER_PROG) == NULL) {
		*state = NULL;
		return 0;
	}
	f = calloc(1, sizeof(*f));
	assert_non_null(f);
	OK(doca_devinfo_create_list(&list, &n));
	assert_true(n >= 1);
	OK(doca_dev_open(list[0], &f->dev));
	OK(doca_devinfo_destroy_list(list));
	OK(doca_pe_create(&f->pe));
	OK(doca_dma_create(f->dev, &f->dma));
	f->ctx = doca_dma_as_ctx(f->dma);
	OK(doca_dma_task_memcpy_set_conf(f->dma, ok_cb, err_cb, 16));
	ud.ptr = f;
	OK(doca_ctx_set_user_data(f->ctx, ud));
	OK(doca_pe_connect_ctx(f->pe, f->ctx));
	OK(doca_ctx_start(f->ctx));
	OK(doca_buf_inventory_create(64, &f->inv));
	OK(doca_buf_inventory_start(f->inv));
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;
	enum doca_ctx_states st = DOCA_CTX_STATE_RUNNING;
	uint64_t end = exu_now_ms() + 10000;

	if (f == NULL)
		return 0;
	(void)doca_ctx_stop(f->ctx);
	while (doca_ctx_get_state(f->ctx, &st) == DOCA_SUCCESS && st != DOCA_CTX_STATE_IDLE && exu_now_ms() < end)
		doca_pe_progress(f->pe);
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	OK(doca_dma_destroy(f->dma));
	OK(doca_buf_inventory_stop(f->inv));
	OK(doca_buf_inventory_destroy(f->inv));
	OK(doca_pe_destroy(f->pe));
	OK(doca_dev_close(f->dev));
	free(f);
	return 0;
}

#define NEED_PEER(f)                                                            \
	do {                                                                    \
		if ((f) == NULL) {                                              \
			print_message("no peer build (-Dpeer_build): skipped\n"); \
			skip();                                                 \
		}                                                               \
	} while (0)

/* Submit one memcpy and progress until it completes; its status. A failed
 * task stops the context (DOCA): wait for IDLE and start it again. */
static doca_error_t dma_run(struct fx *f, struct doca_buf *src, struct doca_buf *dst)
{
	struct doca_dma_task_memcpy *t;
	union doca_data ud = {0};
	uint32_t before = f->ok + f->err;
	uint64_t end = exu_now_ms() + 20000;
	enum doca_ctx_states st;

	OK(doca_dma_task_memcpy_alloc_init(f->dma, src, dst, ud, &t));
	OK(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
	while (f->ok + f->err == before) {
		if (doca_pe_progress(f->pe) == 0)
			usleep(50);
		assert_true(exu_now_ms() < end);
	}
	if (f->last != DOCA_SUCCESS) {
		do {
			doca_pe_progress(f->pe);
			OK(doca_ctx_get_state(f->ctx, &st));
			assert_true(exu_now_ms() < end);
		} while (st != DOCA_CTX_STATE_IDLE);
		OK(doca_ctx_start(f->ctx));
	}
	return f->last;
}

static struct doca_mmap *local_mmap(struct fx *f, void *p, size_t len)
{
	struct doca_mmap *m;

	OK(doca_mmap_create(&m));
	OK(doca_mmap_set_memrange(m, p, len));
	OK(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	OK(doca_mmap_add_dev(m, f->dev));
	OK(doca_mmap_start(m));
	return m;
}

static struct doca_mmap *import(struct fx *f, struct peer *p, uint8_t **raddr, size_t *rlen)
{
	struct doca_mmap *m;
	void *a;
	size_t l;

	OK(doca_mmap_create_from_export(NULL, p->desc, p->desc_len, f->dev, &m));
	OK(doca_mmap_get_memrange(m, &a, &l));
	*raddr = a;
	*rlen = l;
	return m;
}

static void *xalloc(size_t len)
{
	void *p = NULL;

	assert_int_equal(posix_memalign(&p, 4096, len ? len : 1), 0);
	return p;
}

/* An exporter, its memory imported, and a local mmap over fresh memory. */
struct rig {
	struct peer p;
	struct doca_mmap *rm, *lm;
	uint8_t *raddr, *local;
	size_t rlen;
};

static void rig_open(struct fx *f, struct rig *r, size_t export_len, const char *mode, uint32_t seed,
		     size_t local_len)
{
	peer_start(&r->p, export_len, mode, seed);
	r->rm = import(f, &r->p, &r->raddr, &r->rlen);
	r->local = xalloc(local_len);
	r->lm = local_mmap(f, r->local, local_len);
}

/* Leaves the exporter running: each test ends it its own way. */
static void rig_close(struct rig *r)
{
	OK(doca_mmap_destroy(r->rm));
	OK(doca_mmap_destroy(r->lm));
	free(r->local);
}

/* A source buffer over its data and an empty destination buffer. */
static void bufs_get(struct fx *f, struct doca_mmap *sm, void *sa, size_t slen, struct doca_mmap *dm, void *da,
		     size_t dlen, struct doca_buf **src, struct doca_buf **dst)
{
	OK(doca_buf_inventory_buf_get_by_data(f->inv, sm, sa, slen, src));
	OK(doca_buf_inventory_buf_get_by_addr(f->inv, dm, da, dlen, dst));
}

static void bufs_put(struct doca_buf *src, struct doca_buf *dst)
{
	OK(doca_buf_dec_refcount(src, NULL));
	OK(doca_buf_dec_refcount(dst, NULL));
}

/* 0 is not among them: a zero-length copy is an invalid task (test_dma.c). */
static const size_t sizes[] = {1, 4096, MIB, 16 * MIB};

/* ---------------- tests ---------------- */

static void read_sizes(void **state)
{
	struct fx *f = *state;
	struct rig r;
	uint8_t *want;

	NEED_PEER(f);
	rig_open(f, &r, EXPORT_SIZE, "ro", 7, 16 * MIB);
	assert_int_equal(r.rlen, EXPORT_SIZE);
	want = xalloc(16 * MIB);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t sz = sizes[k];
		size_t off = sz < 16 * MIB ? 4093 : 8192; /* unaligned where it fits */
		struct doca_buf *src, *dst;
		size_t dlen = 1;

		memset(r.local, 0xee, 16 * MIB);
		OK(doca_buf_inventory_buf_get_by_addr(f->inv, r.rm, r.raddr + off, sz ? sz : 1, &src));
		OK(doca_buf_set_data(src, r.raddr + off, sz));
		OK(doca_buf_inventory_buf_get_by_addr(f->inv, r.lm, r.local, sz ? sz : 1, &dst));
		OK(dma_run(f, src, dst));
		OK(doca_buf_get_data_len(dst, &dlen));
		assert_int_equal(dlen, sz);
		drt_fill(want, sz, off, 7);
		assert_memory_equal(r.local, want, sz);
		assert_int_equal(drt_sum(r.local, sz), peer_sum(&r.p, off, sz));
		if (sz < 16 * MIB)
			assert_int_equal(r.local[sz], 0xee); /* nothing past the copy */
		bufs_put(src, dst);
	}
	rig_close(&r);
	/* the exporter's memory is unchanged */
	drt_fill(want, 16 * MIB, 0, 7);
	assert_int_equal(peer_sum(&r.p, 0, 16 * MIB), drt_sum(want, 16 * MIB));
	(void)peer_finish(&r.p);
	free(want);
}

static void write_sizes(void **state)
{
	struct fx *f = *state;
	struct rig r;
	uint8_t *mirror;

	NEED_PEER(f);
	rig_open(f, &r, EXPORT_SIZE, "rw", 9, 16 * MIB);
	mirror = xalloc(EXPORT_SIZE);
	drt_fill(mirror, EXPORT_SIZE, 0, 9);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t sz = sizes[k];
		size_t off = sz < 16 * MIB ? 12289 : 4096;
		struct doca_buf *src, *dst;
		size_t dlen = 1;

		drt_fill(r.local, sz, 0, 100 + (uint32_t)k);
		OK(doca_buf_inventory_buf_get_by_addr(f->inv, r.lm, r.local, sz ? sz : 1, &src));
		OK(doca_buf_set_data(src, r.local, sz));
		OK(doca_buf_inventory_buf_get_by_addr(f->inv, r.rm, r.raddr + off, sz ? sz : 1, &dst));
		OK(dma_run(f, src, dst));
		OK(doca_buf_get_data_len(dst, &dlen));
		assert_int_equal(dlen, sz);
		memcpy(mirror + off, r.local, sz);
		/* the exporter checks what landed in its memory */
		assert_int_equal(peer_sum(&r.p, off, sz), drt_sum(r.local, sz));
		bufs_put(src, dst);
	}
	rig_close(&r);
	assert_int_equal(peer_finish(&r.p), drt_sum(mirror, EXPORT_SIZE)); /* and nothing else changed */
	free(mirror);
}

/* An export whose size ends inside a page: its whole pages move onto shared
 * memory, the tail does not. Copies of the tail alone, of a range across
 * the edge, of a shared page and of everything come out right either way
 * (the copier is handed the shared pages' address only for a range wholly
 * inside them). */
static void unaligned_export_edges(void **state)
{
	static const struct {
		size_t off, len;
	} rd[] = {{3 * MIB, 5}, {3 * MIB - 10, 15}, {4096, 4096}, {0, 3 * MIB + 5}, {3 * MIB + 4, 1}};
	const size_t size = 3 * MIB + 5;
	struct fx *f = *state;
	struct doca_buf *src, *dst;
	struct rig r;
	uint8_t *want;
	size_t dlen;

	NEED_PEER(f);
	rig_open(f, &r, size, "rw", 13, 4 * MIB);
	want = xalloc(4 * MIB);
	for (size_t k = 0; k < sizeof(rd) / sizeof(rd[0]); k++) {
		memset(r.local, 0xee, 4 * MIB);
		bufs_get(f, r.rm, r.raddr + rd[k].off, rd[k].len, r.lm, r.local, rd[k].len, &src, &dst);
		OK(dma_run(f, src, dst));
		OK(doca_buf_get_data_len(dst, &dlen));
		assert_int_equal(dlen, rd[k].len);
		drt_fill(want, rd[k].len, rd[k].off, 13);
		assert_memory_equal(r.local, want, rd[k].len);
		assert_int_equal(r.local[rd[k].len], 0xee);
		bufs_put(src, dst);
	}
	/* a write of the tail lands there */
	drt_fill(r.local, 4, 0, 77);
	bufs_get(f, r.lm, r.local, 4, r.rm, r.raddr + 3 * MIB + 1, 4, &src, &dst);
	OK(dma_run(f, src, dst));
	assert_int_equal(peer_sum(&r.p, 3 * MIB + 1, 4), drt_sum(r.local, 4));
	bufs_put(src, dst);
	rig_close(&r);
	(void)peer_finish(&r.p);
	free(want);
}

/* Chains on either side, segments large enough for the engine thread. */
static void chains(void **state)
{
	struct fx *f = *state;
	const size_t seg[3] = {300000, 5, 700001};
	const size_t total = 300000 + 5 + 700001;
	struct rig r;
	struct doca_buf *src = NULL, *dst = NULL, *b;
	uint8_t *want;
	size_t off = 0, woff = 0, dlen;

	NEED_PEER(f);
	rig_open(f, &r, 4 * MIB, "rw", 11, 4 * MIB);
	want = xalloc(4 * MIB);
	memset(r.local, 0, 4 * MIB);

	/* remote chain (3 segments, gaps between them) -> one local buffer */
	for (int i = 0; i < 3; i++) {
		OK(doca_buf_inventory_buf_get_by_data(f->inv, r.rm, r.raddr + off, seg[i], &b));
		if (src == NULL)
			src = b;
		else
			OK(doca_buf_chain_list(src, b));
		drt_fill(want + woff, seg[i], off, 11);
		woff += seg[i];
		off += seg[i] + 1000;
	}
	OK(doca_buf_inventory_buf_get_by_addr(f->inv, r.lm, r.local, total, &dst));
	OK(dma_run(f, src, dst));
	OK(doca_buf_get_data_len(dst, &dlen));
	assert_int_equal(dlen, total);
	assert_memory_equal(r.local, want, total);
	bufs_put(src, dst);

	/* one local buffer -> remote chain of 3 (filled in order) */
	drt_fill(r.local, total, 0, 12);
	OK(doca_buf_inventory_buf_get_by_data(f->inv, r.lm, r.local, total, &src));
	dst = NULL;
	off = 2 * MIB;
	for (int i = 0; i < 3; i++) {
		OK(doca_buf_inventory_buf_get_by_addr(f->inv, r.rm, r.raddr + off, seg[i], &b));
		if (dst == NULL)
			dst = b;
		else
			OK(doca_buf_chain_list(dst, b));
		off += seg[i] + 1000;
	}
	OK(dma_run(f, src, dst));
	assert_int_equal(peer_sum(&r.p, 2 * MIB, seg[0]), drt_sum(r.local, seg[0]));
	assert_int_equal(peer_sum(&r.p, 2 * MIB + seg[0] + 1000, seg[1]), drt_sum(r.local + seg[0], seg[1]));
	assert_int_equal(peer_sum(&r.p, 2 * MIB + seg[0] + seg[1] + 2000, seg[2]),
			 drt_sum(r.local + seg[0] + seg[1], seg[2]));
	bufs_put(src, dst);
	rig_close(&r);
	(void)peer_finish(&r.p);
	free(want);
}

static void write_read_only_fails(void **state)
{
	struct fx *f = *state;
	struct rig r;
	struct doca_buf *src, *dst;
	uint8_t *want;

	NEED_PEER(f);
	rig_open(f, &r, 64 * 1024, "ro", 3, 64 * 1024);
	want = xalloc(64 * 1024);
	memset(r.local, 0x11, 64 * 1024);
	bufs_get(f, r.lm, r.local, 4096, r.rm, r.raddr, 4096, &src, &dst);
	assert_int_equal(dma_run(f, src, dst), DOCA_ERROR_INVALID_VALUE);
	bufs_put(src, dst);
	rig_close(&r);
	drt_fill(want, 64 * 1024, 0, 3);
	assert_int_equal(peer_finish(&r.p), drt_sum(want, 64 * 1024)); /* untouched */
	free(want);
}

static void out_of_range_fails(void **state)
{
	struct fx *f = *state;
	struct rig r;
	struct doca_buf *src, *dst, *b;
	uint8_t *want;
	size_t dlen;

	NEED_PEER(f);
	rig_open(f, &r, 64 * 1024, "rw", 5, 128 * 1024);
	want = xalloc(64 * 1024);
	memset(r.local, 0x22, 128 * 1024);
	/* the public API refuses a buffer outside the remote range */
	assert_int_not_equal(doca_buf_inventory_buf_get_by_addr(f->inv, r.rm, r.raddr + 60 * 1024, 8192, &b),
			     DOCA_SUCCESS);
	assert_int_not_equal(doca_buf_inventory_buf_get_by_addr(f->inv, r.rm, r.raddr - 4096, 4096, &b), DOCA_SUCCESS);

	/* white-box: a buffer pushed past the export fails the task, both ways */
	bufs_get(f, r.rm, r.raddr, 4096, r.lm, r.local, 128 * 1024, &src, &dst);
	src->addr += 62 * 1024;
	src->data += 62 * 1024;
	assert_int_equal(dma_run(f, src, dst), DOCA_ERROR_INVALID_VALUE);
	src->addr -= 62 * 1024;
	src->data -= 62 * 1024;
	OK(doca_buf_get_data_len(dst, &dlen));
	assert_int_equal(dlen, 0);
	for (size_t i = 0; i < 128 * 1024; i++)
		if (r.local[i] != 0x22)
			fail_msg("local byte %zu written", i);
	bufs_put(src, dst);

	bufs_get(f, r.lm, r.local, 8192, r.rm, r.raddr, 4096, &src, &dst);
	dst->addr += 60 * 1024 + 1;
	dst->data += 60 * 1024 + 1;
	dst->len = 8192;
	assert_int_equal(dma_run(f, src, dst), DOCA_ERROR_INVALID_VALUE);
	dst->addr -= 60 * 1024 + 1;
	dst->data -= 60 * 1024 + 1;
	dst->len = 4096;
	bufs_put(src, dst);
	rig_close(&r);
	drt_fill(want, 64 * 1024, 0, 5);
	assert_int_equal(peer_finish(&r.p), drt_sum(want, 64 * 1024));
	free(want);
}

static void both_remote_fails(void **state)
{
	struct fx *f = *state;
	struct peer p, q;
	struct doca_mmap *rp, *rq;
	struct doca_buf *src, *dst;
	uint8_t *ap, *aq, *want;
	size_t lp, lq;

	NEED_PEER(f);
	peer_start(&p, 8192, "rw", 1);
	peer_start(&q, 8192, "rw", 2);
	rp = import(f, &p, &ap, &lp);
	rq = import(f, &q, &aq, &lq);
	want = xalloc(8192);
	bufs_get(f, rp, ap, 4096, rq, aq, 4096, &src, &dst);
	assert_int_equal(dma_run(f, src, dst), DOCA_ERROR_INVALID_VALUE);
	bufs_put(src, dst);
	OK(doca_mmap_destroy(rp));
	OK(doca_mmap_destroy(rq));
	drt_fill(want, 8192, 0, 2);
	assert_int_equal(peer_finish(&q), drt_sum(want, 8192));
	drt_fill(want, 8192, 0, 1);
	assert_int_equal(peer_finish(&p), drt_sum(want, 8192));
	free(want);
}

/* The exporter is killed: reads and writes, small (in progress) and large
 * (engine thread), fail with a clear status and write nothing. */
static void dead_exporter_fails(void **state)
{
	struct fx *f = *state;
	const size_t szs[2] = {4096, 4 * MIB};
	struct rig r;

	NEED_PEER(f);
	rig_open(f, &r, 4 * MIB, "rw", 4, 4 * MIB);
	peer_kill(&r.p);
	for (int i = 0; i < 2; i++) {
		struct doca_buf *src, *dst;
		size_t dlen = 1;
		doca_error_t st;

		memset(r.local, 0x33, 4 * MIB);
		bufs_get(f, r.rm, r.raddr, szs[i], r.lm, r.local, szs[i], &src, &dst);
		st = dma_run(f, src, dst);
		assert_int_not_equal(st, DOCA_SUCCESS);
		assert_int_equal(st, DOCA_ERROR_CONNECTION_RESET);
		OK(doca_buf_get_data_len(dst, &dlen));
		assert_int_equal(dlen, 0);
		for (size_t k = 0; k < szs[i]; k++)
			if (r.local[k] != 0x33)
				fail_msg("local byte %zu written by a failed read", k);
		bufs_put(src, dst);

		bufs_get(f, r.lm, r.local, szs[i], r.rm, r.raddr, szs[i], &src, &dst);
		assert_int_equal(dma_run(f, src, dst), DOCA_ERROR_CONNECTION_RESET);
		OK(doca_buf_get_data_len(dst, &dlen));
		assert_int_equal(dlen, 0);
		bufs_put(src, dst);
	}
	rig_close(&r);
}

/* The exporter destroys its mmap: the export is revoked, DMA fails. */
static void revoked_export_fails(void **state)
{
	struct fx *f = *state;
	struct rig r;
	struct doca_buf *src, *dst;
	char rest[16];

	NEED_PEER(f);
	rig_open(f, &r, 8192, "rw", 6, 8192);
	memset(r.local, 0x44, 8192);
	assert_int_equal(write(r.p.io.in, "revoke\n", 7), 7);
	assert_true(peer_line(&r.p, "REVOKED", rest, sizeof(rest)));
	bufs_get(f, r.rm, r.raddr, 4096, r.lm, r.local, 4096, &src, &dst);
	assert_int_equal(dma_run(f, src, dst), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(r.local[0], 0x44);
	bufs_put(src, dst);
	rig_close(&r);
	(void)peer_finish(&r.p);
}

/* Stop with large remote copies queued on the engine thread: each task
 * completes (copied or flushed), the context reaches idle, nothing leaks. */
static void stop_with_remote_in_flight(void **state)
{
	struct fx *f = *state;
	enum { N = 8, SZ = 2 * MIB };
	struct doca_buf *src[N], *dst[N];
	struct rig r;
	uint8_t *want;
	uint64_t end = exu_now_ms() + 20000;
	enum doca_ctx_states st = DOCA_CTX_STATE_RUNNING;
	union doca_data ud = {0};
	doca_error_t err;

	NEED_PEER(f);
	rig_open(f, &r, N * SZ, "ro", 13, N * SZ);
	want = xalloc(SZ);
	memset(r.local, 0, N * SZ);
	for (int i = 0; i < N; i++) {
		struct doca_dma_task_memcpy *t;

		bufs_get(f, r.rm, r.raddr + (size_t)i * SZ, SZ, r.lm, r.local + (size_t)i * SZ, SZ, &src[i], &dst[i]);
		OK(doca_dma_task_memcpy_alloc_init(f->dma, src[i], dst[i], ud, &t));
		OK(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
	}
	/* the copies go to the engine thread; stop once the first is done */
	while (f->ok + f->err == 0) {
		if (doca_pe_progress(f->pe) == 0)
			usleep(50);
		assert_true(exu_now_ms() < end);
	}
	err = doca_ctx_stop(f->ctx);
	assert_true(err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS);
	while (doca_ctx_get_state(f->ctx, &st) == DOCA_SUCCESS && st != DOCA_CTX_STATE_IDLE) {
		doca_pe_progress(f->pe);
		assert_true(exu_now_ms() < end);
	}
	assert_int_equal(f->ok + f->err, N);
	assert_true(f->ok >= 1);
	assert_int_equal(f->err, f->flushed);
	/* a task reported done copied everything */
	for (int i = 0; i < N; i++) {
		size_t dlen;

		OK(doca_buf_get_data_len(dst[i], &dlen));
		assert_true(dlen == 0 || dlen == SZ);
		if (dlen == SZ) {
			drt_fill(want, SZ, (size_t)i * SZ, 13);
			assert_memory_equal(r.local + (size_t)i * SZ, want, SZ);
		}
		bufs_put(src[i], dst[i]);
	}
	rig_close(&r);
	(void)peer_finish(&r.p);
	free(want);
}

/* Descriptors that must not import: truncated, corrupted, forged with a
 * valid checksum, of an exporter that has exited. */
static void bad_descriptors_fail(void **state)
{
	struct fx *f = *state;
	struct peer p;
	struct doca_mmap *m = NULL;
	struct sd_remote_desc d;

	NEED_PEER(f);
	peer_start(&p, 8192, "rw", 8);
	assert_int_equal(doca_mmap_create_from_export(NULL, p.desc, p.desc_len - 1, f->dev, &m),
			 DOCA_ERROR_INVALID_VALUE);
	memcpy(&d, p.desc, sizeof(d));
	d.len ^= 1; /* corrupted: checksum no longer matches */
	assert_int_equal(doca_mmap_create_from_export(NULL, &d, sizeof(d), f->dev, &m), DOCA_ERROR_INVALID_VALUE);
	memcpy(&d, p.desc, sizeof(d));
	d.token[0] ^= 0xff; /* forged: consistent, but no such export */
	d.checksum = sd_remote_desc_checksum(&d);
	assert_int_equal(doca_mmap_create_from_export(NULL, &d, sizeof(d), f->dev, &m), DOCA_ERROR_INVALID_VALUE);
	memcpy(&d, p.desc, sizeof(d));
	d.len *= 2; /* forged: a larger range than exported */
	d.checksum = sd_remote_desc_checksum(&d);
	assert_int_equal(doca_mmap_create_from_export(NULL, &d, sizeof(d), f->dev, &m), DOCA_ERROR_INVALID_VALUE);
	assert_null(m);
	(void)peer_finish(&p);
	/* the exporter has exited */
	assert_int_not_equal(doca_mmap_create_from_export(NULL, p.desc, p.desc_len, f->dev, &m), DOCA_SUCCESS);
	assert_null(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(read_sizes, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(write_sizes, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(unaligned_export_edges, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(chains, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(write_read_only_fails, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(out_of_range_fails, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(both_remote_fails, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(dead_exporter_fails, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(revoked_export_fails, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(stop_with_remote_in_flight, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(bad_descriptors_fail, fx_setup, fx_teardown),
	};

	char fabric[] = "/tmp/sd-dma-remote-XXXXXX";
	bool own_fabric = false;
	int rc;

	signal(SIGPIPE, SIG_IGN);
	/* a private fabric directory, inherited by the exporters */
	if (getenv("SOFTDOCA_FABRIC") == NULL && mkdtemp(fabric) != NULL) {
		setenv("SOFTDOCA_FABRIC", fabric, 1);
		own_fabric = true;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	if (own_fabric)
		(void)rmdir(fabric);
	return rc;
}
