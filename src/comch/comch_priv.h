/*
 * comch_priv.h - objects of the Comch control path (server.c, client.c,
 * connection.c). The fast path sees connections only through sd_comch.h.
 *
 * A server or client is an "endpoint" (struct sd_comch_ep, doca_ctx first)
 * owning a list of connections. Connections die (alive = false) but one the
 * user was handed ("exposed") stays allocated, answering NOT_CONNECTED, while
 * another thread may still hold it: a client's until the client is destroyed
 * (its context fails to IDLE on its own when the peer dies, so its stop is no
 * safe point); a server's until the server stops, unless producers/consumers
 * still pin it (sd_comch_conn_ref), then until destroy. Destroy answers
 * IN_USE while any connection is pinned. Never-exposed connections (failed
 * handshakes) are freed at once.
 */
#ifndef SD_COMCH_PRIV_H_
#define SD_COMCH_PRIV_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_pe.h>

#include "sd_comch.h"
#include "sd_ctx.h"
#include "sd_dev.h"
#include "sd_fabric.h"

/* No device capability gives it; a generous fixed bound. */
#define SD_COMCH_MAX_SEND_TASKS 8192u

struct sd_comch_ep;

struct doca_comch_event_msg_recv {
	struct sd_comch_ep *ep;
};
struct doca_comch_event_connection_status_changed {
	struct sd_comch_ep *ep;
};
struct doca_comch_event_consumer {
	struct sd_comch_ep *ep;
};

enum sd_comch_cnt { SD_CNT_SENT_MSGS, SD_CNT_SENT_BYTES, SD_CNT_RECV_MSGS, SD_CNT_RECV_BYTES, SD_CNT_NUM };

struct doca_comch_connection {
	struct sd_comch_ep *ep;
	struct sd_link *link;
	atomic_bool alive;        /* handshake done and not failed */
	bool handshaken;
	bool dead;                /* failed (alive is false for good) */
	bool down_event_pending;  /* server: disconnect event to deliver */
	bool watched;
	bool exposed;             /* handed to the user (handshake done once) */
	uint32_t id;              /* per process, from 1: names the connection in logs and traces */
	atomic_uint users;        /* producers/consumers pinning it */
	pthread_mutex_t fp_lock;  /* fp_handler/fp_arg/fp_closed vs other threads */
	bool fp_closed;           /* CLOSED delivered: no handler may attach */
	uint64_t born_ns;
	uint64_t last_tx_ns;      /* last control message the link took (0: none yet) */
	uint64_t last_rx_ns;      /* last frame received from the peer (0: none yet) */
	uint64_t q_since_ns;      /* when the head of the send queue started waiting */
	uint32_t peer_max_msg;
	union doca_data user_data;
	sd_comch_fp_handler_t fp_handler;
	void *fp_arg;
	void *fp_slot;
	atomic_uint next_consumer_id;
	uint64_t cnt[SD_CNT_NUM];
	uint64_t snap[SD_CNT_NUM];
	/* Sends waiting for link room, in submit order. Per connection: a
	 * peer that stops reading holds up only its own messages. */
	struct doca_comch_task_send *q_head, *q_tail;
	struct doca_comch_connection *next;
};

struct doca_comch_task_send {
	struct doca_task base; /* first: the core's view */
	struct doca_comch_connection *conn;
	struct doca_comch_task_send *qnext;
	uint64_t submit_ns;    /* for the trace span and the waiting diagnostics */
	uint32_t len;
	uint8_t msg[];
};

struct sd_comch_ep_ops {
	/* A handshake frame (HELLO/ACCEPT/REJECT) arrived on conn. Returns
	 * false if conn was failed. */
	bool (*ctrl_frame)(struct sd_comch_ep *ep, struct doca_comch_connection *conn,
			   const struct sd_frame_view *v);
	/* conn died (peer death, BYE, bad frame, local disconnect). */
	void (*conn_down)(struct sd_comch_ep *ep, struct doca_comch_connection *conn, doca_error_t why);
};

struct sd_comch_ep {
	struct doca_ctx ctx; /* first */
	const struct sd_comch_ep_ops *eops;
	bool is_server;
	struct doca_dev *dev;
	char name[SD_FABRIC_NAME_MAX];
	uint32_t cap_max_msg;
	uint32_t max_msg_size;
	uint32_t recv_queue_size;
	struct sd_task_class send_cls;
	doca_comch_task_send_completion_cb_t send_ok_cb;
	doca_comch_task_send_completion_cb_t send_err_cb;
	doca_comch_event_msg_recv_cb_t recv_cb;
	doca_comch_event_consumer_cb_t new_consumer_cb;
	doca_comch_event_consumer_cb_t expired_consumer_cb;
	struct doca_comch_connection *conns;
	uint8_t *rxbuf;
	struct doca_pe *pe; /* where our fds are watched */
	int in_progress;
	bool stop_pending;  /* stop hook ran inside our progress */
	bool warned_no_recv;
	struct doca_comch_event_msg_recv ev_recv;
	struct doca_comch_event_connection_status_changed ev_conn;
	struct doca_comch_event_consumer ev_cons;
};

