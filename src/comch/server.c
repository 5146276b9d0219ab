/* The Comch server: listens under its representor's address, accepts the
 * clients of that host function, one connection each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comch_priv.h"
#include "sd_log.h"

SD_LOG_REGISTER(COMCH_SERVER);

/* A peer that connected but never said HELLO is dropped after this. */
#define HANDSHAKE_TIMEOUT_NS (5ull * 1000 * 1000 * 1000)

struct doca_comch_server {
	struct sd_comch_ep ep; /* first */
	struct doca_dev_rep *rep;
	struct sd_fabric_addr addr;
	struct sd_link *listener;
	uint32_t max_clients;
	doca_comch_event_connection_status_changed_cb_t connect_cb;
	doca_comch_event_connection_status_changed_cb_t disconnect_cb;
};

static struct doca_comch_server *to_server(struct doca_ctx *ctx)
{
	return (struct doca_comch_server *)ctx;
}

static uint32_t live_clients(const struct doca_comch_server *s)
{
	const struct doca_comch_connection *c;
	uint32_t n = 0;

	for (c = s->ep.conns; c != NULL; c = c->next)
		if (c->handshaken && !c->dead)
			n++;
	return n;
}

static void reject(struct doca_comch_connection *conn, doca_error_t why, const char *reason)
{
	struct sd_frame_reject r;

	memset(&r, 0, sizeof(r));
	r.error = (int32_t)why;
	snprintf(r.reason, sizeof(r.reason), "%s", reason);
	(void)sd_link_send(conn->link, SD_FRAME_REJECT, &r, sizeof(r), -1);
	sd_comch_conn_fail(conn, why, false);
}

static bool server_ctrl_frame(struct sd_comch_ep *ep, struct doca_comch_connection *conn,
			      const struct sd_frame_view *v)
{
	struct doca_comch_server *s = (struct doca_comch_server *)ep;
	struct sd_frame_hello h;
	struct sd_frame_accept a;
	char why[sizeof(((struct sd_frame_reject *)0)->reason)];

	if (v->type != SD_FRAME_HELLO || conn->handshaken) {
		SD_LOG_ERR("Comch server \"%s\": unexpected %s frame from pid %d; dropping the connection", ep->name,
			   sd_frame_type_name(v->type), (int)conn->link->peer_pid);
		sd_comch_conn_fail(conn, DOCA_ERROR_CONNECTION_RESET, false);
		return false;
	}
	memcpy(&h, v->body, sizeof(h));
	if (memchr(h.name, '\0', sizeof(h.name)) == NULL || memchr(h.pci_addr, '\0', sizeof(h.pci_addr)) == NULL) {
		SD_LOG_ERR("Comch server \"%s\": malformed HELLO; dropping the connection", ep->name);
		sd_comch_conn_fail(conn, DOCA_ERROR_CONNECTION_RESET, false);
		return false;
	}
	if (strcmp(h.name, ep->name) != 0) {
		snprintf(why, sizeof(why), "no server named \"%.64s\" here", h.name);
		reject(conn, DOCA_ERROR_NOT_FOUND, why);
		return false;
	}
	if (h.card != s->addr.card || strcmp(h.pci_addr, s->addr.pci) != 0) {
		SD_LOG_ERR("Comch server \"%s\": refused a client from %s (card %u): it serves %s (card %u)",
			   ep->name, h.pci_addr, h.card, s->addr.pci, s->addr.card);
		snprintf(why, sizeof(why), "this server serves another host function (%s)", s->addr.pci);
		reject(conn, DOCA_ERROR_NOT_PERMITTED, why);
		return false;
	}
	if (live_clients(s) >= s->max_clients) {
		snprintf(why, sizeof(why), "the server accepts at most %u clients", s->max_clients);
		SD_LOG_ERR("Comch server \"%s\": refused a client: already %u connected (max clients)", ep->name,
			   s->max_clients);
		reject(conn, DOCA_ERROR_FULL, why);
		return false;
	}
	conn->peer_max_msg = h.max_msg_size;
	memset(&a, 0, sizeof(a));
	a.max_msg_size = ep->max_msg_size;
	a.pid = (uint32_t)getpid();
	if (sd_link_send(conn->link, SD_FRAME_ACCEPT, &a, sizeof(a), -1) != DOCA_SUCCESS) {
		sd_comch_conn_fail(conn, DOCA_ERROR_CONNECTION_RESET, false);
		return false;
	}
	conn->handshaken = true;
	conn->exposed = true;
	atomic_store(&conn->alive, true);
	SD_LOG_INFO("Comch server \"%s\": client pid %d connected", ep->name, (int)conn->link->peer_pid);
	if (s->connect_cb != NULL)
		s->connect_cb(&ep->ev_conn, conn, 1);
	return !conn->dead;
}

