/*
 * ucx_loop_util.h - what the tests that run the UCX link with both ends on
 * this machine over 127.0.0.1 share (tests/ucx/test_link_ucx_loop,
 * tests/ucx/test_remote_ucx, tests/comch_fp/test_fp_two_proc in its "ucx"
 * mode): a free TCP port of the loopback and the link's URL on it.
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
#include <arpa/inet.h>
#include <netinet/in.h>
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

#endif /* UCX_LOOP_UTIL_H_ */
