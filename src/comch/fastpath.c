#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fastpath.h"
#include "sd_comch.h"
#include "sd_ctx.h"
#include "sd_dev.h"
#include "sd_fabric.h"
#include "sd_link_ucx.h"
#include "sd_log.h"
#include "sd_mem.h"

SD_LOG_REGISTER(COMCH_FASTPATH);

/* Serialises attaching to a connection's slot between producer/consumer
 * threads and the connection's own thread (CLOSED clears the slot). */
static pthread_mutex_t g_attach = PTHREAD_MUTEX_INITIALIZER;

static void fp_dispatch(struct doca_comch_connection *conn, uint16_t kind, const void *body, uint32_t len, int fd,
			void *arg);
static void fp_tap(void *arg, uint16_t kind, const void *body, uint32_t len);
static doca_error_t net_msg(struct sd_fp_conn *st, uint16_t kind, const void *head, uint32_t hlen, const void *body,
			   uint32_t len);

static void remote_free(struct sd_fp_remote *r)
{
	if (r->tx.evfd >= 0)
		close(r->tx.evfd);
	if (r->wake_fd >= 0)
		close(r->wake_fd);
	if (r->base != NULL)
		munmap(r->base, r->size);
	if (r->dbase != NULL)
		munmap(r->dbase, r->dlen);
	free(r->ncap);
	free(r);
}

void sd_fp_remote_put(struct sd_fp_remote *r)
{
	if (r != NULL && __atomic_sub_fetch(&r->refs, 1, __ATOMIC_ACQ_REL) == 0)
		remote_free(r);
}

struct sd_fp_remote *sd_fp_remote_get(struct sd_fp_conn *st, uint32_t id)
{
	struct sd_fp_remote *r;

	pthread_mutex_lock(&st->lock);
	for (r = st->remotes; r != NULL; r = r->next)
		if (r->id == id && !sd_fp_remote_dead(r))
			break;
	if (r != NULL)
		__atomic_add_fetch(&r->refs, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&st->lock);
	return r;
}

static void netmsgs_free(struct sd_fp_netmsg *m)
{
	struct sd_fp_netmsg *n;

	for (; m != NULL; m = n) {
		n = m->next;
		free(m);
	}
}

static void local_free(struct sd_fp_local *l)
{
	if (l->fd >= 0)
		close(l->fd);
	close(l->evfd);
	if (l->prod_evfd >= 0)
		close(l->prod_evfd);
	netmsgs_free(l->partial);
	netmsgs_free(l->rx_head);
	netmsgs_free(l->spare);
	free(l->dsts);
	free(l);
}

static void conn_free(struct sd_fp_conn *st)
{
	struct sd_fp_remote *r, *rn;
	struct sd_fp_local *l, *ln;

	for (r = st->remotes; r != NULL; r = rn) {
		rn = r->next;
		__atomic_store_n(&r->dead, 1, __ATOMIC_RELEASE);
		sd_fp_remote_put(r);
	}
	for (r = st->gone; r != NULL; r = rn) {
		rn = r->next;
		sd_fp_remote_put(r);
	}
	for (l = st->locals; l != NULL; l = ln) {
		ln = l->next;
		local_free(l);
	}
	pthread_mutex_destroy(&st->lock);
	free(st);
}

void sd_fp_conn_put(struct sd_fp_conn *st)
{
	if (st != NULL && __atomic_sub_fetch(&st->refs, 1, __ATOMIC_ACQ_REL) == 0)
		conn_free(st);
}


/* Find conn's state, or create it and attach its dispatcher (under
 * g_attach, against other threads doing the same and against CLOSED). With
 * take_ref the caller gets a reference of its own; the connection always
 * holds one, dropped on CLOSED. BAD_STATE if the connection is closed or
 * dying. */
static doca_error_t state_attach(struct doca_comch_connection *conn, bool take_ref, struct sd_fp_conn **out)
{
	struct sd_fp_conn *st;
	void **slot;

	pthread_mutex_lock(&g_attach);
	slot = sd_comch_conn_fp_slot(conn);
	if (slot == NULL) {
		pthread_mutex_unlock(&g_attach);
		return DOCA_ERROR_BAD_STATE;
	}
	st = *slot;
	if (st != NULL) {
		if (sd_fp_conn_closed(st) || !sd_comch_conn_is_alive(conn)) {
			pthread_mutex_unlock(&g_attach);
			return DOCA_ERROR_BAD_STATE;
		}
		if (take_ref)
			__atomic_add_fetch(&st->refs, 1, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&g_attach);
		*out = st;
		return DOCA_SUCCESS;
	}
	st = calloc(1, sizeof(*st));
	if (st == NULL) {
		pthread_mutex_unlock(&g_attach);
		return DOCA_ERROR_NO_MEMORY;
	}
	pthread_mutex_init(&st->lock, NULL);
	/* Per connection, once: every link of a process has one transport, and
	 * only the socket one carries the fds of shared memory. */
	st->net = strcmp(sd_fabric_transport()->name, "socket") != 0;
	st->conn = conn;
	st->dev = sd_comch_conn_dev(conn);
	st->refs = take_ref ? 2 : 1;
	*slot = st;
	if (st->net) {
		st->link = sd_comch_conn_link(conn); /* valid while the connection is */
		st->nops = sd_link_fastpath();
	}
	if (!sd_comch_conn_fp_attach(conn, fp_dispatch, st)) {
		/* Closed before we could listen: no CLOSED will come, so no
		 * reference survives. */
		*slot = NULL;
		pthread_mutex_unlock(&g_attach);
		conn_free(st);
		return DOCA_ERROR_BAD_STATE;
	}
	/* After the dispatcher: CLOSED (which drops the state) comes only
	 * after the link's close, after which the tap is never called. */
	if (st->nops != NULL && st->nops->attach(st->link, fp_tap, st) != DOCA_SUCCESS)
		st->nops = NULL;
	if (!sd_comch_conn_is_alive(conn)) {
		/* Dying right now: CLOSED is on its way and drops the
		 * connection's reference. */
		*slot = NULL;
		__atomic_store_n(&st->closed, 1, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&g_attach);
		if (take_ref)
			sd_fp_conn_put(st);
		return DOCA_ERROR_BAD_STATE;
	}
	pthread_mutex_unlock(&g_attach);
	*out = st;
	return DOCA_SUCCESS;
}

