/* The Comch server: listens under its representor's address, accepts the
 * clients of that host function, one connection each. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "comch_priv.h"
#include "sd_log.h"
#include "sd_trace.h"

SD_LOG_REGISTER(COMCH_SERVER);

/* A peer that connected but never said HELLO is dropped after this. */
#define HANDSHAKE_TIMEOUT_NS (5ull * 1000 * 1000 * 1000)

/* accept() failing for want of descriptors (EMFILE/ENFILE) would fail again
 * at once, and the listening socket stays readable: retrying from every
 * progress call spins the CPU and floods the log. The server stops watching
 * the listener for a back-off that doubles from 100 ms up to 1 s, retries
 * when a timer says so, and logs the failure once, then at most every 10 s. */
#define ACCEPT_BACKOFF_MIN_NS (100ull * 1000 * 1000)
#define ACCEPT_BACKOFF_MAX_NS (1000ull * 1000 * 1000)
#define ACCEPT_LOG_EVERY_NS (10ull * 1000 * 1000 * 1000)

struct doca_comch_server {
	struct sd_comch_ep ep; /* first */
	struct doca_dev_rep *rep;
	struct sd_fabric_addr addr;
	struct sd_link *listener;
	uint32_t max_clients;
	bool listener_watched;
	bool in_connect_cb;         /* inside the user's connect event */
	/* accept back-off (see ACCEPT_BACKOFF_*): */
	int backoff_fd;             /* one-shot timer watched on the PE while backing off; -1 */
	uint64_t backoff_ns;        /* current back-off, 0 when accepting normally */
	uint64_t resume_ns;         /* when to try accepting again */
	uint64_t failing_since_ns;  /* first failure of the current episode */
	uint64_t next_log_ns;       /* rate limit of the failure line */
	uint64_t failures;          /* accept failures since the last accept that worked */
	bool failure_logged;        /* the error line of those failures was written */
	char accept_why[160];       /* what the last failure was, for logs and describe_wait */
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
	SD_LOG_DBG("Comch server \"%s\": conn %u: rejecting client pid %d: %s (%s)", conn->ep->name, conn->id,
		   (int)conn->link->peer_pid, reason, doca_error_get_name(why));
	if (sd_trace_enabled())
		sd_trace_instant("comch", "conn_rejected", "\"conn\":%u,\"peer_pid\":%d,\"reason\":\"%s\"", conn->id,
				 (int)conn->link->peer_pid, doca_error_get_name(why));
	if (sd_link_send(conn->link, SD_FRAME_REJECT, &r, sizeof(r), -1) != DOCA_SUCCESS)
		SD_LOG_WARN("Comch server \"%s\": could not tell client pid %d why it was refused", conn->ep->name,
			    (int)conn->link->peer_pid);
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
		snprintf(why, sizeof(why), "server \"%.40s\" already has %u client%s connected (its maximum)", ep->name,
			 s->max_clients, s->max_clients == 1 ? "" : "s");
		SD_LOG_ERR("Comch server \"%s\": refused client pid %d: already %u client%s connected (max clients %u)",
			   ep->name, (int)conn->link->peer_pid, s->max_clients, s->max_clients == 1 ? "" : "s",
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
	SD_LOG_DBG("Comch server \"%s\": conn %u established with client pid %d from %s (card %u), max message %u/%u",
		   ep->name, conn->id, (int)conn->link->peer_pid, h.pci_addr, h.card, ep->max_msg_size, h.max_msg_size);
	if (sd_trace_enabled())
		sd_trace_instant("comch", "conn_established", "\"conn\":%u,\"peer_pid\":%d", conn->id,
				 (int)conn->link->peer_pid);
	if (s->connect_cb != NULL) {
		s->in_connect_cb = true;
		s->connect_cb(&ep->ev_conn, conn, 1);
		s->in_connect_cb = false;
	}
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
	s->listener_watched = true;
	s->backoff_ns = 0;
	s->resume_ns = 0;
	s->failures = 0;
	s->failure_logged = false;
	/* Made now: once descriptors run out it could not be made any more. */
	s->backoff_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (s->backoff_fd >= 0)
		sd_comch_ep_watch(&s->ep, s->backoff_fd);
	SD_LOG_INFO("Comch server \"%s\" listening on %s (card %u)", s->ep.name, s->addr.pci, s->addr.card);
	SD_LOG_DBG("Comch server \"%s\": listening on %s (card %u), max clients %u, max message %u", s->ep.name,
		   s->addr.pci, s->addr.card, s->max_clients, s->ep.max_msg_size);
	if (sd_trace_enabled())
		sd_trace_instant("comch", "server_listen", NULL);
	return DOCA_SUCCESS;
}

static void backoff_timer_stop(struct doca_comch_server *s)
{
	if (s->backoff_fd >= 0) {
		sd_comch_ep_unwatch(&s->ep, s->backoff_fd);
		close(s->backoff_fd);
		s->backoff_fd = -1;
	}
}

/* Explain an accept failure from the transport's errno (sd_fabric.h: FULL
 * and OPERATING_SYSTEM set it): a descriptor shortage needs the user's
 * action, so it says what to raise. */
static void describe_accept_failure(struct doca_comch_server *s, doca_error_t err, int e)
{
	struct rlimit rl;

	if (e == EMFILE && getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		snprintf(s->accept_why, sizeof(s->accept_why),
			 "accept failed: too many open files (RLIMIT_NOFILE=%llu): raise ulimit -n",
			 (unsigned long long)rl.rlim_cur);
	} else if (e == ENFILE) {
		snprintf(s->accept_why, sizeof(s->accept_why),
			 "accept failed: the system's file table is full (ENFILE): raise fs.file-max or close files");
	} else if (e == ENOBUFS || e == ENOMEM) {
		snprintf(s->accept_why, sizeof(s->accept_why), "accept failed: %s: the kernel is short of memory",
			 strerror(e));
	} else if (e != 0) {
		snprintf(s->accept_why, sizeof(s->accept_why), "accept failed: %s (%s)", doca_error_get_name(err),
			 strerror(e));
	} else {
		snprintf(s->accept_why, sizeof(s->accept_why), "accept failed: %s", doca_error_get_name(err));
	}
}

/* Stop accepting for a while after a failure that would repeat at once. */
static void accept_backoff(struct doca_comch_server *s, doca_error_t err, int e, uint64_t now)
{
	struct itimerspec its = {0};

	describe_accept_failure(s, err, e);
	if (s->backoff_ns == 0) {
		s->backoff_ns = ACCEPT_BACKOFF_MIN_NS;
	} else if (s->backoff_ns < ACCEPT_BACKOFF_MAX_NS) {
		s->backoff_ns *= 2;
		if (s->backoff_ns > ACCEPT_BACKOFF_MAX_NS)
			s->backoff_ns = ACCEPT_BACKOFF_MAX_NS;
	}
	if (s->failures++ == 0)
		s->failing_since_ns = now;
	/* The rate limit survives recoveries: a server that keeps running out
	 * (accepts one, fails again) still logs once per period. */
	if (now >= s->next_log_ns) {
		s->next_log_ns = now + ACCEPT_LOG_EVERY_NS;
		s->failure_logged = true;
		SD_LOG_ERR("Comch server \"%s\" on %s: %s; new clients wait (retrying every %llu ms, %llu failure%s "
			   "so far)", s->ep.name, s->addr.pci, s->accept_why,
			   (unsigned long long)(s->backoff_ns / 1000000), (unsigned long long)s->failures,
			   s->failures == 1 ? "" : "s");
	}
	s->resume_ns = now + s->backoff_ns;
	/* A program asleep on the PE's notification handle wakes from the timer
	 * to retry. Without one (it could not be made at start) the listener
	 * stays watched: such a program then spins, but it does not hang. */
	if (s->backoff_fd < 0)
		return;
	its.it_value.tv_sec = (time_t)(s->backoff_ns / 1000000000ull);
	its.it_value.tv_nsec = (long)(s->backoff_ns % 1000000000ull);
	if (timerfd_settime(s->backoff_fd, 0, &its, NULL) != 0)
		return;
	if (s->listener_watched) {
		sd_comch_ep_unwatch(&s->ep, s->listener->fd);
		s->listener_watched = false;
	}
}

/* The back-off is over: watch the listener again (the back-off itself is
 * reset only by a successful accept or an empty backlog). */
static void accept_resume(struct doca_comch_server *s)
{
	struct itimerspec off = {0};

	/* Disarming also clears an expiry not read yet (the timer may fire
	 * just after the clock said the back-off is over): the fd must not
	 * stay readable. */
	if (s->backoff_fd >= 0)
		(void)timerfd_settime(s->backoff_fd, 0, &off, NULL);
	s->resume_ns = 0;
	if (!s->listener_watched && s->listener != NULL) {
		sd_comch_ep_watch(&s->ep, s->listener->fd);
		s->listener_watched = true;
	}
}

/* An accept worked: descriptors are there again. */
static void accept_recovered(struct doca_comch_server *s, uint64_t now)
{
	s->backoff_ns = 0;
	if (s->failures == 0)
		return;
	if (s->failure_logged)
		SD_LOG_INFO("Comch server \"%s\" on %s: accepting clients again after %llu ms (%llu failed accept%s)",
			    s->ep.name, s->addr.pci, (unsigned long long)((now - s->failing_since_ns) / 1000000),
			    (unsigned long long)s->failures, s->failures == 1 ? "" : "s");
	s->failures = 0;
	s->failure_logged = false;
}

static void server_stop(struct doca_ctx *ctx)
{
	struct doca_comch_server *s = to_server(ctx);

	SD_LOG_DBG("Comch server \"%s\" on %s: stopping (%u client%s connected)", s->ep.name, s->addr.pci,
		   live_clients(s), live_clients(s) == 1 ? "" : "s");
	if (sd_trace_enabled())
		sd_trace_instant("comch", "server_stop", NULL);
	backoff_timer_stop(s);
	s->backoff_ns = 0;
	if (s->listener != NULL) {
		if (s->listener_watched)
			sd_comch_ep_unwatch(&s->ep, s->listener->fd);
		s->listener_watched = false;
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
	if (s->resume_ns != 0 && now >= s->resume_ns)
		accept_resume(s);
	for (i = 0; i < 16 && s->listener != NULL && s->resume_ns == 0 && ctx->state == DOCA_CTX_STATE_RUNNING;
	     i++) {
		doca_error_t err;
		int e;

		errno = 0;
		err = sd_fabric_transport()->accept(s->listener, &l);
		e = errno;
		if (err == DOCA_ERROR_AGAIN) {
			/* Nobody waiting: the next failure starts the back-off over. */
			s->backoff_ns = 0;
			break;
		}
		if (err == DOCA_ERROR_NOT_PERMITTED)
			continue; /* that peer was dropped (logged); the next may be fine */
		if (err != DOCA_SUCCESS) {
			accept_backoff(s, err, e, now);
			break;
		}
		accept_recovered(s, now);
		c = sd_comch_conn_new(ep, l);
		if (c == NULL) {
			sd_link_destroy(l);
		} else {
			SD_LOG_DBG("Comch server \"%s\": conn %u: peer pid %d connected, waiting for its HELLO",
				   ep->name, c->id, (int)l->peer_pid);
		}
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
			if (sd_trace_enabled())
				sd_trace_instant("comch", "client_disconnected", "\"conn\":%u,\"peer_pid\":%d", c->id,
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

/* Stuck-program diagnostic. A server waiting for a client is normal for as
 * long as the host side takes to start, so that alone is not reported;
 * what is: messages its clients do not read, and clients it cannot accept. */
static bool server_describe_wait(const struct doca_ctx *ctx, uint64_t waited_ms, char *buf, size_t cap)
{
	const struct doca_comch_server *s = (const struct doca_comch_server *)ctx;
	const struct doca_comch_connection *c;
	uint64_t now = sd_now_ns(), oldest;
	uint32_t q;

	(void)waited_ms;
	if (s->backoff_ns != 0) {
		snprintf(buf, cap, "server '%s' on %s cannot accept clients for %llu s: %s", s->ep.name, s->addr.pci,
			 (unsigned long long)((now - s->failing_since_ns) / 1000000000ull), s->accept_why);
		return true;
	}
	for (c = s->ep.conns; c != NULL; c = c->next) {
		if (c->dead || !c->handshaken)
			continue;
		q = sd_comch_conn_queued(c, now, &oldest);
		if (q != 0) {
			snprintf(buf, cap, "server '%s' on %s has %u message%s to client pid %d waiting %llu ms: the "
				 "client does not read (stopped, or not calling doca_pe_progress?)", s->ep.name,
				 s->addr.pci, q, q == 1 ? "" : "s", (int)c->link->peer_pid, (unsigned long long)oldest);
			return true;
		}
	}
	if (s->ep.ctx.inflight != 0 && live_clients(s) == 0) {
		snprintf(buf, cap, "server '%s' listening on %s, no client connected: is the host side started?",
			 s->ep.name, s->addr.pci);
		return true;
	}
	return false;
}

static const struct sd_ctx_ops server_ctx_ops = {
	.start = server_start,
	.stop = server_stop,
	.progress = server_progress,
	.describe_wait = server_describe_wait,
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
	s->backoff_fd = -1;
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
	backoff_timer_stop(comch_server);
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
	/* Tell the client why before the BYE, or all it sees is a reset.
	 * REJECT after the handshake means "closed by the server, for this
	 * reason" (client.c); an older client drops the link on it, which is
	 * what BYE does too. A disconnect from inside the connect event is how
	 * programs turn away clients they have no room for (NVIDIA's
	 * applications serve one client at a time). */
	{
		struct sd_frame_reject r;

		memset(&r, 0, sizeof(r));
		r.error = (int32_t)DOCA_ERROR_CONNECTION_ABORTED;
		if (comch_server->in_connect_cb)
			snprintf(r.reason, sizeof(r.reason),
				 "server \"%.32s\" turned this client away as it connected (one client at a time?)",
				 comch_server->ep.name);
		else
			snprintf(r.reason, sizeof(r.reason), "server \"%.64s\" disconnected this client",
				 comch_server->ep.name);
		if (comch_server->in_connect_cb)
			SD_LOG_WARN("Comch server \"%s\": client pid %d turned away by the program's connect event "
				    "(doca_comch_server_disconnect); the client is told so", comch_server->ep.name,
				    (int)connection->link->peer_pid);
		else
			SD_LOG_DBG("Comch server \"%s\": conn %u: disconnecting client pid %d", comch_server->ep.name,
				   connection->id, (int)connection->link->peer_pid);
		(void)sd_link_send(connection->link, SD_FRAME_REJECT, &r, sizeof(r), -1);
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
