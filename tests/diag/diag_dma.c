/*
 * diag_dma.c - a DMA workload for the diagnostics tests: DEPTH memcpy tasks
 * kept in flight (each callback resubmits) until COUNT completed, then a stop.
 * With --fail the last submission is a task whose destination is too small:
 * it fails at execution and stops the context (the failed-task path of the
 * trace and of the transition log). Exit 0 when every copy was verified.
 *
 * usage: diag_dma [--fail] COUNT DEPTH
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#define SEG 256u
#define MAX_DEPTH 32u

struct run {
	struct doca_ctx *ctx;
	struct doca_buf *dst[MAX_DEPTH];
	uint8_t *src_mem, *dst_mem;
	unsigned int count, submitted, ok, err;
	bool stopping;
};

static void finish(struct run *r)
{
	if (!r->stopping && r->ok + r->err == r->submitted && r->submitted >= r->count) {
		r->stopping = true;
		(void)doca_ctx_stop(r->ctx);
	}
}

static void ok_cb(struct doca_dma_task_memcpy *task, union doca_data td, union doca_data cd)
{
	struct run *r = cd.ptr;
	unsigned int slot = (unsigned int)td.u64;
	struct doca_buf *dst = r->dst[slot];

	(void)task;
	r->ok++;
	if (memcmp(r->src_mem + slot * SEG, r->dst_mem + slot * SEG, SEG) != 0) {
		fprintf(stderr, "diag_dma: slot %u: copy differs\n", slot);
		exit(2);
	}
	doca_buf_reset_data_len(dst);
	if (r->submitted < r->count && !r->stopping) {
		r->submitted++;
		/* refused once a failed task stopped the context */
		if (doca_task_submit(doca_dma_task_memcpy_as_task(task)) == DOCA_SUCCESS)
			return;
		r->submitted--;
	}
	doca_task_free(doca_dma_task_memcpy_as_task(task));
	finish(r);
}

static void err_cb(struct doca_dma_task_memcpy *task, union doca_data td, union doca_data cd)
{
	struct run *r = cd.ptr;

	(void)td;
	r->err++;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
	finish(r);
}

