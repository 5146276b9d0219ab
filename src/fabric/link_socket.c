#define _GNU_SOURCE
/* The socket transport: AF_UNIX SOCK_SEQPACKET in the fabric directory.
 * SEQPACKET keeps frame boundaries and carries SCM_RIGHTS, so one record is
 * one frame and a short read can only mean a malformed peer. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
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
 * Someone's socket file is there: a live listener (ALREADY_EXIST), not ours
 * (NOT_PERMITTED), or stale: removed, only the very file probed. A listener
 * that answers as dying_pid (> 0) while that pid is exiting is its last
 * moment (the kernel is closing its descriptors): retried briefly.
 */
static doca_error_t reclaim_stale(const char *path, const struct sockaddr_un *sa, pid_t dying_pid)
{
	struct stat st, st2;
	int tries, probe, rc, e;

	for (tries = 0; tries < 100; tries++) {
		if (lstat(path, &st) != 0)
			return errno == ENOENT ? DOCA_SUCCESS : DOCA_ERROR_OPERATING_SYSTEM;
		if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid())
			return DOCA_ERROR_NOT_PERMITTED;
		probe = new_socket();
		if (probe < 0)
			return DOCA_ERROR_OPERATING_SYSTEM;
		rc = connect(probe, (const struct sockaddr *)sa, sizeof(*sa));
		e = errno;
		if (rc == 0 && dying_pid > 0) {
			struct ucred cr;
			socklen_t len = sizeof(cr);
			bool dying = getsockopt(probe, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0 &&
				     cr.pid == dying_pid && pid_exiting(dying_pid);

			if (dying) {
				close(probe);
				usleep(10000);
				continue;
			}
		}
		close(probe);
		if (rc == 0 || e == EAGAIN)
			return DOCA_ERROR_ALREADY_EXIST;
		if (e != ECONNREFUSED)
			return DOCA_ERROR_OPERATING_SYSTEM;
		/* Replaced since we probed it: the new file is someone's live one. */
		if (lstat(path, &st2) == 0 && (st2.st_dev != st.st_dev || st2.st_ino != st.st_ino))
			return DOCA_ERROR_ALREADY_EXIST;
		SD_LOG_INFO("reclaiming stale socket %s (its server is gone)", path);
		if (unlink(path) != 0 && errno != ENOENT)
			return DOCA_ERROR_OPERATING_SYSTEM;
		return DOCA_SUCCESS;
	}
	return DOCA_ERROR_ALREADY_EXIST;
}

static doca_error_t sock_listen(const struct sd_fabric_addr *addr, struct sd_link **out)
{
	struct sockaddr_un sa;
	struct sd_link_sock *s;
	char path[sizeof(sa.sun_path)];
	struct stat st;
	doca_error_t err;
	int fd, tries;

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
	for (tries = 0;; tries++) {
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			break;
		if (errno != EADDRINUSE || tries > 0) {
			SD_LOG_ERR("cannot listen on %s: %s", path, strerror(errno));
			close(fd);
			return DOCA_ERROR_OPERATING_SYSTEM;
		}
		err = reclaim_stale(path, &sa, 0);
		if (err != DOCA_SUCCESS) {
			if (err == DOCA_ERROR_ALREADY_EXIST)
				SD_LOG_ERR("another server already listens on %s", path);
			else if (err == DOCA_ERROR_NOT_PERMITTED)
				SD_LOG_ERR("%s exists and is not one of our sockets: refusing to replace it", path);
			close(fd);
			return err;
		}
	}
	if (listen(fd, 64) != 0 || stat(path, &st) != 0) {
		SD_LOG_ERR("cannot listen on %s: %s", path, strerror(errno));
		unlink(path);
		close(fd);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	s = sock_new(fd);
	if (s == NULL) {
		unlink(path);
		close(fd);
		return DOCA_ERROR_NO_MEMORY;
	}
	s->listener = true;
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	strcpy(s->path, path);
	*out = &s->base;
	return DOCA_SUCCESS;
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

static doca_error_t sock_accept(struct sd_link *listener, struct sd_link **out)
{
	struct sd_link_sock *s;
	doca_error_t err;
	int fd;

	if (listener == NULL || out == NULL || listener->fd < 0)
		return DOCA_ERROR_INVALID_VALUE;
	fd = accept4(listener->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED)
			return DOCA_ERROR_AGAIN;
		SD_LOG_ERR("accept: %s", strerror(errno));
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
	if (n == 0)
		return DOCA_ERROR_CONNECTION_RESET;
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
		close(l->fd);
		l->fd = -1;
		/* A newer listener may have reclaimed the name: remove only our own file. */
		if (s->listener && lstat(s->path, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino)
			unlink(s->path);
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

	if (addr == NULL || dead_pid <= 0)
		return DOCA_ERROR_INVALID_VALUE;
	if (!pid_exiting(dead_pid))
		return DOCA_ERROR_BAD_STATE;
	err = make_sockaddr(addr, path, sizeof(path), &sa);
	return err == DOCA_SUCCESS ? reclaim_stale(path, &sa, dead_pid) : err;
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
	return &sock_ops;
}
