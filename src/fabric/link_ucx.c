#define _GNU_SOURCE
/*
 * The UCX transport: the link across a network (SOFTDOCA_LINK=ucx://ADDR:PORT,
 * see sd_link_ucx.h for selection and the handshake).
 *
 * One UCX context and worker per link address (SOFTDOCA_LINK, and each card
 * that names its own: struct lurl says why), all driven by one thread of ours
 * that sleeps on the workers' event fds and a wake-up eventfd, never spinning.
 * Only that thread calls into UCX (so the workers run in
 * UCS_THREAD_MODE_SINGLE): callers of the sd_link_ops queue what they want
 * under one process-wide lock and wake it. Each link's fd is an eventfd that
 * is readable exactly while frames (or the news that the peer is gone) wait
 * for sd_link_recv, which is what the sd_link contract asks of a pollable fd.
 *
 * Why not send from the caller: UCX in multi-thread mode serialises on the
 * worker anyway, and a queue lets send answer AGAIN from a plain credit
 * count: each direction may have at most UCX_WINDOW bytes of frames that
 * the receiver has not consumed; the receiver returns credit as its user
 * reads. A peer that sends past its credit is hostile and is dropped, so a
 * receiver that does not read costs at most one window of memory.
 *
 * The Arm side listens: one ucp_listener per link address at ADDR:PORT, made
 * at the first listen of a card reached there; the handshake's card tells the
 * clients of cards that share an address apart. A connecting peer must pass
 * the handshake and then names the address (card, function, server name) it
 * opens; the connection goes to that listener's accept queue, or is refused
 * with NOT_FOUND. Frames are checked by sd_frame_parse exactly like frames
 * from a local socket, and a frame claiming to carry a descriptor is
 * malformed: descriptors cannot cross a network (send refuses them with
 * NOT_SUPPORTED).
 *
 * Liveness: both sides send a PING when they have sent nothing for
 * timeout/5; a link that has heard nothing for SOFTDOCA_LINK_TIMEOUT_MS
 * (default 5000 ms) is dead (CONNECTION_RESET), whether the peer died, hung
 * or the network between them went down. UCX's own error handling (PEER
 * mode) usually reports a dead peer sooner.
 *
 * Closing a link flushes what it queued (a BYE, a refusal) before the
 * endpoint disconnects, waiting at most about a second: the caller may exit
 * right after. At exit the thread stops and every endpoint closes (atexit; the
 * listeners and the worker are left to the exit itself: ucx_fini says why).
 *
 * UCX settings made here unless the user set them: no memory hooks
 * (UCX_MEM_MALLOC_HOOKS=no, UCX_MEM_EVENTS=no, UCX_MEMTYPE_CACHE=n: they
 * fight with sanitizers and AM over TCP does not need them), UCX's own log
 * at fatal (UCX_LOG_LEVEL=warn shows it again), UCX_TCP_CM_REUSEADDR=y (a
 * restarted server binds despite TIME_WAIT). The transports are the
 * user's choice (UCX_TLS); between namespaces of one machine use tcp.
 *
 * The Comch fast path (sd_link_fp_ops in sd_link_ucx.h): LK_FP messages on
 * a Comch connection beside its frames, outside the frames' sequence and
 * window (the fast path's credits bound them; held ones are capped at
 * UCX_FP_MAX_HELD, queued ones make the sender wait past
 * UCX_FP_MAX_PENDING). The thread hands them to the link's tap after each
 * worker progress, in order and without the lock, so that the tap may take
 * the fast path's locks while a producer holding them waits for ours.
 *
 * Small messages of a Comch connection queued one behind another leave as
 * one (LK_BATCH): a send on the wire costs the sender a system call and
 * the peer a wake-up, whatever its size, and a producer of small messages
 * outruns the thread that sends them.
 *
 * Remote memory (SOFTDOCA_LINK and doca_mmap_export_pci): connections of
 * another role on the same worker and thread, through the same handshake;
 * the messages and their checks are in remote_ucx.c (seam: link_ucx_int.h).
 * An exporter listens for them on a second, ephemeral listener.
 *
 * Not handled: fork (the child has no progress thread; it must not use
 * links its parent opened).
 */
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <ucp/api/ucp.h>
#include <ucm/api/ucm.h>

#include "sd_env.h"
#include "sd_link_ucx.h"
#include "sd_log.h"
#include "link_ucx_int.h"

SD_LOG_REGISTER(FABRIC);

#define UCX_AM_ID 0x5d
#define UCX_WINDOW (2u * 1024u * 1024u)
#define UCX_CREDIT_BATCH (UCX_WINDOW / 4u)
#define UCX_MAX_UNOPENED 64 /* server side connections still in the handshake */
#define UCX_TIMEOUT_DEF_MS 5000u
#define UCX_CLOSE_FLUSH_NS (1000ull * 1000000ull)

enum lkind {
	LK_HELLO = 1,
	LK_CHALLENGE,
	LK_PROOF,
	LK_RESULT,
	LK_FRAME,
	LK_CREDIT,
	LK_PING,
	LK_CLOSE,
	LK_FP, /* a Comch fast-path message (arg: its kind), for the link's tap */
	LK_BATCH, /* small messages of a Comch connection in order (arg: how many), each a struct brec and its bytes */
};

/* A message inside an LK_BATCH: only FRAME, FP and CREDIT, of at most
 * UCX_BATCH_REC_MAX bytes, are batched. */
struct brec {
	uint32_t kind;
	uint32_t arg;
	uint32_t len;
	uint32_t reserved;
};
#define UCX_BATCH_REC_MAX (8u * 1024u)
#define UCX_BATCH_MAX (60u * 1024u)
_Static_assert(LK_FRAME == 5 && LK_BATCH == 10, "wire values (tests/ucx names them)");

/* Fast-path messages held for a link's tap (none attached yet, or behind):
 * more is a peer flooding us. Queued toward the peer: more makes the
 * sender wait (sd_link_fp_ops.send answers AGAIN). */
#define UCX_FP_MAX_HELD (64u * 1024u * 1024u)
#define UCX_FP_MAX_PENDING (8u * 1024u * 1024u)

/* Sent as the AM header of every message. */
struct lhdr {
	uint32_t kind;
	uint32_t arg;
};

enum phase {
	PH_CONNECTING,  /* client: HELLO sent, waiting for the CHALLENGE */
	PH_WAIT_RESULT, /* client: PROOF sent */
	PH_WAIT_HELLO,  /* server */
	PH_WAIT_PROOF,  /* server: CHALLENGE sent */
	PH_OPEN,
};

struct txb {
	struct txb *next;
	struct uconn *c;
	size_t len; /* payload bytes after the header */
	size_t cap; /* room for that many (pooled buffers: SD_UCX_POOLED_MAX) */
	struct lhdr hdr;
	uint8_t data[];
};

struct rxf {
	struct rxf *next;
	size_t len;
	uint8_t data[];
};

struct ulink;
struct lurl;

enum role {
	ROLE_COMCH,     /* frames of a Comch link */
	ROLE_RM_SERVER, /* exporter: an importer reaching its memory */
	ROLE_RM_CLIENT, /* importer */
};

/* One UCX endpoint and what goes over it; owned and freed by the thread. */
struct uconn {
	struct uconn *next;
	ucp_ep_h ep;
	bool server;
	enum role role;
	void *rm; /* remote_ucx.c's: the import (client) or the session (server, freed with us) */
	struct sockaddr_storage sa; /* client: where to connect */
	socklen_t salen;
	struct lurl *u; /* the link it belongs to (server: whose listener it came to): its worker */
	size_t pending; /* payload bytes queued or in flight */
	bool started; /* client: endpoint made */
	enum phase phase;
	struct sd_auth auth;
	struct sd_fabric_addr addr;
	char peer[SD_LINK_HOST_MAX + 32]; /* "ip:port" for logs */
	struct ulink *link;      /* attached link, or NULL */
	struct ulink *queued_on; /* server: in this listener's accept queue */
	struct uconn *acc_next;
	struct rxf *rx_head, *rx_tail;
	size_t rx_outstanding; /* received, not credited back */
	size_t rx_consumed;    /* read by the user, not credited back yet */
	struct txb *tx_head, *tx_tail;
	size_t tx_credit;
	unsigned int inflight;
	bool failed;
	doca_error_t fail_err;
	bool want_close;
	uint64_t close_deadline;
	bool closing;
	ucs_status_ptr_t close_req;
	bool closed;
	unsigned int held; /* callers waiting for closed, an importer holding it: not to be freed */
	bool done; /* client: connect has its answer in result */
	doca_error_t result;
	/* client of a Comch link still in g.attempts: connect has not handed
	 * it out yet (asked: the last call for it; end: when it gives up) */
	struct uconn *att_next;
	uint64_t asked_ns, attempt_end_ns;
	uint64_t born_ns, last_rx_ns, last_tx_ns;
};

struct ulink {
	struct sd_link base;
	bool listener;
	bool signalled;
	bool fd_warned;
	struct uconn *c;
	/* the fast path's tap (sd_link_fp_ops): messages held for it, under
	 * g.mu; tap_mu orders the deliveries (thread or sync), tap_busy pins
	 * the link against close while one is under way */
	sd_link_fp_tap_fn tap;
	void *tap_arg;
	unsigned int tap_busy;
	pthread_mutex_t tap_mu;
	struct rxf *fp_head, *fp_tail;
	size_t fp_bytes;
	/* listener */
	struct ulink *lnext;
	struct sd_fabric_addr addr;
	struct uconn *acc_head, *acc_tail;
};

/* A listener of ours, made at the first listen (Comch) or export (remote
 * memory) that needs it, by the thread. */
struct lslot {
	ucp_listener_h h;
	bool req, done;
	doca_error_t err;
	bool rm;        /* remote memory's (the kernel picks the port) or Comch's */
	struct lurl *u; /* the link it serves */
	struct sockaddr_storage sa; /* where: the link's address (Comch), the route toward it (remote memory) */
	socklen_t salen;
};

/* One address the cards of this process are reached at (SOFTDOCA_LINK, a
 * card's own link): cards sharing one share this. Each has a UCX context
 * and worker of its own, because UCX's choice of network interfaces is a
 * context's: with one for all, a host whose cards' Arm sides sit on two
 * networks would open lanes toward one peer from the interface facing the
 * other, whose packets that peer cannot answer. */
struct lurl {
	struct sd_link_url url;
	struct lslot comch, rm;
	ucp_context_h ctx;
	ucp_worker_h worker;
	int efd;
};

static struct {
	pthread_mutex_t mu; /* recursive: UCX may call our callbacks from calls we make under it */
	pthread_cond_t cv;
	/* the links, each address once; card_url[card] (ncards of them):
	 * its index, -1 for def_url's (-1: none either), -2 for none (its own
	 * did not resolve) */
	struct lurl *urls;
	unsigned int nurls;
	int def_url;
	int *card_url;
	uint32_t ncards;
	uint8_t secret[SD_LINK_SECRET_MAX];
	size_t secret_len;
	uint64_t timeout_ns, ping_ns;
	int wake;
	struct pollfd *pfd; /* the thread's: each worker's event fd, then wake */
	pthread_t thr;
	struct uconn *conns, *newc;
	struct uconn *attempts; /* connects under way (ucx_connect) */
	struct ulink *listeners;
	bool fp_pending; /* some link holds fast-path messages for its tap */
	struct txb *pool; /* free large message buffers, pool_n of them */
	unsigned int pool_n;
	int asleep; /* the thread may be in poll (or about to be): wake_thread writes */
	bool stop; /* process exit: the thread returns (atomic: the thread reads it unlocked) */
	bool gone; /* UCX torn down: every call answers NOT_CONNECTED */
} g = {.wake = -1};

