/* Peer death against a connection used from other threads. Host flavor: the
 * client side, against the dpu-flavor comch_peer server of the peer build;
 * dpu flavor: the server side, against the host-flavor comch_peer client.
 *
 * A worker thread keeps creating and destroying a consumer on the connection
 * while the main thread kills the peer and progresses the owner (a client
 * fails to IDLE on its own), then lets the worker go on a little: the
 * connection the user was handed must stay valid memory (answering "not
 * connected") until its documented end. Under ASan a connection freed under
 * the worker shows up as a heap-use-after-free. A pinned connection
 * (sd_comch_conn_ref, what producers/consumers take) outlives a stop and
 * makes destroy answer IN_USE. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_comch_consumer.h>
#include <doca_mmap.h>

#include "comch_util.h"
#include "comch_test_peer.h"
#include "sd_comch.h"

#define ROUNDS 4

static char fabric[256];
static struct doca_dev *dev;
static struct doca_pe *pe;

static int setup(void **state)
{
	return comch_fixture_up(fabric, sizeof(fabric), "h5death", &dev, &pe);
}

static int teardown(void **state)
{
	/* killed peers may leave their socket behind: only removal must work */
	return comch_fixture_down(fabric, dev, pe) >= 0 ? 0 : -1;
}

static void sent(struct doca_comch_task_send *t, union doca_data a, union doca_data b)
{
	doca_task_free(doca_comch_task_send_as_task(t));
}

struct worker {
	pthread_t tid;
	struct doca_comch_connection *conn;
	struct doca_mmap *mmap;
	atomic_bool stop;
	atomic_int created;  /* consumers created while the peer lived */
	atomic_int refused;  /* create refused once it was gone */
	atomic_int bad;      /* any other answer */
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	while (!atomic_load(&w->stop)) {
		struct doca_comch_consumer *c = NULL;
		doca_error_t r = doca_comch_consumer_create(w->conn, w->mmap, &c);

		if (r == DOCA_SUCCESS) {
			atomic_fetch_add(&w->created, 1);
			if (doca_comch_consumer_destroy(c) != DOCA_SUCCESS)
				atomic_fetch_add(&w->bad, 1);
		} else if (r == DOCA_ERROR_BAD_STATE || r == DOCA_ERROR_NOT_CONNECTED) {
			atomic_fetch_add(&w->refused, 1);
			usleep(200); /* keeps probing the dead connection, without flooding the log */
		} else {
			atomic_fetch_add(&w->bad, 1);
		}
	}
	return NULL;
}


static char mem[1 << 16];

static struct doca_mmap *make_mmap(void)
{
	struct doca_mmap *mmap;

