/*
 * fastpath_ring.h - the shared-memory region behind one Comch consumer.
 *
 * The consumer's process creates the region (a memfd), initialises it and
 * passes the fd to the peer, whose producers map it. Layout, all offsets from
 * the region start, never pointers:
 *
 *   [header: 4 cache lines][post capacity array: qcap x u32]
 *   [post destination array: qcap x u64][byte ring]
 *
 *   header line 0  static, written once by the consumer before the fd leaves
 *                  (but for `closed`, set once when the consumer stops: it
 *                  sits on this read-mostly line so producers can check it
 *                  on every message without a cache miss)
 *   header line 1  written by producers only: tail (bytes published)
 *   header line 2  written by the consumer only: head (bytes consumed),
 *                  posted (receive buffers posted so far)
 *   header line 3  the slow path. wake: the consumer found nothing and may
 *                  sleep on its PE's notification handle; the producer that
 *                  publishes next clears it and signals the consumer's
 *                  eventfd. tx_wake, the other way round: a producer found
 *                  no credit or no room and may sleep; the consumer clears
 *                  it when it has posted or freed enough and signals the
 *                  producers' eventfd. Each is one syscall per idle->busy
 *                  transition, none while both sides keep up. rx_cpu and
 *                  tx_cpu: where each side last ran (below), stored only
 *                  when it changes.
 *
 * Credits: every posted receive buffer is one credit. Before posting, the
 * consumer stores that buffer's capacity in caps[posted % qcap] and then
 * publishes posted+1 (release). A producer may publish message number n only
 * while n < posted, so the n-th message always lands in the n-th posted
 * buffer and the producer knows its capacity beforehand.
 *
 * Direct placement (one copy): when the consumer's receive memory is shared
 * with the producer's process too (fastpath.h, CONSUMER_BUFMEM), the
 * consumer also stores in dsts[posted % qcap] where the buffer's free room
 * starts, as an offset into that shared memory (SD_FP_NO_DST: not in it).
 * A producer that has the memory mapped, and finds the offset and the
 * message inside both its own copy of the mapping's length and the
 * credit's capacity, writes the payload straight into the buffer and
 * publishes a DIRECT record: header and imm data only, len the payload
 * bytes already in place. Anything else takes the ring as before. The
 * consumer accepts a DIRECT record only for a buffer it posted with a
 * destination (it keeps that knowledge privately; dsts is only a hint to
 * the producer), so a hostile producer gains nothing it could not do to
 * shared memory anyway, and a hostile consumer can only make the producer
 * fall back or write inside the consumer's own shared pages.
 *
 * Ring: records of [struct sd_fp_rec][imm data, padded to 16][payload],
 * each rounded up to SD_FP_REC_ALIGN bytes. A record never wraps: when it
 * does not fit before the end - or earlier, past SD_FP_SOFT_WRAP, when the
 * consumer has caught up - the producer writes a WRAP record there and
 * starts again at offset 0. tail and head only grow (u64, ring offset =
 * value & (ring_size - 1)).
 *
 * Sharing a CPU: when the producer and the consumer last ran on the same
 * CPU (rx_cpu == tx_cpu, both CPU number + 1, 0 unknown), neither can make
 * progress while the other spins: a spin there only burns the time slice the
 * peer needs. So each side then stops spinning at once and sleeps, the
 * producer holds the consumer's wake-up back until it stops sending
 * (sd_fp_tx_flush_wake) instead of waking it for the first message (which
 * would preempt it and then sleep again after one message: a wake-up per
 * message), and the consumer wakes waiting producers once the ring is empty
 * rather than at the half mark. Each switch then moves a whole window of
 * messages. The CPU numbers are hints: a wrong one only costs a spin or a
 * sleep too many.
 *
 * Publishing in batches: a producer stores tail with a plain release store
 * per message and looks at wake without a fence; the store-then-load that
 * makes the wake-up handshake safe (either the consumer sees our tail or we
 * see its request) is done once per pause instead (sd_fp_tx_fence: a
 * progress call, a refused send, before sleeping), so a consumer that armed
 * in the very moment of a commit is woken by the next pause at the latest.
 * A locked store per message would wait for the tail line the consumer
 * just read. Likewise the consumer may stage credits and consume records
 * without storing posted and head (sd_fp_rx_stage_at, sd_fp_rx_consume)
 * and publish both with one store each per batch (sd_fp_rx_publish), so
 * the line producers poll for credits moves once per batch, not once per
 * message. Whoever stages must publish before it can sleep.
 *
 * Trust: the peer may be hostile or dead. The producer validates the header
 * once at map time and keeps local copies of every size; it re-validates the
 * consumer's counters each time it reads them. The consumer validates every
 * record (lengths, bounds) before it touches the payload, reading each field
 * from shared memory exactly once.
 *
 * Threading: one sd_fp_tx per mapped region per process (callers serialise
 * producers that share it); one sd_fp_rx per region, on the consumer's thread.
 * No locks or syscalls on the data path: acquire/release on the counters.
 */
