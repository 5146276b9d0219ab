#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <doca_comch_consumer.h>
#include <doca_ctx.h>
#include <doca_pe.h>

#include "fastpath.h"
#include "sd_comch.h"
#include "sd_ctx.h"
#include "sd_dev.h"
#include "sd_log.h"
#include "sd_mem.h"
#include "sd_pages.h"
#include "sd_trace.h"

SD_LOG_REGISTER(COMCH_CONSUMER);

/* Messages handed over per progress call, so one busy consumer cannot
 * starve the other contexts of its PE. */
#define SD_FP_RX_BATCH 256u

struct posted {
	struct doca_comch_consumer_task_post_recv *task;
	uint32_t cap;
	bool direct; /* posted with a destination: may receive a DIRECT record */
};

struct doca_comch_consumer {
	struct doca_ctx ctx; /* first: to_consumer() */
	struct sd_task_class recv_cls;
	struct sd_fp_conn *st;
	struct doca_comch_connection *conn; /* pinned from create to destroy */
	struct doca_mmap *mmap;
	uint32_t id;
	uint32_t imm_len;
	uint32_t max_buf_size;
	uint32_t max_tasks;
	doca_comch_consumer_task_post_recv_completion_cb_t ok_cb;
	doca_comch_consumer_task_post_recv_completion_cb_t err_cb;
	/* while started */
	int fd;
	int evfd;     /* producers signal it when we asked for a wake-up */
	struct sd_fp_local *local; /* our announcement: the producers' eventfd */
	bool kick_pending; /* posted or consumed since the producers last could see it */
	bool armed;
	bool evfd_dirty;   /* a producer may have signalled evfd since we last read it */
	uint32_t idle_polls;
	uint64_t idle_since_ns;
	void *base;
	size_t size;
	/* the receive memory's whole pages on shared memory (direct
	 * placement); pages NULL: not moved. Held from the first start to
	 * destroy (moved pages cannot be moved again: a restart reuses them);
	 * dlen is non-zero only while started with them offered. */
	struct sd_pages *pages;
	struct sd_pages_share share;
	const uint8_t *pages_addr; /* the mmap range they were moved for */
	size_t pages_len;
	uintptr_t dbase;
	uint64_t dlen;
	struct sd_fp_rx rx;
	struct posted *q; /* FIFO of posted buffers, rx.p.qcap entries */
	uint64_t q_head, q_tail;
	bool announced;
	bool start_pending; /* announced, RUNNING on the next progress */
	bool broken;  /* the peer wrote garbage */
	bool failed;  /* a failure was already reported to the core */
	/* for the stuck-program diagnostic */
	uint64_t running_ns;   /* when it became RUNNING */
	uint64_t last_msg_ns;  /* last message received (0: none yet) */
	uint64_t msgs;         /* messages received since start */
	/* across a network (fastpath.h, "Across a network"): no region, the
	 * posted buffers' capacities go to the peer as credits */
	bool net;              /* the connection's, fixed at create */
	bool net_on;           /* started (announced) */
	uint64_t q_granted;    /* posted buffers up to here were granted */
	struct sd_fp_net_dst *ndsts; /* scratch for a batch of credits, qcap entries */
};

struct doca_comch_consumer_task_post_recv {
	struct doca_task base; /* first */
	struct doca_buf *buf;
	uint32_t producer_id;
	uint32_t imm_len;
	uint8_t imm[SD_FP_MAX_IMM];
};

static inline struct doca_comch_consumer *to_consumer(struct doca_ctx *ctx)
{
	return (struct doca_comch_consumer *)ctx;
}

static void region_release(struct doca_comch_consumer *c)
{
	if (c->evfd >= 0)
		sd_pe_unwatch_fd(c->ctx.pe, c->evfd);
	if (c->announced) {
		/* withdraw closes the fds it kept for re-announcements */
		sd_fp_conn_withdraw(c->st, c->id);
		c->announced = false;
	} else {
		if (c->fd >= 0)
			close(c->fd);
		if (c->evfd >= 0)
			close(c->evfd);
	}
	c->fd = -1;
	c->evfd = -1;
	c->local = NULL;
	c->dbase = 0;
	c->dlen = 0;
	c->kick_pending = false;
	c->armed = false;
	c->evfd_dirty = false;
	c->idle_polls = 0;
	if (c->base != NULL)
		munmap(c->base, c->size);
	c->base = NULL;
	free(c->q);
	c->q = NULL;
	c->q_head = c->q_tail = 0;
	free(c->ndsts);
	c->ndsts = NULL;
	c->net_on = false;
	c->q_granted = 0;
}

/* Put the receive mmap's whole pages on shared memory, so that the peer's
 * producers can write payloads straight into posted buffers (one copy). Only
 * for an mmap that grants PCI write access: the right a card would need to
 * DMA into it. Best effort: the ring stays the way for everything else. */
