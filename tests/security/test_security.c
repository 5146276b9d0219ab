/*
 * test_security.c - another user cannot use a fabric (issue 6).
 *
 * A Comch server (comch_peer of the dpu build) listens in a private fabric
 * directory owned by root. A forked child drops to nobody (65534) and tries
 * to list the directory, to connect to the server's socket by path and to
 * start a Comch client on that fabric: each must fail, and the server must
 * report no connection. With the directory opened to traversal and the
 * socket to everyone, a raw connect by nobody reaches the server, which must
 * drop it unannounced (SO_PEERCRED). A client of the owner then connects (so
 * the server did listen and would have reported) and stops the server; after
 * that nothing stays in the fabric directory.
 *
 * Needs root (exit 77 = skipped otherwise) and the host flavor with the dpu
 * build as peer (-Dpeer_build); skipped without it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>

#define NOBODY 65534
#define SRV_NAME "sec_srv"

static char fabric[64];
static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];

static struct server {
	pid_t pid;
	int out;
	char buf[4096];
	size_t len;
	bool reaped;
} srv;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static const char *server_build(void)
{
	const char *b = getenv("SOFTDOCA_PEER_BUILD_DIR");

	return b != NULL && *b != '\0' ? b : NULL;
}

static bool server_available(void)
{
	char p[512];

	if (server_build() == NULL)
		return false;
	snprintf(p, sizeof(p), "%s/tests/comch/comch_peer", server_build());
	return access(p, X_OK) == 0;
}

static void server_start(void)
{
	char path[512];
	int fds[2];

	snprintf(path, sizeof(path), "%s/tests/comch/comch_peer", server_build());
	assert_int_equal(pipe(fds), 0);
	memset(&srv, 0, sizeof(srv));
	srv.pid = fork();
	assert_true(srv.pid >= 0);
	if (srv.pid == 0) {
		char lib[512];

		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		snprintf(lib, sizeof(lib), "%s/src", server_build());
		setenv("LD_LIBRARY_PATH", lib, 1);
		execl(path, path, SRV_NAME, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	srv.out = fds[0];
}

/* Wait up to ms for a line `word` from the server; false on timeout/EOF. */
static bool server_expect(const char *word, uint64_t ms)
{
	uint64_t end = now_ms() + ms;

	for (;;) {
		char *nl;

		while ((nl = memchr(srv.buf, '\n', srv.len)) != NULL) {
			size_t l = (size_t)(nl - srv.buf);
			bool hit = strlen(word) == l && memcmp(srv.buf, word, l) == 0;

			memmove(srv.buf, nl + 1, srv.len - l - 1);
			srv.len -= l + 1;
			if (hit)
				return true;
		}
		struct pollfd pfd = {.fd = srv.out, .events = POLLIN};
		int64_t left = (int64_t)end - (int64_t)now_ms();

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			return false;
		ssize_t n = read(srv.out, srv.buf + srv.len, sizeof(srv.buf) - srv.len - 1);

		if (n <= 0)
			return false;
		srv.len += (size_t)n;
	}
}

