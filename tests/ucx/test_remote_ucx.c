/* Remote memory across the UCX link (remote_ucx.c) through the module's
 * sd_link_remote_ops, exporter and importer in this process over 127.0.0.1
 * (UCX_TLS=tcp). The importer calls the module directly, without
 * remote_mem.c's checks in front, so what is refused here is refused by the
 * exporter itself: writes to a read-only export, ranges outside it, a forged
 * token, an unknown or revoked export, the same side, another card, memory
 * the exporter unmapped, and (through the module's internal seam) messages
 * a hostile importer might send; plus transfers of many chunks both ways,
 * concurrent callers on one import and an exporter nobody listens for. No
 * root needed. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_types.h>

#include "sd_link_ucx.h"
#include "sd_remote.h"
#include "../../src/fabric/link_ucx_int.h"
#include "../common/ucx_loop_util.h"

const struct sd_link_ops *priv_doca_sd_link_ucx_init(const struct sd_link_urls *urls, const uint8_t *secret,
						     size_t secret_len, doca_error_t *err);
const struct sd_link_remote_ops *priv_doca_sd_link_ucx_remote(void);

#define RO DOCA_ACCESS_FLAG_PCI_READ_ONLY
#define RW (DOCA_ACCESS_FLAG_PCI_READ_WRITE | DOCA_ACCESS_FLAG_LOCAL_READ_WRITE)
#define HOST ((uint8_t)SD_SIDE_HOST)
#define DPU ((uint8_t)SD_SIDE_DPU)

static const struct sd_link_remote_ops *rm;

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)((i * 131u + seed) ^ (i >> 9));
}

static void test_read_write_many_chunks(void **state)
{
	const size_t n = 3u * 1024u * 1024u + 5u; /* 13 chunks: more than one window */
	uint8_t *exp = malloc(n), *src = malloc(n), *back = malloc(n);
	struct sd_remote_ndesc d;
	void *h = NULL;

	(void)state;
	assert_non_null(exp);
	assert_non_null(src);
	assert_non_null(back);
	fill(exp, n, 1);
	assert_int_equal(rm->export_mem(exp, n, RW, SD_REMOTE_NKIND_MEM, 0, HOST, "0000:3b:00.0", &d), DOCA_SUCCESS);
	assert_int_equal(d.family, 4);
	assert_int_not_equal(d.port, 0);
	assert_int_equal(rm->import(&d, DPU, &h), DOCA_SUCCESS);
	/* read: the exporter's bytes, whole and at an odd offset */
	assert_int_equal(rm->read(h, d.addr, back, n), DOCA_SUCCESS);
	assert_memory_equal(back, exp, n);
	assert_int_equal(rm->read(h, d.addr + 777, back, 1000), DOCA_SUCCESS);
	assert_memory_equal(back, exp + 777, 1000);
	/* write: lands in the exporter's memory */
	fill(src, n, 7);
	assert_int_equal(rm->write(h, d.addr, src, n), DOCA_SUCCESS);
	assert_memory_equal(exp, src, n);
	assert_int_equal(rm->write(h, d.addr + n - 1, "z", 1), DOCA_SUCCESS);
	assert_int_equal(exp[n - 1], 'z');
	rm->release(h);
	rm->unexport(d.id);
	free(exp);
	free(src);
	free(back);
}

