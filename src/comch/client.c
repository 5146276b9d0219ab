/* The Comch client: reaches the server named at create from its own host
 * function, retrying quietly until one listens (as on hardware), with a
 * warning that names what it waits for.
 *
 * Waiting diagnostics. The client warns on its own (SOFTDOCA_COMCH_WAIT_WARN_MS,
 * first after 3 s) while it connects: nobody listens, or a server took the
 * connection but does not answer the handshake (stopped with SIGSTOP, or not
 * progressing its PE). Once connected it warns when its messages wait
 * because the server does not read them. Those cases are the client's own
 * warning only: its describe_wait (the core's stuck-program warning,
 * SOFTDOCA_STALL_WARN_MS) answers false for them, so one wait is reported
 * once. describe_wait reports what only the core can see, that the program
 * waits: a connected client that sent a message and heard nothing back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "comch_priv.h"
#include "sd_env.h"
#include "sd_log.h"
#include "sd_trace.h"

SD_LOG_REGISTER(COMCH_CLIENT);

#define RETRY_NS (100ull * 1000 * 1000)
#define WARN_FIRST_MS SD_COMCH_WAIT_WARN_FIRST_MS
#define WARN_REPEAT_MS 10000u

struct doca_comch_client {
	struct sd_comch_ep ep; /* first */
	struct sd_fabric_addr addr;
	struct doca_comch_connection *conn; /* the one connection (handshaken) */
	struct doca_comch_connection *pending; /* connected, waiting for ACCEPT */
	int timer_fd; /* ticks while STARTING so event-driven waiters retry */
	uint64_t next_try_ns;
	uint64_t next_warn_ns;
	uint64_t warn_repeat_ns;
	uint64_t warn_first_ns;
	uint64_t start_ns;
	uint64_t pending_since_ns; /* HELLO sent, no answer yet */
	uint64_t next_q_warn_ns;   /* connected: next "server does not read" warning */
	uint32_t attempts;
	bool refused;
};

static struct doca_comch_client *to_client(struct doca_ctx *ctx)
{
	return (struct doca_comch_client *)ctx;
}

/* SOFTDOCA_COMCH_WAIT_WARN_MS (sd_comch.h): when shorter than 3 s the
 * repeats use it too, else they stay every 10 s; a value that is no such
 * number fails the start (sd_env.h). */

static void timer_stop(struct doca_comch_client *c)
{
	if (c->timer_fd >= 0) {
		sd_comch_ep_unwatch(&c->ep, c->timer_fd);
		close(c->timer_fd);
		c->timer_fd = -1;
	}
}

static void timer_start(struct doca_comch_client *c)
{
	struct itimerspec its = {.it_interval = {0, 100000000}, .it_value = {0, 100000000}};

	c->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (c->timer_fd < 0)
		return;
	if (timerfd_settime(c->timer_fd, 0, &its, NULL) != 0) {
		close(c->timer_fd);
		c->timer_fd = -1;
		return;
	}
	sd_comch_ep_watch(&c->ep, c->timer_fd);
}

