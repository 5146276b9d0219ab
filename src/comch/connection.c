/* Comch connections and what servers and clients share: send tasks, the
 * receive path, the fast-path seam (sd_comch.h), capabilities. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comch_priv.h"
#include "fastpath.h"
#include "sd_fault.h"
#include "sd_log.h"
#include "sd_trace.h"

SD_LOG_REGISTER(COMCH);

/* Connection ids: only for logs and traces, so that the lines of one
 * connection can be told from another's. */
static atomic_uint g_next_conn_id = 1;

/* ---- capabilities ------------------------------------------------------ */

static const struct sd_caps *caps_of(const struct doca_devinfo *devinfo)
{
	return devinfo == NULL ? NULL : sd_devinfo_caps(devinfo);
}

#define CAP_GETTER(fn, field)                                                     \
	doca_error_t fn(const struct doca_devinfo *devinfo, uint32_t *out)        \
	{                                                                         \
		const struct sd_caps *c = caps_of(devinfo);                       \
		if (c == NULL || out == NULL)                                     \
			return DOCA_ERROR_INVALID_VALUE;                          \
		*out = c->field;                                                  \
		return DOCA_SUCCESS;                                              \
	}

CAP_GETTER(doca_comch_cap_get_max_name_len, comch_max_name_len)
CAP_GETTER(doca_comch_cap_get_max_msg_size, comch_max_msg_size)
CAP_GETTER(doca_comch_cap_get_max_recv_queue_size, comch_max_recv_queue_size)
CAP_GETTER(doca_comch_cap_get_max_clients, comch_max_clients)

