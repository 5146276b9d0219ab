/* Comch control path. Host flavor: the client side, against a dpu-flavor
 * server peer (comch_peer from the peer build). Dpu flavor: the server side,
 * against a host-flavor client peer. Each test uses a private fabric dir. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_log.h>

#include "comch_util.h"
#include "comch_test_peer.h"
#include "sd_fabric.h"

static char fabric[256];
static struct doca_dev *dev;
static struct doca_pe *pe;
static FILE *sdk_log;

static int setup(void **state)
{
	return comch_fixture_up(fabric, sizeof(fabric), "h4comch", &dev, &pe);
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

static __attribute__((unused)) void log_start(void)
{
	struct doca_log_backend *be;

	if (sdk_log != NULL)
		return;
	sdk_log = tmpfile();
	assert_non_null(sdk_log);
	assert_int_equal(doca_log_backend_create_with_file_sdk(sdk_log, &be), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_INFO), DOCA_SUCCESS);
}

static __attribute__((unused)) bool log_contains(const char *s)
{
	static char text[1 << 16];
	size_t n;

	fflush(sdk_log);
	rewind(sdk_log);
	n = fread(text, 1, sizeof(text) - 1, sdk_log);
	text[n] = '\0';
	fseek(sdk_log, 0, SEEK_END);
	return strstr(text, s) != NULL;
}

static int sends_ok, sends_err;
static doca_error_t last_err;
static char last_msg[256];
static int msgs;

static void send_ok(struct doca_comch_task_send *t, union doca_data a, union doca_data b)
{
	sends_ok++;
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void send_err(struct doca_comch_task_send *t, union doca_data a, union doca_data b)
{
	sends_err++;
	last_err = doca_task_get_status(doca_comch_task_send_as_task(t));
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void on_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
	assert_non_null(ev);
	assert_non_null(c);
	snprintf(last_msg, sizeof(last_msg), "%.*s", (int)len, buf);
	msgs++;
}

static void reset_counters(void)
{
	sends_ok = sends_err = msgs = 0;
	last_err = DOCA_SUCCESS;
	last_msg[0] = '\0';
}

#ifdef DOCA_ARCH_HOST
/* ---------------------------------------------------------------- client side */

