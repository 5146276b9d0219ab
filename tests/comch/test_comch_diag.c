/* Comch diagnostics and reliability (issues 14 and 16): what a user is told
 * when the other side misbehaves, and a server that survives running out of
 * descriptors. Two processes, as test_comch.c: in the dpu flavor this
 * process is the server and comch_peer (host build) the clients; in the host
 * flavor this process is the client and comch_peer (dpu build) the server.
 * Each test uses a private fabric dir. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_log.h>
#include <doca_mmap.h>

#include "comch_util.h"
#include "comch_test_peer.h"

static char fabric[256];
static struct doca_dev *dev;
static struct doca_pe *pe;
static FILE *sdk_log;

static int setup(void **state)
{
	return comch_fixture_up(fabric, sizeof(fabric), "comchdiag", &dev, &pe);
}

static int teardown(void **state)
{
	int n = comch_fixture_down(fabric, dev, pe);

	if (n != 0) {
		fprintf(stderr, "fabric dir had %d entries left\n", n);
		return -1;
	}
	return 0;
}

static void log_start(void)
{
	struct doca_log_backend *be;

	if (sdk_log != NULL)
		return;
	sdk_log = tmpfile();
	assert_non_null(sdk_log);
	assert_int_equal(doca_log_backend_create_with_file_sdk(sdk_log, &be), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_INFO), DOCA_SUCCESS);
}

static bool file_contains(FILE *f, const char *s)
{
	static char text[1 << 17];
	size_t n;

	fflush(f);
	rewind(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fseek(f, 0, SEEK_END);
	return strstr(text, s) != NULL;
}

static bool log_contains(const char *s)
{
	return file_contains(sdk_log, s);
}

/* Progress the PE until the SDK log holds s or ms pass. */
static __attribute__((unused)) bool progress_until_log(const char *s, uint64_t ms)
{
	uint64_t end = cu_now_ms() + ms;

	while (!log_contains(s))
		if (!cu_progress_step(pe, end))
			return false;
	return true;
}

/* Lines of path that contain s (-1 if unreadable). */
static int count_lines(const char *path, const char *s)
{
	FILE *f = fopen(path, "r");
	char line[2048];
	int n = 0;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, s) != NULL)
			n++;
	fclose(f);
	return n;
}

/* On a failure: show what the other process wrote (first 4 KiB). */
static __attribute__((unused)) void dump(const char *path)
{
	char text[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return;
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	fprintf(stderr, "---- %s ----\n%s\n----\n", path, text);
}

static __attribute__((unused)) bool path_contains(const char *path, const char *s)
{
	return count_lines(path, s) > 0;
}

/* peer_start with the peer's stderr (its SDK log) in a file of our fabric dir. */
static __attribute__((unused)) void peer_start_logged(struct peer *p, const char *a1, const char *a2, char *errpath,
							size_t cap)
{
	int saved = dup(2), fd;

	snprintf(errpath, cap, "%s/peer-%s-%d.err", fabric, a2 != NULL ? a2 : "x", (int)cu_now_ms() % 100000);
	fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0 && saved >= 0);
	dup2(fd, 2); /* the child inherits it; we put ours back at once */
	close(fd);
	peer_start(p, pe, a1, a2);
	dup2(saved, 2);
	close(saved);
}

#ifdef DOCA_ARCH_DPU
/* ---------------------------------------------------------------- server side */

static struct doca_comch_connection *first_conn;
static volatile int connects, disconnects;

static void sent(struct doca_comch_task_send *t, union doca_data a, union doca_data b)
{
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void echo(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
	struct doca_comch_server *s = doca_comch_server_get_server_ctx(c);
	struct doca_comch_task_send *t;

	if (doca_comch_server_task_send_alloc_init(s, c, buf, len, &t) == DOCA_SUCCESS &&
	    doca_task_submit(doca_comch_task_send_as_task(t)) != DOCA_SUCCESS)
		doca_task_free(doca_comch_task_send_as_task(t));
}

/* As NVIDIA's applications: one client at a time, others turned away. */
static void on_connect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
		       uint8_t ok)
{
	connects++;
	if (first_conn != NULL) {
		doca_comch_server_disconnect(doca_comch_server_get_server_ctx(c), c);
		return;
	}
	first_conn = c;
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
			  uint8_t ok)
{
	disconnects++;
	if (c == first_conn)
		first_conn = NULL;
}