doca_error_t doca_comch_cap_get_max_send_tasks(const struct doca_devinfo *devinfo, uint32_t *max_send_tasks)
{
	if (caps_of(devinfo) == NULL || max_send_tasks == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*max_send_tasks = SD_COMCH_MAX_SEND_TASKS;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_cap_server_is_supported(const struct doca_devinfo *devinfo)
{
	const struct sd_caps *c = caps_of(devinfo);

	if (c == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return c->comch_server_supported ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_comch_cap_client_is_supported(const struct doca_devinfo *devinfo)
{
	const struct sd_caps *c = caps_of(devinfo);

	if (c == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return c->comch_client_supported ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

/* ---- endpoint ---------------------------------------------------------- */

static doca_error_t send_submit(struct doca_task *task);
static void send_deliver(struct doca_task *task);

static const struct sd_task_class_ops send_cls_ops = {
	.submit = send_submit,
	.deliver = send_deliver,
};

doca_error_t sd_comch_ep_check_name(const struct doca_dev *dev, const char *name)
{
	const struct sd_caps *c = sd_dev_caps(dev);
	size_t len, max;

	if (name == NULL || c == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	max = c->comch_max_name_len < SD_FABRIC_NAME_MAX ? c->comch_max_name_len : SD_FABRIC_NAME_MAX;
	len = strnlen(name, max);
	if (len == 0 || len >= max) {
		SD_LOG_ERR("Comch name \"%.*s\" is %s (at most %zu characters)", (int)(len > 64 ? 64 : len), name,
			   len == 0 ? "empty" : "too long", max - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t sd_comch_ep_init(struct sd_comch_ep *ep, bool is_server, struct doca_dev *dev, const char *name,
			      const struct sd_ctx_ops *ops, const struct sd_comch_ep_ops *eops)
{
	const struct sd_caps *c = sd_dev_caps(dev);

	if (sd_fault_setup() != DOCA_SUCCESS) /* a malformed SOFTDOCA_FAULTS refuses to run unfaulted */
		return DOCA_ERROR_INVALID_VALUE;
	ep->rxbuf = malloc(SD_FRAME_BUF_SIZE);
	if (ep->rxbuf == NULL)
		return DOCA_ERROR_NO_MEMORY;
	sd_ctx_init(&ep->ctx, ops, is_server ? "comch_server" : "comch_client");
	ep->eops = eops;
	ep->is_server = is_server;
	ep->dev = dev;
	strcpy(ep->name, name);
	ep->cap_max_msg = c->comch_max_msg_size < SD_FRAME_MAX_MSG ? c->comch_max_msg_size : SD_FRAME_MAX_MSG;
	ep->max_msg_size = ep->cap_max_msg;
	ep->recv_queue_size = c->comch_max_recv_queue_size;
	ep->ev_recv.ep = ep;
	ep->ev_conn.ep = ep;
	ep->ev_cons.ep = ep;
	sd_task_class_init(&ep->send_cls, &ep->ctx, &send_cls_ops, "comch_send",
			   sizeof(struct doca_comch_task_send) + ep->cap_max_msg);
	sd_dev_get(dev);
	return DOCA_SUCCESS;
}

doca_error_t sd_comch_ep_fini(struct sd_comch_ep *ep)
{
	doca_error_t err = sd_ctx_check_idle(&ep->ctx);

	if (err != DOCA_SUCCESS)
		return err;
	if (sd_comch_ep_in_use(ep)) {
		SD_LOG_ERR("Comch %s \"%s\": cannot destroy while producers or consumers use its connections",
			   ep->is_server ? "server" : "client", ep->name);
		return DOCA_ERROR_IN_USE;
	}
	err = sd_ctx_fini(&ep->ctx);
	if (err != DOCA_SUCCESS)
		return err;
	while (ep->conns != NULL)
		sd_comch_conn_free(ep->conns);
	sd_dev_put(ep->dev);
	free(ep->rxbuf);
	ep->rxbuf = NULL;
	return DOCA_SUCCESS;
}

static doca_error_t set_size(struct sd_comch_ep *ep, const char *what, uint32_t size, uint32_t max, uint32_t *field)
{
	doca_error_t err = sd_ctx_check_idle(&ep->ctx);

	if (err != DOCA_SUCCESS)
		return err;
	if (size == 0 || size > max) {
		SD_LOG_ERR("Comch %s %u is out of range (1..%u)", what, size, max);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*field = size;
	return DOCA_SUCCESS;
}

doca_error_t sd_comch_ep_set_max_msg_size(struct sd_comch_ep *ep, uint32_t size)
{
	return set_size(ep, "max message size", size, ep->cap_max_msg, &ep->max_msg_size);
}

doca_error_t sd_comch_ep_set_recv_queue_size(struct sd_comch_ep *ep, uint32_t size)
{
	return set_size(ep, "recv queue size", size, sd_dev_caps(ep->dev)->comch_max_recv_queue_size,
			&ep->recv_queue_size);
}

doca_error_t sd_comch_ep_get_max_msg_size(const struct sd_comch_ep *ep, uint32_t *size)
{
	if (ep == NULL || size == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*size = ep->max_msg_size;
	return DOCA_SUCCESS;
}

doca_error_t sd_comch_ep_get_recv_queue_size(const struct sd_comch_ep *ep, uint32_t *size)
{
	if (ep == NULL || size == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*size = ep->recv_queue_size;
	return DOCA_SUCCESS;
}

doca_error_t sd_comch_ep_get_device(const struct sd_comch_ep *ep, struct doca_dev **dev)
{
	if (ep == NULL || dev == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*dev = ep->dev;
	return DOCA_SUCCESS;
}

doca_error_t sd_comch_ep_task_send_set_conf(struct sd_comch_ep *ep, doca_comch_task_send_completion_cb_t ok,
					    doca_comch_task_send_completion_cb_t errcb, uint32_t num)
{
	doca_error_t err = sd_ctx_check_idle(&ep->ctx);

	if (err != DOCA_SUCCESS)
		return err;
	if (ok == NULL || errcb == NULL || num == 0 || num > SD_COMCH_MAX_SEND_TASKS) {
		SD_LOG_ERR("Comch send task configuration refused: %s",
			   num == 0 || num > SD_COMCH_MAX_SEND_TASKS ? "bad number of tasks" : "NULL callback");
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = sd_task_class_conf(&ep->send_cls, num);
	if (err != DOCA_SUCCESS)
		return err;
	ep->send_ok_cb = ok;
	ep->send_err_cb = errcb;
	return DOCA_SUCCESS;
}

doca_error_t sd_comch_ep_recv_register(struct sd_comch_ep *ep, doca_comch_event_msg_recv_cb_t cb)
{
	doca_error_t err = sd_ctx_check_idle(&ep->ctx);

	if (err != DOCA_SUCCESS)
		return err;
	if (cb == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	ep->recv_cb = cb;
	return DOCA_SUCCESS;
}

doca_error_t sd_comch_ep_consumer_register(struct sd_comch_ep *ep, doca_comch_event_consumer_cb_t new_cb,
					   doca_comch_event_consumer_cb_t expired_cb)
{
	doca_error_t err = sd_ctx_check_idle(&ep->ctx);

	if (err != DOCA_SUCCESS)
		return err;
	if (new_cb == NULL || expired_cb == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	ep->new_consumer_cb = new_cb;
	ep->expired_consumer_cb = expired_cb;
	return DOCA_SUCCESS;
}

void sd_comch_ep_watch(struct sd_comch_ep *ep, int fd)
{
	if (fd < 0 || ep->ctx.pe == NULL)
		return;
	ep->pe = ep->ctx.pe;
	if (sd_pe_watch_fd(ep->pe, fd) != DOCA_SUCCESS)
		SD_LOG_WARN("cannot watch fd %d on the progress engine: event-driven waiting may miss it", fd);
}

void sd_comch_ep_unwatch(struct sd_comch_ep *ep, int fd)
{
	if (fd >= 0 && ep->pe != NULL)
		sd_pe_unwatch_fd(ep->pe, fd);
}

bool sd_comch_conn_belongs(const struct sd_comch_ep *ep, const struct doca_comch_connection *conn)
{
	const struct doca_comch_connection *c;

	for (c = ep->conns; c != NULL; c = c->next)
		if (c == conn)
			return true;
	return false;
}

/* ---- send tasks --------------------------------------------------------- */

doca_error_t sd_comch_ep_task_send_alloc_init(struct sd_comch_ep *ep, struct doca_comch_connection *peer,
					      const void *msg, uint32_t len, struct doca_comch_task_send **task)
{
	struct doca_task *t;
	doca_error_t err;
	uint32_t limit;

	if (peer == NULL || msg == NULL || task == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (peer->ep != ep) {
		SD_LOG_ERR("Comch send: the connection belongs to another %s", ep->is_server ? "server" : "client");
		return DOCA_ERROR_INVALID_VALUE;
	}
	limit = ep->max_msg_size;
	if (peer->peer_max_msg != 0 && peer->peer_max_msg < limit)
		limit = peer->peer_max_msg;
	if (len == 0 || len > limit) {
		SD_LOG_ERR("Comch send: message of %u bytes is %s (max message size %u)", len,
			   len == 0 ? "empty" : "too large", limit);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = sd_task_alloc(&ep->send_cls, &t);
	if (err != DOCA_SUCCESS)
		return err;
	*task = (struct doca_comch_task_send *)t;
	(*task)->conn = peer;
	(*task)->qnext = NULL;
	(*task)->len = len;
	memcpy((*task)->msg, msg, len);
	return DOCA_SUCCESS;
}

struct doca_task *doca_comch_task_send_as_task(struct doca_comch_task_send *task)
{
	return task == NULL ? NULL : &task->base;
}

static void enqueue(struct doca_comch_connection *c, struct doca_comch_task_send *t)
{
	t->qnext = NULL;
	if (c->q_tail != NULL)
		c->q_tail->qnext = t;
	else
		c->q_head = t;
	c->q_tail = t;
}

static doca_error_t try_send(struct doca_comch_task_send *t)
{
	struct doca_comch_connection *c = t->conn;
	enum sd_fault_action fault = SD_FAULT_PASS;
	doca_error_t err;

	if (!atomic_load(&c->alive))
		return DOCA_ERROR_NOT_CONNECTED;
	/* SOFTDOCA_FAULTS: a held message waits as on a full link (the PE is
	 * woken so a sleeping program retries); a cut fails like a send to a
	 * dead peer, and the callers close the link the same way. */
	if (sd_fault_active(SD_FAULT_COMCH))
		fault = sd_fault_comch_send(t, sd_now_ns());
	if (fault == SD_FAULT_HOLD) {
		sd_pe_wake(sd_comch_conn_pe(c));
		return DOCA_ERROR_AGAIN;
	}
	if (fault == SD_FAULT_CUT)
		return DOCA_ERROR_CONNECTION_RESET;
	err = fault == SD_FAULT_DROP ? DOCA_SUCCESS : sd_link_send(c->link, SD_FRAME_MSG, t->msg, t->len, -1);
	if (err == DOCA_SUCCESS) {
		c->cnt[SD_CNT_SENT_MSGS]++;
		c->cnt[SD_CNT_SENT_BYTES] += t->len;
		c->last_tx_ns = sd_now_ns();
	}
	return err;
}

/* Every end of a send task goes through here: the trace span, the TRACE
 * line, and the DEBUG line of a failure are written in one place. */
static void send_done(struct doca_comch_task_send *t, doca_error_t status)
{
	struct sd_comch_ep *ep = sd_comch_ep_of_ctx(t->base.cls->ctx);

	if (status == DOCA_SUCCESS)
		SD_LOG_TRC("Comch %s \"%s\": conn %u: sent %u bytes", sd_comch_ep_role(ep), ep->name, t->conn->id,
			   t->len);
	else
		SD_LOG_DBG("Comch %s \"%s\": conn %u: send of %u bytes failed: %s", sd_comch_ep_role(ep), ep->name,
			   t->conn->id, t->len, doca_error_get_name(status));
	if (sd_trace_enabled())
		sd_trace_async_end("comch", "msg_send", (uint64_t)(uintptr_t)t,
				   "\"conn\":%u,\"bytes\":%u,\"status\":\"%s\"", t->conn->id, t->len,
				   doca_error_get_name(status));
	sd_task_complete(&t->base, status);
}

static void enqueue_waiting(struct doca_comch_connection *c, struct doca_comch_task_send *t)
{
	if (c->q_head == NULL)
		c->q_since_ns = sd_now_ns();
	enqueue(c, t);
}

uint32_t sd_comch_conn_queued(const struct doca_comch_connection *conn, uint64_t now, uint64_t *oldest_ms)
{
	const struct doca_comch_task_send *t;
	uint32_t n = 0;

	for (t = conn->q_head; t != NULL; t = t->qnext)
		n++;
	*oldest_ms = n != 0 && now > conn->q_since_ns ? (now - conn->q_since_ns) / 1000000u : 0;
	return n;
}

static doca_error_t send_submit(struct doca_task *task)
{
	struct doca_comch_task_send *t = (struct doca_comch_task_send *)task;
	struct sd_comch_ep *ep = sd_comch_ep_of_ctx(task->cls->ctx);
	doca_error_t err;

	if (t->conn == NULL || t->conn->ep != ep)
		return DOCA_ERROR_INVALID_VALUE;
	t->submit_ns = sd_now_ns();
	if (sd_fault_active(SD_FAULT_COMCH))
		sd_fault_comch_submit(t, t->len, t->submit_ns);
	if (sd_trace_enabled())
		sd_trace_async_begin("comch", "msg_send", (uint64_t)(uintptr_t)t, "\"conn\":%u,\"bytes\":%u",
				     t->conn->id, t->len);
	if (t->conn->q_head != NULL) { /* keep this connection's message order */
		enqueue_waiting(t->conn, t);
		return DOCA_SUCCESS;
	}
	err = try_send(t);
	if (err == DOCA_ERROR_AGAIN) {
		SD_LOG_TRC("Comch %s \"%s\": conn %u: link full, %u bytes queued", sd_comch_ep_role(ep), ep->name,
			   t->conn->id, t->len);
		enqueue_waiting(t->conn, t);
		return DOCA_SUCCESS;
	}
	send_done(t, err);
	if (err == DOCA_ERROR_CONNECTION_RESET) {
		/* Failing the connection may stop the context: finish that after. */
		sd_comch_ep_progress_enter(ep);
		sd_comch_conn_fail(t->conn, err, false);
		sd_comch_ep_progress_leave(ep);
	}
	return DOCA_SUCCESS;
}

static void send_deliver(struct doca_task *task)
{
	struct doca_comch_task_send *t = (struct doca_comch_task_send *)task;
	struct sd_comch_ep *ep = sd_comch_ep_of_ctx(task->cls->ctx);
	doca_comch_task_send_completion_cb_t cb = task->status == DOCA_SUCCESS ? ep->send_ok_cb : ep->send_err_cb;

	if (cb != NULL)
		cb(t, task->user_data, ep->ctx.user_data);
}

/* Send what the link takes of one connection's queue, in order. */
static int flush_conn(struct doca_comch_connection *c)
{
	int n = 0;

	while (c->q_head != NULL) {
		struct doca_comch_task_send *t = c->q_head;
		doca_error_t err = try_send(t);

		if (err == DOCA_ERROR_AGAIN)
			break;
		c->q_head = t->qnext;
		if (c->q_head == NULL)
			c->q_tail = NULL;
		else
			c->q_since_ns = sd_now_ns();
		send_done(t, err);
		n++;
		if (err == DOCA_ERROR_CONNECTION_RESET)
			sd_comch_conn_fail(c, err, false); /* fails the rest of the queue */
	}
	return n;
}

int sd_comch_ep_flush_queue(struct sd_comch_ep *ep)
{
	struct doca_comch_connection *c;
	int n = 0;

	/* Connections are only freed by reap or by progress outside this call. */
	for (c = ep->conns; c != NULL; c = c->next)
		n += flush_conn(c);
	return n;
}

/* Complete every queued task of one connection with status. */
static void fail_queued(struct doca_comch_connection *c, doca_error_t status)
{
	struct doca_comch_task_send *t;

	while ((t = c->q_head) != NULL) {
		c->q_head = t->qnext;
		send_done(t, status);
	}
	c->q_tail = NULL;
}

/* ---- connections -------------------------------------------------------- */

struct doca_comch_connection *sd_comch_conn_new(struct sd_comch_ep *ep, struct sd_link *link)
{
	struct doca_comch_connection *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->ep = ep;
	c->link = link;
	atomic_init(&c->alive, false);
	atomic_init(&c->users, 0);
	atomic_init(&c->next_consumer_id, 1);
	pthread_mutex_init(&c->fp_lock, NULL);
	c->born_ns = sd_now_ns();
	c->id = atomic_fetch_add(&g_next_conn_id, 1);
	c->next = ep->conns;
	ep->conns = c;
	sd_comch_ep_watch(ep, link->fd);
	c->watched = true;
	return c;
}

void sd_comch_conn_fail(struct doca_comch_connection *conn, doca_error_t why, bool tell_peer)
{
	struct sd_comch_ep *ep = conn->ep;
	bool was_up = conn->handshaken;
	sd_comch_fp_handler_t h;
	void *arg;

	if (conn->dead)
		return;
	conn->dead = true;
	atomic_store(&conn->alive, false);
	SD_LOG_DBG("Comch %s \"%s\": conn %u (peer pid %d) closed: %s%s", sd_comch_ep_role(ep), ep->name, conn->id,
		   (int)conn->link->peer_pid, why == SD_TASK_FLUSHED_STATUS ? "local stop" : doca_error_get_name(why),
		   tell_peer ? ", peer told" : "");
	if (sd_trace_enabled())
		sd_trace_instant("comch", "conn_closed", "\"conn\":%u,\"peer_pid\":%d,\"reason\":\"%s\"", conn->id,
				 (int)conn->link->peer_pid, doca_error_get_name(why));
	if (tell_peer && conn->link->fd >= 0)
		(void)sd_link_send(conn->link, SD_FRAME_BYE, NULL, 0, -1);
	if (conn->watched) {
		sd_comch_ep_unwatch(ep, conn->link->fd);
		conn->watched = false;
	}
	sd_link_close(conn->link);
	fail_queued(conn, why);
	/* A producer/consumer thread may be attaching right now: after this
	 * either it sees fp_closed, or its handler gets CLOSED. */
	pthread_mutex_lock(&conn->fp_lock);
	h = conn->fp_handler;
	arg = conn->fp_arg;
	conn->fp_handler = NULL;
	conn->fp_closed = true;
	pthread_mutex_unlock(&conn->fp_lock);
	if (h != NULL)
		h(conn, SD_COMCH_FP_CLOSED, NULL, 0, -1, arg);
	if (was_up && ep->eops->conn_down != NULL)
		ep->eops->conn_down(ep, conn, why);
}

void sd_comch_conn_free(struct doca_comch_connection *conn)
{
	struct doca_comch_connection **pp;

	if (!conn->dead)
		sd_comch_conn_fail(conn, SD_TASK_FLUSHED_STATUS, false);
	for (pp = &conn->ep->conns; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == conn) {
			*pp = conn->next;
			break;
		}
	}
	sd_link_destroy(conn->link);
	pthread_mutex_destroy(&conn->fp_lock);
	free(conn);
}

void sd_comch_ep_reap(struct sd_comch_ep *ep)
{
	struct doca_comch_connection *c, *next;

	for (c = ep->conns; c != NULL; c = next) {
		next = c->next;
		if (!c->exposed || (ep->is_server && atomic_load(&c->users) == 0))
			sd_comch_conn_free(c);
	}
}

bool sd_comch_ep_in_use(const struct sd_comch_ep *ep)
{
	const struct doca_comch_connection *c;

	for (c = ep->conns; c != NULL; c = c->next)
		if (atomic_load(&c->users) != 0)
			return true;
	return false;
}

int sd_comch_conn_progress(struct doca_comch_connection *conn)
{
	struct sd_comch_ep *ep = conn->ep;
	struct sd_frame_view v;
	int n = 0, budget = 64, fd;
	doca_error_t err;

	while (!conn->dead && budget-- > 0) {
		err = sd_link_recv(conn->link, ep->rxbuf, &v, &fd);
		if (err == DOCA_ERROR_AGAIN)
			break;
		n++;
		if (err == DOCA_ERROR_CONNECTION_RESET || err == DOCA_ERROR_NOT_CONNECTED) {
			SD_LOG_DBG("Comch conn %u to pid %d: peer closed or died", conn->id, (int)conn->link->peer_pid);
			sd_comch_conn_fail(conn, DOCA_ERROR_CONNECTION_RESET, false);
			break;
		}
		if (err != DOCA_SUCCESS) {
			SD_LOG_ERR("Comch conn %u to pid %d dropped: bad frame from the peer (%s)", conn->id,
				   (int)conn->link->peer_pid, doca_error_get_name(err));
			sd_comch_conn_fail(conn, DOCA_ERROR_CONNECTION_RESET, false);
			break;
		}
		conn->last_rx_ns = sd_now_ns();
		switch (v.type) {
		case SD_FRAME_HELLO:
		case SD_FRAME_ACCEPT:
		case SD_FRAME_REJECT:
			if (fd >= 0)
				close(fd);
			if (!ep->eops->ctrl_frame(ep, conn, &v))
				return n;
			/* The ACCEPT made the client RUNNING in this call: what the
			 * server sent after it waits for the next progress, so the
			 * program sees RUNNING (takes the connection, sets its user
			 * data) before any event of the connection, as on the card. */
			if (v.type == SD_FRAME_ACCEPT)
				return n;
			break;
		case SD_FRAME_MSG:
			if (fd >= 0)
				close(fd);
			if (!conn->handshaken) {
				SD_LOG_ERR("Comch: message before the handshake; dropping the connection");
				sd_comch_conn_fail(conn, DOCA_ERROR_CONNECTION_RESET, false);
				return n;
			}
			if (v.length > ep->max_msg_size) {
				/* The handshake told the peer our maximum: a sender honouring it never gets here. */
				SD_LOG_ERR("Comch %s \"%s\": message of %u bytes from pid %d exceeds the max message "
					   "size %u; dropping the connection", ep->is_server ? "server" : "client",
					   ep->name, v.length, (int)conn->link->peer_pid, ep->max_msg_size);
				sd_comch_conn_fail(conn, DOCA_ERROR_CONNECTION_RESET, false);
				return n;
			}
			conn->cnt[SD_CNT_RECV_MSGS]++;
			conn->cnt[SD_CNT_RECV_BYTES] += v.length;
			SD_LOG_TRC("Comch %s \"%s\": conn %u: received %u bytes", sd_comch_ep_role(ep), ep->name,
				   conn->id, v.length);
			if (sd_trace_enabled())
				sd_trace_instant("comch", "msg_recv", "\"conn\":%u,\"bytes\":%u", conn->id, v.length);
			if (ep->recv_cb != NULL) {
				ep->recv_cb(&ep->ev_recv, (uint8_t *)v.body, v.length, conn);
			} else if (!ep->warned_no_recv) {
				ep->warned_no_recv = true;
				SD_LOG_WARN("Comch %s \"%s\": message received but no receive callback is registered: "
					    "dropped", ep->is_server ? "server" : "client", ep->name);
			}
			break;
		case SD_FRAME_BYE:
			SD_LOG_DBG("Comch conn %u: peer pid %d disconnected (BYE)", conn->id,
				   (int)conn->link->peer_pid);
			sd_comch_conn_fail(conn, DOCA_ERROR_CONNECTION_RESET, false);
			return n;
		default: { /* fast-path kinds (checked by the frame parser) */
			sd_comch_fp_handler_t h;
			void *arg;

			if (!conn->handshaken) {
				SD_LOG_ERR("Comch: fast-path frame before the handshake; dropping the connection");
				if (fd >= 0)
					close(fd);
				sd_comch_conn_fail(conn, DOCA_ERROR_CONNECTION_RESET, false);
				return n;
			}
			pthread_mutex_lock(&conn->fp_lock);
			h = conn->fp_handler;
			arg = conn->fp_arg;
			pthread_mutex_unlock(&conn->fp_lock);
			/* No producer or consumer of ours uses the connection yet:
			 * the fast path takes the frame anyway (an announcement must
			 * reach the new-consumer event whatever we create later). */
			if (h != NULL)
				h(conn, v.type, v.body, v.length, fd, arg);
			else
				sd_fp_conn_adopt(conn, v.type, v.body, v.length, fd);
			break;
		}
		}
	}
	return n;
}

/* ---- stop ---------------------------------------------------------------- */

void sd_comch_ep_stop(struct sd_comch_ep *ep)
{
	struct doca_comch_connection *c;

	for (c = ep->conns; c != NULL; c = c->next) {
		c->down_event_pending = false;
		if (!c->dead) {
			bool up = c->handshaken;

			c->handshaken = false; /* no user event for our own stop */
			sd_comch_conn_fail(c, SD_TASK_FLUSHED_STATUS, up || ep->is_server);
		}
		fail_queued(c, SD_TASK_FLUSHED_STATUS);
	}
	if (ep->in_progress > 0) {
		ep->stop_pending = true;
		return;
	}
	sd_comch_ep_reap(ep);
	sd_ctx_stop_done(&ep->ctx);
}

void sd_comch_ep_progress_enter(struct sd_comch_ep *ep)
{
	ep->in_progress++;
}

void sd_comch_ep_progress_leave(struct sd_comch_ep *ep)
{
	if (--ep->in_progress > 0 || !ep->stop_pending)
		return;
	ep->stop_pending = false;
	sd_comch_ep_reap(ep);
	sd_ctx_stop_done(&ep->ctx);
}

/* ---- public connection API ---------------------------------------------- */

doca_error_t doca_comch_connection_set_user_data(struct doca_comch_connection *connection, union doca_data user_data)
{
	if (connection == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	connection->user_data = user_data;
	return DOCA_SUCCESS;
}

union doca_data doca_comch_connection_get_user_data(const struct doca_comch_connection *connection)
{
	union doca_data none = {.u64 = 0};

	return connection == NULL ? none : connection->user_data;
}

struct doca_comch_server *doca_comch_server_get_server_ctx(const struct doca_comch_connection *connection)
{
	if (connection == NULL || !connection->ep->is_server)
		return NULL;
	return (struct doca_comch_server *)connection->ep;
}

struct doca_comch_client *doca_comch_client_get_client_ctx(const struct doca_comch_connection *connection)
{
	if (connection == NULL || connection->ep->is_server)
		return NULL;
	return (struct doca_comch_client *)connection->ep;
}

doca_error_t doca_comch_connection_update_info(struct doca_comch_connection *comch_connection)
{
	if (comch_connection == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (comch_connection->dead)
		return DOCA_ERROR_CONNECTION_ABORTED;
	if (!comch_connection->handshaken)
		return DOCA_ERROR_CONNECTION_INPROGRESS;
	memcpy(comch_connection->snap, comch_connection->cnt, sizeof(comch_connection->snap));
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_connection_get_counter(const struct doca_comch_connection *comch_connection,
					       enum doca_comch_counter counter_type, uint64_t *counter_value)
{
	if (comch_connection == NULL || counter_value == NULL || counter_type < DOCA_COMCH_COUNTER_SENT_MESSAGES ||
	    counter_type > DOCA_COMCH_COUNTER_RECV_BYTES)
		return DOCA_ERROR_INVALID_VALUE;
	*counter_value = comch_connection->snap[counter_type - DOCA_COMCH_COUNTER_SENT_MESSAGES];
	return DOCA_SUCCESS;
}

/* ---- the fast-path seam (sd_comch.h) ------------------------------------ */

bool sd_comch_conn_fp_attach(struct doca_comch_connection *conn, sd_comch_fp_handler_t handler, void *arg)
{
	bool ok;

	if (conn == NULL)
		return false;
	pthread_mutex_lock(&conn->fp_lock);
	ok = handler == NULL || !conn->fp_closed;
	if (ok) {
		conn->fp_handler = handler;
		conn->fp_arg = arg;
	}
	pthread_mutex_unlock(&conn->fp_lock);
	if (handler != NULL)
		SD_LOG_DBG("Comch conn %u: fast path %s", conn->id,
			   ok ? "attached" : "not attached: connection closed");
	return ok && handler != NULL;
}

void sd_comch_conn_fp_set_handler(struct doca_comch_connection *conn, sd_comch_fp_handler_t handler, void *arg)
{
	(void)sd_comch_conn_fp_attach(conn, handler, arg);
}

void sd_comch_conn_ref(struct doca_comch_connection *conn)
{
	if (conn != NULL)
		atomic_fetch_add(&conn->users, 1);
}

void sd_comch_conn_unref(struct doca_comch_connection *conn)
{
	unsigned int n;

	if (conn == NULL)
		return;
	n = atomic_load(&conn->users);
	while (n > 0 && !atomic_compare_exchange_weak(&conn->users, &n, n - 1))
		;
	if (n == 0)
		SD_LOG_ERR("Comch connection released more often than taken");
}

void **sd_comch_conn_fp_slot(struct doca_comch_connection *conn)
{
	return conn == NULL ? NULL : &conn->fp_slot;
}

doca_error_t sd_comch_conn_fp_send(struct doca_comch_connection *conn, uint16_t kind, const void *body, uint32_t len,
				   int fd)
{
	doca_error_t err;
	int i;

	if (conn == NULL || kind < SD_COMCH_FP_KIND_BASE || kind > SD_COMCH_FP_KIND_MAX ||
	    len > SD_COMCH_FP_MAX_BODY || (len > 0 && body == NULL))
		return DOCA_ERROR_INVALID_VALUE;
	/* Bounded wait for room: a peer that stops reading must not hang us. */
	for (i = 0; i < 200; i++) {
		if (!atomic_load(&conn->alive))
			return DOCA_ERROR_NOT_CONNECTED;
		err = sd_link_send(conn->link, kind, body, len, fd);
		if (err != DOCA_ERROR_AGAIN)
			break;
		usleep(1000);
	}
	if (err == DOCA_ERROR_CONNECTION_RESET)
		return DOCA_ERROR_NOT_CONNECTED;
	return err;
}

bool sd_comch_conn_is_alive(const struct doca_comch_connection *conn)
{
	return conn != NULL && atomic_load(&conn->alive);
}

struct doca_dev *sd_comch_conn_dev(const struct doca_comch_connection *conn)
{
	return conn == NULL ? NULL : conn->ep->dev;
}

struct sd_link *sd_comch_conn_link(const struct doca_comch_connection *conn)
{
	return conn == NULL ? NULL : conn->link;
}

struct doca_pe *sd_comch_conn_pe(const struct doca_comch_connection *conn)
{
	return conn == NULL ? NULL : conn->ep->ctx.pe;
}

void sd_comch_conn_raise_consumer_event(struct doca_comch_connection *conn, uint32_t consumer_id, bool appeared)
{
	struct sd_comch_ep *ep;
	doca_comch_event_consumer_cb_t cb;

	if (conn == NULL)
		return;
	ep = conn->ep;
	cb = appeared ? ep->new_consumer_cb : ep->expired_consumer_cb;
	if (cb != NULL)
		cb(&ep->ev_cons, conn, consumer_id);
}

uint32_t sd_comch_conn_id(const struct doca_comch_connection *conn)
{
	return conn == NULL ? 0 : conn->id;
}

uint32_t sd_comch_conn_alloc_consumer_id(struct doca_comch_connection *conn)
{
	uint32_t id;

	if (conn == NULL)
		return 0;
	do
		id = atomic_fetch_add(&conn->next_consumer_id, 1);
	while (id == 0);
	return id;
}