static void share_bufmem(struct doca_comch_consumer *c, struct sd_pages_share *share)
{
	const struct sd_mmap_view *v = sd_mmap_view_of(c->mmap);
	const char *why = NULL;

	if (c->pages == NULL || c->pages_addr != v->addr || c->pages_len != v->len) {
		/* first start, or the mmap changed since the last one */
		sd_pages_put(c->pages);
		c->pages = NULL;
		if (sd_mmap_remote(c->mmap) != NULL)
			why = "the mmap is a remote one";
		else if (!(sd_mmap_access(c->mmap) & DOCA_ACCESS_FLAG_PCI_READ_WRITE))
			why = "the mmap does not grant PCI read-write access";
		else if (sd_pages_share((uintptr_t)v->addr, v->len, &c->pages, share) != DOCA_SUCCESS ||
			 c->pages == NULL)
			why = "its pages cannot be moved to shared memory";
		else if (share->len > SD_FP_MAX_BUFMEM)
			why = "the mmap is too large";
		if (why != NULL) {
			sd_pages_put(c->pages);
			c->pages = NULL;
			share->fd = -1;
			SD_LOG_DBG("consumer %u: receive buffers stay private (%s); messages go through the ring",
				   c->id, why);
			return;
		}
		c->share = *share;
		c->pages_addr = v->addr;
		c->pages_len = v->len;
	}
	*share = c->share;
	c->dbase = (uintptr_t)c->share.addr;
	c->dlen = c->share.len;
}

/* The eventfd whoever feeds us signals (the producer's side locally, the
 * dispatcher across a network), watched by our PE. */
static doca_error_t watch_evfd(struct doca_comch_consumer *c)
{
	doca_error_t r;

	c->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (c->evfd < 0)
		return DOCA_ERROR_OPERATING_SYSTEM;
	r = sd_pe_watch_fd(c->ctx.pe, c->evfd);
	if (r != DOCA_SUCCESS) {
		close(c->evfd);
		c->evfd = -1;
	}
	return r;
}

/* Across a network: the same queue of posted buffers, and an eventfd the
 * dispatcher signals when messages are queued for us. */
static doca_error_t net_start(struct doca_comch_consumer *c, uint32_t max_msg)
{
	struct sd_fp_params p;
	doca_error_t r;

	sd_fp_params_fill(&p, c->id, c->recv_cls.capacity, max_msg, c->imm_len);
	memset(&c->rx, 0, sizeof(c->rx));
	c->rx.p = p;
	c->q = calloc(p.qcap, sizeof(*c->q));
	c->ndsts = calloc(p.qcap, sizeof(*c->ndsts));
	if (c->q == NULL || c->ndsts == NULL) {
		r = DOCA_ERROR_NO_MEMORY;
		goto err;
	}
	r = watch_evfd(c);
	if (r != DOCA_SUCCESS)
		goto err;
	c->broken = false;
	c->failed = false;
	r = sd_fp_net_announce(c->st, c->id, c->evfd, max_msg, c->imm_len, p.qcap, &c->local);
	if (r != DOCA_SUCCESS) {
		SD_LOG_ERR("consumer %u: announcing to the peer failed: %s", c->id, doca_error_get_name(r));
		goto err;
	}
	c->announced = true;
	c->net_on = true;
	c->q_granted = 0;
	c->msgs = 0;
	c->last_msg_ns = 0;
	SD_LOG_DBG("consumer %u: announced across the network on conn %u (%u receive slots, max message %u)", c->id,
		   sd_comch_conn_id(c->conn), p.qcap, max_msg);
	c->start_pending = true;
	sd_pe_wake(c->ctx.pe);
	return DOCA_ERROR_IN_PROGRESS;
err:
	region_release(c);
	return r;
}

