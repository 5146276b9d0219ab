#define _GNU_SOURCE
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "fastpath_ring.h"

/*
 * A consumer that found the ring empty waits a little before it looks
 * again. Each look pulls the tail's cache line over to its CPU and the
 * producer's next store must take it back; looking at once after every
 * message makes that round trip per message. Pausing lets a few messages
 * gather per look, and a message that arrives during the pause waits for
 * it (a pause is about 70 ns on this project's AMD machine), so the count
 * trades throughput for latency. Measured here, 0 / 4 / 32 pauses: 64-byte
 * messages between two CPUs at medians of 8.0 / 10.0 / 12.2 M msgs/s (18
 * alternated repetitions each), and doca_bench's consumer latency (64 B,
 * --mode latency, post to completion) at medians of 0.39-1.2 / 0.47-1.3 /
 * 1.36-1.84 us over a few alternated runs. Only the first empty look after
 * a record pauses: a stream keeps its batches, and a consumer that stays
 * idle costs the other contexts on its PE nothing per progress call. Nor
 * when the producer last ran on our CPU: there the pause only holds back
 * the producer's turn.
 */
#define SD_FP_RX_IDLE_PAUSES 4

#define LOAD_ACQ(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define LOAD_RLX(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

static uint64_t pow2_at_least(uint64_t v)
{
	uint64_t r = 1;

	while (r < v)
		r <<= 1;
	return r;
}