static const struct sd_link_ops ucx_ops;

/* Where card's Arm side is reached: its own link, else the process's;
 * NULL when neither names one. */
static struct lurl *lurl_of(uint32_t card)
{
	int i = card < g.ncards && g.card_url[card] != -1 ? g.card_url[card] : g.def_url;

	return i >= 0 ? &g.urls[i] : NULL;
}

static doca_error_t no_link(uint32_t card)
{
	if (card < g.ncards && g.card_url[card] == -2)
		SD_LOG_ERR("UCX link: card %u's link (the topology's cards[%u].link) did not resolve when the link "
			   "started", (unsigned)card, (unsigned)card);
	else
		SD_LOG_ERR("UCX link: card %u has no link: name it in the topology (cards[%u].link or \"link\") or "
			   "in SOFTDOCA_LINK", (unsigned)card, (unsigned)card);
	return DOCA_ERROR_NOT_SUPPORTED;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Only a thread that may be asleep is written to: a producer queueing
 * messages faster than the thread sends them would otherwise pay a system
 * call per message, and the thread a spurious wake-up (progress_main says
 * why none is lost). */
static void wake_thread(void)
{
	uint64_t one = 1;

	if (g.wake >= 0 && __atomic_exchange_n(&g.asleep, 0, __ATOMIC_SEQ_CST))
		(void)!write(g.wake, &one, sizeof(one));
}

/* ---- link fd: readable exactly while recv/accept has something ------------ */

static void link_update(struct ulink *l)
{
	bool want;
	uint64_t v = 1;

	if (l == NULL || l->base.fd < 0)
		return;
	if (l->listener)
		want = l->acc_head != NULL;
	else
		want = l->c == NULL || l->c->rx_head != NULL || l->c->failed;
	if (want && !l->signalled) {
		(void)!write(l->base.fd, &v, sizeof(v));
		l->signalled = true;
	} else if (!want && l->signalled) {
		(void)!read(l->base.fd, &v, sizeof(v));
		l->signalled = false;
	}
}

static void conn_fail(struct uconn *c, doca_error_t err)
{
	if (c->failed)
		return;
	c->failed = true;
	c->fail_err = err;
	if (c->role != ROLE_COMCH)
		sd_ucx_rm_failed(c, c->server, err);
	if (!c->server && !c->done) {
		c->done = true;
		c->result = err;
		pthread_cond_broadcast(&g.cv);
	}
	link_update(c->link);
}

/* The error of an endpoint that failed: for a client that never got
 * through, nobody listens there (yet), which a Comch client waits out as it
 * does for a late server on the local fabric; whichever of the send and the
 * endpoint's error handler reports it first. */
static doca_error_t lost_err(const struct uconn *c)
{
	return !c->server && c->phase == PH_CONNECTING ? DOCA_ERROR_NOT_FOUND : DOCA_ERROR_CONNECTION_RESET;
}

/* ---- sending (queued, posted by the thread) ------------------------------- */

/*
 * Large messages (remote-memory chunks) reuse their buffers. A fresh
 * malloc of that size is above glibc's mmap threshold, or comes from a
 * thread arena that trims on free: either way new pages the kernel zeroes
 * and faults in one by one, which cost more than the copy itself.
 */
#define TXB_POOL_MIN (64u * 1024u)
#define TXB_POOL_KEEP 16u
_Static_assert(SD_UCX_POOLED_MAX >= TXB_POOL_MIN, "pooled sizes");

static struct txb *txb_new(size_t len)
{
	size_t cap = len >= TXB_POOL_MIN && len <= SD_UCX_POOLED_MAX ? SD_UCX_POOLED_MAX : len;
	struct txb *t = NULL;

	if (cap == SD_UCX_POOLED_MAX && g.pool != NULL) {
		t = g.pool;
		g.pool = t->next;
		g.pool_n--;
	} else {
		t = malloc(sizeof(*t) + cap);
		if (t == NULL)
			return NULL;
		t->cap = cap;
	}
	t->next = NULL;
	t->c = NULL;
	t->len = len;
	return t;
}

static void txb_free(struct txb *t)
{
	if (t->cap == SD_UCX_POOLED_MAX && g.pool_n < TXB_POOL_KEEP && !g.gone) {
		t->next = g.pool;
		g.pool = t;
		g.pool_n++;
		return;
	}
	free(t);
}

static void queue_txb(struct uconn *c, struct txb *t, uint32_t kind, uint32_t arg)
{
	t->c = c;
	t->hdr.kind = kind;
	t->hdr.arg = arg;
	c->pending += t->len;
	if (c->tx_tail != NULL)
		c->tx_tail->next = t;
	else
		c->tx_head = t;
	c->tx_tail = t;
}

static bool queue_msg(struct uconn *c, uint32_t kind, uint32_t arg, const void *a, size_t alen, const void *b,
		      size_t blen)
{
	struct txb *t = txb_new(alen + blen);

	if (t == NULL) {
		conn_fail(c, DOCA_ERROR_NO_MEMORY);
		return false;
	}
	if (alen)
		memcpy(t->data, a, alen);
	if (blen)
		memcpy(t->data + alen, b, blen);
	queue_txb(c, t, kind, arg);
	return true;
}

static void send_done(void *request, ucs_status_t status, void *user_data)
{
	struct txb *t = user_data;

	pthread_mutex_lock(&g.mu);
	t->c->inflight--;
	t->c->pending -= t->len;
	if (status != UCS_OK && status != UCS_ERR_CANCELED && !t->c->failed) {
		SD_LOG_DBG("UCX link to %s: send failed: %s", t->c->peer, ucs_status_string(status));
		conn_fail(t->c, lost_err(t->c));
	}
	txb_free(t);
	pthread_mutex_unlock(&g.mu);
	ucp_request_free(request);
}

static bool batchable(const struct uconn *c, const struct txb *t)
{
	return c->role == ROLE_COMCH && c->phase == PH_OPEN && t->len <= UCX_BATCH_REC_MAX &&
	       (t->hdr.kind == LK_FRAME || t->hdr.kind == LK_FP || t->hdr.kind == LK_CREDIT);
}

/* Two or more small messages at the head of the queue, taken off it as
 * one LK_BATCH; NULL when there are not (or no memory: one by one then). */
static struct txb *take_batch(struct uconn *c)
{
	size_t total = 0;
	unsigned int n = 0;
	struct txb *t, *b;
	uint8_t *p;

	for (t = c->tx_head; t != NULL && batchable(c, t) && total + sizeof(struct brec) + t->len <= UCX_BATCH_MAX;
	     t = t->next) {
		total += sizeof(struct brec) + t->len;
		n++;
	}
	if (n < 2 || (b = txb_new(total)) == NULL)
		return NULL;
	p = b->data;
	for (unsigned int i = 0; i < n; i++) {
		struct brec r;

		t = c->tx_head;
		c->tx_head = t->next;
		r.kind = t->hdr.kind;
		r.arg = t->hdr.arg;
		r.len = (uint32_t)t->len;
		r.reserved = 0;
		memcpy(p, &r, sizeof(r));
		memcpy(p + sizeof(r), t->data, t->len);
		p += sizeof(r) + t->len;
		c->pending -= t->len;
		txb_free(t);
	}
	if (c->tx_head == NULL)
		c->tx_tail = NULL;
	b->c = c;
	b->hdr.kind = LK_BATCH;
	b->hdr.arg = n;
	c->pending += b->len;
	return b;
}

static void post_queued(struct uconn *c, uint64_t now)
{
	ucp_request_param_t rp;
	ucs_status_ptr_t r;
	struct txb *t;

	while (c->tx_head != NULL && c->ep != NULL && !c->failed && !c->closing) {
		t = take_batch(c);
		if (t == NULL) {
			t = c->tx_head;
			c->tx_head = t->next;
			if (c->tx_head == NULL)
				c->tx_tail = NULL;
		}
		memset(&rp, 0, sizeof(rp));
		rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
		rp.cb.send = send_done;
		rp.user_data = t;
		rp.flags = UCP_AM_SEND_FLAG_REPLY | UCP_AM_SEND_FLAG_EAGER;
		c->last_tx_ns = now;
		r = ucp_am_send_nbx(c->ep, UCX_AM_ID, &t->hdr, sizeof(t->hdr), t->data, t->len, &rp);
		if (r == NULL) {
			c->pending -= t->len;
			txb_free(t);
		} else if (UCS_PTR_IS_ERR(r)) {
			SD_LOG_DBG("UCX link to %s: send failed: %s", c->peer, ucs_status_string(UCS_PTR_STATUS(r)));
			c->pending -= t->len;
			txb_free(t);
			conn_fail(c, lost_err(c));
		} else {
			c->inflight++;
		}
	}
}

static void free_queues(struct uconn *c)
{
	struct txb *t;
	struct rxf *f;

	while ((t = c->tx_head) != NULL) {
		c->tx_head = t->next;
		c->pending -= t->len;
		txb_free(t);
	}
	c->tx_tail = NULL;
	while ((f = c->rx_head) != NULL) {
		c->rx_head = f->next;
		free(f);
	}
	c->rx_tail = NULL;
}

/* ---- receiving (in the thread, from ucp_worker_progress) ------------------ */

static void send_result(struct uconn *c, doca_error_t err, const char *reason)
{
	struct sd_auth_result r;

	memset(&r, 0, sizeof(r));
	r.magic = SD_AUTH_MAGIC;
	r.error = (int32_t)err;
	snprintf(r.reason, sizeof(r.reason), "%s", reason);
	queue_msg(c, LK_RESULT, 0, &r, sizeof(r), NULL, 0);
}

/* Refuse and close once the refusal is out. */
static void refuse_conn(struct uconn *c, doca_error_t err, const char *reason)
{
	send_result(c, err, reason);
	c->want_close = true;
	c->close_deadline = now_ns() + UCX_CLOSE_FLUSH_NS;
	if (!c->server && !c->done) {
		c->done = true;
		c->result = err;
		pthread_cond_broadcast(&g.cv);
	}
}

static bool addr_eq(const struct sd_fabric_addr *a, const struct sd_fabric_addr *b)
{
	return a->card == b->card && strcmp(a->pci, b->pci) == 0 && strcmp(a->name, b->name) == 0;
}

static void server_open(struct uconn *c, const struct sd_fabric_addr *addr)
{
	struct ulink *l;
	char why[200];

	for (l = g.listeners; l != NULL; l = l->lnext)
		if (addr_eq(&l->addr, addr) && lurl_of(addr->card) == c->u)
			break;
	if (l == NULL) {
		snprintf(why, sizeof(why), "no Comch server \"%s\" listens on %s (card %u) on this side", addr->name,
			 addr->pci, (unsigned)addr->card);
		SD_LOG_DBG("UCX link: peer %s (pid %u): %s", c->peer, (unsigned)c->auth.peer_pid, why);
		refuse_conn(c, DOCA_ERROR_NOT_FOUND, why);
		return;
	}
	c->addr = *addr;
	c->phase = PH_OPEN;
	send_result(c, DOCA_SUCCESS, "ok");
	c->queued_on = l;
	c->acc_next = NULL;
	if (l->acc_tail != NULL)
		l->acc_tail->acc_next = c;
	else
		l->acc_head = c;
	l->acc_tail = c;
	SD_LOG_DBG("UCX link: peer %s (pid %u) authenticated, opens \"%s\" on %s", c->peer, (unsigned)c->auth.peer_pid,
		   addr->name, addr->pci);
	link_update(l);
}

static void on_frame(struct uconn *c, const void *data, size_t len)
{
	struct rxf *f;

	if (len < sizeof(struct sd_frame_hdr) || len > SD_FRAME_BUF_SIZE) {
		SD_LOG_ERR("UCX link: peer %s (pid %u) sent a frame of %zu bytes; dropping the link", c->peer,
			   (unsigned)c->auth.peer_pid, len);
		conn_fail(c, DOCA_ERROR_CONNECTION_RESET);
		return;
	}
	if (c->rx_outstanding + len > UCX_WINDOW) {
		SD_LOG_ERR("UCX link: peer %s (pid %u) sent more than its credit allows; dropping the link", c->peer,
			   (unsigned)c->auth.peer_pid);
		conn_fail(c, DOCA_ERROR_CONNECTION_RESET);
		return;
	}
	f = malloc(sizeof(*f) + len);
	if (f == NULL) {
		conn_fail(c, DOCA_ERROR_NO_MEMORY);
		return;
	}
	f->next = NULL;
	f->len = len;
	memcpy(f->data, data, len);
	c->rx_outstanding += len;
	if (c->rx_tail != NULL)
		c->rx_tail->next = f;
	else
		c->rx_head = f;
	c->rx_tail = f;
	link_update(c->link);
}

/* A fast-path message: handed to the link's tap at once when nothing is
 * before it, else held for it; the thread (or the fast path's sync) calls
 * the tap without our lock. */
static void on_fp(struct uconn *c, uint32_t kind, const void *data, size_t len)
{
	struct ulink *l = c->link;
	struct rxf *f;

	if (len > SD_LINK_FP_MAX_BODY || kind < SD_FRAME_FP_FIRST || kind > SD_FRAME_FP_LAST) {
		SD_LOG_ERR("UCX link: peer %s (pid %u) sent a fast-path message of kind 0x%x, %zu bytes; dropping the "
			   "link", c->peer, (unsigned)c->auth.peer_pid, (unsigned)kind, len);
		conn_fail(c, DOCA_ERROR_CONNECTION_RESET);
		return;
	}
	if (l == NULL)
		return; /* not accepted yet, or closed: nobody to hand it to */
	if (l->tap != NULL && l->fp_head == NULL && !__atomic_load_n(&g.stop, __ATOMIC_ACQUIRE) &&
	    pthread_mutex_trylock(&l->tap_mu) == 0) {
		/* Nothing older held and no delivery under way: straight from
		 * UCX's buffer to the tap, without our lock (the tap's rule;
		 * am_recv holds it once), which saves a copy. tap_busy keeps
		 * the link; c is the thread's. */
		sd_link_fp_tap_fn tap = l->tap;
		void *arg = l->tap_arg;

		l->tap_busy++;
		pthread_mutex_unlock(&g.mu);
		tap(arg, (uint16_t)kind, data, (uint32_t)len);
		pthread_mutex_lock(&g.mu);
		l->tap_busy--;
		pthread_cond_broadcast(&g.cv);
		pthread_mutex_unlock(&l->tap_mu);
		return;
	}
	if (l->fp_bytes + len > UCX_FP_MAX_HELD) {
		SD_LOG_ERR("UCX link: peer %s (pid %u) sent more fast-path messages than can be held (%u bytes); "
			   "dropping the link", c->peer, (unsigned)c->auth.peer_pid, UCX_FP_MAX_HELD);
		conn_fail(c, DOCA_ERROR_CONNECTION_RESET);
		return;
	}
	f = malloc(sizeof(*f) + len + sizeof(uint32_t));
	if (f == NULL) {
		conn_fail(c, DOCA_ERROR_NO_MEMORY);
		return;
	}
	f->next = NULL;
	f->len = len;
	memcpy(f->data, &kind, sizeof(kind));
	if (len)
		memcpy(f->data + sizeof(kind), data, len);
	if (l->fp_tail != NULL)
		l->fp_tail->next = f;
	else
		l->fp_head = f;
	l->fp_tail = f;
	l->fp_bytes += len;
	g.fp_pending = true;
}

static void on_message(struct uconn *c, const struct lhdr *h, const void *data, size_t len);

/* An LK_BATCH (hostile input): its records one by one, as if each had come
 * alone, the whole of it accounted for exactly. */
static void on_batch(struct uconn *c, uint32_t count, const uint8_t *p, size_t len)
{
	const char *why = NULL;
	struct brec r;
	struct lhdr h;
	uint32_t i;

	if (count < 2)
		why = "fewer than two records";
	for (i = 0; why == NULL && i < count && !c->failed; i++) {
		if (len < sizeof(r)) {
			why = "a record past its end";
			break;
		}
		memcpy(&r, p, sizeof(r));
		p += sizeof(r);
		len -= sizeof(r);
		if (r.len > len || r.len > UCX_BATCH_REC_MAX || r.reserved != 0 ||
		    (r.kind != LK_FRAME && r.kind != LK_FP && r.kind != LK_CREDIT)) {
			why = "a record of a kind or size never batched, or past its end";
			break;
		}
		h.kind = r.kind;
		h.arg = r.arg;
		on_message(c, &h, p, r.len);
		p += r.len;
		len -= r.len;
	}
	if (why == NULL && !c->failed && len != 0)
		why = "bytes after its last record";
	if (why == NULL)
		return;
	SD_LOG_ERR("UCX link: peer %s (pid %u) sent a malformed batch (%s); dropping the link", c->peer,
		   (unsigned)c->auth.peer_pid, why);
	conn_fail(c, DOCA_ERROR_CONNECTION_RESET);
}

static void on_result(struct uconn *c, const void *data, size_t len)
{
	struct sd_auth_result r;

	if (len != sizeof(r)) {
		conn_fail(c, DOCA_ERROR_CONNECTION_RESET);
		return;
	}
	memcpy(&r, data, sizeof(r));
	r.reason[sizeof(r.reason) - 1] = '\0';
	if (c->server) {
		/* The client refused our proof: it has another secret. */
		SD_LOG_ERR("UCX link: authentication failed: the client at %s (pid %u) refused this side: %s", c->peer,
			   (unsigned)c->auth.peer_pid, r.reason);
		conn_fail(c, DOCA_ERROR_NOT_PERMITTED);
		return;
	}
	if (r.magic == SD_AUTH_MAGIC && r.error == DOCA_SUCCESS && c->phase == PH_WAIT_RESULT) {
		c->phase = PH_OPEN;
		c->done = true;
		c->result = DOCA_SUCCESS;
		pthread_cond_broadcast(&g.cv);
		return;
	}
	if (r.error == DOCA_ERROR_NOT_PERMITTED)
		SD_LOG_ERR("UCX link: authentication failed: %s (pid %u) refused this side: %s", c->peer,
			   (unsigned)c->auth.peer_pid, r.reason);
	else
		SD_LOG_DBG("UCX link: %s refused the connection: %s", c->peer, r.reason);
	conn_fail(c, r.error == DOCA_ERROR_NOT_PERMITTED ? DOCA_ERROR_NOT_PERMITTED
			 : r.error == DOCA_SUCCESS	      ? DOCA_ERROR_CONNECTION_RESET
							      : DOCA_ERROR_NOT_FOUND);
}

/* The card a Comch HELLO is answered for: the one it asks for when a
 * server of this process listens for it at the address it came to, else
 * one that does (the handshake then refuses it, naming that card). */
static uint32_t comch_hello_card(const struct uconn *c, const void *hello, size_t len)
{
	struct sd_auth_hello h;
	const struct ulink *l;
	uint32_t other = UINT32_MAX;

	if (hello == NULL || len != sizeof(h))
		return 0; /* malformed: the handshake says so */
	memcpy(&h, hello, sizeof(h));
	for (l = g.listeners; l != NULL; l = l->lnext) {
		if (lurl_of(l->addr.card) != c->u)
			continue;
		if (l->addr.card == h.card)
			return h.card;
		other = l->addr.card;
	}
	return other != UINT32_MAX ? other : h.card + 1;
}

static void on_message(struct uconn *c, const struct lhdr *h, const void *data, size_t len)
{
	union {
		struct sd_auth_challenge ch;
		struct sd_auth_proof pr;
	} out;
	struct sd_fabric_addr addr;
	char why[200];
	doca_error_t err;

	switch (h->kind) {
	case LK_HELLO:
		if (!c->server || c->phase != PH_WAIT_HELLO)
			break;
		err = sd_auth_server_challenge(&c->auth, g.secret, g.secret_len,
					       c->role == ROLE_RM_SERVER ? sd_ucx_rm_hello_card(data, len)
									 : comch_hello_card(c, data, len),
					       data, len, &out.ch, why, sizeof(why));
		if (err != DOCA_SUCCESS) {
			SD_LOG_ERR("UCX link: connection from %s (pid %u) refused: %s", c->peer,
				   (unsigned)c->auth.peer_pid, why);
			refuse_conn(c, err, why);
			return;
		}
		queue_msg(c, LK_CHALLENGE, 0, &out.ch, sizeof(out.ch), NULL, 0);
		c->phase = PH_WAIT_PROOF;
		return;
	case LK_CHALLENGE:
		if (c->server || c->phase != PH_CONNECTING)
			break;
		err = sd_auth_client_proof(&c->auth, data, len, &c->addr, &out.pr, why, sizeof(why));
		if (err != DOCA_SUCCESS) {
			SD_LOG_ERR("UCX link: authentication failed: %s (pid %u): %s", c->peer,
				   (unsigned)c->auth.peer_pid, why);
			refuse_conn(c, err == DOCA_ERROR_NOT_PERMITTED ? err : DOCA_ERROR_NOT_PERMITTED, why);
			return;
		}
		queue_msg(c, LK_PROOF, 0, &out.pr, sizeof(out.pr), NULL, 0);
		c->phase = PH_WAIT_RESULT;
		return;
	case LK_PROOF:
		if (!c->server || c->phase != PH_WAIT_PROOF)
			break;
		err = sd_auth_server_verify(&c->auth, data, len, &addr, why, sizeof(why));
		if (err != DOCA_SUCCESS) {
			SD_LOG_ERR("UCX link: authentication failed: connection from %s (pid %u) refused: %s", c->peer,
				   (unsigned)c->auth.peer_pid, why);
			refuse_conn(c, DOCA_ERROR_NOT_PERMITTED, why);
			return;
		}
		if (c->role == ROLE_RM_SERVER) {
			/* what it may reach is decided per export, at RM_OPEN */
			c->addr = addr;
			c->phase = PH_OPEN;
			send_result(c, DOCA_SUCCESS, "ok");
			SD_LOG_DBG("UCX link: peer %s (pid %u) authenticated for remote memory", c->peer,
				   (unsigned)c->auth.peer_pid);
			return;
		}
		server_open(c, &addr);
		return;
	case LK_RESULT:
		if (c->phase == PH_OPEN && !c->server)
			break;
		on_result(c, data, len);
		return;
	case LK_RM_OPEN:
	case LK_RM_GRANT:
	case LK_RM_READ:
	case LK_RM_WRITE:
	case LK_RM_DONE:
	case LK_RM_ATOMIC:
	case LK_RM_DETACH:
		if (c->phase != PH_OPEN || c->role == ROLE_COMCH)
			break;
		sd_ucx_rm_message(c, c->server, h->kind, h->arg, data, len);
		return;
	case LK_FRAME:
		if (c->phase != PH_OPEN || c->role != ROLE_COMCH)
			break;
		on_frame(c, data, len);
		return;
	case LK_FP:
		if (c->phase != PH_OPEN || c->role != ROLE_COMCH)
			break;
		on_fp(c, h->arg, data, len);
		return;
	case LK_BATCH:
		if (c->phase != PH_OPEN || c->role != ROLE_COMCH)
			break;
		on_batch(c, h->arg, data, len);
		return;
	case LK_CREDIT:
		if (c->phase != PH_OPEN || len != 0 || c->role != ROLE_COMCH)
			break;
		c->tx_credit += h->arg;
		if (c->tx_credit > UCX_WINDOW)
			c->tx_credit = UCX_WINDOW;
		return;
	case LK_PING:
		if (len != 0)
			break;
		return;
	case LK_CLOSE:
		SD_LOG_DBG("UCX link to %s (pid %u): closed by the peer", c->peer, (unsigned)c->auth.peer_pid);
		conn_fail(c, DOCA_ERROR_CONNECTION_RESET);
		return;
	default:
		break;
	}
	SD_LOG_ERR("UCX link: peer %s (pid %u) sent an unexpected message (kind %u, %zu bytes); dropping the link",
		   c->peer, (unsigned)c->auth.peer_pid, (unsigned)h->kind, len);
	conn_fail(c, DOCA_ERROR_CONNECTION_RESET);
}

static ucs_status_t am_recv(void *arg, const void *header, size_t header_length, void *data, size_t length,
			    const ucp_am_recv_param_t *param)
{
	struct lhdr h;
	struct uconn *c;

	(void)arg;
	pthread_mutex_lock(&g.mu);
	for (c = g.conns; c != NULL; c = c->next)
		if (c->ep != NULL && c->ep == param->reply_ep)
			break;
	if (c == NULL || c->failed || c->closing || (c->want_close && c->link == NULL)) {
		pthread_mutex_unlock(&g.mu);
		return UCS_OK; /* a message for an endpoint we dropped or refused */
	}
	c->last_rx_ns = now_ns();
	if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) || header_length != sizeof(h)) {
		SD_LOG_ERR("UCX link: peer %s sent a message we never send (rendezvous or header of %zu bytes); "
			   "dropping the link", c->peer, header_length);
		conn_fail(c, DOCA_ERROR_CONNECTION_RESET);
	} else {
		memcpy(&h, header, sizeof(h));
		on_message(c, &h, data, length);
	}
	pthread_mutex_unlock(&g.mu);
	return UCS_OK;
}

