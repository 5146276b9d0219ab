/* Unit test of the fast-path shared-memory ring alone (no library). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cmocka.h>

#include "fastpath_ring.h"

struct region {
	struct sd_fp_params p;
	size_t size;
	void *base;
	struct sd_fp_tx tx;
	struct sd_fp_rx rx;
};

static void region_make(struct region *r, uint32_t ntasks, uint32_t max_msg, uint32_t imm)
{
	sd_fp_params_fill(&r->p, 7, ntasks, max_msg, imm);
	r->size = sd_fp_region_size(&r->p);
	r->base = aligned_alloc(4096, (r->size + 4095) & ~(size_t)4095);
	assert_non_null(r->base);
	memset(r->base, 0, r->size);
	sd_fp_region_init(r->base, r->size, &r->p, 1234);
	sd_fp_rx_init(&r->rx, r->base);
}

static void region_map(struct region *r)
{
	struct sd_fp_params q;

	assert_int_equal(sd_fp_region_check(r->base, r->size, &q), DOCA_SUCCESS);
	assert_int_equal(q.qcap, r->p.qcap);
	assert_int_equal(q.ring_size, r->p.ring_size);
	sd_fp_tx_init(&r->tx, r->base, &q);
}

static doca_error_t send_one(struct region *r, uint32_t len, uint8_t seed, uint32_t imm_len)
{
	uint8_t *pl, *imm;
	doca_error_t e = sd_fp_tx_reserve(&r->tx, len, imm_len, 99, &pl, &imm);

	if (e != DOCA_SUCCESS)
		return e;
	for (uint32_t i = 0; i < len; i++)
		pl[i] = (uint8_t)(seed + i * 7);
	for (uint32_t i = 0; i < imm_len; i++)
		imm[i] = (uint8_t)(seed ^ i);
	sd_fp_tx_commit(&r->tx);
	return DOCA_SUCCESS;
}

static void recv_one(struct region *r, uint32_t len, uint8_t seed, uint32_t imm_len)
{
	struct sd_fp_msg m;

	assert_int_equal(sd_fp_rx_peek(&r->rx, &m), 1);
	assert_int_equal(m.len, len);
	assert_int_equal(m.imm_len, imm_len);
	assert_int_equal(m.producer_id, 99);
	for (uint32_t i = 0; i < len; i++)
		assert_int_equal(m.payload[i], (uint8_t)(seed + i * 7));
	for (uint32_t i = 0; i < imm_len; i++)
		assert_int_equal(m.imm[i], (uint8_t)(seed ^ i));
	sd_fp_rx_release(&r->rx);
}

static void test_credits_and_order(void **state)
{
	struct region r;

	region_make(&r, 4, 4096, 16);
	region_map(&r);
	/* no buffer posted: back-pressure */
	assert_int_equal(send_one(&r, 64, 1, 0), DOCA_ERROR_AGAIN);
	sd_fp_rx_post(&r.rx, 128);
	sd_fp_rx_post(&r.rx, 4096);
	/* larger than the posted buffer it would land in */
	assert_int_equal(send_one(&r, 129, 1, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(send_one(&r, 128, 1, 16), DOCA_SUCCESS);
	/* over the consumer's limits */
	assert_int_equal(send_one(&r, 4097, 2, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(send_one(&r, 64, 2, 17), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(send_one(&r, 4096, 2, 3), DOCA_SUCCESS);
	assert_int_equal(send_one(&r, 1, 3, 0), DOCA_ERROR_AGAIN);
	recv_one(&r, 128, 1, 16);
	recv_one(&r, 4096, 2, 3);
	struct sd_fp_msg m;
	assert_int_equal(sd_fp_rx_peek(&r.rx, &m), 0);
	/* a stopped consumer takes nothing more */
	sd_fp_rx_post(&r.rx, 128);
	sd_fp_rx_close(&r.rx);
	assert_int_equal(send_one(&r, 8, 4, 0), DOCA_ERROR_NOT_FOUND);
	free(r.base);
}

static void test_wrap_every_size(void **state)
{
	struct region r;
	uint32_t max = 70000;

	region_make(&r, 8, max, 32);
	region_map(&r);
	/* enough traffic to wrap the ring many times, sizes 0..max */
	for (uint32_t len = 0, n = 0; len <= max; len += (len < 300 ? 1 : 997), n++) {
		sd_fp_rx_post(&r.rx, max);
		assert_int_equal(send_one(&r, len, (uint8_t)n, len % 33), DOCA_SUCCESS);
		recv_one(&r, len, (uint8_t)n, len % 33);
	}
	/* fill the ring until it pushes back, then drain */
	uint32_t sent = 0;
	for (;;) {
		if (r.rx.posted - r.rx.received < r.p.qcap)
			sd_fp_rx_post(&r.rx, max);
		doca_error_t e = send_one(&r, max, (uint8_t)sent, 0);
		if (e == DOCA_ERROR_AGAIN)
			break;
		assert_int_equal(e, DOCA_SUCCESS);
		sent++;
	}
	assert_true(sent > 0);
	for (uint32_t i = 0; i < sent; i++)
		recv_one(&r, max, (uint8_t)i, 0);
	free(r.base);
}

static void test_soft_wrap(void **state)
{
	struct region r;
	uint64_t max_off = 0;

	region_make(&r, 8, 4096, 0);
	region_map(&r);
	/* a consumer that keeps up: the ring's used bytes stay near the start */
	for (uint32_t n = 0; n < 4000; n++) {
		uint64_t off;

		sd_fp_rx_post(&r.rx, 4096);
		assert_int_equal(send_one(&r, 4096, (uint8_t)n, 0), DOCA_SUCCESS);
		off = r.tx.tail & (r.p.ring_size - 1);
		if (off > max_off)
			max_off = off;
		recv_one(&r, 4096, (uint8_t)n, 0);
	}
	assert_true(max_off <= SD_FP_SOFT_WRAP + 16 * sd_fp_rec_size(4096, 0));
	assert_true(max_off < r.p.ring_size / 2);
	free(r.base);
}

static void test_header_validation(void **state)
{
	struct region r;
	struct sd_fp_params q;
	struct sd_fp_shm_hdr *h;

	region_make(&r, 4, 1024, 8);
	h = r.base;
	assert_int_equal(sd_fp_region_check(NULL, r.size, &q), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_fp_region_check(r.base, 10, &q), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_fp_region_check(r.base, r.size - 64, &q), DOCA_ERROR_INVALID_VALUE);
	h->magic ^= 1;
	assert_int_equal(sd_fp_region_check(r.base, r.size, &q), DOCA_ERROR_INVALID_VALUE);
	h->magic ^= 1;
	h->version = 9;
	assert_int_equal(sd_fp_region_check(r.base, r.size, &q), DOCA_ERROR_UNSUPPORTED_VERSION);
	h->version = SD_FP_VERSION;
	h->qcap = 3;
	assert_int_equal(sd_fp_region_check(r.base, r.size, &q), DOCA_ERROR_INVALID_VALUE);
	h->qcap = r.p.qcap;
	h->ring_size *= 2;
	assert_int_equal(sd_fp_region_check(r.base, r.size, &q), DOCA_ERROR_INVALID_VALUE);
	h->ring_size = r.p.ring_size;
	h->ring_off += 64;
	assert_int_equal(sd_fp_region_check(r.base, r.size, &q), DOCA_ERROR_INVALID_VALUE);
	h->ring_off -= 64;
	h->imm_len = 1000;
	assert_int_equal(sd_fp_region_check(r.base, r.size, &q), DOCA_ERROR_INVALID_VALUE);
	h->imm_len = r.p.imm_len;
	h->max_msg = (uint32_t)r.p.ring_size;
	assert_int_equal(sd_fp_region_check(r.base, r.size, &q), DOCA_ERROR_INVALID_VALUE);
	h->max_msg = r.p.max_msg;
	assert_int_equal(sd_fp_region_check(r.base, r.size, &q), DOCA_SUCCESS);
	free(r.base);
}

static void test_hostile_counters(void **state)
{
	struct region r;
	struct sd_fp_shm_hdr *h;

	region_make(&r, 4, 1024, 8);
	region_map(&r);
	h = r.base;
	/* consumer claims more credits than its queue holds */
	h->posted = 1000;
	assert_int_equal(send_one(&r, 8, 1, 0), DOCA_ERROR_UNEXPECTED);
	assert_int_equal(send_one(&r, 8, 1, 0), DOCA_ERROR_UNEXPECTED);
	free(r.base);

	region_make(&r, 4, 1024, 8);
	region_map(&r);
	h = r.base;
	sd_fp_rx_post(&r.rx, 1024);
	sd_fp_rx_post(&r.rx, 1024);
	sd_fp_rx_post(&r.rx, 1024);
	sd_fp_rx_post(&r.rx, 1024);
	/* fill the ring so that the producer must read head, then lie about it */
	r.tx.head_cache = 0;
	r.tx.tail = r.p.ring_size - 64;
	h->head = r.p.ring_size * 4;
	assert_int_equal(send_one(&r, 1024, 1, 0), DOCA_ERROR_UNEXPECTED);
	free(r.base);
}

static void test_corrupt_records(void **state)
{
	struct region r;
	struct sd_fp_msg m;
	struct sd_fp_rec *rec;

	region_make(&r, 4, 1024, 8);
	region_map(&r);
	sd_fp_rx_post(&r.rx, 1024);
	assert_int_equal(send_one(&r, 100, 1, 0), DOCA_SUCCESS);
	rec = (struct sd_fp_rec *)r.rx.ring;
	rec->len = 5000; /* above max_msg */
	assert_int_equal(sd_fp_rx_peek(&r.rx, &m), -1);
	rec->len = 1000; /* within max_msg but beyond what was published */
	assert_int_equal(sd_fp_rx_peek(&r.rx, &m), -1);
	rec->len = 100;
	rec->imm_len = 9;
	assert_int_equal(sd_fp_rx_peek(&r.rx, &m), -1);
	rec->imm_len = 0;
	rec->flags = 0x80;
	assert_int_equal(sd_fp_rx_peek(&r.rx, &m), -1);
	rec->flags = 0;
	/* tail running ahead of the ring */
	r.rx.hdr->tail = r.p.ring_size * 3;
	r.rx.tail_cache = 0;
	assert_int_equal(sd_fp_rx_peek(&r.rx, &m), -1);
	r.rx.hdr->tail = sd_fp_rec_size(100, 0);
	assert_int_equal(sd_fp_rx_peek(&r.rx, &m), 1);
	assert_int_equal(m.len, 100);
	sd_fp_rx_release(&r.rx);
	/* a wrap record claiming more than was published */
	sd_fp_rx_post(&r.rx, 1024);
	rec = (struct sd_fp_rec *)(r.rx.ring + r.rx.head);
	rec->flags = SD_FP_REC_WRAP;
	r.rx.hdr->tail = r.rx.head + 64;
	assert_int_equal(sd_fp_rx_peek(&r.rx, &m), -1);
	free(r.base);
}

/* Direct placement: payloads land in the consumer's buffers (a stand-in
 * for its shared receive memory), the ring carries header and imm only;
 * every destination the consumer names is checked against the mapping's
 * length and the credit's capacity, anything else falls back to the ring. */
static void test_direct(void **state)
{
	enum { DLEN = 4 * 4096 };
	uint8_t *mem = calloc(1, DLEN), *pl, *imm;
	uint64_t tail0, used;
	struct region r;
	struct sd_fp_msg m;
	bool direct;

	assert_non_null(mem);
	region_make(&r, 16, 8192, 8);
	region_map(&r);
	r.tx.dbase = mem;
	r.tx.dlen = DLEN;

	/* a consumer that offered no receive memory takes DIRECT as garbage */
	sd_fp_rx_post_at(&r.rx, 4096, 0);
	assert_int_equal(sd_fp_tx_reserve_direct(&r.tx, 2048, 0, 99, &pl, &imm, &direct), DOCA_SUCCESS);
	assert_true(direct);
	sd_fp_tx_commit(&r.tx);
	assert_int_equal(sd_fp_rx_peek(&r.rx, &m), -1);
	r.rx.direct_ok = true;
	assert_int_equal(sd_fp_rx_peek(&r.rx, &m), 1);
	assert_true(m.direct);
	sd_fp_rx_release(&r.rx);

	/* an honest destination: direct, only header + imm in the ring */
	sd_fp_rx_post_at(&r.rx, 4096, 4096);
	tail0 = r.tx.tail;
	assert_int_equal(sd_fp_tx_reserve_direct(&r.tx, 3000, 8, 99, &pl, &imm, &direct), DOCA_SUCCESS);
	assert_true(direct);
	assert_ptr_equal(pl, mem + 4096);
	memset(pl, 0xab, 3000);
	memset(imm, 0x11, 8);
	sd_fp_tx_commit(&r.tx);
	used = r.tx.tail - tail0;
	assert_int_equal(used, sd_fp_rec_size(0, 8));
	assert_int_equal(sd_fp_rx_peek(&r.rx, &m), 1);
	assert_true(m.direct);
	assert_null(m.payload);
	assert_int_equal(m.len, 3000);
	assert_int_equal(m.imm_len, 8);
	assert_int_equal(m.imm[7], 0x11);
	assert_int_equal(mem[4096 + 2999], 0xab);
	assert_int_equal(mem[4096 + 3000], 0);
	sd_fp_rx_release(&r.rx);

	/* small payloads, no destination, or a destination outside the
	 * mapping (hostile consumer): the ring */
	sd_fp_rx_post_at(&r.rx, 4096, 0);
	assert_int_equal(sd_fp_tx_reserve_direct(&r.tx, SD_FP_DIRECT_MIN - 1, 0, 99, &pl, &imm, &direct),
			 DOCA_SUCCESS);
	assert_false(direct);
	assert_true(pl > r.tx.ring && pl < r.tx.ring + r.p.ring_size);
	sd_fp_tx_commit(&r.tx);
	sd_fp_rx_post(&r.rx, 4096);
	assert_int_equal(sd_fp_tx_reserve_direct(&r.tx, 4096, 0, 99, &pl, &imm, &direct), DOCA_SUCCESS);
	assert_false(direct);
	sd_fp_tx_commit(&r.tx);
	sd_fp_rx_post_at(&r.rx, 4096, DLEN - 100); /* runs past the end */
	assert_int_equal(sd_fp_tx_reserve_direct(&r.tx, 4096, 0, 99, &pl, &imm, &direct), DOCA_SUCCESS);
	assert_false(direct);
	sd_fp_tx_commit(&r.tx);
	sd_fp_rx_post_at(&r.rx, 4096, (uint64_t)DLEN + 4096); /* starts past it */
	assert_int_equal(sd_fp_tx_reserve_direct(&r.tx, 2048, 0, 99, &pl, &imm, &direct), DOCA_SUCCESS);
	assert_false(direct);
	sd_fp_tx_commit(&r.tx);
	sd_fp_rx_post_at(&r.rx, 4096, UINT64_MAX - 10); /* wraps */
	assert_int_equal(sd_fp_tx_reserve_direct(&r.tx, 2048, 0, 99, &pl, &imm, &direct), DOCA_SUCCESS);
	assert_false(direct);
	sd_fp_tx_commit(&r.tx);
	/* the credit's capacity still bounds a direct message */
	sd_fp_rx_post_at(&r.rx, 2048, 0);
	assert_int_equal(sd_fp_tx_reserve_direct(&r.tx, 4096, 0, 99, &pl, &imm, &direct), DOCA_ERROR_INVALID_VALUE);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(sd_fp_rx_peek(&r.rx, &m), 1);
		assert_false(m.direct);
		assert_non_null(m.payload);
		sd_fp_rx_release(&r.rx);
	}
	/* the plain reserve never goes direct */
	assert_int_equal(sd_fp_tx_reserve(&r.tx, 2048, 0, 99, &pl, &imm), DOCA_SUCCESS);
	assert_true(pl > r.tx.ring && pl < r.tx.ring + r.p.ring_size);
	sd_fp_tx_commit(&r.tx);
	assert_int_equal(sd_fp_rx_peek(&r.rx, &m), 1);
	assert_false(m.direct);
	sd_fp_rx_release(&r.rx);

	/* a DIRECT flag beside an unknown one is garbage */
	sd_fp_rx_post_at(&r.rx, 4096, 0);
	assert_int_equal(sd_fp_tx_reserve_direct(&r.tx, 2048, 0, 99, &pl, &imm, &direct), DOCA_SUCCESS);
	assert_true(direct);
	((struct sd_fp_rec *)(imm - sizeof(struct sd_fp_rec)))->flags |= 0x40;
	sd_fp_tx_commit(&r.tx);
	assert_int_equal(sd_fp_rx_peek(&r.rx, &m), -1);
	free(r.base);
	free(mem);
}

/* Signals waiting on the consumer's eventfd (0 if none). */
static uint64_t signals(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/* Both ends on one CPU: the CPU hints, a wake-up held back until the
 * producer stops sending, the producers woken only once the ring is empty,
 * and disarm telling whether a signal may be pending. */
static void test_shared_cpu(void **state)
{
	struct region r;
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	(void)state;
	assert_true(fd >= 0);
	region_make(&r, 8, 256, 0);
	region_map(&r);
	__atomic_store_n(&r.tx.evfd, fd, __ATOMIC_RELEASE);

	/* Hints: unknown CPUs never match; each side sees the other's. */
	assert_false(sd_fp_tx_peer_here(&r.tx, 0));
	assert_false(sd_fp_tx_peer_here(&r.tx, 3));
	assert_true(sd_fp_rx_note_cpu(&r.rx, 3));
	assert_true(sd_fp_tx_peer_here(&r.tx, 3));
	assert_false(sd_fp_rx_note_cpu(&r.rx, 2)); /* it moved */
	assert_false(sd_fp_tx_peer_here(&r.tx, 3));
	assert_true(sd_fp_tx_peer_here(&r.tx, 2));
	assert_true(sd_fp_rx_note_cpu(&r.rx, 2));

	for (int i = 0; i < 8; i++)
		sd_fp_rx_post(&r.rx, 256);
	/* Not deferred: the first message after the request wakes at once. */
	assert_false(sd_fp_rx_arm(&r.rx));
	assert_int_equal(send_one(&r, 16, 1, 0), DOCA_SUCCESS);
	assert_int_equal(signals(fd), 1);
	assert_false(sd_fp_tx_wake_owed(&r.tx));
	assert_true(sd_fp_rx_disarm(&r.rx)); /* the producer took it: drain */
	recv_one(&r, 16, 1, 0);

	/* Deferred: owed, not signalled, until the flush; once only. */
	r.tx.defer_wake = true;
	assert_false(sd_fp_rx_arm(&r.rx));
	assert_int_equal(send_one(&r, 16, 2, 0), DOCA_SUCCESS);
	assert_int_equal(send_one(&r, 16, 3, 0), DOCA_SUCCESS);
	assert_int_equal(signals(fd), 0);
	assert_true(sd_fp_tx_wake_owed(&r.tx));
	sd_fp_tx_flush_wake(&r.tx);
	assert_int_equal(signals(fd), 1);
	assert_false(sd_fp_tx_wake_owed(&r.tx));
	sd_fp_tx_flush_wake(&r.tx);
	assert_int_equal(signals(fd), 0);
	assert_true(sd_fp_rx_disarm(&r.rx));
	recv_one(&r, 16, 2, 0);
	recv_one(&r, 16, 3, 0);

	/* Owed, but the consumer woke by itself and took its request back:
	 * no signal, and disarm says none is pending. */
	assert_false(sd_fp_rx_arm(&r.rx));
	assert_int_equal(send_one(&r, 16, 4, 0), DOCA_SUCCESS);
	assert_true(sd_fp_tx_wake_owed(&r.tx));
	assert_false(sd_fp_rx_disarm(&r.rx));
	sd_fp_tx_flush_wake(&r.tx);
	assert_int_equal(signals(fd), 0);
	recv_one(&r, 16, 4, 0);

	/* A producer waiting for credits: with it on our CPU, no kick while
	 * the ring holds anything, even with most credits free. */
	for (int i = 0; i < 4; i++)
		sd_fp_rx_post(&r.rx, 256);
	for (int i = 0; i < 8; i++)
		assert_int_equal(send_one(&r, 16, (uint8_t)(10 + i), 0), DOCA_SUCCESS);
	assert_int_equal(send_one(&r, 16, 0, 0), DOCA_ERROR_AGAIN);
	assert_true(sd_fp_tx_arm(&r.tx) == false);
	for (int i = 0; i < 7; i++) {
		recv_one(&r, 16, (uint8_t)(10 + i), 0);
		sd_fp_rx_post(&r.rx, 256);
		assert_int_equal(sd_fp_rx_kick(&r.rx, true, true), -1);
		assert_int_equal(sd_fp_rx_kick(&r.rx, true, false), -1);
	}
	recv_one(&r, 16, 17, 0);
	sd_fp_rx_post(&r.rx, 256);
	assert_int_equal(sd_fp_rx_kick(&r.rx, true, false), 1);
	assert_true(sd_fp_tx_ready(&r.tx));

	/* Elsewhere, the half mark wakes it with messages still queued. */
	assert_false(sd_fp_rx_note_cpu(&r.rx, 1));
	for (int i = 0; i < 8; i++)
		assert_int_equal(send_one(&r, 16, (uint8_t)(30 + i), 0), DOCA_SUCCESS);
	assert_false(sd_fp_tx_arm(&r.tx));
	for (int i = 0; i < 4; i++) {
		recv_one(&r, 16, (uint8_t)(30 + i), 0);
		sd_fp_rx_post(&r.rx, 256);
	}
	assert_int_equal(sd_fp_rx_kick(&r.rx, true, false), 1);
	close(fd);
	free(r.base);
}

/* Publishing in batches (fastpath_ring.h): commits skip the fence and owe
 * it; a request they did not see (the consumer armed while the tail store
 * was on its way) is served by the fence, once; staged credits and
 * consumed records reach the producer only when published. */
static void test_batched_publication(void **state)
{
	struct region r;
	struct sd_fp_msg m;
	struct sd_fp_shm_hdr *h;
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	(void)state;
	assert_true(fd >= 0);
	region_make(&r, 8, 256, 0);
	region_map(&r);
	h = r.base;
	__atomic_store_n(&r.tx.evfd, fd, __ATOMIC_RELEASE);

	/* Staged credits are not the producer's until published. */
	for (int i = 0; i < 3; i++)
		sd_fp_rx_stage_at(&r.rx, 256, SD_FP_NO_DST);
	assert_true(sd_fp_rx_unpublished(&r.rx));
	assert_int_equal(__atomic_load_n(&h->posted, __ATOMIC_ACQUIRE), 0);
	assert_int_equal(send_one(&r, 16, 1, 0), DOCA_ERROR_AGAIN);
	sd_fp_rx_publish(&r.rx);
	assert_false(sd_fp_rx_unpublished(&r.rx));
	assert_int_equal(__atomic_load_n(&h->posted, __ATOMIC_ACQUIRE), 3);

	/* A commit owes a fence; the fence with no request signals nothing. */
	assert_false(sd_fp_tx_fence_due(&r.tx));
	assert_int_equal(send_one(&r, 16, 1, 0), DOCA_SUCCESS);
	assert_true(sd_fp_tx_fence_due(&r.tx));
	sd_fp_tx_fence(&r.tx);
	assert_false(sd_fp_tx_fence_due(&r.tx));
	assert_int_equal(signals(fd), 0);

	/* The request raced the commit (stored after the commit looked): the
	 * fence finds it and signals once, taking it. */
	assert_int_equal(send_one(&r, 16, 2, 0), DOCA_SUCCESS);
	__atomic_store_n(&h->wake, 1u, __ATOMIC_SEQ_CST);
	sd_fp_tx_fence(&r.tx);
	assert_int_equal(signals(fd), 1);
	assert_int_equal(__atomic_load_n(&h->wake, __ATOMIC_SEQ_CST), 0);
	sd_fp_tx_fence(&r.tx);
	assert_int_equal(signals(fd), 0);

	/* Under defer_wake the fence leaves it owed; the flush signals it. */
	r.tx.defer_wake = true;
	assert_int_equal(send_one(&r, 16, 3, 0), DOCA_SUCCESS);
	__atomic_store_n(&h->wake, 1u, __ATOMIC_SEQ_CST);
	sd_fp_tx_fence(&r.tx);
	assert_int_equal(signals(fd), 0);
	assert_true(sd_fp_tx_wake_owed(&r.tx));
	sd_fp_tx_flush_wake(&r.tx);
	assert_int_equal(signals(fd), 1);
	assert_false(sd_fp_tx_wake_owed(&r.tx));
	r.tx.defer_wake = false;

	/* Consumed without publishing: head stays until the publish. */
	for (uint8_t seed = 1; seed <= 3; seed++) {
		assert_int_equal(sd_fp_rx_peek(&r.rx, &m), 1);
		assert_int_equal(m.payload[0], seed);
		sd_fp_rx_consume(&r.rx);
	}
	assert_int_equal(sd_fp_rx_peek(&r.rx, &m), 0);
	assert_int_equal(__atomic_load_n(&h->head, __ATOMIC_ACQUIRE), 0);
	assert_true(sd_fp_rx_unpublished(&r.rx));
	sd_fp_rx_publish(&r.rx);
	assert_int_equal(__atomic_load_n(&h->head, __ATOMIC_ACQUIRE), r.rx.head);
	assert_int_equal(r.rx.head, 3 * sd_fp_rec_size(16, 0));
	assert_false(sd_fp_rx_unpublished(&r.rx));
	close(fd);
	free(r.base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_credits_and_order),
		cmocka_unit_test(test_wrap_every_size),
		cmocka_unit_test(test_soft_wrap),
		cmocka_unit_test(test_header_validation),
		cmocka_unit_test(test_hostile_counters),
		cmocka_unit_test(test_corrupt_records),
		cmocka_unit_test(test_direct),
		cmocka_unit_test(test_shared_cpu),
		cmocka_unit_test(test_batched_publication),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