static struct doca_comch_server *server_up(struct doca_dev *d, struct doca_pe *p, const char *name,
					   struct doca_dev_rep **rep)
{
	struct doca_comch_server *s;
	struct doca_ctx *ctx;

	if (cu_open_rep(d, rep) != DOCA_SUCCESS || doca_comch_server_create(d, *rep, name, &s) != DOCA_SUCCESS)
		return NULL;
	ctx = doca_comch_server_as_ctx(s);
	if (doca_comch_server_task_send_set_conf(s, sent, sent, 64) != DOCA_SUCCESS ||
	    doca_comch_server_event_msg_recv_register(s, echo) != DOCA_SUCCESS ||
	    doca_comch_server_event_connection_status_changed_register(s, on_connect, on_disconnect) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(p, ctx) != DOCA_SUCCESS || doca_ctx_start(ctx) != DOCA_SUCCESS)
		return NULL;
	return s;
}

static void server_down(struct doca_pe *p, struct doca_comch_server *s, struct doca_dev_rep *rep)
{
	struct doca_ctx *ctx = doca_comch_server_as_ctx(s);

	if (doca_ctx_stop(ctx) != DOCA_SUCCESS)
		cu_progress_until_state(p, ctx, DOCA_CTX_STATE_IDLE, 3000);
	doca_comch_server_destroy(s);
	doca_dev_rep_close(rep);
}

/* A program that turns a second client away (doca_comch_server_disconnect
 * from its connect event) must let that client know why, and say so itself:
 * before, the client saw only "connection lost (DOCA_ERROR_CONNECTION_RESET)". */
static void test_turned_away_client_told_why(void **state)
{
	struct doca_comch_server *s;
	struct doca_dev_rep *rep;
	struct peer a, b;
	char aerr[512], berr[512];
	uint64_t end;

	if (!peer_available())
		skip();
	log_start();
	first_conn = NULL;
	connects = disconnects = 0;
	s = server_up(dev, pe, "d_one", &rep);
	assert_non_null(s);
	peer_start_logged(&a, "d_one", "stay", aerr, sizeof(aerr));
	assert_true(peer_expect(&a, "GOT ping", 5000));
	peer_start_logged(&b, "d_one", "stay", berr, sizeof(berr));
	end = cu_now_ms() + 5000;
	while (!path_contains(berr, "closed the connection") && cu_progress_step(pe, end))
		;
	assert_true(path_contains(berr, "Comch server \"d_one\" on " HOST_FN " (card 0) closed the connection: server "
					"\"d_one\" turned this client away as it connected (one client at a time?) "
					"(DOCA_ERROR_CONNECTION_ABORTED)"));
	assert_true(log_contains("Comch server \"d_one\": client pid "));
	assert_true(log_contains("turned away by the program's connect event"));
	assert_int_equal(connects, 2);
	peer_kill(&b);
	/* the first client still works and sees a clean end */
	server_down(pe, s, rep);
	assert_true(peer_expect(&a, "LOST", 3000));
	assert_int_equal(peer_wait(&a, 5000), 0);
	unlink(aerr);
	unlink(berr);
}

/* The server child of the EMFILE test: a server whose descriptor limit
 * leaves room for a handful of connections. Says READY, then CONNECT for
 * each client handshaken, on stdout; its SDK log goes to its stderr. */