static void ep_error(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	struct uconn *c = arg;

	(void)ep;
	pthread_mutex_lock(&g.mu);
	if (!c->failed) {
		if (c->phase == PH_OPEN && !c->want_close)
			SD_LOG_INFO("UCX link to %s (pid %u) lost: %s", c->peer, (unsigned)c->auth.peer_pid,
				    ucs_status_string(status));
		else
			SD_LOG_DBG("UCX link to %s: %s", c->peer, ucs_status_string(status));
	}
	conn_fail(c, lost_err(c));
	pthread_mutex_unlock(&g.mu);
}

static void sockaddr_text(const struct sockaddr_storage *ss, char *out, size_t cap)
{
	char ip[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		port = ntohs(in->sin_port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
		port = ntohs(in6->sin6_port);
	}
	snprintf(out, cap, ss->ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u", ip, port);
}

static struct uconn *uconn_new(bool server)
{
	struct uconn *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->server = server;
	c->tx_credit = UCX_WINDOW;
	c->born_ns = c->last_rx_ns = c->last_tx_ns = now_ns();
	return c;
}

/* arg: the struct lslot it came to. */
static void on_conn_request(ucp_conn_request_h req, void *arg)
{
	struct lslot *s = arg;
	ucp_conn_request_attr_t attr;
	ucp_ep_params_t ep;
	struct uconn *c, *x;
	ucs_status_t st;
	unsigned int unopened = 0;

	pthread_mutex_lock(&g.mu);
	for (x = g.conns; x != NULL; x = x->next)
		if (x->server && x->phase != PH_OPEN && !x->closed)
			unopened++;
	c = unopened < UCX_MAX_UNOPENED ? uconn_new(true) : NULL;
	if (c == NULL) {
		SD_LOG_WARN("UCX link: %u connections are still authenticating: refusing another", unopened);
		ucp_listener_reject(s->h, req);
		pthread_mutex_unlock(&g.mu);
		return;
	}
	c->role = s->rm ? ROLE_RM_SERVER : ROLE_COMCH;
	c->u = s->u;
	snprintf(c->peer, sizeof(c->peer), "?");
	attr.field_mask = UCP_CONN_REQUEST_ATTR_FIELD_CLIENT_ADDR;
	if (ucp_conn_request_query(req, &attr) == UCS_OK)
		sockaddr_text(&attr.client_address, c->peer, sizeof(c->peer));
	c->phase = PH_WAIT_HELLO;
	memset(&ep, 0, sizeof(ep));
	ep.field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
			UCP_EP_PARAM_FIELD_ERR_HANDLER;
	ep.conn_request = req;
	ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
	ep.err_handler.cb = ep_error;
	ep.err_handler.arg = c;
	st = ucp_ep_create(c->u->worker, &ep, &c->ep);
	if (st != UCS_OK) {
		SD_LOG_WARN("UCX link: cannot accept the connection from %s: %s", c->peer, ucs_status_string(st));
		free(c);
		pthread_mutex_unlock(&g.mu);
		return;
	}
	SD_LOG_DBG("UCX link: connection from %s, authenticating", c->peer);
	c->next = g.conns;
	g.conns = c;
	pthread_mutex_unlock(&g.mu);
}

/* ---- the thread ------------------------------------------------------------ */

/* A listener for s (Comch: at its link's address; remote memory: at the
 * address the caller chose, the port the kernel's). */
static void make_listener(struct lslot *s)
{
	ucp_listener_params_t lp;
	ucp_listener_attr_t la;
	ucs_status_t st;
	char text[SD_LINK_HOST_MAX + 32];

	s->err = DOCA_SUCCESS;
	if (s->h != NULL)
		goto out;
	memset(&lp, 0, sizeof(lp));
	lp.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER;
	lp.sockaddr.addr = (const struct sockaddr *)&s->sa;
	lp.sockaddr.addrlen = s->salen;
	lp.conn_handler.cb = on_conn_request;
	lp.conn_handler.arg = s;
	st = ucp_listener_create(s->u->worker, &lp, &s->h);
	if (st == UCS_OK && s->rm) {
		la.field_mask = UCP_LISTENER_ATTR_FIELD_SOCKADDR;
		st = ucp_listener_query(s->h, &la);
		if (st == UCS_OK && la.sockaddr.ss_family == s->sa.ss_family) {
			memcpy(&s->sa, &la.sockaddr, s->salen);
		} else {
			ucp_listener_destroy(s->h);
			st = st == UCS_OK ? UCS_ERR_INVALID_ADDR : st;
		}
	}
	if (st != UCS_OK)
		s->h = NULL;
	sockaddr_text(&s->sa, text, sizeof(text));
	if (st == UCS_OK) {
		SD_LOG_INFO(s->rm ? "UCX link: serving exported memory on %s" : "UCX link: listening on %s",
			    s->rm ? text : s->u->url.text);
	} else if (s->rm) {
		SD_LOG_ERR("UCX link: cannot listen for remote memory on %s: %s", text, ucs_status_string(st));
		s->err = DOCA_ERROR_IO_FAILED;
	} else if (st == UCS_ERR_BUSY) {
		SD_LOG_ERR("UCX link: cannot listen on %s: the endpoint is already in use (another process listens "
			   "there)", s->u->url.text);
		s->err = DOCA_ERROR_ALREADY_EXIST;
	} else {
		SD_LOG_ERR("UCX link: cannot listen on %s: %s (is the address one of this machine's?)", s->u->url.text,
			   ucs_status_string(st));
		s->err = st == UCS_ERR_INVALID_ADDR ? DOCA_ERROR_INVALID_VALUE : DOCA_ERROR_IO_FAILED;
	}
out:
	s->req = false;
	s->done = true;
	pthread_cond_broadcast(&g.cv);
}

static void start_client(struct uconn *c)
{
	struct sd_auth_hello h;
	ucp_ep_params_t ep;
	ucs_status_t st;

	c->started = true;
	if (sd_auth_client_hello(&c->auth, g.secret, g.secret_len, c->addr.card, &h) != DOCA_SUCCESS) {
		conn_fail(c, DOCA_ERROR_OPERATING_SYSTEM);
		return;
	}
	memset(&ep, 0, sizeof(ep));
	ep.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
			UCP_EP_PARAM_FIELD_ERR_HANDLER;
	ep.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
	ep.sockaddr.addr = (const struct sockaddr *)&c->sa;
	ep.sockaddr.addrlen = c->salen;
	ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
	ep.err_handler.cb = ep_error;
	ep.err_handler.arg = c;
	st = ucp_ep_create(c->u->worker, &ep, &c->ep);
	if (st != UCS_OK) {
		c->ep = NULL;
		SD_LOG_DBG("UCX link: cannot connect to %s: %s", c->peer, ucs_status_string(st));
		conn_fail(c, DOCA_ERROR_NOT_FOUND);
		return;
	}
	c->phase = PH_CONNECTING;
	queue_msg(c, LK_HELLO, 0, &h, sizeof(h), NULL, 0);
}

static void close_ep(struct uconn *c)
{
	ucp_request_param_t cp;

	c->closing = true;
	if (c->ep == NULL) {
		c->closed = true;
		pthread_cond_broadcast(&g.cv);
		return;
	}
	/* A live endpoint is flushed before it disconnects: a forced close
	 * resets the TCP connection, and the peer's kernel then drops what it
	 * had received but not yet handed to UCX (a BYE, a refusal). A peer
	 * that stops answering meanwhile ends the flush through the error
	 * handler. A failed endpoint can only be forced. */
	memset(&cp, 0, sizeof(cp));
	cp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
	cp.flags = c->failed ? UCP_EP_CLOSE_FLAG_FORCE : 0;
	c->close_req = ucp_ep_close_nbx(c->ep, &cp);
	if (c->close_req == NULL || UCS_PTR_IS_ERR(c->close_req)) {
		c->close_req = NULL;
		c->ep = NULL;
		c->closed = true;
		pthread_cond_broadcast(&g.cv);
	}
}

static void service_conn(struct uconn *c, uint64_t now)
{
	if (c->closing) {
		if (c->close_req != NULL && ucp_request_check_status(c->close_req) != UCS_INPROGRESS) {
			ucp_request_free(c->close_req);
			c->close_req = NULL;
			c->ep = NULL;
			c->closed = true;
			pthread_cond_broadcast(&g.cv);
		}
		return;
	}
	if (!c->failed) {
		post_queued(c, now);
		if (c->want_close) {
			/* only flushing what is queued */
		} else if (c->phase == PH_OPEN) {
			if (now - c->last_rx_ns > g.timeout_ns) {
				SD_LOG_INFO("UCX link to %s (pid %u): nothing heard for %llu ms: peer unreachable "
					    "(network down or peer stopped)", c->peer, (unsigned)c->auth.peer_pid,
					    (unsigned long long)(g.timeout_ns / 1000000));
				conn_fail(c, DOCA_ERROR_CONNECTION_RESET);
			} else if (now - c->last_tx_ns > g.ping_ns && c->tx_head == NULL) {
				queue_msg(c, LK_PING, 0, NULL, 0, NULL, 0);
				post_queued(c, now);
			}
		} else if (now - c->born_ns > g.timeout_ns) {
			SD_LOG_DBG("UCX link %s: handshake not complete after %llu ms", c->peer,
				   (unsigned long long)(g.timeout_ns / 1000000));
			conn_fail(c, c->server ? DOCA_ERROR_TIME_OUT : DOCA_ERROR_NOT_FOUND);
		}
	}
	/* Failed: the endpoint is of no more use. Closing: once what was
	 * queued (BYE, a refusal) is out, or after a bounded wait. */
	if (c->failed || (c->want_close && ((c->tx_head == NULL && c->inflight == 0) || now >= c->close_deadline)))
		close_ep(c);
}

static void service(void)
{
	struct uconn **pp, *c;
	uint64_t now = now_ns();

	for (unsigned int i = 0; i < g.nurls; i++) {
		if (g.urls[i].comch.req)
			make_listener(&g.urls[i].comch);
		if (g.urls[i].rm.req)
			make_listener(&g.urls[i].rm);
	}
	while ((c = g.newc) != NULL) {
		g.newc = c->next;
		c->next = g.conns;
		g.conns = c;
		start_client(c);
	}
	for (c = g.conns; c != NULL; c = c->next)
		service_conn(c, now);
	for (pp = &g.conns; (c = *pp) != NULL;) {
		if (c->closed && c->link == NULL && c->queued_on == NULL && c->inflight == 0 && c->held == 0 &&
		    (c->server || c->rm == NULL)) {
			*pp = c->next;
			free_queues(c);
			if (c->server)
				free(c->rm);
			free(c);
			continue;
		}
		pp = &c->next;
	}
}

/* ---- the fast path's taps (sd_link_fp_ops) -------------------------------- */

/* Deliver what l holds, in order, without g.mu (the tap takes its own
 * locks, and a thread holding them may be waiting for g.mu). Called with
 * g.mu held once (not recursively) and l->tap_busy taken; returns with
 * g.mu held. */
static void fp_deliver(struct ulink *l)
{
	sd_link_fp_tap_fn tap;
	struct rxf *f;
	uint32_t kind;
	void *arg;

	pthread_mutex_unlock(&g.mu);
	pthread_mutex_lock(&l->tap_mu);
	for (;;) {
		pthread_mutex_lock(&g.mu);
		f = l->tap != NULL ? l->fp_head : NULL;
		if (f != NULL) {
			l->fp_head = f->next;
			if (l->fp_head == NULL)
				l->fp_tail = NULL;
			l->fp_bytes -= f->len;
		}
		tap = l->tap;
		arg = l->tap_arg;
		pthread_mutex_unlock(&g.mu);
		if (f == NULL)
			break;
		memcpy(&kind, f->data, sizeof(kind));
		tap(arg, (uint16_t)kind, f->data + sizeof(kind), (uint32_t)f->len);
		free(f);
	}
	pthread_mutex_unlock(&l->tap_mu);
	pthread_mutex_lock(&g.mu);
}

static void fp_drain_all(void)
{
	struct uconn *c;
	struct ulink *l;
	bool again = true;

	pthread_mutex_lock(&g.mu);
	while (g.fp_pending && again) {
		g.fp_pending = false;
		again = false;
		for (c = g.conns; c != NULL; c = c->next) {
			l = c->link;
			if (l == NULL || l->fp_head == NULL)
				continue;
			if (l->tap == NULL) {
				g.fp_pending = true; /* held until attach */
				continue;
			}
			l->tap_busy++;
			fp_deliver(l);
			l->tap_busy--;
			pthread_cond_broadcast(&g.cv);
			/* The list may have changed while unlocked. */
			again = true;
			g.fp_pending = true;
			break;
		}
	}
	pthread_mutex_unlock(&g.mu);
}

static void fp_free_held(struct ulink *l)
{
	struct rxf *f;

	while ((f = l->fp_head) != NULL) {
		l->fp_head = f->next;
		free(f);
	}
	l->fp_tail = NULL;
	l->fp_bytes = 0;
}

static doca_error_t fp_attach(struct sd_link *link, sd_link_fp_tap_fn tap, void *arg)
{
	struct ulink *l = (struct ulink *)link;

	if (link == NULL || link->ops != &ucx_ops || l->listener || tap == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&g.mu);
	if (link->fd < 0) {
		pthread_mutex_unlock(&g.mu);
		return DOCA_ERROR_NOT_CONNECTED;
	}
	l->tap = tap;
	l->tap_arg = arg;
	if (l->fp_head != NULL) {
		g.fp_pending = true;
		wake_thread();
	}
	pthread_mutex_unlock(&g.mu);
	return DOCA_SUCCESS;
}

static doca_error_t fp_send(struct sd_link *link, uint16_t kind, const void *head, uint32_t hlen, const void *body,
			   uint32_t len)
{
	struct ulink *l = (struct ulink *)link;
	doca_error_t err = DOCA_SUCCESS;
	struct uconn *c;

	if (link == NULL || link->ops != &ucx_ops || l->listener || (len > 0 && body == NULL) ||
	    (hlen > 0 && head == NULL) || hlen > SD_LINK_FP_MAX_BODY || len > SD_LINK_FP_MAX_BODY - hlen ||
	    kind < SD_FRAME_FP_FIRST || kind > SD_FRAME_FP_LAST)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&g.mu);
	c = l->c;
	if (link->fd < 0 || c == NULL || c->failed)
		err = DOCA_ERROR_NOT_CONNECTED;
	else if (c->pending > UCX_FP_MAX_PENDING)
		err = DOCA_ERROR_AGAIN;
	else if (!queue_msg(c, LK_FP, kind, head, hlen, body, len))
		err = DOCA_ERROR_NO_MEMORY;
	else
		wake_thread();
	pthread_mutex_unlock(&g.mu);
	return err;
}

static void fp_sync(struct sd_link *link)
{
	struct ulink *l = (struct ulink *)link;

	if (link == NULL || link->ops != &ucx_ops || l->listener)
		return;
	pthread_mutex_lock(&g.mu);
	if (l->tap != NULL) {
		l->tap_busy++;
		fp_deliver(l);
		l->tap_busy--;
		pthread_cond_broadcast(&g.cv);
	}
	pthread_mutex_unlock(&g.mu);
}

static const struct sd_link_fp_ops fp_ops = {
	.attach = fp_attach,
	.send = fp_send,
	.sync = fp_sync,
};

static void *progress_main(void *arg)
{
	struct pollfd *pfd = g.pfd;
	sigset_t all;
	uint64_t v;
	int tick_ms;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	tick_ms = (int)(g.ping_ns / 2000000ull);
	if (tick_ms < 50)
		tick_ms = 50;
	while (!__atomic_load_n(&g.stop, __ATOMIC_ACQUIRE)) {
		unsigned int n;

		do {
			pthread_mutex_lock(&g.mu);
			service();
			pthread_mutex_unlock(&g.mu);
			n = 0;
			for (unsigned int i = 0; i < g.nurls; i++)
				n += ucp_worker_progress(g.urls[i].worker);
			fp_drain_all();
		} while (n != 0);
		/* Said before the last look at the work: whoever adds some
		 * after it sees the flag and wakes us; whoever added some
		 * before it is seen by this look. */
		__atomic_store_n(&g.asleep, 1, __ATOMIC_SEQ_CST);
		pthread_mutex_lock(&g.mu);
		service();
		pthread_mutex_unlock(&g.mu);
		fp_drain_all();
		n = __atomic_load_n(&g.stop, __ATOMIC_ACQUIRE);
		for (unsigned int i = 0; i < g.nurls && n == 0; i++)
			n = ucp_worker_arm(g.urls[i].worker) == UCS_ERR_BUSY;
		if (n != 0) {
			__atomic_store_n(&g.asleep, 0, __ATOMIC_SEQ_CST);
			continue;
		}
		if (poll(pfd, g.nurls + 1, tick_ms) > 0 && (pfd[g.nurls].revents & POLLIN))
			(void)!read(g.wake, &v, sizeof(v));
		__atomic_store_n(&g.asleep, 0, __ATOMIC_SEQ_CST);
	}
	OPENSSL_thread_stop(); /* the handshakes' per-thread state */
	return NULL;
}

/* ---- setup ---------------------------------------------------------------------- */

/* UCX's memory hooks (malloc/mmap interposition) fight with sanitizers and
 * are not needed for AM over TCP: off, unless the user chose otherwise. */
/* The local address a packet to u's address leaves from (that address
 * itself on the side that listens there): the one the peer can reach us at
 * (connect() on a UDP socket sends nothing). 0, or an errno. */
static int route_source(const struct sd_link_url *u, struct sockaddr_storage *out, socklen_t *outlen)
{
	socklen_t len = sizeof(*out);
	int fd, e;

	fd = socket(u->sa.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	if (connect(fd, (const struct sockaddr *)&u->sa, u->salen) != 0 ||
	    getsockname(fd, (struct sockaddr *)out, &len) != 0) {
		e = errno;
		close(fd);
		return e;
	}
	close(fd);
	if (out->ss_family == AF_INET)
		((struct sockaddr_in *)out)->sin_port = 0;
	else if (out->ss_family == AF_INET6)
		((struct sockaddr_in6 *)out)->sin6_port = 0;
	else
		return EAFNOSUPPORT;
	*outlen = len;
	return 0;
}

static bool same_ip(const struct sockaddr *a, const struct sockaddr_storage *b)
{
	if (a->sa_family != b->ss_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr == ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return a->sa_family == AF_INET6 && memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
						  &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr)) == 0;
}

/*
 * UCX uses every network interface it finds, and a connection whose lanes
 * leave from an interface the peer cannot answer (a machine on several
 * networks) times out. Unless the user chose (UCX_NET_DEVICES), a link's
 * context gets the interface facing its peer (the one holding the link's
 * address, or the route to it) and every RDMA port, which needs no route.
 * Loopback is left to UCX's default.
 */
static void pick_net_devices(ucp_config_t *cfg, const struct sd_link_url *u)
{
	char list[1024], ifn[IF_NAMESIZE + 1] = "";
	struct sockaddr_storage src;
	struct ifaddrs *all, *i;
	socklen_t len;
	struct dirent *d, *p;
	DIR *ib, *ports;
	size_t n;

	if (getenv("UCX_NET_DEVICES") != NULL)
		return;
	/* UCX's default unless one is found (the context before chose its own) */
	(void)ucp_config_modify(cfg, "NET_DEVICES", "all");
	if (route_source(u, &src, &len) != 0 || getifaddrs(&all) != 0)
		return;
	for (i = all; i != NULL; i = i->ifa_next)
		if (i->ifa_addr != NULL && same_ip(i->ifa_addr, &src) && !(i->ifa_flags & IFF_LOOPBACK)) {
			snprintf(ifn, sizeof(ifn), "%s", i->ifa_name);
			break;
		}
	freeifaddrs(all);
	if (ifn[0] == '\0')
		return;
	n = (size_t)snprintf(list, sizeof(list), "%s", ifn);
	ib = opendir("/sys/class/infiniband");
	while (ib != NULL && (d = readdir(ib)) != NULL) {
		char path[300];

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports", d->d_name);
		ports = opendir(path);
		while (ports != NULL && (p = readdir(ports)) != NULL)
			if (p->d_name[0] != '.' && n < sizeof(list))
				n += (size_t)snprintf(list + n, sizeof(list) - n, ",%s:%s", d->d_name, p->d_name);
		if (ports != NULL)
			closedir(ports);
	}
	if (ib != NULL)
		closedir(ib);
	if (n >= sizeof(list))
		return; /* too many to name: UCX's default */
	if (ucp_config_modify(cfg, "NET_DEVICES", list) == UCS_OK)
		SD_LOG_DBG("UCX link: network devices %s toward %s (UCX_NET_DEVICES chooses others)", list, u->text);
}

static void tune_config(ucp_config_t *cfg)
{
	static const char *const kv[][2] = {
		{"MEM_MALLOC_HOOKS", "no"}, {"MEM_MMAP_HOOK_MODE", "none"}, {"MEM_EVENTS", "no"},
		{"MEMTYPE_CACHE", "n"},	   {"WARN_UNUSED_ENV_VARS", "n"},
		/* ours say what failed and what to do; UCX's own lines would
		 * land on the program's stdout (UCX_LOG_LEVEL=warn shows them) */
		{"LOG_LEVEL", "fatal"},
		/* a remote-memory chunk (remote_ucx.c: 256 KiB + headers)
		 * sent as one TCP segment of UCX's, not 33 of 8 KiB to be
		 * reassembled: on a veth (bench/ucx/run_ucx.sh) the importer
		 * spends 25-35% less CPU per byte, remote DMA 15-50% faster */
		{"TCP_TX_SEG_SIZE", "288K"}, {"TCP_RX_SEG_SIZE", "288K"},
	};
	char env[64];
	size_t i;

	for (i = 0; i < sizeof(kv) / sizeof(kv[0]); i++) {
		snprintf(env, sizeof(env), "UCX_%s", kv[i][0]);
		if (getenv(env) != NULL)
			continue;
		if (ucp_config_modify(cfg, kv[i][0], kv[i][1]) != UCS_OK)
			SD_LOG_DBG("UCX link: cannot set %s=%s", env, kv[i][1]);
		/* libucm read its options when it was loaded (with us, from the
		 * environment as it was then): the hooks are installed later, at
		 * the first event handler, so clearing them here still counts.
		 * The hook mode itself stays: "none" under installed events
		 * makes ucm_mmap call itself. */
		if (i == 0)
			ucm_global_opts.enable_malloc_hooks = 0;
		else if (i == 2)
			ucm_global_opts.enable_events = 0;
	}
}

static void ucx_fini(void);

/* u's context and worker, its network interface chosen (cfg is changed). */
static doca_error_t start_worker(struct lurl *u, ucp_config_t *cfg)
{
	ucp_worker_params_t wp;
	ucp_am_handler_param_t hp;
	ucp_params_t params;
	ucs_status_t st;

	pick_net_devices(cfg, &u->url);
	memset(&params, 0, sizeof(params));
	params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_NAME;
	params.features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
	params.name = "softdoca";
	st = ucp_init(&params, cfg, &u->ctx);
	if (st != UCS_OK) {
		SD_LOG_ERR("UCX link: ucp_init failed: %s (check UCX_TLS and the other UCX_* variables)",
			   ucs_status_string(st));
		return DOCA_ERROR_DRIVER;
	}
	memset(&wp, 0, sizeof(wp));
	wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
	wp.thread_mode = UCS_THREAD_MODE_SINGLE;
	st = ucp_worker_create(u->ctx, &wp, &u->worker);
	if (st != UCS_OK) {
		SD_LOG_ERR("UCX link: cannot create a UCX worker: %s", ucs_status_string(st));
		return DOCA_ERROR_DRIVER;
	}
	st = ucp_worker_get_efd(u->worker, &u->efd);
	if (st != UCS_OK) {
		SD_LOG_ERR("UCX link: the UCX transports in use cannot wake a sleeping thread: %s (UCX_TLS?)",
			   ucs_status_string(st));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	memset(&hp, 0, sizeof(hp));
	hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG |
			UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
	hp.id = UCX_AM_ID;
	hp.cb = am_recv;
	hp.arg = NULL;
	hp.flags = UCP_AM_FLAG_WHOLE_MSG;
	st = ucp_worker_set_am_recv_handler(u->worker, &hp);
	if (st != UCS_OK) {
		SD_LOG_ERR("UCX link: cannot register the message handler: %s", ucs_status_string(st));
		return DOCA_ERROR_DRIVER;
	}
	return DOCA_SUCCESS;
}

static doca_error_t setup(void)
{
	ucp_config_t *cfg;
	pthread_mutexattr_t ma;
	ucs_status_t st;
	uint64_t ms;

	if (sd_env_u64("SOFTDOCA_LINK_TIMEOUT_MS", UCX_TIMEOUT_DEF_MS, 500, 600000, &ms) != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE;
	g.timeout_ns = ms * 1000000ull;
	g.ping_ns = g.timeout_ns / 5;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&g.mu, &ma);
	pthread_mutexattr_destroy(&ma);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&g.cv, &ca);
		pthread_condattr_destroy(&ca);
	}
	st = ucp_config_read(NULL, NULL, &cfg);
	if (st != UCS_OK) {
		SD_LOG_ERR("UCX link: cannot read the UCX configuration (UCX_* variables): %s", ucs_status_string(st));
		return DOCA_ERROR_INVALID_VALUE;
	}
	tune_config(cfg);
	/* A restarted server must not wait out the TIME_WAIT of its killed
	 * predecessor's connections; a live listener still owns the port
	 * (Linux refuses a second bind while one listens). UCX reads its
	 * connection manager's options from the environment only (the
	 * ucp_config_modify cache does not reach them): set once, before
	 * ucp_init, unless the user chose. */
	if (getenv("UCX_TCP_CM_REUSEADDR") == NULL)
		setenv("UCX_TCP_CM_REUSEADDR", "y", 0);
	g.pfd = calloc(g.nurls + 1u, sizeof(*g.pfd));
	if (g.pfd == NULL) {
		ucp_config_release(cfg);
		return DOCA_ERROR_NO_MEMORY;
	}
	for (unsigned int i = 0; i < g.nurls; i++) {
		doca_error_t err = start_worker(&g.urls[i], cfg);

		if (err != DOCA_SUCCESS) {
			ucp_config_release(cfg);
			return err;
		}
		g.pfd[i].fd = g.urls[i].efd;
		g.pfd[i].events = POLLIN;
	}
	ucp_config_release(cfg);
	g.wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (g.wake < 0)
		return DOCA_ERROR_OPERATING_SYSTEM;
	g.pfd[g.nurls].fd = g.wake;
	g.pfd[g.nurls].events = POLLIN;
	if (OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL) != 1) {
		SD_LOG_ERR("UCX link: OpenSSL cannot start");
		return DOCA_ERROR_DRIVER;
	}
	if (pthread_create(&g.thr, NULL, progress_main, NULL) != 0)
		return DOCA_ERROR_OPERATING_SYSTEM;
	(void)atexit(ucx_fini);
	SD_LOG_DBG("UCX link: worker ready, liveness timeout %llu ms", (unsigned long long)ms);
	return DOCA_SUCCESS;
}