static bool client_ctrl_frame(struct sd_comch_ep *ep, struct doca_comch_connection *conn,
			      const struct sd_frame_view *v)
{
	struct doca_comch_client *c = (struct doca_comch_client *)ep;

	if (conn == c->conn && conn->handshaken && v->type == SD_FRAME_REJECT) {
		/* The server closes this connection and says why (server.c, disconnect). */
		struct sd_frame_reject r;
		doca_error_t why;

		memcpy(&r, v->body, sizeof(r));
		r.reason[sizeof(r.reason) - 1] = '\0';
		why = (doca_error_t)r.error == DOCA_SUCCESS ? DOCA_ERROR_CONNECTION_ABORTED : (doca_error_t)r.error;
		SD_LOG_ERR("Comch server \"%s\" on %s (card %u) closed the connection: %s (%s)", ep->name, c->addr.pci,
			   c->addr.card, r.reason, doca_error_get_name(why));
		sd_comch_conn_fail(conn, why, false);
		return false;
	}
	if (conn != c->pending || conn->handshaken || v->type == SD_FRAME_HELLO) {
		SD_LOG_ERR("Comch client: unexpected %s frame from the server; dropping the connection",
			   sd_frame_type_name(v->type));
		sd_comch_conn_fail(conn, DOCA_ERROR_CONNECTION_RESET, false);
		return false;
	}
	if (v->type == SD_FRAME_REJECT) {
		struct sd_frame_reject r;

		memcpy(&r, v->body, sizeof(r));
		r.reason[sizeof(r.reason) - 1] = '\0';
		SD_LOG_ERR("Comch server \"%s\" on %s (card %u) refused the connection: %s (%s)", ep->name,
			   c->addr.pci, c->addr.card, r.reason, doca_error_get_name((doca_error_t)r.error));
		if (sd_trace_enabled())
			sd_trace_instant("comch", "conn_refused", "\"conn\":%u,\"error\":\"%s\"", conn->id,
					 doca_error_get_name((doca_error_t)r.error));
		c->refused = true;
		sd_comch_conn_fail(conn, DOCA_ERROR_CONNECTION_ABORTED, false);
		return false;
	}
	{
		struct sd_frame_accept a;

		memcpy(&a, v->body, sizeof(a));
		conn->peer_max_msg = a.max_msg_size;
	}
	conn->handshaken = true;
	conn->exposed = true;
	atomic_store(&conn->alive, true);
	c->conn = conn;
	c->pending = NULL;
	timer_stop(c);
	SD_LOG_INFO("Comch client connected to server \"%s\" on %s (card %u)", ep->name, c->addr.pci,
		    c->addr.card);
	SD_LOG_DBG("Comch client: conn %u established with server \"%s\" (pid %d) on %s (card %u) after %u "
		   "attempt%s, max message %u/%u", conn->id, ep->name, (int)conn->link->peer_pid, c->addr.pci,
		   c->addr.card, c->attempts, c->attempts == 1 ? "" : "s", ep->max_msg_size, conn->peer_max_msg);
	if (sd_trace_enabled())
		sd_trace_instant("comch", "conn_established", "\"conn\":%u,\"peer_pid\":%d", conn->id,
				 (int)conn->link->peer_pid);
	sd_ctx_set_running(&ep->ctx);
	return true;
}

static void client_conn_down(struct sd_comch_ep *ep, struct doca_comch_connection *conn, doca_error_t why)
{
	struct doca_comch_client *c = (struct doca_comch_client *)ep;

	SD_LOG_ERR("Comch client: connection to server \"%s\" lost (%s)", ep->name, doca_error_get_name(why));
	SD_LOG_DBG("Comch client: conn %u to server \"%s\" (pid %d) on %s disconnected after %llu ms: %s", conn->id,
		   ep->name, (int)conn->link->peer_pid, c->addr.pci,
		   (unsigned long long)((sd_now_ns() - conn->born_ns) / 1000000), doca_error_get_name(why));
	if (sd_trace_enabled())
		sd_trace_instant("comch", "conn_lost", "\"conn\":%u,\"reason\":\"%s\"", conn->id,
				 doca_error_get_name(why));
	/* A server killed outright leaves its socket file: the client that saw
	 * it die knows the path. */
	if (why == DOCA_ERROR_CONNECTION_RESET)
		(void)sd_fabric_transport()->reclaim(&c->addr, conn->link->peer_pid);
	sd_ctx_fail(&ep->ctx);
}

static const struct sd_comch_ep_ops client_eops = {
	.ctrl_frame = client_ctrl_frame,
	.conn_down = client_conn_down,
};

static doca_error_t client_start(struct doca_ctx *ctx)
{
	struct doca_comch_client *c = to_client(ctx);
	uint64_t now = sd_now_ns();
	uint64_t warn;

	if (sd_env_u64(SD_COMCH_WAIT_WARN_ENV, WARN_FIRST_MS, 1, SD_COMCH_WAIT_WARN_MAX_MS, &warn) != DOCA_SUCCESS) {
		SD_LOG_ERR("Comch client for server \"%s\" not started: SOFTDOCA_COMCH_WAIT_WARN_MS is invalid",
			   c->ep.name);
		return DOCA_ERROR_INVALID_VALUE;
	}
	c->conn = NULL;
	c->pending = NULL;
	c->refused = false;
	c->attempts = 0;
	c->start_ns = now;
	c->next_try_ns = now;
	c->warn_first_ns = warn * 1000000ull;
	c->next_warn_ns = now + c->warn_first_ns;
	c->warn_repeat_ns = (warn < WARN_FIRST_MS ? warn : WARN_REPEAT_MS) * 1000000ull;
	SD_LOG_DBG("Comch client: connecting from %s (card %u) to server \"%s\"", c->addr.pci, c->addr.card,
		   c->ep.name);
	if (sd_trace_enabled())
		sd_trace_instant("comch", "client_connecting", NULL);
	timer_start(c);
	return DOCA_ERROR_IN_PROGRESS;
}