static int emfile_child(int out)
{
	struct doca_comch_server *s;
	struct doca_dev_rep *rep;
	struct doca_dev *d;
	struct doca_pe *p;
	struct rlimit rl;
	uint64_t end = cu_now_ms() + 20000;
	int last = 0, n, fd;
	static char used[4096];
	DIR *dir;
	struct dirent *e;

	struct doca_log_backend *be;

	first_conn = NULL;
	connects = disconnects = 0;
	/* A backend the parent made may be inherited: ours goes to stderr. */
	if (doca_log_backend_create_with_fd_sdk(2, &be) != DOCA_SUCCESS ||
	    doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_INFO) != DOCA_SUCCESS)
		return 2;
	if (cu_open_dev(&d) != DOCA_SUCCESS || doca_pe_create(&p) != DOCA_SUCCESS)
		return 2;
	s = server_up(d, p, "d_emfile", &rep);
	if (s == NULL)
		return 3;
	/* Room for 4 more descriptors: the limit is on descriptor numbers, so
	 * it goes just below the 5th free one (the fds we inherit have holes). */
	dir = opendir("/proc/self/fd");
	if (dir == NULL)
		return 4;
	while ((e = readdir(dir)) != NULL) {
		fd = atoi(e->d_name);
		if (fd >= 0 && fd < (int)sizeof(used))
			used[fd] = 1;
	}
	closedir(dir);
	for (fd = 0, n = 0; fd < (int)sizeof(used) && n < 5; fd++)
		if (!used[fd] && ++n == 5)
			last = fd;
	if (last == 0)
		return 4;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 5;
	rl.rlim_cur = (rlim_t)last;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 5;
	if (write(out, "READY\n", 6) != 6)
		return 6;
	while (cu_now_ms() < end) {
		n = connects;
		if (!doca_pe_progress(p))
			cu_nap();
		if (connects > n && write(out, "CONNECT\n", 8) != 8)
			return 7;
		if (connects > 0 && first_conn == NULL && disconnects > 0)
			break; /* the client came and left: done */
	}
	server_down(p, s, rep);
	doca_pe_destroy(p);
	doca_dev_close(d);
	return connects > 0 ? 0 : 8;
}

/* The listening socket file of our fabric dir. */
static bool find_listener(struct sockaddr_un *sa)
{
	DIR *d = opendir(fabric);
	struct dirent *e;
	bool found = false;

	if (d == NULL)
		return false;
	while (!found && (e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);

		if (l > 5 && strcmp(e->d_name + l - 5, ".sock") == 0) {
			memset(sa, 0, sizeof(*sa));
			sa->sun_family = AF_UNIX;
			int n = snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/%s", fabric, e->d_name);

			found = n > 0 && (size_t)n < sizeof(sa->sun_path);
		}
	}
	closedir(d);
	return found;
}

/* Issue 16 item 2: with a low RLIMIT_NOFILE, accept() fails with EMFILE and
 * the listener stays readable. The server must back off and log a bounded
 * number of lines that say what to raise, then serve once descriptors are
 * free. (Before: ~100,000 lines a second, CPU at 100%.) */
static void test_emfile_backoff(void **state)
{
	struct sockaddr_un sa;
	char errpath[512];
	int fds[2], raw[40], nraw = 0, i, status, lines;
	struct peer srv, cl;
	pid_t pid;

	if (!peer_available())
		skip();
	snprintf(errpath, sizeof(errpath), "%s/server.err", fabric);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		dup2(fd, 2);
		close(fd);
		close(fds[0]);
		_exit(emfile_child(fds[1]));
	}
	close(fds[1]);
	memset(&srv, 0, sizeof(srv));
	srv.pid = pid;
	srv.out = fds[0];
	fcntl(srv.out, F_SETFL, O_NONBLOCK);
	assert_true(peer_expect(&srv, "READY", 5000));
	assert_true(find_listener(&sa));
	/* Raw connections that never say HELLO: each one the server accepts
	 * holds a descriptor until it ends; the rest wait in the backlog. */
	for (i = 0; i < 40; i++) {
		int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

		assert_true(fd >= 0);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
			close(fd);
			break;
		}
		raw[nraw++] = fd;
	}
	assert_true(nraw > 8);
	sleep(2);
	lines = count_lines(errpath, "accept");
	fprintf(stderr, "server logged %d accept lines in 2 s\n", lines);
	if (lines < 1 || lines >= 50)
		dump(errpath);
	assert_true(lines >= 1);
	assert_true(lines < 50);
	assert_true(path_contains(errpath, "too many open files (RLIMIT_NOFILE="));
	assert_true(path_contains(errpath, "raise ulimit -n"));
	for (i = 0; i < nraw; i++)
		close(raw[i]);
	/* descriptors are free again: a real client gets in */
	peer_start(&cl, NULL, "d_emfile", "leave");
	assert_true(peer_expect(&srv, "CONNECT", 8000));
	assert_true(peer_expect(&cl, "DONE", 5000));
	assert_int_equal(peer_wait(&cl, 5000), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(srv.out);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_true(path_contains(errpath, "accepting clients again after"));
	if (getenv("COMCH_DIAG_SHOW") != NULL)
		dump(errpath);
	unlink(errpath);
}

/* SOFTDOCA_TRACE: the Comch events of a short conversation reach the file.
 * The variable is read when the process starts: the conversation runs in
 * a child started with it. */
