#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "fabric_dir.h"
#include "sd_fabric.h"

static char fabric[256];

static int setup(void **state)
{
	return fabric_dir_make(fabric, sizeof(fabric), "h4fab");
}

static int teardown(void **state)
{
	return fabric_dir_remove(fabric) == 0 ? 0 : -1; /* nothing may be left behind */
}

static struct sd_fabric_addr mkaddr(const char *name)
{
	struct sd_fabric_addr a;

	memset(&a, 0, sizeof(a));
	a.card = 0;
	strcpy(a.pci, "0000:3b:00.0");
	snprintf(a.name, sizeof(a.name), "%s", name);
	return a;
}

static size_t mkframe(void *buf, uint16_t type, uint32_t len, uint64_t seq)
{
	struct sd_frame_hdr h;

	sd_frame_hdr_init(&h, type, 0, len, seq);
	memcpy(buf, &h, sizeof(h));
	memset((char *)buf + sizeof(h), 'x', len);
	return sizeof(h) + len;
}

/* Parse a frame just made by mkframe. */
static doca_error_t parse_new(void *buf, uint16_t type, uint32_t len, uint64_t seq, struct sd_frame_view *v,
			      const char **why)
{
	return sd_frame_parse(buf, mkframe(buf, type, len, seq), v, why);
}

static void test_frame_roundtrip(void **state)
{
	static uint8_t buf[SD_FRAME_BUF_SIZE];
	struct sd_frame_view v;
	const char *why;

	assert_int_equal(parse_new(buf, SD_FRAME_MSG, 5, 7, &v, &why), DOCA_SUCCESS);
	assert_int_equal(v.type, SD_FRAME_MSG);
	assert_int_equal(v.length, 5);
	assert_int_equal(v.seq, 7);
	assert_ptr_equal(v.body, buf + sizeof(struct sd_frame_hdr));
	assert_int_equal(parse_new(buf, SD_FRAME_BYE, 0, 0, &v, &why), DOCA_SUCCESS);
	assert_null(v.body);
	assert_int_equal(parse_new(buf, SD_FRAME_HELLO, sizeof(struct sd_frame_hello), 0, &v, &why), DOCA_SUCCESS);
	assert_int_equal(parse_new(buf, SD_FRAME_FP_FIRST + 3, 100, 0, &v, &why), DOCA_SUCCESS);
	assert_string_equal(sd_frame_type_name(SD_FRAME_FP_FIRST + 3), "FASTPATH");
}