static doca_error_t consumer_start(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = to_consumer(ctx);
	struct sd_pages_share share;
	struct sd_fp_params p;
	uint64_t max_msg;
	doca_error_t r;

	if (!c->recv_cls.configured) {
		SD_LOG_ERR("consumer %u: post_recv task not configured", c->id);
		return DOCA_ERROR_BAD_STATE;
	}
	if (sd_fp_conn_closed(c->st)) {
		SD_LOG_ERR("consumer %u: connection is gone", c->id);
		return DOCA_ERROR_NOT_CONNECTED;
	}
	if (!sd_mmap_is_started(c->mmap)) {
		SD_LOG_ERR("consumer %u: mmap is not started", c->id);
		return DOCA_ERROR_BAD_STATE;
	}
	max_msg = sd_mmap_len(c->mmap);
	if (max_msg > c->max_buf_size)
		max_msg = c->max_buf_size;
	if (max_msg == 0)
		return DOCA_ERROR_INVALID_VALUE;
	if (c->net)
		return net_start(c, (uint32_t)max_msg);
	sd_fp_params_fill(&p, c->id, c->recv_cls.capacity, (uint32_t)max_msg, c->imm_len);
	c->size = sd_fp_region_size(&p);
	c->fd = memfd_create("softdoca-comch-consumer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (c->fd < 0) {
		SD_LOG_ERR("consumer %u: memfd_create failed: %s", c->id, strerror(errno));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	if (ftruncate(c->fd, (off_t)c->size) != 0) {
		SD_LOG_ERR("consumer %u: sizing the shared region failed: %s", c->id, strerror(errno));
		r = DOCA_ERROR_NO_MEMORY;
		goto err;
	}
	/* The peer refuses a region whose size could still change. */
	if (fcntl(c->fd, F_ADD_SEALS, SD_FP_SEALS) != 0) {
		SD_LOG_ERR("consumer %u: sealing the shared region failed: %s", c->id, strerror(errno));
		r = DOCA_ERROR_OPERATING_SYSTEM;
		goto err;
	}
	c->base = mmap(NULL, c->size, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
	if (c->base == MAP_FAILED) {
		c->base = NULL;
		r = DOCA_ERROR_NO_MEMORY;
		goto err;
	}
	r = watch_evfd(c);
	if (r != DOCA_SUCCESS)
		goto err;
	c->q = calloc(p.qcap, sizeof(*c->q));
	if (c->q == NULL) {
		r = DOCA_ERROR_NO_MEMORY;
		goto err;
	}
	sd_fp_region_init(c->base, c->size, &p, (uint32_t)getpid());
	sd_fp_rx_init(&c->rx, c->base);
	share_bufmem(c, &share);
	c->rx.direct_ok = c->dlen != 0;
	c->broken = false;
	c->failed = false;
	r = sd_fp_conn_announce_bufmem(c->st, c->id, c->fd, c->evfd, c->base, c->size, share.fd, share.off, share.len,
				       &c->local);
	if (r != DOCA_SUCCESS) {
		SD_LOG_ERR("consumer %u: announcing to the peer failed: %s", c->id, doca_error_get_name(r));
		goto err;
	}
	c->announced = true;
	c->msgs = 0;
	c->last_msg_ns = 0;
	SD_LOG_DBG("consumer %u: announced on conn %u (%u receive slots, max message %llu, region %zu bytes)", c->id,
		   sd_comch_conn_id(c->conn), p.qcap, (unsigned long long)max_msg, c->size);
	/* Asynchronous, as DOCA's consumer: STARTING now, RUNNING from the
	 * next doca_pe_progress, never inside doca_ctx_start (a program that
	 * posts its receive buffers from the RUNNING callback finds the ctx
	 * really running). Wake a PE that sleeps on its notification. */
	c->start_pending = true;
	sd_pe_wake(c->ctx.pe);
	return DOCA_ERROR_IN_PROGRESS;
err:
	region_release(c);
	return r;
}

static void flush_posted(struct doca_comch_consumer *c, doca_error_t status)
{
	if (c->q_head != c->q_tail)
		SD_LOG_DBG("consumer %u: %llu posted receive%s end with %s", c->id,
			   (unsigned long long)(c->q_tail - c->q_head), c->q_tail - c->q_head == 1 ? "" : "s",
			   doca_error_get_name(status));
	while (c->q_head != c->q_tail) {
		struct posted *e = &c->q[c->q_head & (c->rx.p.qcap - 1)];

		c->q_head++;
		sd_task_complete(&e->task->base, status);
	}
}

/* Wake the peer's producers (they asked, sd_fp_rx_kick said so). */
static void signal_producers(struct doca_comch_consumer *c)
{
	int fd = c->local != NULL ? __atomic_load_n(&c->local->prod_evfd, __ATOMIC_ACQUIRE) : -1;
	uint64_t one = 1;

	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is saturated, they are awake */
	}
}

static bool producers_known(const struct doca_comch_consumer *c)
{
	return c->local != NULL && __atomic_load_n(&c->local->prod_evfd, __ATOMIC_ACQUIRE) >= 0;
}

static void consumer_stop(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = to_consumer(ctx);
	doca_error_t status = SD_TASK_FLUSHED_STATUS;

	c->start_pending = false;
	SD_LOG_DBG("consumer %u: stopping on conn %u (%llu messages received, %llu receives posted)", c->id,
		   sd_comch_conn_id(c->conn), (unsigned long long)c->msgs, (unsigned long long)(c->q_tail - c->q_head));
	if (sd_trace_enabled())
		sd_trace_instant("comch", "consumer_stop", "\"consumer\":%u,\"conn\":%u", c->id,
				 sd_comch_conn_id(c->conn));
	if (c->broken)
		status = DOCA_ERROR_UNEXPECTED;
	else if (sd_fp_conn_closed(c->st))
		status = DOCA_ERROR_CONNECTION_RESET;
	if (c->base != NULL) {
		flush_posted(c, status);
		sd_fp_rx_close(&c->rx);
		/* A producer waiting for credits learns we are gone. */
		if (sd_fp_rx_take_kick(&c->rx))
			signal_producers(c);
	} else if (c->net_on) {
		sd_fp_net_detach(c->st, c->local);
		flush_posted(c, status);
	}
	region_release(c);
	sd_ctx_stop_done(ctx);
}

static void fail(struct doca_comch_consumer *c)
{
	if (c->failed || c->ctx.state != DOCA_CTX_STATE_RUNNING)
		return;
	c->failed = true;
	sd_ctx_fail(&c->ctx);
}

/* Across a network: grant what was posted since the last call (one frame:
 * each buffer's free room, where the dispatcher writes its message), then
 * complete the posted buffers the dispatcher filled, in order. Every
 * message was bounded by the dispatcher against its buffer; its size is
 * checked again here. */
static int net_progress(struct doca_comch_consumer *c)
{
	struct sd_fp_netmsg *m, *next;
	bool bad = false, traced;
	uint32_t n = 0, k = 0;
	uint64_t v;
	int rc = 0;

	if (c->q_granted != c->q_tail) {
		for (uint64_t i = c->q_granted; i != c->q_tail; i++, k++) {
			const struct posted *e = &c->q[i & (c->rx.p.qcap - 1)];

			c->ndsts[k].p = e->task->buf->data + e->task->buf->data_len;
			c->ndsts[k].cap = e->cap;
		}
		c->q_granted = c->q_tail;
		/* NOT_CONNECTED: the connection is going, said below */
		(void)sd_fp_net_grant(c->st, c->local, c->ndsts, k);
		rc = 1;
	}
	c->kick_pending = false;
	if (sd_fp_net_pending(c->local) || c->evfd_dirty) {
		/* Cleared before the take: a message queued after it signals
		 * again, so none is left behind a quiet eventfd. */
		if (read(c->evfd, &v, sizeof(v)) < 0) {
			/* EAGAIN: nothing was pending */
		}
		c->evfd_dirty = false;
	}
	m = sd_fp_net_take(c->st, c->local, &bad);
	traced = m != NULL && sd_trace_enabled();
	for (; m != NULL; m = next) {
		struct posted *e;
		struct doca_buf *b;

		next = m->next;
		if (bad || c->q_head == c->q_tail || m->len > c->q[c->q_head & (c->rx.p.qcap - 1)].cap) {
			bad = true;
			sd_fp_net_recycle(c->st, c->local, m);
			continue;
		}
		e = &c->q[c->q_head & (c->rx.p.qcap - 1)];
		b = e->task->buf;
		b->data_len += m->len; /* the dispatcher wrote it there */
		e->task->producer_id = m->producer_id;
		e->task->imm_len = m->imm_len;
		if (m->imm_len)
			memcpy(e->task->imm, m->imm, m->imm_len);
		c->q_head++;
		SD_LOG_TRC("consumer %u: conn %u: received %u bytes (imm %u) from producer %u over the network", c->id,
			   sd_comch_conn_id(c->conn), m->len, m->imm_len, m->producer_id);
		if (traced)
			sd_trace_instant("comch", "consumer_recv", "\"consumer\":%u,\"producer\":%u,\"bytes\":%u",
					 c->id, m->producer_id, m->len);
		sd_fp_net_recycle(c->st, c->local, m);
		sd_task_complete_inline(&e->task->base, DOCA_SUCCESS);
		n++;
	}
	if (bad) {
		SD_LOG_ERR("consumer %u: the peer sent an invalid message (beyond a posted buffer or the credits "
			   "granted); stopping", c->id);
		c->broken = true;
		fail(c);
		return 1;
	}
	if (n == 0 && sd_fp_conn_closed(c->st) && !c->failed) {
		SD_LOG_ERR("consumer %u: connection lost, stopping", c->id);
		fail(c);
		return 1;
	}
	if (n != 0) {
		c->msgs += n;
		c->last_msg_ns = sd_now_ns();
		/* A message that came between the read above and the take
		 * was taken with its signal still up: clear it at the next
		 * call (the program calls again, we completed tasks), or it
		 * would keep the PE's notification handle readable with
		 * nothing behind it (a program sleeping on it spun a core). */
		c->evfd_dirty = true;
		return 1;
	}
	return rc;
}

static int consumer_progress(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = to_consumer(ctx);
	struct sd_fp_msg m;
	uint32_t n = 0;
	int rc = 0;
	bool traced;

	if (ctx->state == DOCA_CTX_STATE_STARTING) {
		if (!c->start_pending)
			return 0;
		c->start_pending = false;
		if (sd_fp_conn_closed(c->st)) {
			SD_LOG_ERR("consumer %u: connection lost while starting", c->id);
			sd_ctx_fail(ctx);
			return 1;
		}
		c->running_ns = sd_now_ns();
		SD_LOG_DBG("consumer %u: running on conn %u", c->id, sd_comch_conn_id(c->conn));
		if (sd_trace_enabled())
			sd_trace_instant("comch", "consumer_start", "\"consumer\":%u,\"conn\":%u", c->id,
					 sd_comch_conn_id(c->conn));
		sd_ctx_set_running(ctx);
		return 1;
	}
	if (c->net)
		return c->net_on && ctx->state == DOCA_CTX_STATE_RUNNING ? net_progress(c) : 0;
	if (c->base == NULL || ctx->state != DOCA_CTX_STATE_RUNNING)
		return 0;
	/* Where we run, for the producers; and whether they run here too. */
	sd_fp_rx_note_cpu(&c->rx, sd_fp_cpu1());
	/* Receives posted since the last call (staged by recv_submit) become
	 * credits now: one store for all of them. */
	sd_fp_rx_publish(&c->rx);
	traced = sd_trace_enabled();
	while (n < SD_FP_RX_BATCH && c->q_head != c->q_tail) {
		struct posted *e;
		struct doca_buf *b;

		rc = sd_fp_rx_peek(&c->rx, &m);
		if (rc <= 0)
			break;
		e = &c->q[c->q_head & (c->rx.p.qcap - 1)];
		/* A DIRECT record for a buffer we did not offer is as bad as
		 * garbage: its bytes would be nowhere. */
		if (m.len > e->cap || (m.direct && !e->direct)) {
			rc = -1;
			break;
		}
		b = e->task->buf;
		if (!m.direct)
			memcpy(b->data + b->data_len, m.payload, m.len);
		b->data_len += m.len;
		e->task->producer_id = m.producer_id;
		e->task->imm_len = m.imm_len;
		if (m.imm_len)
			memcpy(e->task->imm, m.imm, m.imm_len);
		/* The room of small records is given back once per batch (the
		 * head line then moves once, not per message); a large one's
		 * at once, a store is nothing next to its copy. */
		if (m.len < SD_FP_DIRECT_MIN)
			sd_fp_rx_consume(&c->rx);
		else
			sd_fp_rx_release(&c->rx);
		c->q_head++;
		SD_LOG_TRC("consumer %u: conn %u: received %u bytes (imm %u) from producer %u", c->id,
			   sd_comch_conn_id(c->conn), m.len, m.imm_len, m.producer_id);
		if (traced)
			sd_trace_instant("comch", "consumer_recv", "\"consumer\":%u,\"producer\":%u,\"bytes\":%u",
					 c->id, m.producer_id, m.len);
		sd_task_complete_inline(&e->task->base, DOCA_SUCCESS);
		n++;
	}
	sd_fp_rx_publish(&c->rx);
	if (rc < 0) {
		SD_LOG_ERR("consumer %u: the peer wrote an invalid message into the shared ring; stopping", c->id);
		c->broken = true;
		fail(c);
		return 1;
	}
	/* Producers waiting for credits or room: wake them once there is
	 * enough for them (the hysteresis is the ring's). */
	if (n != 0 || c->kick_pending) {
		int k = sd_fp_rx_kick(&c->rx, producers_known(c), n != 0);

		c->kick_pending = k < 0;
		if (k > 0)
			signal_producers(c);
	}
	/* Messages published before the peer went away are still delivered. */
	if (n == 0 && sd_fp_conn_closed(c->st) && !c->failed) {
		SD_LOG_ERR("consumer %u: connection lost, stopping", c->id);
		fail(c);
		return 1;
	}
	if (n != 0) {
		c->msgs += n;
		c->last_msg_ns = sd_now_ns();
		c->idle_polls = 0;
		if (c->armed) {
			c->armed = false;
			if (sd_fp_rx_disarm(&c->rx))
				c->evfd_dirty = true;
		}
		return 1;
	}
	if (!c->armed && c->q_head != c->q_tail) {
		uint64_t v;

		/* A wake-up costs the producer a syscall: ask for one only
		 * after a run of empty polls, and report those as activity so
		 * that an event-driven program keeps progressing until then.
		 * But a producer on our CPU cannot send while we spin: ask at
		 * once (it holds the wake-up back until it stops sending). */
		if (!c->rx.peer_here && !sd_fp_spin_over(&c->idle_polls, &c->idle_since_ns, sd_now_ns()))
			return 1;
		/* Going idle with buffers posted: a program may now sleep on
		 * the PE's notification handle, so ask for a wake-up. */
		c->armed = true;
		/* A signal left from an earlier round would end the next sleep
		 * at once; there is one only if a producer took a request. */
		if (c->evfd_dirty && read(c->evfd, &v, sizeof(v)) < 0) {
			/* EAGAIN: nothing was pending */
		}
		c->evfd_dirty = false;
		if (sd_fp_rx_arm(&c->rx))
			return 1;
	}
	return 0;
}

/* A consumer with receives posted waits for the peer's producers. It cannot
 * see them before their first message, so "nothing ever arrived" (no
 * producer, or one that sends elsewhere) is told from "arrivals stopped". */
static bool consumer_describe_wait(const struct doca_ctx *ctx, uint64_t waited_ms, char *buf, size_t cap)
{
	const struct doca_comch_consumer *c = (const struct doca_comch_consumer *)ctx;
	uint64_t posted = c->q_tail - c->q_head, now = sd_now_ns();

	(void)waited_ms;
	if (ctx->state != DOCA_CTX_STATE_RUNNING || (c->base == NULL && !c->net_on) || posted == 0)
		return false;
	if (c->msgs == 0)
		snprintf(buf, cap, "consumer %u on conn %u has posted %llu receive%s for %llu ms and no producer has "
			 "sent it anything: is a producer started on the peer, sending to consumer id %u?", c->id,
			 sd_comch_conn_id(c->conn), (unsigned long long)posted, posted == 1 ? "" : "s",
			 (unsigned long long)((now - c->running_ns) / 1000000), c->id);
	else
		snprintf(buf, cap, "consumer %u on conn %u has posted %llu receive%s; the peer's producer sent %llu "
			 "message%s, the last %llu ms ago, and nothing since: has it stopped sending?", c->id,
			 sd_comch_conn_id(c->conn), (unsigned long long)posted, posted == 1 ? "" : "s",
			 (unsigned long long)c->msgs, c->msgs == 1 ? "" : "s",
			 (unsigned long long)((now - c->last_msg_ns) / 1000000));
	return true;
}

/* Receives posted outside doca_pe_progress (and then a sleep on the PE's
 * notification handle) must still reach a producer that waits for them;
 * receives staged and not yet published (recv_submit) the same. */
static bool consumer_has_work(const struct doca_ctx *ctx)
{
	const struct doca_comch_consumer *c = (const struct doca_comch_consumer *)ctx;

	return ctx->state == DOCA_CTX_STATE_RUNNING &&
	       (c->kick_pending || (c->base != NULL && sd_fp_rx_unpublished(&c->rx)));
}

static const struct sd_ctx_ops consumer_ops = {
	.start = consumer_start,
	.stop = consumer_stop,
	.progress = consumer_progress,
	.has_work = consumer_has_work,
	.describe_wait = consumer_describe_wait,
};

static doca_error_t recv_submit(struct doca_task *task)
{
	struct doca_comch_consumer_task_post_recv *t = (struct doca_comch_consumer_task_post_recv *)task;
	struct doca_comch_consumer *c = to_consumer(task->cls->ctx);
	struct doca_buf *b = t->buf;
	struct posted *e;
	uint64_t dst;
	size_t room;

	if (c->base == NULL && !c->net_on)
		return DOCA_ERROR_BAD_STATE;
	if (b == NULL || b->next != NULL ||
	    (!sd_mmap_view_contains(sd_mmap_view_of(c->mmap), b->addr, b->len) &&
	     !sd_mmap_contains(c->mmap, b->addr, b->len)))
		return DOCA_ERROR_INVALID_VALUE;
	if (b->data < b->addr || b->data + b->data_len > b->addr + b->len)
		return DOCA_ERROR_INVALID_VALUE;
	if (c->q_tail - c->q_head >= c->rx.p.qcap)
		return DOCA_ERROR_AGAIN;
	room = (size_t)(b->addr + b->len - (b->data + b->data_len));
	if (room > UINT32_MAX)
		room = UINT32_MAX;
	t->producer_id = 0;
	t->imm_len = 0;
	e = &c->q[c->q_tail & (c->rx.p.qcap - 1)];
	e->task = t;
	e->cap = (uint32_t)room;
	if (c->net) {
		/* Granted by the next progress call, a batch in one frame. */
		e->direct = false;
		c->q_tail++;
		c->kick_pending = true;
		return DOCA_SUCCESS;
	}
	dst = SD_FP_NO_DST;
	if (c->dlen != 0 && (uintptr_t)(b->data + b->data_len) >= c->dbase &&
	    (uintptr_t)(b->data + b->data_len) - c->dbase <= c->dlen &&
	    room <= c->dlen - ((uintptr_t)(b->data + b->data_len) - c->dbase))
		dst = (uintptr_t)(b->data + b->data_len) - c->dbase;
	e->direct = dst != SD_FP_NO_DST;
	c->q_tail++;
	/* Published by the next progress call (consumer_has_work keeps a
	 * program from sleeping before it): a program reposting from its
	 * completion callbacks hands a whole batch over with one store. */
	sd_fp_rx_stage_at(&c->rx, (uint32_t)room, dst);
	c->kick_pending = true;
	SD_LOG_TRC("consumer %u: receive of up to %zu bytes posted (%llu posted)", c->id, room,
		   (unsigned long long)(c->q_tail - c->q_head));
	return DOCA_SUCCESS;
}

static void recv_deliver(struct doca_task *task)
{
	struct doca_comch_consumer *c = to_consumer(task->cls->ctx);
	doca_comch_consumer_task_post_recv_completion_cb_t cb = task->status == DOCA_SUCCESS ? c->ok_cb : c->err_cb;

	cb((struct doca_comch_consumer_task_post_recv *)task, task->user_data, c->ctx.user_data);
}

static const struct sd_task_class_ops recv_ops = {
	.submit = recv_submit,
	.deliver = recv_deliver,
};

doca_error_t doca_comch_consumer_create(struct doca_comch_connection *comch_connection, struct doca_mmap *buf_mmap,
					struct doca_comch_consumer **consumer)
{
	struct doca_comch_consumer *c;
	struct sd_fp_ep ep;
	doca_error_t r;

	if (comch_connection == NULL || buf_mmap == NULL || consumer == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!sd_mmap_is_started(buf_mmap)) {
		SD_LOG_ERR("consumer: mmap is not started");
		return DOCA_ERROR_BAD_STATE;
	}
	r = sd_fp_ep_create(comch_connection, SD_FP_ROLE_CONSUMER, sizeof(*c), &consumer_ops, "comch_consumer", &ep);
	if (r != DOCA_SUCCESS) {
		if (ep.not_connected)
			SD_LOG_ERR("consumer: connection is not established");
		return r;
	}
	c = to_consumer(ep.ctx);
	sd_task_class_init(&c->recv_cls, &c->ctx, &recv_ops, "comch_consumer_post_recv",
			   sizeof(struct doca_comch_consumer_task_post_recv));
	c->st = ep.st;
	c->conn = comch_connection;
	c->mmap = buf_mmap;
	c->fd = -1;
	c->evfd = -1;
	c->id = sd_comch_conn_alloc_consumer_id(comch_connection);
	c->imm_len = SD_FP_MAX_IMM;
	c->max_buf_size = ep.caps->consumer_max_buf_size;
	c->max_tasks = ep.caps->consumer_max_tasks;
	c->net = c->st->net;
	*consumer = c;
	return DOCA_SUCCESS;
}

static void consumer_release(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = to_consumer(ctx);

	region_release(c);
	sd_pages_put(c->pages);
	c->pages = NULL;
}

doca_error_t doca_comch_consumer_destroy(struct doca_comch_consumer *consumer)
{
	if (consumer == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return sd_fp_ep_destroy(&consumer->ctx, SD_FP_ROLE_CONSUMER, consumer->st, consumer->conn, consumer_release);
}

static const struct sd_caps *devinfo_caps(const struct doca_devinfo *devinfo)
{
	return devinfo == NULL ? NULL : sd_devinfo_caps(devinfo);
}

doca_error_t doca_comch_consumer_cap_is_supported(const struct doca_devinfo *devinfo)
{
	const struct sd_caps *c = devinfo_caps(devinfo);

	if (c == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return c->consumer_max_buf_size ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_comch_consumer_get_id(const struct doca_comch_consumer *consumer, uint32_t *id)
{
	if (consumer == NULL || id == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*id = consumer->id;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo, uint32_t *max_num_tasks)
{
	const struct sd_caps *c = devinfo_caps(devinfo);

	if (c == NULL || max_num_tasks == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*max_num_tasks = c->consumer_max_tasks;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_cap_get_max_buf_size(const struct doca_devinfo *devinfo, uint32_t *max_buf_size)
{
	const struct sd_caps *c = devinfo_caps(devinfo);

	if (c == NULL || max_buf_size == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (c->consumer_max_buf_size == 0)
		return DOCA_ERROR_NOT_SUPPORTED;
	*max_buf_size = c->consumer_max_buf_size;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
							  uint32_t *max_buf_list_len)
{
	const struct sd_caps *c = devinfo_caps(devinfo);

	if (c == NULL || max_buf_list_len == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (c->consumer_max_buf_size == 0)
		return DOCA_ERROR_NOT_SUPPORTED;
	*max_buf_list_len = 1;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_cap_get_max_consumers(const struct doca_devinfo *devinfo, uint32_t *max_consumers)
{
	const struct sd_caps *c = devinfo_caps(devinfo);

	if (c == NULL || max_consumers == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*max_consumers = c->max_consumers_per_connection;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_cap_get_max_imm_data_len(const struct doca_devinfo *devinfo,
							  uint32_t *max_imm_data_len)
{
	if (devinfo_caps(devinfo) == NULL || max_imm_data_len == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*max_imm_data_len = SD_FP_MAX_IMM;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_get_imm_data_len(const struct doca_comch_consumer *consumer, uint32_t *imm_data_len)
{
	if (consumer == NULL || imm_data_len == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*imm_data_len = consumer->imm_len;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_set_imm_data_len(struct doca_comch_consumer *consumer, uint32_t imm_data_len)
{
	doca_error_t r;

	if (consumer == NULL || imm_data_len > SD_FP_MAX_IMM)
		return DOCA_ERROR_INVALID_VALUE;
	r = sd_ctx_check_idle(&consumer->ctx);
	if (r != DOCA_SUCCESS)
		return r;
	consumer->imm_len = imm_data_len;
	return DOCA_SUCCESS;
}

struct doca_ctx *doca_comch_consumer_as_ctx(struct doca_comch_consumer *consumer)
{
	return consumer == NULL ? NULL : &consumer->ctx;
}

/* The DPA calls below configure a data path that would run on the DPA;
 * none is emulated, so after their checks they all decline. */
doca_error_t doca_comch_consumer_set_dev_max_num_recv(struct doca_comch_consumer *consumer, uint32_t dev_num_recv)
{
	doca_error_t r;

	if (consumer == NULL || dev_num_recv == 0)
		return DOCA_ERROR_INVALID_VALUE;
	r = sd_ctx_check_idle(&consumer->ctx);
	if (r != DOCA_SUCCESS)
		return r;
	SD_LOG_ERR("consumer %u: no DPA is emulated, a DPA receive queue cannot be sized", consumer->id);
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_comch_consumer_set_completion(struct doca_comch_consumer *consumer,
						struct doca_comch_consumer_completion *consumer_comp,
						uint32_t user_data)
{
	doca_error_t r;

	(void)user_data;
	if (consumer == NULL || consumer_comp == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	r = sd_ctx_check_idle(&consumer->ctx);
	if (r != DOCA_SUCCESS)
		return r;
	SD_LOG_ERR("consumer %u: no DPA is emulated, a DPA completion context cannot be used", consumer->id);
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_comch_consumer_get_dpa_handle(struct doca_comch_consumer *consumer,
						doca_dpa_dev_comch_consumer_t *dpa_consumer)
{
	if (consumer == NULL || dpa_consumer == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	SD_LOG_ERR("consumer %u: no DPA is emulated, no DPA handle exists", consumer->id);
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_comch_consumer_task_post_recv_set_conf(
	struct doca_comch_consumer *consumer, doca_comch_consumer_task_post_recv_completion_cb_t task_completion_cb,
	doca_comch_consumer_task_post_recv_completion_cb_t task_error_cb, uint32_t num_post_recv_tasks)
{
	doca_error_t r;

	if (consumer == NULL || task_completion_cb == NULL || task_error_cb == NULL || num_post_recv_tasks == 0)
		return DOCA_ERROR_INVALID_VALUE;
	r = sd_ctx_check_idle(&consumer->ctx);
	if (r != DOCA_SUCCESS)
		return r;
	if (consumer->max_tasks && num_post_recv_tasks > consumer->max_tasks) {
		SD_LOG_ERR("consumer %u: %u post_recv tasks requested, max %u", consumer->id, num_post_recv_tasks,
			   consumer->max_tasks);
		return DOCA_ERROR_INVALID_VALUE;
	}
	r = sd_task_class_conf(&consumer->recv_cls, num_post_recv_tasks);
	if (r != DOCA_SUCCESS)
		return r;
	consumer->ok_cb = task_completion_cb;
	consumer->err_cb = task_error_cb;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_task_post_recv_alloc_init(struct doca_comch_consumer *consumer,
							   struct doca_buf *buf,
							   struct doca_comch_consumer_task_post_recv **task)
{
	struct doca_comch_consumer_task_post_recv *t;
	struct doca_task *base;
	doca_error_t r;

	if (consumer == NULL || buf == NULL || task == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	r = sd_task_alloc_inline(&consumer->recv_cls, &base);
	if (r != DOCA_SUCCESS)
		return r;
	t = (struct doca_comch_consumer_task_post_recv *)base;
	t->buf = buf;
	t->producer_id = 0;
	t->imm_len = 0;
	*task = t;
	return DOCA_SUCCESS;
}

struct doca_buf *doca_comch_consumer_task_post_recv_get_buf(const struct doca_comch_consumer_task_post_recv *task)
{
	return task == NULL ? NULL : task->buf;
}

void doca_comch_consumer_task_post_recv_set_buf(struct doca_comch_consumer_task_post_recv *task, struct doca_buf *buf)
{
	if (task != NULL)
		task->buf = buf;
}

uint32_t doca_comch_consumer_task_post_recv_get_producer_id(const struct doca_comch_consumer_task_post_recv *task)
{
	return task == NULL ? 0 : task->producer_id;
}

const uint8_t *doca_comch_consumer_task_post_recv_get_imm_data(const struct doca_comch_consumer_task_post_recv *task)
{
	if (task == NULL || task->imm_len == 0)
		return NULL;
	return task->imm;
}

uint32_t doca_comch_consumer_task_post_recv_get_imm_data_len(const struct doca_comch_consumer_task_post_recv *task)
{
	return task == NULL ? 0 : task->imm_len;
}

struct doca_task *doca_comch_consumer_task_post_recv_as_task(struct doca_comch_consumer_task_post_recv *task)
{
	return task == NULL ? NULL : &task->base;
}
