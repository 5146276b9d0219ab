/*
 * fastpath.h - per-connection state of the Comch fast path, shared by the
 * producers and consumers of one connection, and its frame dispatcher.
 *
 * One struct sd_fp_conn hangs on each connection whose fast path has been
 * used in this process (sd_comch_conn_fp_slot): by a producer or consumer
 * of ours, or by the peer, whose first frame makes the control path hand it
 * to sd_fp_conn_adopt. It holds:
 *  - remotes: consumers the peer announced, each with its shared region
 *    mapped here (what local producers write into), known from the moment
 *    the announcement arrives, producer or not;
 *  - locals: consumers of this process announced to the peer (kept with
 *    their memfd and eventfd until withdrawn).
 *
 * Frames (kinds from SD_COMCH_FP_KIND_BASE, bodies little-endian structs):
 *   0x100          reserved (a re-announce request no longer needed: no
 *                  announcement is dropped).
 *   CONSUMER_NEW   a consumer started; carries its region's memfd.
 *   CONSUMER_GONE  a consumer stopped.
 *   CONSUMER_EVFD  follows CONSUMER_NEW: the consumer's eventfd, which
 *                  producers signal when the consumer asked for a wake-up.
 *   CONSUMER_BUFMEM follows CONSUMER_NEW when the consumer's receive memory
 *                  was put on shared memory (sd_pages.h): its memfd, the
 *                  offset of the moved pages in it and their length.
 *                  Producers map it and write payloads straight into the
 *                  posted buffers (fastpath_ring.h, "Direct placement").
 *                  Optional: without it (or if refused) the ring is used.
 *   PRODUCER_EVFD  the other way: the eventfd of this process's producers
 *                  for one peer consumer, which that consumer signals when
 *                  a producer waiting for credits or room asked for it.
 *                  Sent once, before the first such request.
 *
 * Across a network (the connection's link cannot carry file descriptors:
 * SOFTDOCA_LINK=ucx://, sd_link_ucx.h; st->net, decided once per
 * connection) nothing is shared: the fast path becomes messages on the
 * link's authenticated, ordered Comch connection, beside its frames
 * (struct sd_link_fp_ops): the module hands them to our tap on its own
 * thread as they arrive, so that credits reach a producer whose program
 * retries a send without progressing its PE (as NVIDIA's samples do). The
 * tap keeps the tables; what the owner must be told (a consumer appeared or
 * expired) follows as a frame (NET_NEW, CONSUMER_GONE) that the dispatcher
 * handles on the connection's thread after syncing the tap (everything
 * sent before the frame has then been through it):
 *   NET_NEW     consumer -> producers' side: a consumer started (its id, its
 *               largest message, immediate data length and receive slots).
 *               CONSUMER_GONE withdraws it, as locally.
 *   NET_CREDIT  consumer -> producers' side: receives posted, in order, each
 *               as its capacity (batched: one frame per progress call).
 *   NET_DATA    producer -> consumer: one fragment of a message (header with
 *               the total length, offset, producer id and immediate data,
 *               then the bytes: up to SD_FP_NET_CHUNK of one of the
 *               message's buffers, gathered by the module straight from
 *               it). A message takes the credit at the head of
 *               the consumer's FIFO: the n-th message lands in the n-th
 *               posted buffer, as locally.
 * The producers' side keeps each remote consumer's credits (capacities) in
 * a FIFO (the remote's spin lock): no credit is AGAIN, a message larger
 * than the head credit or the consumer's maximum INVALID_VALUE, as locally.
 * The consumer's side (the tap) validates every fragment against what it
 * granted (never more messages in flight than credits granted, never more
 * bytes than the consumer's maximum or the message's own buffer, offsets in
 * order); a violation marks the consumer broken (its ctx fails with
 * UNEXPECTED, as for a corrupt ring locally). The consumer grants each
 * credit with its buffer's free room (sd_fp_net_grant), and the tap writes
 * a complete message there itself, in completion order: a message of one
 * fragment straight from the link's receive buffer (one copy at this end),
 * a longer one reassembled per producer in a heap message first. Complete
 * messages are then queued on the consumer's entry and its eventfd is
 * signalled; the consumer's progress (its PE's thread) completes the
 * posted buffers' tasks in order. Before a stopping consumer hands its
 * buffers back it detaches (sd_fp_net_detach): the tap writes no more.
 * No user callback runs off the PE's thread.
 * Sends are synchronous as locally (the task completes at submit): the
 * fragments are handed to the link, waiting boundedly for its window.
 *
 * Threading: the dispatcher runs on the connection's thread. Producers and
 * consumers run on their own threads and reach the connection only through
 * sd_fp_conn_send (under the state's mutex, which also orders them against
 * SD_COMCH_FP_CLOSED: once closed, the connection pointer is never used
 * again). The state is reference counted: one reference for the connection
 * (dropped on CLOSED), one per producer/consumer; remotes likewise (one for
 * the table, one per producer caching it). Data moves without the mutex.
 */