static void test_client_bad_args(void **state)
{
	struct doca_devinfo *di = doca_dev_as_devinfo(dev);
	struct doca_comch_client *c;
	struct doca_comch_server *s;
	struct doca_comch_connection *conn;
	struct doca_comch_task_send *t;
	char longname[200];
	uint32_t v;

	assert_int_equal(doca_comch_cap_server_is_supported(di), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_comch_cap_client_is_supported(di), DOCA_SUCCESS);
	assert_int_equal(doca_comch_cap_client_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_cap_get_max_msg_size(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_cap_get_max_msg_size(di, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_cap_get_max_msg_size(di, &v), DOCA_SUCCESS);
	assert_true(v > 0);
	assert_int_equal(doca_comch_cap_get_max_name_len(di, &v), DOCA_SUCCESS);
	assert_int_equal(doca_comch_cap_get_max_clients(di, &v), DOCA_SUCCESS);
	assert_int_equal(doca_comch_cap_get_max_recv_queue_size(di, &v), DOCA_SUCCESS);
	assert_int_equal(doca_comch_cap_get_max_send_tasks(di, &v), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_create(dev, NULL, "x", &s), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_create(NULL, "x", &c), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_create(dev, NULL, &c), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_create(dev, "x", NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_create(dev, "", &c), DOCA_ERROR_INVALID_VALUE);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(doca_comch_client_create(dev, longname, &c), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_create(dev, "h4_bad", &c), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_set_max_msg_size(c, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_set_max_msg_size(c, 1u << 30), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_set_max_msg_size(c, 100), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_get_max_msg_size(c, &v), DOCA_SUCCESS);
	assert_int_equal(v, 100);
	assert_int_equal(doca_comch_client_set_recv_queue_size(c, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_task_send_set_conf(c, NULL, send_err, 4), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_task_send_set_conf(c, send_ok, send_err, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_event_msg_recv_register(c, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_event_consumer_register(c, NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_get_connection(c, &conn), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_client_get_connection(c, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_task_send_alloc_init(c, NULL, "x", 1, &t), DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_comch_client_as_ctx(NULL));
	assert_null(doca_comch_server_get_server_ctx(NULL));
	assert_null(doca_comch_task_send_as_task(NULL));
	assert_int_equal(doca_comch_connection_set_user_data(NULL, (union doca_data){0}), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_destroy(c), DOCA_SUCCESS);
}

/* Create a client of the named server with send tasks (and the receive
 * event if recv), connect it to the PE and start it: STARTING. */
static struct doca_ctx *client_start(const char *name, bool recv, struct doca_comch_client **c)
{
	struct doca_ctx *ctx;

	assert_int_equal(doca_comch_client_create(dev, name, c), DOCA_SUCCESS);
	ctx = doca_comch_client_as_ctx(*c);
	assert_int_equal(doca_comch_client_task_send_set_conf(*c, send_ok, send_err, 8), DOCA_SUCCESS);
	if (recv)
		assert_int_equal(doca_comch_client_event_msg_recv_register(*c, on_msg), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(ctx), DOCA_ERROR_IN_PROGRESS);
	return ctx;
}

/* client_start, then wait until it runs and take its connection. */
static struct doca_ctx *client_connect(const char *name, bool recv, struct doca_comch_client **c,
				       struct doca_comch_connection **conn)
{
	struct doca_ctx *ctx = client_start(name, recv, c);

	assert_true(cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_RUNNING, 5000));
	assert_int_equal(doca_comch_client_get_connection(*c, conn), DOCA_SUCCESS);
	return ctx;
}

/* A client with no tasks or events, connected to the PE and started. */
static struct doca_ctx *client_start_bare(const char *name, struct doca_comch_client **c)
{
	struct doca_ctx *ctx;

	assert_int_equal(doca_comch_client_create(dev, name, c), DOCA_SUCCESS);
	ctx = doca_comch_client_as_ctx(*c);
	assert_int_equal(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(ctx), DOCA_ERROR_IN_PROGRESS);
	return ctx;
}

/* Queue one message on the client's connection. */
static void client_send(struct doca_comch_client *c, struct doca_comch_connection *conn, const char *msg)
{
	struct doca_comch_task_send *t;

	assert_int_equal(doca_comch_client_task_send_alloc_init(c, conn, msg, strlen(msg), &t), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_comch_task_send_as_task(t)), DOCA_SUCCESS);
}

/* The lesson's hang: client first. It waits, warns, then connects once the
 * server appears; messages flow; the server's clean stop reaches us. */
static void test_client_first_then_server(void **state)
{
	struct doca_comch_client *c;
	struct doca_comch_connection *conn;
	struct doca_comch_task_send *t;
	struct doca_ctx *ctx;
	struct peer p;
	uint64_t v;
	char big[8192];

	if (!peer_available())
		skip();
	reset_counters();
	log_start();
	setenv("SOFTDOCA_COMCH_WAIT_WARN_MS", "200", 1);
	ctx = client_start("h4_srv", true, &c);
	assert_int_equal(doca_comch_client_set_max_msg_size(c, 10), DOCA_ERROR_BAD_STATE);
	assert_false(cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_RUNNING, 700));
	assert_int_equal(cu_state(ctx), DOCA_CTX_STATE_STARTING);
	assert_int_equal(doca_comch_client_get_connection(c, &conn), DOCA_ERROR_BAD_STATE);
	assert_true(log_contains("Waiting for Comch server \"h4_srv\" on " HOST_FN " (card 0): no server is "
				 "listening. The server must run on the BlueField Arm side and be started before "
				 "the host client"));
	unsetenv("SOFTDOCA_COMCH_WAIT_WARN_MS");

	peer_start(&p, pe, "h4_srv", NULL);
	assert_true(peer_expect(&p, "READY", 5000));
	assert_true(cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_RUNNING, 5000));
	assert_true(peer_expect(&p, "CONNECT", 5000));
	assert_int_equal(doca_comch_client_get_connection(c, &conn), DOCA_SUCCESS);
	assert_ptr_equal(doca_comch_client_get_client_ctx(conn), c);
	assert_null(doca_comch_server_get_server_ctx(conn));
	assert_int_equal(doca_comch_connection_set_user_data(conn, (union doca_data){.u64 = 42}), DOCA_SUCCESS);
	assert_int_equal(doca_comch_connection_get_user_data(conn).u64, 42);

	/* size limits */
	memset(big, 'b', sizeof(big));
	assert_int_equal(doca_comch_client_task_send_alloc_init(c, conn, big, sizeof(big), &t),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_task_send_alloc_init(c, conn, big, 0, &t), DOCA_ERROR_INVALID_VALUE);

	/* echo */
	client_send(c, conn, "hello");
	assert_true(cu_progress_until_flag(pe, &msgs, 1, 5000));
	assert_string_equal(last_msg, "hello");
	assert_int_equal(sends_ok, 1);
	assert_int_equal(doca_comch_connection_update_info(conn), DOCA_SUCCESS);
	assert_int_equal(doca_comch_connection_get_counter(conn, DOCA_COMCH_COUNTER_SENT_BYTES, &v), DOCA_SUCCESS);
	assert_int_equal(v, 5);
	assert_int_equal(doca_comch_connection_get_counter(conn, DOCA_COMCH_COUNTER_RECV_MESSAGES, &v), DOCA_SUCCESS);
	assert_int_equal(v, 1);

	/* the server stops cleanly: our context fails to IDLE */
	client_send(c, conn, "quit");
	assert_true(cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE, 3000));
	assert_int_equal(peer_wait(&p, 5000), 0);
	assert_int_equal(doca_comch_client_destroy(c), DOCA_SUCCESS);
}

/* A server that ignores the client's max message size (a raw fabric peer
 * here): a message within it is delivered, one above it never is; the
 * client drops the connection with an error naming the sizes. */
static void test_client_drops_oversized_message(void **state)
{
	const struct sd_link_ops *ops = sd_fabric_transport();
	static uint8_t buf[SD_FRAME_BUF_SIZE];
	struct doca_comch_client *c;
	struct sd_fabric_addr a;
	struct sd_frame_hello h;
	struct sd_frame_accept acc;
	struct sd_frame_view v;
	struct sd_link *lis, *l = NULL;
	struct doca_ctx *ctx;
	char big[200];
	uint64_t end;
	doca_error_t err;
	int fd;

	reset_counters();
	log_start();
	memset(&a, 0, sizeof(a));
	strcpy(a.pci, HOST_FN);
	strcpy(a.name, "h4_big");
	assert_int_equal(ops->listen(&a, &lis), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_create(dev, "h4_big", &c), DOCA_SUCCESS);
	ctx = doca_comch_client_as_ctx(c);
	assert_int_equal(doca_comch_client_set_max_msg_size(c, 100), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_task_send_set_conf(c, send_ok, send_err, 8), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_event_msg_recv_register(c, on_msg), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(ctx), DOCA_ERROR_IN_PROGRESS);
	end = cu_now_ms() + 3000;
	do {
		doca_pe_progress(pe);
		err = ops->accept(lis, &l);
	} while (err == DOCA_ERROR_AGAIN && cu_now_ms() < end);
	assert_int_equal(err, DOCA_SUCCESS);
	do {
		doca_pe_progress(pe);
		err = sd_link_recv(l, buf, &v, &fd);
	} while (err == DOCA_ERROR_AGAIN && cu_now_ms() < end);
	assert_int_equal(err, DOCA_SUCCESS);
	assert_int_equal(v.type, SD_FRAME_HELLO);
	memcpy(&h, v.body, sizeof(h));
	assert_int_equal(h.max_msg_size, 100);
	memset(&acc, 0, sizeof(acc));
	acc.max_msg_size = SD_FRAME_MAX_MSG;
	acc.pid = (uint32_t)getpid();
	assert_int_equal(sd_link_send(l, SD_FRAME_ACCEPT, &acc, sizeof(acc), -1), DOCA_SUCCESS);
	assert_true(cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_RUNNING, 3000));

	assert_int_equal(sd_link_send(l, SD_FRAME_MSG, "small", 5, -1), DOCA_SUCCESS);
	assert_true(cu_progress_until_flag(pe, &msgs, 1, 3000));
	assert_string_equal(last_msg, "small");
	memset(big, 'b', sizeof(big));
	assert_int_equal(sd_link_send(l, SD_FRAME_MSG, big, sizeof(big), -1), DOCA_SUCCESS);
	assert_true(cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE, 3000));
	assert_int_equal(msgs, 1);
	assert_true(log_contains("message of 200 bytes from pid"));
	assert_true(log_contains("exceeds the max message size 100; dropping the connection"));
	/* the client hung up on us */
	end = cu_now_ms() + 2000;
	do
		err = sd_link_recv(l, buf, &v, &fd);
	while (err == DOCA_ERROR_AGAIN && cu_now_ms() < end);
	assert_true(err == DOCA_ERROR_CONNECTION_RESET || err == DOCA_ERROR_NOT_CONNECTED);
	sd_link_destroy(l);
	sd_link_destroy(lis);
	assert_int_equal(doca_comch_client_destroy(c), DOCA_SUCCESS);
}

/* kill -9 of the server is seen within a second, and the client that saw it
 * removes the socket it left; one left otherwise is reclaimed by the next
 * server. */
static void test_server_killed(void **state)
{
	struct doca_comch_client *c;
	struct doca_ctx *ctx;
	struct peer p, p2;
	uint64_t t0;
	int status;

	if (!peer_available())
		skip();
	reset_counters();
	peer_start(&p, pe, "h4_kill", NULL);
	assert_true(peer_expect(&p, "READY", 5000));
	ctx = client_start("h4_kill", true, &c);
	assert_true(cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_RUNNING, 5000));
	kill(p.pid, SIGKILL);
	waitpid(p.pid, &status, 0);
	close(p.out);
	t0 = cu_now_ms();
	assert_true(cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE, 1000));
	assert_true(cu_now_ms() - t0 < 1000);
	assert_int_equal(doca_comch_client_destroy(c), DOCA_SUCCESS);
	/* the client that saw its server die removed the socket it left */
	assert_int_equal(fabric_dir_count(fabric), 0);
	peer_start(&p2, pe, "h4_kill", NULL);
	assert_true(peer_expect(&p2, "READY", 5000));
	kill(p2.pid, SIGTERM);
	waitpid(p2.pid, &status, 0);
	close(p2.out);
	/* SIGTERM is not a clean stop either: remove what it left */
	if (fabric_dir_count(fabric) == 1) {
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -f '%s'/*.sock", fabric);
		assert_int_equal(system(cmd), 0);
	}
}

/* The server disconnects us: the context goes IDLE; a send on the dead
 * connection fails through the error callback. */
static void test_server_disconnects_client(void **state)
{
	struct doca_comch_client *c;
	struct doca_comch_connection *conn;
	struct doca_ctx *ctx;
	struct peer p;

	if (!peer_available())
		skip();
	reset_counters();
	peer_start(&p, pe, "h4_disc", NULL);
	assert_true(peer_expect(&p, "READY", 5000));
	ctx = client_connect("h4_disc", true, &c, &conn);
	client_send(c, conn, "bye-me");
	assert_true(peer_expect(&p, "DISCONNECT", 3000));
	assert_true(cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE, 2000));
	assert_int_equal(doca_comch_client_destroy(c), DOCA_SUCCESS);
	/* a new client tells the server to quit */
	ctx = client_connect("h4_disc", false, &c, &conn);
	client_send(c, conn, "quit");
	assert_int_equal(peer_wait(&p, 5000), 0);
	assert_true(cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE, 2000));
	assert_int_equal(doca_comch_client_destroy(c), DOCA_SUCCESS);
}