doca_error_t sd_fp_conn_get(struct doca_comch_connection *conn, struct sd_fp_conn **out)
{
	if (!sd_comch_conn_is_alive(conn))
		return DOCA_ERROR_BAD_STATE;
	return state_attach(conn, true, out);
}

void sd_fp_conn_adopt(struct doca_comch_connection *conn, uint16_t kind, const void *body, uint32_t len, int fd)
{
	struct sd_fp_conn *st;

	/* On the connection's thread, which alone drops the connection's
	 * reference (CLOSED): st stays valid through the dispatch. */
	if (state_attach(conn, false, &st) != DOCA_SUCCESS) {
		if (fd >= 0)
			close(fd);
		return;
	}
	fp_dispatch(conn, kind, body, len, fd, st);
}

doca_error_t sd_fp_conn_send(struct sd_fp_conn *st, uint16_t kind, const void *body, uint32_t len, int fd)
{
	doca_error_t r = DOCA_ERROR_NOT_CONNECTED;

	/* The lock orders us against CLOSED: the connection pointer is only
	 * used while it is known to be alive. (The control path itself waits,
	 * boundedly, when the link is momentarily full.) */
	pthread_mutex_lock(&st->lock);
	if (st->conn != NULL && st->closed == 0) /* both written under the lock */
		r = sd_comch_conn_fp_send(st->conn, kind, body, len, fd);
	pthread_mutex_unlock(&st->lock);
	return r;
}

static doca_error_t send_local(struct sd_fp_conn *st, struct sd_fp_local *l)
{
	struct sd_fp_gone_body ev = {.consumer_id = l->id};
	doca_error_t r;

	r = sd_fp_conn_send(st, SD_FP_CONSUMER_NEW, &l->body, sizeof(l->body), l->fd);
	if (r != DOCA_SUCCESS)
		return r;
	if (l->buf_fd >= 0) {
		r = sd_fp_conn_send(st, SD_FP_CONSUMER_BUFMEM, &l->buf, sizeof(l->buf), l->buf_fd);
		if (r != DOCA_SUCCESS)
			return r;
	}
	return sd_fp_conn_send(st, SD_FP_CONSUMER_EVFD, &ev, sizeof(ev), l->evfd);
}

doca_error_t sd_fp_conn_announce(struct sd_fp_conn *st, uint32_t id, int fd, int evfd, void *region,
				 uint64_t region_size, struct sd_fp_local **out)
{
	return sd_fp_conn_announce_bufmem(st, id, fd, evfd, region, region_size, -1, 0, 0, out);
}

doca_error_t sd_fp_conn_announce_bufmem(struct sd_fp_conn *st, uint32_t id, int fd, int evfd, void *region,
					uint64_t region_size, int buf_fd, uint64_t buf_off, uint64_t buf_len,
					struct sd_fp_local **out)
{
	struct sd_fp_local *l = calloc(1, sizeof(*l));
	doca_error_t r;

	if (l == NULL)
		return DOCA_ERROR_NO_MEMORY;
	l->buf_fd = buf_fd;
	l->buf.consumer_id = id;
	l->buf.off = buf_off;
	l->buf.len = buf_len;
	l->id = id;
	l->fd = fd;
	l->evfd = evfd;
	l->prod_evfd = -1;
	l->hdr = region;
	l->body.version = SD_FP_VERSION;
	l->body.consumer_id = id;
	l->body.region_size = region_size;
	pthread_mutex_lock(&st->lock);
	l->next = st->locals;
	st->locals = l;
	pthread_mutex_unlock(&st->lock);
	r = send_local(st, l);
	if (r != DOCA_SUCCESS) {
		pthread_mutex_lock(&st->lock);
		for (struct sd_fp_local **pp = &st->locals; *pp != NULL; pp = &(*pp)->next)
			if (*pp == l) {
				*pp = l->next;
				break;
			}
		pthread_mutex_unlock(&st->lock);
		if (l->prod_evfd >= 0)
			close(l->prod_evfd);
		free(l); /* the fds stay the caller's */
		return r;
	}
	*out = l;
	return r;
}

void sd_fp_conn_withdraw(struct sd_fp_conn *st, uint32_t id)
{
	struct sd_fp_gone_body body = {.consumer_id = id};
	struct sd_fp_local *l = NULL;

	pthread_mutex_lock(&st->lock);
	for (struct sd_fp_local **pp = &st->locals; *pp != NULL; pp = &(*pp)->next)
		if ((*pp)->id == id) {
			l = *pp;
			*pp = l->next;
			break;
		}
	pthread_mutex_unlock(&st->lock);
	if (l == NULL)
		return;
	if (l->net)
		(void)net_msg(st, SD_FP_CONSUMER_GONE, &body, sizeof(body), NULL, 0);
	local_free(l);
	(void)sd_fp_conn_send(st, SD_FP_CONSUMER_GONE, &body, sizeof(body), -1);
}

