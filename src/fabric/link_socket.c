#define _GNU_SOURCE
/* The socket transport: AF_UNIX SOCK_SEQPACKET in the fabric directory.
 * SEQPACKET keeps frame boundaries and carries SCM_RIGHTS, so one record is
 * one frame and a short read can only mean a malformed peer. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "sd_fabric.h"
#include "sd_log.h"

SD_LOG_REGISTER(FABRIC);

struct sd_link_sock {
	struct sd_link base;
	bool listener;
	dev_t dev; /* of the bound socket file, so close unlinks only our own */
	ino_t ino;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const struct sd_link_ops sock_ops;

static struct sd_link_sock *sock_new(int fd)
{
	struct sd_link_sock *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	if (pthread_mutex_init(&s->base.lock, NULL) != 0) {
		free(s);
		return NULL;
	}
	s->base.ops = &sock_ops;
	s->base.fd = fd;
	return s;
}

/* The socket path of addr into path (cap bytes) and sa. */
static doca_error_t make_sockaddr(const struct sd_fabric_addr *addr, char *path, size_t cap, struct sockaddr_un *sa)
{
	doca_error_t err = sd_fabric_addr_path(addr, path, cap);

	if (err != DOCA_SUCCESS)
		return err;
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return DOCA_ERROR_INVALID_VALUE;
	strcpy(sa->sun_path, path);
	return DOCA_SUCCESS;
}

static doca_error_t check_peer(int fd, pid_t *pid, const char *what)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
		SD_LOG_ERR("%s: cannot read peer credentials: %s", what, strerror(errno));
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (cred.uid != geteuid()) {
		SD_LOG_ERR("%s: peer pid %d runs as uid %u, not as this user (uid %u): refused", what, (int)cred.pid,
			   (unsigned)cred.uid, (unsigned)geteuid());
		return DOCA_ERROR_NOT_PERMITTED;
	}
	*pid = cred.pid;
	return DOCA_SUCCESS;
}

static int new_socket(void)
{
	return socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

/* True once pid is gone, a zombie, or inside exit (PF_EXITING): its
 * descriptors are being or have been closed. */
static bool pid_exiting(pid_t pid)
{
	char path[64], buf[512], *p, state = 0;
	unsigned int flags = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (f == NULL)
		return kill(pid, 0) != 0 && errno == ESRCH;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (p == NULL || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %u", &state, &flags) != 2)
		return false;
	return state == 'Z' || state == 'X' || (flags & 0x4u) != 0;
}

/*
 * Who owns a name. The owner of an address is the process whose listening
 * socket sits at its path. Everything that changes what sits at a path -
 * removing a stale file, bind, listen - is done under an exclusive flock of
 * the fabric directory, so under that lock a socket file either answers a
 * connect (live; SO_PEERCRED names its owner) or never will again (stale).
 * Without it, a second server starting with the same name probed the
 * first's file between its bind and its listen, found it refusing, took it
 * for stale, unlinked it and bound its own: both believed they listened and
 * no client could ever reach one of them.
 *
 * Stopping needs no lock: a listener unlinks its file while its socket still
 * listens (so nobody else takes the file for stale in the meantime) and only
 * then closes it. A killed listener leaves its file; whoever next holds the
 * lock finds it refusing and removes it.
 *
 * The lock is held for a handful of system calls (a child forked meanwhile
 * by another thread holds it too until it execs or exits: the wait for it
 * is bounded). A per-name lock file held
 * for the server's life would do as well but leave a second file per server
 * (and one more per killed server) in a directory users and tests read as
 * "one socket per listening server".
 */
#define DIR_LOCK_WAIT_NS (5ull * 1000000000ull)

/* Lock the fabric directory that holds path; returns the descriptor that
 * holds the lock (closing it unlocks), or -1 (logged). */
static int dir_lock(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const char *slash = strrchr(path, '/');
	uint64_t deadline = mono_ns() + DIR_LOCK_WAIT_NS;
	useconds_t pause_us = 50;
	size_t n;
	int fd;

	if (slash == NULL || slash == path || (n = (size_t)(slash - path)) >= sizeof(dir))
		return -1;
	memcpy(dir, path, n);
	dir[n] = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		SD_LOG_ERR("cannot open fabric directory %s: %s", dir, strerror(errno));
		return -1;
	}
	while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK) {
			SD_LOG_ERR("cannot lock fabric directory %s: %s", dir, strerror(errno));
			close(fd);
			return -1;
		}
		if (mono_ns() > deadline) {
			SD_LOG_ERR("fabric directory %s stayed locked for %llu s (a process stopped or forked while "
				   "starting a server?)", dir, DIR_LOCK_WAIT_NS / 1000000000ull);
			close(fd);
			return -1;
		}
		usleep(pause_us);
		if (pause_us < 2000)
			pause_us *= 2;
	}
	return fd;
}