/* At exit: stop the thread and give back what UCX holds, so that nothing
 * outlives the process unseen (a leak checker would report UCX's endpoints
 * and worker). Links the program still holds answer NOT_CONNECTED from then
 * on. Registered with atexit after OpenSSL's own exit handler, so that it
 * runs first: the thread's OpenSSL state goes with the thread while OpenSSL
 * can still free it. */
static void ucx_fini(void)
{
	ucp_request_param_t cp;
	ucs_status_ptr_t r;
	struct uconn *c;
	int i;

	if (g.nurls == 0 || g.urls[g.nurls - 1].worker == NULL || g.wake < 0)
		return;
	pthread_mutex_lock(&g.mu);
	__atomic_store_n(&g.stop, true, __ATOMIC_RELEASE);
	wake_thread();
	pthread_mutex_unlock(&g.mu);
	pthread_join(g.thr, NULL);
	pthread_mutex_lock(&g.mu);
	g.gone = true;
	while ((c = g.newc) != NULL) {
		g.newc = c->next;
		c->next = g.conns;
		g.conns = c;
	}
	for (c = g.conns; c != NULL; c = c->next) {
		if (c->ep == NULL)
			continue;
		if (c->close_req == NULL) {
			memset(&cp, 0, sizeof(cp));
			cp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
			cp.flags = UCP_EP_CLOSE_FLAG_FORCE;
			r = ucp_ep_close_nbx(c->ep, &cp);
			c->close_req = UCS_PTR_IS_PTR(r) ? r : NULL;
		}
		for (i = 0; c->close_req != NULL && i < 100000; i++) {
			ucp_worker_progress(c->u->worker);
			if (ucp_request_check_status(c->close_req) != UCS_INPROGRESS) {
				ucp_request_free(c->close_req);
				c->close_req = NULL;
			}
		}
		c->ep = NULL;
	}
	for (unsigned int k = 0; k < g.nurls; k++)
		for (i = 0; i < 1000 && ucp_worker_progress(g.urls[k].worker) != 0; i++)
			;
	{
		struct uconn **pp = &g.conns;

		/* What a link of the program (or a caller inside connect or
		 * close) still names stays, failed and closed. */
		while ((c = *pp) != NULL) {
			if (!c->failed && c->role != ROLE_COMCH)
				sd_ucx_rm_failed(c, c->server, DOCA_ERROR_CONNECTION_RESET);
			c->failed = true;
			c->fail_err = DOCA_ERROR_CONNECTION_RESET;
			c->closed = true;
			c->done = true;
			free_queues(c);
			if (c->link == NULL && c->held == 0 && c->inflight == 0 && c->queued_on == NULL &&
			    (c->server || c->rm == NULL)) {
				*pp = c->next;
				if (c->server)
					free(c->rm);
				free(c);
				continue;
			}
			link_update(c->link);
			pp = &c->next;
		}
		pthread_cond_broadcast(&g.cv);
	}
	/* The listeners, the worker and the context are left to the exit.
	 * UCX's own async thread goes on accepting connections until the
	 * process is gone, and UCX 1.13 hands a connection that arrived before
	 * ucp_listener_destroy to the destroyed listener afterwards (a
	 * SIGSEGV in ucp_cm_server_conn_request_cb: chaos, a server exiting on
	 * Ctrl-C while its client connects). Left alive they stay valid, and
	 * nothing runs on them: what the async thread schedules waits for a
	 * ucp_worker_progress that no thread calls any more. Every endpoint
	 * was closed above, so peers learn at once. */
	while (g.pool != NULL) {
		struct txb *t = g.pool;

		g.pool = t->next;
		free(t);
	}
	g.pool_n = 0;
	close(g.wake);
	g.wake = -1;
	pthread_mutex_unlock(&g.mu);
}