static bool is_pow2(uint64_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

void sd_fp_params_fill(struct sd_fp_params *p, uint32_t consumer_id, uint32_t num_tasks, uint32_t max_msg,
		       uint32_t imm_len)
{
	uint64_t ring;

	p->consumer_id = consumer_id;
	p->qcap = (uint32_t)pow2_at_least(num_tasks ? num_tasks : 1);
	p->max_msg = max_msg;
	p->imm_len = imm_len > SD_FP_MAX_IMM ? SD_FP_MAX_IMM : imm_len;
	/* Room for two of the largest records (one may be preceded by a wrap
	 * pad), and enough for a deep pipeline of small ones. */
	ring = pow2_at_least(2 * sd_fp_rec_size(max_msg, p->imm_len));
	if (ring < 4ull * 1024 * 1024)
		ring = 4ull * 1024 * 1024;
	p->ring_size = ring;
}

static uint64_t caps_bytes(uint32_t qcap)
{
	return ((uint64_t)qcap * sizeof(uint32_t) + SD_FP_CACHELINE - 1) & ~(uint64_t)(SD_FP_CACHELINE - 1);
}

static uint64_t dsts_bytes(uint32_t qcap)
{
	return ((uint64_t)qcap * sizeof(uint64_t) + SD_FP_CACHELINE - 1) & ~(uint64_t)(SD_FP_CACHELINE - 1);
}

/* The destination array sits between the capacities and the ring; its place
 * follows from qcap, so the header needs no field for it. */
static uint64_t dsts_off(uint32_t qcap)
{
	return sizeof(struct sd_fp_shm_hdr) + caps_bytes(qcap);
}

size_t sd_fp_region_size(const struct sd_fp_params *p)
{
	return dsts_off(p->qcap) + dsts_bytes(p->qcap) + p->ring_size;
}

void sd_fp_region_init(void *base, size_t size, const struct sd_fp_params *p, uint32_t owner_pid)
{
	struct sd_fp_shm_hdr *h = base;

	memset(h, 0, sizeof(*h));
	h->version = SD_FP_VERSION;
	h->hdr_size = sizeof(*h);
	h->consumer_id = p->consumer_id;
	h->region_size = size;
	h->caps_off = sizeof(*h);
	h->ring_off = dsts_off(p->qcap) + dsts_bytes(p->qcap);
	h->ring_size = p->ring_size;
	h->qcap = p->qcap;
	h->max_msg = p->max_msg;
	h->imm_len = p->imm_len;

	/* The magic and the owner go last: a peer that sees them sees the rest. */
	STORE_REL(&h->owner_pid, owner_pid);
	STORE_REL(&h->magic, SD_FP_MAGIC);
}

doca_error_t sd_fp_region_check(const void *base, size_t size, struct sd_fp_params *p)
{
	const struct sd_fp_shm_hdr *h = base;
	struct sd_fp_shm_hdr c;

	if (base == NULL || p == NULL || size < sizeof(*h))
		return DOCA_ERROR_INVALID_VALUE;
	if (LOAD_ACQ(&h->magic) != SD_FP_MAGIC)
		return DOCA_ERROR_INVALID_VALUE;
	memcpy(&c, h, sizeof(c));
	if (c.version != SD_FP_VERSION)
		return DOCA_ERROR_UNSUPPORTED_VERSION;
	if (c.hdr_size != sizeof(c) || c.region_size != size || c.owner_pid == 0)
		return DOCA_ERROR_INVALID_VALUE;
	if (!is_pow2(c.qcap) || c.qcap > (1u << 24) || c.caps_off != sizeof(c))
		return DOCA_ERROR_INVALID_VALUE;
	if (c.ring_off != dsts_off(c.qcap) + dsts_bytes(c.qcap))
		return DOCA_ERROR_INVALID_VALUE;
	if (!is_pow2(c.ring_size) || c.ring_size < SD_FP_MIN_RING || c.ring_size > SD_FP_MAX_RING)
		return DOCA_ERROR_INVALID_VALUE;
	if (c.ring_off + c.ring_size != size)
		return DOCA_ERROR_INVALID_VALUE;
	if (c.imm_len > SD_FP_MAX_IMM || c.max_msg == 0 || 2 * sd_fp_rec_size(c.max_msg, c.imm_len) > c.ring_size)
		return DOCA_ERROR_INVALID_VALUE;
	p->consumer_id = c.consumer_id;
	p->qcap = c.qcap;
	p->max_msg = c.max_msg;
	p->imm_len = c.imm_len;
	p->ring_size = c.ring_size;
	return DOCA_SUCCESS;
}

void sd_fp_tx_init(struct sd_fp_tx *tx, void *base, const struct sd_fp_params *p)
{
	struct sd_fp_shm_hdr *h = base;

	memset(tx, 0, sizeof(*tx));
	tx->hdr = h;
	tx->p = *p;
	tx->evfd = -1;
	tx->caps = (const uint32_t *)((uint8_t *)base + sizeof(*h));
	tx->dsts = (const uint64_t *)((uint8_t *)base + dsts_off(p->qcap));
	tx->ring = (uint8_t *)base + dsts_off(p->qcap) + dsts_bytes(p->qcap);
	/* Resume where an earlier producer of this process left off. */
	tx->tail = LOAD_ACQ(&h->tail);
	tx->head_cache = LOAD_ACQ(&h->head);
	tx->posted_cache = LOAD_ACQ(&h->posted);
	/* Records start on SD_FP_REC_ALIGN boundaries: a misaligned tail would
	 * put a WRAP header past the ring's end. */
	if (tx->tail < tx->head_cache || tx->tail - tx->head_cache > p->ring_size ||
	    tx->tail % SD_FP_REC_ALIGN != 0 || tx->head_cache % SD_FP_REC_ALIGN != 0)
		tx->broken = true;
}

/* Where the credit's buffer takes a payload of len bytes in the consumer's
 * shared receive memory, or NULL. The consumer writes dsts: it is read once
 * and checked against our own copy of the mapping's length (the credit's
 * capacity was checked by the caller). */
static uint8_t *tx_direct_dst(struct sd_fp_tx *tx, uint32_t len)
{
	uint64_t dst;

	if (tx->dbase == NULL || len < SD_FP_DIRECT_MIN)
		return NULL;
	dst = LOAD_RLX(&tx->dsts[tx->sent & (tx->p.qcap - 1)]);
	if (dst == SD_FP_NO_DST || dst > tx->dlen || len > tx->dlen - dst)
		return NULL;
	return tx->dbase + dst;
}

/* Inlined into both entry points: a producer calls one per message. */
static inline __attribute__((always_inline)) doca_error_t
tx_reserve(struct sd_fp_tx *tx, uint32_t len, uint32_t imm_len, uint32_t producer_id, uint8_t **payload, uint8_t **imm,
	   bool *direct)
{
	uint64_t need, pad, off, free_bytes, cap;
	uint8_t *dst = NULL;
	struct sd_fp_rec *r;

	if (tx->broken)
		return DOCA_ERROR_UNEXPECTED;
	if (LOAD_RLX(&tx->hdr->closed))
		return DOCA_ERROR_NOT_FOUND;
	if (len > tx->p.max_msg || imm_len > tx->p.imm_len)
		return DOCA_ERROR_INVALID_VALUE;
	if (tx->sent == tx->posted_cache) {
		uint64_t posted = LOAD_ACQ(&tx->hdr->posted);

		if (posted < tx->posted_cache || posted - tx->sent > tx->p.qcap) {
			tx->broken = true;
			return DOCA_ERROR_UNEXPECTED;
		}
		tx->posted_cache = posted;
		if (posted == tx->sent) {
			tx->want = 0;
			return DOCA_ERROR_AGAIN;
		}
	}
	cap = LOAD_RLX(&tx->caps[tx->sent & (tx->p.qcap - 1)]);
	if (len > cap)
		return DOCA_ERROR_INVALID_VALUE;
	if (direct != NULL)
		dst = tx_direct_dst(tx, len);

	need = dst != NULL ? sd_fp_rec_size(0, imm_len) : sd_fp_rec_size(len, imm_len);
	off = tx->tail & (tx->p.ring_size - 1);
	pad = (off + need > tx->p.ring_size) ? tx->p.ring_size - off : 0;
	/* Soft wrap: when everything in flight lies behind us, start over at
	 * offset 0 so that the bytes in use stay cache-sized instead of
	 * sweeping the whole ring. (Checked every 16th message: it reads the
	 * consumer's busy line.) */
	if (!pad && off >= SD_FP_SOFT_WRAP && (tx->sent & 15) == 0) {
		uint64_t head = LOAD_ACQ(&tx->hdr->head);

		if (head < tx->head_cache || head > tx->tail || head % SD_FP_REC_ALIGN != 0) {
			tx->broken = true;
			return DOCA_ERROR_UNEXPECTED;
		}
		tx->head_cache = head;
		if (tx->tail - head + need <= off)
			pad = tx->p.ring_size - off;
	}
	free_bytes = tx->p.ring_size - (tx->tail - tx->head_cache);
	if (free_bytes < pad + need) {
		uint64_t head = LOAD_ACQ(&tx->hdr->head);

		if (head < tx->head_cache || head > tx->tail || head % SD_FP_REC_ALIGN != 0) {
			tx->broken = true;
			return DOCA_ERROR_UNEXPECTED;
		}
		tx->head_cache = head;
		free_bytes = tx->p.ring_size - (tx->tail - head);
		if (free_bytes < pad + need) {
			tx->want = pad + need;
			return DOCA_ERROR_AGAIN;
		}
	}
	if (pad) {
		r = (struct sd_fp_rec *)(tx->ring + off);
		r->len = 0;
		r->imm_len = 0;
		r->producer_id = 0;
		r->flags = SD_FP_REC_WRAP;
		off = 0;
	}
	r = (struct sd_fp_rec *)(tx->ring + off);
	r->len = len;
	r->imm_len = imm_len;
	r->producer_id = producer_id;
	r->flags = dst != NULL ? SD_FP_REC_DIRECT : 0;
	*imm = (uint8_t *)(r + 1);
	*payload = dst != NULL ? dst : *imm + ((imm_len + 15u) & ~15u);
	if (direct != NULL)
		*direct = dst != NULL;
	tx->pend_rec = r;
	tx->pend_tail = tx->tail + pad + need;
	return DOCA_SUCCESS;
}

doca_error_t sd_fp_tx_reserve(struct sd_fp_tx *tx, uint32_t len, uint32_t imm_len, uint32_t producer_id,
			      uint8_t **payload, uint8_t **imm)
{
	return tx_reserve(tx, len, imm_len, producer_id, payload, imm, NULL);
}

doca_error_t sd_fp_tx_reserve_direct(struct sd_fp_tx *tx, uint32_t len, uint32_t imm_len, uint32_t producer_id,
				     uint8_t **payload, uint8_t **imm, bool *direct)
{
	*direct = false;
	return tx_reserve(tx, len, imm_len, producer_id, payload, imm, direct);
}

uint32_t sd_fp_cpu1(void)
{
	int cpu = sched_getcpu();

	return cpu < 0 ? 0 : (uint32_t)cpu + 1;
}

/* Take the consumer's wake-up request (once: another producer may race us
 * for it) and signal its eventfd. */
static void tx_signal(struct sd_fp_tx *tx)
{
	if (__atomic_exchange_n(&tx->hdr->wake, 0u, __ATOMIC_ACQ_REL)) {
		int fd = __atomic_load_n(&tx->evfd, __ATOMIC_ACQUIRE);
		uint64_t one = 1;

		if (fd >= 0 && write(fd, &one, sizeof(one)) < 0) {
			/* EAGAIN: the counter is saturated, the consumer is awake */
		}
	}
}

/* The consumer asked for a wake-up: on its CPU, a wake-up now would switch
 * to it for this one message, so owe it until we stop sending; else
 * signal. */
static void tx_wake_asked(struct sd_fp_tx *tx)
{
	if (tx->defer_wake)
		__atomic_store_n(&tx->wake_owed, 1, __ATOMIC_RELAXED);
	else
		tx_signal(tx);
}

void sd_fp_tx_commit(struct sd_fp_tx *tx)
{
	tx->tail = tx->pend_tail;
	tx->sent++;
	tx->pend_rec = NULL;
	/* A plain release store and a plain load: a consumer polling tail
	 * sees the message as soon as the store drains, and we do not wait
	 * for its cache line. A request seen here is served at once; one
	 * made while this store was still on its way is found by the next
	 * sd_fp_tx_fence, which the caller owes from now on. */
	STORE_REL(&tx->hdr->tail, tx->tail);
	if (__builtin_expect(LOAD_RLX(&tx->hdr->wake) != 0, 0))
		tx_wake_asked(tx);
	if (!LOAD_RLX(&tx->unfenced))
		__atomic_store_n(&tx->unfenced, 1, __ATOMIC_RELAXED);
}

void sd_fp_tx_fence(struct sd_fp_tx *tx)
{
	if (!LOAD_RLX(&tx->unfenced))
		return;
	__atomic_store_n(&tx->unfenced, 0, __ATOMIC_RELAXED);
	/* Store-then-load on both sides (sd_fp_rx_arm mirrors it): the tail
	 * stored again, sequentially consistent, so that either the consumer
	 * sees it or we see its wake request. (On x86 the store is the one
	 * locked instruction, as a fence would be; unlike a fence,
	 * ThreadSanitizer understands it.) */
	__atomic_store_n(&tx->hdr->tail, tx->tail, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&tx->hdr->wake, __ATOMIC_SEQ_CST))
		tx_wake_asked(tx);
}

