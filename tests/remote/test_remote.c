/*
 * Remote memory (suite 'remote'): the exporter is remote_peer, another
 * process (the other flavor's build when a peer build is configured), which
 * only waits on its control socket while this process reads and writes its
 * memory. Most cases also run with SOFTDOCA_REMOTE_FORCE_FALLBACK=1; the
 * cases about pages moved onto shared memory at export run without it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <stdbool.h>
#include <time.h>

#include <doca_build_config.h>
#include <doca_error.h>
#include <doca_types.h>

#include "remote_proto.h"
#include "sd_remote.h"

#define RW (DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_PCI_READ_WRITE)
#define RO (DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_PCI_READ_ONLY)
#define CARD 0u
#define MIB (1024u * 1024u)

static char peer_exe[PATH_MAX + 32];
static bool cross_flavor;
static bool g_fallback;

static enum sd_side other_side(void)
{
	return rp_native_side() == SD_SIDE_HOST ? SD_SIDE_DPU : SD_SIDE_HOST;
}

struct fx {
	struct rp_peer peer;
	int export_side; /* -1: the peer's own side (other flavor), else explicit */
};

static void up(struct fx *f)
{
	struct rp_cmd c = {.op = RP_HELLO};
	struct rp_reply r;

	assert_int_equal(rp_start(&f->peer, peer_exe), 0);
	assert_int_equal(rp_call(&f->peer, &c, &r), 0);
	f->export_side = (int)r.side != (int)rp_native_side() ? -1 : (int)other_side();
}