/* ---- sd_link_ops ---------------------------------------------------------- */

static struct ulink *ulink_new(bool listener)
{
	struct ulink *l = calloc(1, sizeof(*l));

	if (l == NULL)
		return NULL;
	l->base.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (l->base.fd < 0) {
		free(l);
		return NULL;
	}
	if (pthread_mutex_init(&l->base.lock, NULL) != 0) {
		close(l->base.fd);
		free(l);
		return NULL;
	}
	if (pthread_mutex_init(&l->tap_mu, NULL) != 0) {
		pthread_mutex_destroy(&l->base.lock);
		close(l->base.fd);
		free(l);
		return NULL;
	}
	l->base.ops = &ucx_ops;
	l->listener = listener;
	return l;
}

/* Wait for *flag (under g.mu) until deadline; false on time-out. */
static bool wait_until(bool *flag, uint64_t deadline)
{
	struct timespec ts;

	while (!*flag) {
		if (now_ns() >= deadline)
			return false;
		ts.tv_sec = (time_t)(deadline / 1000000000ull);
		ts.tv_nsec = (long)(deadline % 1000000000ull);
		pthread_cond_timedwait(&g.cv, &g.mu, &ts);
	}
	return true;
}

/* s's listener, made by the thread at the first call (under g.mu; one
 * request at a time: a second first call waits for it). */
