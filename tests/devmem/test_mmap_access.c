/*
 * test_mmap_access.c - the mmap access flags as DOCA documents them, as a
 * table of flag x operation, proven with DMA tasks (public API only):
 *
 *   flag               set  export_pci     DMA reads   DMA writes  peer reads  peer writes
 *                                          (local)     (local)     (over PCIe, via an export)
 *   LOCAL_READ_ONLY    ok   NOT_PERMITTED  yes         no          -           -
 *   LOCAL_READ_WRITE   ok   NOT_PERMITTED  yes         yes         -           -
 *   PCI_READ_ONLY      ok   ok             yes         no          yes         no
 *   PCI_READ_WRITE     ok   ok             yes         yes         yes         yes
 *   RDMA_READ          ok   NOT_PERMITTED  yes         no          -           -
 *   RDMA_WRITE         ok   NOT_PERMITTED  yes         yes         -           -
 *   RDMA_ATOMIC        ok   NOT_PERMITTED  yes         yes         -           -
 *   RELAXED_ORDERING   ok   NOT_PERMITTED  yes         no          -           -
 *   PCI_RO | PCI_RW    INVALID_VALUE (mutually exclusive), as is any unknown bit
 *
 * A refused DMA is either refused at submit or completes through the error
 * callback; either way the destination is left untouched. Each case runs
 * on a DMA context of its own, since a failed task may stop its context.
 * The PCIe columns run against export_peer from the other flavor's build
 * (skipped without -Dpeer_build).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "../common/export_util.h"

#define OK(x) assert_int_equal((x), DOCA_SUCCESS)
#define ERR(x, e) assert_int_equal((x), (e))

#define F_LRO DOCA_ACCESS_FLAG_LOCAL_READ_ONLY
#define F_LRW DOCA_ACCESS_FLAG_LOCAL_READ_WRITE
#define F_PRO DOCA_ACCESS_FLAG_PCI_READ_ONLY
#define F_PRW DOCA_ACCESS_FLAG_PCI_READ_WRITE
#define F_RR DOCA_ACCESS_FLAG_RDMA_READ
#define F_RW DOCA_ACCESS_FLAG_RDMA_WRITE
#define F_RA DOCA_ACCESS_FLAG_RDMA_ATOMIC
#define F_RO DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING

struct row {
	const char *name;
	uint32_t flags;
	bool exportable;
	bool local_write;
};

static const struct row table[] = {
	{"LOCAL_READ_ONLY", F_LRO, false, false},
	{"LOCAL_READ_WRITE", F_LRW, false, true},
	{"PCI_READ_ONLY", F_PRO, true, false},
	{"PCI_READ_WRITE", F_PRW, true, true},
	{"RDMA_READ", F_RR, false, false},
	{"RDMA_WRITE", F_RW, false, true},
	{"RDMA_ATOMIC", F_RA, false, true},
	{"PCI_RELAXED_ORDERING", F_RO, false, false},
	{"PCI_READ_ONLY|RELAXED", F_PRO | F_RO, true, false},
	{"PCI_READ_WRITE|RELAXED", F_PRW | F_RO, true, true},
	{"LOCAL_READ_WRITE|PCI_READ_ONLY", F_LRW | F_PRO, true, true},
	{"RDMA_READ|PCI_READ_ONLY", F_RR | F_PRO, true, false},
};
#define NROWS (sizeof(table) / sizeof(table[0]))

static struct doca_dev *open_dma_dev(void)
{
	struct doca_devinfo **list = NULL;
	struct doca_dev *dev = NULL;
	uint32_t n = 0;

	OK(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS &&
		    doca_dev_open(list[i], &dev) != DOCA_SUCCESS)
			dev = NULL;
	OK(doca_devinfo_destroy_list(list));
	assert_non_null(dev);
	return dev;
}

static struct doca_mmap *mk_mmap(struct doca_dev *dev, void *addr, size_t len, uint32_t flags)
{
	struct doca_mmap *m;

	OK(doca_mmap_create(&m));
	OK(doca_mmap_set_memrange(m, addr, len));
	OK(doca_mmap_set_permissions(m, flags));
	OK(doca_mmap_add_dev(m, dev));
	OK(doca_mmap_start(m));
	return m;
}

/* ---------------- doca_mmap_set_permissions and export ---------------- */