static void test_exporter_enforces(void **state)
{
	static uint8_t ro[8192], rwb[8192];
	struct sd_remote_ndesc d, w, bad;
	uint8_t buf[64];
	void *h = NULL;

	(void)state;
	memset(ro, 'r', sizeof(ro));
	assert_int_equal(rm->export_mem(ro, sizeof(ro), RO, SD_REMOTE_NKIND_MEM, 0, HOST, "0000:3b:00.0", &d), DOCA_SUCCESS);
	assert_int_equal(rm->import(&d, DPU, &h), DOCA_SUCCESS);
	/* read-only: a write is refused by the exporter, nothing changes */
	assert_int_equal(rm->write(h, d.addr, "xxxx", 4), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(ro[0], 'r');
	assert_int_equal(rm->read(h, d.addr, buf, sizeof(buf)), DOCA_SUCCESS);
	/* outside the range: before, after, straddling the end */
	assert_int_equal(rm->read(h, d.addr - 1, buf, 2), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(rm->read(h, d.addr + sizeof(ro), buf, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(rm->read(h, d.addr + sizeof(ro) - 4, buf, 8), DOCA_ERROR_INVALID_VALUE);
	/* the import still works after refusals */
	assert_int_equal(rm->read(h, d.addr + 100, buf, 8), DOCA_SUCCESS);
	assert_memory_equal(buf, "rrrrrrrr", 8);

	/* a forged token, an unknown export, the exporter's own side, another card */
	bad = d;
	bad.token[3] ^= 1;
	assert_int_equal(rm->import(&bad, DPU, &h), DOCA_ERROR_INVALID_VALUE);
	bad = d;
	bad.id ^= 0x5a5a;
	assert_int_equal(rm->import(&bad, DPU, &h), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(rm->import(&d, HOST, &h), DOCA_ERROR_NOT_PERMITTED);
	bad = d;
	bad.card = 2;
	assert_int_equal(rm->import(&bad, DPU, &h), DOCA_ERROR_NOT_PERMITTED);

	/* revoked: an open import fails NOT_FOUND, so does a new one */
	assert_int_equal(rm->export_mem(rwb, sizeof(rwb), RW, SD_REMOTE_NKIND_MEM, 0, HOST, "0000:3b:00.0", &w), DOCA_SUCCESS);
	assert_int_equal(rm->import(&w, DPU, &h), DOCA_SUCCESS);
	assert_int_equal(rm->write(h, w.addr, "ok", 2), DOCA_SUCCESS);
	rm->unexport(w.id);
	assert_int_equal(rm->write(h, w.addr, "no", 2), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(rm->read(h, w.addr, buf, 2), DOCA_ERROR_NOT_FOUND);
	assert_memory_equal(rwb, "ok", 2);
	rm->release(h);
	assert_int_equal(rm->import(&w, DPU, &h), DOCA_ERROR_NOT_FOUND);
	rm->unexport(d.id);
}

static void test_unmapped_is_io_failed(void **state)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	struct sd_remote_ndesc d;
	uint8_t buf[16];
	void *h = NULL;
	uint8_t *p;

	(void)state;
	p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	assert_int_equal(rm->export_mem(p, 2 * pg, RW, SD_REMOTE_NKIND_MEM, 0, HOST, "0000:3b:00.0", &d), DOCA_SUCCESS);
	assert_int_equal(rm->import(&d, DPU, &h), DOCA_SUCCESS);
	munmap(p + pg, pg);
	assert_int_equal(rm->read(h, d.addr, buf, sizeof(buf)), DOCA_SUCCESS);
	assert_int_equal(rm->read(h, d.addr + pg, buf, sizeof(buf)), DOCA_ERROR_IO_FAILED);
	assert_int_equal(rm->write(h, d.addr + pg, buf, sizeof(buf)), DOCA_ERROR_IO_FAILED);
	rm->release(h);
	rm->unexport(d.id);
	munmap(p, pg);
}

/* The exporter's fallback (/proc/self/mem where process_vm_* is refused),
 * selected as for local imports: same results, unmapped memory included. */
static void test_exporter_fallback(void **state)
{
	setenv("SOFTDOCA_REMOTE_FORCE_FALLBACK", "1", 1);
	test_read_write_many_chunks(state);
	test_unmapped_is_io_failed(state);
	unsetenv("SOFTDOCA_REMOTE_FORCE_FALLBACK");
}

static void test_nobody_listens(void **state)
{
	static uint8_t m[64];
	struct sd_remote_ndesc d;
	void *h = NULL;

	(void)state;
	assert_int_equal(rm->export_mem(m, sizeof(m), RW, SD_REMOTE_NKIND_MEM, 0, HOST, "0000:3b:00.0", &d), DOCA_SUCCESS);
	/* a port of the loopback nobody listens on */
	d.port = ucx_loop_free_port();
	assert_int_not_equal(d.port, 0);
	assert_int_equal(rm->import(&d, DPU, &h), DOCA_ERROR_NOT_FOUND);
	rm->unexport(d.id);
}

struct reader {
	void *h;
	uint64_t addr;
	const uint8_t *want;
	size_t n;
	int bad;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	uint8_t *buf = malloc(r->n);
	int i;

	for (i = 0; i < 3 && buf != NULL; i++)
		if (rm->read(r->h, r->addr, buf, r->n) != DOCA_SUCCESS || memcmp(buf, r->want, r->n) != 0)
			r->bad++;
	if (buf == NULL)
		r->bad++;
	free(buf);
	return NULL;
}

/* More callers than one window on one import: the window is shared, the
 * exporter never sees more than it allows and drops nobody. */
static void test_concurrent_callers(void **state)
{
	const size_t n = 2u * 1024u * 1024u + 3u;
	struct reader rd[6];
	pthread_t t[6];
	struct sd_remote_ndesc d;
	uint8_t *exp = malloc(n);
	void *h = NULL;
	int i;

	(void)state;
	assert_non_null(exp);
	fill(exp, n, 3);
	assert_int_equal(rm->export_mem(exp, n, RO, SD_REMOTE_NKIND_MEM, 0, HOST, "0000:3b:00.0", &d), DOCA_SUCCESS);
	assert_int_equal(rm->import(&d, DPU, &h), DOCA_SUCCESS);
	for (i = 0; i < 6; i++) {
		rd[i] = (struct reader){.h = h, .addr = d.addr, .want = exp, .n = n};
		assert_int_equal(pthread_create(&t[i], NULL, reader_main, &rd[i]), 0);
	}
	for (i = 0; i < 6; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(rd[i].bad, 0);
	}
	rm->release(h);
	rm->unexport(d.id);
	free(exp);
}

/* A sync event's value (SD_REMOTE_NKIND_CELL): only atomic operations,
 * run by the exporter on its own 8 bytes; memory exports take none. */
static void test_value_export(void **state)
{
	static uint64_t value __attribute__((aligned(8)));
	static uint64_t ro_value __attribute__((aligned(8))) = 9;
	static uint8_t mem[64];
	struct sd_remote_ndesc d, r, m, bad;
	uint64_t old = 0, buf = 0;
	void *h = NULL, *hr = NULL, *hm = NULL;

	(void)state;
	value = 40;
	assert_int_equal(rm->export_mem(&value, 8, RW, SD_REMOTE_NKIND_CELL, 0, HOST, "0000:3b:00.0", &d),
			 DOCA_SUCCESS);
	assert_int_equal(d.kind, SD_REMOTE_NKIND_CELL);
	assert_int_equal(rm->import(&d, DPU, &h), DOCA_SUCCESS);
	assert_int_equal(rm->atomic(h, SD_REMOTE_ATOMIC_GET, d.addr, 0, &old), DOCA_SUCCESS);
	assert_int_equal(old, 40);
	assert_int_equal(rm->atomic(h, SD_REMOTE_ATOMIC_ADD, d.addr, 2, &old), DOCA_SUCCESS);
	assert_int_equal(old, 40);
	assert_int_equal(value, 42);
	assert_int_equal(rm->atomic(h, SD_REMOTE_ATOMIC_SET, d.addr, 7, &old), DOCA_SUCCESS);
	assert_int_equal(old, 42);
	assert_int_equal(value, 7);
	value = 1000; /* the exporter's own update is what the importer sees next */
	assert_int_equal(rm->atomic(h, SD_REMOTE_ATOMIC_GET, d.addr, 0, &old), DOCA_SUCCESS);
	assert_int_equal(old, 1000);
	/* the value is not memory: no read, no write, no other address */
	assert_int_equal(rm->read(h, d.addr, &buf, 8), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(rm->write(h, d.addr, &buf, 8), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(value, 1000);
	assert_int_equal(rm->atomic(h, SD_REMOTE_ATOMIC_ADD, d.addr + 8, 1, &old), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(value, 1000);
	/* a descriptor whose kind was changed does not match the grant */
	bad = d;
	bad.kind = SD_REMOTE_NKIND_MEM;
	assert_int_equal(rm->import(&bad, DPU, &hr), DOCA_ERROR_INVALID_VALUE);

	/* read-only: a get, never an update */
	assert_int_equal(rm->export_mem(&ro_value, 8, RO, SD_REMOTE_NKIND_CELL, 0, HOST, "0000:3b:00.0", &r),
			 DOCA_SUCCESS);
	assert_int_equal(rm->import(&r, DPU, &hr), DOCA_SUCCESS);
	assert_int_equal(rm->atomic(hr, SD_REMOTE_ATOMIC_SET, r.addr, 1, &old), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(rm->atomic(hr, SD_REMOTE_ATOMIC_ADD, r.addr, 1, &old), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(rm->atomic(hr, SD_REMOTE_ATOMIC_GET, r.addr, 0, &old), DOCA_SUCCESS);
	assert_int_equal(old, 9);
	assert_int_equal(ro_value, 9);
	rm->release(hr);
	rm->unexport(r.id);

	/* memory takes no atomic operation */
	assert_int_equal(rm->export_mem(mem, sizeof(mem), RW, SD_REMOTE_NKIND_MEM, 0, HOST, "0000:3b:00.0", &m),
			 DOCA_SUCCESS);
	assert_int_equal(rm->import(&m, DPU, &hm), DOCA_SUCCESS);
	assert_int_equal(rm->atomic(hm, SD_REMOTE_ATOMIC_ADD, m.addr, 1, &old), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(mem[0], 0);
	rm->release(hm);
	rm->unexport(m.id);

	/* revoked: the open import fails NOT_FOUND; a release is no loss */
	assert_false(rm->export_lost(d.id));
	rm->unexport(d.id);
	assert_int_equal(rm->atomic(h, SD_REMOTE_ATOMIC_GET, d.addr, 0, &old), DOCA_ERROR_NOT_FOUND);
	rm->release(h);
}

/* A raw, authenticated connection to the exporter that opened export d by
 * hand (lock held): what a hostile importer would have after RM_OPEN. */
static struct uconn *open_by_hand(const struct sd_remote_ndesc *d)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	struct uconn *c = NULL;
	struct {
		uint64_t id;
		uint8_t token[SD_REMOTE_TOKEN_LEN];
		uint32_t card;
		uint8_t side, reserved[3];
	} open_msg;

	memset(&open_msg, 0, sizeof(open_msg));
	open_msg.id = d->id;
	memcpy(open_msg.token, d->token, sizeof(open_msg.token));
	open_msg.side = DPU;
	sin.sin_port = htons(d->port);
	memcpy(&sin.sin_addr, d->ip, 4);
	if (sd_ucx_rm_connect((struct sockaddr_storage *)(void *)&sin, sizeof(sin), 0, "0000:03:00.0", &c) !=
	    DOCA_SUCCESS)
		return NULL;
	/* no need to wait for the grant: the messages stay in order */
	(void)sd_ucx_send(c, LK_RM_OPEN, 0, &open_msg, sizeof(open_msg), NULL, 0);
	return c;
}

/* Open an export by hand and close the connection, detaching first or not:
 * the exporter counts an importer that left without releasing as lost. */
static bool lost_after_close(bool detach)
{
	static uint64_t value __attribute__((aligned(8)));
	struct sd_remote_ndesc d;
	struct uconn *c;
	bool lost = false;
	int i;

	if (rm->export_mem(&value, 8, RW, SD_REMOTE_NKIND_CELL, 0, HOST, "0000:3b:00.0", &d) != DOCA_SUCCESS)
		return false;
	sd_ucx_lock();
	c = open_by_hand(&d);
	if (c != NULL) {
		if (detach)
			(void)sd_ucx_send(c, LK_RM_DETACH, 0, NULL, 0, NULL, 0);
		sd_ucx_rm_close(c);
	}
	sd_ucx_unlock();
	for (i = 0; i < 300 && !lost; i++) {
		lost = rm->export_lost(d.id);
		if (!lost)
			usleep(2000);
	}
	rm->unexport(d.id);
	return lost;
}

/* Lock held: did the exporter drop c (within 3 s)? */
static bool dropped_within_3s(struct uconn *c)
{
	for (int i = 0; i < 300; i++) {
		if (sd_ucx_failed(c, NULL))
			return true;
		(void)sd_ucx_wait_once(sd_ucx_now() + 10000000ull);
	}
	return false;
}

/* After a genuine RM_OPEN of a value export, a malformed RM_ATOMIC: the
 * exporter drops the connection and the value is untouched. */
static bool atomic_dropped(uint32_t op, uint32_t reserved, size_t len)
{
	static uint64_t value __attribute__((aligned(8)));
	struct sd_remote_ndesc d;
	struct {
		uint64_t addr;
		uint32_t op, reserved;
		uint64_t operand;
	} at;
	struct uconn *c;
	bool gone = false;

	value = 5;
	if (rm->export_mem(&value, 8, RW, SD_REMOTE_NKIND_CELL, 0, HOST, "0000:3b:00.0", &d) != DOCA_SUCCESS)
		return false;
	at.addr = d.addr;
	at.op = op;
	at.reserved = reserved;
	at.operand = 100;
	sd_ucx_lock();
	c = open_by_hand(&d);
	if (c != NULL) {
		(void)sd_ucx_send(c, LK_RM_ATOMIC, 1, &at, len, NULL, 0);
		gone = dropped_within_3s(c);
		sd_ucx_rm_close(c);
	}
	sd_ucx_unlock();
	rm->unexport(d.id);
	return gone && value == 5;
}

static void test_value_export_hostile(void **state)
{
	(void)state;
	assert_true(atomic_dropped(9, 0, 24));                           /* no such operation */
	assert_true(atomic_dropped(0, 0, 24));
	assert_true(atomic_dropped(SD_REMOTE_ATOMIC_ADD, 1, 24));        /* reserved bytes */
	assert_true(atomic_dropped(SD_REMOTE_ATOMIC_ADD, 0, 16));        /* truncated */
}

static void test_value_export_lost(void **state)
{
	(void)state;
	assert_true(lost_after_close(false));
	assert_false(lost_after_close(true));
}

/* A raw, authenticated remote-memory connection to the exporter sends msg;
 * the exporter must drop it (seen here as the connection failing). */
static bool dropped_after(uint32_t kind, uint32_t arg, const void *msg, size_t len)
{
	struct sd_remote_ndesc d;
	static uint8_t m[4096];
	struct sockaddr_in sin = {.sin_family = AF_INET};
	struct uconn *c = NULL;
	bool gone = false;

	if (rm->export_mem(m, sizeof(m), RW, SD_REMOTE_NKIND_MEM, 0, HOST, "0000:3b:00.0", &d) != DOCA_SUCCESS)
		return false;
	sin.sin_port = htons(d.port);
	memcpy(&sin.sin_addr, d.ip, 4);
	sd_ucx_lock();
	if (sd_ucx_rm_connect((struct sockaddr_storage *)(void *)&sin, sizeof(sin), 0, "0000:03:00.0", &c) ==
	    DOCA_SUCCESS) {
		(void)sd_ucx_send(c, kind, arg, msg, len, NULL, 0);
		gone = dropped_within_3s(c);
		sd_ucx_rm_close(c);
	}
	sd_ucx_unlock();
	rm->unexport(d.id);
	return gone;
}

static void test_hostile_importer(void **state)
{
	uint64_t io[2] = {0, 16};
	uint8_t junk[48] = {0};
	uint8_t frame[32] = {0};

	(void)state;
	/* I/O before RM_OPEN */
	assert_true(dropped_after(LK_RM_READ, 1, io, sizeof(io)));
	/* an RM_OPEN of the wrong size */
	assert_true(dropped_after(LK_RM_OPEN, 0, junk, sizeof(junk)));
	/* what only an exporter sends */
	assert_true(dropped_after(LK_RM_DONE, 1, junk, 16));
	assert_true(dropped_after(LK_RM_GRANT, 0, junk, sizeof(junk)));
	/* a value's operation or a detach before RM_OPEN */
	assert_true(dropped_after(LK_RM_ATOMIC, 1, junk, 24));
	assert_true(dropped_after(LK_RM_DETACH, 0, NULL, 0));
	/* a Comch frame on a remote-memory connection (LK_FRAME is kind 5) */
	assert_true(dropped_after(5, 0, frame, sizeof(frame)));
}

static int setup(void **state)
{
	struct sd_link_url url;
	char text[64], why[128];
	doca_error_t err;

	(void)state;
	setenv("UCX_TLS", "tcp", 0);
	setenv("SOFTDOCA_LINK_TIMEOUT_MS", "3000", 0);
	if (ucx_loop_url(text, sizeof(text)) == 0)
		return -1;
	if (sd_link_url_parse(text, &url, why, sizeof(why)) != DOCA_SUCCESS)
		return -1;
	if (priv_doca_sd_link_ucx_init(&(struct sd_link_urls){.def = &url}, (const uint8_t *)"remote secret", 13, &err) == NULL)
		return -1;
	rm = priv_doca_sd_link_ucx_remote();
	return rm != NULL ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_write_many_chunks),
		cmocka_unit_test(test_exporter_enforces),
		cmocka_unit_test(test_unmapped_is_io_failed),
		cmocka_unit_test(test_nobody_listens),
		cmocka_unit_test(test_concurrent_callers),
		cmocka_unit_test(test_exporter_fallback),
		cmocka_unit_test(test_hostile_importer),
		cmocka_unit_test(test_value_export),
		cmocka_unit_test(test_value_export_lost),
		cmocka_unit_test(test_value_export_hostile),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