#ifndef SD_FASTPATH_RING_H_
#define SD_FASTPATH_RING_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#include "sd_cpu.h"

#define SD_FP_MAGIC 0x50464453u /* "SDFP" little-endian */
#define SD_FP_VERSION 3u
#define SD_FP_CACHELINE 64u
#define SD_FP_REC_ALIGN 64u
#define SD_FP_MAX_IMM 32u          /* immediate data bytes per message */
#define SD_FP_MIN_RING (64u * 1024u)
#define SD_FP_MAX_RING (1ull << 32) /* ring offsets are kept well below 2^32 */
#define SD_FP_REC_WRAP 0x1u
#define SD_FP_REC_DIRECT 0x2u /* payload already in the posted buffer */
#define SD_FP_NO_DST UINT64_MAX /* dsts entry: the buffer is not in shared memory */
/* Smaller payloads take the ring even when direct placement is possible:
 * their record shares cache lines the consumer reads anyway, and copying
 * them twice costs less than touching the buffer's lines from the producer. */
#define SD_FP_DIRECT_MIN 1024u
#define SD_FP_SOFT_WRAP (512u * 1024u) /* see sd_fp_tx_reserve */

struct sd_fp_shm_hdr {
	/* line 0: static */
	uint32_t magic;
	uint16_t version;
	uint16_t hdr_size;
	uint32_t owner_pid;
	uint32_t consumer_id;
	uint64_t region_size;
	uint64_t caps_off;
	uint64_t ring_off;
	uint64_t ring_size;
	uint32_t qcap;
	uint32_t max_msg;
	uint32_t imm_len;
	uint32_t closed;      /* set once by the consumer when it stops */
	/* line 1: producer side */
	_Alignas(SD_FP_CACHELINE) uint64_t tail;
	uint64_t reserved1[7];
	/* line 2: consumer side */
	_Alignas(SD_FP_CACHELINE) uint64_t head;
	uint64_t posted;
	uint64_t reserved2[6];
	/* line 3: wake-up handshakes */
	_Alignas(SD_FP_CACHELINE) uint32_t wake; /* consumer sets, producer clears */
	uint32_t tx_wake;                        /* producer sets, consumer clears */
	uint32_t rx_cpu;                         /* consumer's CPU + 1 (a hint) */
	uint32_t tx_cpu;                         /* last producer's CPU + 1 (a hint) */
	uint32_t reserved3[12];
};

_Static_assert(sizeof(struct sd_fp_shm_hdr) == 4 * SD_FP_CACHELINE, "fast-path header is four cache lines");
_Static_assert(offsetof(struct sd_fp_shm_hdr, wake) == 192, "wake on its own line");
_Static_assert(offsetof(struct sd_fp_shm_hdr, tail) == 64, "tail on its own line");
_Static_assert(offsetof(struct sd_fp_shm_hdr, head) == 128, "head on its own line");
_Static_assert(offsetof(struct sd_fp_shm_hdr, closed) == 60, "static line layout");
_Static_assert(offsetof(struct sd_fp_shm_hdr, tx_wake) == 196, "wake line layout");
_Static_assert(offsetof(struct sd_fp_shm_hdr, tx_cpu) == 204, "wake line layout");

struct sd_fp_rec {
	uint32_t len;         /* payload bytes */
	uint32_t imm_len;     /* immediate data bytes */
	uint32_t producer_id;
	uint32_t flags;       /* SD_FP_REC_* */
};

