/*
 * fp_peer - the Arm-side (dpu flavor) half of the fast-path tests and of
 * comch_bench. A Comch server that, once a client connects, creates a
 * consumer and a producer on that connection and then:
 *   echo mode: sends every message it receives back to the client's
 *              consumer (same payload, same immediate data);
 *   sink mode: reposts every receive buffer at once and, after the client's
 *              "expect N" control message, answers "done" when N messages
 *              have arrived.
 * Control messages from the client: "post" (post the receive buffers when
 * started with --no-post), "expire" (stop and destroy the consumer),
 * "expect N", "quit" (stop the producer and the consumer, answer "bye": a
 * client that waits for it may then disconnect without either side's
 * fast path seeing the connection lost). It exits when the client goes away.
 *
 * When progress reports nothing it sleeps on the PEs' notification handles
 * (at most --wait-ms, default 100: with a large value a lost wake-up shows
 * as a stall). --jitter: random pauses of up to 3 ms now and then.
 * COMCH_BENCH_DIAG=1: when it answers "done", a line on stderr with its
 * sleeps since the last one (how many, how long, how many over 5 ms).
 *
 * usage: fp_peer <server-name> echo|sink [--no-post] [--bufs N] [--size BYTES] [--wait-ms MS] [--jitter]
 */
#define _GNU_SOURCE
#include <sched.h>

#include "fp_util.h"

struct peer {
	bool sink;
	bool no_post;
	uint32_t nbufs;
	size_t size;
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_pe *pe_srv, *pe_fp;
	struct doca_comch_server *srv;
	struct doca_comch_connection *conn;
	bool disconnected;
	struct doca_comch_producer *prod;
	struct doca_comch_consumer *cons;
	struct fp_mem mem;
	bool fp_up;
	uint32_t client_cons;
	struct doca_comch_consumer_task_post_recv **pending;
	uint32_t p_head, p_tail;
	uint64_t received, expect;
	bool want_post, want_expire, want_quit, done_sent;
	struct doca_comch_consumer_task_post_recv **recv_tasks;
	struct fp_waiter waiter;
	int wait_ms;
	/* COMCH_BENCH_DIAG=1: how long we slept, per "expect" round */
	bool diag;
	uint64_t sleeps, long_sleeps;
	double slept;
	bool jitter;
};

static struct peer P;

static void send_ctrl(const char *msg)
{
	struct doca_comch_task_send *t;

	if (P.conn == NULL)
		return;
	if (doca_comch_server_task_send_alloc_init(P.srv, P.conn, msg, (uint32_t)strlen(msg), &t) != DOCA_SUCCESS)
		return;
	if (doca_task_submit(doca_comch_task_send_as_task(t)) != DOCA_SUCCESS)
		doca_task_free(doca_comch_task_send_as_task(t));
}

static void ctrl_done(struct doca_comch_task_send *task, union doca_data tu, union doca_data cu)
{
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void on_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
	char m[64];

	if (len >= sizeof(m))
		return;
	memcpy(m, buf, len);
	m[len] = '\0';
	if (strcmp(m, "post") == 0)
		P.want_post = true;
	else if (strcmp(m, "expire") == 0)
		P.want_expire = true;
	else if (strcmp(m, "quit") == 0)
		P.want_quit = true;
	else if (strncmp(m, "expect ", 7) == 0) {
		P.expect = strtoull(m + 7, NULL, 10);
		P.done_sent = false;
	}
}

static void on_connect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
		       uint8_t ok)
{
	if (ok && P.conn == NULL)
		P.conn = c;
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
			  uint8_t ok)
{
	if (c == P.conn)
		P.disconnected = true;
}

static void on_new_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c, uint32_t id)
{
	if (getenv("FP_PEER_DEBUG"))
		fprintf(stderr, "fp_peer: new consumer %u\n", id);
	P.client_cons = id;
}