#ifndef SD_FASTPATH_H_
#define SD_FASTPATH_H_

#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <doca_error.h>

#include "fastpath_ring.h"
#include "sd_link_ucx.h"

struct doca_comch_connection;
struct doca_ctx;
struct doca_buf;
struct doca_dev;
struct sd_link;
struct sd_link_fp_ops;
struct sd_caps;
struct sd_ctx_ops;

enum sd_fp_kind {
	SD_FP_CONSUMER_NEW = 0x101,
	SD_FP_CONSUMER_GONE = 0x102,
	SD_FP_CONSUMER_EVFD = 0x103,
	SD_FP_PRODUCER_EVFD = 0x104,
	SD_FP_CONSUMER_BUFMEM = 0x105,
	SD_FP_NET_NEW = 0x106,
	SD_FP_NET_CREDIT = 0x107,
	SD_FP_NET_DATA = 0x108,
};

/* Across a network (see the top of this file). */
struct sd_fp_net_new_body {
	uint32_t version; /* SD_FP_VERSION */
	uint32_t consumer_id;
	uint32_t max_msg;
	uint32_t imm_len;
	uint32_t slots; /* receives it can post at once (pow2) */
	uint32_t reserved;
};
_Static_assert(sizeof(struct sd_fp_net_new_body) == 24, "NET_NEW body layout");

struct sd_fp_net_credit_hdr {
	uint32_t consumer_id;
	uint32_t count; /* followed by count u32 capacities */
};
#define SD_FP_NET_MAX_CREDITS ((4096u - sizeof(struct sd_fp_net_credit_hdr)) / sizeof(uint32_t))

struct sd_fp_net_data_hdr {
	uint32_t consumer_id;
	uint32_t producer_id;
	uint32_t total;   /* the message's length */
	uint32_t off;     /* of this fragment's bytes in it */
	uint32_t imm_len; /* first fragment only; 0 in the others */
	uint32_t reserved;
	uint8_t imm[SD_FP_MAX_IMM];
};
_Static_assert(sizeof(struct sd_fp_net_data_hdr) == 56, "NET_DATA header layout");
#define SD_FP_NET_CHUNK (SD_LINK_FP_MAX_BODY - sizeof(struct sd_fp_net_data_hdr))

/* A message received across a network: partial (reassembling in data,
 * the dispatcher's alone) or complete (queued for the consumer, its bytes
 * already in the posted buffer its credit was granted for: a message that
 * comes in one fragment is copied there straight from the link's receive
 * buffer, a longer one from data once its last fragment is in). */
struct sd_fp_netmsg {
	struct sd_fp_netmsg *next;
	uint32_t producer_id;
	uint32_t cap; /* bytes data has room for */
	uint32_t len;
	uint32_t got;
	uint32_t imm_len;
	uint8_t imm[SD_FP_MAX_IMM];
	uint8_t data[];
};

/* Where the message of a granted credit goes: the free room of the receive
 * buffer posted for it (the consumer's memory, written by the dispatcher
 * under the state's lock until the consumer detaches). */
struct sd_fp_net_dst {
	uint8_t *p;
	uint32_t cap;
};

/* Largest receive memory a producer maps for direct placement. */
#define SD_FP_MAX_BUFMEM (1ull << 30)