_Static_assert(sizeof(struct sd_fp_rec) == 16, "record header is 16 bytes");

/* What a region is made for (and what a mapped one claims to be). */
struct sd_fp_params {
	uint32_t consumer_id;
	uint32_t qcap;      /* receive buffers that can be posted at once (pow2) */
	uint32_t max_msg;   /* largest payload */
	uint32_t imm_len;   /* immediate data the consumer accepts */
	uint64_t ring_size; /* pow2 */
};

/* Fill in qcap/ring_size from a task count and message size; region size. */
void sd_fp_params_fill(struct sd_fp_params *p, uint32_t consumer_id, uint32_t num_tasks, uint32_t max_msg,
		       uint32_t imm_len);
size_t sd_fp_region_size(const struct sd_fp_params *p);

/* Consumer side: lay out a zeroed region of sd_fp_region_size(p) bytes. */
void sd_fp_region_init(void *base, size_t size, const struct sd_fp_params *p, uint32_t owner_pid);

/* Producer side: check a mapped region of `size` bytes; fill *p from it.
 * DOCA_ERROR_UNSUPPORTED_VERSION for a foreign version, INVALID_VALUE for
 * anything inconsistent. */
doca_error_t sd_fp_region_check(const void *base, size_t size, struct sd_fp_params *p);

/* Bytes one message occupies in the ring. */
static inline uint64_t sd_fp_rec_size(uint32_t len, uint32_t imm_len)
{
	uint64_t n = sizeof(struct sd_fp_rec) + (((uint64_t)imm_len + 15u) & ~15ull) + len;

	return (n + SD_FP_REC_ALIGN - 1) & ~(uint64_t)(SD_FP_REC_ALIGN - 1);
}

/* Producer's view of a mapped region. */
struct sd_fp_tx {
	struct sd_fp_shm_hdr *hdr;
	uint8_t *ring;
	const uint32_t *caps;
	const uint64_t *dsts;
	uint8_t *dbase;        /* the consumer's receive memory mapped here (NULL: none) */
	uint64_t dlen;         /* its length: every destination is checked against it */
	struct sd_fp_params p;
	uint64_t want;         /* ring bytes the last refused reserve needed (0: a credit) */
	uint64_t tail;         /* next byte to write */
	uint64_t sent;         /* messages published */
	uint64_t head_cache;   /* last head seen */
	uint64_t posted_cache; /* last posted seen */
	bool broken;           /* the consumer's counters made no sense */
	/* between reserve and commit */
	uint64_t pend_tail;
	struct sd_fp_rec *pend_rec;
	int evfd; /* atomic; the consumer's eventfd, -1 until known */
	bool defer_wake; /* set by the caller: commits leave the wake-up owed */
	int wake_owed;   /* atomic: the consumer asked, nobody signalled yet */
	int unfenced;    /* atomic: commits since the last sd_fp_tx_fence */
};

/* This thread's CPU + 1 (0 if unknown): cheap (no syscall where glibc has
 * rseq). */
uint32_t sd_fp_cpu1(void);

/* Publish where this side runs (a store only when it changed). */
static inline void sd_fp_note_cpu(uint32_t *slot, uint32_t cpu1)
{
	if (cpu1 != 0 && __atomic_load_n(slot, __ATOMIC_RELAXED) != cpu1)
		__atomic_store_n(slot, cpu1, __ATOMIC_RELAXED);
}

/* Producer: note our CPU; true if the consumer last ran on it too. */
static inline bool sd_fp_tx_peer_here(struct sd_fp_tx *tx, uint32_t cpu1)
{
	sd_fp_note_cpu(&tx->hdr->tx_cpu, cpu1);
	return cpu1 != 0 && __atomic_load_n(&tx->hdr->rx_cpu, __ATOMIC_RELAXED) == cpu1;
}

void sd_fp_tx_init(struct sd_fp_tx *tx, void *base, const struct sd_fp_params *p);