static void down(struct fx *f)
{
	int st = rp_stop(&f->peer);

	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static uint32_t g_export_flags; /* RP_F_* for the next exports */

static void export_as(struct fx *f, uint32_t slot, size_t size, size_t off, uint32_t access, uint32_t card,
		      int side, uint32_t seed, struct rp_reply *r)
{
	struct rp_cmd c = {.op = RP_EXPORT, .slot = slot, .a = size, .b = off, .access = access, .card = card,
			   .side = side, .seed = seed, .flags = g_export_flags};

	assert_int_equal(rp_call(&f->peer, &c, r), 0);
	assert_int_equal(r->status, DOCA_SUCCESS);
	assert_int_equal(r->desc_len, SD_REMOTE_DESC_SIZE);
}

static void export(struct fx *f, uint32_t slot, size_t size, size_t off, uint32_t access, uint32_t seed,
		   struct rp_reply *r)
{
	export_as(f, slot, size, off, access, CARD, f->export_side, seed, r);
}

static uint64_t peer_sum(struct fx *f, uint32_t slot, uint64_t off, uint64_t len)
{
	struct rp_cmd c = {.op = RP_SUM, .slot = slot, .a = off, .b = len};
	struct rp_reply r;

	assert_int_equal(rp_call(&f->peer, &c, &r), 0);
	assert_int_equal(r.status, DOCA_SUCCESS);
	return r.value;
}

static void peer_op(struct fx *f, uint32_t op, uint32_t slot)
{
	struct rp_cmd c = {.op = op, .slot = slot};
	struct rp_reply r;

	assert_int_equal(rp_call(&f->peer, &c, &r), 0);
	if (op != RP_CRASH)
		assert_int_equal(r.status, DOCA_SUCCESS);
}

static void crash_and_reap(struct fx *f)
{
	int st;

	peer_op(f, RP_CRASH, 0);
	assert_int_equal(waitpid(f->peer.pid, &st, 0), f->peer.pid);
	close(f->peer.fd);
	f->peer.fd = -1;
	f->peer.pid = 0;
}

static struct sd_remote *import_ok(const struct rp_reply *r)
{
	struct sd_remote *rem = NULL;

	assert_int_equal(sd_remote_import(r->desc, r->desc_len, CARD, rp_native_side(), &rem), DOCA_SUCCESS);
	assert_non_null(rem);
	if (g_fallback)
		assert_string_equal(sd_remote_mechanism(rem), "proc_mem");
	assert_int_equal(sd_remote_addr(rem), r->base);
	return rem;
}

static uint64_t pattern_sum(uint64_t off, size_t len, uint32_t seed)
{
	uint8_t *b = malloc(len ? len : 1);
	uint64_t h;

	assert_non_null(b);
	rp_pattern(b, off, len, seed);
	h = rp_fnv(b, len);
	free(b);
	return h;
}

static bool all_bytes(const uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

/* ---- arguments ---------------------------------------------------------- */

static void test_export_args(void **state)
{
	static uint8_t buf[4096];
	void *d = NULL;
	size_t dl = 0;

	assert_int_equal(sd_remote_export(NULL, 10, RW, 0, SD_SIDE_HOST, "0000:3b:00.0", &d, &dl),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_remote_export(buf, 0, RW, 0, SD_SIDE_HOST, "0000:3b:00.0", &d, &dl),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_remote_export(buf, 10, RW, 0, SD_SIDE_HOST, NULL, &d, &dl), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_remote_export(buf, 10, RW, 0, SD_SIDE_HOST, "0000:3b:00.0", NULL, &dl),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_remote_export(buf, 10, RW, 0, SD_SIDE_HOST, "0000:3b:00.0", &d, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_remote_export(buf, 10, RW, 0, (enum sd_side)5, "0000:3b:00.0", &d, &dl),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_remote_export(buf, 10, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 0, SD_SIDE_HOST,
					  "0000:3b:00.0", &d, &dl),
			 DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(sd_remote_export(buf, 10, RW | 0x100, 0, SD_SIDE_HOST, "0000:3b:00.0", &d, &dl),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_remote_export(buf, 10, RW, 0, SD_SIDE_HOST, "0000:3b:00.0.0.0.0", &d, &dl),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_remote_export(buf, 10, RW, 0, SD_SIDE_HOST, "pci!", &d, &dl), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_remote_export(buf, 10, RW, 0, SD_SIDE_HOST, "", &d, &dl), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_remote_export((void *)(UINTPTR_MAX - 10), 100, RW, 0, SD_SIDE_HOST, "0000:3b:00.0", &d,
					  &dl),
			 DOCA_ERROR_INVALID_VALUE);
	assert_null(d);

	assert_int_equal(sd_remote_export(buf, sizeof(buf), RW, 0, SD_SIDE_HOST, "0000:3b:00.0", &d, &dl),
			 DOCA_SUCCESS);
	assert_int_equal(dl, SD_REMOTE_DESC_SIZE);
	assert_int_equal(((struct sd_remote_desc *)d)->checksum,
			 sd_remote_desc_checksum((struct sd_remote_desc *)d));
	sd_remote_export_free(d);
	sd_remote_export_free(NULL);
}

static void test_import_args(void **state)
{
	static uint8_t buf[4096];
	struct sd_remote *r = NULL;
	uint8_t local[16];
	void *d;
	size_t dl;

	assert_int_equal(sd_remote_export(buf, sizeof(buf), RW, 0, other_side(), "0000:3b:00.0", &d, &dl),
			 DOCA_SUCCESS);
	assert_int_equal(sd_remote_import(NULL, dl, 0, rp_native_side(), &r), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_remote_import(d, dl, 0, rp_native_side(), NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_remote_import(d, dl, 0, (enum sd_side)9, &r), DOCA_ERROR_INVALID_VALUE);
	assert_null(r);
	/* A process may import its own export (as the other side): a smoke test. */
	assert_int_equal(sd_remote_import(d, dl, 0, rp_native_side(), &r), DOCA_SUCCESS);
	assert_int_equal(sd_remote_read(NULL, sd_remote_addr(r), local, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_remote_read(r, sd_remote_addr(r), NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_remote_write(r, sd_remote_addr(r), NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_remote_read(r, sd_remote_addr(r), NULL, 0), DOCA_SUCCESS);
	memset(buf, 0x5a, 16);
	assert_int_equal(sd_remote_read(r, sd_remote_addr(r), local, 16), DOCA_SUCCESS);
	assert_true(all_bytes(local, 16, 0x5a));
	assert_int_equal(sd_remote_len(r), sizeof(buf));
	assert_int_equal(sd_remote_card(r), 0);
	assert_int_equal(sd_remote_side(r), other_side());
	assert_string_equal(sd_remote_pci(r), "0000:3b:00.0");
	assert_int_equal(sd_remote_pid(r), getpid());
	assert_true(sd_remote_can_read(r) && sd_remote_can_write(r));
	sd_remote_release(r);
	sd_remote_release(NULL);
	assert_int_equal(sd_remote_len(NULL), 0);
	assert_false(sd_remote_contains(NULL, 0, 0));
	sd_remote_export_free(d);
}

/* ---- data --------------------------------------------------------------- */

static const size_t sizes[] = {0, 1, 7, 4095, 4096, 4097, 65541, MIB, MIB + 3, 8 * MIB, 40 * MIB};

static void test_read_roundtrip(void **state)
{
	const size_t exp_len = 40 * MIB;
	struct rp_reply rep;
	struct sd_remote *r;
	struct fx f;
	uint8_t *local = malloc(exp_len + 128), *want = malloc(exp_len);

	assert_non_null(local);
	assert_non_null(want);
	up(&f);
	export(&f, 0, exp_len, 3, RW, 7, &rep);
	r = import_ok(&rep);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i], off = (n * 31 + 5) % (exp_len - n + 1);

		memset(local, 0xaa, n + 64);
		assert_int_equal(sd_remote_read(r, rep.base + off, local, n), DOCA_SUCCESS);
		rp_pattern(want, off, n, 7);
		assert_memory_equal(local, want, n);
		assert_true(all_bytes(local + n, 64, 0xaa));
	}
	sd_remote_release(r);
	down(&f);
	free(local);
	free(want);
}

static void test_write_roundtrip(void **state)
{
	const size_t exp_len = 40 * MIB + 4096;
	struct rp_reply rep;
	struct sd_remote *r;
	struct fx f;
	uint8_t *src = malloc(exp_len), *back = malloc(exp_len);

	assert_non_null(src);
	assert_non_null(back);
	up(&f);
	/* Huge pages on the exporter's side: copies cross 2 MiB page boundaries. */
	g_export_flags = RP_F_HUGE;
	export(&f, 0, exp_len, 5, RW, 1, &rep);
	g_export_flags = 0;
	r = import_ok(&rep);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i], off = (n * 17 + 64) % (exp_len - n + 1);
		uint64_t before, after;

		if (off < 64)
			off = 64;
		if (off + n + 64 > exp_len)
			off = exp_len - n - 64;
		rp_pattern(src, off, n, 100 + (uint32_t)i);
		before = peer_sum(&f, 0, off - 64, 64);
		after = peer_sum(&f, 0, off + n, 64);
		assert_int_equal(sd_remote_write(r, rep.base + off, src, n), DOCA_SUCCESS);
		assert_int_equal(peer_sum(&f, 0, off, n), rp_fnv(src, n));
		assert_int_equal(peer_sum(&f, 0, off - 64, 64), before);
		assert_int_equal(peer_sum(&f, 0, off + n, 64), after);
		assert_int_equal(sd_remote_read(r, rep.base + off, back, n), DOCA_SUCCESS);
		assert_memory_equal(back, src, n);
	}
	sd_remote_release(r);
	down(&f);
	free(src);
	free(back);
}

static void test_read_only(void **state)
{
	const size_t len = MIB;
	uint8_t *buf = malloc(len);
	struct rp_reply rep;
	struct sd_remote *r;
	struct fx f;

	assert_non_null(buf);
	up(&f);
	export(&f, 0, len, 0, RO, 3, &rep);
	r = import_ok(&rep);
	assert_true(sd_remote_can_read(r));
	assert_false(sd_remote_can_write(r));
	assert_int_equal(sd_remote_read(r, rep.base, buf, len), DOCA_SUCCESS);
	assert_int_equal(rp_fnv(buf, len), pattern_sum(0, len, 3));
	memset(buf, 0, len);
	assert_int_equal(sd_remote_write(r, rep.base, buf, len), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(sd_remote_write(r, rep.base + 10, buf, 1), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(peer_sum(&f, 0, 0, len), pattern_sum(0, len, 3));
	sd_remote_release(r);
	down(&f);
	free(buf);
}

static void test_range_outside(void **state)
{
	const size_t len = MIB;
	struct rp_reply rep;
	struct sd_remote *r;
	struct fx f;
	uint8_t *buf = malloc(len + 16);

	assert_non_null(buf);
	up(&f);
	export(&f, 0, len, 16, RW, 4, &rep);
	r = import_ok(&rep);
	{
		const struct {
			uint64_t addr;
			size_t n;
		} bad[] = {
			{rep.base - 1, 1},   {rep.base - 1, 2},       {rep.base + len, 1}, {rep.base + len - 1, 2},
			{rep.base, len + 1}, {UINT64_MAX - 3, 8},     {0, 1},              {rep.base + 8, SIZE_MAX},
			{rep.base, SIZE_MAX}, {rep.base + len, SIZE_MAX - len + 1},
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			size_t n = bad[i].n > len + 16 ? len + 16 : bad[i].n;

			memset(buf, 0xaa, len + 16);
			assert_false(sd_remote_contains(r, bad[i].addr, bad[i].n));
			assert_int_equal(sd_remote_read(r, bad[i].addr, buf, bad[i].n), DOCA_ERROR_INVALID_VALUE);
			assert_true(all_bytes(buf, n, 0xaa));
			assert_int_equal(sd_remote_write(r, bad[i].addr, buf, bad[i].n), DOCA_ERROR_INVALID_VALUE);
		}
	}
	assert_int_equal(peer_sum(&f, 0, 0, len), pattern_sum(0, len, 4));
	/* The exact bounds are fine. */
	assert_int_equal(sd_remote_read(r, rep.base, buf, len), DOCA_SUCCESS);
	assert_int_equal(sd_remote_read(r, rep.base + len - 1, buf, 1), DOCA_SUCCESS);
	sd_remote_release(r);
	down(&f);
	free(buf);
}

/* ---- descriptors ------------------------------------------------------- */

static void test_truncated_and_flipped(void **state)
{
	uint8_t d[SD_REMOTE_DESC_SIZE + 8];
	const uint8_t masks[] = {0x01, 0x80, 0xff};
	struct rp_reply rep;
	struct sd_remote *r;
	struct fx f;

	up(&f);
	export(&f, 0, 65536, 0, RO, 9, &rep);
	for (size_t n = 0; n < SD_REMOTE_DESC_SIZE; n++) {
		r = NULL;
		assert_int_equal(sd_remote_import(rep.desc, n, CARD, rp_native_side(), &r), DOCA_ERROR_INVALID_VALUE);
		assert_null(r);
	}
	memset(d, 0, sizeof(d));
	memcpy(d, rep.desc, SD_REMOTE_DESC_SIZE);
	assert_int_equal(sd_remote_import(d, SD_REMOTE_DESC_SIZE + 1, CARD, rp_native_side(), &r),
			 DOCA_ERROR_INVALID_VALUE);
	for (size_t i = 0; i < SD_REMOTE_DESC_SIZE; i++) {
		for (size_t m = 0; m < sizeof(masks); m++) {
			doca_error_t err;

			memcpy(d, rep.desc, SD_REMOTE_DESC_SIZE);
			d[i] ^= masks[m];
			r = NULL;
			err = sd_remote_import(d, SD_REMOTE_DESC_SIZE, CARD, rp_native_side(), &r);
			if (err == DOCA_SUCCESS)
				print_error("byte %zu ^ 0x%02x imported\n", i, masks[m]);
			assert_int_not_equal(err, DOCA_SUCCESS);
			assert_null(r);
		}
	}
	/* The genuine one still works and nothing was written. */
	r = import_ok(&rep);
	sd_remote_release(r);
	assert_int_equal(peer_sum(&f, 0, 0, 65536), pattern_sum(0, 65536, 9));
	down(&f);
}

static void resign(struct sd_remote_desc *d)
{
	d->checksum = sd_remote_desc_checksum(d);
}

static doca_error_t import_forged(const struct rp_reply *rep, void (*edit)(struct sd_remote_desc *, void *),
				  void *arg)
{
	struct sd_remote_desc d;
	struct sd_remote *r = NULL;
	doca_error_t err;

	memcpy(&d, rep->desc, sizeof(d));
	edit(&d, arg);
	resign(&d);
	err = sd_remote_import(&d, sizeof(d), CARD, rp_native_side(), &r);
	assert_null(r);
	return err;
}

static void ed_access(struct sd_remote_desc *d, void *a) { d->access = RW; }
static void ed_len(struct sd_remote_desc *d, void *a) { d->len += 4096; }
static void ed_addr(struct sd_remote_desc *d, void *a) { d->addr -= 4096; }
static void ed_token(struct sd_remote_desc *d, void *a) { d->token[5] ^= 1; }
static void ed_pci(struct sd_remote_desc *d, void *a) { d->pci[11] = '1'; }
static void ed_record(struct sd_remote_desc *d, void *a) { d->record += 8; }
static void ed_record_far(struct sd_remote_desc *d, void *a) { d->record = 4096; }
static void ed_start(struct sd_remote_desc *d, void *a) { d->start_time += 1; }
static void ed_pid(struct sd_remote_desc *d, void *a) { d->pid = *(uint32_t *)a; }
static void ed_version(struct sd_remote_desc *d, void *a) { d->version = 2; }
static void ed_side(struct sd_remote_desc *d, void *a) { d->side = 7; }
static void ed_reserved(struct sd_remote_desc *d, void *a) { d->reserved0[1] = 1; }
static void ed_size(struct sd_remote_desc *d, void *a) { d->size = 95; }
static void ed_zero_len(struct sd_remote_desc *d, void *a) { d->len = 0; }

static void test_forged(void **state)
{
	struct rp_reply rep;
	struct sd_remote *r;
	struct fx f;
	uint32_t pid;
	doca_error_t err;
	uint8_t byte = 0;

	up(&f);
	export(&f, 0, 65536, 0, RO, 2, &rep);
	/* Correct checksums, wrong contents: the exporter's record says no. */
	assert_int_equal(import_forged(&rep, ed_access, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(import_forged(&rep, ed_len, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(import_forged(&rep, ed_addr, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(import_forged(&rep, ed_token, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(import_forged(&rep, ed_pci, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(import_forged(&rep, ed_record, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(import_forged(&rep, ed_record_far, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(import_forged(&rep, ed_version, NULL), DOCA_ERROR_UNSUPPORTED_VERSION);
	assert_int_equal(import_forged(&rep, ed_side, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(import_forged(&rep, ed_reserved, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(import_forged(&rep, ed_size, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(import_forged(&rep, ed_zero_len, NULL), DOCA_ERROR_INVALID_VALUE);
	/* Another process, or a recycled pid: seen as "the exporter has gone". */
	assert_int_equal(import_forged(&rep, ed_start, NULL), DOCA_ERROR_NOT_FOUND);
	pid = (uint32_t)getpid();
	err = import_forged(&rep, ed_pid, &pid);
	assert_true(err == DOCA_ERROR_NOT_FOUND);
	pid = 1;
	err = import_forged(&rep, ed_pid, &pid);
	assert_true(err == DOCA_ERROR_NOT_FOUND || err == DOCA_ERROR_NOT_PERMITTED);
	pid = 0x7ffffff0u; /* beyond any pid_max */
	assert_int_equal(import_forged(&rep, ed_pid, &pid), DOCA_ERROR_NOT_FOUND);
	/* The exporter's memory is intact and the real descriptor still read-only. */
	r = import_ok(&rep);
	assert_int_equal(sd_remote_write(r, rep.base, &byte, 1), DOCA_ERROR_NOT_PERMITTED);
	sd_remote_release(r);
	assert_int_equal(peer_sum(&f, 0, 0, 65536), pattern_sum(0, 65536, 2));
	down(&f);
}

static void test_card_and_side(void **state)
{
	struct rp_reply rep;
	struct sd_remote *r = NULL;
	struct fx f;

	up(&f);
	export(&f, 0, 4096, 0, RW, 1, &rep);
	assert_int_equal(sd_remote_import(rep.desc, rep.desc_len, CARD + 1, rp_native_side(), &r),
			 DOCA_ERROR_NOT_PERMITTED);
	assert_null(r);
	/* Exported on card 1, imported on card 1: fine. */
	export_as(&f, 1, 4096, 0, RW, 1, f.export_side, 1, &rep);
	assert_int_equal(sd_remote_import(rep.desc, rep.desc_len, 1, rp_native_side(), &r), DOCA_SUCCESS);
	sd_remote_release(r);
	r = NULL;
	/* Exported as this same side: refused. */
	export_as(&f, 2, 4096, 0, RW, CARD, (int)rp_native_side(), 1, &rep);
	assert_int_equal(sd_remote_import(rep.desc, rep.desc_len, CARD, rp_native_side(), &r),
			 DOCA_ERROR_NOT_PERMITTED);
	assert_null(r);
	down(&f);
}

/* ---- the exporter goes away --------------------------------------------- */

static void test_dead_exporter(void **state)
{
	struct rp_reply rep;
	struct sd_remote *r = NULL;
	uint8_t buf[4096];
	siginfo_t si;
	struct fx f;

	/* Exited before the import. */
	up(&f);
	export(&f, 0, 4096, 0, RW, 1, &rep);
	crash_and_reap(&f);
	assert_int_equal(sd_remote_import(rep.desc, rep.desc_len, CARD, rp_native_side(), &r), DOCA_ERROR_NOT_FOUND);
	assert_null(r);

	/* Exited after the import, not reaped yet (a zombie), then reaped. */
	up(&f);
	export(&f, 0, 4096, 0, RW, 1, &rep);
	r = import_ok(&rep);
	peer_op(&f, RP_CRASH, 0);
	assert_int_equal(waitid(P_PID, (id_t)f.peer.pid, &si, WEXITED | WNOWAIT), 0);
	memset(buf, 0xaa, sizeof(buf));
	assert_int_equal(sd_remote_read(r, rep.base, buf, sizeof(buf)), DOCA_ERROR_CONNECTION_RESET);
	assert_true(all_bytes(buf, sizeof(buf), 0xaa));
	{
		struct sd_remote *r2 = NULL;

		assert_int_equal(sd_remote_import(rep.desc, rep.desc_len, CARD, rp_native_side(), &r2), DOCA_ERROR_NOT_FOUND);
		assert_null(r2);
	}
	assert_int_equal(waitpid(f.peer.pid, NULL, 0), f.peer.pid);
	f.peer.pid = 0;
	assert_int_equal(sd_remote_read(r, rep.base, buf, sizeof(buf)), DOCA_ERROR_CONNECTION_RESET);
	assert_int_equal(sd_remote_write(r, rep.base, buf, sizeof(buf)), DOCA_ERROR_CONNECTION_RESET);
	assert_true(all_bytes(buf, sizeof(buf), 0xaa));
	sd_remote_release(r);
	close(f.peer.fd);
}

static void test_revoked_and_unmapped(void **state)
{
	struct rp_reply rep, rep2;
	struct sd_remote *r, *r2 = NULL;
	uint8_t buf[4096];
	struct fx f;
	doca_error_t err;

	up(&f);
	export(&f, 0, 65536, 0, RW, 1, &rep);
	r = import_ok(&rep);
	peer_op(&f, RP_UNEXPORT, 0);
	memset(buf, 0xaa, sizeof(buf));
	assert_int_equal(sd_remote_read(r, rep.base, buf, sizeof(buf)), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(sd_remote_write(r, rep.base, buf, sizeof(buf)), DOCA_ERROR_NOT_FOUND);
	assert_true(all_bytes(buf, sizeof(buf), 0xaa));
	assert_int_equal(peer_sum(&f, 0, 0, 65536), pattern_sum(0, 65536, 1));
	err = sd_remote_import(rep.desc, rep.desc_len, CARD, rp_native_side(), &r2);
	assert_true(err == DOCA_ERROR_NOT_FOUND || err == DOCA_ERROR_INVALID_VALUE);
	assert_null(r2);
	sd_remote_release(r);

	/* Memory unmapped by the exporter while still exported. */
	export(&f, 1, 65536, 0, RW, 1, &rep2);
	r = import_ok(&rep2);
	peer_op(&f, RP_UNMAP, 1);
	assert_int_equal(sd_remote_read(r, rep2.base, buf, sizeof(buf)), DOCA_ERROR_IO_FAILED);
	assert_int_equal(sd_remote_write(r, rep2.base, buf, sizeof(buf)), DOCA_ERROR_IO_FAILED);
	sd_remote_release(r);
	down(&f);
}

struct reader {
	struct sd_remote *r;
	uint64_t base;
	size_t len;
	uint8_t *buf;
	doca_error_t err;
	unsigned rounds;
};

static void *reader_main(void *arg)
{
	struct reader *rd = arg;

	for (;;) {
		rd->err = sd_remote_read(rd->r, rd->base, rd->buf, rd->len);
		if (rd->err != DOCA_SUCCESS)
			break;
		rd->rounds++;
	}
	return NULL;
}

static void test_dies_midway(void **state)
{
	struct timespec ts = {0, 30 * 1000 * 1000};
	struct reader rd = {0};
	struct rp_reply rep;
	pthread_t t;
	struct fx f;

	up(&f);
	export(&f, 0, 64 * MIB, 0, RW, 1, &rep);
	rd.r = import_ok(&rep);
	rd.base = rep.base;
	rd.len = 64 * MIB;
	rd.buf = malloc(rd.len);
	assert_non_null(rd.buf);
	assert_int_equal(pthread_create(&t, NULL, reader_main, &rd), 0);
	nanosleep(&ts, NULL);
	kill(f.peer.pid, SIGKILL);
	assert_int_equal(waitpid(f.peer.pid, NULL, 0), f.peer.pid);
	f.peer.pid = 0;
	pthread_join(t, NULL);
	assert_int_equal(rd.err, DOCA_ERROR_CONNECTION_RESET);
	assert_int_equal(sd_remote_write(rd.r, rd.base, rd.buf, rd.len), DOCA_ERROR_CONNECTION_RESET);
	sd_remote_release(rd.r);
	free(rd.buf);
	close(f.peer.fd);
}

/* The kernel refuses process_vm_readv/writev (a seccomp filter, as container
 * profiles do): the import falls back to /proc/<pid>/mem by itself. */
static int refuse_pvm(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_writev, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};
	struct sock_fprog prog = {sizeof(f) / sizeof(f[0]), f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static void test_kernel_refuses_pvm(void **state)
{
	const size_t len = 2 * MIB;
	struct rp_reply rep;
	struct fx f;
	pid_t child;
	int st;

	up(&f);
	export(&f, 0, len, 0, RW, 11, &rep);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct sd_remote *r = NULL;
		uint8_t *buf = malloc(len);
		int code = 0;

		if (buf == NULL || refuse_pvm() != 0)
			_exit(10);
		if (sd_remote_import(rep.desc, rep.desc_len, CARD, rp_native_side(), &r) != DOCA_SUCCESS)
			_exit(11);
		if (strcmp(sd_remote_mechanism(r), "shared+proc_mem") != 0)
			code = 12;
		else if (sd_remote_read(r, rep.base, buf, len) != DOCA_SUCCESS || rp_fnv(buf, len) != pattern_sum(0, len, 11))
			code = 13;
		rp_pattern(buf, 0, len, 12);
		if (code == 0 && sd_remote_write(r, rep.base, buf, len) != DOCA_SUCCESS)
			code = 14;
		sd_remote_release(r);
		free(buf);
		_exit(code);
	}
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(peer_sum(&f, 0, 0, len), pattern_sum(0, len, 12));
	down(&f);
}

/* ---- pages moved onto shared memory at export ---------------------------- */

#define PG 4096u

static uint64_t peer_moved(struct fx *f, uint32_t slot, uint64_t off, uint64_t len, uint64_t *base)
{
	struct rp_cmd c = {.op = RP_MOVED, .slot = slot, .a = off, .b = len};
	struct rp_reply r;

	assert_int_equal(rp_call(&f->peer, &c, &r), 0);
	assert_int_equal(r.status, DOCA_SUCCESS);
	if (base != NULL)
		*base = r.base;
	return r.value;
}

static void peer_fill(struct fx *f, uint32_t slot, uint32_t seed)
{
	struct rp_cmd c = {.op = RP_FILL, .slot = slot, .seed = seed};
	struct rp_reply r;

	assert_int_equal(rp_call(&f->peer, &c, &r), 0);
	assert_int_equal(r.status, DOCA_SUCCESS);
}

/* The exporter keeps its addresses and bytes, both sides see each other's
 * writes, and the importer copies by loads and stores (mmap'd memory and
 * brk-heap memory alike). */
static void moved_case(uint32_t flags)
{
	const size_t len = 4 * MIB;
	uint8_t *buf = malloc(len), *want = malloc(len);
	struct rp_reply rep;
	struct sd_remote *r;
	uint64_t base;
	struct fx f;

	assert_non_null(buf);
	assert_non_null(want);
	up(&f);
	g_export_flags = flags;
	export(&f, 0, len, 0, RW, 31, &rep);
	g_export_flags = 0;
	r = import_ok(&rep);
	/* malloc'd memory starts 16 bytes into a page: everything but the ends moves */
	assert_string_equal(sd_remote_mechanism(r), "shared+process_vm");
	assert_true(sd_remote_shared_len(r) >= len - 2 * PG);
	assert_int_equal(peer_moved(&f, 0, PG, len - 2 * PG, &base), 1);
	assert_int_equal(base, rep.base);
	/* content kept: the exporter reads its pattern, so does the importer */
	assert_int_equal(peer_sum(&f, 0, 0, len), pattern_sum(0, len, 31));
	assert_int_equal(sd_remote_read(r, rep.base, buf, len), DOCA_SUCCESS);
	assert_int_equal(rp_fnv(buf, len), pattern_sum(0, len, 31));
	/* importer -> exporter */
	rp_pattern(buf, 0, len, 32);
	assert_int_equal(sd_remote_write(r, rep.base, buf, len), DOCA_SUCCESS);
	assert_int_equal(peer_sum(&f, 0, 0, len), rp_fnv(buf, len));
	/* exporter -> importer (the exporter writes through its own pointers) */
	peer_fill(&f, 0, 33);
	assert_int_equal(sd_remote_read(r, rep.base, buf, len), DOCA_SUCCESS);
	rp_pattern(want, 0, len, 33);
	assert_memory_equal(buf, want, len);
	sd_remote_release(r);
	/* the pages stay moved (and valid) once the export is gone */
	peer_op(&f, RP_UNEXPORT, 0);
	assert_int_equal(peer_moved(&f, 0, PG, len - 2 * PG, NULL), 1);
	assert_int_equal(peer_sum(&f, 0, 0, len), pattern_sum(0, len, 33));
	/* and a new export of them moves them again, content kept */
	{
		struct rp_cmd c = {.op = RP_REEXPORT, .slot = 0};

		assert_int_equal(rp_call(&f.peer, &c, &rep), 0);
		assert_int_equal(rep.status, DOCA_SUCCESS);
	}
	r = import_ok(&rep);
	assert_string_equal(sd_remote_mechanism(r), "shared+process_vm");
	assert_int_equal(sd_remote_read(r, rep.base, buf, len), DOCA_SUCCESS);
	assert_memory_equal(buf, want, len);
	rp_pattern(buf, 0, len, 34);
	assert_int_equal(sd_remote_write(r, rep.base, buf, len), DOCA_SUCCESS);
	assert_int_equal(peer_sum(&f, 0, 0, len), pattern_sum(0, len, 34));
	sd_remote_release(r);
	down(&f);
	free(buf);
	free(want);
}

static void test_moved_mmap(void **state)
{
	moved_case(0);
}

static void test_moved_heap(void **state)
{
	moved_case(RP_F_HEAP);
}

/* Unaligned ends stay on the kernel path: every access across the seams
 * between the two paths is byte-exact and touches nothing around it. */
static void test_unaligned_edges(void **state)
{
	const size_t len = MIB + 2 * PG + 123, off = 77;
	uint8_t *src = malloc(len), *back = malloc(len + 16);
	struct rp_reply rep;
	struct sd_remote *r;
	uint64_t h, t, end;
	struct fx f;

	assert_non_null(src);
	assert_non_null(back);
	up(&f);
	export(&f, 0, len, off, RW, 41, &rep);
	r = import_ok(&rep);
	end = rep.base + len;
	h = (rep.base + PG - 1) & ~(uint64_t)(PG - 1);
	t = end & ~(uint64_t)(PG - 1);
	if (!g_fallback) {
		assert_int_equal(sd_remote_shared_len(r), t - h);
		assert_int_equal(peer_moved(&f, 0, h - rep.base, t - h, NULL), 1);
		assert_int_equal(peer_moved(&f, 0, 0, h - rep.base, NULL), 0);
	}
	assert_int_equal(sd_remote_read(r, rep.base, back, len), DOCA_SUCCESS);
	assert_int_equal(rp_fnv(back, len), pattern_sum(0, len, 41));
	{
		const uint64_t win[][2] = {
			{rep.base, len}, {rep.base, h - rep.base}, {h - 5, 10}, {h, 1}, {h - 1, 1}, {t - 7, 16},
			{t, end - t}, {t - 1, end - t + 1}, {rep.base + 3, h - rep.base}, {h - 9, t - h + 18},
		};

		for (size_t i = 0; i < sizeof(win) / sizeof(win[0]); i++) {
			uint64_t o = win[i][0] - rep.base, n = win[i][1], before = 0, after = 0;

			rp_pattern(src, o, n, 50 + (uint32_t)i);
			if (o >= 32)
				before = peer_sum(&f, 0, o - 32, 32);
			if (o + n + 32 <= len)
				after = peer_sum(&f, 0, o + n, 32);
			assert_int_equal(sd_remote_write(r, win[i][0], src, n), DOCA_SUCCESS);
			assert_int_equal(peer_sum(&f, 0, o, n), rp_fnv(src, n));
			if (o >= 32)
				assert_int_equal(peer_sum(&f, 0, o - 32, 32), before);
			if (o + n + 32 <= len)
				assert_int_equal(peer_sum(&f, 0, o + n, 32), after);
			memset(back, 0xaa, n + 16);
			assert_int_equal(sd_remote_read(r, win[i][0], back, n), DOCA_SUCCESS);
			assert_memory_equal(back, src, n);
			assert_true(all_bytes(back + n, 16, 0xaa));
		}
	}
	sd_remote_release(r);
	down(&f);
	free(src);
	free(back);
}

/* SOFTDOCA_REMOTE_NO_MOVE=1 in the exporter keeps the pages where they are
 * (the kernel path, still correct); junk fails the export. */
static void test_no_move_switch(void **state)
{
	const size_t len = 2 * MIB;
	uint8_t *buf = malloc(len);
	struct rp_cmd c = {.op = RP_EXPORT, .slot = 1, .a = len, .access = RW, .card = CARD, .seed = 1};
	struct rp_reply rep;
	struct sd_remote *r;
	struct fx f;

	assert_non_null(buf);
	setenv("SOFTDOCA_REMOTE_NO_MOVE", "1", 1);
	up(&f);
	unsetenv("SOFTDOCA_REMOTE_NO_MOVE");
	export(&f, 0, len, 0, RW, 61, &rep);
	r = import_ok(&rep);
	assert_string_equal(sd_remote_mechanism(r), g_fallback ? "proc_mem" : "process_vm");
	assert_int_equal(sd_remote_shared_len(r), 0);
	assert_int_equal(peer_moved(&f, 0, 0, len, NULL), 0);
	assert_int_equal(sd_remote_read(r, rep.base, buf, len), DOCA_SUCCESS);
	assert_int_equal(rp_fnv(buf, len), pattern_sum(0, len, 61));
	rp_pattern(buf, 0, len, 62);
	assert_int_equal(sd_remote_write(r, rep.base, buf, len), DOCA_SUCCESS);
	assert_int_equal(peer_sum(&f, 0, 0, len), rp_fnv(buf, len));
	sd_remote_release(r);
	down(&f);

	setenv("SOFTDOCA_REMOTE_NO_MOVE", "yes", 1);
	up(&f);
	unsetenv("SOFTDOCA_REMOTE_NO_MOVE");
	c.side = f.export_side;
	assert_int_equal(rp_call(&f.peer, &c, &rep), 0);
	assert_int_equal(rep.status, DOCA_ERROR_INVALID_VALUE);
	down(&f);
	free(buf);
}

/* VmLck of a process, in kB. */
static unsigned long peer_locked_kb(pid_t pid)
{
	char path[64], line[256];
	unsigned long kb = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fp = fopen(path, "re");
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "VmLck: %lu", &kb) == 1)
			break;
	fclose(fp);
	return kb;
}

/* Memory whose mapping a shared memfd would not reproduce (here: locked)
 * stays where it is, and the kernel path serves it. */
static void test_locked_stays(void **state)
{
	const size_t len = MIB;
	uint8_t *buf = malloc(len);
	struct rp_reply rep;
	struct sd_remote *r;
	struct fx f;

	assert_non_null(buf);
	up(&f);
	g_export_flags = RP_F_LOCKED;
	export(&f, 0, len, 0, RW, 91, &rep);
	g_export_flags = 0;
	if (peer_locked_kb(f.peer.pid) == 0) {
		/* AddressSanitizer's mlock() is a no-op: nothing is locked to test */
		down(&f);
		free(buf);
		skip();
	}
	r = import_ok(&rep);
	assert_string_equal(sd_remote_mechanism(r), "process_vm");
	assert_int_equal(peer_moved(&f, 0, 0, len, NULL), 0);
	assert_int_equal(sd_remote_read(r, rep.base, buf, len), DOCA_SUCCESS);
	assert_int_equal(rp_fnv(buf, len), pattern_sum(0, len, 91));
	rp_pattern(buf, 0, len, 92);
	assert_int_equal(sd_remote_write(r, rep.base, buf, len), DOCA_SUCCESS);
	assert_int_equal(peer_sum(&f, 0, 0, len), rp_fnv(buf, len));
	sd_remote_release(r);
	down(&f);
	free(buf);
}

/* Two exports of the same memory share one move: importers of either see
 * the same bytes, and freeing one leaves the other working. */
static void test_reexport_shares(void **state)
{
	const size_t len = 2 * MIB;
	uint8_t *buf = malloc(len), *back = malloc(len);
	struct rp_cmd c = {.op = RP_REEXPORT, .slot = 0};
	struct rp_reply rep, rep2;
	struct sd_remote *r, *r2;
	struct fx f;

	assert_non_null(buf);
	assert_non_null(back);
	up(&f);
	export(&f, 0, len, 0, RW, 71, &rep);
	assert_int_equal(rp_call(&f.peer, &c, &rep2), 0);
	assert_int_equal(rep2.status, DOCA_SUCCESS);
	r = import_ok(&rep);
	r2 = import_ok(&rep2);
	assert_int_equal(sd_remote_shared_len(r), len);
	assert_int_equal(sd_remote_shared_len(r2), len);
	rp_pattern(buf, 0, len, 72);
	assert_int_equal(sd_remote_write(r, rep.base, buf, len), DOCA_SUCCESS);
	assert_int_equal(sd_remote_read(r2, rep.base, back, len), DOCA_SUCCESS);
	assert_memory_equal(back, buf, len);
	peer_op(&f, RP_UNEXPORT, 0);
	assert_int_equal(sd_remote_read(r, rep.base, back, 16), DOCA_ERROR_NOT_FOUND);
	rp_pattern(buf, 0, len, 73);
	assert_int_equal(sd_remote_write(r2, rep.base, buf, len), DOCA_SUCCESS);
	assert_int_equal(peer_sum(&f, 0, 0, len), rp_fnv(buf, len));
	sd_remote_release(r);
	sd_remote_release(r2);
	down(&f);
	free(buf);
	free(back);
}

/* Another user reaches neither the export nor the memfd behind it. */
static void test_other_uid(void **state)
{
	const uid_t nobody = 65534;
	char fdpath[PATH_MAX] = "", dir[64], link[PATH_MAX], target[PATH_MAX];
	struct rp_reply rep;
	struct dirent *de;
	struct fx f;
	pid_t child;
	DIR *d;
	int st;

	if (geteuid() != 0)
		skip();
	up(&f);
	export(&f, 0, MIB, 0, RW, 81, &rep);
	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)f.peer.pid);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		ssize_t n;

		snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			if (strstr(target, "memfd:softdoca-export") != NULL)
				snprintf(fdpath, sizeof(fdpath), "%s", link);
		}
	}
	closedir(d);
	assert_true(fdpath[0] != '\0');
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct sd_remote *r = NULL;
		int code = 0;

		if (setgroups(0, NULL) != 0 || setgid(nobody) != 0 || setuid(nobody) != 0 || geteuid() != nobody)
			_exit(20);
		if (sd_remote_import(rep.desc, rep.desc_len, CARD, rp_native_side(), &r) != DOCA_ERROR_NOT_PERMITTED)
			code = 21;
		else if (open(fdpath, O_RDONLY | O_CLOEXEC) >= 0)
			code = 22;
		_exit(code);
	}
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(peer_sum(&f, 0, 0, MIB), pattern_sum(0, MIB, 81));
	down(&f);
}

/* ---- setup --------------------------------------------------------------- */

static int use_primary(void **state)
{
	g_fallback = false;
	unsetenv("SOFTDOCA_REMOTE_FORCE_FALLBACK");
	return 0;
}

static int use_fallback(void **state)
{
	g_fallback = true;
	setenv("SOFTDOCA_REMOTE_FORCE_FALLBACK", "1", 1);
	return 0;
}

static void find_peer(void)
{
	const char *pb = getenv("SOFTDOCA_PEER_BUILD_DIR");
	char self[PATH_MAX];
	ssize_t n;

	if (pb != NULL && pb[0] != '\0') {
		snprintf(peer_exe, sizeof(peer_exe), "%s/tests/remote/remote_peer", pb);
		if (access(peer_exe, X_OK) == 0) {
			cross_flavor = true;
			return;
		}
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(peer_exe, sizeof(peer_exe), "%s/remote_peer", self);
}

#define BOTH(fn) cmocka_unit_test_setup(fn, use_primary), cmocka_unit_test_setup(fn, use_fallback)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_export_args),
		BOTH(test_import_args),
		BOTH(test_read_roundtrip),
		BOTH(test_write_roundtrip),
		BOTH(test_read_only),
		BOTH(test_range_outside),
		BOTH(test_truncated_and_flipped),
		BOTH(test_forged),
		BOTH(test_card_and_side),
		BOTH(test_dead_exporter),
		BOTH(test_revoked_and_unmapped),
		BOTH(test_dies_midway),
		cmocka_unit_test_setup(test_kernel_refuses_pvm, use_primary),
		cmocka_unit_test_setup(test_moved_mmap, use_primary),
		cmocka_unit_test_setup(test_moved_heap, use_primary),
		BOTH(test_unaligned_edges),
		BOTH(test_no_move_switch),
		cmocka_unit_test_setup(test_reexport_shares, use_primary),
		cmocka_unit_test_setup(test_locked_stays, use_primary),
		cmocka_unit_test_setup(test_other_uid, use_primary),
	};

	signal(SIGPIPE, SIG_IGN);
	find_peer();
	printf("# exporter: %s (%s)\n", peer_exe, cross_flavor ? "other flavor" : "same build, explicit side");
	return cmocka_run_group_tests_name("remote", tests, NULL, NULL);
}