/*
 * Under the directory lock: what sits at path. SUCCESS: nothing, or a stale
 * socket of ours, now removed; ALREADY_EXIST: a live listener (*owner its
 * pid, 0 when its queue is full and it cannot be asked); NOT_PERMITTED: not
 * a socket of ours; BAD_STATE: it answers as dying_pid (> 0) while that pid
 * is exiting - its last moment, the kernel is closing its descriptors: ask
 * again after releasing the lock.
 */
static doca_error_t clear_path_locked(const char *path, const struct sockaddr_un *sa, pid_t dying_pid, pid_t *owner)
{
	struct stat st, st2;
	struct ucred cr;
	socklen_t len = sizeof(cr);
	int probe, rc, e, tries = 0;

again:
	*owner = 0;
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? DOCA_SUCCESS : DOCA_ERROR_OPERATING_SYSTEM;
	if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid())
		return DOCA_ERROR_NOT_PERMITTED;
	probe = new_socket();
	if (probe < 0)
		return DOCA_ERROR_OPERATING_SYSTEM;
	rc = connect(probe, (const struct sockaddr *)sa, sizeof(*sa));
	e = errno;
	if (rc == 0 && getsockopt(probe, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0)
		*owner = cr.pid;
	close(probe);
	if (rc == 0 && dying_pid > 0 && *owner == dying_pid && pid_exiting(dying_pid))
		return DOCA_ERROR_BAD_STATE;
	if (rc == 0 || e == EAGAIN)
		return DOCA_ERROR_ALREADY_EXIST;
	if (e == ENOENT) /* its owner just stopped */
		return DOCA_SUCCESS;
	if (e != ECONNREFUSED)
		return DOCA_ERROR_OPERATING_SYSTEM;
	/* Only the very file probed. Gone: its owner stopped. Replaced (not by
	 * anyone holding the lock): look at the new one. */
	if (lstat(path, &st2) != 0)
		return DOCA_SUCCESS;
	if (st2.st_dev != st.st_dev || st2.st_ino != st.st_ino)
		goto again_or_give_up;
	SD_LOG_INFO("reclaiming stale socket %s (its server is gone)", path);
	if (unlink(path) != 0 && errno != ENOENT)
		return DOCA_ERROR_OPERATING_SYSTEM;
	return DOCA_SUCCESS;
again_or_give_up:
	if (++tries < 3)
		goto again;
	return DOCA_ERROR_ALREADY_EXIST;
}

static void log_owner(doca_error_t err, const char *path, pid_t owner)
{
	if (err == DOCA_ERROR_ALREADY_EXIST && owner > 0)
		SD_LOG_ERR("another server (pid %d) already listens on %s", (int)owner, path);
	else if (err == DOCA_ERROR_ALREADY_EXIST)
		SD_LOG_ERR("another server already listens on %s (its connection queue is full)", path);
	else if (err == DOCA_ERROR_NOT_PERMITTED)
		SD_LOG_ERR("%s exists and is not one of our sockets: refusing to replace it", path);
	else
		SD_LOG_ERR("cannot listen on %s: %s", path, strerror(errno));
}