static void server_conn_down(struct sd_comch_ep *ep, struct doca_comch_connection *conn, doca_error_t why)
{
	/* Delivered from progress, never from inside the call that failed it. */
	conn->down_event_pending = true;
}

static const struct sd_comch_ep_ops server_eops = {
	.ctrl_frame = server_ctrl_frame,
	.conn_down = server_conn_down,
};

static doca_error_t server_start(struct doca_ctx *ctx)
{
	struct doca_comch_server *s = to_server(ctx);
	doca_error_t err;

	err = sd_fabric_transport()->listen(&s->addr, &s->listener);
	if (err != DOCA_SUCCESS) {
		if (err == DOCA_ERROR_ALREADY_EXIST)
			SD_LOG_ERR("Comch server \"%s\" on %s (card %u) is already running: another server "
				   "listens under this name", s->ep.name, s->addr.pci, s->addr.card);
		else
			SD_LOG_ERR("Comch server \"%s\" cannot listen: %s", s->ep.name, doca_error_get_name(err));
		return err;
	}
	sd_comch_ep_watch(&s->ep, s->listener->fd);
	SD_LOG_INFO("Comch server \"%s\" listening on %s (card %u)", s->ep.name, s->addr.pci, s->addr.card);
	return DOCA_SUCCESS;
}

static void server_stop(struct doca_ctx *ctx)
{
	struct doca_comch_server *s = to_server(ctx);

	if (s->listener != NULL) {
		sd_comch_ep_unwatch(&s->ep, s->listener->fd);
		sd_link_destroy(s->listener);
		s->listener = NULL;
	}
	sd_comch_ep_stop(&s->ep);
}

static int server_progress(struct doca_ctx *ctx)
{
	struct doca_comch_server *s = to_server(ctx);
	struct sd_comch_ep *ep = &s->ep;
	struct doca_comch_connection *c, *next;
	struct sd_link *l;
	uint64_t now = sd_now_ns();
	int n = 0, i;

	sd_comch_ep_progress_enter(ep);
	for (i = 0; i < 16 && s->listener != NULL && ctx->state == DOCA_CTX_STATE_RUNNING; i++) {
		doca_error_t err = sd_fabric_transport()->accept(s->listener, &l);

		if (err == DOCA_ERROR_AGAIN)
			break;
		if (err != DOCA_SUCCESS)
			continue;
		if (sd_comch_conn_new(ep, l) == NULL)
			sd_link_destroy(l);
		n++;
	}
	for (c = ep->conns; c != NULL; c = next) {
		next = c->next;
		if (!c->dead) {
			n += sd_comch_conn_progress(c);
			if (!c->dead && !c->handshaken && now > c->born_ns + HANDSHAKE_TIMEOUT_NS) {
				SD_LOG_WARN("Comch server \"%s\": peer pid %d never completed the handshake; dropped",
					    ep->name, (int)c->link->peer_pid);
				sd_comch_conn_fail(c, DOCA_ERROR_TIME_OUT, false);
			}
		}
		if (c->down_event_pending) {
			c->down_event_pending = false;
			n++;
			SD_LOG_INFO("Comch server \"%s\": client pid %d disconnected", ep->name,
				    (int)c->link->peer_pid);
			if (s->disconnect_cb != NULL)
				s->disconnect_cb(&ep->ev_conn, c, 1);
		}
		/* Never-accepted peers were never seen by the user: free them now. */
		if (c->dead && !c->exposed && !c->down_event_pending && !ep->stop_pending)
			sd_comch_conn_free(c);
	}
	n += sd_comch_ep_flush_queue(ep);
	sd_comch_ep_progress_leave(ep);
	return n;
}