static void on_new(struct sd_fp_conn *st, struct doca_comch_connection *conn, const void *body, uint32_t len, int fd)
{
	struct sd_fp_new_body b;
	struct sd_fp_params p;
	struct sd_fp_remote *r, *it;
	const struct sd_caps *caps;
	uint32_t nremotes;
	struct stat sb;
	int seals;
	void *base;
	doca_error_t e;

	if (len != sizeof(b) || fd < 0 || body == NULL) {
		SD_LOG_ERR("fast path: malformed consumer announcement (len %u, fd %d)", len, fd);
		goto out_fd;
	}
	memcpy(&b, body, sizeof(b));
	if (b.version != SD_FP_VERSION || b.consumer_id == 0) {
		SD_LOG_ERR("fast path: consumer announcement of version %u id %u refused", b.version, b.consumer_id);
		goto out_fd;
	}
	caps = st->dev != NULL ? sd_dev_caps(st->dev) : NULL;
	pthread_mutex_lock(&st->lock);
	for (it = st->remotes; it != NULL; it = it->next)
		if (it->id == b.consumer_id)
			break;
	nremotes = st->nremotes;
	pthread_mutex_unlock(&st->lock);
	if (it != NULL)
		goto out_fd; /* a duplicate announcement: already known */
	if (caps != NULL && caps->max_consumers_per_connection && nremotes >= caps->max_consumers_per_connection) {
		SD_LOG_ERR("fast path: consumer %u refused: the peer already has %u consumers on this connection (max %u)",
			   b.consumer_id, nremotes, caps->max_consumers_per_connection);
		goto out_fd;
	}
	/* Seals first: once the size is sealed, the fstat below stays true and
	 * the peer cannot pull pages from under our mapping (SIGBUS). */
	seals = fcntl(fd, F_GET_SEALS);
	if (fstat(fd, &sb) != 0 || (uint64_t)sb.st_size != b.region_size || b.region_size < sizeof(struct sd_fp_shm_hdr) ||
	    b.region_size > SD_FP_MAX_RING + (64ull << 20)) {
		SD_LOG_ERR("fast path: consumer %u region of bad size", b.consumer_id);
		goto out_fd;
	}
	if (seals < 0 || (seals & SD_FP_SEALS) != SD_FP_SEALS) {
		SD_LOG_ERR("fast path: consumer %u region refused: not sealed against resizing", b.consumer_id);
		goto out_fd;
	}
	base = mmap(NULL, b.region_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		SD_LOG_ERR("fast path: mapping consumer %u region failed: %s", b.consumer_id, strerror(errno));
		goto out_fd;
	}
	close(fd);
	e = sd_fp_region_check(base, b.region_size, &p);
	if (e != DOCA_SUCCESS || p.consumer_id != b.consumer_id) {
		SD_LOG_ERR("fast path: consumer %u region refused: %s", b.consumer_id, doca_error_get_name(e));
		munmap(base, b.region_size);
		return;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		munmap(base, b.region_size);
		return;
	}
	/* Producers that find no credit sleep on it: without one they could
	 * only spin, so no mapping without it. */
	r->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (r->wake_fd < 0) {
		SD_LOG_ERR("fast path: consumer %u refused: no eventfd for its producers: %s", b.consumer_id,
			   strerror(errno));
		munmap(base, b.region_size);
		free(r);
		return;
	}
	r->id = b.consumer_id;
	r->refs = 1;
	r->base = base;
	r->size = b.region_size;
	sd_fp_tx_init(&r->tx, base, &p);
	pthread_mutex_lock(&st->lock);
	r->next = st->remotes;
	st->remotes = r;
	st->nremotes++;
	pthread_mutex_unlock(&st->lock);
	SD_LOG_DBG("fast path: peer consumer %u mapped (%zu bytes)", r->id, r->size);
	sd_comch_conn_raise_consumer_event(conn, r->id, true);
	return;
out_fd:
	if (fd >= 0)
		close(fd);
}

/* The consumer's receive memory (hostile input): a memfd sealed against
 * shrinking (a shrunk one would SIGBUS our stores), a page-aligned range
 * inside it of bounded length, for a consumer we mapped and not offered
 * before. Anything else leaves that consumer on the ring. */
static void on_bufmem(struct sd_fp_conn *st, const void *body, uint32_t len, int fd)
{
	struct sd_fp_bufmem_body b;
	struct sd_fp_remote *r;
	struct stat sb;
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	void *base;
	int seals;

	if (len != sizeof(b) || body == NULL || fd < 0) {
		SD_LOG_ERR("fast path: malformed receive memory offer (len %u, fd %d)", len, fd);
		goto out_fd;
	}
	memcpy(&b, body, sizeof(b));
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK) || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || b.len == 0 ||
	    b.len > SD_FP_MAX_BUFMEM || b.off % pg != 0 || b.len % pg != 0 || b.off > (uint64_t)sb.st_size ||
	    b.len > (uint64_t)sb.st_size - b.off) {
		SD_LOG_ERR("fast path: consumer %u receive memory refused (not a shrink-sealed memfd range); "
			   "messages go through the ring", b.consumer_id);
		goto out_fd;
	}
	base = mmap(NULL, b.len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)b.off);
	if (base == MAP_FAILED) {
		SD_LOG_DBG("fast path: mapping consumer %u receive memory failed: %s; messages go through the ring",
			   b.consumer_id, strerror(errno));
		goto out_fd;
	}
	close(fd);
	pthread_mutex_lock(&st->lock);
	for (r = st->remotes; r != NULL; r = r->next)
		if (r->id == b.consumer_id)
			break;
	if (r != NULL && r->dbase == NULL) {
		r->dbase = base;
		r->dlen = b.len;
		/* Producers of this process may be sending already: they read
		 * dbase under the remote's spin lock. */
		sd_fp_remote_lock(r);
		r->tx.dbase = base;
		r->tx.dlen = b.len;
		sd_fp_remote_unlock(r);
		base = NULL;
	}
	pthread_mutex_unlock(&st->lock);
	if (base != NULL) {
		SD_LOG_DBG("fast path: receive memory for unknown or already served consumer %u ignored",
			   b.consumer_id);
		munmap(base, b.len);
		return;
	}
	SD_LOG_DBG("fast path: peer consumer %u receive memory mapped (%llu bytes): direct placement", b.consumer_id,
		   (unsigned long long)b.len);
	return;
out_fd:
	if (fd >= 0)
		close(fd);
}

/* Take the remote consumer id off st's list (st->lock held); NULL if none. */
static struct sd_fp_remote *remote_unlink(struct sd_fp_conn *st, uint32_t id)
{
	for (struct sd_fp_remote **pp = &st->remotes; *pp != NULL; pp = &(*pp)->next)
		if ((*pp)->id == id) {
			struct sd_fp_remote *r = *pp;

			*pp = r->next;
			st->nremotes--;
			return r;
		}
	return NULL;
}

static void on_gone(struct sd_fp_conn *st, struct doca_comch_connection *conn, const void *body, uint32_t len)
{
	struct sd_fp_gone_body b;
	struct sd_fp_remote *r;

	if (len != sizeof(b) || body == NULL)
		return;
	memcpy(&b, body, sizeof(b));
	pthread_mutex_lock(&st->lock);
	r = remote_unlink(st, b.consumer_id);
	pthread_mutex_unlock(&st->lock);
	if (r == NULL)
		return;
	__atomic_store_n(&r->dead, 1, __ATOMIC_RELEASE);
	sd_comch_conn_raise_consumer_event(conn, r->id, false);
	sd_fp_remote_put(r);
}

static bool is_eventfd(int fd)
{
	char path[64], target[64];
	struct stat sb;
	ssize_t n;

	if (fstat(fd, &sb) != 0 || (sb.st_mode & S_IFMT) == S_IFIFO || (sb.st_mode & S_IFMT) == S_IFSOCK)
		return false;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	return strcmp(target, "anon_inode:[eventfd]") == 0;
}