static void client_stop(struct doca_ctx *ctx)
{
	struct doca_comch_client *c = to_client(ctx);

	SD_LOG_DBG("Comch client for server \"%s\" on %s: stopping (%s)", c->ep.name, c->addr.pci,
		   c->conn != NULL ? "connected" : "not connected");
	if (sd_trace_enabled())
		sd_trace_instant("comch", "client_stop", NULL);
	timer_stop(c);
	c->conn = NULL;
	c->pending = NULL;
	sd_comch_ep_stop(&c->ep);
}

static int try_connect(struct doca_comch_client *c, uint64_t now)
{
	struct sd_comch_ep *ep = &c->ep;
	struct doca_comch_connection *conn;
	struct sd_frame_hello h;
	struct sd_link *l;
	doca_error_t err;

	c->next_try_ns = now + RETRY_NS;
	c->attempts++;
	err = sd_fabric_transport()->connect(&c->addr, &l);
	SD_LOG_TRC("Comch client: attempt %u to reach server \"%s\" on %s (card %u): %s", c->attempts, ep->name,
		   c->addr.pci, c->addr.card, doca_error_get_name(err));
	if (err != DOCA_SUCCESS && err != DOCA_ERROR_NOT_FOUND && err != DOCA_ERROR_AGAIN) {
		/* Not a server that is late: a fabric we may not use. Retrying cannot help. */
		SD_LOG_ERR("Comch client cannot reach server \"%s\" on %s (card %u): %s", ep->name, c->addr.pci,
			   c->addr.card, doca_error_get_name(err));
		sd_ctx_fail(&ep->ctx);
		return 1;
	}
	if (err != DOCA_SUCCESS) {
		if (now >= c->next_warn_ns) {
			c->next_warn_ns = now + c->warn_repeat_ns;
			if (err == DOCA_ERROR_NOT_FOUND)
				SD_LOG_WARN("Waiting for Comch server \"%s\" on %s (card %u): no server is listening. "
					    "The server must run on the BlueField Arm side and be started before the "
					    "host client", ep->name, c->addr.pci, c->addr.card);
			else /* AGAIN: reached, or being reached, but no answer yet */
				SD_LOG_WARN("Waiting for Comch server \"%s\" on %s (card %u): its side does not answer "
					    "the connection (is its process stopped or overloaded, or the link down?)",
					    ep->name, c->addr.pci, c->addr.card);
		}
		return 0;
	}
	conn = sd_comch_conn_new(ep, l);
	if (conn == NULL) {
		sd_link_destroy(l);
		return 0;
	}
	memset(&h, 0, sizeof(h));
	h.card = c->addr.card;
	h.max_msg_size = ep->max_msg_size;
	h.pid = (uint32_t)getpid();
	strcpy(h.pci_addr, c->addr.pci);
	strcpy(h.name, c->addr.name);
	if (sd_link_send(l, SD_FRAME_HELLO, &h, sizeof(h), -1) != DOCA_SUCCESS) {
		sd_comch_conn_free(conn);
		return 0;
	}
	SD_LOG_DBG("Comch client: conn %u: reached server \"%s\" (pid %d) on %s, handshake sent", conn->id, ep->name,
		   (int)l->peer_pid, c->addr.pci);
	c->pending = conn;
	c->pending_since_ns = now;
	/* The not-answering warning counts from here, on the same schedule. */
	c->next_warn_ns = now + c->warn_first_ns;
	return 1;
}

/* A server that took our connection (the kernel queues it for the listener)
 * but does not answer HELLO is alive but not progressing: stopped with
 * SIGSTOP, blocked, or stuck in a loop that never calls doca_pe_progress. */
static void warn_pending(struct doca_comch_client *c, uint64_t now)
{
	struct doca_comch_connection *p = c->pending;

	if (now < c->next_warn_ns)
		return;
	c->next_warn_ns = now + c->warn_repeat_ns;
	SD_LOG_WARN("Comch server \"%s\" on %s (card %u, pid %d) is not responding: it has not answered the "
		    "connection handshake for %llu ms (is the server process stopped, or not calling "
		    "doca_pe_progress?)", c->ep.name, c->addr.pci, c->addr.card, (int)p->link->peer_pid,
		    (unsigned long long)((now - c->pending_since_ns) / 1000000));
}