static void on_expired_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c, uint32_t id)
{
	if (getenv("FP_PEER_DEBUG"))
		fprintf(stderr, "fp_peer: expired consumer %u\n", id);
	if (P.client_cons == id)
		P.client_cons = 0;
}

static void repost(struct doca_comch_consumer_task_post_recv *t)
{
	doca_buf_reset_data_len(doca_comch_consumer_task_post_recv_get_buf(t));
	if (doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)) != DOCA_SUCCESS)
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void recv_ok(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	P.received++;
	if (P.sink) {
		repost(t);
		return;
	}
	P.pending[P.p_tail++ % P.nbufs] = t;
}

static void recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void send_ok(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	struct doca_comch_consumer_task_post_recv *r = tu.ptr;

	doca_task_free(doca_comch_producer_task_send_as_task(t));
	if (P.cons != NULL)
		repost(r);
	else
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(r));
}

static void send_err(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	struct doca_comch_consumer_task_post_recv *r = tu.ptr;

	doca_task_free(doca_comch_producer_task_send_as_task(t));
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(r));
}

static void post_all(void)
{
	for (uint32_t i = 0; i < P.nbufs; i++) {
		struct doca_comch_consumer_task_post_recv *t;

		if (doca_comch_consumer_task_post_recv_alloc_init(P.cons, P.mem.bufs[i], &t) != DOCA_SUCCESS)
			break;
		if (doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)) != DOCA_SUCCESS)
			doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
	}
}

static int fp_setup(void)
{
	if (fp_mem_init(&P.mem, P.dev, P.size, P.nbufs, DOCA_ACCESS_FLAG_PCI_READ_WRITE) != DOCA_SUCCESS)
		return -1;
	P.pending = calloc(P.nbufs, sizeof(*P.pending));
	if (doca_comch_consumer_create(P.conn, P.mem.mmap, &P.cons) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(P.pe_fp, doca_comch_consumer_as_ctx(P.cons)) != DOCA_SUCCESS ||
	    doca_comch_consumer_task_post_recv_set_conf(P.cons, recv_ok, recv_err, P.nbufs) != DOCA_SUCCESS ||
	    fp_consumer_start(P.cons, P.pe_fp, P.pe_srv, 10) != DOCA_SUCCESS)
		return -1;
	if (doca_comch_producer_create(P.conn, &P.prod) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(P.pe_fp, doca_comch_producer_as_ctx(P.prod)) != DOCA_SUCCESS ||
	    doca_comch_producer_task_send_set_conf(P.prod, send_ok, send_err, P.nbufs) != DOCA_SUCCESS ||
	    doca_ctx_start(doca_comch_producer_as_ctx(P.prod)) != DOCA_SUCCESS)
		return -1;
	if (!P.no_post)
		post_all();
	if (!fp_waiter_init(&P.waiter, P.pe_fp, P.pe_srv))
		fp_waiter_fini(&P.waiter);
	P.fp_up = true;
	return 0;
}

static void pump(void)
{
	while (P.p_head != P.p_tail && P.client_cons != 0) {
		struct doca_comch_consumer_task_post_recv *r = P.pending[P.p_head % P.nbufs];
		struct doca_comch_producer_task_send *s;
		/* the received immediate data is read-only; echo a copy */
		const uint8_t *rimm = doca_comch_consumer_task_post_recv_get_imm_data(r);
		uint32_t imm_len = doca_comch_consumer_task_post_recv_get_imm_data_len(r);
		uint8_t imm[32];
		doca_error_t e;

		if (imm_len > sizeof(imm))
			return;
		if (imm_len)
			memcpy(imm, rimm, imm_len);
		e = doca_comch_producer_task_send_alloc_init(P.prod, doca_comch_consumer_task_post_recv_get_buf(r),
							     imm_len ? imm : NULL, imm_len, P.client_cons, &s);
		if (e != DOCA_SUCCESS)
			return;
		doca_task_set_user_data(doca_comch_producer_task_send_as_task(s), (union doca_data){.ptr = r});
		e = doca_task_submit(doca_comch_producer_task_send_as_task(s));
		if (e != DOCA_SUCCESS) {
			doca_task_free(doca_comch_producer_task_send_as_task(s));
			return;
		}
		P.p_head++;
	}
}