/* Seals a region's memfd carries before it is announced: its size can never
 * change under a mapping (a shrunk region would SIGBUS the writer). */
#define SD_FP_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

struct sd_fp_new_body {
	uint32_t version;      /* SD_FP_VERSION */
	uint32_t consumer_id;
	uint64_t region_size;
};
_Static_assert(sizeof(struct sd_fp_new_body) == 16, "CONSUMER_NEW body layout");

struct sd_fp_gone_body {
	uint32_t consumer_id;
	uint32_t reserved;
};
_Static_assert(sizeof(struct sd_fp_gone_body) == 8, "CONSUMER_GONE body layout");
/* CONSUMER_EVFD carries a struct sd_fp_gone_body too (the id). */

struct sd_fp_bufmem_body {
	uint32_t consumer_id;
	uint32_t reserved;
	uint64_t off; /* of the moved pages in the memfd (page aligned) */
	uint64_t len; /* bytes of whole pages */
};
_Static_assert(sizeof(struct sd_fp_bufmem_body) == 24, "CONSUMER_BUFMEM body layout");

/* A consumer of the peer, mapped into this process. */
struct sd_fp_remote {
	struct sd_fp_remote *next;
	uint32_t id;
	int refs;      /* atomic */
	int dead;      /* atomic: expired or connection gone */
	int lock;      /* atomic spin flag: serialises this process's producers */
	int wake_fd;   /* producers' eventfd (the consumer signals it) */
	int wake_sent; /* atomic: wake_fd was sent to the peer */
	void *base;
	size_t size;
	void *dbase; /* the consumer's receive memory (CONSUMER_BUFMEM), NULL if none */
	size_t dlen;
	struct sd_fp_tx tx;
	/* across a network (base NULL): credits granted, under lock */
	uint32_t max_msg;
	uint32_t imm_len;
	uint32_t slots; /* pow2 */
	uint32_t *ncap; /* slots capacities */
	uint64_t nhead, ntail;
	bool nbroken;   /* the peer granted more than it announced */
	bool evented;   /* the owner was told it appeared (owed the expiry) */
};

/* Producers across a network: take the head credit of r (AGAIN: none;
 * INVALID_VALUE: len above it or the consumer's maximum, credit kept;
 * NOT_FOUND: gone; UNEXPECTED: the peer broke the credit protocol). */
doca_error_t sd_fp_net_take_credit(struct sd_fp_remote *r, uint32_t len, uint32_t imm_len);
/* The same answer, the credit left where it is (a send a fault injection
 * may yet take: SOFTDOCA_FAULTS=producer). */
doca_error_t sd_fp_net_check_credit(struct sd_fp_remote *r, uint32_t len, uint32_t imm_len);
bool sd_fp_net_has_credit(struct sd_fp_remote *r);

/* A consumer of this process, announced to the peer. */
struct sd_fp_local {
	struct sd_fp_local *next;
	uint32_t id;
	int fd;
	int evfd;
	int prod_evfd; /* atomic: the peer's producers' eventfd, -1 until known */
	struct sd_fp_shm_hdr *hdr; /* the consumer's mapping, valid while linked */
	struct sd_fp_new_body body;
	int buf_fd;                /* the receive memory's memfd (-1: none); not ours to close */
	struct sd_fp_bufmem_body buf;
	/* across a network: under the state's lock */
	bool net;
	uint32_t max_msg;
	uint32_t imm_len;
	uint64_t granted;   /* credits sent and not yet used by a message */
	bool bad;           /* the peer broke the protocol */
	struct sd_fp_netmsg *partial;        /* the dispatcher's reassembly */
	struct sd_fp_netmsg *rx_head, *rx_tail; /* complete, for the consumer */
	struct sd_fp_netmsg *spare;             /* handed back (sd_fp_net_recycle) */
	uint32_t nspare;
	size_t spare_bytes;
	struct sd_fp_net_dst *dsts; /* ring (dst_mask + 1 entries) of granted buffers, posting order */
	uint32_t dst_mask;
	uint64_t dst_tail; /* entries granted */
	uint64_t dst_next; /* the buffer of the next message to complete */
	bool dst_off;      /* detached: the buffers went back to the program */
};

