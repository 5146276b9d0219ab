#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_pe.h>

#include "fastpath.h"
#include "sd_comch.h"
#include "sd_ctx.h"
#include "sd_dev.h"
#include "sd_fault.h"
#include "sd_log.h"
#include "sd_mem.h"
#include "sd_trace.h"

SD_LOG_REGISTER(COMCH_PRODUCER);

#define SD_FP_PRODUCER_MAX_LIST 16u

/* Waiting for the consumer after a send it could not take (AGAIN). */
enum tx_wait {
	TX_WAIT_NONE,  /* nothing refused since the last send that went */
	TX_WAIT_SPIN,  /* refused: polling the counters for a while */
	TX_WAIT_ARMED, /* asked for a wake-up; the PE watches the eventfd */
	TX_WAIT_TOLD,  /* ready again, and progress said so once */
};

struct doca_comch_producer {
	struct doca_ctx ctx; /* first: to_producer() */
	struct sd_task_class send_cls;
	struct sd_fp_conn *st;
	struct doca_comch_connection *conn; /* pinned from create to destroy */
	uint32_t id;
	uint32_t max_buf_size;
	uint32_t max_tasks;
	doca_comch_producer_task_send_completion_cb_t ok_cb;
	doca_comch_producer_task_send_completion_cb_t err_cb;
	struct sd_fp_remote *cached; /* last consumer sent to, referenced */
	bool failed;                 /* connection loss already reported */
	bool cut;                    /* SOFTDOCA_FAULTS cut our fast path */
	doca_error_t fault_status;   /* what the task a fault took completes with */
	bool told_ring;              /* said once that large messages take the ring */
	/* Sends the consumer could not take yet (the program retries them):
	 * for the stuck-program diagnostic. Reset by a send that succeeds. */
	uint64_t refused_since_ns;
	uint64_t refused;
	uint32_t refused_consumer;
	doca_error_t refused_why;    /* AGAIN: no receive posted; NOT_FOUND: no such consumer */
	enum tx_wait wait;
	uint32_t idle_polls;
	uint64_t idle_since_ns;
	uint32_t armed_polls;
	bool watching;               /* our PE watches cached->wake_fd */
	/* Sends since start, and as of the last progress call: a progress
	 * call with none in between means we stopped sending, so a wake-up
	 * held back (the consumer shares our CPU) is owed now. */
	uint64_t sends;
	uint64_t sends_seen;
	/* The shared-CPU hint for sends (fastpath_ring.h, "Sharing a CPU"),
	 * looked up again when cpu_left runs out: every progress call and
	 * every SD_FP_CPU_EVERY sends, not per message. */
	bool here;
	uint32_t cpu_left;
	bool traced; /* SOFTDOCA_TRACE (decided once per process) */
	/* Across a network (fastpath.h, "Across a network"): the
	 * connection's, fixed at create. net_lost: a send failed part way
	 * (the consumer's side cannot reassemble what follows). */
	bool net;
	bool net_lost;
};

#define SD_FP_CPU_EVERY 64u

struct doca_comch_producer_task_send {
	struct doca_task base; /* first */
	const struct doca_buf *buf;
	uint32_t consumer_id;
	uint32_t imm_len;
	uint8_t imm[SD_FP_MAX_IMM];
};

static inline struct doca_comch_producer *to_producer(struct doca_ctx *ctx)
{
	return (struct doca_comch_producer *)ctx;
}

static void unwatch(struct doca_comch_producer *p)
{
	if (p->watching)
		sd_pe_unwatch_fd(p->ctx.pe, p->cached->wake_fd);
	p->watching = false;
}

static void wait_reset(struct doca_comch_producer *p)
{
	if (p->wait == TX_WAIT_ARMED)
		unwatch(p);
	p->wait = TX_WAIT_NONE;
	p->idle_polls = 0;
}

/* Signal a wake-up the consumer is owed (see sd_fp_tx_flush_wake). */
static void flush_wake(struct sd_fp_remote *r)
{
	if (r == NULL || (!sd_fp_tx_wake_owed(&r->tx) && !sd_fp_tx_fence_due(&r->tx)))
		return;
	sd_fp_remote_lock(r);
	sd_fp_tx_flush_wake(&r->tx);
	sd_fp_remote_unlock(r);
}

/* Commits since the last fence: fence now (we pause; see
 * sd_fp_tx_fence). */