static doca_error_t slot_listening(struct lslot *s)
{
	if (s->h != NULL)
		return DOCA_SUCCESS;
	if (!s->req) {
		s->done = false;
		s->req = true;
		wake_thread();
	}
	if (!wait_until(&s->done, now_ns() + 5000000000ull)) {
		SD_LOG_ERR("UCX link: the UCX thread did not answer");
		return DOCA_ERROR_TIME_OUT;
	}
	return s->h != NULL ? DOCA_SUCCESS : s->err;
}

static doca_error_t ucx_listen(const struct sd_fabric_addr *addr, struct sd_link **out)
{
	struct ulink *l, *x;
	struct lurl *u;
	doca_error_t err;

	if (addr == NULL || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	u = lurl_of(addr->card);
	if (u == NULL)
		return no_link(addr->card);
	pthread_mutex_lock(&g.mu);
	if (g.gone) {
		pthread_mutex_unlock(&g.mu);
		return DOCA_ERROR_NOT_CONNECTED;
	}
	for (x = g.listeners; x != NULL; x = x->lnext) {
		if (addr_eq(&x->addr, addr)) {
			SD_LOG_ERR("UCX link: a server of this process already listens as \"%s\" on %s (card %u) at %s",
				   addr->name, addr->pci, (unsigned)addr->card, u->url.text);
			pthread_mutex_unlock(&g.mu);
			return DOCA_ERROR_ALREADY_EXIST;
		}
	}
	err = slot_listening(&u->comch);
	if (err != DOCA_SUCCESS) {
		pthread_mutex_unlock(&g.mu);
		return err;
	}
	l = ulink_new(true);
	if (l == NULL) {
		pthread_mutex_unlock(&g.mu);
		return DOCA_ERROR_NO_MEMORY;
	}
	l->addr = *addr;
	l->lnext = g.listeners;
	g.listeners = l;
	pthread_mutex_unlock(&g.mu);
	*out = &l->base;
	return DOCA_SUCCESS;
}

static doca_error_t ucx_reclaim(const struct sd_fabric_addr *addr, pid_t dead_pid)
{
	/* Nothing is left behind in the fabric directory by a remote peer. */
	if (addr == NULL || dead_pid <= 0)
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_SUCCESS;
}

static doca_error_t ucx_accept(struct sd_link *listener, struct sd_link **out)
{
	struct ulink *ls = (struct ulink *)listener;
	struct ulink *l;
	struct uconn *c;

	if (listener == NULL || out == NULL || listener->ops != &ucx_ops || !ls->listener)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&g.mu);
	if (listener->fd < 0 || g.gone) {
		pthread_mutex_unlock(&g.mu);
		return DOCA_ERROR_INVALID_VALUE;
	}
	c = ls->acc_head;
	if (c == NULL) {
		pthread_mutex_unlock(&g.mu);
		return DOCA_ERROR_AGAIN;
	}
	l = ulink_new(false);
	if (l == NULL) {
		pthread_mutex_unlock(&g.mu);
		return DOCA_ERROR_FULL; /* descriptors: the peer stays queued */
	}
	ls->acc_head = c->acc_next;
	if (ls->acc_head == NULL)
		ls->acc_tail = NULL;
	c->acc_next = NULL;
	c->queued_on = NULL;
	c->link = l;
	l->c = c;
	l->base.peer_pid = (pid_t)c->auth.peer_pid;
	link_update(l);
	link_update(ls);
	pthread_mutex_unlock(&g.mu);
	*out = &l->base;
	return DOCA_SUCCESS;
}