static void set_permissions_bad_args(void **s)
{
	struct doca_mmap *m;
	char mem[64];

	(void)s;
	ERR(doca_mmap_set_permissions(NULL, F_LRW), DOCA_ERROR_INVALID_VALUE);
	OK(doca_mmap_create(&m));
	ERR(doca_mmap_set_permissions(m, 1u << 7), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_set_permissions(m, 1u << 31), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_set_permissions(m, F_PRO | F_PRW), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_set_permissions(m, F_LRW | F_PRO | F_PRW | F_RO), DOCA_ERROR_INVALID_VALUE);
	for (size_t i = 0; i < NROWS; i++)
		OK(doca_mmap_set_permissions(m, table[i].flags));
	OK(doca_mmap_set_permissions(m, F_LRW | F_RR | F_RW | F_RA | F_PRW | F_RO)); /* every bit but PCI_RO */
	OK(doca_mmap_set_memrange(m, mem, sizeof(mem)));
	OK(doca_mmap_start(m));
	ERR(doca_mmap_set_permissions(m, F_LRW), DOCA_ERROR_BAD_STATE);
	ERR(doca_mmap_set_permissions(m, F_PRO | F_PRW), DOCA_ERROR_BAD_STATE); /* state is checked first */
	OK(doca_mmap_stop(m));
	OK(doca_mmap_set_permissions(m, F_LRO));
	OK(doca_mmap_destroy(m));
}

static void export_per_flag(void **s)
{
	struct doca_dev *dev = open_dma_dev();
	static uint8_t mem[256];

	(void)s;
	for (size_t i = 0; i < NROWS; i++) {
		struct doca_mmap *m = mk_mmap(dev, mem, sizeof(mem), table[i].flags);
		const void *desc = NULL;
		size_t len = 0;

		print_message("export %-32s\n", table[i].name);
		ERR(doca_mmap_export_pci(m, dev, &desc, &len),
		    table[i].exportable ? DOCA_SUCCESS : DOCA_ERROR_NOT_PERMITTED);
		if (table[i].exportable)
			assert_true(desc != NULL && len > 0);
		OK(doca_mmap_destroy(m));
	}
	OK(doca_dev_close(dev));
}

/* The documented answers of start/stop/export around exports and dmabuf. */
static void documented_returns(void **s)
{
	struct doca_dev *dev = open_dma_dev();
	static uint8_t mem[256];
	struct doca_mmap *m, *m2;
	const void *desc;
	size_t len;
	uint8_t exported;

	(void)s;
	OK(doca_dev_close(NULL)); /* a no-op: NVIDIA's cleanup closes an already cleared device */

	m = mk_mmap(dev, mem, sizeof(mem), F_PRW);
	OK(doca_mmap_export_pci(m, dev, &desc, &len));
	ERR(doca_mmap_start(m), DOCA_ERROR_NOT_PERMITTED); /* exported */
	ERR(doca_mmap_export_rdma(m, dev, &desc, &len), DOCA_ERROR_NOT_PERMITTED); /* no RDMA flag */
	/* stop destroys the export descriptors: the mmap is no longer exported */
	OK(doca_mmap_stop(m));
	OK(doca_mmap_get_exported(m, &exported));
	assert_int_equal(exported, 0);
	ERR(doca_mmap_export_pci(m, dev, &desc, &len), DOCA_ERROR_NOT_PERMITTED); /* not started */
	OK(doca_mmap_start(m));
	OK(doca_mmap_export_pci(m, dev, &desc, &len));
	OK(doca_mmap_destroy(m));

	m = mk_mmap(dev, mem, sizeof(mem), F_LRW | F_RR);
	ERR(doca_mmap_export_rdma(m, NULL, &desc, &len), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_export_rdma(m, dev, &desc, &len), DOCA_ERROR_NOT_SUPPORTED); /* no RDMA emulated */
	OK(doca_mmap_stop(m));
	ERR(doca_mmap_export_rdma(m, dev, &desc, &len), DOCA_ERROR_NOT_PERMITTED); /* not started */
	OK(doca_mmap_destroy(m));

	/* an mmap that is not added to the device */
	OK(doca_mmap_create(&m2));
	OK(doca_mmap_set_memrange(m2, mem, sizeof(mem)));
	OK(doca_mmap_set_permissions(m2, F_RR));
	OK(doca_mmap_start(m2));
	ERR(doca_mmap_export_rdma(m2, dev, &desc, &len), DOCA_ERROR_NOT_FOUND);
	ERR(doca_mmap_export_pci(m2, dev, &desc, &len), DOCA_ERROR_NOT_FOUND);
	OK(doca_mmap_destroy(m2));

	/* dmabuf: the range checks first, then no dmabuf emulated */
	OK(doca_mmap_create(&m2));
	ERR(doca_mmap_set_dmabuf_memrange(NULL, 3, mem, 0, 16), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_set_dmabuf_memrange(m2, -1, mem, 0, 16), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_set_dmabuf_memrange(m2, 3, NULL, 0, 16), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_set_dmabuf_memrange(m2, 3, mem, 0, 0), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_set_dmabuf_memrange(m2, 3, (void *)(UINTPTR_MAX - 4), 0, 16), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_set_dmabuf_memrange(m2, 3, mem, 0, 16), DOCA_ERROR_NOT_SUPPORTED);
	OK(doca_mmap_set_memrange(m2, mem, sizeof(mem)));
	ERR(doca_mmap_set_dmabuf_memrange(m2, 3, mem, 0, 16), DOCA_ERROR_NOT_PERMITTED); /* range already set */
	OK(doca_mmap_start(m2));
	ERR(doca_mmap_set_dmabuf_memrange(m2, 3, mem, 0, 16), DOCA_ERROR_BAD_STATE);
	OK(doca_mmap_destroy(m2));
	OK(doca_dev_close(dev));
}