	assert_int_equal(doca_mmap_create(&mmap), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(mmap, dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(mmap, mem, sizeof(mem)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(mmap), DOCA_SUCCESS);
	return mmap;
}

static void progress_ms(uint64_t ms)
{
	uint64_t until = cu_now_ms() + ms;

	while (cu_now_ms() < until)
		if (!doca_pe_progress(pe))
			cu_nap();
}

/* Start the worker on conn and progress until it created a consumer and
 * delay_ms passed. */
static void worker_start(struct worker *w, struct doca_comch_connection *conn, struct doca_mmap *mmap,
			 uint64_t delay_ms)
{
	uint64_t until = cu_now_ms() + delay_ms;

	memset(w, 0, sizeof(*w));
	w->conn = conn;
	w->mmap = mmap;
	assert_int_equal(pthread_create(&w->tid, NULL, worker_main, w), 0);
	while (cu_now_ms() < until || atomic_load(&w->created) == 0) {
		if (cu_now_ms() > until + 5000)
			break;
		doca_pe_progress(pe);
	}
}

/* Stop the worker; it must have created consumers on the live connection
 * and been refused on the dead one, nothing else. */
static void worker_finish(struct worker *w)
{
	atomic_store(&w->stop, true);
	assert_int_equal(pthread_join(w->tid, NULL), 0);
	assert_true(atomic_load(&w->created) > 0);
	assert_true(atomic_load(&w->refused) > 0);
	assert_int_equal(atomic_load(&w->bad), 0);
}

#ifndef DOCA_ARCH_DPU
/* ---------------------------------------------------------------- client side */

static struct doca_comch_client *connect_client(const char *name, struct doca_comch_connection **conn)
{
	struct doca_comch_client *c;
	struct doca_ctx *ctx;

	assert_int_equal(doca_comch_client_create(dev, name, &c), DOCA_SUCCESS);
	ctx = doca_comch_client_as_ctx(c);
	assert_int_equal(doca_comch_client_task_send_set_conf(c, sent, sent, 8), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(ctx), DOCA_ERROR_IN_PROGRESS);
	assert_true(cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_RUNNING, 5000));
	assert_int_equal(doca_comch_client_get_connection(c, conn), DOCA_SUCCESS);
	return c;
}

/* The server dies while a thread creates consumers on the client's
 * connection; the client fails to IDLE and the connection stays valid. */
static void test_server_killed_while_consumer_created(void **state)
{
	struct doca_mmap *mmap;
	int round;

	if (!peer_available())
		skip();
	mmap = make_mmap();
	for (round = 0; round < ROUNDS; round++) {
		struct doca_comch_connection *conn;
		struct doca_comch_client *c;
		struct worker w;
		struct peer p;
		char name[32];

		snprintf(name, sizeof(name), "h5_death_%d", round);
		peer_start(&p, pe, name, NULL);
		assert_true(peer_expect(&p, "READY", 5000));
		c = connect_client(name, &conn);
		/* kill the peer at a different moment each round */
		worker_start(&w, conn, mmap, 20 + 15 * (uint64_t)round);
		peer_kill(&p);
		assert_true(cu_progress_until_state(pe, doca_comch_client_as_ctx(c), DOCA_CTX_STATE_IDLE, 3000));
		/* IDLE, not destroyed: the worker goes on with its connection */
		progress_ms(50);
		worker_finish(&w);
		assert_false(sd_comch_conn_is_alive(conn));
		assert_int_equal(doca_comch_client_destroy(c), DOCA_SUCCESS);
	}
	assert_int_equal(doca_mmap_destroy(mmap), DOCA_SUCCESS);
}

static void nop_handler(struct doca_comch_connection *conn, uint16_t kind, const void *body, uint32_t len, int fd,
			void *arg)
{
	int *closed = arg;

	if (fd >= 0)
		close(fd);
	if (kind == SD_COMCH_FP_CLOSED)
		(*closed)++;
}

/* A pinned connection keeps its client from being destroyed (IN_USE); a
 * handler attached from another thread gets CLOSED exactly once, a late one
 * is refused. */
static void test_pinned_client_connection(void **state)
{
	struct doca_comch_connection *conn;
	struct doca_comch_client *c;
	struct peer p;
	int closed = 0, late = 0;

	if (!peer_available())
		skip();
	peer_start(&p, pe, "h5_pin", NULL);
	assert_true(peer_expect(&p, "READY", 5000));
	c = connect_client("h5_pin", &conn);
	assert_true(sd_comch_conn_is_alive(conn));
	sd_comch_conn_ref(conn);
	assert_true(sd_comch_conn_fp_attach(conn, nop_handler, &closed));
	peer_kill(&p);
	assert_true(cu_progress_until_state(pe, doca_comch_client_as_ctx(c), DOCA_CTX_STATE_IDLE, 3000));
	assert_int_equal(closed, 1);
	assert_false(sd_comch_conn_is_alive(conn));
	assert_false(sd_comch_conn_fp_attach(conn, nop_handler, &late));
	assert_int_equal(sd_comch_conn_fp_send(conn, SD_COMCH_FP_KIND_BASE, NULL, 0, -1), DOCA_ERROR_NOT_CONNECTED);
	assert_ptr_equal(sd_comch_conn_dev(conn), dev);
	assert_int_equal(doca_comch_client_destroy(c), DOCA_ERROR_IN_USE);
	sd_comch_conn_unref(conn);
	assert_int_equal(doca_comch_client_destroy(c), DOCA_SUCCESS);
	assert_int_equal(closed, 1);
	assert_int_equal(late, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_server_killed_while_consumer_created, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pinned_client_connection, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else
/* ---------------------------------------------------------------- server side */

static struct doca_comch_server *g_server;
static struct doca_comch_connection *g_conn;
static volatile int connects, disconnects;

static void on_connect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
		       uint8_t ok)
{
	g_conn = c;
	connects++;
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
			  uint8_t ok)
{
	disconnects++;
}

/* Answer the peer's ping so it settles ("stay"). */
static void on_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
	struct doca_comch_task_send *t;

	if (doca_comch_server_task_send_alloc_init(g_server, c, "pong", 4, &t) == DOCA_SUCCESS &&
	    doca_task_submit(doca_comch_task_send_as_task(t)) != DOCA_SUCCESS)
		doca_task_free(doca_comch_task_send_as_task(t));
}

static struct doca_comch_server *start_server(struct doca_dev_rep *rep, const char *name)
{
	struct doca_comch_server *s;