void sd_fp_tx_flush_wake(struct sd_fp_tx *tx)
{
	sd_fp_tx_fence(tx);
	if (!__atomic_load_n(&tx->wake_owed, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&tx->wake_owed, 0, __ATOMIC_RELAXED);
	/* The tail that made it owed was stored (seq_cst) before the request
	 * was seen; the request is still there unless the consumer woke on
	 * its own and took it back. */
	if (__atomic_load_n(&tx->hdr->wake, __ATOMIC_SEQ_CST))
		tx_signal(tx);
}

/* The credit and room a refused reserve lacked, with loads of the given
 * order. A corrupt counter counts as ready: the retry reports it. */
static bool tx_ready(struct sd_fp_tx *tx, int order)
{
	uint64_t posted = __atomic_load_n(&tx->hdr->posted, order);
	uint64_t head = __atomic_load_n(&tx->hdr->head, order);

	if (tx->broken || LOAD_RLX(&tx->hdr->closed) || posted < tx->posted_cache || posted - tx->sent > tx->p.qcap || head < tx->head_cache ||
	    head > tx->tail)
		return true;
	if (posted == tx->sent)
		return false;
	return tx->p.ring_size - (tx->tail - head) >= tx->want;
}

bool sd_fp_tx_ready(struct sd_fp_tx *tx)
{
	return tx_ready(tx, __ATOMIC_ACQUIRE);
}

bool sd_fp_tx_arm(struct sd_fp_tx *tx)
{
	/* Store-then-load, mirrored by sd_fp_rx_kick: either the consumer
	 * sees the request or we see what it posted or freed. */
	__atomic_store_n(&tx->hdr->tx_wake, 1u, __ATOMIC_SEQ_CST);
	return tx_ready(tx, __ATOMIC_SEQ_CST);
}

void sd_fp_rx_init(struct sd_fp_rx *rx, void *base)
{
	struct sd_fp_shm_hdr *h = base;

	memset(rx, 0, sizeof(*rx));
	rx->hdr = h;
	rx->p.consumer_id = h->consumer_id;
	rx->p.qcap = h->qcap;
	rx->p.max_msg = h->max_msg;
	rx->p.imm_len = h->imm_len;
	rx->p.ring_size = h->ring_size;
	rx->caps = (uint32_t *)((uint8_t *)base + h->caps_off);
	rx->dsts = (uint64_t *)((uint8_t *)base + dsts_off(h->qcap));
	rx->ring = (uint8_t *)base + h->ring_off;
}

void sd_fp_rx_post_at(struct sd_fp_rx *rx, uint32_t cap, uint64_t dst)
{
	sd_fp_rx_stage_at(rx, cap, dst);
	rx->posted_pub = rx->posted;
	STORE_REL(&rx->hdr->posted, rx->posted);
}

void sd_fp_rx_publish(struct sd_fp_rx *rx)
{
	if (rx->posted != rx->posted_pub) {
		rx->posted_pub = rx->posted;
		STORE_REL(&rx->hdr->posted, rx->posted);
	}
	if (rx->head != rx->head_pub) {
		rx->head_pub = rx->head;
		STORE_REL(&rx->hdr->head, rx->head);
	}
}

void sd_fp_rx_post(struct sd_fp_rx *rx, uint32_t cap)
{
	sd_fp_rx_post_at(rx, cap, SD_FP_NO_DST);
}

int sd_fp_rx_peek(struct sd_fp_rx *rx, struct sd_fp_msg *m)
{
	const uint64_t mask = rx->p.ring_size - 1;
	const struct sd_fp_rec *r;
	uint32_t len, imm_len, flags;
	uint64_t off, avail, size;

	for (;;) {
		if (rx->received == rx->posted)
			return 0;
		if (rx->head == rx->tail_cache) {
			uint64_t tail = LOAD_ACQ(&rx->hdr->tail);

			if (tail == rx->head) {
				if (rx->streaming && !rx->peer_here)
					for (int i = 0; i < SD_FP_RX_IDLE_PAUSES; i++)
						sd_cpu_relax();
				rx->streaming = false;
				return 0;
			}
			if (tail < rx->head || tail - rx->head > rx->p.ring_size)
				return -1;
			rx->tail_cache = tail;
		}
		avail = rx->tail_cache - rx->head;
		off = rx->head & mask;
		if (avail < sizeof(*r) || off + sizeof(*r) > rx->p.ring_size)
			return -1;
		r = (const struct sd_fp_rec *)(rx->ring + off);
		len = LOAD_RLX(&r->len);
		imm_len = LOAD_RLX(&r->imm_len);
		flags = LOAD_RLX(&r->flags);
		if (flags & SD_FP_REC_WRAP) {
			size = rx->p.ring_size - off;
			if (size > avail)
				return -1;
			rx->head += size;
			rx->head_pub = rx->head;
			STORE_REL(&rx->hdr->head, rx->head);
			continue;
		}
		if ((flags & ~(rx->direct_ok ? SD_FP_REC_DIRECT : 0u)) != 0 || len > rx->p.max_msg ||
		    imm_len > rx->p.imm_len)
			return -1;
		m->direct = (flags & SD_FP_REC_DIRECT) != 0;
		size = m->direct ? sd_fp_rec_size(0, imm_len) : sd_fp_rec_size(len, imm_len);
		if (size > avail || off + size > rx->p.ring_size)
			return -1;
		m->len = len;
		m->imm_len = imm_len;
		m->producer_id = LOAD_RLX(&r->producer_id);
		m->imm = (const uint8_t *)(r + 1);
		m->payload = m->direct ? NULL : m->imm + ((imm_len + 15u) & ~15u);
		rx->pend_size = size;
		rx->streaming = true;
		return 1;
	}
}

void sd_fp_rx_release(struct sd_fp_rx *rx)
{
	sd_fp_rx_consume(rx);
	rx->head_pub = rx->head;
	STORE_REL(&rx->hdr->head, rx->head);
}

bool sd_fp_rx_arm(struct sd_fp_rx *rx)
{
	__atomic_store_n(&rx->hdr->wake, 1u, __ATOMIC_SEQ_CST);
	return __atomic_load_n(&rx->hdr->tail, __ATOMIC_SEQ_CST) != rx->head;
}

bool sd_fp_rx_disarm(struct sd_fp_rx *rx)
{
	return !(LOAD_RLX(&rx->hdr->wake) && __atomic_exchange_n(&rx->hdr->wake, 0u, __ATOMIC_ACQ_REL));
}

void sd_fp_rx_close(struct sd_fp_rx *rx)
{
	STORE_REL(&rx->hdr->closed, 1u);
}

bool sd_fp_rx_take_kick(struct sd_fp_rx *rx)
{
	return __atomic_load_n(&rx->hdr->tx_wake, __ATOMIC_SEQ_CST) &&
	       __atomic_exchange_n(&rx->hdr->tx_wake, 0u, __ATOMIC_ACQ_REL);
}

int sd_fp_rx_kick(struct sd_fp_rx *rx, bool can_signal, bool busy)
{
	/* Nothing to offer: the next post asks again. */
	if (rx->posted == rx->received)
		return 0;
	/* Busy, with no request in sight: not worth two locked stores per
	 * batch. A request we miss here is found once we run dry. */
	if (busy && !LOAD_RLX(&rx->hdr->tx_wake))
		return -1;
	/* The producer shares our CPU: it cannot run before we stop anyway,
	 * and woken now it would preempt us for a part of the window. Wake it
	 * once we have taken everything. */
	if (rx->peer_here && LOAD_ACQ(&rx->hdr->tail) != rx->head)
		return -1;
	/* Hysteresis: waking a producer for a single credit would have it
	 * sleep again after one message, a syscall pair per message. With
	 * messages still in the ring we come back here once they are taken. */
	if (LOAD_ACQ(&rx->hdr->tail) != rx->head && rx->posted - rx->received < (rx->p.qcap + 1) / 2)
		return -1;
	/* Store-then-load, the mirror of sd_fp_tx_arm: the counters the
	 * producer reads are stored again, sequentially consistent, before
	 * its request is read; a producer arming later sees them. */
	rx->posted_pub = rx->posted;
	rx->head_pub = rx->head;
	__atomic_store_n(&rx->hdr->posted, rx->posted, __ATOMIC_SEQ_CST);
	__atomic_store_n(&rx->hdr->head, rx->head, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&rx->hdr->tx_wake, __ATOMIC_SEQ_CST))
		return 0;
	/* No eventfd yet: the producer sent it before asking, and we signal
	 * it once when it arrives. */
	if (!can_signal)
		return 0;
	return __atomic_exchange_n(&rx->hdr->tx_wake, 0u, __ATOMIC_ACQ_REL) != 0 ? 1 : 0;
}