static void test_trace_events(void **state)
{
	char path[512], self[512], cmd[1200];
	ssize_t n;
	int status;
	pid_t pid;

	if (!peer_available())
		skip();
	snprintf(path, sizeof(path), "%s/trace.json", fabric);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = '\0';
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("SOFTDOCA_TRACE", path, 1);
		execl(self, self, "trace-child", (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_true(path_contains(path, "\"server_listen\""));
	assert_true(path_contains(path, "\"conn_established\""));
	assert_true(path_contains(path, "\"msg_recv\""));
	assert_true(path_contains(path, "\"msg_send\""));
	assert_true(path_contains(path, "\"bytes\":4"));
	assert_true(path_contains(path, "\"conn_closed\""));
	snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '%s'", path);
	if (system(cmd) != 0) { /* a whole, valid trace file */
		dump(path);
		fail();
	}
	unlink(path);
}

static int trace_child(void)
{
	struct doca_comch_server *s;
	struct doca_dev_rep *rep;
	struct peer cl;
	int rc;

	/* ours only: the peer must not write into the same file */
	unsetenv("SOFTDOCA_TRACE");
	if (cu_open_dev(&dev) != DOCA_SUCCESS || doca_pe_create(&pe) != DOCA_SUCCESS)
		return 2;
	s = server_up(dev, pe, "d_trace", &rep);
	if (s == NULL)
		return 3;
	peer_start(&cl, pe, "d_trace", "leave");
	rc = peer_expect(&cl, "DONE", 5000) ? 0 : 4;
	if (peer_wait(&cl, 5000) != 0)
		rc = 5;
	cu_progress_until_flag(pe, &disconnects, 1, 2000);
	server_down(pe, s, rep);
	doca_pe_destroy(pe);
	doca_dev_close(dev);
	return rc;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_turned_away_client_told_why, setup, teardown),
		cmocka_unit_test_setup_teardown(test_emfile_backoff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace_events, setup, teardown),
	};

	if (argc > 1 && strcmp(argv[1], "trace-child") == 0)
		return trace_child();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else
/* ---------------------------------------------------------------- client side */

static volatile int sends_ok, sends_err, msgs;

static void send_ok(struct doca_comch_task_send *t, union doca_data a, union doca_data b)
{
	sends_ok++;
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void send_err(struct doca_comch_task_send *t, union doca_data a, union doca_data b)
{
	sends_err++;
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void on_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
	msgs++;
}

static struct doca_ctx *client_start(const char *name, struct doca_comch_client **c)
{
	struct doca_ctx *ctx;

	assert_int_equal(doca_comch_client_create(dev, name, c), DOCA_SUCCESS);
	ctx = doca_comch_client_as_ctx(*c);
	assert_int_equal(doca_comch_client_task_send_set_conf(*c, send_ok, send_err, 8), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_event_msg_recv_register(*c, on_msg), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(ctx), DOCA_ERROR_IN_PROGRESS);
	return ctx;
}

static void client_send(struct doca_comch_client *c, struct doca_comch_connection *conn, const char *msg)
{
	struct doca_comch_task_send *t;

	assert_int_equal(doca_comch_client_task_send_alloc_init(c, conn, msg, strlen(msg), &t), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_comch_task_send_as_task(t)), DOCA_SUCCESS);
}

static void client_end(struct doca_comch_client *c, struct doca_ctx *ctx, struct doca_comch_connection *conn,
		       struct peer *p)
{
	int before = sends_ok;

	client_send(c, conn, "quit");
	assert_true(cu_progress_until_flag(pe, &sends_ok, before + 1, 3000));
	assert_true(peer_expect(p, "DONE", 5000));
	assert_int_equal(peer_wait(p, 5000), 0);
	cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE, 3000);
	if (cu_state(ctx) != DOCA_CTX_STATE_IDLE && doca_ctx_stop(ctx) != DOCA_SUCCESS)
		cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE, 3000);
	assert_int_equal(doca_comch_client_destroy(c), DOCA_SUCCESS);
}

