/*
 * soak_dma - DMA memcpy tasks for SECONDS with every byte checked: DEPTH
 * tasks in flight, each copying a slot whose source is refilled with a new
 * pattern before every resubmission; the destination is cleared first, so a
 * missed or stale copy is an error. Prints one line:
 *   "dma: tasks N bytes B errors E seconds S"
 * and exits non-zero if any task failed or any copy was wrong.
 *
 * usage: soak_dma SECONDS [SIZE] [DEPTH]
 */
#include <stdbool.h>
#include <stdint.h>
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

#define MAX_DEPTH 256

static struct {
	size_t size;
	uint32_t depth;
	uint8_t *src, *dst;
	uint64_t gen[MAX_DEPTH];
	struct doca_buf *bsrc[MAX_DEPTH], *bdst[MAX_DEPTH];
	uint64_t tasks, bytes, errors;
	bool stopping;
	uint32_t inflight;
} S;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void fill(uint32_t slot)
{
	uint64_t g = ++S.gen[slot];
	uint8_t *p = S.src + slot * S.size;
	uint64_t x = g * 0x9e3779b97f4a7c15ull + slot;

	for (size_t i = 0; i < S.size; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, S.size - i < 8 ? S.size - i : 8);
	}
	memset(S.dst + slot * S.size, 0, S.size);
}

static void submit(struct doca_dma_task_memcpy *t, uint32_t slot)
{
	fill(slot);
	doca_buf_reset_data_len(S.bdst[slot]);
	if (doca_task_submit(doca_dma_task_memcpy_as_task(t)) != DOCA_SUCCESS) {
		S.errors++;
		S.inflight--;
		doca_task_free(doca_dma_task_memcpy_as_task(t));
	}
}

static void ok_cb(struct doca_dma_task_memcpy *t, union doca_data tu, union doca_data cu)
{
	uint32_t slot = (uint32_t)tu.u64;
	size_t len = 0;

	(void)cu;
	doca_buf_get_data_len(S.bdst[slot], &len);
	if (len != S.size || memcmp(S.src + slot * S.size, S.dst + slot * S.size, S.size) != 0) {
		if (S.errors < 5)
			fprintf(stderr, "soak_dma: slot %u copy %llu wrong\n", slot, (unsigned long long)S.gen[slot]);
		S.errors++;
	}
	S.tasks++;
	S.bytes += S.size;
	if (S.stopping) {
		S.inflight--;
		doca_task_free(doca_dma_task_memcpy_as_task(t));
		return;
	}
	submit(t, slot);
}

static void err_cb(struct doca_dma_task_memcpy *t, union doca_data tu, union doca_data cu)
{
	(void)tu;
	(void)cu;
	S.errors++;
	S.inflight--;
	doca_task_free(doca_dma_task_memcpy_as_task(t));
}

#define CHECK(x)                                                                                         \
	do {                                                                                             \
		doca_error_t e_ = (x);                                                                   \
		if (e_ != DOCA_SUCCESS) {                                                                \
			fprintf(stderr, "soak_dma: %s: %s\n", #x, doca_error_get_name(e_));              \
			return 1;                                                                        \
		}                                                                                        \
	} while (0)

int main(int argc, char **argv)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_mmap *ms, *md;
	struct doca_buf_inventory *inv;
	double secs, t0, end;
	uint32_t n;

	if (argc < 2)
		return 2;
	secs = atof(argv[1]);
	S.size = argc > 2 ? (size_t)atol(argv[2]) : 4096;
	S.depth = argc > 3 ? (uint32_t)atoi(argv[3]) : 64;
	if (S.size == 0 || S.depth == 0 || S.depth > MAX_DEPTH)
		return 2;
	CHECK(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS)
			CHECK(doca_dev_open(list[i], &dev));
	doca_devinfo_destroy_list(list);
	if (dev == NULL) {
		fprintf(stderr, "soak_dma: no DMA device\n");
		return 1;
	}
	S.src = aligned_alloc(64, (S.size * S.depth + 63) & ~(size_t)63);
	S.dst = aligned_alloc(64, (S.size * S.depth + 63) & ~(size_t)63);
	if (S.src == NULL || S.dst == NULL)
		return 1;
	CHECK(doca_pe_create(&pe));
	CHECK(doca_dma_create(dev, &dma));
	CHECK(doca_dma_task_memcpy_set_conf(dma, ok_cb, err_cb, S.depth));
	CHECK(doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma)));
	CHECK(doca_ctx_start(doca_dma_as_ctx(dma)));
	CHECK(doca_mmap_create(&ms));
	CHECK(doca_mmap_set_memrange(ms, S.src, S.size * S.depth));
	CHECK(doca_mmap_set_permissions(ms, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	CHECK(doca_mmap_add_dev(ms, dev));
	CHECK(doca_mmap_start(ms));
	CHECK(doca_mmap_create(&md));
	CHECK(doca_mmap_set_memrange(md, S.dst, S.size * S.depth));
	CHECK(doca_mmap_set_permissions(md, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	CHECK(doca_mmap_add_dev(md, dev));
	CHECK(doca_mmap_start(md));
	CHECK(doca_buf_inventory_create(2 * S.depth, &inv));
	CHECK(doca_buf_inventory_start(inv));
	for (uint32_t i = 0; i < S.depth; i++) {
		struct doca_dma_task_memcpy *t;

		CHECK(doca_buf_inventory_buf_get_by_data(inv, ms, S.src + i * S.size, S.size, &S.bsrc[i]));
		CHECK(doca_buf_inventory_buf_get_by_addr(inv, md, S.dst + i * S.size, S.size, &S.bdst[i]));
		CHECK(doca_dma_task_memcpy_alloc_init(dma, S.bsrc[i], S.bdst[i], (union doca_data){.u64 = i}, &t));
		S.inflight++;
		submit(t, i);
	}
	t0 = now();
	end = t0 + secs;
	for (uint64_t it = 0; S.inflight > 0; it++) {
		if (!S.stopping && (it & 255) == 0 && now() >= end)
			S.stopping = true;
		doca_pe_progress(pe);
	}
	printf("dma: tasks %llu bytes %llu errors %llu seconds %.1f\n", (unsigned long long)S.tasks,
	       (unsigned long long)S.bytes, (unsigned long long)S.errors, now() - t0);
	fflush(stdout);
	for (uint32_t i = 0; i < S.depth; i++) {
		doca_buf_dec_refcount(S.bsrc[i], NULL);
		doca_buf_dec_refcount(S.bdst[i], NULL);
	}
	CHECK(doca_ctx_stop(doca_dma_as_ctx(dma)));
	CHECK(doca_dma_destroy(dma));
	CHECK(doca_buf_inventory_stop(inv));
	CHECK(doca_buf_inventory_destroy(inv));
	CHECK(doca_mmap_stop(ms));
	CHECK(doca_mmap_destroy(ms));
	CHECK(doca_mmap_stop(md));
	CHECK(doca_mmap_destroy(md));
	CHECK(doca_pe_destroy(pe));
	CHECK(doca_dev_close(dev));
	free(S.src);
	free(S.dst);
	return S.errors == 0 ? 0 : 1;
}
