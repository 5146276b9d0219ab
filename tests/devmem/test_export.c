/*
 * test_export.c - doca_mmap_export_pci / doca_mmap_create_from_export:
 * argument and state errors, same-side refusal (a forked child is the same
 * side), and the cross-side round trip against export_peer from the other
 * flavor's build (skipped without -Dpeer_build).
 */
#include <errno.h>
#include <fcntl.h>
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
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_types.h>

#include "sd_mem.h"
#include "sd_remote.h"
#include "../common/export_util.h"

#define OK(x) assert_int_equal((x), DOCA_SUCCESS)
#define ERR(x, e) assert_int_equal((x), (e))
#define SZ 4096
#define PCI_RW (DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_PCI_READ_WRITE)
#define PCI_RO (DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_PCI_READ_ONLY)

static struct doca_dev *open_first(void)
{
	struct doca_devinfo **list;
	struct doca_dev *dev;
	uint32_t n;

	OK(doca_devinfo_create_list(&list, &n));
	assert_true(n >= 1);
	OK(doca_dev_open(list[0], &dev));
	OK(doca_devinfo_destroy_list(list));
	return dev;
}

static struct doca_mmap *started_mmap(struct doca_dev *dev, void *mem, size_t len, uint32_t access)
{
	struct doca_mmap *m;

	OK(doca_mmap_create(&m));
	OK(doca_mmap_set_memrange(m, mem, len));
	OK(doca_mmap_set_permissions(m, access));
	OK(doca_mmap_add_dev(m, dev));
	OK(doca_mmap_start(m));
	return m;
}

/* ---------------- in-process ---------------- */

static void export_errors(void **s)
{
	struct doca_dev *dev = open_first();
	static uint8_t mem[SZ];
	struct doca_mmap *m;
	const void *desc;
	size_t len;
	uint8_t exported = 9;

	(void)s;
	OK(doca_mmap_create(&m));
	OK(doca_mmap_set_memrange(m, mem, SZ));
	OK(doca_mmap_set_permissions(m, PCI_RW));
	ERR(doca_mmap_export_pci(NULL, dev, &desc, &len), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_export_pci(m, NULL, &desc, &len), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_export_pci(m, dev, NULL, &len), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_export_pci(m, dev, &desc, NULL), DOCA_ERROR_INVALID_VALUE);
	/* device not added */
	ERR(doca_mmap_export_pci(m, dev, &desc, &len), DOCA_ERROR_NOT_FOUND);
	OK(doca_mmap_add_dev(m, dev));
	/* not started */
	ERR(doca_mmap_export_pci(m, dev, &desc, &len), DOCA_ERROR_NOT_PERMITTED);
	ERR(doca_mmap_get_exported(NULL, &exported), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_get_exported(m, NULL), DOCA_ERROR_INVALID_VALUE);
	OK(doca_mmap_get_exported(m, &exported));
	assert_int_equal(exported, 0);
	OK(doca_mmap_destroy(m));

	/* started, but no PCI permission */
	m = started_mmap(dev, mem, SZ, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ);
	ERR(doca_mmap_export_pci(m, dev, &desc, &len), DOCA_ERROR_NOT_PERMITTED);
	ERR(doca_mmap_export_rdma(m, dev, &desc, &len), DOCA_ERROR_NOT_SUPPORTED);
	OK(doca_mmap_destroy(m));
	OK(doca_dev_close(dev));
}