/*
 * Reserve room for one message. On success *payload and *imm point into the
 * ring, to be filled by the caller before sd_fp_tx_commit().
 * AGAIN: no posted buffer or no ring space yet. NOT_FOUND: the consumer
 * has stopped. INVALID_VALUE: len or
 * imm_len above what the consumer accepts, or len above the capacity of the
 * receive buffer the message would land in. UNEXPECTED: the consumer's
 * counters are corrupt (tx is broken for good).
 */
doca_error_t sd_fp_tx_reserve(struct sd_fp_tx *tx, uint32_t len, uint32_t imm_len, uint32_t producer_id,
			      uint8_t **payload, uint8_t **imm);
/* The same, writing the payload straight into the consumer's buffer when
 * tx has its receive memory (dbase), the credit names a destination inside
 * it and len >= SD_FP_DIRECT_MIN: then *direct is true and *payload points
 * into dbase; else *direct is false and it behaves as sd_fp_tx_reserve. */
doca_error_t sd_fp_tx_reserve_direct(struct sd_fp_tx *tx, uint32_t len, uint32_t imm_len, uint32_t producer_id,
				     uint8_t **payload, uint8_t **imm, bool *direct);
void sd_fp_tx_commit(struct sd_fp_tx *tx);
/* Commits since the last call: the store-then-load they skipped (see
 * "Publishing in batches"), so that a consumer that asked for a wake-up
 * meanwhile gets it (or, under defer_wake, is owed it). For every pause
 * of the sender: a progress call, a refused send; sd_fp_tx_flush_wake
 * does it too. */
void sd_fp_tx_fence(struct sd_fp_tx *tx);
/* A commit under defer_wake found the consumer asleep and left its wake-up
 * owed: signal it now (the caller is about to stop sending: a refused send,
 * a progress call with nothing sent since the last one, a stop). Fences
 * first. */
void sd_fp_tx_flush_wake(struct sd_fp_tx *tx);
static inline bool sd_fp_tx_wake_owed(const struct sd_fp_tx *tx)
{
	return __atomic_load_n(&tx->wake_owed, __ATOMIC_RELAXED) != 0;
}
/* Commits since the last fence. Either this or a wake-up owed: the caller
 * must come back (a progress call) before it may sleep. */
static inline bool sd_fp_tx_fence_due(const struct sd_fp_tx *tx)
{
	return __atomic_load_n(&tx->unfenced, __ATOMIC_RELAXED) != 0;
}
/* After a refused reserve: would the same reserve now find a credit and the
 * room (true also when the counters turned out corrupt: the caller's retry
 * gets the error). */
bool sd_fp_tx_ready(struct sd_fp_tx *tx);
/* About to sleep on the producers' eventfd: ask the consumer for a wake-up.
 * True if it is already ready (then do not sleep). The consumer clears the
 * request; a producer never does (another one may still wait). */
bool sd_fp_tx_arm(struct sd_fp_tx *tx);
/* Still asked (no consumer took the request since)? */
static inline bool sd_fp_tx_armed(const struct sd_fp_tx *tx)
{
	return __atomic_load_n(&tx->hdr->tx_wake, __ATOMIC_ACQUIRE) != 0;
}

/* Consumer's view of its own region. */
struct sd_fp_rx {
	struct sd_fp_shm_hdr *hdr;
	uint8_t *ring;
	uint32_t *caps;
	uint64_t *dsts;
	struct sd_fp_params p;
	uint64_t head;
	uint64_t tail_cache;
	uint64_t posted;   /* buffers posted */
	uint64_t received; /* messages consumed */
	uint64_t posted_pub; /* posted and head as last stored in the header */
	uint64_t head_pub;
	uint64_t pend_size; /* size of the record handed out by peek */
	bool peer_here;     /* set by the caller: the producer shares our CPU */
	bool direct_ok;     /* set by the caller: DIRECT records may come (else garbage) */
	bool streaming;     /* the last look found a record (fastpath_ring.c, idle_pause) */
};

struct sd_fp_msg {
	uint32_t len;
	uint32_t imm_len;
	uint32_t producer_id;
	bool direct;            /* DIRECT record: payload NULL, the bytes are in the buffer */
	const uint8_t *payload;
	const uint8_t *imm;
};

void sd_fp_rx_init(struct sd_fp_rx *rx, void *base);
/* Consumer: note our CPU; sets and returns peer_here (the last producer ran
 * on it too). */