/* Junk in SOFTDOCA_COMCH_WAIT_WARN_MS is refused at start, naming it. */
static void test_wait_warn_env_junk(void **state)
{
	static const char *const junk[] = {"-5", "12ms", "0x10", "0"};
	struct doca_comch_client *c;
	struct doca_ctx *ctx;
	size_t i;

	log_start();
	for (i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		setenv("SOFTDOCA_COMCH_WAIT_WARN_MS", junk[i], 1);
		assert_int_equal(doca_comch_client_create(dev, "h_junk", &c), DOCA_SUCCESS);
		ctx = doca_comch_client_as_ctx(c);
		assert_int_equal(doca_comch_client_task_send_set_conf(c, send_ok, send_err, 8), DOCA_SUCCESS);
		assert_int_equal(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
		assert_int_equal(doca_ctx_start(ctx), DOCA_ERROR_INVALID_VALUE);
		assert_int_equal(cu_state(ctx), DOCA_CTX_STATE_IDLE);
		assert_int_equal(doca_comch_client_destroy(c), DOCA_SUCCESS);
	}
	unsetenv("SOFTDOCA_COMCH_WAIT_WARN_MS");
	assert_true(log_contains("SOFTDOCA_COMCH_WAIT_WARN_MS"));
	assert_true(log_contains("Comch client for server \"h_junk\" not started"));
}

/* Issue 16 item 7a: a server stopped with SIGSTOP still has its listening
 * socket, so the client's connection is queued and its HELLO never
 * answered. Before, the client waited silently; now it warns, naming the
 * server and how long. */
static void test_stopped_server_handshake(void **state)
{
	struct doca_comch_client *c;
	struct doca_comch_connection *conn;
	struct doca_ctx *ctx;
	struct peer p;

	if (!peer_available())
		skip();
	log_start();
	peer_start(&p, pe, "h_stop", NULL);
	assert_true(peer_expect(&p, "READY", 5000));
	assert_int_equal(kill(p.pid, SIGSTOP), 0);
	setenv("SOFTDOCA_COMCH_WAIT_WARN_MS", "200", 1);
	ctx = client_start("h_stop", &c);
	unsetenv("SOFTDOCA_COMCH_WAIT_WARN_MS");
	assert_true(progress_until_log("Comch server \"h_stop\" on " HOST_FN " (card 0, pid ", 3000));
	assert_true(log_contains("is not responding: it has not answered the connection handshake for "));
	assert_int_equal(cu_state(ctx), DOCA_CTX_STATE_STARTING);
	assert_int_equal(kill(p.pid, SIGCONT), 0);
	assert_true(cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_RUNNING, 5000));
	assert_int_equal(doca_comch_client_get_connection(c, &conn), DOCA_SUCCESS);
	client_end(c, ctx, conn, &p);
}

/* Connected, then the server stops (SIGSTOP) and the reply never comes: the
 * core's stuck-program warning (SOFTDOCA_STALL_WARN_MS=200, set by main)
 * gets the client's sentence. */
static void test_stopped_server_no_reply(void **state)
{
	struct doca_comch_client *c;
	struct doca_comch_connection *conn;
	struct doca_ctx *ctx;
	struct peer p;

	if (!peer_available())
		skip();
	log_start();
	peer_start(&p, pe, "h_mute", NULL);
	assert_true(peer_expect(&p, "READY", 5000));
	ctx = client_start("h_mute", &c);
	assert_true(cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_RUNNING, 5000));
	assert_int_equal(doca_comch_client_get_connection(c, &conn), DOCA_SUCCESS);
	assert_true(peer_expect(&p, "CONNECT", 5000));
	assert_int_equal(kill(p.pid, SIGSTOP), 0);
	msgs = 0;
	client_send(c, conn, "ping");
	assert_true(progress_until_log("client connected to server 'h_mute' on " HOST_FN " (pid ", 3000));
	assert_true(log_contains("is the server responding?"));
	assert_true(log_contains("SOFTDOCA_STALL_WARN_MS=200"));
	assert_int_equal(msgs, 0);
	assert_int_equal(kill(p.pid, SIGCONT), 0);
	assert_true(cu_progress_until_flag(pe, &msgs, 1, 5000));
	client_end(c, ctx, conn, &p);
}

static int recv_done, psend_done;