static void stop_ctx(struct doca_ctx *ctx)
{
	enum doca_ctx_states st;
	double end = fp_now() + 5;

	doca_ctx_get_state(ctx, &st);
	if (st == DOCA_CTX_STATE_IDLE)
		return;
	doca_ctx_stop(ctx);
	do {
		doca_pe_progress(P.pe_fp);
		doca_pe_progress(P.pe_srv);
		doca_ctx_get_state(ctx, &st);
	} while (st != DOCA_CTX_STATE_IDLE && fp_now() < end);
}

static void drop_pending(void)
{
	while (P.p_head != P.p_tail)
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(P.pending[P.p_head++ % P.nbufs]));
}

static void expire(void)
{
	if (P.cons == NULL)
		return;
	drop_pending();
	stop_ctx(doca_comch_consumer_as_ctx(P.cons));
	doca_comch_consumer_destroy(P.cons);
	P.cons = NULL;
}

#ifndef FP_PEER_MAIN
#define FP_PEER_MAIN main
#define FP_PEER_CHECK_PINS 1
#else
#define FP_PEER_CHECK_PINS 0
#endif

int FP_PEER_MAIN(int argc, char **argv)
{
	const char *name;
	unsigned long it = 0;
	bool slept = false;
	int rc = 0;

	if (argc < 3)
		return 2;
	name = argv[1];
	P.sink = strcmp(argv[2], "sink") == 0;
	P.waiter.ep = -1;
	P.wait_ms = 100;
	P.diag = getenv("COMCH_BENCH_DIAG") != NULL && getenv("COMCH_BENCH_DIAG")[0] == '1';
	srand((unsigned int)getpid());
	P.nbufs = 64;
	P.size = 65536;
	for (int i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--no-post") == 0)
			P.no_post = true;
		else if (strcmp(argv[i], "--bufs") == 0 && i + 1 < argc)
			P.nbufs = (uint32_t)atoi(argv[++i]);
		else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc)
			P.size = (size_t)atol(argv[++i]);
		else if (strcmp(argv[i], "--wait-ms") == 0 && i + 1 < argc)
			P.wait_ms = atoi(argv[++i]);
		else if (strcmp(argv[i], "--jitter") == 0)
			P.jitter = true;
	}
	P.dev = fp_open_dev(FP_DPU_PCI);
	P.rep = P.dev ? fp_open_rep(P.dev, FP_HOST_PCI) : NULL;
	if (P.rep == NULL) {
		fprintf(stderr, "fp_peer: no device/representor\n");
		return 3;
	}
	if (doca_pe_create(&P.pe_srv) != DOCA_SUCCESS || doca_pe_create(&P.pe_fp) != DOCA_SUCCESS ||
	    doca_comch_server_create(P.dev, P.rep, name, &P.srv) != DOCA_SUCCESS ||
	    doca_comch_server_task_send_set_conf(P.srv, ctrl_done, ctrl_done, 64) != DOCA_SUCCESS ||
	    doca_comch_server_event_msg_recv_register(P.srv, on_msg) != DOCA_SUCCESS ||
	    doca_comch_server_event_connection_status_changed_register(P.srv, on_connect, on_disconnect) !=
		    DOCA_SUCCESS ||
	    doca_comch_server_event_consumer_register(P.srv, on_new_consumer, on_expired_consumer) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(P.pe_srv, doca_comch_server_as_ctx(P.srv)) != DOCA_SUCCESS ||
	    doca_ctx_start(doca_comch_server_as_ctx(P.srv)) != DOCA_SUCCESS) {
		fprintf(stderr, "fp_peer: server setup failed\n");
		return 4;
	}
	while (!P.disconnected) {
		int busy = 0;

		for (int i = 0; i < 64; i++)
			busy += doca_pe_progress(P.pe_fp);
		if ((++it & 63) == 0 || !P.fp_up || slept)
			busy += doca_pe_progress(P.pe_srv);
		slept = false;
		/* Nothing to do (the libraries already spun a little before
		 * saying so): sleep until the peer's producer, a receive to
		 * repost or the control path wakes us, so that on a machine
		 * with fewer cores than busy threads we do not spin against
		 * the very work we wait for. */
		if (!busy && P.fp_up && P.waiter.ep >= 0) {
			double z = P.diag ? fp_now() : 0;

			fp_waiter_sleep(&P.waiter, P.wait_ms);
			slept = true;
			if (P.diag) {
				z = fp_now() - z;
				P.sleeps++;
				P.slept += z;
				P.long_sleeps += z > 0.005;
			}
		} else if (!busy)
			sched_yield();
		if (P.conn != NULL && !P.fp_up && fp_setup() != 0) {
			fprintf(stderr, "fp_peer: fast path setup failed\n");
			break;
		}
		if (P.want_post) {
			P.want_post = false;
			if (P.cons != NULL)
				post_all();
		}
		if (P.want_expire) {
			P.want_expire = false;
			expire();
		}
		if (P.want_quit) {
			P.want_quit = false;
			expire();
			if (P.prod != NULL)
				stop_ctx(doca_comch_producer_as_ctx(P.prod));
			send_ctrl("bye");
		}
		if (P.expect && !P.done_sent && P.received >= P.expect) {
			P.done_sent = true;
			send_ctrl("done");
			if (P.diag)
				fprintf(stderr, "fp_peer diag: %llu received, %llu sleeps (%.1f ms, %llu over 5 ms)\n",
					(unsigned long long)P.received, (unsigned long long)P.sleeps, P.slept * 1e3,
					(unsigned long long)P.long_sleeps);
			P.sleeps = P.long_sleeps = 0;
			P.slept = 0;
		}
		pump();
		if (P.jitter && rand() % 2048 == 0)
			usleep((useconds_t)(rand() % 3000));
	}
	drop_pending();
	if (P.cons != NULL)
		stop_ctx(doca_comch_consumer_as_ctx(P.cons));
	if (P.prod != NULL)
		stop_ctx(doca_comch_producer_as_ctx(P.prod));
	stop_ctx(doca_comch_server_as_ctx(P.srv));
	/* Producers and consumers pin the connection: the server outlives them
	 * (checked in the tests; the refusal logs an error, noise in the bench). */
	if (FP_PEER_CHECK_PINS && (P.cons != NULL || P.prod != NULL) &&
	    doca_comch_server_destroy(P.srv) != DOCA_ERROR_IN_USE) {
		fprintf(stderr, "fp_peer: server destroy with a producer/consumer alive not refused\n");
		rc = 5;
	}
	expire();
	if (FP_PEER_CHECK_PINS && P.prod != NULL && doca_comch_server_destroy(P.srv) != DOCA_ERROR_IN_USE) {
		fprintf(stderr, "fp_peer: server destroy with a producer alive not refused\n");
		rc = 5;
	}
	if (P.prod != NULL && doca_comch_producer_destroy(P.prod) != DOCA_SUCCESS)
		rc = 6;
	if (doca_comch_server_destroy(P.srv) != DOCA_SUCCESS) {
		fprintf(stderr, "fp_peer: server destroy failed\n");
		rc = 6;
	}
	/* For measuring (bench syscall counts per message): what arrived. */
	if (getenv("FP_PEER_STATS") != NULL)
		fprintf(stderr, "fp_peer: received %llu messages\n", (unsigned long long)P.received);
	fp_waiter_fini(&P.waiter);
	doca_pe_destroy(P.pe_fp);
	doca_pe_destroy(P.pe_srv);
	fp_mem_fini(&P.mem);
	free(P.pending);
	doca_dev_rep_close(P.rep);
	doca_dev_close(P.dev);
	return rc;
}