static inline struct sd_comch_ep *sd_comch_ep_of_ctx(struct doca_ctx *ctx)
{
	return (struct sd_comch_ep *)ctx;
}

doca_error_t sd_comch_ep_init(struct sd_comch_ep *ep, bool is_server, struct doca_dev *dev, const char *name,
			      const struct sd_ctx_ops *ops, const struct sd_comch_ep_ops *eops);
/* The destroy of a server/client: BAD_STATE unless IDLE, IN_USE while a
 * connection is pinned (nothing freed), else frees every connection. */
doca_error_t sd_comch_ep_fini(struct sd_comch_ep *ep);
doca_error_t sd_comch_ep_check_name(const struct doca_dev *dev, const char *name);

doca_error_t sd_comch_ep_set_max_msg_size(struct sd_comch_ep *ep, uint32_t size);
doca_error_t sd_comch_ep_set_recv_queue_size(struct sd_comch_ep *ep, uint32_t size);
/* Getters behind the public ones: ep NULL -> INVALID_VALUE. */
doca_error_t sd_comch_ep_get_max_msg_size(const struct sd_comch_ep *ep, uint32_t *size);
doca_error_t sd_comch_ep_get_recv_queue_size(const struct sd_comch_ep *ep, uint32_t *size);
doca_error_t sd_comch_ep_get_device(const struct sd_comch_ep *ep, struct doca_dev **dev);
doca_error_t sd_comch_ep_task_send_set_conf(struct sd_comch_ep *ep, doca_comch_task_send_completion_cb_t ok,
					    doca_comch_task_send_completion_cb_t err, uint32_t num);
doca_error_t sd_comch_ep_task_send_alloc_init(struct sd_comch_ep *ep, struct doca_comch_connection *peer,
					      const void *msg, uint32_t len, struct doca_comch_task_send **task);
doca_error_t sd_comch_ep_recv_register(struct sd_comch_ep *ep, doca_comch_event_msg_recv_cb_t cb);
doca_error_t sd_comch_ep_consumer_register(struct sd_comch_ep *ep, doca_comch_event_consumer_cb_t new_cb,
					   doca_comch_event_consumer_cb_t expired_cb);

/* Start/stop helpers: watch an fd on the ctx's PE. */
void sd_comch_ep_watch(struct sd_comch_ep *ep, int fd);
void sd_comch_ep_unwatch(struct sd_comch_ep *ep, int fd);

struct doca_comch_connection *sd_comch_conn_new(struct sd_comch_ep *ep, struct sd_link *link);
/* Fail a connection: optionally tell the peer (BYE), close the link, fail
 * its queued sends with `why`, tell the fast path. Idempotent. */
void sd_comch_conn_fail(struct doca_comch_connection *conn, doca_error_t why, bool tell_peer);
/* Remove and free one (dead) connection from its endpoint's list. */
void sd_comch_conn_free(struct doca_comch_connection *conn);
/* Free what a stop may free (see the top of this file). */
void sd_comch_ep_reap(struct sd_comch_ep *ep);
/* True while a producer/consumer pins one of ep's connections. */
bool sd_comch_ep_in_use(const struct sd_comch_ep *ep);
/* Receive and dispatch pending frames; returns events handled. */
int sd_comch_conn_progress(struct doca_comch_connection *conn);
/* Retry every connection's queued sends; returns tasks completed. */
int sd_comch_ep_flush_queue(struct sd_comch_ep *ep);

/* Stop hook body shared by server and client: fail every connection,
 * flush every queued send, reap the connections, then stop_done (now, or
 * at the end of progress when called from inside it). */
void sd_comch_ep_stop(struct sd_comch_ep *ep);
/* Bracket a progress hook: defers stop_done while we are inside. */
void sd_comch_ep_progress_enter(struct sd_comch_ep *ep);
void sd_comch_ep_progress_leave(struct sd_comch_ep *ep);

bool sd_comch_conn_belongs(const struct sd_comch_ep *ep, const struct doca_comch_connection *conn);

/* Diagnostics shared by server and client (connection.c). */
/* Sends of conn queued because the peer does not read: count, and how long
 * the oldest has waited (0 if none). */
uint32_t sd_comch_conn_queued(const struct doca_comch_connection *conn, uint64_t now, uint64_t *oldest_ms);
/* "client" or "server" */
static inline const char *sd_comch_ep_role(const struct sd_comch_ep *ep)
{
	return ep->is_server ? "server" : "client";
}

#endif /* SD_COMCH_PRIV_H_ */
