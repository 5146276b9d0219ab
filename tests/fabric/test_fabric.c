#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

/* A relative SOFTDOCA_FABRIC is resolved once, at first use: a later chdir
 * does not move the fabric away from the peers. */
static void test_dir_relative(void **state)
{
	const struct sd_link_ops *ops = sd_fabric_transport();
	struct sd_fabric_addr a = mkaddr("rel");
	char cwd[PATH_MAX], base[PATH_MAX], path[PATH_MAX], want[PATH_MAX + 16];
	struct sd_link *lis = NULL, *l = NULL;

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_non_null(realpath(fabric, base));
	snprintf(want, sizeof(want), "%s/relfab", base);
	assert_int_equal(chdir(fabric), 0);
	setenv("SOFTDOCA_FABRIC", "relfab/", 1);
	assert_int_equal(sd_fabric_dir(path, sizeof(path)), DOCA_SUCCESS);
	assert_string_equal(path, want);
	assert_int_equal(ops->listen(&a, &lis), DOCA_SUCCESS);
	/* the program moves: same fabric */
	assert_int_equal(chdir("/"), 0);
	assert_int_equal(sd_fabric_dir(path, sizeof(path)), DOCA_SUCCESS);
	assert_string_equal(path, want);
	assert_int_equal(ops->connect(&a, &l), DOCA_SUCCESS);
	assert_int_equal(l->peer_pid, getpid());
	sd_link_destroy(l);
	sd_link_destroy(lis);
	assert_int_equal(fabric_dir_count(want), 0);
	assert_int_equal(rmdir(want), 0);
	/* a relative name of a symbolic link is refused as an absolute one is */
	assert_int_equal(chdir(fabric), 0);
	assert_int_equal(symlink("/tmp", "lnk"), 0);
	setenv("SOFTDOCA_FABRIC", "lnk/", 1);
	assert_int_equal(sd_fabric_dir(path, sizeof(path)), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(unlink("lnk"), 0);
	assert_int_equal(chdir(cwd), 0);
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

/* ---- one owner per name -------------------------------------------------- */

struct race_result {
	pid_t pid;
	doca_error_t err;
};

struct racer {
	pid_t pid;
	int err_fd; /* read end of its stderr */
};

/* A child that waits on go, listens on a, reports to res, then holds the
 * name until stop reads EOF (a loser exits at once). Its stderr goes to a
 * pipe whose read end the caller gets. */
static void racer_start(struct racer *r, const struct sd_fabric_addr *a, int go, int go_w, int res, int stop,
			int stop_w)
{
	int ep[2];

	assert_int_equal(pipe(ep), 0);
	r->pid = fork();
	assert_true(r->pid >= 0);
	if (r->pid == 0) {
		const struct sd_link_ops *ops = sd_fabric_transport();
		struct race_result rr;
		struct sd_link *l = NULL;
		char ch;

		close(go_w);
		close(stop_w);
		close(ep[0]);
		dup2(ep[1], 2);
		close(ep[1]);
		if (go >= 0 && read(go, &ch, 1) != 0)
			_exit(3);
		rr.pid = getpid();
		rr.err = ops->listen(a, &l);
		if (write(res, &rr, sizeof(rr)) != sizeof(rr))
			_exit(4);
		if (rr.err == DOCA_SUCCESS) {
			if (read(stop, &ch, 1) != 0)
				_exit(5);
			sd_link_destroy(l);
		}
		_exit(0);
	}
	close(ep[1]);
	r->err_fd = ep[0];
}

/* Wait for the child and collect what it logged. */
static void racer_end(struct racer *r, char *log, size_t cap)
{
	size_t n = 0;
	ssize_t k;
	int st;

	while (n + 1 < cap && (k = read(r->err_fd, log + n, cap - 1 - n)) > 0)
		n += (size_t)k;
	log[n] = '\0';
	close(r->err_fd);
	assert_int_equal(waitpid(r->pid, &st, 0), r->pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* The client reaches the server of pid, or the server is orphaned. */
static bool reaches(const struct sd_fabric_addr *a, pid_t pid)
{
	struct sd_link *l = NULL;
	bool ok;

	if (sd_fabric_transport()->connect(a, &l) != DOCA_SUCCESS)
		return false;
	ok = l->peer_pid == pid;
	sd_link_destroy(l);
	return ok;
}

#define RACE_PAIRS 150

/* Two servers of one name released together: exactly one owns the name, the
 * other fails naming the owner's pid, a client always reaches the owner,
 * and nothing is left once both are gone. Then a starter racing the owner's
 * stop: it either fails naming the owner or owns the name, never orphaned. */
static void test_same_name_race(void **state)
{
	struct sd_fabric_addr a = mkaddr("twin");
	int i, k, both = 0, none = 0, orphans = 0, unnamed = 0, left = 0, stop_orphans = 0, stop_left = 0, stop_unnamed = 0;
	static char log[8192];
	char want[64];

	for (i = 0; i < RACE_PAIRS; i++) {
		int go[2], res[2], stop[2], ok = 0;
		struct race_result rr[2], *win = NULL, *lose = NULL;
		struct racer r[2];

		assert_int_equal(pipe(go), 0);
		assert_int_equal(pipe(res), 0);
		assert_int_equal(pipe(stop), 0);
		for (k = 0; k < 2; k++)
			racer_start(&r[k], &a, go[0], go[1], res[1], stop[0], stop[1]);
		close(go[1]);
		for (k = 0; k < 2; k++) {
			assert_int_equal(read(res[0], &rr[k], sizeof(rr[k])), sizeof(rr[k]));
			if (rr[k].err == DOCA_SUCCESS) {
				ok++;
				win = &rr[k];
			} else {
				lose = &rr[k];
			}
		}
		if (ok == 2) {
			both++;
			/* both believe they listen: a client reaches one at most */
			orphans++;
		} else if (ok == 0) {
			none++;
		} else if (!reaches(&a, win->pid)) {
			orphans++;
		}
		close(stop[1]);
		for (k = 0; k < 2; k++) {
			racer_end(&r[k], log, sizeof(log));
			if (ok == 1 && r[k].pid == lose->pid) {
				snprintf(want, sizeof(want), "pid %d", (int)win->pid);
				if (lose->err != DOCA_ERROR_ALREADY_EXIST || strstr(log, want) == NULL) {
					if (unnamed++ == 0)
						fprintf(stderr, "loser: error %d, its log does not name %s:\n%s",
							(int)lose->err, want, log);
				}
			}
		}
		if (fabric_dir_count(fabric) != 0) {
			left++;
			assert_int_equal(fabric_dir_remove(fabric), fabric_dir_count(fabric));
			assert_int_equal(mkdir(fabric, 0700), 0);
		}
		close(go[0]);
		close(res[0]);
		close(res[1]);
		close(stop[0]);
	}
	fprintf(stderr, "same-name race: %d pairs, both listening %d, none %d, orphaned %d, loser not naming "
		"the owner (or wrong error) %d, files left %d\n", RACE_PAIRS, both, none, orphans, unnamed, left);

	/* a starter racing the owner's stop */
	for (i = 0; i < RACE_PAIRS / 2; i++) {
		int stop[2], stop2[2], res[2];
		struct race_result ro, rs;
		struct racer owner, starter;

		assert_int_equal(pipe(stop), 0);
		assert_int_equal(pipe(res), 0);
		racer_start(&owner, &a, -1, -1, res[1], stop[0], stop[1]);
		assert_int_equal(read(res[0], &ro, sizeof(ro)), sizeof(ro));
		assert_int_equal(ro.err, DOCA_SUCCESS);
		assert_int_equal(pipe(stop2), 0);
		/* the starter is released by the same EOF that stops the owner */
		racer_start(&starter, &a, stop[0], stop[1], res[1], stop2[0], stop2[1]);
		close(stop[1]);
		assert_int_equal(read(res[0], &rs, sizeof(rs)), sizeof(rs));
		racer_end(&owner, log, sizeof(log));
		if (rs.err == DOCA_SUCCESS && !reaches(&a, rs.pid))
			stop_orphans++;
		close(stop2[1]);
		racer_end(&starter, log, sizeof(log));
		snprintf(want, sizeof(want), "pid %d", (int)ro.pid);
		if (rs.err != DOCA_SUCCESS && (rs.err != DOCA_ERROR_ALREADY_EXIST || strstr(log, want) == NULL))
			stop_unnamed++;
		if (fabric_dir_count(fabric) != 0) {
			stop_left++;
			assert_int_equal(fabric_dir_remove(fabric), fabric_dir_count(fabric));
			assert_int_equal(mkdir(fabric, 0700), 0);
		}
		close(stop[0]);
		close(stop2[0]);
		close(res[0]);
		close(res[1]);
	}
	fprintf(stderr, "start-during-stop race: %d rounds, orphaned %d, failed without naming the owner %d, "
		"files left %d\n", RACE_PAIRS / 2, stop_orphans, stop_unnamed, stop_left);
	assert_int_equal(both, 0);
	assert_int_equal(none, 0);
	assert_int_equal(orphans, 0);
	assert_int_equal(unnamed, 0);
	assert_int_equal(left, 0);
	assert_int_equal(stop_orphans, 0);
	assert_int_equal(stop_unnamed, 0);
	assert_int_equal(stop_left, 0);
}

/* ---- out of descriptors at accept ---------------------------------------- */

static int open_fds(void)
{
	int n = fabric_dir_count("/proc/self/fd");

	return n > 0 ? n - 1 : n; /* less the directory being read */
}

/* The server child: few descriptors; a simple caller that retries every
 * 5 ms whatever accept says; answers "ping" with "pong", ends on "quit".
 * Exits 0 if it ran out of descriptors (FULL with EMFILE, the transport's
 * contract: the caller pauses and tells the user) and served again. */
static void starved_server(const struct sd_fabric_addr *a, int ready)
{
	const struct sd_link_ops *ops = sd_fabric_transport();
	static uint8_t buf[SD_FRAME_BUF_SIZE];
	struct sd_link *lis = NULL, *conns[64];
	struct rlimit rl;
	int n = 0, full = 0, bad_errno = 0, served = 0, quit = 0, i, fd;
	uint64_t deadline = now_ms() + 20000;

	if (ops->listen(a, &lis) != DOCA_SUCCESS)
		_exit(10);
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		_exit(11);
	rl.rlim_cur = (rlim_t)open_fds() + 5;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		_exit(12);
	if (write(ready, "r", 1) != 1)
		_exit(13);
	while (!quit && now_ms() < deadline) {
		struct sd_link *c = NULL;
		doca_error_t err;

		errno = 0;
		err = ops->accept(lis, &c);

		if (err == DOCA_SUCCESS && n < 64) {
			conns[n++] = c;
		} else if (err == DOCA_SUCCESS) {
			sd_link_destroy(c);
		} else if (err == DOCA_ERROR_FULL) {
			full++;
			if (errno != EMFILE)
				bad_errno++;
		}
		usleep(5000);
		for (i = 0; i < n; i++) {
			struct sd_frame_view v;

			err = sd_link_recv(conns[i], buf, &v, &fd);
			if (err == DOCA_ERROR_AGAIN)
				continue;
			if (err == DOCA_SUCCESS && v.type == SD_FRAME_MSG && v.length == 4 &&
			    memcmp(v.body, "ping", 4) == 0) {
				if (sd_link_send(conns[i], SD_FRAME_MSG, "pong", 4, -1) == DOCA_SUCCESS)
					served++;
				continue;
			}
			if (err == DOCA_SUCCESS && v.type == SD_FRAME_MSG && v.length == 4 &&
			    memcmp(v.body, "quit", 4) == 0)
				quit = 1;
			if (fd >= 0)
				close(fd);
			sd_link_destroy(conns[i]);
			conns[i--] = conns[--n];
		}
	}
	for (i = 0; i < n; i++)
		sd_link_destroy(conns[i]);
	sd_link_destroy(lis);
	_exit(!quit ? 20 : full == 0 ? 21 : bad_errno ? 22 : served == 0 ? 23 : 0);
}

/* A listener out of descriptors with clients queued, polled every 5 ms: the
 * transport answers FULL with EMFILE and logs nothing above DEBUG (no flood:
 * the caller owns the pause and the message, see comch_diag), the peers stay
 * queued, and service resumes once they leave. */
static void test_accept_out_of_fds(void **state)
{
	const struct sd_link_ops *ops = sd_fabric_transport();
	struct sd_fabric_addr a = mkaddr("starved");
	static uint8_t buf[SD_FRAME_BUF_SIZE];
	static char log[1 << 16];
	struct sd_link *cl[40], *l = NULL;
	struct sd_frame_view v;
	int ready[2], ep[2], i, st, fd, lines = 0;
	doca_error_t err = DOCA_ERROR_NOT_FOUND;
	size_t len = 0;
	ssize_t k;
	char ch, *p;
	pid_t pid;

	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(ep), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(ready[0]);
		close(ep[0]);
		dup2(ep[1], 2);
		close(ep[1]);
		starved_server(&a, ready[1]);
	}
	close(ready[1]);
	close(ep[1]);
	assert_int_equal(read(ready[0], &ch, 1), 1);
	for (i = 0; i < 40; i++)
		assert_int_equal(ops->connect(&a, &cl[i]), DOCA_SUCCESS);
	usleep(1500 * 1000);
	for (i = 0; i < 40; i++)
		sd_link_destroy(cl[i]);
	/* served again: a new client gets its answer */
	for (i = 0; i < 500 && err != DOCA_SUCCESS; i++) {
		err = ops->connect(&a, &l);
		if (err != DOCA_SUCCESS)
			usleep(10000);
	}
	assert_int_equal(err, DOCA_SUCCESS);
	assert_int_equal(sd_link_send(l, SD_FRAME_MSG, "ping", 4, -1), DOCA_SUCCESS);
	err = recv_wait(l, buf, &v, &fd, 5000);
	if (err == DOCA_SUCCESS)
		assert_true(v.length == 4 && memcmp(v.body, "pong", 4) == 0);
	(void)sd_link_send(l, SD_FRAME_MSG, "quit", 4, -1);
	while (len + 1 < sizeof(log) && (k = read(ep[0], log + len, sizeof(log) - 1 - len)) > 0)
		len += (size_t)k;
	log[len] = '\0';
	close(ep[0]);
	close(ready[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	sd_link_destroy(l);
	/* lines about accept above DEBUG (the test log shim prints every level) */
	for (p = log; p != NULL && *p != '\0'; p = strchr(p, '\n') != NULL ? strchr(p, '\n') + 1 : NULL) {
		const char *eol = strchr(p, '\n');
		size_t n = eol != NULL ? (size_t)(eol - p) : strlen(p);
		char one[512];

		snprintf(one, sizeof(one), "%.*s", (int)(n < sizeof(one) - 1 ? n : sizeof(one) - 1), p);
		if (strstr(one, "accept") != NULL && strstr(one, " 60]") == NULL && strstr(one, " 70]") == NULL)
			lines++;
	}
	fprintf(stderr, "out of descriptors: %d log lines about accept above DEBUG, server exit %d\n", lines,
		WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	if (lines != 0)
		fprintf(stderr, "%.1500s", log);
	assert_int_equal(err, DOCA_SUCCESS);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(lines, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_roundtrip),
		cmocka_unit_test(test_frame_malformed),
		cmocka_unit_test_setup_teardown(test_dir_permissions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_relative, setup, teardown),
		cmocka_unit_test_setup_teardown(test_addr_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_process_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kill9_and_stale_reclaim, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_on_wire, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backpressure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_name_race, setup, teardown),
		cmocka_unit_test_setup_teardown(test_accept_out_of_fds, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