/* A fabric directory others can enter is refused: the client fails to IDLE
 * instead of waiting forever. */
static void test_client_unsafe_fabric(void **state)
{
	struct doca_comch_client *c;
	struct doca_ctx *ctx;

	assert_int_equal(chmod(fabric, 0755), 0);
	ctx = client_start_bare("h4_unsafe", &c);
	assert_true(cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE, 1000));
	assert_int_equal(doca_comch_client_destroy(c), DOCA_SUCCESS);
	assert_int_equal(chmod(fabric, 0700), 0);
}

/* Client stop with nothing to connect to: back to IDLE, nothing left. */
static void test_client_stop_while_waiting(void **state)
{
	struct doca_comch_client *c;
	struct doca_ctx *ctx;
	doca_error_t err;

	ctx = client_start_bare("nobody", &c);
	assert_false(cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_RUNNING, 300));
	assert_int_equal(doca_comch_client_destroy(c), DOCA_ERROR_BAD_STATE);
	err = doca_ctx_stop(ctx);
	assert_true(err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS);
	assert_true(cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE, 1000));
	assert_int_equal(doca_comch_client_destroy(c), DOCA_SUCCESS);
}

/* Sleep on the PE's notification handle (not busy progress) until ctx
 * reaches want or ms pass; returns how many 1 s polls timed out. */