static void recv_cb(struct doca_comch_consumer_task_post_recv *t, union doca_data a, union doca_data b)
{
	recv_done++;
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void psend_cb(struct doca_comch_producer_task_send *t, union doca_data a, union doca_data b)
{
	psend_done++;
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

/* A consumer waiting for a producer that never comes, and a producer
 * sending to a consumer that does not exist: the stall warning says which. */
static void test_consumer_producer_waits(void **state)
{
	struct doca_comch_client *c;
	struct doca_comch_connection *conn;
	struct doca_comch_consumer *cons;
	struct doca_comch_producer *prod;
	struct doca_comch_consumer_task_post_recv *rt;
	struct doca_comch_producer_task_send *st;
	struct doca_buf_inventory *inv;
	struct doca_mmap *mmap;
	struct doca_buf *rbuf, *sbuf;
	struct doca_ctx *ctx, *cctx, *pctx;
	static char mem[8192];
	uint64_t end;
	struct peer p;
	doca_error_t err;

	if (!peer_available())
		skip();
	log_start();
	peer_start(&p, pe, "h_fp", NULL);
	assert_true(peer_expect(&p, "READY", 5000));
	ctx = client_start("h_fp", &c);
	assert_true(cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_RUNNING, 5000));
	assert_int_equal(doca_comch_client_get_connection(c, &conn), DOCA_SUCCESS);

	assert_int_equal(doca_mmap_create(&mmap), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(mmap, mem, sizeof(mem)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(mmap, dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(mmap), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_create(4, &inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(inv, mmap, mem, 4096, &rbuf), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_data(inv, mmap, mem + 4096, 16, &sbuf), DOCA_SUCCESS);

	/* consumer: one receive posted, nobody sends */
	assert_int_equal(doca_comch_consumer_create(conn, mmap, &cons), DOCA_SUCCESS);
	cctx = doca_comch_consumer_as_ctx(cons);
	assert_int_equal(doca_comch_consumer_task_post_recv_set_conf(cons, recv_cb, recv_cb, 4), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(pe, cctx), DOCA_SUCCESS);
	err = doca_ctx_start(cctx);
	assert_true(err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS);
	assert_true(cu_progress_until_state(pe, cctx, DOCA_CTX_STATE_RUNNING, 3000));
	assert_int_equal(doca_comch_consumer_task_post_recv_alloc_init(cons, rbuf, &rt), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(rt)), DOCA_SUCCESS);
	assert_true(progress_until_log("has posted 1 receive for ", 3000));
	assert_true(log_contains("and no producer has sent it anything: is a producer started on the peer"));

	/* a completion restarts the stall clock (else the next warning is 10 s away) */
	msgs = 0;
	client_send(c, conn, "ping");
	assert_true(cu_progress_until_flag(pe, &msgs, 1, 5000));

	/* producer: sends to a consumer id the peer never announced */
	assert_int_equal(doca_comch_producer_create(conn, &prod), DOCA_SUCCESS);
	pctx = doca_comch_producer_as_ctx(prod);
	assert_int_equal(doca_comch_producer_task_send_set_conf(prod, psend_cb, psend_cb, 4), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(pe, pctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(pctx), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_task_send_alloc_init(prod, sbuf, NULL, 0, 777, &st), DOCA_SUCCESS);
	end = cu_now_ms() + 3000;
	while (!log_contains("to consumer 777 refused for ") && cu_progress_step(pe, end))
		assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(st)), DOCA_ERROR_NOT_FOUND);
	assert_true(log_contains("no such consumer on the connection (has the peer started it?)"));
	doca_task_free(doca_comch_producer_task_send_as_task(st));

	assert_int_equal(doca_ctx_stop(pctx), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_destroy(prod), DOCA_SUCCESS);
	if (doca_ctx_stop(cctx) != DOCA_SUCCESS)
		assert_true(cu_progress_until_state(pe, cctx, DOCA_CTX_STATE_IDLE, 3000));
	assert_int_equal(recv_done, 1); /* flushed by the stop */
	assert_int_equal(doca_comch_consumer_destroy(cons), DOCA_SUCCESS);
	doca_buf_dec_refcount(rbuf, NULL);
	doca_buf_dec_refcount(sbuf, NULL);
	assert_int_equal(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(mmap), DOCA_SUCCESS);
	client_end(c, ctx, conn, &p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_wait_warn_env_junk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stopped_server_handshake, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stopped_server_no_reply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_consumer_producer_waits, setup, teardown),
	};

	int rc;

	/* read by doca_pe_create */
	setenv("SOFTDOCA_STALL_WARN_MS", "200", 1);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	if (getenv("COMCH_DIAG_SHOW") != NULL && sdk_log != NULL) { /* for a human reading the sentences */
		char line[1024];

		rewind(sdk_log);
		while (fgets(line, sizeof(line), sdk_log) != NULL)
			fputs(line, stderr);
	}
	return rc;
}
#endif