static void ucx_close(struct sd_link *link);
static void ucx_destroy(struct sd_link *link);


/*
 * A connect does not wait for the handshake: the first call for an address
 * starts an attempt and waits for it briefly (a server that answers, as on
 * a working network, answers well within UCX_CONNECT_WAIT_NS); a later call
 * for the same address picks the attempt up where it is. Until it has its
 * answer, AGAIN: the Comch client retries on its timer and warns that the
 * server does not answer, and its PE goes on serving the program's other
 * contexts (a host process with one card whose Arm side is stopped or cut
 * off keeps talking to its others). An attempt nobody asks for any more
 * (the client stopped) is dropped at the next connect, or by the exit.
 */
#define UCX_CONNECT_WAIT_NS (50ull * 1000000ull)
#define UCX_ATTEMPT_IDLE_NS (1000ull * 1000000ull)

static doca_error_t ucx_connect(const struct sd_fabric_addr *addr, struct sd_link **out)
{
	struct uconn *c, **pp, *stale = NULL;
	struct ulink *l;
	struct lurl *u;
	doca_error_t err;
	uint64_t now;

	if (addr == NULL || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	u = lurl_of(addr->card);
	if (u == NULL)
		return no_link(addr->card);
	pthread_mutex_lock(&g.mu);
	if (g.gone) {
		pthread_mutex_unlock(&g.mu);
		return DOCA_ERROR_NOT_CONNECTED;
	}
	now = now_ns();
	for (pp = &g.attempts; (c = *pp) != NULL;) {
		if (now - c->asked_ns > UCX_ATTEMPT_IDLE_NS) {
			*pp = c->att_next;
			c->att_next = stale;
			stale = c;
			continue;
		}
		if (addr_eq(&c->addr, addr))
			break;
		pp = &c->att_next;
	}
	if (c == NULL) {
		l = ulink_new(false);
		c = uconn_new(false);
		if (l == NULL || c == NULL) {
			pthread_mutex_unlock(&g.mu);
			if (l != NULL)
				ucx_destroy(&l->base);
			free(c);
			err = DOCA_ERROR_NO_MEMORY;
			goto out;
		}
		c->addr = *addr;
		memcpy(&c->sa, &u->url.sa, u->url.salen);
		c->salen = u->url.salen;
		c->u = u;
		snprintf(c->peer, sizeof(c->peer), "%s", u->url.text);
		c->link = l;
		l->c = c;
		c->attempt_end_ns = now + g.timeout_ns + 1000000000ull;
		c->asked_ns = now; /* before the wait lets another connect sweep the list */
		c->next = g.newc;
		g.newc = c;
		c->att_next = g.attempts;
		g.attempts = c;
		wake_thread();
		(void)wait_until(&c->done, now + UCX_CONNECT_WAIT_NS);
	}
	/* the wait let others at the list: a connect of another thread for
	 * the same address may have taken this attempt (they are alike) */
	for (pp = &g.attempts; *pp != NULL && *pp != c; pp = &(*pp)->att_next)
		;
	if (*pp == NULL) {
		pthread_mutex_unlock(&g.mu);
		err = DOCA_ERROR_AGAIN;
		goto out;
	}
	c->asked_ns = now;
	if (!c->done) {
		if (now < c->attempt_end_ns) {
			pthread_mutex_unlock(&g.mu);
			err = DOCA_ERROR_AGAIN;
			goto out;
		}
		SD_LOG_DBG("UCX link: no answer from %s within %llu ms", c->peer,
			   (unsigned long long)(g.timeout_ns / 1000000));
		c->result = DOCA_ERROR_NOT_FOUND;
	}
	*pp = c->att_next;
	l = c->link;
	err = c->result;
	l->base.peer_pid = (pid_t)c->auth.peer_pid;
	pthread_mutex_unlock(&g.mu);
	if (err != DOCA_SUCCESS) {
		ucx_destroy(&l->base); /* never handed out; without g.mu: close waits for the thread */
		goto out;
	}
	*out = &l->base;
out:
	while (stale != NULL) {
		c = stale;
		stale = c->att_next;
		ucx_destroy(&c->link->base);
	}
	return err;
}

static doca_error_t ucx_send(struct sd_link *link, uint16_t type, const void *body, uint32_t len, int fd)
{
	struct ulink *l = (struct ulink *)link;
	struct sd_frame_hdr hdr;
	doca_error_t err = DOCA_SUCCESS;
	struct uconn *c;
	size_t need;

	if (link == NULL || link->ops != &ucx_ops || l->listener || (len > 0 && body == NULL) ||
	    len > SD_FRAME_MAX_BODY)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&g.mu);
	if (link->fd < 0) {
		err = DOCA_ERROR_NOT_CONNECTED;
		goto out;
	}
	if (fd >= 0) {
		if (!l->fd_warned)
			SD_LOG_ERR("UCX link to pid %d: a %s frame carries a file descriptor, which cannot cross a "
				   "network (the fast path sends none across it: a softdoca bug)",
				   (int)link->peer_pid, sd_frame_type_name(type));
		l->fd_warned = true;
		err = DOCA_ERROR_NOT_SUPPORTED;
		goto out;
	}
	c = l->c;
	if (c == NULL || c->failed) {
		err = DOCA_ERROR_CONNECTION_RESET;
		goto out;
	}
	need = sizeof(hdr) + len;
	if (c->tx_credit < need) {
		err = DOCA_ERROR_AGAIN;
		goto out;
	}
	sd_frame_hdr_init(&hdr, type, 0, len, link->tx_seq);
	if (!queue_msg(c, LK_FRAME, 0, &hdr, sizeof(hdr), body, len)) {
		err = DOCA_ERROR_NO_MEMORY;
		goto out;
	}
	c->tx_credit -= need;
	link->tx_seq++;
	wake_thread();
out:
	pthread_mutex_unlock(&g.mu);
	return err;
}

static doca_error_t ucx_recv(struct sd_link *link, void *buf, struct sd_frame_view *view, int *fdp)
{
	struct ulink *l = (struct ulink *)link;
	const char *why = NULL;
	struct uconn *c;
	struct rxf *f;
	doca_error_t err;
	size_t n;

	if (link == NULL || buf == NULL || view == NULL || fdp == NULL || link->ops != &ucx_ops || l->listener)
		return DOCA_ERROR_INVALID_VALUE;
	*fdp = -1;
	pthread_mutex_lock(&g.mu);
	if (link->fd < 0) {
		pthread_mutex_unlock(&g.mu);
		return DOCA_ERROR_NOT_CONNECTED;
	}
	c = l->c;
	f = c != NULL ? c->rx_head : NULL;
	if (f == NULL) {
		err = c == NULL || c->failed ? DOCA_ERROR_CONNECTION_RESET : DOCA_ERROR_AGAIN;
		pthread_mutex_unlock(&g.mu);
		return err;
	}
	c->rx_head = f->next;
	if (c->rx_head == NULL)
		c->rx_tail = NULL;
	n = f->len;
	memcpy(buf, f->data, n);
	free(f);
	c->rx_consumed += n;
	/* Credit back in batches, and whenever the queue runs dry so that a
	 * sender waiting for room is never left waiting on a partial batch. */
	if (!c->failed && (c->rx_consumed >= UCX_CREDIT_BATCH || c->rx_head == NULL)) {
		if (queue_msg(c, LK_CREDIT, (uint32_t)c->rx_consumed, NULL, 0, NULL, 0)) {
			c->rx_outstanding -= c->rx_consumed;
			c->rx_consumed = 0;
			wake_thread();
		}
	}
	link_update(l);
	pthread_mutex_unlock(&g.mu);
	err = sd_frame_parse(buf, n, view, &why);
	if (err != DOCA_SUCCESS)
		goto bad;
	err = DOCA_ERROR_INVALID_VALUE;
	if (view->seq != link->rx_seq) {
		why = "frame out of sequence";
		goto bad;
	}
	if (view->flags & SD_FRAME_F_FD) {
		why = "frame claims a file descriptor, which cannot cross a network";
		goto bad;
	}
	link->rx_seq++;
	return DOCA_SUCCESS;
bad:
	SD_LOG_ERR("malformed frame from peer pid %d over %s (%zu bytes): %s; dropping the link", (int)link->peer_pid,
		   l->c != NULL ? l->c->peer : "the UCX link", n, why);
	return err;
}