static void test_frame_malformed(void **state)
{
	static uint8_t buf[SD_FRAME_BUF_SIZE + 64];
	struct sd_frame_hdr h;
	struct sd_frame_view v;
	const char *why;
	size_t n;

	assert_int_equal(sd_frame_parse(NULL, 0, &v, &why), DOCA_ERROR_INVALID_VALUE);
	n = mkframe(buf, SD_FRAME_MSG, 10, 0);
	/* truncated header / body, trailing bytes */
	assert_int_equal(sd_frame_parse(buf, 10, &v, &why), DOCA_ERROR_INVALID_VALUE);
	assert_string_equal(why, "truncated header");
	assert_int_equal(sd_frame_parse(buf, n - 1, &v, &why), DOCA_ERROR_INVALID_VALUE);
	assert_string_equal(why, "truncated body");
	assert_int_equal(sd_frame_parse(buf, n + 1, &v, &why), DOCA_ERROR_INVALID_VALUE);
	/* oversized: length claims more than any frame */
	sd_frame_hdr_init(&h, SD_FRAME_MSG, 0, SD_FRAME_MAX_BODY + 1, 0);
	memcpy(buf, &h, sizeof(h));
	assert_int_equal(sd_frame_parse(buf, sizeof(buf), &v, &why), DOCA_ERROR_INVALID_VALUE);
	assert_string_equal(why, "oversized frame");
	sd_frame_hdr_init(&h, SD_FRAME_MSG, 0, 0xffffffffu, 0);
	memcpy(buf, &h, sizeof(h));
	assert_int_equal(sd_frame_parse(buf, sizeof(buf), &v, &why), DOCA_ERROR_INVALID_VALUE);
	/* wrong version, bad magic */
	n = mkframe(buf, SD_FRAME_MSG, 4, 0);
	((struct sd_frame_hdr *)buf)->version = SD_FRAME_VERSION + 1;
	assert_int_equal(sd_frame_parse(buf, n, &v, &why), DOCA_ERROR_UNSUPPORTED_VERSION);
	n = mkframe(buf, SD_FRAME_MSG, 4, 0);
	((struct sd_frame_hdr *)buf)->magic ^= 1;
	assert_int_equal(sd_frame_parse(buf, n, &v, &why), DOCA_ERROR_INVALID_VALUE);
	/* unknown types */
	assert_int_equal(parse_new(buf, 0, 0, 0, &v, &why), DOCA_ERROR_INVALID_VALUE);
	assert_string_equal(why, "unknown frame type");
	assert_int_equal(parse_new(buf, 77, 0, 0, &v, &why), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(parse_new(buf, SD_FRAME_FP_LAST + 1, 0, 0, &v, &why), DOCA_ERROR_INVALID_VALUE);
	/* body size wrong for the type */
	assert_int_equal(parse_new(buf, SD_FRAME_HELLO, sizeof(struct sd_frame_hello) - 1, 0, &v, &why),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(parse_new(buf, SD_FRAME_MSG, 0, 0, &v, &why), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(parse_new(buf, SD_FRAME_BYE, 1, 0, &v, &why), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(parse_new(buf, SD_FRAME_FP_FIRST, SD_FRAME_FP_MAX_BODY + 1, 0, &v, &why),
			 DOCA_ERROR_INVALID_VALUE);
	/* unknown flags */
	n = mkframe(buf, SD_FRAME_MSG, 4, 0);
	((struct sd_frame_hdr *)buf)->flags = 0x80;
	assert_int_equal(sd_frame_parse(buf, n, &v, &why), DOCA_ERROR_INVALID_VALUE);
}

static void test_dir_permissions(void **state)
{
	char path[300], sub[300], link[300];
	struct stat st;

	assert_int_equal(sd_fabric_dir(path, sizeof(path)), DOCA_SUCCESS);
	assert_string_equal(path, fabric);
	/* created when missing, mode 0700 */
	snprintf(sub, sizeof(sub), "%s/sub", fabric);
	setenv("SOFTDOCA_FABRIC", sub, 1);
	assert_int_equal(sd_fabric_dir(path, sizeof(path)), DOCA_SUCCESS);
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	/* group/other access refused */
	assert_int_equal(chmod(sub, 0750), 0);
	assert_int_equal(sd_fabric_dir(path, sizeof(path)), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(chmod(sub, 0707), 0);
	assert_int_equal(sd_fabric_dir_check(sub), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(chmod(sub, 0700), 0);
	assert_int_equal(sd_fabric_dir_check(sub), DOCA_SUCCESS);
	/* a symlink is not a directory we trust */
	snprintf(link, sizeof(link), "%s/lnk", fabric);
	assert_int_equal(symlink(sub, link), 0);
	assert_int_equal(sd_fabric_dir_check(link), DOCA_ERROR_NOT_PERMITTED);
	/* a plain file neither */
	assert_int_equal(sd_fabric_dir_check("/etc/passwd"), DOCA_ERROR_NOT_PERMITTED);
	/* another owner (root's /) */
	if (geteuid() != 0)
		assert_int_equal(sd_fabric_dir_check("/"), DOCA_ERROR_NOT_PERMITTED);
	unlink(link);
	rmdir(sub);
	setenv("SOFTDOCA_FABRIC", fabric, 1);
}

static void test_addr_path(void **state)
{
	struct sd_fabric_addr a = mkaddr("secure_channel_server"), b;
	char p[108], q[108];

	assert_int_equal(sd_fabric_addr_path(&a, p, sizeof(p)), DOCA_SUCCESS);
	assert_non_null(strstr(p, "/card0-0000:3b:00.0-secure_channel_server.sock"));
	a = mkaddr("a b/c");
	assert_int_equal(sd_fabric_addr_path(&a, p, sizeof(p)), DOCA_SUCCESS);
	assert_null(strchr(p + strlen(fabric) + 1, '/'));
	assert_null(strchr(p, ' '));
	b = mkaddr("a_b_c");
	assert_int_equal(sd_fabric_addr_path(&b, q, sizeof(q)), DOCA_SUCCESS);
	assert_string_not_equal(p, q);
	memset(a.name, 'n', 120);
	a.name[120] = '\0';
	assert_int_equal(sd_fabric_addr_path(&a, p, sizeof(p)), DOCA_SUCCESS);
	assert_true(strlen(p) < 108);
	a.name[0] = '\0';
	assert_int_equal(sd_fabric_addr_path(&a, p, sizeof(p)), DOCA_ERROR_INVALID_VALUE);
}

static doca_error_t recv_wait(struct sd_link *l, void *buf, struct sd_frame_view *v, int *fd, int ms)
{
	doca_error_t err;

	for (;;) {
		struct pollfd p = {.fd = l->fd, .events = POLLIN};

		err = sd_link_recv(l, buf, v, fd);
		if (err != DOCA_ERROR_AGAIN || ms <= 0)
			return err;
		poll(&p, 1, 10);
		ms -= 10;
	}
}

static struct sd_link *accept_wait(struct sd_link *lis)
{
	const struct sd_link_ops *ops = sd_fabric_transport();
	struct sd_link *c = NULL;
	int i;

	for (i = 0; i < 300; i++) {
		struct pollfd p = {.fd = lis->fd, .events = POLLIN};

		if (ops->accept(lis, &c) == DOCA_SUCCESS)
			return c;
		poll(&p, 1, 10);
	}
	return NULL;
}

/* Child connects, sends a message with an fd, then a frame, then exits. */
static void test_two_process_link(void **state)
{
	const struct sd_link_ops *ops = sd_fabric_transport();
	struct sd_fabric_addr a = mkaddr("srv");
	static uint8_t buf[SD_FRAME_BUF_SIZE];
	struct sd_link *lis, *c;
	struct sd_frame_view v;
	int fd, status;
	char got[8] = {0};
	pid_t pid;

	assert_int_equal(ops->listen(&a, &lis), DOCA_SUCCESS);
	assert_int_equal(fabric_dir_count(fabric), 1);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sd_link *l = NULL;
		int p[2];

		if (ops->connect(&a, &l) != DOCA_SUCCESS || pipe(p) != 0)
			_exit(1);
		if (write(p[1], "pipe!", 5) != 5)
			_exit(2);
		if (sd_link_send(l, SD_FRAME_MSG, "hello", 5, p[0]) != DOCA_SUCCESS)
			_exit(3);
		if (sd_link_send(l, SD_FRAME_BYE, NULL, 0, -1) != DOCA_SUCCESS)
			_exit(4);
		sd_link_destroy(l);
		close(p[0]);
		close(p[1]);
		_exit(0);
	}
	c = accept_wait(lis);
	assert_non_null(c);
	assert_int_equal(c->peer_pid, pid);
	assert_int_equal(recv_wait(c, buf, &v, &fd, 3000), DOCA_SUCCESS);
	assert_int_equal(v.type, SD_FRAME_MSG);
	assert_int_equal(v.length, 5);
	assert_memory_equal(v.body, "hello", 5);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, got, 5), 5);
	assert_string_equal(got, "pipe!");
	close(fd);
	assert_int_equal(recv_wait(c, buf, &v, &fd, 3000), DOCA_SUCCESS);
	assert_int_equal(v.type, SD_FRAME_BYE);
	assert_int_equal(fd, -1);
	assert_int_equal(recv_wait(c, buf, &v, &fd, 3000), DOCA_ERROR_CONNECTION_RESET);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* sending to a dead peer / closed link */
	assert_int_equal(sd_link_send(c, SD_FRAME_BYE, NULL, 0, -1), DOCA_ERROR_CONNECTION_RESET);
	sd_link_close(c);
	assert_int_equal(sd_link_send(c, SD_FRAME_BYE, NULL, 0, -1), DOCA_ERROR_NOT_CONNECTED);
	sd_link_destroy(c);
	sd_link_destroy(lis);
	assert_int_equal(fabric_dir_count(fabric), 0);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Child is the server; it is killed -9; the client sees it within 1 s, and
 * the next listener reclaims the stale socket. */
static void test_kill9_and_stale_reclaim(void **state)
{
	const struct sd_link_ops *ops = sd_fabric_transport();
	struct sd_fabric_addr a = mkaddr("victim");
	static uint8_t buf[SD_FRAME_BUF_SIZE];
	struct sd_link *l = NULL, *lis = NULL, *lis2 = NULL;
	struct sd_frame_view v;
	int i, fd, sync[2], status;
	uint64_t t0;
	char ch;
	pid_t pid;

	assert_int_equal(pipe(sync), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sd_link *s = NULL, *c;

		if (ops->listen(&a, &s) != DOCA_SUCCESS)
			_exit(1);
		if (write(sync[1], "r", 1) != 1)
			_exit(2);
		c = accept_wait(s);
		(void)c;
		for (;;)
			pause();
	}
	assert_int_equal(read(sync[0], &ch, 1), 1);
	/* a second listener on a live address is refused */
	assert_int_equal(ops->listen(&a, &lis), DOCA_ERROR_ALREADY_EXIST);
	for (i = 0; i < 100 && ops->connect(&a, &l) != DOCA_SUCCESS; i++)
		usleep(10000);
	assert_non_null(l);
	assert_int_equal(recv_wait(l, buf, &v, &fd, 0), DOCA_ERROR_AGAIN);
	kill(pid, SIGKILL);
	t0 = now_ms();
	assert_int_equal(recv_wait(l, buf, &v, &fd, 1000), DOCA_ERROR_CONNECTION_RESET);
	assert_true(now_ms() - t0 < 1000);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	sd_link_destroy(l);
	/* the dead server's socket file is still there: no server answers */
	assert_int_equal(fabric_dir_count(fabric), 1);
	assert_int_equal(ops->connect(&a, &l), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(ops->listen(&a, &lis2), DOCA_SUCCESS);
	sd_link_destroy(lis2);
	assert_int_equal(fabric_dir_count(fabric), 0);
	close(sync[0]);
	close(sync[1]);
}

/* A peer that sends garbage gets its link dropped with a clear error. */
static void test_malformed_on_wire(void **state)
{
	const struct sd_link_ops *ops = sd_fabric_transport();
	struct sd_fabric_addr a = mkaddr("strict");
	static uint8_t buf[SD_FRAME_BUF_SIZE];
	struct sd_link *lis, *c;
	struct sd_frame_view v;
	int fd, status, k;
	pid_t pid;

	assert_int_equal(ops->listen(&a, &lis), DOCA_SUCCESS);
	for (k = 0; k < 4; k++) {
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct sd_link *l = NULL;
			static uint8_t big[SD_FRAME_BUF_SIZE + 100];
			size_t n;

			if (ops->connect(&a, &l) != DOCA_SUCCESS)
				_exit(1);
			if (k == 0) {
				n = mkframe(big, SD_FRAME_MSG, 4, 0);
				((struct sd_frame_hdr *)big)->version = 9;
			} else if (k == 1) {
				n = 7; /* truncated header */
			} else if (k == 2) {
				n = mkframe(big, SD_FRAME_MSG, 4, 5); /* out of sequence */
			} else {
				n = sizeof(big); /* larger than any frame */
				mkframe(big, SD_FRAME_MSG, 4, 0);
			}
			if (send(l->fd, big, n, 0) != (ssize_t)n)
				_exit(2);
			sd_link_destroy(l);
			_exit(0);
		}
		c = accept_wait(lis);
		assert_non_null(c);
		assert_int_equal(recv_wait(c, buf, &v, &fd, 3000),
				 k == 0 ? DOCA_ERROR_UNSUPPORTED_VERSION : DOCA_ERROR_INVALID_VALUE);
		assert_int_equal(fd, -1);
		sd_link_destroy(c);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	sd_link_destroy(lis);
}

/* A peer that does not read fills the link: send answers AGAIN, never blocks. */
static void test_backpressure(void **state)
{
	const struct sd_link_ops *ops = sd_fabric_transport();
	struct sd_fabric_addr a = mkaddr("slow");
	static uint8_t msg[4000], buf[SD_FRAME_BUF_SIZE];
	struct sd_link *lis, *cl = NULL, *sv;
	struct sd_frame_view v;
	doca_error_t err = DOCA_SUCCESS;
	int i, sent = 0, got = 0, fd;

	assert_int_equal(ops->listen(&a, &lis), DOCA_SUCCESS);
	assert_int_equal(ops->connect(&a, &cl), DOCA_SUCCESS);
	sv = accept_wait(lis);
	assert_non_null(sv);
	for (i = 0; i < 100000 && err == DOCA_SUCCESS; i++) {
		err = sd_link_send(cl, SD_FRAME_MSG, msg, sizeof(msg), -1);
		if (err == DOCA_SUCCESS)
			sent++;
	}
	assert_int_equal(err, DOCA_ERROR_AGAIN);
	assert_true(sent > 0);
	while (sd_link_recv(sv, buf, &v, &fd) == DOCA_SUCCESS)
		got++;
	assert_int_equal(got, sent); /* nothing lost, order kept (seq checked) */
	assert_int_equal(sd_link_send(cl, SD_FRAME_MSG, msg, sizeof(msg), -1), DOCA_SUCCESS);
	sd_link_destroy(cl);
	sd_link_destroy(sv);
	sd_link_destroy(lis);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_roundtrip),
		cmocka_unit_test(test_frame_malformed),
		cmocka_unit_test_setup_teardown(test_dir_permissions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_addr_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_process_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kill9_and_stale_reclaim, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_on_wire, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backpressure, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