struct sd_fp_conn {
	pthread_mutex_t lock;
	struct doca_comch_connection *conn; /* NULL once closed */
	struct doca_dev *dev;
	int refs;                           /* atomic */
	int closed;                         /* atomic */
	struct sd_fp_remote *remotes;
	struct sd_fp_local *locals;
	uint32_t nproducers;
	uint32_t nconsumers;
	uint32_t nremotes; /* peer consumers mapped, capped by the device */
	bool net;          /* the link cannot carry fds: messages, not shared memory */
	/* across a network: the connection's link and the module's fast-path
	 * calls (NULL: not available), consumers withdrawn by the tap whose
	 * expiry the owner is still owed (the connection's thread tells it) */
	struct sd_link *link;
	const struct sd_link_fp_ops *nops;
	struct sd_fp_remote *gone;
};

/* Attach to a live connection (creating its state and dispatcher on first
 * use); returns a reference. BAD_STATE if the connection is dead. */
doca_error_t sd_fp_conn_get(struct doca_comch_connection *conn, struct sd_fp_conn **st);
void sd_fp_conn_put(struct sd_fp_conn *st);

static inline bool sd_fp_conn_closed(const struct sd_fp_conn *st)
{
	return __atomic_load_n(&st->closed, __ATOMIC_ACQUIRE) != 0;
}

/* Does the peer have a consumer on this connection now? (For the
 * stuck-program diagnostic: a producer without one cannot do anything.) */
bool sd_fp_conn_has_remote(struct sd_fp_conn *st);

/* Send a frame if the connection is still there; NOT_CONNECTED otherwise. */
doca_error_t sd_fp_conn_send(struct sd_fp_conn *st, uint16_t kind, const void *body, uint32_t len, int fd);

/* Announce / withdraw a local consumer (on success announce keeps fd and
 * evfd until withdraw, which closes them; *out is the entry, valid until
 * withdraw, whose prod_evfd the consumer signals). */
doca_error_t sd_fp_conn_announce(struct sd_fp_conn *st, uint32_t id, int fd, int evfd, void *region,
				 uint64_t region_size, struct sd_fp_local **out);
/* The same, also offering the consumer's receive memory: memfd buf_fd (the
 * caller's, kept open by it while announced; -1: none) holds it from offset
 * buf_off for buf_len bytes. */
doca_error_t sd_fp_conn_announce_bufmem(struct sd_fp_conn *st, uint32_t id, int fd, int evfd, void *region,
					uint64_t region_size, int buf_fd, uint64_t buf_off, uint64_t buf_len,
					struct sd_fp_local **out);
void sd_fp_conn_withdraw(struct sd_fp_conn *st, uint32_t id);

/* Across a network: announce a consumer (evfd is signalled when messages
 * are queued; kept until withdraw, which closes it, as above). */
doca_error_t sd_fp_net_announce(struct sd_fp_conn *st, uint32_t id, int evfd, uint32_t max_msg, uint32_t imm_len,
				uint32_t slots, struct sd_fp_local **out);
/* Grant count credits, in posting order: dsts[] the receive buffers' free
 * room (where each message is written, at most cap bytes), at most slots
 * of them granted and not yet filled. */
doca_error_t sd_fp_net_grant(struct sd_fp_conn *st, struct sd_fp_local *l, const struct sd_fp_net_dst *dsts,
			     uint32_t count);
/* The consumer stops: its posted buffers are no longer written (messages
 * that come in afterwards are dropped). Call before handing them back. */
void sd_fp_net_detach(struct sd_fp_conn *st, struct sd_fp_local *l);
/* Take every complete message queued for l (a list, oldest first, each
 * already in the next granted buffer; the caller hands each back with
 * sd_fp_net_recycle, or frees it); *bad: the peer broke the protocol. */