static void export_ok(void **s)
{
	struct doca_dev *dev = open_first();
	static uint8_t mem[SZ];
	struct doca_mmap *m;
	const void *d1, *d2;
	size_t l1, l2;
	uint8_t exported;
	struct sd_remote_desc d;

	(void)s;
	m = started_mmap(dev, mem, SZ, PCI_RO);
	OK(doca_mmap_export_pci(m, dev, &d1, &l1));
	assert_non_null(d1);
	assert_int_equal(l1, SD_REMOTE_DESC_SIZE);
	memcpy(&d, d1, sizeof(d));
	assert_int_equal(d.addr, (uint64_t)(uintptr_t)mem);
	assert_int_equal(d.len, SZ);
	assert_int_equal(d.pid, (uint32_t)getpid());
	assert_int_equal(d.side, sd_side());
	assert_string_equal(d.pci, sd_dev_pci_addr(dev));
	/* a second export is a new descriptor; both stay valid until destroy */
	OK(doca_mmap_export_pci(m, dev, &d2, &l2));
	assert_ptr_not_equal(d1, d2);
	OK(doca_mmap_get_exported(m, &exported));
	assert_int_equal(exported, 1);
	assert_null(sd_mmap_remote(m));
	/* the device stays referenced by the mmap */
	ERR(doca_dev_close(dev), DOCA_ERROR_IN_USE);
	OK(doca_mmap_stop(m));
	ERR(doca_mmap_export_pci(m, dev, &d2, &l2), DOCA_ERROR_NOT_PERMITTED);
	OK(doca_mmap_destroy(m));
	OK(doca_dev_close(dev));
}

static void import_errors(void **s)
{
	struct doca_dev *dev = open_first();
	static uint8_t mem[SZ];
	struct doca_mmap *m, *imp = NULL;
	const void *desc;
	size_t len;
	uint8_t junk[SD_REMOTE_DESC_SIZE];
	union doca_data ud = {.u64 = 7};

	(void)s;
	m = started_mmap(dev, mem, SZ, PCI_RW);
	OK(doca_mmap_export_pci(m, dev, &desc, &len));
	ERR(doca_mmap_create_from_export(&ud, NULL, len, dev, &imp), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_create_from_export(&ud, desc, 0, dev, &imp), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_create_from_export(&ud, desc, len, NULL, &imp), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_create_from_export(&ud, desc, len, dev, NULL), DOCA_ERROR_INVALID_VALUE);
	/* truncated, oversized, garbage */
	ERR(doca_mmap_create_from_export(&ud, desc, len - 1, dev, &imp), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_create_from_export(&ud, desc, 10, dev, &imp), DOCA_ERROR_INVALID_VALUE);
	memset(junk, 0xa5, sizeof(junk));
	ERR(doca_mmap_create_from_export(&ud, junk, sizeof(junk), dev, &imp), DOCA_ERROR_INVALID_VALUE);
	/* one's own export: same side */
	ERR(doca_mmap_create_from_export(&ud, desc, len, dev, &imp), DOCA_ERROR_NOT_PERMITTED);
	assert_null(imp);
	OK(doca_mmap_destroy(m));
	OK(doca_dev_close(dev));
}