static int wait_state_notified(struct doca_ctx *ctx, doca_notification_handle_t h, enum doca_ctx_states want,
			       uint64_t ms)
{
	uint64_t end = cu_now_ms() + ms;
	int timeouts = 0;

	while (cu_state(ctx) != want && cu_now_ms() < end) {
		struct pollfd pfd = {.fd = h, .events = POLLIN};

		assert_int_equal(doca_pe_request_notification(pe), DOCA_SUCCESS);
		if (poll(&pfd, 1, 1000) == 0)
			timeouts++;
		assert_int_equal(doca_pe_clear_notification(pe, h), DOCA_SUCCESS);
		while (doca_pe_progress(pe))
			;
	}
	return timeouts;
}

/* Waiting on the PE's notification handle instead of polling: the client
 * started before the server still wakes up, connects and sees the end. */
static void test_client_event_driven(void **state)
{
	struct doca_comch_client *c;
	struct doca_comch_connection *conn;
	doca_notification_handle_t h;
	struct doca_ctx *ctx;
	struct peer p;
	int timeouts = 0;

	if (!peer_available())
		skip();
	reset_counters();
	assert_int_equal(doca_comch_client_create(dev, "h4_evd", &c), DOCA_SUCCESS);
	ctx = doca_comch_client_as_ctx(c);
	assert_int_equal(doca_comch_client_task_send_set_conf(c, send_ok, send_err, 8), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
	assert_int_equal(doca_pe_get_notification_handle(pe, &h), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(ctx), DOCA_ERROR_IN_PROGRESS);
	peer_start(&p, pe, "h4_evd", NULL);
	timeouts += wait_state_notified(ctx, h, DOCA_CTX_STATE_RUNNING, 5000);
	assert_int_equal(cu_state(ctx), DOCA_CTX_STATE_RUNNING);
	assert_int_equal(timeouts, 0);
	assert_int_equal(doca_comch_client_get_connection(c, &conn), DOCA_SUCCESS);
	client_send(c, conn, "quit");
	timeouts += wait_state_notified(ctx, h, DOCA_CTX_STATE_IDLE, 5000);
	assert_int_equal(cu_state(ctx), DOCA_CTX_STATE_IDLE);
	assert_int_equal(timeouts, 0);
	assert_int_equal(peer_wait(&p, 5000), 0);
	assert_int_equal(doca_comch_client_destroy(c), DOCA_SUCCESS);
}

static int msgs_at_running = -1;

static void record_running(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
			   enum doca_ctx_states next)
{
	if (next == DOCA_CTX_STATE_RUNNING)
		msgs_at_running = msgs;
}

/* DOCA's programs take the connection and set its user data once the client
 * is RUNNING, then expect its events: a message the server sent right
 * behind the handshake is delivered by a later doca_pe_progress than the one
 * that made the client RUNNING, never by the same. */
static void test_client_running_before_first_message(void **state)
{
	struct doca_comch_client *c;
	struct doca_comch_connection *conn;
	struct doca_ctx *ctx;
	struct peer p;
	uint64_t end;

	if (!peer_available())
		skip();
	reset_counters();
	msgs_at_running = -1;
	peer_start(&p, pe, "h4_greet", "greet");
	assert_true(peer_expect(&p, "READY", 5000));
	assert_int_equal(doca_comch_client_create(dev, "h4_greet", &c), DOCA_SUCCESS);
	ctx = doca_comch_client_as_ctx(c);
	assert_int_equal(doca_comch_client_task_send_set_conf(c, send_ok, send_err, 8), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_event_msg_recv_register(c, on_msg), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_set_state_changed_cb(ctx, record_running), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(ctx), DOCA_ERROR_IN_PROGRESS);
	/* slow progress: when the ACCEPT is read, the greeting is already
	 * waiting behind it */
	end = cu_now_ms() + 5000;
	while (cu_state(ctx) == DOCA_CTX_STATE_STARTING && cu_now_ms() < end) {
		usleep(100 * 1000);
		doca_pe_progress(pe);
	}
	assert_int_equal(cu_state(ctx), DOCA_CTX_STATE_RUNNING);
	assert_int_equal(msgs_at_running, 0);
	assert_int_equal(msgs, 0);
	assert_int_equal(doca_comch_client_get_connection(c, &conn), DOCA_SUCCESS);
	assert_int_equal(doca_comch_connection_set_user_data(conn, (union doca_data){.u64 = 7}), DOCA_SUCCESS);
	assert_true(cu_progress_until_flag(pe, &msgs, 1, 3000));
	assert_string_equal(last_msg, "greet");
	client_send(c, conn, "quit");
	assert_true(cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE, 3000));
	assert_int_equal(peer_wait(&p, 5000), 0);
	assert_int_equal(doca_comch_client_destroy(c), DOCA_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_client_running_before_first_message, setup, teardown),
		cmocka_unit_test_setup_teardown(test_client_bad_args, setup, teardown),
		cmocka_unit_test_setup_teardown(test_client_event_driven, setup, teardown),
		cmocka_unit_test_setup_teardown(test_client_stop_while_waiting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_client_unsafe_fabric, setup, teardown),
		cmocka_unit_test_setup_teardown(test_client_first_then_server, setup, teardown),
		cmocka_unit_test_setup_teardown(test_client_drops_oversized_message, setup, teardown),
		cmocka_unit_test_setup_teardown(test_server_killed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_server_disconnects_client, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else
/* ---------------------------------------------------------------- server side */

static volatile int connects, disconnects;
static struct doca_comch_connection *last_conn;
static struct doca_comch_server *g_server;

static void on_connect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
		       uint8_t ok)
{
	assert_int_equal(ok, 1);
	last_conn = c;
	connects++;
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
			  uint8_t ok)
{
	disconnects++;
}

static void on_msg_reply(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len,
			 struct doca_comch_connection *c)
{
	struct doca_comch_task_send *t;

	on_msg(ev, buf, len, c);
	assert_ptr_equal(doca_comch_server_get_server_ctx(c), g_server);
	assert_int_equal(doca_comch_server_task_send_alloc_init(g_server, c, "pong", 4, &t), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_comch_task_send_as_task(t)), DOCA_SUCCESS);
}