/* A wake-up eventfd frame from the peer (hostile input): the body names a
 * consumer, the fd must be an eventfd, made non-blocking, since it is
 * written on a data path (a full pipe would hang the writer). Returns the
 * fd, or -1 with it closed. */
static int take_wake_fd(const void *body, uint32_t len, int fd, struct sd_fp_gone_body *b, bool for_producers)
{
	if (len != sizeof(*b) || body == NULL || fd < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	memcpy(b, body, sizeof(*b));
	if (!is_eventfd(fd) || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) {
		if (for_producers)
			SD_LOG_ERR("fast path: producers' wake-up fd for consumer %u refused: not an eventfd",
				   b->consumer_id);
		else
			SD_LOG_ERR("fast path: consumer %u wake-up fd refused: not an eventfd", b->consumer_id);
		close(fd);
		return -1;
	}
	return fd;
}

static void on_evfd(struct sd_fp_conn *st, const void *body, uint32_t len, int fd)
{
	struct sd_fp_gone_body b;
	struct sd_fp_remote *r;

	fd = take_wake_fd(body, len, fd, &b, false);
	if (fd < 0)
		return;
	pthread_mutex_lock(&st->lock);
	for (r = st->remotes; r != NULL; r = r->next)
		if (r->id == b.consumer_id)
			break;
	if (r != NULL && __atomic_load_n(&r->tx.evfd, __ATOMIC_ACQUIRE) < 0) {
		__atomic_store_n(&r->tx.evfd, fd, __ATOMIC_RELEASE);
		fd = -1; /* the remote owns it now */
	}
	pthread_mutex_unlock(&st->lock);
	if (fd >= 0)
		close(fd);
}

/* The peer's producers for one of our consumers: signalled by the consumer
 * when they asked (sd_fp_rx_kick), and now if they asked before the fd got
 * here. As everywhere, whoever signals first takes the request (tx_wake):
 * producers rely on "signalled => request taken". */
static void on_prod_evfd(struct sd_fp_conn *st, const void *body, uint32_t len, int fd)
{
	struct sd_fp_gone_body b;
	struct sd_fp_local *l;
	uint64_t one = 1;

	fd = take_wake_fd(body, len, fd, &b, true);
	if (fd < 0)
		return;
	/* Under the lock: withdraw unlinks the entry under it before closing
	 * its fds, so the write below never reaches a closed fd. */
	pthread_mutex_lock(&st->lock);
	for (l = st->locals; l != NULL; l = l->next)
		if (l->id == b.consumer_id)
			break;
	if (l != NULL && __atomic_load_n(&l->prod_evfd, __ATOMIC_ACQUIRE) < 0) {
		__atomic_store_n(&l->prod_evfd, fd, __ATOMIC_RELEASE);
		if (__atomic_exchange_n(&l->hdr->tx_wake, 0u, __ATOMIC_ACQ_REL) && write(fd, &one, sizeof(one)) < 0) {
			/* EAGAIN: saturated, they are awake */
		}
		fd = -1;
	}
	pthread_mutex_unlock(&st->lock);
	if (fd >= 0)
		close(fd);
}

static void on_closed(struct sd_fp_conn *st, struct doca_comch_connection *conn)
{
	struct sd_fp_remote *list, *gone, *r, *rn;
	uint64_t one = 1;
	void **slot;

	pthread_mutex_lock(&g_attach);
	slot = sd_comch_conn_fp_slot(conn);
	if (slot != NULL && *slot == st)
		*slot = NULL;
	pthread_mutex_unlock(&g_attach);

	pthread_mutex_lock(&st->lock);
	__atomic_store_n(&st->closed, 1, __ATOMIC_RELEASE);
	list = st->remotes;
	st->remotes = NULL;
	st->nremotes = 0;
	gone = st->gone;
	st->gone = NULL;
	pthread_mutex_unlock(&st->lock);
	/* The peer's consumers are gone with it: tell the owner while the
	 * connection still exists (across a network, of those it was told
	 * of, withdrawn or not). */
	for (r = list; r != NULL; r = rn) {
		rn = r->next;
		__atomic_store_n(&r->dead, 1, __ATOMIC_RELEASE);
		if (!st->net || r->evented)
			sd_comch_conn_raise_consumer_event(conn, r->id, false);
		if (st->net && write(r->wake_fd, &one, sizeof(one)) < 0) {
			/* EAGAIN: saturated, producers are awake */
		}
		sd_fp_remote_put(r);
	}
	for (r = gone; r != NULL; r = rn) {
		rn = r->next;
		if (r->evented)
			sd_comch_conn_raise_consumer_event(conn, r->id, false);
		sd_fp_remote_put(r);
	}
	pthread_mutex_lock(&st->lock);
	st->conn = NULL;
	pthread_mutex_unlock(&st->lock);
	sd_comch_conn_fp_set_handler(conn, NULL, NULL);
	sd_fp_conn_put(st);
}

/* ---- across a network (fastpath.h, "Across a network") ------------------ */

/* One message beside the frames, head then body. The module queues it, or
 * asks us to wait while too much is on its way to the peer: a bounded wait,
 * as for frames (a peer that stops reading must not hang us). */
static doca_error_t net_msg(struct sd_fp_conn *st, uint16_t kind, const void *head, uint32_t hlen, const void *body,
			   uint32_t len)
{
	doca_error_t r;
	int i;

	if (st->nops == NULL)
		return DOCA_ERROR_NOT_SUPPORTED;
	for (i = 0;; i++) {
		if (sd_fp_conn_closed(st))
			return DOCA_ERROR_NOT_CONNECTED;
		r = st->nops->send(st->link, kind, head, hlen, body, len);
		if (r != DOCA_ERROR_AGAIN || i >= 50000)
			return r;
		usleep(100);
	}
}

doca_error_t sd_fp_net_announce(struct sd_fp_conn *st, uint32_t id, int evfd, uint32_t max_msg, uint32_t imm_len,
				uint32_t slots, struct sd_fp_local **out)
{
	struct sd_fp_net_new_body b = {
		.version = SD_FP_VERSION,
		.consumer_id = id,
		.max_msg = max_msg,
		.imm_len = imm_len,
		.slots = slots,
	};
	struct sd_fp_local *l = calloc(1, sizeof(*l));
	uint32_t ring = 1;
	doca_error_t r;

	while (ring < slots && ring < (1u << 20))
		ring <<= 1;
	if (l == NULL || slots == 0 || slots > ring || (l->dsts = calloc(ring, sizeof(*l->dsts))) == NULL) {
		free(l);
		return slots == 0 || slots > ring ? DOCA_ERROR_INVALID_VALUE : DOCA_ERROR_NO_MEMORY;
	}
	l->dst_mask = ring - 1;
	l->id = id;
	l->fd = -1;
	l->evfd = evfd;
	l->prod_evfd = -1;
	l->buf_fd = -1;
	l->net = true;
	l->max_msg = max_msg;
	l->imm_len = imm_len;
	pthread_mutex_lock(&st->lock);
	l->next = st->locals;
	st->locals = l;
	pthread_mutex_unlock(&st->lock);
	/* The tables first (beside the frames), then the owner's event. */
	r = net_msg(st, SD_FP_NET_NEW, &b, sizeof(b), NULL, 0);
	if (r == DOCA_SUCCESS)
		r = sd_fp_conn_send(st, SD_FP_NET_NEW, &b, sizeof(b), -1);
	if (r != DOCA_SUCCESS) {
		pthread_mutex_lock(&st->lock);
		for (struct sd_fp_local **pp = &st->locals; *pp != NULL; pp = &(*pp)->next)
			if (*pp == l) {
				*pp = l->next;
				break;
			}
		pthread_mutex_unlock(&st->lock);
		free(l->dsts);
		free(l); /* evfd stays the caller's */
		return r;
	}
	*out = l;
	return DOCA_SUCCESS;
}

doca_error_t sd_fp_net_grant(struct sd_fp_conn *st, struct sd_fp_local *l, const struct sd_fp_net_dst *dsts,
			     uint32_t count)
{
	struct sd_fp_net_credit_hdr h = {.consumer_id = l->id};
	uint32_t caps[SD_FP_NET_MAX_CREDITS];
	doca_error_t r = DOCA_SUCCESS;
	uint32_t n;

	while (count > 0 && r == DOCA_SUCCESS) {
		n = count > SD_FP_NET_MAX_CREDITS ? SD_FP_NET_MAX_CREDITS : count;
		h.count = n;
		/* Counted, and their buffers known, before the frame leaves: a
		 * message using the credit can come back before net_msg returns. */
		pthread_mutex_lock(&st->lock);
		if (l->dst_tail + n - l->dst_next > (uint64_t)l->dst_mask + 1) {
			pthread_mutex_unlock(&st->lock);
			SD_LOG_ERR("fast path: consumer %u: more buffers granted than it announced", l->id);
			return DOCA_ERROR_UNEXPECTED;
		}
		for (uint32_t i = 0; i < n; i++) {
			l->dsts[(l->dst_tail + i) & l->dst_mask] = dsts[i];
			caps[i] = dsts[i].cap;
		}
		l->dst_tail += n;
		l->granted += n;
		pthread_mutex_unlock(&st->lock);
		r = net_msg(st, SD_FP_NET_CREDIT, &h, sizeof(h), caps, n * (uint32_t)sizeof(uint32_t));
		dsts += n;
		count -= n;
	}
	return r;
}

bool sd_fp_conn_has_remote(struct sd_fp_conn *st)
{
	bool any;

	pthread_mutex_lock(&st->lock);
	any = st->nremotes != 0;
	pthread_mutex_unlock(&st->lock);
	return any;
}

void sd_fp_net_detach(struct sd_fp_conn *st, struct sd_fp_local *l)
{
	if (st == NULL || l == NULL)
		return;
	pthread_mutex_lock(&st->lock);
	l->dst_off = true;
	pthread_mutex_unlock(&st->lock);
}

/* Kept per consumer: a few, and never much memory (messages of 4 MiB are
 * rare enough that a fresh allocation is not what costs). */
#define NET_SPARES_KEPT 8u
#define NET_SPARES_BYTES (4u << 20)

/* Under the state's lock. */
static void recycle_locked(struct sd_fp_local *l, struct sd_fp_netmsg *m)
{
	if (l->nspare < NET_SPARES_KEPT && l->spare_bytes + m->cap <= NET_SPARES_BYTES) {
		m->next = l->spare;
		l->spare = m;
		l->nspare++;
		l->spare_bytes += m->cap;
		return;
	}
	free(m);
}

void sd_fp_net_recycle(struct sd_fp_conn *st, struct sd_fp_local *l, struct sd_fp_netmsg *m)
{
	if (m == NULL)
		return;
	pthread_mutex_lock(&st->lock);
	recycle_locked(l, m);
	pthread_mutex_unlock(&st->lock);
}

struct sd_fp_netmsg *sd_fp_net_take(struct sd_fp_conn *st, struct sd_fp_local *l, bool *bad)
{
	struct sd_fp_netmsg *m;

	pthread_mutex_lock(&st->lock);
	m = l->rx_head;
	__atomic_store_n(&l->rx_head, NULL, __ATOMIC_RELAXED);
	l->rx_tail = NULL;
	*bad = l->bad;
	pthread_mutex_unlock(&st->lock);
	return m;
}

bool sd_fp_net_has_credit(struct sd_fp_remote *r)
{
	bool yes;

	sd_fp_remote_lock(r);
	yes = r->nhead != r->ntail || r->nbroken;
	sd_fp_remote_unlock(r);
	return yes;
}

static doca_error_t net_credit(struct sd_fp_remote *r, uint32_t len, uint32_t imm_len, bool take)
{
	doca_error_t e = DOCA_SUCCESS;

	if (sd_fp_remote_dead(r))
		return DOCA_ERROR_NOT_FOUND;
	if (len > r->max_msg || imm_len > r->imm_len)
		return DOCA_ERROR_INVALID_VALUE;
	sd_fp_remote_lock(r);
	if (r->nbroken)
		e = DOCA_ERROR_UNEXPECTED;
	else if (r->nhead == r->ntail)
		e = DOCA_ERROR_AGAIN;
	else if (len > r->ncap[r->nhead & (r->slots - 1)])
		e = DOCA_ERROR_INVALID_VALUE;
	else if (take)
		r->nhead++;
	sd_fp_remote_unlock(r);
	return e;
}

doca_error_t sd_fp_net_take_credit(struct sd_fp_remote *r, uint32_t len, uint32_t imm_len)
{
	return net_credit(r, len, imm_len, true);
}

doca_error_t sd_fp_net_check_credit(struct sd_fp_remote *r, uint32_t len, uint32_t imm_len)
{
	return net_credit(r, len, imm_len, false);
}

doca_error_t sd_fp_net_send(struct sd_fp_conn *st, uint32_t consumer_id, uint32_t producer_id, const void *imm,
			    uint32_t imm_len, const struct doca_buf *buf)
{
	struct sd_fp_net_data_hdr h = {
		.consumer_id = consumer_id,
		.producer_id = producer_id,
		.imm_len = imm_len,
	};
	const struct doca_buf *seg;
	size_t total = 0, segoff = 0, n;
	doca_error_t r;

	for (seg = buf; seg != NULL; seg = seg->next)
		total += seg->data_len;
	h.total = (uint32_t)total;
	if (imm_len)
		memcpy(h.imm, imm, imm_len);
	seg = buf;
	while (seg != NULL && seg->data_len == 0)
		seg = seg->next;
	/* A fragment never spans two buffers of the chain, so the module
	 * gathers it from where it is; at least one, even for an empty
	 * message. */
	do {
		n = 0;
		if (seg != NULL) {
			n = seg->data_len - segoff;
			if (n > SD_FP_NET_CHUNK)
				n = SD_FP_NET_CHUNK;
		}
		r = net_msg(st, SD_FP_NET_DATA, &h, sizeof(h), n ? (const uint8_t *)seg->data + segoff : NULL,
			    (uint32_t)n);
		if (r != DOCA_SUCCESS)
			return r;
		if (seg != NULL) {
			segoff += n;
			while (seg != NULL && segoff == seg->data_len) {
				seg = seg->next;
				segoff = 0;
			}
		}
		h.off += (uint32_t)n;
		h.imm_len = 0;
		memset(h.imm, 0, sizeof(h.imm));
	} while (h.off < h.total);
	return DOCA_SUCCESS;
}

/* NET_NEW (hostile input), in the tap: a consumer of the peer, credits to
 * come. The owner hears of it from the frame that follows (on_net_event). */
static void tap_new(struct sd_fp_conn *st, const void *body, uint32_t len)
{
	const struct sd_caps *caps = st->dev != NULL ? sd_dev_caps(st->dev) : NULL;
	struct sd_fp_net_new_body b;
	struct sd_fp_remote *r, *it;

	if (len != sizeof(b) || body == NULL) {
		SD_LOG_ERR("fast path: malformed network consumer announcement (len %u)", len);
		return;
	}
	memcpy(&b, body, sizeof(b));
	if (b.version != SD_FP_VERSION || b.consumer_id == 0 || b.imm_len > SD_FP_MAX_IMM || b.max_msg == 0 ||
	    b.slots == 0 || (b.slots & (b.slots - 1)) != 0 || b.slots > (1u << 24)) {
		SD_LOG_ERR("fast path: network consumer announcement refused (version %u id %u max %u imm %u slots %u)",
			   b.version, b.consumer_id, b.max_msg, b.imm_len, b.slots);
		return;
	}
	r = calloc(1, sizeof(*r));
	if (r != NULL)
		r->ncap = calloc(b.slots, sizeof(*r->ncap));
	if (r == NULL || r->ncap == NULL) {
		free(r);
		return;
	}
	r->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (r->wake_fd < 0) {
		SD_LOG_ERR("fast path: consumer %u refused: no eventfd for its producers: %s", b.consumer_id,
			   strerror(errno));
		free(r->ncap);
		free(r);
		return;
	}
	r->tx.evfd = -1;
	r->id = b.consumer_id;
	r->refs = 1;
	r->max_msg = b.max_msg;
	r->imm_len = b.imm_len;
	r->slots = b.slots;
	pthread_mutex_lock(&st->lock);
	for (it = st->remotes; it != NULL; it = it->next)
		if (it->id == b.consumer_id)
			break;
	if (it == NULL && (caps == NULL || !caps->max_consumers_per_connection ||
			   st->nremotes < caps->max_consumers_per_connection)) {
		r->next = st->remotes;
		st->remotes = r;
		st->nremotes++;
		it = r;
		r = NULL;
	} else {
		it = NULL;
	}
	pthread_mutex_unlock(&st->lock);
	if (r != NULL) {
		SD_LOG_ERR("fast path: network consumer %u refused (a duplicate, or past the device's consumers per "
			   "connection)", b.consumer_id);
		remote_free(r);
		return;
	}
	SD_LOG_DBG("fast path: peer consumer %u across the network (max message %u, %u slots)", b.consumer_id,
		   b.max_msg, b.slots);
}

/* CONSUMER_GONE in the tap: no credit or send for it from now on; its
 * expiry is told by the frame that follows. */
static void tap_gone(struct sd_fp_conn *st, const void *body, uint32_t len)
{
	struct sd_fp_gone_body b;
	struct sd_fp_remote *r;
	uint64_t one = 1;

	if (len != sizeof(b) || body == NULL)
		return;
	memcpy(&b, body, sizeof(b));
	pthread_mutex_lock(&st->lock);
	r = remote_unlink(st, b.consumer_id);
	if (r != NULL) {
		__atomic_store_n(&r->dead, 1, __ATOMIC_RELEASE);
		r->next = st->gone;
		st->gone = r;
		/* A producer sleeping for credits learns it is gone. */
		if (write(r->wake_fd, &one, sizeof(one)) < 0) {
			/* EAGAIN: saturated, they are awake */
		}
	}
	pthread_mutex_unlock(&st->lock);
}

/* The frames that follow NET_NEW and CONSUMER_GONE across a network, on the
 * connection's thread: the tap has seen what preceded them once synced. */
static void on_net_event(struct sd_fp_conn *st, struct doca_comch_connection *conn, uint16_t kind, const void *body,
			 uint32_t len)
{
	struct sd_fp_remote *r = NULL;
	uint32_t id;
	bool tell = false;

	if (body == NULL || len < sizeof(uint32_t) * 2)
		return;
	/* consumer_id: the second word of NET_NEW, the first of GONE */
	memcpy(&id, (const uint8_t *)body + (kind == SD_FP_NET_NEW ? sizeof(uint32_t) : 0), sizeof(id));
	/* Under g_attach: a producer or consumer of ours may be attaching
	 * right now (state_attach puts the dispatcher in place before the
	 * tap), and until the tap is attached the module holds what came
	 * before this frame where sync cannot reach it: the event would be
	 * lost for good. */
	pthread_mutex_lock(&g_attach);
	if (st->nops != NULL)
		st->nops->sync(st->link);
	pthread_mutex_unlock(&g_attach);
	pthread_mutex_lock(&st->lock);
	if (kind == SD_FP_NET_NEW) {
		for (r = st->remotes; r != NULL; r = r->next)
			if (r->id == id && !r->evented)
				break;
		if (r != NULL)
			tell = r->evented = true;
		r = NULL;
	} else {
		for (struct sd_fp_remote **pp = &st->gone; *pp != NULL; pp = &(*pp)->next)
			if ((*pp)->id == id) {
				r = *pp;
				*pp = r->next;
				break;
			}
		tell = r != NULL && r->evented;
	}
	pthread_mutex_unlock(&st->lock);
	if (tell)
		sd_comch_conn_raise_consumer_event(conn, id, kind == SD_FP_NET_NEW);
	sd_fp_remote_put(r);
}

static void on_net_credit(struct sd_fp_conn *st, const void *body, uint32_t len)
{
	struct sd_fp_net_credit_hdr h;
	struct sd_fp_remote *r;
	const uint8_t *caps;
	bool woke = false;
	uint64_t one = 1;

	if (body == NULL || len < sizeof(h))
		return;
	memcpy(&h, body, sizeof(h));
	caps = (const uint8_t *)body + sizeof(h);
	if (h.count == 0 || h.count > SD_FP_NET_MAX_CREDITS || len != sizeof(h) + h.count * sizeof(uint32_t)) {
		SD_LOG_ERR("fast path: malformed credit message (len %u, count %u)", len, h.count);
		return;
	}
	pthread_mutex_lock(&st->lock);
	for (r = st->remotes; r != NULL; r = r->next)
		if (r->id == h.consumer_id)
			break;
	if (r != NULL) {
		sd_fp_remote_lock(r);
		if (r->ntail - r->nhead + h.count > r->slots) {
			/* More receives than it said it could post. */
			r->nbroken = true;
		} else {
			for (uint32_t i = 0; i < h.count; i++) {
				uint32_t cap;

				memcpy(&cap, caps + i * sizeof(cap), sizeof(cap));
				r->ncap[r->ntail++ & (r->slots - 1)] = cap;
			}
		}
		if (r->nbroken)
			SD_LOG_ERR("fast path: consumer %u granted more credits than its %u slots", r->id, r->slots);
		sd_fp_remote_unlock(r);
		woke = write(r->wake_fd, &one, sizeof(one)) == sizeof(one);
	}
	pthread_mutex_unlock(&st->lock);
	(void)woke; /* EAGAIN: saturated, they are awake */
}

static void net_bad(struct sd_fp_local *l, const char *why)
{
	uint64_t one = 1;

	if (!l->bad)
		SD_LOG_ERR("fast path: consumer %u: invalid message from the peer: %s", l->id, why);
	l->bad = true;
	if (write(l->evfd, &one, sizeof(one)) < 0) {
		/* EAGAIN: saturated, it is awake */
	}
}

/* A message whose bytes are all here (src): into the buffer granted for the
 * next one, then queued for the consumer. Under the state's lock; m is
 * queued, or recycled when the consumer detached or the peer broke the
 * protocol. */
static void place(struct sd_fp_local *l, struct sd_fp_netmsg *m, const uint8_t *src)
{
	const struct sd_fp_net_dst *d = &l->dsts[l->dst_next & l->dst_mask];
	uint64_t one = 1;

	if (l->dst_off) {
		recycle_locked(l, m); /* the consumer stopped: its messages die with it */
		return;
	}
	if (l->dst_next == l->dst_tail || m->len > d->cap) {
		net_bad(l, l->dst_next == l->dst_tail ? "a message beyond the buffers granted"
						      : "a message larger than its receive buffer");
		recycle_locked(l, m);
		return;
	}
	memcpy(d->p, src, m->len);
	l->dst_next++;
	m->next = NULL;
	/* Signalled before the message shows, so that a consumer that sees
	 * it (sd_fp_net_pending) and then clears the signal clears this one
	 * (consumer.c also clears once more after a take that found
	 * messages: a signal left with nothing behind it keeps the PE's
	 * notification handle readable, and a program sleeping on it spins). */
	if (write(l->evfd, &one, sizeof(one)) < 0) {
		/* EAGAIN: saturated, it is awake */
	}
	if (l->rx_tail != NULL)
		l->rx_tail->next = m;
	else
		__atomic_store_n(&l->rx_head, m, __ATOMIC_RELEASE);
	l->rx_tail = m;
}

/* A message record for a message of total bytes: reassembly room only
 * when it comes in several fragments. Under the state's lock. */
static struct sd_fp_netmsg *netmsg_get(struct sd_fp_local *l, uint32_t room)
{
	struct sd_fp_netmsg *m = l->spare;

	if (m != NULL && m->cap >= room) {
		l->spare = m->next;
		l->nspare--;
		l->spare_bytes -= m->cap;
		return m;
	}
	m = malloc(sizeof(*m) + room);
	if (m != NULL)
		m->cap = room;
	return m;
}

/* NET_DATA (hostile input): one fragment for one of our consumers. Bounded:
 * a message needs a credit we granted, at most max_msg bytes and at most
 * its buffer's capacity. */
static void on_net_data(struct sd_fp_conn *st, const void *body, uint32_t len)
{
	struct sd_fp_net_data_hdr h;
	struct sd_fp_netmsg *m, **pp;
	struct sd_fp_local *l;
	const uint8_t *bytes = (const uint8_t *)body + sizeof(h);
	uint32_t n;

	if (body == NULL || len < sizeof(h))
		return;
	memcpy(&h, body, sizeof(h));
	n = len - (uint32_t)sizeof(h);
	pthread_mutex_lock(&st->lock);
	for (l = st->locals; l != NULL; l = l->next)
		if (l->id == h.consumer_id && l->net)
			break;
	if (l == NULL || l->bad) {
		/* For a consumer that stopped: its messages die with it. */
		pthread_mutex_unlock(&st->lock);
		return;
	}
	for (pp = &l->partial; *pp != NULL; pp = &(*pp)->next)
		if ((*pp)->producer_id == h.producer_id)
			break;
	m = *pp;
	if (m == NULL) {
		bool whole = n == h.total;

		if (h.off != 0 || h.total > l->max_msg || h.imm_len > SD_FP_MAX_IMM || n > h.total) {
			net_bad(l, "bad first fragment (size, offset or immediate data)");
			goto out;
		}
		if (l->granted == 0) {
			net_bad(l, "a message without a credit");
			goto out;
		}
		/* One fragment: straight from the link's buffer, no reassembly. */
		m = netmsg_get(l, whole ? 0 : h.total);
		if (m == NULL) {
			net_bad(l, "out of memory");
			goto out;
		}
		l->granted--;
		m->next = NULL;
		m->producer_id = h.producer_id;
		m->len = h.total;
		m->got = 0;
		m->imm_len = h.imm_len;
		memcpy(m->imm, h.imm, sizeof(m->imm));
		if (whole) {
			m->got = n;
			place(l, m, bytes);
			goto out;
		}
		*pp = m;
	} else if (h.off != m->got || h.total != m->len || n > m->len - m->got || n == 0) {
		net_bad(l, "fragment out of order or beyond its message");
		goto out;
	}
	memcpy(m->data + m->got, bytes, n);
	m->got += n;
	if (m->got == m->len) {
		*pp = m->next;
		place(l, m, m->data);
	}
out:
	pthread_mutex_unlock(&st->lock);
}

static void fp_tap(void *arg, uint16_t kind, const void *body, uint32_t len)
{
	struct sd_fp_conn *st = arg;

	switch (kind) {
	case SD_FP_NET_NEW:
		tap_new(st, body, len);
		break;
	case SD_FP_CONSUMER_GONE:
		tap_gone(st, body, len);
		break;
	case SD_FP_NET_CREDIT:
		on_net_credit(st, body, len);
		break;
	case SD_FP_NET_DATA:
		on_net_data(st, body, len);
		break;
	default:
		SD_LOG_WARN("fast path: unknown network message kind 0x%x ignored", kind);
		break;
	}
}

static void fp_dispatch(struct doca_comch_connection *conn, uint16_t kind, const void *body, uint32_t len, int fd,
			void *arg)
{
	struct sd_fp_conn *st = arg;

	if (st == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	switch (kind) {
	case SD_FP_CONSUMER_NEW:
		on_new(st, conn, body, len, fd);
		return;
	case SD_FP_CONSUMER_GONE:
		if (st->net)
			on_net_event(st, conn, kind, body, len);
		else
			on_gone(st, conn, body, len);
		break;
	case SD_FP_CONSUMER_EVFD:
		on_evfd(st, body, len, fd);
		return;
	case SD_FP_PRODUCER_EVFD:
		on_prod_evfd(st, body, len, fd);
		return;
	case SD_FP_CONSUMER_BUFMEM:
		on_bufmem(st, body, len, fd);
		return;
	case SD_FP_NET_NEW:
		if (st->net)
			on_net_event(st, conn, kind, body, len);
		break;
	case SD_COMCH_FP_CLOSED:
		on_closed(st, conn);
		break;
	default:
		SD_LOG_WARN("fast path: unknown frame kind 0x%x ignored", kind);
		break;
	}
	if (fd >= 0)
		close(fd);
}

static uint32_t *ep_count(struct sd_fp_conn *st, enum sd_fp_role role)
{
	return role == SD_FP_ROLE_CONSUMER ? &st->nconsumers : &st->nproducers;
}

static void ep_unslot(struct sd_fp_conn *st, enum sd_fp_role role)
{
	pthread_mutex_lock(&st->lock);
	(*ep_count(st, role))--;
	pthread_mutex_unlock(&st->lock);
}

doca_error_t sd_fp_ep_create(struct doca_comch_connection *conn, enum sd_fp_role role, size_t size,
			     const struct sd_ctx_ops *ops, const char *name, struct sd_fp_ep *ep)
{
	const struct sd_caps *caps;
	struct sd_fp_conn *st;
	uint32_t max_buf, *n;
	doca_error_t r;

	if (conn == NULL || ep == NULL || size < sizeof(struct doca_ctx))
		return DOCA_ERROR_INVALID_VALUE;
	memset(ep, 0, sizeof(*ep));
	/* Pinned first: the owner cannot be destroyed (and free the
	 * connection) under us from here on. */
	sd_comch_conn_ref(conn);
	r = sd_fp_conn_get(conn, &st);
	if (r != DOCA_SUCCESS) {
		ep->not_connected = true;
		goto out_unref;
	}
	caps = st->dev != NULL ? sd_dev_caps(st->dev) : NULL;
	if (caps != NULL)
		max_buf = role == SD_FP_ROLE_CONSUMER ? caps->consumer_max_buf_size : caps->producer_max_buf_size;
	else
		max_buf = 0;
	if (max_buf == 0) {
		r = DOCA_ERROR_NOT_SUPPORTED;
		goto out_put;
	}
	if (st->net && st->nops == NULL) {
		SD_LOG_ERR("conn %u: the Comch fast path cannot reach the peer: the link's transport offers no fast path",
			   sd_comch_conn_id(conn));
		r = DOCA_ERROR_NOT_SUPPORTED;
		goto out_put;
	}
	pthread_mutex_lock(&st->lock);
	n = ep_count(st, role);
	if (caps->max_consumers_per_connection && *n >= caps->max_consumers_per_connection) {
		pthread_mutex_unlock(&st->lock);
		r = DOCA_ERROR_FULL;
		goto out_put;
	}
	(*n)++;
	pthread_mutex_unlock(&st->lock);

	ep->ctx = calloc(1, size);
	if (ep->ctx == NULL) {
		ep_unslot(st, role);
		r = DOCA_ERROR_NO_MEMORY;
		goto out_put;
	}
	sd_ctx_init(ep->ctx, ops, name);
	ep->st = st;
	ep->caps = caps;
	return DOCA_SUCCESS;
out_put:
	sd_fp_conn_put(st);
out_unref:
	sd_comch_conn_unref(conn);
	return r;
}

doca_error_t sd_fp_ep_destroy(struct doca_ctx *ctx, enum sd_fp_role role, struct sd_fp_conn *st,
			      struct doca_comch_connection *conn, void (*release)(struct doca_ctx *ctx))
{
	doca_error_t r;

	r = sd_ctx_fini(ctx);
	if (r != DOCA_SUCCESS)
		return r;
	release(ctx);
	ep_unslot(st, role);
	sd_fp_conn_put(st);
	sd_comch_conn_unref(conn);
	free(ctx);
	return DOCA_SUCCESS;
}