static void ucx_close(struct sd_link *link)
{
	struct ulink *l = (struct ulink *)link;
	struct ulink **pp;
	struct uconn *c;

	if (link == NULL || link->ops != &ucx_ops)
		return;
	pthread_mutex_lock(&g.mu);
	if (link->fd >= 0) {
		close(link->fd);
		link->fd = -1;
	}
	if (l->listener) {
		for (pp = &g.listeners; *pp != NULL; pp = &(*pp)->lnext) {
			if (*pp == l) {
				*pp = l->lnext;
				break;
			}
		}
		while ((c = l->acc_head) != NULL) {
			l->acc_head = c->acc_next;
			c->acc_next = NULL;
			c->queued_on = NULL;
			c->want_close = true;
			c->close_deadline = now_ns();
		}
		l->acc_tail = NULL;
	} else {
		/* No tap call after close returns (the fast path frees what it
		 * handed us on CLOSED, which follows). */
		l->tap = NULL;
		while (l->tap_busy != 0)
			pthread_cond_wait(&g.cv, &g.mu);
		fp_free_held(l);
	}
	if (!l->listener && (c = l->c) != NULL) {
		if (!c->failed && c->phase == PH_OPEN)
			queue_msg(c, LK_CLOSE, 0, NULL, 0, NULL, 0);
		c->want_close = true;
		c->close_deadline = now_ns() + UCX_CLOSE_FLUSH_NS;
		c->link = NULL;
		l->c = NULL;
		/* What was queued (BYE, a refusal) must leave before close
		 * returns: the caller may exit right after, taking our thread
		 * with it. Bounded: an unanswering peer is forced off. */
		wake_thread();
		c->held++;
		(void)wait_until(&c->closed, c->close_deadline + 200000000ull);
		c->held--;
	}
	wake_thread();
	pthread_mutex_unlock(&g.mu);
}

static void ucx_destroy(struct sd_link *link)
{
	if (link == NULL || link->ops != &ucx_ops)
		return;
	ucx_close(link);
	pthread_mutex_destroy(&((struct ulink *)link)->tap_mu);
	pthread_mutex_destroy(&link->lock);
	free(link);
}

/* ---- the seam to remote_ucx.c (link_ucx_int.h) ----------------------------- */

void sd_ucx_lock(void)
{
	pthread_mutex_lock(&g.mu);
}

void sd_ucx_unlock(void)
{
	pthread_mutex_unlock(&g.mu);
}

bool sd_ucx_wait(bool *flag, uint64_t deadline)
{
	return wait_until(flag, deadline);
}

bool sd_ucx_wait_once(uint64_t deadline)
{
	struct timespec ts;

	if (now_ns() >= deadline)
		return false;
	ts.tv_sec = (time_t)(deadline / 1000000000ull);
	ts.tv_nsec = (long)(deadline % 1000000000ull);
	pthread_cond_timedwait(&g.cv, &g.mu, &ts);
	return true;
}

void sd_ucx_broadcast(void)
{
	pthread_cond_broadcast(&g.cv);
}

uint64_t sd_ucx_now(void)
{
	return now_ns();
}

uint64_t sd_ucx_timeout_ns(void)
{
	return g.timeout_ns;
}

/* What the callers of remote_ucx.c may still queue on. */
static bool conn_takes_messages(const struct uconn *c)
{
	return !c->failed && !c->closing && !g.gone;
}

bool sd_ucx_send(struct uconn *c, uint32_t kind, uint32_t arg, const void *a, size_t alen, const void *b,
		 size_t blen)
{
	if (!conn_takes_messages(c))
		return false;
	if (!queue_msg(c, kind, arg, a, alen, b, blen))
		return false;
	wake_thread();
	return true;
}

struct txb *sd_ucx_msg_new(size_t len)
{
	return g.gone ? NULL : txb_new(len);
}

void *sd_ucx_msg_data(struct txb *m)
{
	return m->data;
}

void sd_ucx_msg_free(struct txb *m)
{
	if (m != NULL)
		txb_free(m);
}

bool sd_ucx_post(struct uconn *c, struct txb *m, uint32_t kind, uint32_t arg)
{
	if (!conn_takes_messages(c)) {
		txb_free(m);
		return false;
	}
	queue_txb(c, m, kind, arg);
	wake_thread();
	return true;
}

size_t sd_ucx_pending(const struct uconn *c)
{
	return c->pending;
}

void sd_ucx_drop(struct uconn *c, doca_error_t err)
{
	conn_fail(c, err);
	wake_thread();
}

struct uconn *sd_ucx_link_conn(struct sd_link *link)
{
	struct ulink *l = (struct ulink *)link;

	return link != NULL && link->ops == &ucx_ops && !l->listener ? l->c : NULL;
}

bool sd_ucx_failed(const struct uconn *c, doca_error_t *err)
{
	if (c->failed && err != NULL)
		*err = c->fail_err;
	return c->failed || g.gone;
}

const char *sd_ucx_peer(const struct uconn *c)
{
	return c->peer;
}

unsigned int sd_ucx_peer_pid(const struct uconn *c)
{
	return (unsigned int)c->auth.peer_pid;
}

uint32_t sd_ucx_card(const struct uconn *c)
{
	return c->auth.card;
}

void *sd_ucx_rm(const struct uconn *c)
{
	return c->rm;
}

void sd_ucx_set_rm(struct uconn *c, void *rm)
{
	c->rm = rm;
}

doca_error_t sd_ucx_rm_listen(uint32_t card, struct sockaddr_storage *sa, socklen_t *salen)
{
	struct lurl *u = lurl_of(card);
	doca_error_t err;

	if (g.gone)
		return DOCA_ERROR_NOT_CONNECTED;
	if (u == NULL)
		return no_link(card);
	if (u->rm.h == NULL && !u->rm.req) {
		int e = route_source(&u->url, &u->rm.sa, &u->rm.salen);

		if (e != 0) {
			SD_LOG_ERR("UCX link: no route to %s to serve exported memory from: %s", u->url.text,
				   strerror(e));
			return e == EAFNOSUPPORT ? DOCA_ERROR_NOT_SUPPORTED : DOCA_ERROR_IO_FAILED;
		}
	}
	err = slot_listening(&u->rm);
	if (err != DOCA_SUCCESS)
		return err;
	*sa = u->rm.sa;
	*salen = u->rm.salen;
	return DOCA_SUCCESS;
}

doca_error_t sd_ucx_rm_connect(const struct sockaddr_storage *sa, socklen_t salen, uint32_t card, const char *pci,
			       struct uconn **out)
{
	struct uconn *c;
	doca_error_t err;

	if (g.gone)
		return DOCA_ERROR_NOT_CONNECTED;
	if (salen == 0 || salen > sizeof(c->sa))
		return DOCA_ERROR_INVALID_VALUE;
	if (lurl_of(card) == NULL)
		return no_link(card);
	c = uconn_new(false);
	if (c == NULL)
		return DOCA_ERROR_NO_MEMORY;
	c->u = lurl_of(card); /* the exporter is that card's other side: the same network */
	c->role = ROLE_RM_CLIENT;
	memcpy(&c->sa, sa, salen);
	c->salen = salen;
	c->addr.card = card;
	snprintf(c->addr.pci, sizeof(c->addr.pci), "%s", pci);
	snprintf(c->addr.name, sizeof(c->addr.name), "softdoca remote memory");
	sockaddr_text(&c->sa, c->peer, sizeof(c->peer));
	c->next = g.newc;
	g.newc = c;
	wake_thread();
	/* held: a connection that fails meanwhile is freed by the thread
	 * once closed unless somebody still waits for its answer */
	c->held++;
	if (!wait_until(&c->done, now_ns() + g.timeout_ns + 1000000000ull)) {
		SD_LOG_DBG("UCX link: no answer from %s within %llu ms", c->peer,
			   (unsigned long long)(g.timeout_ns / 1000000));
		c->result = DOCA_ERROR_NOT_FOUND;
	}
	c->held--;
	err = c->result;
	if (err == DOCA_SUCCESS && c->failed)
		err = c->fail_err;
	/* dropped before the server said a word: nobody listens there */
	if (err == DOCA_ERROR_CONNECTION_RESET && c->phase == PH_CONNECTING)
		err = DOCA_ERROR_NOT_FOUND;
	if (err != DOCA_SUCCESS) {
		c->want_close = true;
		c->close_deadline = now_ns();
		wake_thread();
		return err;
	}
	c->held++; /* the caller's, until sd_ucx_rm_close */
	*out = c;
	return DOCA_SUCCESS;
}

void sd_ucx_rm_close(struct uconn *c)
{
	if (c == NULL)
		return;
	c->held--;
	c->rm = NULL;
	if (!c->failed && c->phase == PH_OPEN && !g.gone)
		queue_msg(c, LK_CLOSE, 0, NULL, 0, NULL, 0);
	c->want_close = true;
	c->close_deadline = now_ns() + UCX_CLOSE_FLUSH_NS;
	wake_thread();
}

static const struct sd_link_ops ucx_ops = {
	.name = "ucx",
	.listen = ucx_listen,
	.reclaim = ucx_reclaim,
	.accept = ucx_accept,
	.connect = ucx_connect,
	.send = ucx_send,
	.recv = ucx_recv,
	.close = ucx_close,
	.destroy = ucx_destroy,
};

/* The index of u in g.urls, added unless an equal address is there. */
static int url_index(const struct sd_link_url *u)
{
	unsigned int i;

	for (i = 0; i < g.nurls; i++)
		if (g.urls[i].url.salen == u->salen && memcmp(&g.urls[i].url.sa, &u->sa, u->salen) == 0)
			return (int)i;
	g.urls[i].url = *u;
	g.urls[i].comch.u = g.urls[i].rm.u = &g.urls[i];
	g.urls[i].comch.sa = u->sa;
	g.urls[i].comch.salen = u->salen;
	g.urls[i].rm.rm = true;
	g.nurls++;
	return (int)i;
}

const struct sd_link_ops *priv_doca_sd_link_ucx_init(const struct sd_link_urls *urls, const uint8_t *secret,
						     size_t secret_len, doca_error_t *err);

const struct sd_link_ops *priv_doca_sd_link_ucx_init(const struct sd_link_urls *urls, const uint8_t *secret,
						     size_t secret_len, doca_error_t *err)
{
	doca_error_t e;
	bool any;

	if (urls == NULL || (urls->ncards != 0 && urls->cards == NULL) || urls->ncards > SD_LINK_MAX_CARDS ||
	    secret == NULL || secret_len == 0 || secret_len > sizeof(g.secret) || err == NULL) {
		if (err != NULL)
			*err = DOCA_ERROR_INVALID_VALUE;
		return NULL;
	}
	any = urls->def != NULL;
	for (uint32_t i = 0; i < urls->ncards; i++)
		any = any || urls->cards[i].salen != 0 || urls->cards[i].text[0] != '\0';
	if (!any) {
		*err = DOCA_ERROR_INVALID_VALUE;
		return NULL;
	}
	/* every address at most once: the default and one per card */
	g.urls = calloc(urls->ncards + 1u, sizeof(*g.urls));
	g.card_url = calloc(urls->ncards + 1u, sizeof(*g.card_url));
	if (g.urls == NULL || g.card_url == NULL) {
		free(g.urls);
		free(g.card_url);
		g.urls = NULL;
		g.card_url = NULL;
		*err = DOCA_ERROR_NO_MEMORY;
		return NULL;
	}
	g.def_url = urls->def != NULL ? url_index(urls->def) : -1;
	g.ncards = urls->ncards;
	for (uint32_t i = 0; i < urls->ncards; i++)
		g.card_url[i] = urls->cards[i].salen != 0	  ? url_index(&urls->cards[i])
				: urls->cards[i].text[0] != '\0' ? -2 /* unresolvable: none */
								  : -1;
	memcpy(g.secret, secret, secret_len);
	g.secret_len = secret_len;
	e = setup();
	*err = e;
	return e == DOCA_SUCCESS ? &ucx_ops : NULL;
}

/* The fast path's entry (sd_link_ucx.h, SD_LINK_UCX_FP_ENTRY). */
const struct sd_link_fp_ops *priv_doca_sd_link_ucx_fastpath(void);

const struct sd_link_fp_ops *priv_doca_sd_link_ucx_fastpath(void)
{
	return &fp_ops;
}