static struct doca_comch_server *make_server(struct doca_dev_rep *rep, const char *name)
{
	struct doca_comch_server *s;

	assert_int_equal(doca_comch_server_create(dev, rep, name, &s), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_task_send_set_conf(s, send_ok, send_err, 8), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_event_msg_recv_register(s, on_msg_reply), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_event_connection_status_changed_register(s, on_connect, on_disconnect),
			 DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(pe, doca_comch_server_as_ctx(s)), DOCA_SUCCESS);
	return s;
}

/* Open the host representor and start a server under name on it, with
 * the connection counters cleared. */
static struct doca_comch_server *start_server(const char *name, struct doca_dev_rep **rep)
{
	connects = disconnects = 0;
	assert_int_equal(cu_open_rep(dev, rep), DOCA_SUCCESS);
	g_server = make_server(*rep, name);
	assert_int_equal(doca_ctx_start(doca_comch_server_as_ctx(g_server)), DOCA_SUCCESS);
	return g_server;
}

static void stop_server(struct doca_comch_server *s)
{
	struct doca_ctx *ctx = doca_comch_server_as_ctx(s);
	doca_error_t err = doca_ctx_stop(ctx);

	assert_true(err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS);
	assert_true(cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE, 2000));
	assert_int_equal(doca_comch_server_destroy(s), DOCA_SUCCESS);
}