struct sd_fp_netmsg *sd_fp_net_take(struct sd_fp_conn *st, struct sd_fp_local *l, bool *bad);
/* A message the consumer is done with, back for the next of at most its
 * size (a few are kept, a few MiB at most: a fresh allocation of a large
 * message costs page faults the copy into it then pays); m may be NULL. */
void sd_fp_net_recycle(struct sd_fp_conn *st, struct sd_fp_local *l, struct sd_fp_netmsg *m);
static inline bool sd_fp_net_pending(const struct sd_fp_local *l)
{
	return __atomic_load_n(&l->rx_head, __ATOMIC_ACQUIRE) != NULL;
}
/* Send one message (fragments) to consumer id. */
doca_error_t sd_fp_net_send(struct sd_fp_conn *st, uint32_t consumer_id, uint32_t producer_id, const void *imm,
			    uint32_t imm_len, const struct doca_buf *buf);

/* Find a live remote consumer; returns a reference or NULL. */
struct sd_fp_remote *sd_fp_remote_get(struct sd_fp_conn *st, uint32_t id);
void sd_fp_remote_put(struct sd_fp_remote *r);

/* Producers and consumers: the part of create and destroy they share. The
 * object embeds its struct doca_ctx first. */
enum sd_fp_role {
	SD_FP_ROLE_PRODUCER,
	SD_FP_ROLE_CONSUMER,
};

struct sd_fp_ep {
	struct doca_ctx *ctx;        /* the object: zeroed, ctx initialised */
	struct sd_fp_conn *st;       /* referenced */
	const struct sd_caps *caps;
	bool not_connected;          /* failed attaching (the caller logs it) */
};

/* Pin conn, attach its state, take one of the role's slots (FULL past the
 * device's cap, NOT_SUPPORTED if the device has no such role) and allocate
 * size bytes with the ctx initialised. On error nothing is held. */
doca_error_t sd_fp_ep_create(struct doca_comch_connection *conn, enum sd_fp_role role, size_t size,
			     const struct sd_ctx_ops *ops, const char *name, struct sd_fp_ep *ep);
/* BAD_STATE (nothing done) unless ctx is idle; else release(ctx) drops the
 * object's own resources, then its slot, st and the pin on conn go and the
 * object is freed. */
doca_error_t sd_fp_ep_destroy(struct doca_ctx *ctx, enum sd_fp_role role, struct sd_fp_conn *st,
			      struct doca_comch_connection *conn, void (*release)(struct doca_ctx *ctx));

/* The connection's id in logs and traces (connection.c; same library, so not
 * part of the sd_comch.h seam). 0 for NULL. */
uint32_t sd_comch_conn_id(const struct doca_comch_connection *conn);

static inline bool sd_fp_remote_dead(const struct sd_fp_remote *r)
{
	return __atomic_load_n(&r->dead, __ATOMIC_ACQUIRE) != 0;
}

/* Adaptive waiting, both sides: after this many empty polls and at least
 * this long, a producer or consumer with nothing to do asks the other side
 * for a wake-up and reports nothing, so that the program sleeps on its PE's
 * notification handle. The spin is about what a sleep and a wake-up cost,
 * so a peer that is merely a little behind never puts us to sleep. Not when
 * the peer last ran on our CPU (fastpath_ring.h, "Sharing a CPU"): it cannot
 * catch up while we spin, so we ask for the wake-up at once. */
#define SD_FP_SPIN_POLLS 64u
#define SD_FP_SPIN_NS 50000u

static inline bool sd_fp_spin_over(uint32_t *polls, uint64_t *since_ns, uint64_t now_ns)
{
	if ((*polls)++ == 0)
		*since_ns = now_ns;
	return *polls >= SD_FP_SPIN_POLLS && now_ns - *since_ns >= SD_FP_SPIN_NS;
}

static inline void sd_fp_remote_lock(struct sd_fp_remote *r)
{
	while (__atomic_exchange_n(&r->lock, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&r->lock, __ATOMIC_RELAXED))
			sd_cpu_relax();
}

static inline void sd_fp_remote_unlock(struct sd_fp_remote *r)
{
	__atomic_store_n(&r->lock, 0, __ATOMIC_RELEASE);
}

#endif /* SD_FASTPATH_H_ */
