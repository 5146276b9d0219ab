/*
 * ucx_loop_util.h - what the tests that run the UCX link with both ends on
 * this machine over 127.0.0.1 share (tests/ucx/test_link_ucx_loop,
 * tests/ucx/test_remote_ucx, and tests/comch_fp/test_fp_two_proc and
 * tests/sync_event/test_sync_event in their "ucx" mode): a free TCP port of
 * the loopback, the link's URL on it, and the environment that puts a
 * process and the peers it starts on that link.
 *
 * Header only (static inline): each test includes it by a relative path,
 * without a library of its own.
 */
#ifndef UCX_LOOP_UTIL_H_
#define UCX_LOOP_UTIL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

/* A TCP port of 127.0.0.1 free at the time of the call: bound as port 0,
 * read back and released. 0 if none could be had. */
static inline uint16_t ucx_loop_free_port(void)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	socklen_t len = sizeof(sin);
	bool ok;
	int fd;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return 0;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0 && getsockname(fd, (struct sockaddr *)&sin, &len) == 0;
	close(fd);
	return ok ? ntohs(sin.sin_port) : 0;
}

/* The link's URL on a free port of the loopback, "ucx://127.0.0.1:PORT",
 * into url (size bytes): the port, or 0 (url untouched) if none could be
 * had. */
static inline uint16_t ucx_loop_url(char *url, size_t size)
{
	uint16_t port = ucx_loop_free_port();

	if (port != 0)
		snprintf(url, size, "ucx://127.0.0.1:%u", (unsigned)port);
	return port;
}

/* Where ucx_loop_env keeps its secret file; removed at exit. */
static char ucx_loop_dir[64];

static inline void ucx_loop_env_cleanup(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/secret", ucx_loop_dir);
	unlink(path);
	rmdir(ucx_loop_dir);
}

/* SOFTDOCA_LINK on a free port of the loopback, SOFTDOCA_LINK_SECRET_FILE
 * naming a secret (mode 0600) in a directory of our own, UCX_TLS=tcp unless
 * set: for this process and every peer it starts. false if any of it could
 * not be done. */
static inline bool ucx_loop_env(const char *secret)
{
	char path[128], url[64];
	size_t n = strlen(secret);
	int fd;

	snprintf(ucx_loop_dir, sizeof(ucx_loop_dir), "/tmp/sd-ucx-loop-XXXXXX");
	if (mkdtemp(ucx_loop_dir) == NULL)
		return false;
	atexit(ucx_loop_env_cleanup);
	snprintf(path, sizeof(path), "%s/secret", ucx_loop_dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, secret, n) != (ssize_t)n) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	close(fd);
	if (ucx_loop_url(url, sizeof(url)) == 0)
		return false;
	setenv("SOFTDOCA_LINK", url, 1);
	setenv("SOFTDOCA_LINK_SECRET_FILE", path, 1);
	setenv("UCX_TLS", "tcp", 0);
	return true;
}

#endif /* UCX_LOOP_UTIL_H_ */