	assert_int_equal(doca_comch_server_create(dev, rep, name, &s), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_task_send_set_conf(s, sent, sent, 8), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_event_msg_recv_register(s, on_msg), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_event_connection_status_changed_register(s, on_connect, on_disconnect),
			 DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(pe, doca_comch_server_as_ctx(s)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_server_as_ctx(s)), DOCA_SUCCESS);
	g_server = s;
	return s;
}

static void stop_server(struct doca_comch_server *s)
{
	struct doca_ctx *ctx = doca_comch_server_as_ctx(s);
	doca_error_t err = doca_ctx_stop(ctx);

	assert_true(err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS);
	assert_true(cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE, 2000));
}

/* The client dies while a thread creates consumers on the server's
 * connection: after the disconnect event the connection stays valid; pinned,
 * it outlives the server's stop and the server's destroy answers IN_USE. */
static void test_client_killed_while_consumer_created(void **state)
{
	struct doca_dev_rep *rep;
	struct doca_mmap *mmap;
	int round;

	if (!peer_available())
		skip();
	mmap = make_mmap();
	assert_int_equal(cu_open_rep(dev, &rep), DOCA_SUCCESS);
	for (round = 0; round < ROUNDS; round++) {
		struct doca_comch_connection *conn;
		struct doca_comch_server *s;
		struct worker w;
		struct peer p;
		char name[32];

		snprintf(name, sizeof(name), "h5_sdeath_%d", round);
		connects = disconnects = 0;
		g_conn = NULL;
		s = start_server(rep, name);
		peer_start(&p, pe, name, "stay");
		assert_true(peer_expect(&p, "GOT pong", 5000));
		assert_true(cu_progress_until_flag(pe, &connects, 1, 1000));
		conn = g_conn;
		worker_start(&w, conn, mmap, 20 + 15 * (uint64_t)round);
		peer_kill(&p);
		assert_true(cu_progress_until_flag(pe, &disconnects, 1, 3000));
		progress_ms(50);
		worker_finish(&w);
		assert_false(sd_comch_conn_is_alive(conn));
		assert_int_equal(doca_comch_server_disconnect(s, conn), DOCA_ERROR_NOT_CONNECTED);
		if (round % 2 == 0) {
			/* pinned: survives the stop, blocks the destroy */
			sd_comch_conn_ref(conn);
			stop_server(s);
			assert_false(sd_comch_conn_is_alive(conn));
			assert_ptr_equal(sd_comch_conn_dev(conn), dev);
			assert_int_equal(doca_comch_server_destroy(s), DOCA_ERROR_IN_USE);
			sd_comch_conn_unref(conn);
		} else {
			stop_server(s);
		}
		assert_int_equal(doca_comch_server_destroy(s), DOCA_SUCCESS);
	}
	assert_int_equal(doca_dev_rep_close(rep), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(mmap), DOCA_SUCCESS);
}

/* A live, pinned connection cannot be disconnected (IN_USE). */
static void test_disconnect_pinned(void **state)
{
	struct doca_comch_server *s;
	struct doca_dev_rep *rep;
	struct peer p;

	if (!peer_available())
		skip();
	connects = disconnects = 0;
	assert_int_equal(cu_open_rep(dev, &rep), DOCA_SUCCESS);
	s = start_server(rep, "h5_dpin");
	peer_start(&p, pe, "h5_dpin", "stay");
	assert_true(peer_expect(&p, "GOT pong", 5000));
	assert_true(cu_progress_until_flag(pe, &connects, 1, 1000));
	sd_comch_conn_ref(g_conn);
	assert_int_equal(doca_comch_server_disconnect(s, g_conn), DOCA_ERROR_IN_USE);
	assert_true(sd_comch_conn_is_alive(g_conn));
	sd_comch_conn_unref(g_conn);
	assert_int_equal(doca_comch_server_disconnect(s, g_conn), DOCA_SUCCESS);
	assert_true(peer_expect(&p, "LOST", 3000));
	assert_true(cu_progress_until_flag(pe, &disconnects, 1, 3000));
	peer_kill(&p);
	stop_server(s);
	assert_int_equal(doca_comch_server_destroy(s), DOCA_SUCCESS);
	assert_int_equal(doca_dev_rep_close(rep), DOCA_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_client_killed_while_consumer_created, setup, teardown),
		cmocka_unit_test_setup_teardown(test_disconnect_pinned, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