static void test_server_bad_args(void **state)
{
	struct doca_devinfo *di = doca_dev_as_devinfo(dev);
	struct doca_comch_client *c;
	struct doca_comch_server *s, *s2;
	struct doca_dev_rep *rep, *got_rep = NULL;
	struct doca_dev *got_dev = NULL;
	uint32_t v;

	assert_int_equal(cu_open_rep(dev, &rep), DOCA_SUCCESS);
	assert_int_equal(doca_comch_cap_server_is_supported(di), DOCA_SUCCESS);
	assert_int_equal(doca_comch_cap_client_is_supported(di), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_comch_client_create(dev, "x", &c), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_comch_server_create(dev, NULL, "x", &s), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_create(NULL, rep, "x", &s), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_create(dev, rep, "", &s), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_create(dev, rep, "x", NULL), DOCA_ERROR_INVALID_VALUE);
	s = make_server(rep, "h4_dup");
	assert_int_equal(doca_comch_server_set_max_msg_size(s, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_get_max_msg_size(s, &v), DOCA_SUCCESS);
	/* the device and representor the server was created on */
	assert_int_equal(doca_comch_server_get_device(s, &got_dev), DOCA_SUCCESS);
	assert_ptr_equal(got_dev, dev);
	assert_int_equal(doca_comch_server_get_device_rep(s, &got_rep), DOCA_SUCCESS);
	assert_ptr_equal(got_rep, rep);
	assert_int_equal(doca_comch_server_get_device_rep(NULL, &got_rep), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_get_device_rep(s, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_event_connection_status_changed_register(s, NULL, on_disconnect),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_disconnect(s, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_start(doca_comch_server_as_ctx(s)), DOCA_SUCCESS);
	assert_int_equal(fabric_dir_count(fabric), 1);
	assert_int_equal(doca_comch_server_set_max_msg_size(s, 64), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_server_destroy(s), DOCA_ERROR_BAD_STATE);
	/* a second server under the same name is refused at start */
	s2 = make_server(rep, "h4_dup");
	assert_int_equal(doca_ctx_start(doca_comch_server_as_ctx(s2)), DOCA_ERROR_ALREADY_EXIST);
	assert_int_equal(doca_comch_server_destroy(s2), DOCA_SUCCESS);
	stop_server(s);
	assert_int_equal(fabric_dir_count(fabric), 0);
	/* a fabric directory others can enter is refused */
	assert_int_equal(chmod(fabric, 0770), 0);
	s = make_server(rep, "h4_unsafe");
	assert_int_equal(doca_ctx_start(doca_comch_server_as_ctx(s)), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_comch_server_destroy(s), DOCA_SUCCESS);
	assert_int_equal(chmod(fabric, 0700), 0);
	assert_int_equal(doca_dev_rep_close(rep), DOCA_SUCCESS);
}

/* A client connects, talks, leaves: connect, message and disconnect events;
 * a send on the dead connection fails through the error callback. */
static void test_server_events(void **state)
{
	struct doca_comch_server *s;
	struct doca_comch_task_send *t;
	struct doca_dev_rep *rep;
	struct peer p;

	if (!peer_available())
		skip();
	reset_counters();
	s = start_server("h4_ev", &rep);
	peer_start(&p, pe, "h4_ev", "leave");
	assert_true(peer_expect(&p, "RUNNING", 5000));
	assert_true(peer_expect(&p, "GOT pong", 5000));
	assert_int_equal(connects, 1);
	assert_string_equal(last_msg, "ping");
	assert_true(cu_progress_until_flag(pe, &disconnects, 1, 3000));
	assert_int_equal(peer_wait(&p, 5000), 0);
	assert_int_equal(doca_comch_server_task_send_alloc_init(s, last_conn, "late", 4, &t), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_comch_task_send_as_task(t)), DOCA_SUCCESS);
	assert_true(cu_progress_until_flag(pe, &sends_err, 1, 2000));
	assert_int_equal(last_err, DOCA_ERROR_NOT_CONNECTED);
	assert_int_equal(doca_comch_server_disconnect(s, last_conn), DOCA_ERROR_NOT_CONNECTED);
	stop_server(s);
	assert_int_equal(doca_dev_rep_close(rep), DOCA_SUCCESS);
}

/* kill -9 of a client: the disconnect event comes within a second. */
static void test_client_killed(void **state)
{
	struct doca_comch_server *s;
	struct doca_dev_rep *rep;
	struct peer p;
	uint64_t t0;
	int status;

	if (!peer_available())
		skip();
	reset_counters();
	s = start_server("h4_kc", &rep);
	peer_start(&p, pe, "h4_kc", "stay");
	assert_true(peer_expect(&p, "GOT pong", 5000));
	assert_int_equal(connects, 1);
	kill(p.pid, SIGKILL);
	waitpid(p.pid, &status, 0);
	close(p.out);
	t0 = cu_now_ms();
	assert_true(cu_progress_until_flag(pe, &disconnects, 1, 1000));
	assert_true(cu_now_ms() - t0 < 1000);
	/* the server stop tells a staying client, which then leaves */
	peer_start(&p, pe, "h4_kc", "stay");
	assert_true(peer_expect(&p, "GOT pong", 5000));
	stop_server(s);
	assert_true(peer_expect(&p, "LOST", 3000));
	assert_int_equal(peer_wait(&p, 5000), 0);
	assert_int_equal(doca_dev_rep_close(rep), DOCA_SUCCESS);
}

/* Peers that do not follow the protocol are refused or dropped; the server
 * keeps serving. (Talks to it through the fabric layer directly.) */
static doca_error_t rogue_hello(const char *pci, const char *name, struct sd_frame_view *v, int32_t *reject_err)
{
	const struct sd_link_ops *ops = sd_fabric_transport();
	static uint8_t buf[SD_FRAME_BUF_SIZE];
	struct sd_fabric_addr a;
	struct sd_frame_hello h;
	struct sd_link *l;
	doca_error_t err;
	uint64_t end = cu_now_ms() + 3000;
	int fd;

	memset(&a, 0, sizeof(a));
	strcpy(a.pci, HOST_FN);
	strcpy(a.name, "h4_rogue");
	assert_int_equal(ops->connect(&a, &l), DOCA_SUCCESS);
	memset(&h, 0, sizeof(h));
	h.max_msg_size = 100;
	strcpy(h.pci_addr, pci);
	strcpy(h.name, name);
	assert_int_equal(sd_link_send(l, SD_FRAME_HELLO, &h, sizeof(h), -1), DOCA_SUCCESS);
	do {
		doca_pe_progress(pe);
		err = sd_link_recv(l, buf, v, &fd);
	} while (err == DOCA_ERROR_AGAIN && cu_now_ms() < end);
	if (err == DOCA_SUCCESS && v->type == SD_FRAME_REJECT) {
		struct sd_frame_reject r;

		memcpy(&r, v->body, sizeof(r));
		*reject_err = r.error;
	}
	sd_link_destroy(l);
	return err;
}

static void test_server_rejects_rogue_peers(void **state)
{
	const struct sd_link_ops *ops = sd_fabric_transport();
	struct doca_comch_server *s;
	struct doca_dev_rep *rep;
	struct sd_fabric_addr a;
	struct sd_frame_view v;
	struct sd_link *l;
	int32_t rej = 0;
	int i;

	s = start_server("h4_rogue", &rep);
	/* another host function */
	assert_int_equal(rogue_hello("0000:3b:00.1", "h4_rogue", &v, &rej), DOCA_SUCCESS);
	assert_int_equal(v.type, SD_FRAME_REJECT);
	assert_int_equal(rej, DOCA_ERROR_NOT_PERMITTED);
	/* another server name */
	assert_int_equal(rogue_hello(HOST_FN, "someone_else", &v, &rej), DOCA_SUCCESS);
	assert_int_equal(v.type, SD_FRAME_REJECT);
	assert_int_equal(rej, DOCA_ERROR_NOT_FOUND);
	/* a garbage frame instead of HELLO: dropped */
	memset(&a, 0, sizeof(a));
	strcpy(a.pci, HOST_FN);
	strcpy(a.name, "h4_rogue");
	assert_int_equal(ops->connect(&a, &l), DOCA_SUCCESS);
	assert_int_equal(send(l->fd, "garbage!garbage!garbage!garbage!", 32, 0), 32);
	for (i = 0; i < 200; i++)
		doca_pe_progress(pe);
	assert_int_equal(sd_link_send(l, SD_FRAME_BYE, NULL, 0, -1), DOCA_ERROR_CONNECTION_RESET);
	sd_link_destroy(l);
	/* a proper HELLO is accepted after all that */
	assert_int_equal(rogue_hello(HOST_FN, "h4_rogue", &v, &rej), DOCA_SUCCESS);
	assert_int_equal(v.type, SD_FRAME_ACCEPT);
	assert_int_equal(connects, 1);
	for (i = 0; i < 200 && disconnects == 0; i++)
		doca_pe_progress(pe);
	assert_int_equal(disconnects, 1);
	assert_int_equal(cu_state(doca_comch_server_as_ctx(s)), DOCA_CTX_STATE_RUNNING);
	stop_server(s);
	assert_int_equal(doca_dev_rep_close(rep), DOCA_SUCCESS);
}

/* Sends queued behind a peer that stopped reading are flushed by stop. */
static void test_stop_flushes_queued_sends(void **state)
{
	static char big[4000];
	struct doca_comch_server *s;
	struct doca_comch_task_send *t;
	struct doca_dev_rep *rep;
	struct doca_ctx *ctx;
	struct peer p;
	int i, submitted = 0, status;
	doca_error_t err;

	if (!peer_available())
		skip();
	reset_counters();
	connects = disconnects = 0;
	assert_int_equal(cu_open_rep(dev, &rep), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_create(dev, rep, "h4_mute", &s), DOCA_SUCCESS);
	g_server = s;
	ctx = doca_comch_server_as_ctx(s);
	assert_int_equal(doca_comch_server_task_send_set_conf(s, send_ok, send_err, 1024), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_event_msg_recv_register(s, on_msg_reply), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_event_connection_status_changed_register(s, on_connect, on_disconnect),
			 DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(ctx), DOCA_SUCCESS);
	peer_start(&p, pe, "h4_mute", "mute");
	assert_true(peer_expect(&p, "MUTE", 5000));
	sends_ok = 0;
	for (i = 0; i < 600; i++) {
		assert_int_equal(doca_comch_server_task_send_alloc_init(s, last_conn, big, sizeof(big), &t),
				 DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_comch_task_send_as_task(t)), DOCA_SUCCESS);
		submitted++;
	}
	for (i = 0; i < 50; i++)
		doca_pe_progress(pe);
	assert_true(sends_ok < submitted); /* some are waiting for room */
	err = doca_ctx_stop(ctx);
	assert_true(err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS);
	assert_true(cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE, 2000));
	assert_int_equal(sends_ok + sends_err, submitted);
	assert_true(sends_err > 0);
	assert_int_equal(disconnects, 0); /* our own stop: no event */
	assert_int_equal(doca_comch_server_destroy(s), DOCA_SUCCESS);
	kill(p.pid, SIGKILL);
	waitpid(p.pid, &status, 0);
	close(p.out);
	assert_int_equal(doca_dev_rep_close(rep), DOCA_SUCCESS);
}