/* Connected: our messages queue only while the server does not read. */
static void warn_queue(struct doca_comch_client *c, uint64_t now)
{
	uint64_t oldest_ms;
	uint32_t q = sd_comch_conn_queued(c->conn, now, &oldest_ms);

	if (q == 0) {
		c->next_q_warn_ns = 0;
		return;
	}
	if (oldest_ms * 1000000ull < c->warn_first_ns || now < c->next_q_warn_ns)
		return;
	c->next_q_warn_ns = now + c->warn_repeat_ns;
	SD_LOG_WARN("Comch server \"%s\" on %s (pid %d) is not responding: %u message%s waiting %llu ms because it "
		    "does not read (is the server process stopped, or not calling doca_pe_progress?)", c->ep.name,
		    c->addr.pci, (int)c->conn->link->peer_pid, q, q == 1 ? "" : "s", (unsigned long long)oldest_ms);
}

static int client_progress(struct doca_ctx *ctx)
{
	struct doca_comch_client *c = to_client(ctx);
	struct sd_comch_ep *ep = &c->ep;
	uint64_t now = sd_now_ns();
	int n = 0;

	sd_comch_ep_progress_enter(ep);
	if (c->timer_fd >= 0) {
		uint64_t ticks;

		(void)!read(c->timer_fd, &ticks, sizeof(ticks));
	}
	if (ctx->state == DOCA_CTX_STATE_STARTING) {
		if (c->pending != NULL) {
			struct doca_comch_connection *p = c->pending;

			n += sd_comch_conn_progress(p);
			if (p->dead && !p->handshaken) {
				/* Server vanished mid-handshake: back to waiting; refused: give up. */
				c->pending = NULL;
				sd_comch_conn_free(p);
				if (c->refused)
					sd_ctx_fail(ctx);
				else
					c->next_warn_ns = now + c->warn_first_ns;
			} else if (c->pending == p) {
				warn_pending(c, now);
			}
		} else if (now >= c->next_try_ns) {
			n += try_connect(c, now);
		}
	} else if (c->conn != NULL && !c->conn->dead) {
		n += sd_comch_conn_progress(c->conn);
	}
	n += sd_comch_ep_flush_queue(ep);
	if (ctx->state == DOCA_CTX_STATE_RUNNING && c->conn != NULL && !c->conn->dead)
		warn_queue(c, now);
	sd_comch_ep_progress_leave(ep);
	return n;
}

/* See the top of this file for what is left to the client's own warnings. */
static bool client_describe_wait(const struct doca_ctx *ctx, uint64_t waited_ms, char *buf, size_t cap)
{
	const struct doca_comch_client *c = (const struct doca_comch_client *)ctx;
	const struct doca_comch_connection *conn = c->conn;
	uint64_t now = sd_now_ns(), oldest;

	if (ctx->state != DOCA_CTX_STATE_RUNNING || conn == NULL || conn->dead)
		return false; /* connecting: the client's own warning says it */
	if (sd_comch_conn_queued(conn, now, &oldest) != 0)
		return false; /* the server does not read: warn_queue says it */
	if (conn->last_tx_ns != 0 && conn->last_tx_ns > conn->last_rx_ns) {
		snprintf(buf, cap, "client connected to server '%s' on %s (pid %d): no reply for %llu ms since its "
			 "last message (%llu ms without any completion): is the server responding?", c->ep.name,
			 c->addr.pci, (int)conn->link->peer_pid,
			 (unsigned long long)((now - conn->last_tx_ns) / 1000000), (unsigned long long)waited_ms);
		return true;
	}
	return false;
}

static const struct sd_ctx_ops client_ctx_ops = {
	.start = client_start,
	.stop = client_stop,
	.progress = client_progress,
	.describe_wait = client_describe_wait,
};