static int wait_pid(pid_t pid, uint64_t ms)
{
	uint64_t end = now_ms() + ms;
	int status;

	while (now_ms() < end) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		usleep(2000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

static bool drop_to_nobody(void)
{
	if (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
		return false;
	return geteuid() == NOBODY && getegid() == NOBODY && setuid(0) != 0;
}

static doca_error_t open_first(struct doca_dev **dev)
{
	struct doca_devinfo **list;
	uint32_t n;
	doca_error_t err = doca_devinfo_create_list(&list, &n);

	if (err != DOCA_SUCCESS)
		return err;
	err = n > 0 ? doca_dev_open(list[0], dev) : DOCA_ERROR_NOT_FOUND;
	doca_devinfo_destroy_list(list);
	return err;
}

static void sent_cb(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void msg_cb(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len,
		   struct doca_comch_connection *c)
{
	(void)ev;
	(void)buf;
	(void)len;
	(void)c;
}

static enum doca_ctx_states ctx_state(struct doca_ctx *ctx)
{
	enum doca_ctx_states s = DOCA_CTX_STATE_IDLE;

	doca_ctx_get_state(ctx, &s);
	return s;
}

/*
 * Start a Comch client on SOFTDOCA_FABRIC; if it gets to RUNNING and msg is
 * not NULL, send msg. Returns the state reached within 3 s (IDLE when the
 * start failed), after tearing the client down.
 */
static enum doca_ctx_states comch_client_try(const char *msg)
{
	struct doca_comch_client *client;
	struct doca_comch_connection *conn;
	struct doca_comch_task_send *t;
	enum doca_ctx_states reached;
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_ctx *ctx;
	doca_error_t err;
	uint64_t end;

	if (open_first(&dev) != DOCA_SUCCESS || doca_pe_create(&pe) != DOCA_SUCCESS ||
	    doca_comch_client_create(dev, SRV_NAME, &client) != DOCA_SUCCESS)
		return DOCA_CTX_STATE_STOPPING; /* "not IDLE": setup problem, reported as a failure */
	ctx = doca_comch_client_as_ctx(client);
	doca_comch_client_task_send_set_conf(client, sent_cb, sent_cb, 8);
	doca_comch_client_event_msg_recv_register(client, msg_cb);
	doca_pe_connect_ctx(pe, ctx);
	err = doca_ctx_start(ctx);
	fprintf(stderr, "client start: %s\n", doca_error_get_name(err));
	end = now_ms() + 3000;
	while (ctx_state(ctx) == DOCA_CTX_STATE_STARTING && now_ms() < end)
		if (!doca_pe_progress(pe))
			usleep(200);
	reached = ctx_state(ctx);
	if (reached == DOCA_CTX_STATE_RUNNING && msg != NULL &&
	    doca_comch_client_get_connection(client, &conn) == DOCA_SUCCESS &&
	    doca_comch_client_task_send_alloc_init(client, conn, msg, (uint32_t)strlen(msg), &t) == DOCA_SUCCESS) {
		if (doca_task_submit(doca_comch_task_send_as_task(t)) != DOCA_SUCCESS)
			doca_task_free(doca_comch_task_send_as_task(t));
		end = now_ms() + 200;
		while (now_ms() < end)
			if (!doca_pe_progress(pe))
				usleep(200);
	}
	if (ctx_state(ctx) != DOCA_CTX_STATE_IDLE && doca_ctx_stop(ctx) != DOCA_SUCCESS) {
		end = now_ms() + 3000;
		while (ctx_state(ctx) != DOCA_CTX_STATE_IDLE && now_ms() < end)
			if (!doca_pe_progress(pe))
				usleep(200);
	}
	doca_comch_client_destroy(client);
	doca_pe_destroy(pe);
	doca_dev_close(dev);
	return reached;
}

/* Attempts of the nobody child; bit set = the attempt wrongly succeeded. */
#define A_SETUP 1
#define A_LIST 2
#define A_STAT 4
#define A_CONNECT 8
#define A_COMCH 16

static int attacker(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;
	int res = 0, fd;
	DIR *d;

	if (!drop_to_nobody())
		return A_SETUP;
	d = opendir(fabric);
	if (d != NULL) {
		closedir(d);
		res |= A_LIST;
	} else {
		fprintf(stderr, "nobody: opendir %s: %s\n", fabric, strerror(errno));
	}
	if (stat(sock_path, &st) == 0)
		res |= A_STAT;
	strcpy(sa.sun_path, sock_path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (fd < 0)
		return res | A_SETUP;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		res |= A_CONNECT;
	else
		fprintf(stderr, "nobody: connect %s: %s\n", sock_path, strerror(errno));
	close(fd);
	setenv("SOFTDOCA_FABRIC", fabric, 1);
	if (comch_client_try(NULL) != DOCA_CTX_STATE_IDLE)
		res |= A_COMCH;
	return res;
}

/* With the path reachable, the connect goes through to the server, which
 * must hang up at once. 0 = dropped; 1 = kept; 2 = setup failed. */
static int raw_intruder(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct pollfd pfd;
	char junk[64] = "hello from nobody";
	int fd;

	if (!drop_to_nobody())
		return 2;
	strcpy(sa.sun_path, sock_path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		fprintf(stderr, "nobody: raw connect: %s\n", strerror(errno));
		return 2;
	}
	(void)send(fd, junk, sizeof(junk), MSG_NOSIGNAL);
	pfd.fd = fd;
	pfd.events = POLLIN;
	for (uint64_t end = now_ms() + 3000; now_ms() < end;) {
		if (poll(&pfd, 1, 100) > 0) {
			ssize_t n = recv(fd, junk, sizeof(junk), MSG_DONTWAIT);

			if (n == 0 || (n < 0 && errno != EAGAIN)) {
				close(fd);
				return 0;
			}
			/* the server answered something to a stranger */
			close(fd);
			return 1;
		}
	}
	close(fd);
	return 1;
}

static int run_child(int (*fn)(void))
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn()); /* _exit: no leak check in a process that can no longer ptrace itself */
	return wait_pid(pid, 10000);
}

static int count_entries(void)
{
	DIR *d = opendir(fabric);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (n == 0) {
			int len = snprintf(sock_path, sizeof(sock_path), "%s/%s", fabric, e->d_name);

			assert_true(len > 0 && (size_t)len < sizeof(sock_path));
		}
		n++;
	}
	closedir(d);
	return n;
}

static int owner_quit_client(void)
{
	return comch_client_try("quit") == DOCA_CTX_STATE_RUNNING ? 0 : 1;
}

static void other_user_cannot_use_fabric(void **s)
{
	struct stat st;
	int rc;

	(void)s;
	if (!server_available()) {
		print_message("no dpu peer build (-Dpeer_build): skipped\n");
		skip();
	}
	strcpy(fabric, "/tmp/sdsec-XXXXXX");
	assert_non_null(mkdtemp(fabric));
	assert_int_equal(chmod(fabric, 0700), 0);
	setenv("SOFTDOCA_FABRIC", fabric, 1);

	server_start();
	assert_true(server_expect("READY", 10000));
	assert_int_equal(count_entries(), 1);
	assert_int_equal(stat(sock_path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));

	/* (a) list, stat, (b) connect by path, (c) Comch client: all refused */
	rc = run_child(attacker);
	assert_int_equal(rc, 0);
	assert_false(server_expect("CONNECT", 300));

	/* second layer: path reachable and socket open to all; the server hangs up */
	assert_int_equal(chmod(fabric, 0711), 0);
	assert_int_equal(chmod(sock_path, 0777), 0);
	rc = run_child(raw_intruder);
	assert_int_equal(chmod(fabric, 0700), 0);
	assert_int_equal(chmod(sock_path, st.st_mode & 07777), 0);
	assert_int_equal(rc, 0);
	assert_false(server_expect("CONNECT", 300));

	/* the owner gets through (so the server did listen), and stops it */
	rc = run_child(owner_quit_client);
	assert_int_equal(rc, 0);
	assert_true(server_expect("CONNECT", 3000));
	assert_true(server_expect("DONE", 5000));
	rc = wait_pid(srv.pid, 5000);
	srv.reaped = true;
	close(srv.out);
	assert_int_equal(rc, 0);

	/* nothing stays behind */
	assert_int_equal(count_entries(), 0);
	assert_int_equal(rmdir(fabric), 0);
}

/* After a failure: no server left running, no directory left behind. */
static int cleanup(void **s)
{
	DIR *d;
	struct dirent *e;
	char p[512];

	(void)s;
	if (srv.pid > 0 && !srv.reaped) {
		kill(srv.pid, SIGKILL);
		waitpid(srv.pid, NULL, 0);
		close(srv.out);
		srv.reaped = true;
	}
	if (fabric[0] != '\0' && (d = opendir(fabric)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(p, sizeof(p), "%s/%s", fabric, e->d_name);
			unlink(p);
		}
		closedir(d);
		rmdir(fabric);
	}
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(other_user_cannot_use_fabric, cleanup),
	};

	if (geteuid() != 0) {
		fprintf(stderr, "test_security needs root (to switch to another user): skipped\n");
		return 77;
	}
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