static void fence(struct sd_fp_remote *r)
{
	if (r == NULL || !sd_fp_tx_fence_due(&r->tx))
		return;
	sd_fp_remote_lock(r);
	sd_fp_tx_fence(&r->tx);
	sd_fp_remote_unlock(r);
}

static void drop_cache(struct doca_comch_producer *p)
{
	p->cpu_left = 0;
	wait_reset(p);
	flush_wake(p->cached);
	sd_fp_remote_put(p->cached);
	p->cached = NULL;
}

static doca_error_t producer_start(struct doca_ctx *ctx)
{
	struct doca_comch_producer *p = to_producer(ctx);

	if (!p->send_cls.configured) {
		SD_LOG_ERR("producer %u: send task not configured (doca_comch_producer_task_send_set_conf)", p->id);
		return DOCA_ERROR_BAD_STATE;
	}
	if (sd_fp_conn_closed(p->st)) {
		SD_LOG_ERR("producer %u: connection is gone", p->id);
		return DOCA_ERROR_NOT_CONNECTED;
	}
	p->failed = false;
	p->cut = false;
	p->net_lost = false;
	p->refused = 0;
	p->wait = TX_WAIT_NONE;
	p->idle_polls = 0;
	p->sends = p->sends_seen = 0;
	p->cpu_left = 0;
	p->traced = sd_trace_enabled();
	SD_LOG_DBG("producer %u: started on conn %u", p->id, sd_comch_conn_id(p->conn));
	if (sd_trace_enabled())
		sd_trace_instant("comch", "producer_start", "\"producer\":%u,\"conn\":%u", p->id,
				 sd_comch_conn_id(p->conn));
	return DOCA_SUCCESS;
}

static void producer_stop(struct doca_ctx *ctx)
{
	struct doca_comch_producer *p = to_producer(ctx);

	/* Send tasks complete at submit: nothing is held here. */
	SD_LOG_DBG("producer %u: stopping on conn %u", p->id, sd_comch_conn_id(p->conn));
	if (sd_trace_enabled())
		sd_trace_instant("comch", "producer_stop", "\"producer\":%u,\"conn\":%u", p->id,
				 sd_comch_conn_id(p->conn));
	drop_cache(p);
	sd_ctx_stop_done(ctx);
}

/* Ask the consumer to signal the eventfd, and have our PE watch it. False
 * (do not sleep) when the consumer is ready after all, or we cannot. */