static void check(doca_error_t rc, const char *what)
{
	if (rc != DOCA_SUCCESS) {
		fprintf(stderr, "diag_dma: %s: %s\n", what, doca_error_get_name(rc));
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	struct doca_mmap *ms, *md;
	struct doca_buf_inventory *inv;
	struct doca_buf *src[MAX_DEPTH + 1], *small_dst = NULL;
	struct doca_dma *dma;
	struct doca_pe *pe;
	struct run r = {0};
	enum doca_ctx_states st;
	unsigned int depth, i, n;
	bool fail = false;
	union doca_data d;
	time_t deadline;

	if (argc > 1 && strcmp(argv[1], "--fail") == 0) {
		fail = true;
		argv++;
		argc--;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: diag_dma [--fail] COUNT DEPTH\n");
		return 2;
	}
	r.count = (unsigned int)strtoul(argv[1], NULL, 10);
	depth = (unsigned int)strtoul(argv[2], NULL, 10);
	if (depth == 0 || depth > MAX_DEPTH || r.count < depth) {
		fprintf(stderr, "diag_dma: need 1 <= DEPTH <= %u and COUNT >= DEPTH\n", MAX_DEPTH);
		return 2;
	}
	check(doca_devinfo_create_list(&list, &n), "devinfo list");
	for (i = 0; i < n && dev == NULL; i++)
		if (doca_dma_cap_task_memcpy_is_supported(list[i]) != DOCA_SUCCESS ||
		    doca_dev_open(list[i], &dev) != DOCA_SUCCESS)
			dev = NULL;
	doca_devinfo_destroy_list(list);
	if (dev == NULL) {
		fprintf(stderr, "diag_dma: no DMA device\n");
		return 2;
	}
	r.src_mem = malloc(SEG * (MAX_DEPTH + 1));
	r.dst_mem = calloc(1, SEG * (MAX_DEPTH + 1));
	if (r.src_mem == NULL || r.dst_mem == NULL)
		return 2;
	for (i = 0; i < SEG * (MAX_DEPTH + 1); i++)
		r.src_mem[i] = (uint8_t)(i * 7 + 3);
	check(doca_mmap_create(&ms), "mmap");
	check(doca_mmap_set_memrange(ms, r.src_mem, SEG * (MAX_DEPTH + 1)), "memrange");
	check(doca_mmap_add_dev(ms, dev), "add dev");
	check(doca_mmap_start(ms), "mmap start");
	check(doca_mmap_create(&md), "mmap");
	check(doca_mmap_set_memrange(md, r.dst_mem, SEG * (MAX_DEPTH + 1)), "memrange");
	check(doca_mmap_set_permissions(md, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE), "permissions");
	check(doca_mmap_add_dev(md, dev), "add dev");
	check(doca_mmap_start(md), "mmap start");
	check(doca_buf_inventory_create(2 * (MAX_DEPTH + 1), &inv), "inventory");
	check(doca_buf_inventory_start(inv), "inventory start");
	for (i = 0; i <= depth; i++)
		check(doca_buf_inventory_buf_get_by_data(inv, ms, r.src_mem + i * SEG, SEG, &src[i]), "src buf");
	for (i = 0; i < depth; i++)
		check(doca_buf_inventory_buf_get_by_addr(inv, md, r.dst_mem + i * SEG, SEG, &r.dst[i]), "dst buf");
	if (fail)
		check(doca_buf_inventory_buf_get_by_addr(inv, md, r.dst_mem + depth * SEG, SEG / 2, &small_dst),
		      "small dst buf");

	check(doca_pe_create(&pe), "pe create");
	check(doca_dma_create(dev, &dma), "dma create");
	r.ctx = doca_dma_as_ctx(dma);
	check(doca_dma_task_memcpy_set_conf(dma, ok_cb, err_cb, depth + 1), "set conf");
	check(doca_pe_connect_ctx(pe, r.ctx), "connect");
	d.ptr = &r;
	check(doca_ctx_set_user_data(r.ctx, d), "user data");
	check(doca_ctx_start(r.ctx), "start");
	for (i = 0; i < depth; i++) {
		struct doca_dma_task_memcpy *t;

		d.u64 = i;
		check(doca_dma_task_memcpy_alloc_init(dma, src[i], r.dst[i], d, &t), "alloc");
		r.submitted++;
		check(doca_task_submit(doca_dma_task_memcpy_as_task(t)), "submit");
	}
	if (fail) {
		struct doca_dma_task_memcpy *t;

		d.u64 = depth;
		check(doca_dma_task_memcpy_alloc_init(dma, src[depth], small_dst, d, &t), "alloc");
		r.submitted++;
		r.count++;
		check(doca_task_submit(doca_dma_task_memcpy_as_task(t)), "submit");
	}
	deadline = time(NULL) + 20;
	do {
		(void)doca_pe_progress(pe);
		check(doca_ctx_get_state(r.ctx, &st), "state");
		if (time(NULL) > deadline) {
			fprintf(stderr, "diag_dma: timed out\n");
			return 2;
		}
	} while (st != DOCA_CTX_STATE_IDLE);

	check(doca_dma_destroy(dma), "dma destroy");
	check(doca_pe_destroy(pe), "pe destroy");
	for (i = 0; i <= depth; i++)
		doca_buf_dec_refcount(src[i], NULL);
	for (i = 0; i < depth; i++)
		doca_buf_dec_refcount(r.dst[i], NULL);
	if (small_dst != NULL)
		doca_buf_dec_refcount(small_dst, NULL);
	doca_buf_inventory_destroy(inv);
	doca_mmap_destroy(ms);
	doca_mmap_destroy(md);
	doca_dev_close(dev);
	free(r.src_mem);
	free(r.dst_mem);
	printf("diag_dma: %u ok, %u failed\n", r.ok, r.err);
	return fail ? (r.err >= 1 ? 0 : 1) : (r.err == 0 && r.ok == r.count ? 0 : 1);
}