/* A forked child is the same flavor, hence the same side: refused. */
static void same_side_fork(void **s)
{
	struct doca_dev *dev = open_first();
	uint8_t desc[SD_REMOTE_DESC_SIZE];
	struct doca_mmap *imp = NULL;
	int to_parent[2], to_child[2], status;
	size_t got = 0;
	pid_t pid;

	(void)s;
	assert_int_equal(pipe(to_parent), 0);
	assert_int_equal(pipe(to_child), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		static uint8_t mem[SZ];
		struct doca_mmap *m;
		const void *d;
		size_t l;
		char c;
		int rc = 1;

		close(to_parent[0]);
		close(to_child[1]);
		if (doca_mmap_create(&m) == DOCA_SUCCESS && doca_mmap_set_memrange(m, mem, SZ) == DOCA_SUCCESS &&
		    doca_mmap_set_permissions(m, PCI_RW) == DOCA_SUCCESS && doca_mmap_add_dev(m, dev) == DOCA_SUCCESS &&
		    doca_mmap_start(m) == DOCA_SUCCESS && doca_mmap_export_pci(m, dev, &d, &l) == DOCA_SUCCESS &&
		    write(to_parent[1], d, l) == (ssize_t)l) {
			/* keep the export alive until the parent has tried */
			rc = read(to_child[0], &c, 1) == 1 ? 0 : 1;
			doca_mmap_destroy(m);
		}
		doca_dev_close(dev);
		_exit(rc);
	}
	close(to_parent[1]);
	close(to_child[0]);
	while (got < sizeof(desc)) {
		ssize_t n = read(to_parent[0], desc + got, sizeof(desc) - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	assert_int_equal(got, sizeof(desc));
	ERR(doca_mmap_create_from_export(NULL, desc, got, dev, &imp), DOCA_ERROR_NOT_PERMITTED);
	assert_null(imp);
	assert_int_equal(write(to_child[1], "q", 1), 1);
	close(to_child[1]);
	close(to_parent[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	OK(doca_dev_close(dev));
}

/* ---------------- cross-side, against export_peer ---------------- */

#define PEER_PROG "tests/devmem/export_peer"

static void peer_start(struct exu_peer *p, const char *a1, const char *a2, const char *a3)
{
	const char *path = exu_peer_path(PEER_PROG);
	char *const argv[] = {(char *)path, (char *)a1, (char *)a2, (char *)a3, NULL};

	assert_non_null(path);
	assert_int_equal(exu_peer_start(p, path, argv), 0);
}

static bool peer_line(struct exu_peer *p, const char *tag, char *rest, size_t restsz)
{
	return exu_peer_line(p, tag, rest, restsz, 10000);
}

static int peer_wait(struct exu_peer *p)
{
	uint64_t end = exu_now_ms() + 10000;
	int status;

	close(p->in);
	while (exu_now_ms() < end) {
		if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
			close(p->out);
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		}
		usleep(2000);
	}
	kill(p->pid, SIGKILL);
	waitpid(p->pid, &status, 0);
	close(p->out);
	return -1;
}

/* Run "export_peer import <desc> [write]" and collect its answers. */
struct import_result {
	char import[64], buf[64], data[64], write[64];
	int rc;
};

static void peer_import(const void *desc, size_t len, bool write, struct import_result *r)
{
	char hex[2 * 512 + 1];
	struct exu_peer p;

	assert_true(len <= 512);
	exu_to_hex(desc, len, hex);
	memset(r, 0, sizeof(*r));
	peer_start(&p, "import", hex, write ? "write" : NULL);
	assert_true(peer_line(&p, "IMPORT", r->import, sizeof(r->import)));
	if (strcmp(r->import, "DOCA_SUCCESS") == 0) {
		assert_true(peer_line(&p, "BUF", r->buf, sizeof(r->buf)));
		assert_true(peer_line(&p, "DATA", r->data, sizeof(r->data)));
		if (write)
			assert_true(peer_line(&p, "WRITE", r->write, sizeof(r->write)));
	}
	r->rc = peer_wait(&p);
}

#define SKIP_WITHOUT_PEER()                                                          \
	do {                                                                         \
		if (exu_peer_path(PEER_PROG) == NULL) {                              \
			print_message("no peer build (-Dpeer_build): skipped\n"); \
			skip();                                                      \
		}                                                                    \
	} while (0)

/* Our pattern in mem, exported with `access`; the other side imports it,
 * reads its first 16 bytes and tries to write: its answers in r. */
static struct doca_mmap *export_to_peer(struct doca_dev **dev, uint8_t *mem, uint32_t access, const void **desc,
					size_t *len, struct import_result *r)
{
	struct doca_mmap *m;
	char hex[64];

	*dev = open_first();
	exu_fill(mem, SZ);
	m = started_mmap(*dev, mem, SZ, access);
	OK(doca_mmap_export_pci(m, *dev, desc, len));
	peer_import(*desc, *len, true, r);
	assert_string_equal(r->import, "DOCA_SUCCESS");
	exu_to_hex(mem, 16, hex);
	assert_string_equal(r->data, hex);
	return m;
}

/* We export, the other side imports, reads and writes our memory. */
static void cross_we_export(void **s)
{
	static uint8_t mem[SZ];
	struct doca_dev *dev;
	struct doca_mmap *m;
	struct import_result r;
	struct sd_remote_desc d;
	const void *desc;
	size_t len;

	(void)s;
	SKIP_WITHOUT_PEER();
	m = export_to_peer(&dev, mem, PCI_RW, &desc, &len, &r);
	assert_string_equal(r.buf, "DOCA_SUCCESS");
	assert_string_equal(r.write, "DOCA_SUCCESS");
	assert_int_equal(r.rc, 0);
	assert_memory_equal(mem + 16, "written-by-peer!", 16);
	assert_int_equal(mem[32], (uint8_t)(32 ^ 0x5a));

	/* corrupted (checksum no longer matches) */
	memcpy(&d, desc, sizeof(d));
	d.len = SZ * 2;
	peer_import(&d, sizeof(d), false, &r);
	assert_string_equal(r.import, "DOCA_ERROR_INVALID_VALUE");
	/* forged: a consistent checksum over a made-up token */
	memcpy(&d, desc, sizeof(d));
	d.token[0] ^= 0xff;
	d.checksum = sd_remote_desc_checksum(&d);
	peer_import(&d, sizeof(d), false, &r);
	assert_string_equal(r.import, "DOCA_ERROR_INVALID_VALUE");
	/* truncated */
	peer_import(desc, len / 2, false, &r);
	assert_string_equal(r.import, "DOCA_ERROR_INVALID_VALUE");
	/* another card */
	memcpy(&d, desc, sizeof(d));
	d.card += 1;
	d.checksum = sd_remote_desc_checksum(&d);
	peer_import(&d, sizeof(d), false, &r);
	assert_string_equal(r.import, "DOCA_ERROR_NOT_PERMITTED");
	/* destroying the mmap revokes its exports */
	memcpy(&d, desc, sizeof(d));
	OK(doca_mmap_destroy(m));
	peer_import(&d, sizeof(d), false, &r);
	assert_string_equal(r.import, "DOCA_ERROR_NOT_FOUND");
	assert_int_equal(r.rc, 0);
	OK(doca_dev_close(dev));
}

/* A read-only export: the other side reads but cannot write. */
static void cross_we_export_ro(void **s)
{
	static uint8_t mem[SZ];
	struct doca_dev *dev;
	struct doca_mmap *m;
	struct import_result r;
	const void *desc;
	size_t len;

	(void)s;
	SKIP_WITHOUT_PEER();
	m = export_to_peer(&dev, mem, PCI_RO, &desc, &len, &r);
	assert_string_equal(r.write, "DOCA_ERROR_NOT_PERMITTED");
	assert_int_equal(r.rc, 0);
	assert_int_equal(mem[16], (uint8_t)(16 ^ 0x5a));
	OK(doca_mmap_destroy(m));
	OK(doca_dev_close(dev));
}

/* The other side exports, we import: the mmap API over the exporter's range. */
static void import_from_peer(bool rw)
{
	struct doca_dev *dev = open_first();
	struct doca_buf_inventory *inv;
	struct doca_mmap *imp;
	struct doca_buf *buf, *b2;
	struct sd_remote_desc d;
	uint8_t desc[512], data[16];
	union doca_data ud = {.u64 = 42}, got;
	uint8_t flag;
	char line[64], hex[64];
	size_t n = 0;
	void *addr, *p;
	size_t len;
	struct exu_peer pr;

	peer_start(&pr, "export", rw ? "rw" : "ro", NULL);
	assert_true(exu_peer_desc(&pr, desc, sizeof(desc), &n, 10000));
	assert_int_equal(n, SD_REMOTE_DESC_SIZE);
	memcpy(&d, desc, sizeof(d));

	OK(doca_mmap_create_from_export(&ud, desc, n, dev, &imp));
	assert_non_null(sd_mmap_remote(imp));
	assert_true(sd_mmap_is_started(imp));
	assert_true(sd_mmap_has_dev(imp, dev));
	OK(doca_mmap_get_from_export(imp, &flag));
	assert_int_equal(flag, 1);
	OK(doca_mmap_get_exported(imp, &flag));
	assert_int_equal(flag, 0);
	OK(doca_mmap_get_user_data(imp, &got));
	assert_int_equal(got.u64, 42);
	OK(doca_mmap_get_memrange(imp, &addr, &len));
	assert_int_equal((uint64_t)(uintptr_t)addr, d.addr);
	assert_int_equal(len, SZ);
	assert_true(sd_mmap_contains(imp, addr, len));
	assert_false(sd_mmap_contains(imp, (uint8_t *)addr + 1, len));
	assert_true(sd_mmap_can_read(imp));
	assert_true(sd_mmap_can_write(imp) == rw);

	/* a from-export mmap is neither reconfigured nor exported again */
	ERR(doca_mmap_set_permissions(imp, PCI_RW), DOCA_ERROR_BAD_STATE);
	ERR(doca_mmap_add_dev(imp, dev), DOCA_ERROR_NOT_PERMITTED);
	{
		const void *d2;
		size_t l2;

		ERR(doca_mmap_export_pci(imp, dev, &d2, &l2), DOCA_ERROR_NOT_PERMITTED);
	}
	/* the device is referenced by the mmap */
	ERR(doca_dev_close(dev), DOCA_ERROR_IN_USE);

	/* buffers carry the exporter's addresses */
	OK(doca_buf_inventory_create(4, &inv));
	OK(doca_buf_inventory_start(inv));
	OK(doca_buf_inventory_buf_get_by_addr(inv, imp, (uint8_t *)addr + 16, 32, &buf));
	OK(doca_buf_get_data(buf, &p));
	assert_ptr_equal(p, (uint8_t *)addr + 16);
	ERR(doca_buf_inventory_buf_get_by_addr(inv, imp, (uint8_t *)addr + SZ - 8, 16, &b2),
	    DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_destroy(imp), DOCA_ERROR_NOT_PERMITTED);
	OK(doca_buf_dec_refcount(buf, NULL));

	OK(sd_remote_read(sd_mmap_remote(imp), d.addr + 16, data, sizeof(data)));
	for (size_t i = 0; i < sizeof(data); i++)
		assert_int_equal(data[i], (uint8_t)((16 + i) ^ 0x5a));
	if (rw) {
		OK(sd_remote_write(sd_mmap_remote(imp), d.addr + 16, "from-other-side!", 16));
		assert_int_equal(write(pr.in, "dump\n", 5), 5);
		assert_true(peer_line(&pr, "DATA", line, sizeof(line)));
		exu_to_hex("from-other-side!", 16, hex);
		assert_string_equal(line, hex);
	} else {
		ERR(sd_remote_write(sd_mmap_remote(imp), d.addr + 16, "from-other-side!", 16),
		    DOCA_ERROR_NOT_PERMITTED);
	}
	OK(doca_buf_inventory_destroy(inv));
	if (rw) {
		OK(doca_mmap_destroy(imp));
		/* exporter gone (clean exit): its descriptor is dead */
		assert_int_equal(write(pr.in, "quit\n", 5), 5);
		assert_int_equal(peer_wait(&pr), 0);
	} else {
		/* exporter killed under a live import: accesses fail, then imports */
		kill(pr.pid, SIGKILL);
		assert_int_equal(peer_wait(&pr), 128 + SIGKILL);
		ERR(sd_remote_read(sd_mmap_remote(imp), d.addr, data, sizeof(data)), DOCA_ERROR_CONNECTION_RESET);
		OK(doca_mmap_destroy(imp));
	}
	imp = NULL;
	ERR(doca_mmap_create_from_export(NULL, desc, n, dev, &imp), DOCA_ERROR_NOT_FOUND);
	assert_null(imp);
	OK(doca_dev_close(dev));
}

static void cross_peer_exports_rw(void **s)
{
	(void)s;
	SKIP_WITHOUT_PEER();
	import_from_peer(true);
}

static void cross_peer_exports_ro(void **s)
{
	(void)s;
	SKIP_WITHOUT_PEER();
	import_from_peer(false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(export_errors),
		cmocka_unit_test(export_ok),
		cmocka_unit_test(import_errors),
		cmocka_unit_test(same_side_fork),
		cmocka_unit_test(cross_we_export),
		cmocka_unit_test(cross_we_export_ro),
		cmocka_unit_test(cross_peer_exports_rw),
		cmocka_unit_test(cross_peer_exports_ro),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