doca_error_t doca_comch_client_create(struct doca_dev *dev, const char *name, struct doca_comch_client **comch_client)
{
	const struct sd_caps *caps;
	struct doca_comch_client *c;
	const char *pci;
	doca_error_t err;

	if (dev == NULL || name == NULL || comch_client == NULL) {
		SD_LOG_ERR("Failed to create Comch client: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	caps = sd_dev_caps(dev);
	if (caps == NULL || !caps->comch_client_supported) {
		SD_LOG_ERR("Failed to create Comch client: device %s cannot run a Comch client (the client runs on "
			   "the host)", sd_dev_pci_addr(dev));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	err = sd_comch_ep_check_name(dev, name);
	if (err != DOCA_SUCCESS)
		return err;
	pci = sd_dev_pci_addr(dev);
	if (pci == NULL || strlen(pci) >= SD_FABRIC_PCI_MAX)
		return DOCA_ERROR_INVALID_VALUE;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return DOCA_ERROR_NO_MEMORY;
	err = sd_comch_ep_init(&c->ep, false, dev, name, &client_ctx_ops, &client_eops);
	if (err != DOCA_SUCCESS) {
		free(c);
		return err;
	}
	c->timer_fd = -1;
	c->addr.card = sd_dev_card(dev);
	strcpy(c->addr.pci, pci);
	strcpy(c->addr.name, name);
	*comch_client = c;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_client_destroy(struct doca_comch_client *comch_client)
{
	doca_error_t err;

	if (comch_client == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	err = sd_comch_ep_fini(&comch_client->ep);
	if (err != DOCA_SUCCESS)
		return err;
	timer_stop(comch_client);
	free(comch_client);
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_client_set_max_msg_size(struct doca_comch_client *comch_client, uint32_t size)
{
	return comch_client == NULL ? DOCA_ERROR_INVALID_VALUE : sd_comch_ep_set_max_msg_size(&comch_client->ep, size);
}

doca_error_t doca_comch_client_get_max_msg_size(const struct doca_comch_client *comch_client, uint32_t *size)
{
	return sd_comch_ep_get_max_msg_size(comch_client == NULL ? NULL : &comch_client->ep, size);
}

doca_error_t doca_comch_client_set_recv_queue_size(struct doca_comch_client *comch_client, uint32_t size)
{
	return comch_client == NULL ? DOCA_ERROR_INVALID_VALUE :
				      sd_comch_ep_set_recv_queue_size(&comch_client->ep, size);
}

doca_error_t doca_comch_client_get_recv_queue_size(const struct doca_comch_client *comch_client, uint32_t *size)
{
	return sd_comch_ep_get_recv_queue_size(comch_client == NULL ? NULL : &comch_client->ep, size);
}

doca_error_t doca_comch_client_get_device(const struct doca_comch_client *comch_client, struct doca_dev **dev)
{
	return sd_comch_ep_get_device(comch_client == NULL ? NULL : &comch_client->ep, dev);
}

struct doca_ctx *doca_comch_client_as_ctx(struct doca_comch_client *comch_client)
{
	return comch_client == NULL ? NULL : &comch_client->ep.ctx;
}

doca_error_t doca_comch_client_get_connection(const struct doca_comch_client *comch_client,
					      struct doca_comch_connection **connection)
{
	if (comch_client == NULL || connection == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (comch_client->ep.ctx.state != DOCA_CTX_STATE_RUNNING || comch_client->conn == NULL) {
		SD_LOG_ERR("Comch client: no connection yet (the context is not running)");
		return DOCA_ERROR_BAD_STATE;
	}
	*connection = comch_client->conn;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_client_task_send_set_conf(struct doca_comch_client *comch_client,
						  doca_comch_task_send_completion_cb_t task_completion_cb,
						  doca_comch_task_send_completion_cb_t task_error_cb,
						  uint32_t num_send_tasks)
{
	return comch_client == NULL ? DOCA_ERROR_INVALID_VALUE :
				      sd_comch_ep_task_send_set_conf(&comch_client->ep, task_completion_cb,
								     task_error_cb, num_send_tasks);
}

doca_error_t doca_comch_client_task_send_alloc_init(struct doca_comch_client *comch_client,
						    struct doca_comch_connection *peer, const void *msg, uint32_t len,
						    struct doca_comch_task_send **task)
{
	return comch_client == NULL ? DOCA_ERROR_INVALID_VALUE :
				      sd_comch_ep_task_send_alloc_init(&comch_client->ep, peer, msg, len, task);
}

doca_error_t doca_comch_client_event_msg_recv_register(struct doca_comch_client *comch_client,
						       doca_comch_event_msg_recv_cb_t recv_event_cb)
{
	return comch_client == NULL ? DOCA_ERROR_INVALID_VALUE :
				      sd_comch_ep_recv_register(&comch_client->ep, recv_event_cb);
}

doca_error_t doca_comch_client_event_consumer_register(struct doca_comch_client *comch_client,
						       doca_comch_event_consumer_cb_t new_consumer_event_cb,
						       doca_comch_event_consumer_cb_t expired_consumer_event_cb)
{
	return comch_client == NULL ? DOCA_ERROR_INVALID_VALUE :
				      sd_comch_ep_consumer_register(&comch_client->ep, new_consumer_event_cb,
								    expired_consumer_event_cb);
}