static inline bool sd_fp_rx_note_cpu(struct sd_fp_rx *rx, uint32_t cpu1)
{
	sd_fp_note_cpu(&rx->hdr->rx_cpu, cpu1);
	rx->peer_here = cpu1 != 0 && __atomic_load_n(&rx->hdr->tx_cpu, __ATOMIC_RELAXED) == cpu1;
	return rx->peer_here;
}
/* Post one receive buffer of `cap` bytes (the caller keeps at most qcap
 * outstanding): sd_fp_rx_post_at with SD_FP_NO_DST. */
void sd_fp_rx_post(struct sd_fp_rx *rx, uint32_t cap);
/* The same, telling producers that the buffer's room starts at offset dst of
 * the shared receive memory (SD_FP_NO_DST: it is not there). */
void sd_fp_rx_post_at(struct sd_fp_rx *rx, uint32_t cap, uint64_t dst);
/* sd_fp_rx_post_at without publishing: the credit is the producers' after the
 * next sd_fp_rx_publish (or sd_fp_rx_post*, sd_fp_rx_kick). */
static inline void sd_fp_rx_stage_at(struct sd_fp_rx *rx, uint32_t cap, uint64_t dst)
{
	/* Relaxed stores (a hostile producer may read them at any time; the
	 * release of posted is what publishes them to an honest one). */
	__atomic_store_n(&rx->dsts[rx->posted & (rx->p.qcap - 1)], dst, __ATOMIC_RELAXED);
	__atomic_store_n(&rx->caps[rx->posted & (rx->p.qcap - 1)], cap, __ATOMIC_RELAXED);
	rx->posted++;
}
/* 1: *m is the next message (valid until sd_fp_rx_release); 0: none yet;
 * -1: the ring holds garbage (validation failed). A DIRECT record is
 * garbage unless rx->direct_ok; then it is returned as such (m->direct,
 * m->payload NULL), and whether this buffer may receive one is the caller's
 * to check. */
int sd_fp_rx_peek(struct sd_fp_rx *rx, struct sd_fp_msg *m);
void sd_fp_rx_release(struct sd_fp_rx *rx);
/* sd_fp_rx_release without storing head: the room is the producers' after
 * the next sd_fp_rx_publish (or release, kick). */
static inline void sd_fp_rx_consume(struct sd_fp_rx *rx)
{
	rx->head += rx->pend_size;
	rx->pend_size = 0;
	rx->received++;
}
/* Store posted and head where they changed since last stored (release). */
void sd_fp_rx_publish(struct sd_fp_rx *rx);
static inline bool sd_fp_rx_unpublished(const struct sd_fp_rx *rx)
{
	return rx->posted != rx->posted_pub || rx->head != rx->head_pub;
}
/* About to go idle: ask the next producer for a wake-up. True if a message
 * is already pending (then do not sleep). */
bool sd_fp_rx_arm(struct sd_fp_rx *rx);
/* Busy again: withdraw the request. True if a producer took it first (its
 * signal is, or is about to be, on the eventfd: drain it before sleeping
 * again); false if nobody did, so the eventfd has nothing of this round. */
bool sd_fp_rx_disarm(struct sd_fp_rx *rx);
/* Tell producers this consumer is gone. */
void sd_fp_rx_close(struct sd_fp_rx *rx);
/* After posting or consuming: does a waiting producer want a wake-up now?
 * 1: yes, once per request (the caller signals the producers' eventfd);
 * 0: the counters are published so that a producer asking from now on sees
 * them, nothing more to do until the next post or message; -1: not yet (the
 * ring still holds messages and under half the credits are free, or any at
 * all while peer_here, or busy
 * and no request seen: ask again, at the latest once the ring is empty and
 * busy false). can_signal: the producers' eventfd is known (if not, whoever
 * installs it signals it once). busy: messages were just consumed (a cheap
 * look for a request only). */
int sd_fp_rx_kick(struct sd_fp_rx *rx, bool can_signal, bool busy);
/* For the caller that must signal regardless (stop): take a pending request. */
bool sd_fp_rx_take_kick(struct sd_fp_rx *rx);

#endif /* SD_FASTPATH_RING_H_ */