/* Run with a topology whose server accepts one client: the second is refused. */
static void test_max_clients(void **state)
{
	struct doca_comch_server *s;
	struct doca_dev_rep *rep;
	struct peer a, b;
	uint32_t v;

	if (!peer_available())
		skip();
	assert_int_equal(doca_comch_cap_get_max_clients(doca_dev_as_devinfo(dev), &v), DOCA_SUCCESS);
	assert_int_equal(v, 1);
	reset_counters();
	s = start_server("h4_max", &rep);
	peer_start(&a, pe, "h4_max", "stay");
	assert_true(peer_expect(&a, "GOT pong", 5000));
	peer_start(&b, pe, "h4_max", "stay");
	assert_true(peer_expect(&b, "REFUSED", 5000));
	assert_int_equal(peer_wait(&b, 5000), 8);
	assert_int_equal(connects, 1);
	stop_server(s);
	assert_true(peer_expect(&a, "LOST", 3000));
	assert_int_equal(peer_wait(&a, 5000), 0);
	assert_int_equal(doca_dev_rep_close(rep), DOCA_SUCCESS);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest max_tests[] = {
		cmocka_unit_test_setup_teardown(test_max_clients, setup, teardown),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_server_bad_args, setup, teardown),
		cmocka_unit_test_setup_teardown(test_server_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_client_killed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_flushes_queued_sends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_server_rejects_rogue_peers, setup, teardown),
	};

	if (argc > 1 && strcmp(argv[1], "max_clients") == 0) {
		char topo[512];

		/* before the first device lookup: the topology is read once per process */
		snprintf(topo, sizeof(topo), "%s/tests/comch/one_client.json", getenv("SOFTDOCA_SOURCE_DIR"));
		setenv("SOFTDOCA_TOPOLOGY", topo, 1);
		return cmocka_run_group_tests(max_tests, NULL, NULL);
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