static const struct sd_ctx_ops server_ctx_ops = {
	.start = server_start,
	.stop = server_stop,
	.progress = server_progress,
};

doca_error_t doca_comch_server_create(struct doca_dev *dev, struct doca_dev_rep *repr, const char *name,
				      struct doca_comch_server **comch_server)
{
	const struct sd_caps *caps;
	struct doca_comch_server *s;
	const char *pci;
	doca_error_t err;

	if (dev == NULL || repr == NULL || name == NULL || comch_server == NULL) {
		SD_LOG_ERR("Failed to create Comch server: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	caps = sd_dev_caps(dev);
	if (caps == NULL || !caps->comch_server_supported) {
		SD_LOG_ERR("Failed to create Comch server: device %s cannot run a Comch server (the server runs on "
			   "the BlueField Arm side)", sd_dev_pci_addr(dev));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	err = sd_comch_ep_check_name(dev, name);
	if (err != DOCA_SUCCESS)
		return err;
	if (sd_dev_rep_card(repr) != sd_dev_card(dev)) {
		SD_LOG_ERR("Failed to create Comch server: representor %s is not on the card of device %s",
			   sd_dev_rep_pci_addr(repr), sd_dev_pci_addr(dev));
		return DOCA_ERROR_INVALID_VALUE;
	}
	pci = sd_dev_rep_pci_addr(repr);
	if (pci == NULL || strlen(pci) >= SD_FABRIC_PCI_MAX)
		return DOCA_ERROR_INVALID_VALUE;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return DOCA_ERROR_NO_MEMORY;
	err = sd_comch_ep_init(&s->ep, true, dev, name, &server_ctx_ops, &server_eops);
	if (err != DOCA_SUCCESS) {
		free(s);
		return err;
	}
	s->rep = repr;
	sd_dev_rep_get(repr);
	s->addr.card = sd_dev_rep_card(repr);
	strcpy(s->addr.pci, pci);
	strcpy(s->addr.name, name);
	s->max_clients = caps->comch_max_clients ? caps->comch_max_clients : 1;
	*comch_server = s;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_server_destroy(struct doca_comch_server *comch_server)
{
	doca_error_t err;

	if (comch_server == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	err = sd_comch_ep_fini(&comch_server->ep);
	if (err != DOCA_SUCCESS)
		return err;
	sd_dev_rep_put(comch_server->rep);
	free(comch_server);
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_server_set_max_msg_size(struct doca_comch_server *comch_server, uint32_t size)
{
	return comch_server == NULL ? DOCA_ERROR_INVALID_VALUE : sd_comch_ep_set_max_msg_size(&comch_server->ep, size);
}

doca_error_t doca_comch_server_get_max_msg_size(const struct doca_comch_server *comch_server, uint32_t *size)
{
	return sd_comch_ep_get_max_msg_size(comch_server == NULL ? NULL : &comch_server->ep, size);
}

doca_error_t doca_comch_server_set_recv_queue_size(struct doca_comch_server *comch_server, uint32_t size)
{
	return comch_server == NULL ? DOCA_ERROR_INVALID_VALUE :
				      sd_comch_ep_set_recv_queue_size(&comch_server->ep, size);
}

doca_error_t doca_comch_server_get_recv_queue_size(const struct doca_comch_server *comch_server, uint32_t *size)
{
	return sd_comch_ep_get_recv_queue_size(comch_server == NULL ? NULL : &comch_server->ep, size);
}

doca_error_t doca_comch_server_get_device(const struct doca_comch_server *comch_server, struct doca_dev **dev)
{
	return sd_comch_ep_get_device(comch_server == NULL ? NULL : &comch_server->ep, dev);
}

doca_error_t doca_comch_server_get_device_rep(const struct doca_comch_server *comch_server, struct doca_dev_rep **rep)
{
	if (comch_server == NULL || rep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*rep = comch_server->rep;
	return DOCA_SUCCESS;
}

struct doca_ctx *doca_comch_server_as_ctx(struct doca_comch_server *comch_server)
{
	return comch_server == NULL ? NULL : &comch_server->ep.ctx;
}

doca_error_t doca_comch_server_disconnect(struct doca_comch_server *comch_server,
					  struct doca_comch_connection *connection)
{
	if (comch_server == NULL || connection == NULL || connection->ep != &comch_server->ep)
		return DOCA_ERROR_INVALID_VALUE;
	if (comch_server->ep.ctx.state != DOCA_CTX_STATE_RUNNING)
		return DOCA_ERROR_BAD_STATE;
	if (connection->dead || !connection->handshaken)
		return DOCA_ERROR_NOT_CONNECTED;
	if (atomic_load(&connection->users) != 0) {
		SD_LOG_ERR("Comch server \"%s\": cannot disconnect a connection producers or consumers still use",
			   comch_server->ep.name);
		return DOCA_ERROR_IN_USE;
	}
	sd_comch_conn_fail(connection, DOCA_ERROR_NOT_CONNECTED, true);
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_server_task_send_set_conf(struct doca_comch_server *comch_server,
						  doca_comch_task_send_completion_cb_t task_completion_cb,
						  doca_comch_task_send_completion_cb_t task_error_cb,
						  uint32_t num_send_tasks)
{
	return comch_server == NULL ? DOCA_ERROR_INVALID_VALUE :
				      sd_comch_ep_task_send_set_conf(&comch_server->ep, task_completion_cb,
								     task_error_cb, num_send_tasks);
}

doca_error_t doca_comch_server_task_send_alloc_init(struct doca_comch_server *comch_server,
						    struct doca_comch_connection *peer, const void *msg, uint32_t len,
						    struct doca_comch_task_send **task)
{
	return comch_server == NULL ? DOCA_ERROR_INVALID_VALUE :
				      sd_comch_ep_task_send_alloc_init(&comch_server->ep, peer, msg, len, task);
}

doca_error_t doca_comch_server_event_msg_recv_register(struct doca_comch_server *comch_server,
						       doca_comch_event_msg_recv_cb_t recv_event_cb)
{
	return comch_server == NULL ? DOCA_ERROR_INVALID_VALUE :
				      sd_comch_ep_recv_register(&comch_server->ep, recv_event_cb);
}

doca_error_t doca_comch_server_event_connection_status_changed_register(
	struct doca_comch_server *comch_server, doca_comch_event_connection_status_changed_cb_t connect_event_cb,
	doca_comch_event_connection_status_changed_cb_t disconnect_event_cb)
{
	doca_error_t err;

	if (comch_server == NULL || connect_event_cb == NULL || disconnect_event_cb == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	err = sd_ctx_check_idle(&comch_server->ep.ctx);
	if (err != DOCA_SUCCESS)
		return err;
	comch_server->connect_cb = connect_event_cb;
	comch_server->disconnect_cb = disconnect_event_cb;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_server_event_consumer_register(struct doca_comch_server *comch_server,
						       doca_comch_event_consumer_cb_t new_consumer_event_cb,
						       doca_comch_event_consumer_cb_t expired_consumer_event_cb)
{
	return comch_server == NULL ? DOCA_ERROR_INVALID_VALUE :
				      sd_comch_ep_consumer_register(&comch_server->ep, new_consumer_event_cb,
								    expired_consumer_event_cb);
}