/* ---------------- DMA, one context per case ---------------- */

struct dma_fx {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	struct doca_buf_inventory *inv;
	int done;
	doca_error_t status;
};

static void ok_cb(struct doca_dma_task_memcpy *t, union doca_data tud, union doca_data cud)
{
	struct dma_fx *f = cud.ptr;

	(void)tud;
	f->status = DOCA_SUCCESS;
	f->done++;
	doca_task_free(doca_dma_task_memcpy_as_task(t));
}

static void err_cb(struct doca_dma_task_memcpy *t, union doca_data tud, union doca_data cud)
{
	struct dma_fx *f = cud.ptr;

	(void)tud;
	f->status = doca_task_get_status(doca_dma_task_memcpy_as_task(t));
	if (f->status == DOCA_SUCCESS)
		f->status = DOCA_ERROR_UNKNOWN; /* an error callback must carry an error */
	f->done++;
	doca_task_free(doca_dma_task_memcpy_as_task(t));
}

static void fx_open(struct dma_fx *f, struct doca_dev *dev)
{
	union doca_data ud = {.ptr = f};

	memset(f, 0, sizeof(*f));
	f->dev = dev;
	OK(doca_pe_create(&f->pe));
	OK(doca_dma_create(dev, &f->dma));
	f->ctx = doca_dma_as_ctx(f->dma);
	OK(doca_dma_task_memcpy_set_conf(f->dma, ok_cb, err_cb, 4));
	OK(doca_ctx_set_user_data(f->ctx, ud));
	OK(doca_pe_connect_ctx(f->pe, f->ctx));
	OK(doca_ctx_start(f->ctx));
	OK(doca_buf_inventory_create(4, &f->inv));
	OK(doca_buf_inventory_start(f->inv));
}

static void fx_wait_idle(struct dma_fx *f)
{
	enum doca_ctx_states st;
	time_t deadline = time(NULL) + 30;
	doca_error_t err;

	OK(doca_ctx_get_state(f->ctx, &st));
	if (st == DOCA_CTX_STATE_RUNNING) {
		err = doca_ctx_stop(f->ctx);
		assert_true(err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS);
	}
	for (;;) {
		OK(doca_ctx_get_state(f->ctx, &st));
		if (st == DOCA_CTX_STATE_IDLE)
			break;
		(void)doca_pe_progress(f->pe);
		assert_true(time(NULL) < deadline);
	}
}

static void fx_close(struct dma_fx *f)
{
	fx_wait_idle(f);
	OK(doca_dma_destroy(f->dma));
	OK(doca_pe_destroy(f->pe));
	OK(doca_buf_inventory_stop(f->inv));
	OK(doca_buf_inventory_destroy(f->inv));
}

