/*
 * rm_importer.c - the importing side of the ucx_netns remote DMA cases where
 * the Arm side exports (tests/dma/dma_exporter of the dpu build) and a host
 * program imports: public DOCA API only, as a user's program would.
 *
 *   rm_importer HEXDESC read LEN SEED    DMA [0, LEN) of the export here and
 *                                        check it holds dma_exporter's
 *                                        pattern of SEED: "READ ok SUM <hex>"
 *   rm_importer HEXDESC write LEN SEED   fill LEN bytes with the pattern of
 *                                        SEED, DMA them to the export's start:
 *                                        "WROTE SUM <hex>"
 *
 * A failure prints "FAIL <step> <DOCA error name>" and exits 1 (2: usage).
 * Copies are cut to the device's maximum DMA buffer size.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "../common/export_util.h"
#include "../dma/dma_remote_util.h"

static int done;
static doca_error_t status;

static void ok_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	(void)tud, (void)cud;
	done = 1;
	status = DOCA_SUCCESS;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static void err_cb(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	(void)tud, (void)cud;
	done = 1;
	status = doca_task_get_status(doca_dma_task_memcpy_as_task(task));
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static int fail(const char *step, doca_error_t err)
{
	printf("FAIL %s %s\n", step, doca_error_get_name(err));
	fflush(stdout);
	return 1;
}

int main(int argc, char **argv)
{
	static uint8_t desc[1024];
	struct doca_mmap *rm = NULL, *lm = NULL;
	struct doca_buf_inventory *inv = NULL;
	struct doca_dma_task_memcpy *t;
	struct doca_buf *src, *dst;
	struct doca_dma *dma = NULL;
	struct doca_pe *pe = NULL;
	struct doca_dev *dev;
	union doca_data ud = {0};
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;
	uint32_t seed;
	uint64_t max = 0;
	size_t desc_len, len, off, n, rlen;
	uint8_t *local, *raddr;
	doca_error_t err;
	bool write;
	int rc = 0;
	void *a;

	alarm(60);
	if (argc != 5 || (strcmp(argv[2], "read") != 0 && strcmp(argv[2], "write") != 0)) {
		fprintf(stderr, "usage: rm_importer HEXDESC read|write LEN SEED\n");
		return 2;
	}
	desc_len = exu_from_hex(argv[1], desc, sizeof(desc));
	write = strcmp(argv[2], "write") == 0;
	len = strtoull(argv[3], NULL, 0);
	seed = (uint32_t)strtoul(argv[4], NULL, 0);
	if (len == 0 || (local = malloc(len)) == NULL)
		return 2;
	dev = exu_open_first();
	if (dev == NULL) {
		free(local);
		return 2;
	}
	if (write)
		drt_fill(local, len, 0, seed);
	err = doca_mmap_create_from_export(NULL, desc, desc_len, dev, &rm);
	if (err != DOCA_SUCCESS) {
		rm = NULL;
		rc = fail("import", err);
		goto out;
	}
	if (doca_mmap_get_memrange(rm, &a, &rlen) != DOCA_SUCCESS || rlen < len) {
		rc = fail("range", DOCA_ERROR_INVALID_VALUE);
		goto out;
	}
	raddr = a;
	if (doca_mmap_create(&lm) != DOCA_SUCCESS || doca_mmap_set_memrange(lm, local, len) != DOCA_SUCCESS ||
	    doca_mmap_set_permissions(lm, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE) != DOCA_SUCCESS ||
	    doca_mmap_add_dev(lm, dev) != DOCA_SUCCESS || doca_mmap_start(lm) != DOCA_SUCCESS ||
	    doca_pe_create(&pe) != DOCA_SUCCESS || doca_dma_create(dev, &dma) != DOCA_SUCCESS ||
	    doca_dma_task_memcpy_set_conf(dma, ok_cb, err_cb, 4) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma)) != DOCA_SUCCESS ||
	    doca_ctx_start(doca_dma_as_ctx(dma)) != DOCA_SUCCESS || doca_buf_inventory_create(8, &inv) != DOCA_SUCCESS ||
	    doca_buf_inventory_start(inv) != DOCA_SUCCESS ||
	    doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(dev), &max) != DOCA_SUCCESS || max == 0) {
		rc = fail("setup", DOCA_ERROR_DRIVER);
		goto out;
	}
	for (off = 0; off < len && rc == 0; off += n) {
		n = len - off < max ? len - off : max;
		err = doca_buf_inventory_buf_get_by_data(inv, write ? lm : rm, (write ? local : raddr) + off, n, &src);
		if (err != DOCA_SUCCESS) {
			rc = fail("buffers", err);
			break;
		}
		err = doca_buf_inventory_buf_get_by_addr(inv, write ? rm : lm, (write ? raddr : local) + off, n, &dst);
		if (err != DOCA_SUCCESS) {
			(void)doca_buf_dec_refcount(src, NULL);
			rc = fail("buffers", err);
			break;
		}
		done = 0;
		err = doca_dma_task_memcpy_alloc_init(dma, src, dst, ud, &t);
		if (err == DOCA_SUCCESS) {
			err = doca_task_submit(doca_dma_task_memcpy_as_task(t));
			if (err != DOCA_SUCCESS)
				doca_task_free(doca_dma_task_memcpy_as_task(t));
		}
		if (err != DOCA_SUCCESS) {
			rc = fail("submit", err);
		} else {
			while (!done)
				if (doca_pe_progress(pe) == 0)
					usleep(20);
			if (status != DOCA_SUCCESS)
				rc = fail("dma", status);
		}
		(void)doca_buf_dec_refcount(src, NULL);
		(void)doca_buf_dec_refcount(dst, NULL);
	}
	if (rc == 0 && write) {
		printf("WROTE SUM %016" PRIx64 "\n", drt_sum(local, len));
	} else if (rc == 0) {
		uint8_t *want = malloc(len);

		if (want != NULL)
			drt_fill(want, len, 0, seed);
		printf("READ %s SUM %016" PRIx64 "\n", want != NULL && memcmp(want, local, len) == 0 ? "ok" : "mismatch",
		       drt_sum(local, len));
		free(want);
	}
	fflush(stdout);
out:
	/* a failed task stops the context by itself: wait for IDLE */
	if (dma != NULL) {
		(void)doca_ctx_stop(doca_dma_as_ctx(dma));
		for (off = 0; off < 100000; off++) {
			if (doca_ctx_get_state(doca_dma_as_ctx(dma), &st) != DOCA_SUCCESS || st == DOCA_CTX_STATE_IDLE)
				break;
			if (doca_pe_progress(pe) == 0)
				usleep(50);
		}
		(void)doca_dma_destroy(dma);
	}
	if (inv != NULL) {
		(void)doca_buf_inventory_stop(inv);
		(void)doca_buf_inventory_destroy(inv);
	}
	if (pe != NULL)
		(void)doca_pe_destroy(pe);
	if (lm != NULL)
		(void)doca_mmap_destroy(lm);
	if (rm != NULL)
		(void)doca_mmap_destroy(rm);
	(void)doca_dev_close(dev);
	free(local);
	return rc;
}