static doca_error_t sock_listen(const struct sd_fabric_addr *addr, struct sd_link **out)
{
	struct sockaddr_un sa;
	struct sd_link_sock *s;
	char path[sizeof(sa.sun_path)];
	struct stat st;
	doca_error_t err;
	pid_t owner;
	int fd, lock;

	if (addr == NULL || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	err = make_sockaddr(addr, path, sizeof(path), &sa);
	if (err != DOCA_SUCCESS)
		return err;
	fd = new_socket();
	if (fd < 0) {
		SD_LOG_ERR("socket: %s", strerror(errno));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	lock = dir_lock(path);
	if (lock < 0) {
		close(fd);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	err = clear_path_locked(path, &sa, 0, &owner);
	if (err != DOCA_SUCCESS) {
		log_owner(err, path, owner);
		goto fail;
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		SD_LOG_ERR("cannot listen on %s: %s", path, strerror(errno));
		err = DOCA_ERROR_OPERATING_SYSTEM;
		goto fail;
	}
	if (listen(fd, 64) != 0 || stat(path, &st) != 0) {
		SD_LOG_ERR("cannot listen on %s: %s", path, strerror(errno));
		unlink(path);
		err = DOCA_ERROR_OPERATING_SYSTEM;
		goto fail;
	}
	s = sock_new(fd);
	if (s == NULL) {
		unlink(path);
		err = DOCA_ERROR_NO_MEMORY;
		goto fail;
	}
	close(lock);
	s->listener = true;
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	strcpy(s->path, path);
	*out = &s->base;
	return DOCA_SUCCESS;
fail:
	close(lock);
	close(fd);
	return err;
}

/* A connected socket becomes a link once the peer's credentials pass; on
 * failure fd is closed. */
static doca_error_t sock_adopt(int fd, const char *what, struct sd_link_sock **out)
{
	struct sd_link_sock *s;
	doca_error_t err;
	pid_t pid;

	err = check_peer(fd, &pid, what);
	if (err != DOCA_SUCCESS) {
		close(fd);
		return err;
	}
	s = sock_new(fd);
	if (s == NULL) {
		close(fd);
		return DOCA_ERROR_NO_MEMORY;
	}
	s->base.peer_pid = pid;
	*out = s;
	return DOCA_SUCCESS;
}

/* Out of descriptors (or kernel memory) for the accepted socket: the
 * pending connection stays queued and the listener stays readable. The
 * caller owns the pause and what to tell the user (the Comch server backs
 * off on a timer and names its server); here it only gets FULL and errno. */
static bool accept_starved(int e)
{
	return e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM;
}

static doca_error_t sock_accept(struct sd_link *listener, struct sd_link **out)
{
	struct sd_link_sock *ls = (struct sd_link_sock *)listener;
	struct sd_link_sock *s;
	doca_error_t err;
	int fd, e;

	if (listener == NULL || out == NULL || listener->fd < 0 || !ls->listener)
		return DOCA_ERROR_INVALID_VALUE;
	fd = accept4(listener->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		e = errno;
		if (e == EAGAIN || e == EWOULDBLOCK || e == EINTR || e == ECONNABORTED)
			return DOCA_ERROR_AGAIN;
		if (accept_starved(e)) {
			SD_LOG_DBG("accept on %s: %s (the peer stays queued)", ls->path, strerror(e));
			errno = e;
			return DOCA_ERROR_FULL;
		}
		SD_LOG_ERR("accept failed on %s: %s", ls->path, strerror(e));
		errno = e;
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	err = sock_adopt(fd, "accept", &s);
	if (err != DOCA_SUCCESS)
		return err;
	*out = &s->base;
	return DOCA_SUCCESS;
}

static doca_error_t sock_connect(const struct sd_fabric_addr *addr, struct sd_link **out)
{
	struct sockaddr_un sa;
	struct sd_link_sock *s;
	char path[sizeof(sa.sun_path)];
	doca_error_t err;
	int fd;

	if (addr == NULL || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	err = make_sockaddr(addr, path, sizeof(path), &sa);
	if (err != DOCA_SUCCESS)
		return err;
	fd = new_socket();
	if (fd < 0)
		return DOCA_ERROR_OPERATING_SYSTEM;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		int e = errno;

		close(fd);
		if (e == ENOENT || e == ECONNREFUSED)
			return DOCA_ERROR_NOT_FOUND;
		if (e == EAGAIN || e == EINTR)
			return DOCA_ERROR_AGAIN;
		SD_LOG_ERR("connect %s: %s", path, strerror(e));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	err = sock_adopt(fd, "connect", &s);
	if (err != DOCA_SUCCESS)
		return err;
	strcpy(s->path, path);
	*out = &s->base;
	return DOCA_SUCCESS;
}

static doca_error_t sock_send(struct sd_link *l, uint16_t type, const void *body, uint32_t len, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct sd_frame_hdr hdr;
	struct iovec iov[2];
	struct msghdr msg;
	doca_error_t err = DOCA_SUCCESS;
	ssize_t n;

	if (l == NULL || (len > 0 && body == NULL) || len > SD_FRAME_MAX_BODY)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&l->lock);
	if (l->fd < 0) {
		err = DOCA_ERROR_NOT_CONNECTED;
		goto out;
	}
	sd_frame_hdr_init(&hdr, type, fd >= 0 ? SD_FRAME_F_FD : 0, len, l->tx_seq);
	iov[0].iov_base = &hdr;
	iov[0].iov_len = sizeof(hdr);
	iov[1].iov_base = (void *)body;
	iov[1].iov_len = len;
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = iov;
	msg.msg_iovlen = len ? 2 : 1;
	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do
		n = sendmsg(l->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
			err = DOCA_ERROR_AGAIN;
		else if (errno == EPIPE || errno == ECONNRESET || errno == ENOTCONN)
			err = DOCA_ERROR_CONNECTION_RESET;
		else
			err = DOCA_ERROR_IO_FAILED;
		goto out;
	}
	l->tx_seq++;
out:
	pthread_mutex_unlock(&l->lock);
	return err;
}

static doca_error_t sock_recv(struct sd_link *l, void *buf, struct sd_frame_view *view, int *fdp)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {.iov_base = buf, .iov_len = SD_FRAME_BUF_SIZE};
	struct msghdr msg;
	struct cmsghdr *c;
	const char *why = NULL;
	doca_error_t err;
	int got_fd = -1, extra = 0;
	ssize_t n;

	if (l == NULL || buf == NULL || view == NULL || fdp == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*fdp = -1;
	if (l->fd < 0)
		return DOCA_ERROR_NOT_CONNECTED;
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl.buf;
	msg.msg_controllen = sizeof(ctl.buf);
	do
		n = recvmsg(l->fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return DOCA_ERROR_AGAIN;
		return DOCA_ERROR_CONNECTION_RESET;
	}
	for (c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			size_t k, nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (k = 0; k < nfd; k++) {
				int f;

				memcpy(&f, CMSG_DATA(c) + k * sizeof(int), sizeof(int));
				if (got_fd < 0) {
					got_fd = f;
				} else {
					close(f);
					extra = 1;
				}
			}
		}
	}
	if (n == 0) {
		/* End of stream, or an empty datagram: descriptors can ride on
		 * one too, and are closed like any other refused frame's. */
		if (got_fd >= 0)
			close(got_fd);
		return DOCA_ERROR_CONNECTION_RESET;
	}
	if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		why = "frame larger than any valid frame";
		err = DOCA_ERROR_INVALID_VALUE;
		goto bad;
	}
	err = sd_frame_parse(buf, (size_t)n, view, &why);
	if (err != DOCA_SUCCESS)
		goto bad;
	err = DOCA_ERROR_INVALID_VALUE;
	if (view->seq != l->rx_seq) {
		why = "frame out of sequence";
		goto bad;
	}
	if (extra || ((view->flags & SD_FRAME_F_FD) != 0) != (got_fd >= 0)) {
		why = "file descriptor does not match the frame flags";
		goto bad;
	}
	l->rx_seq++;
	*fdp = got_fd;
	return DOCA_SUCCESS;
bad:
	if (got_fd >= 0)
		close(got_fd);
	SD_LOG_ERR("malformed frame from peer pid %d (%zd bytes): %s; dropping the link", (int)l->peer_pid, n, why);
	return err;
}

static void sock_close(struct sd_link *l)
{
	struct sd_link_sock *s = (struct sd_link_sock *)l;
	struct stat st;

	if (l == NULL)
		return;
	pthread_mutex_lock(&l->lock);
	if (l->fd >= 0) {
		/* Unlink while still listening: until the close below the file
		 * answers, so no starter takes it for stale and replaces it
		 * under us (see "Who owns a name"). */
		if (s->listener && lstat(s->path, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino)
			unlink(s->path);
		close(l->fd);
		l->fd = -1;
	}
	pthread_mutex_unlock(&l->lock);
}

static void sock_destroy(struct sd_link *l)
{
	if (l == NULL)
		return;
	sock_close(l);
	pthread_mutex_destroy(&l->lock);
	free(l);
}

static doca_error_t sock_reclaim(const struct sd_fabric_addr *addr, pid_t dead_pid)
{
	struct sockaddr_un sa;
	char path[sizeof(sa.sun_path)];
	doca_error_t err;
	pid_t owner;
	int tries, lock;

	if (addr == NULL || dead_pid <= 0)
		return DOCA_ERROR_INVALID_VALUE;
	if (!pid_exiting(dead_pid))
		return DOCA_ERROR_BAD_STATE;
	err = make_sockaddr(addr, path, sizeof(path), &sa);
	if (err != DOCA_SUCCESS)
		return err;
	/* Its listener may still answer while the kernel closes its descriptors:
	 * ask again, releasing the lock in between. */
	for (tries = 0; tries < 100; tries++) {
		lock = dir_lock(path);
		if (lock < 0)
			return DOCA_ERROR_OPERATING_SYSTEM;
		err = clear_path_locked(path, &sa, dead_pid, &owner);
		close(lock);
		if (err != DOCA_ERROR_BAD_STATE)
			return err;
		usleep(10000);
	}
	return DOCA_ERROR_ALREADY_EXIST;
}

static const struct sd_link_ops sock_ops = {
	.name = "socket",
	.listen = sock_listen,
	.reclaim = sock_reclaim,
	.accept = sock_accept,
	.connect = sock_connect,
	.send = sock_send,
	.recv = sock_recv,
	.close = sock_close,
	.destroy = sock_destroy,
};

const struct sd_link_ops *sd_fabric_transport(void)
{
	/* SOFTDOCA_LINK may choose another transport (link_select.c); built
	 * alone (the fabric unit test) the socket is the only one. */
	if (sd_link_select != NULL)
		return sd_link_select(&sock_ops);
	return &sock_ops;
}