/* One copy of len bytes; DOCA_SUCCESS or the error it was refused with. */
static doca_error_t fx_copy(struct dma_fx *f, struct doca_mmap *ms, void *src, struct doca_mmap *md, void *dst,
			    size_t len)
{
	struct doca_dma_task_memcpy *t;
	struct doca_buf *bs, *bd;
	union doca_data ud = {.u64 = 0};
	time_t deadline = time(NULL) + 30;
	doca_error_t err;

	OK(doca_buf_inventory_buf_get_by_data(f->inv, ms, src, len, &bs));
	OK(doca_buf_inventory_buf_get_by_addr(f->inv, md, dst, len, &bd));
	OK(doca_dma_task_memcpy_alloc_init(f->dma, bs, bd, ud, &t));
	err = doca_task_submit(doca_dma_task_memcpy_as_task(t));
	if (err != DOCA_SUCCESS) {
		doca_task_free(doca_dma_task_memcpy_as_task(t));
	} else {
		while (f->done == 0) {
			(void)doca_pe_progress(f->pe);
			assert_true(time(NULL) < deadline);
		}
		err = f->status;
	}
	fx_wait_idle(f);
	OK(doca_buf_dec_refcount(bs, NULL));
	OK(doca_buf_dec_refcount(bd, NULL));
	return err;
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

/* Every flag as the source of a copy: a local device always reads. */
static void dma_source_per_flag(void **s)
{
	struct doca_dev *dev = open_dma_dev();
	uint8_t src[512], dst[512], want[512];

	(void)s;
	for (size_t i = 0; i < NROWS; i++) {
		struct dma_fx f;
		struct doca_mmap *ms, *md;

		print_message("DMA source %-32s\n", table[i].name);
		fill(src, sizeof(src), (uint8_t)i);
		memcpy(want, src, sizeof(want));
		memset(dst, 0, sizeof(dst));
		ms = mk_mmap(dev, src, sizeof(src), table[i].flags);
		md = mk_mmap(dev, dst, sizeof(dst), F_LRW);
		fx_open(&f, dev);
		OK(fx_copy(&f, ms, src, md, dst, sizeof(src)));
		assert_memory_equal(dst, want, sizeof(dst));
		fx_close(&f);
		OK(doca_mmap_destroy(ms));
		OK(doca_mmap_destroy(md));
	}
	OK(doca_dev_close(dev));
}

/* Every flag as the destination: written only when a flag grants writing. */
static void dma_destination_per_flag(void **s)
{
	struct doca_dev *dev = open_dma_dev();
	uint8_t src[512], dst[512], zero[512] = {0};

	(void)s;
	for (size_t i = 0; i < NROWS; i++) {
		struct dma_fx f;
		struct doca_mmap *ms, *md;
		doca_error_t err;

		print_message("DMA destination %-32s (%s)\n", table[i].name,
			      table[i].local_write ? "written" : "refused");
		fill(src, sizeof(src), (uint8_t)(i + 100));
		memset(dst, 0, sizeof(dst));
		ms = mk_mmap(dev, src, sizeof(src), F_LRO);
		md = mk_mmap(dev, dst, sizeof(dst), table[i].flags);
		fx_open(&f, dev);
		err = fx_copy(&f, ms, src, md, dst, sizeof(src));
		if (table[i].local_write) {
			OK(err);
			assert_memory_equal(dst, src, sizeof(dst));
		} else {
			assert_int_not_equal(err, DOCA_SUCCESS);
			assert_memory_equal(dst, zero, sizeof(dst));
		}
		fx_close(&f);
		OK(doca_mmap_destroy(ms));
		OK(doca_mmap_destroy(md));
	}
	OK(doca_dev_close(dev));
}

/* The case of the issue: byte-exact copies into an mmap whose only flag is
 * PCI_READ_WRITE, of every length up to a few hundred bytes. */
static void dma_into_pci_read_write_only(void **s)
{
	struct doca_dev *dev = open_dma_dev();
	static uint8_t src[300], dst[300 + 16];
	struct doca_mmap *ms, *md;
	struct dma_fx f;

	(void)s;
	fill(src, sizeof(src), 3);
	ms = mk_mmap(dev, src, sizeof(src), F_LRW);
	md = mk_mmap(dev, dst, sizeof(dst), F_PRW);
	for (size_t len = 1; len <= sizeof(src); len += 37) {
		memset(dst, 0xee, sizeof(dst));
		fx_open(&f, dev);
		OK(fx_copy(&f, ms, src, md, dst, len));
		assert_memory_equal(dst, src, len);
		assert_int_equal(dst[len], 0xee);
		fx_close(&f);
	}
	OK(doca_mmap_destroy(ms));
	OK(doca_mmap_destroy(md));
	OK(doca_dev_close(dev));
}

/* ---------------- across PCIe, against export_peer ---------------- */

#define PEER_PROG "tests/devmem/export_peer"
#define PEER_SZ 4096

#define NEED_PEER()                                                       \
	do {                                                              \
		if (exu_peer_path(PEER_PROG) == NULL) {                   \
			print_message("no peer build (-Dpeer_build): skipped\n"); \
			skip();                                           \
		}                                                         \
	} while (0)

/*
 * The peer exports 4 KiB (PCI read-only or read-write); this side imports it
 * and copies from it (always allowed) and into it (PCI_READ_WRITE only),
 * then asks the peer for bytes 16..31 to see what really landed there.
 */
static void pci_peer_case(bool rw)
{
	struct doca_dev *dev = open_dma_dev();
	char *argv[] = {(char *)"export_peer", (char *)"export", (char *)(rw ? "rw" : "ro"), NULL};
	uint8_t desc[512], local[PEER_SZ], want[PEER_SZ], msg[16];
	struct doca_mmap *remote, *ml;
	struct exu_peer p;
	struct dma_fx f;
	char hex[64], expect_hex[64];
	size_t dlen = 0, rlen;
	void *raddr;
	doca_error_t err;
	int status;

	assert_int_equal(exu_peer_start(&p, exu_peer_path(PEER_PROG), argv), 0);
	assert_true(exu_peer_desc(&p, desc, sizeof(desc), &dlen, 10000));
	OK(doca_mmap_create_from_export(NULL, desc, dlen, dev, &remote));
	/* a from-export mmap is started for good: neither start nor stop (documented NOT_PERMITTED) */
	ERR(doca_mmap_start(remote), DOCA_ERROR_NOT_PERMITTED);
	ERR(doca_mmap_stop(remote), DOCA_ERROR_NOT_PERMITTED);
	OK(doca_mmap_get_memrange(remote, &raddr, &rlen));
	assert_int_equal(rlen, PEER_SZ);

	/* read: the peer's pattern arrives here */
	memset(local, 0, sizeof(local));
	exu_fill(want, sizeof(want));
	ml = mk_mmap(dev, local, sizeof(local), F_LRW);
	fx_open(&f, dev);
	OK(fx_copy(&f, remote, raddr, ml, local, PEER_SZ));
	assert_memory_equal(local, want, PEER_SZ);
	fx_close(&f);

	/* write 16 bytes at offset 16 of the peer's memory */
	memcpy(local, "written-by-dma!!", 16);
	fx_open(&f, dev);
	err = fx_copy(&f, ml, local, remote, (uint8_t *)raddr + 16, 16);
	fx_close(&f);
	if (rw)
		OK(err);
	else
		assert_int_not_equal(err, DOCA_SUCCESS);
	assert_int_equal(write(p.in, "dump\n", 5), 5);
	assert_true(exu_peer_line(&p, "DATA", hex, sizeof(hex), 10000));
	if (rw)
		memcpy(msg, "written-by-dma!!", 16);
	else
		memcpy(msg, want + 16, 16);
	exu_to_hex(msg, 16, expect_hex);
	assert_string_equal(hex, expect_hex);

	OK(doca_mmap_destroy(ml));
	OK(doca_mmap_destroy(remote));
	assert_int_equal(write(p.in, "quit\n", 5), 5);
	close(p.in);
	close(p.out);
	assert_int_equal(waitpid(p.pid, &status, 0), p.pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	OK(doca_dev_close(dev));
}

static void pci_peer_read_only(void **s)
{
	(void)s;
	NEED_PEER();
	pci_peer_case(false);
}

static void pci_peer_read_write(void **s)
{
	(void)s;
	NEED_PEER();
	pci_peer_case(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(set_permissions_bad_args),
		cmocka_unit_test(export_per_flag),
		cmocka_unit_test(documented_returns),
		cmocka_unit_test(dma_source_per_flag),
		cmocka_unit_test(dma_destination_per_flag),
		cmocka_unit_test(dma_into_pci_read_write_only),
		cmocka_unit_test(pci_peer_read_only),
		cmocka_unit_test(pci_peer_read_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