static bool arm(struct doca_comch_producer *p, struct sd_fp_remote *r)
{
	struct sd_fp_gone_body body = {.consumer_id = r->id};
	uint64_t v;
	bool ready;
	doca_error_t e;

	/* The peer learns the fd before our first request can reach it. */
	if (!__atomic_exchange_n(&r->wake_sent, 1, __ATOMIC_ACQ_REL) &&
	    sd_fp_conn_send(p->st, SD_FP_PRODUCER_EVFD, &body, sizeof(body), r->wake_fd) != DOCA_SUCCESS) {
		__atomic_store_n(&r->wake_sent, 0, __ATOMIC_RELEASE);
		return false;
	}
	if (!p->watching) {
		e = sd_pe_watch_fd(p->ctx.pe, r->wake_fd);
		/* ALREADY_EXIST: another producer of this PE waits on it too */
		if (e != DOCA_SUCCESS && e != DOCA_ERROR_ALREADY_EXIST)
			return false;
		p->watching = e == DOCA_SUCCESS;
	}
	/* A signal left from an earlier wait would wake the PE at once. */
	if (read(r->wake_fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: none */
	}
	sd_fp_remote_lock(r);
	/* Never sleep on a wake-up we still owe the consumer. */
	sd_fp_tx_flush_wake(&r->tx);
	ready = sd_fp_tx_arm(&r->tx);
	sd_fp_remote_unlock(r);
	if (ready)
		unwatch(p);
	return !ready;
}

/*
 * After a refused send: spin briefly on the consumer's counters, then ask
 * for a wake-up so that a program sleeping on the PE's notification handle
 * (as it should, once progress reports nothing) costs no CPU while the
 * consumer is slow or asleep. Reports activity while spinning and once
 * when the consumer is ready again, so that the program retries its send.
 */
static int wait_progress(struct doca_comch_producer *p)
{
	struct sd_fp_remote *r = p->cached;
	bool ready;

	if (p->wait == TX_WAIT_NONE || p->wait == TX_WAIT_TOLD || r == NULL)
		return 0;
	if (sd_fp_remote_dead(r)) {
		drop_cache(p); /* the next send answers NOT_FOUND */
		return 1;
	}
	sd_fp_remote_lock(r);
	ready = sd_fp_tx_ready(&r->tx);
	sd_fp_remote_unlock(r);
	if (!ready && p->wait == TX_WAIT_ARMED) {
		/* The consumer took our request and signalled, yet not ready
		 * (it woke us at its hysteresis mark, another producer of ours
		 * took what it freed): clear the signal, which would keep the
		 * PE awake, and ask again. Also now and then regardless: a
		 * signal another producer of ours re-armed over. */
		if (sd_fp_tx_armed(&r->tx) && (++p->armed_polls & 63) != 0)
			return 0;
		if (!arm(p, r)) {
			p->wait = TX_WAIT_TOLD;
			return 1;
		}
		return 0;
	}
	/* A consumer on our CPU cannot post or free anything while we spin:
	 * sleep at once. Elsewhere it may be just behind: spin a while. */
	if (!ready && !sd_fp_tx_peer_here(&r->tx, sd_fp_cpu1()) &&
	    !sd_fp_spin_over(&p->idle_polls, &p->idle_since_ns, sd_now_ns()))
		return 1;
	if (!ready && arm(p, r)) {
		p->wait = TX_WAIT_ARMED;
		p->armed_polls = 0;
		return 0;
	}
	if (p->wait == TX_WAIT_ARMED)
		unwatch(p);
	p->wait = TX_WAIT_TOLD;
	return 1;
}

/* Across a network, after a refused send: credits come as messages, which
 * signal the remote's eventfd; the PE watches it while we wait, so that a
 * program sleeping on the notification handle wakes for them. */
static int net_wait_progress(struct doca_comch_producer *p)
{
	struct sd_fp_remote *r = p->cached;
	doca_error_t e;
	uint64_t v;

	if (p->wait == TX_WAIT_NONE || p->wait == TX_WAIT_TOLD || r == NULL)
		return 0;
	if (sd_fp_remote_dead(r)) {
		drop_cache(p); /* the next send answers NOT_FOUND */
		return 1;
	}
	if (p->wait != TX_WAIT_ARMED) {
		if (!p->watching) {
			e = sd_pe_watch_fd(p->ctx.pe, r->wake_fd);
			/* ALREADY_EXIST: another producer of this PE waits on it too */
			if (e != DOCA_SUCCESS && e != DOCA_ERROR_ALREADY_EXIST) {
				p->wait = TX_WAIT_TOLD;
				return 1;
			}
			p->watching = e == DOCA_SUCCESS;
		}
		p->wait = TX_WAIT_ARMED;
	}
	/* Cleared before the look: a credit after it signals again. */
	if (read(r->wake_fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: none */
	}
	if (!sd_fp_net_has_credit(r))
		return 0;
	unwatch(p);
	p->wait = TX_WAIT_TOLD;
	return 1;
}

static int producer_progress(struct doca_ctx *ctx)
{
	struct doca_comch_producer *p = to_producer(ctx);

	if (!p->failed && ctx->state == DOCA_CTX_STATE_RUNNING &&
	    (sd_fp_conn_closed(p->st) || p->cut || p->net_lost)) {
		p->failed = true;
		wait_reset(p);
		if (p->cut)
			SD_LOG_ERR("producer %u: fast path cut (SOFTDOCA_FAULTS), stopping", p->id);
		else if (p->net_lost)
			SD_LOG_ERR("producer %u: a message could not be sent whole across the network, stopping", p->id);
		else
			SD_LOG_ERR("producer %u: connection lost, stopping", p->id);
		sd_ctx_fail(ctx);
		return 1;
	}
	if (ctx->state != DOCA_CTX_STATE_RUNNING)
		return 0;
	if (p->net)
		return net_wait_progress(p);
	/* Nothing sent since the last call: the program has stopped sending
	 * for now, so the consumer gets the wake-up it asked for. Still
	 * sending: only the fence the commits skipped, so that a consumer on
	 * another CPU that went to sleep meanwhile is woken now. */
	if (p->sends == p->sends_seen)
		flush_wake(p->cached);
	else
		fence(p->cached);
	p->sends_seen = p->sends;
	p->cpu_left = 0;
	return wait_progress(p);
}

/* A wake-up still owed, or a fence (sd_fp_tx_fence), keeps a program from
 * sleeping before the progress call that does it (the PE's notification
 * fires at once). */
static bool producer_has_work(const struct doca_ctx *ctx)
{
	const struct doca_comch_producer *p = (const struct doca_comch_producer *)ctx;

	return ctx->state == DOCA_CTX_STATE_RUNNING && p->cached != NULL &&
	       (sd_fp_tx_wake_owed(&p->cached->tx) || sd_fp_tx_fence_due(&p->cached->tx));
}

/* A producer's sends complete at submit or are refused: a program that
 * waits on one is retrying a send the peer's consumer cannot take. */
static bool producer_describe_wait(const struct doca_ctx *ctx, uint64_t waited_ms, char *buf, size_t cap)
{
	const struct doca_comch_producer *p = (const struct doca_comch_producer *)ctx;
	uint64_t ms;

	(void)waited_ms;
	if (ctx->state != DOCA_CTX_STATE_RUNNING)
		return false;
	if (p->refused == 0) {
		/* Nothing refused yet; but with no consumer on the peer's side
		 * there is nothing it can do (a program waiting for the peer's
		 * consumer event while that peer hangs must hear of it). */
		if (p->st == NULL || sd_fp_conn_closed(p->st) || sd_fp_conn_has_remote(p->st))
			return false;
		snprintf(buf, cap, "producer %u on conn %u: the peer has no consumer on this connection (has it "
			 "started one, and is it still running?)", p->id, sd_comch_conn_id(p->conn));
		return true;
	}
	ms = (sd_now_ns() - p->refused_since_ns) / 1000000;
	if (p->refused_why == DOCA_ERROR_NOT_FOUND)
		snprintf(buf, cap, "producer %u on conn %u: %llu send%s to consumer %u refused for %llu ms: no such "
			 "consumer on the connection (has the peer started it?)", p->id, sd_comch_conn_id(p->conn),
			 (unsigned long long)p->refused, p->refused == 1 ? "" : "s", p->refused_consumer,
			 (unsigned long long)ms);
	else
		snprintf(buf, cap, "producer %u on conn %u has %llu send%s waiting %llu ms for the peer's consumer %u "
			 "to post receives (is it posting post_recv tasks and progressing?)", p->id,
			 sd_comch_conn_id(p->conn), (unsigned long long)p->refused, p->refused == 1 ? "" : "s",
			 (unsigned long long)ms, p->refused_consumer);
	return true;
}

static const struct sd_ctx_ops producer_ops = {
	.start = producer_start,
	.stop = producer_stop,
	.progress = producer_progress,
	.has_work = producer_has_work,
	.describe_wait = producer_describe_wait,
};

static doca_error_t note_refused(struct doca_comch_producer *p, uint32_t consumer_id, doca_error_t why)
{
	if (p->refused == 0 || p->refused_consumer != consumer_id || p->refused_why != why) {
		p->refused = 0;
		p->refused_since_ns = sd_now_ns();
		p->refused_consumer = consumer_id;
		p->refused_why = why;
	}
	p->refused++;
	/* The idle count goes on across retries: a program retrying in a loop
	 * still gets to sleep. */
	if (why == DOCA_ERROR_AGAIN && p->wait != TX_WAIT_ARMED)
		p->wait = TX_WAIT_SPIN;
	SD_LOG_TRC("producer %u: send to consumer %u refused: %s", p->id, consumer_id, doca_error_get_name(why));
	return why;
}

static struct sd_fp_remote *resolve(struct doca_comch_producer *p, uint32_t id)
{
	struct sd_fp_remote *r = p->cached;

	if (r != NULL && r->id == id && !sd_fp_remote_dead(r))
		return r;
	drop_cache(p);
	p->cached = sd_fp_remote_get(p->st, id);
	return p->cached;
}

/* SOFTDOCA_FAULTS=producer for a send that would go now: PASS, or the
 * fault took it (p->fault_status: what its task completes with; a cut
 * fails the context from progress). */
static enum sd_fault_action fault_decide(struct doca_comch_producer *p, uint32_t total)
{
	doca_error_t ferr = DOCA_SUCCESS;
	enum sd_fault_action act = sd_fault_producer_send(total, &ferr);

	if (act == SD_FAULT_PASS)
		return act;
	p->refused = 0;
	if (p->wait != TX_WAIT_NONE)
		wait_reset(p);
	if (act == SD_FAULT_CUT) {
		p->cut = true;
		sd_pe_wake(p->ctx.pe); /* progress fails the context */
		ferr = DOCA_ERROR_CONNECTION_RESET;
	}
	p->fault_status = act == SD_FAULT_DROP ? DOCA_SUCCESS : ferr;
	return act;
}

/* Across a network: take the consumer's head credit (the same refusals as
 * the ring's), then hand the message to the connection. Complete at
 * submit, as locally. */
static doca_error_t net_send(struct doca_comch_producer *p, struct doca_comch_producer_task_send *t,
			     struct sd_fp_remote *r, size_t total)
{
	doca_error_t e;

	if (p->net_lost)
		return DOCA_ERROR_NOT_CONNECTED;
	/* SOFTDOCA_FAULTS, as locally: for a send that would go now, and one
	 * it takes leaves the credit for the next. */
	if (sd_fault_active(SD_FAULT_PRODUCER) &&
	    sd_fp_net_check_credit(r, (uint32_t)total, t->imm_len) == DOCA_SUCCESS &&
	    fault_decide(p, (uint32_t)total) != SD_FAULT_PASS) {
		sd_task_complete(&t->base, p->fault_status);
		return DOCA_SUCCESS;
	}
	e = sd_fp_net_take_credit(r, (uint32_t)total, t->imm_len);
	if (e != DOCA_SUCCESS) {
		if (e == DOCA_ERROR_NOT_FOUND)
			drop_cache(p);
		if (e == DOCA_ERROR_UNEXPECTED)
			SD_LOG_ERR("producer %u: consumer %u broke the credit protocol", p->id, t->consumer_id);
		if (e == DOCA_ERROR_AGAIN || e == DOCA_ERROR_NOT_FOUND)
			return note_refused(p, t->consumer_id, e);
		SD_LOG_DBG("producer %u: send of %zu bytes to consumer %u failed: %s", p->id, total, t->consumer_id,
			   doca_error_get_name(e));
		return e;
	}
	e = sd_fp_net_send(p->st, t->consumer_id, p->id, t->imm, t->imm_len, t->buf);
	if (e != DOCA_SUCCESS) {
		/* The credit is spent and part of the message may be out:
		 * nothing can follow it on this consumer. */
		SD_LOG_ERR("producer %u: send of %zu bytes to consumer %u across the network failed: %s", p->id, total,
			   t->consumer_id, doca_error_get_name(e));
		p->net_lost = true;
		sd_pe_wake(p->ctx.pe); /* progress fails the context */
		return e == DOCA_ERROR_AGAIN ? DOCA_ERROR_CONNECTION_RESET : e;
	}
	p->sends++;
	p->refused = 0;
	if (p->wait != TX_WAIT_NONE)
		wait_reset(p);
	SD_LOG_TRC("producer %u: conn %u: sent %zu bytes (imm %u) to consumer %u over the network", p->id,
		   sd_comch_conn_id(p->conn), total, t->imm_len, t->consumer_id);
	if (p->traced)
		sd_trace_instant("comch", "producer_send", "\"producer\":%u,\"consumer\":%u,\"bytes\":%zu", p->id,
				 t->consumer_id, total);
	sd_task_complete_inline(&t->base, DOCA_SUCCESS);
	return DOCA_SUCCESS;
}

static doca_error_t send_submit(struct doca_task *task)
{
	struct doca_comch_producer_task_send *t = (struct doca_comch_producer_task_send *)task;
	struct doca_comch_producer *p = to_producer(task->cls->ctx);
	const struct doca_buf *seg;
	struct sd_fp_remote *r;
	uint8_t *dst, *imm;
	bool direct;
	size_t total;
	doca_error_t e;

	if (sd_fp_conn_closed(p->st) || p->cut)
		return DOCA_ERROR_NOT_CONNECTED;
	if (t->buf == NULL || t->buf->list_len > SD_FP_PRODUCER_MAX_LIST)
		return DOCA_ERROR_INVALID_VALUE;
	total = t->buf->next == NULL ? t->buf->data_len : sd_buf_chain_data_len(t->buf);
	if (total > p->max_buf_size)
		return DOCA_ERROR_INVALID_VALUE;
	r = resolve(p, t->consumer_id);
	if (r == NULL)
		return note_refused(p, t->consumer_id, DOCA_ERROR_NOT_FOUND);
	if (p->net)
		return net_send(p, t, r, total);

	sd_fp_remote_lock(r);
	if (p->cpu_left == 0) {
		p->cpu_left = SD_FP_CPU_EVERY;
		p->here = sd_fp_tx_peer_here(&r->tx, sd_fp_cpu1());
	}
	p->cpu_left--;
	r->tx.defer_wake = p->here;
	/* Straight into the consumer's buffer when it shared its memory with
	 * us (one copy), else into the ring. */
	e = sd_fp_tx_reserve_direct(&r->tx, (uint32_t)total, t->imm_len, p->id, &dst, &imm, &direct);
	if (e != DOCA_SUCCESS) {
		/* We stop sending here (for a while): the consumer gets the
		 * wake-up it may be owed. */
		sd_fp_tx_flush_wake(&r->tx);
		sd_fp_remote_unlock(r);
		p->cpu_left = 0;
		if (e == DOCA_ERROR_NOT_FOUND)
			drop_cache(p); /* it stopped; look it up afresh next time */
		if (e == DOCA_ERROR_UNEXPECTED)
			SD_LOG_ERR("producer %u: consumer %u shared ring is corrupt", p->id, t->consumer_id);
		if (e == DOCA_ERROR_AGAIN || e == DOCA_ERROR_NOT_FOUND)
			return note_refused(p, t->consumer_id, e);
		SD_LOG_DBG("producer %u: send of %zu bytes to consumer %u failed: %s", p->id, total, t->consumer_id,
			   doca_error_get_name(e));
		return e;
	}
	/* SOFTDOCA_FAULTS: decided for a send that would go now (a refused one
	 * is retried, not counted). An uncommitted reservation publishes
	 * nothing: the next one writes over it. */
	if (sd_fault_active(SD_FAULT_PRODUCER) && fault_decide(p, (uint32_t)total) != SD_FAULT_PASS) {
		sd_fp_remote_unlock(r);
		sd_task_complete(task, p->fault_status);
		return DOCA_SUCCESS;
	}
	if (t->imm_len)
		memcpy(imm, t->imm, t->imm_len);
	for (seg = t->buf; seg != NULL; seg = seg->next) {
		memcpy(dst, seg->data, seg->data_len);
		dst += seg->data_len;
	}
	if (!direct && !p->told_ring && total >= SD_FP_DIRECT_MIN) {
		p->told_ring = true;
		SD_LOG_DBG("producer %u: consumer %u: message of %zu bytes copied through the ring (its buffer is not "
			   "shared with this process)", p->id, t->consumer_id, total);
	}
	sd_fp_tx_commit(&r->tx);
	sd_fp_remote_unlock(r);
	p->sends++;
	p->refused = 0;
	if (p->wait != TX_WAIT_NONE)
		wait_reset(p);
	SD_LOG_TRC("producer %u: conn %u: sent %zu bytes (imm %u) to consumer %u", p->id, sd_comch_conn_id(p->conn),
		   total, t->imm_len, t->consumer_id);
	if (p->traced)
		sd_trace_instant("comch", "producer_send", "\"producer\":%u,\"consumer\":%u,\"bytes\":%zu", p->id,
				 t->consumer_id, total);
	sd_task_complete_inline(task, DOCA_SUCCESS);
	return DOCA_SUCCESS;
}

static void send_deliver(struct doca_task *task)
{
	struct doca_comch_producer *p = to_producer(task->cls->ctx);
	doca_comch_producer_task_send_completion_cb_t cb = task->status == DOCA_SUCCESS ? p->ok_cb : p->err_cb;

	cb((struct doca_comch_producer_task_send *)task, task->user_data, p->ctx.user_data);
}

static const struct sd_task_class_ops send_ops = {
	.submit = send_submit,
	.deliver = send_deliver,
};

doca_error_t doca_comch_producer_create(struct doca_comch_connection *comch_connection,
					struct doca_comch_producer **producer)
{
	struct doca_comch_producer *p;
	struct sd_fp_ep ep;
	doca_error_t r;

	if (comch_connection == NULL || producer == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	/* A malformed SOFTDOCA_FAULTS refuses to run unfaulted. */
	if (sd_fault_setup() != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE;
	r = sd_fp_ep_create(comch_connection, SD_FP_ROLE_PRODUCER, sizeof(*p), &producer_ops, "comch_producer", &ep);
	if (r != DOCA_SUCCESS) {
		if (ep.not_connected)
			SD_LOG_ERR("producer: connection is not established");
		return r;
	}
	p = to_producer(ep.ctx);
	sd_task_class_init(&p->send_cls, &p->ctx, &send_ops, "comch_producer_send",
			   sizeof(struct doca_comch_producer_task_send));
	p->st = ep.st;
	p->conn = comch_connection;
	p->id = sd_comch_conn_alloc_consumer_id(comch_connection);
	p->max_buf_size = ep.caps->producer_max_buf_size;
	p->max_tasks = ep.caps->producer_max_tasks;
	p->net = p->st->net;
	*producer = p;
	return DOCA_SUCCESS;
}

static void producer_release(struct doca_ctx *ctx)
{
	drop_cache(to_producer(ctx));
}

doca_error_t doca_comch_producer_destroy(struct doca_comch_producer *producer)
{
	if (producer == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return sd_fp_ep_destroy(&producer->ctx, SD_FP_ROLE_PRODUCER, producer->st, producer->conn, producer_release);
}

static const struct sd_caps *devinfo_caps(const struct doca_devinfo *devinfo)
{
	return devinfo == NULL ? NULL : sd_devinfo_caps(devinfo);
}

doca_error_t doca_comch_producer_cap_is_supported(const struct doca_devinfo *devinfo)
{
	const struct sd_caps *c = devinfo_caps(devinfo);

	if (c == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return c->producer_max_buf_size ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_comch_producer_get_id(const struct doca_comch_producer *producer, uint32_t *id)
{
	if (producer == NULL || id == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*id = producer->id;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_producer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo, uint32_t *max_num_tasks)
{
	const struct sd_caps *c = devinfo_caps(devinfo);

	if (c == NULL || max_num_tasks == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*max_num_tasks = c->producer_max_tasks;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_producer_cap_get_max_buf_size(const struct doca_devinfo *devinfo, uint32_t *max_buf_size)
{
	const struct sd_caps *c = devinfo_caps(devinfo);

	if (c == NULL || max_buf_size == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (c->producer_max_buf_size == 0)
		return DOCA_ERROR_NOT_SUPPORTED;
	*max_buf_size = c->producer_max_buf_size;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_producer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
							  uint32_t *max_buf_list_len)
{
	const struct sd_caps *c = devinfo_caps(devinfo);

	if (c == NULL || max_buf_list_len == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (c->producer_max_buf_size == 0)
		return DOCA_ERROR_NOT_SUPPORTED;
	*max_buf_list_len = SD_FP_PRODUCER_MAX_LIST;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_producer_cap_get_max_producers(const struct doca_devinfo *devinfo, uint32_t *max_producers)
{
	const struct sd_caps *c = devinfo_caps(devinfo);

	if (c == NULL || max_producers == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*max_producers = c->max_consumers_per_connection;
	return DOCA_SUCCESS;
}

struct doca_ctx *doca_comch_producer_as_ctx(struct doca_comch_producer *producer)
{
	return producer == NULL ? NULL : &producer->ctx;
}

/* The DPA calls below configure a data path that would run on the DPA;
 * none is emulated, so after their checks they all decline. */
doca_error_t doca_comch_producer_set_dev_max_num_send(struct doca_comch_producer *producer, uint32_t dev_num_send)
{
	doca_error_t r;

	if (producer == NULL || dev_num_send == 0)
		return DOCA_ERROR_INVALID_VALUE;
	r = sd_ctx_check_idle(&producer->ctx);
	if (r != DOCA_SUCCESS)
		return r;
	SD_LOG_ERR("producer %u: no DPA is emulated, a DPA send queue cannot be sized", producer->id);
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_comch_producer_dpa_completion_attach(struct doca_comch_producer *producer,
						       struct doca_dpa_completion *dpa_comp)
{
	doca_error_t r;

	if (producer == NULL || dpa_comp == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	r = sd_ctx_check_idle(&producer->ctx);
	if (r != DOCA_SUCCESS)
		return r;
	SD_LOG_ERR("producer %u: no DPA is emulated, no DPA completion can be attached", producer->id);
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_comch_producer_get_dpa_handle(struct doca_comch_producer *producer,
						doca_dpa_dev_comch_producer_t *dpa_producer)
{
	if (producer == NULL || dpa_producer == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	SD_LOG_ERR("producer %u: no DPA is emulated, no DPA handle exists", producer->id);
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_comch_producer_task_send_set_conf(struct doca_comch_producer *producer,
						    doca_comch_producer_task_send_completion_cb_t task_completion_cb,
						    doca_comch_producer_task_send_completion_cb_t task_error_cb,
						    uint32_t num_send_tasks)
{
	doca_error_t r;

	if (producer == NULL || task_completion_cb == NULL || task_error_cb == NULL || num_send_tasks == 0)
		return DOCA_ERROR_INVALID_VALUE;
	r = sd_ctx_check_idle(&producer->ctx);
	if (r != DOCA_SUCCESS)
		return r;
	if (producer->max_tasks && num_send_tasks > producer->max_tasks) {
		SD_LOG_ERR("producer %u: %u send tasks requested, max %u", producer->id, num_send_tasks,
			   producer->max_tasks);
		return DOCA_ERROR_INVALID_VALUE;
	}
	r = sd_task_class_conf(&producer->send_cls, num_send_tasks);
	if (r != DOCA_SUCCESS)
		return r;
	producer->ok_cb = task_completion_cb;
	producer->err_cb = task_error_cb;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_producer_task_send_alloc_init(struct doca_comch_producer *producer,
						      const struct doca_buf *buf, uint8_t *imm_data,
						      uint32_t imm_data_len, uint32_t consumer_id,
						      struct doca_comch_producer_task_send **task)
{
	struct doca_comch_producer_task_send *t;
	struct doca_task *base;
	doca_error_t r;

	if (producer == NULL || buf == NULL || task == NULL || imm_data_len > SD_FP_MAX_IMM ||
	    (imm_data == NULL && imm_data_len != 0))
		return DOCA_ERROR_INVALID_VALUE;
	r = sd_task_alloc_inline(&producer->send_cls, &base);
	if (r != DOCA_SUCCESS)
		return r;
	t = (struct doca_comch_producer_task_send *)base;
	t->buf = buf;
	t->consumer_id = consumer_id;
	t->imm_len = imm_data_len;
	if (imm_data_len)
		memcpy(t->imm, imm_data, imm_data_len);
	*task = t;
	return DOCA_SUCCESS;
}

const struct doca_buf *doca_comch_producer_task_send_get_buf(const struct doca_comch_producer_task_send *task)
{
	return task == NULL ? NULL : task->buf;
}

void doca_comch_producer_task_send_set_buf(struct doca_comch_producer_task_send *task, const struct doca_buf *buf)
{
	if (task != NULL)
		task->buf = buf;
}

uint32_t doca_comch_producer_task_send_get_consumer_id(const struct doca_comch_producer_task_send *task)
{
	return task == NULL ? 0 : task->consumer_id;
}

void doca_comch_producer_task_send_set_consumer_id(struct doca_comch_producer_task_send *task,
						   const uint32_t consumer_id)
{
	if (task != NULL)
		task->consumer_id = consumer_id;
}

uint8_t *doca_comch_producer_task_send_get_imm_data(const struct doca_comch_producer_task_send *task)
{
	if (task == NULL || task->imm_len == 0)
		return NULL;
	return (uint8_t *)task->imm;
}

uint32_t doca_comch_producer_task_send_get_imm_data_len(const struct doca_comch_producer_task_send *task)
{
	return task == NULL ? 0 : task->imm_len;
}

void doca_comch_producer_task_send_set_imm_data(struct doca_comch_producer_task_send *task, uint8_t *imm_data,
						uint32_t imm_data_len)
{
	if (task == NULL || (imm_data == NULL && imm_data_len != 0))
		return;
	if (imm_data_len > SD_FP_MAX_IMM) {
		SD_LOG_ERR("immediate data of %u bytes exceeds the maximum of %u; ignored", imm_data_len,
			   SD_FP_MAX_IMM);
		return;
	}
	if (imm_data_len)
		memcpy(task->imm, imm_data, imm_data_len);
	task->imm_len = imm_data_len;
}

struct doca_task *doca_comch_producer_task_send_as_task(struct doca_comch_producer_task_send *task)
{
	return task == NULL ? NULL : &task->base;
}
