/*
 * Two-process tests of the Comch fast path: this host-flavor client against
 * fp_peer (dpu flavor, from the peer build) in a private fabric directory.
 * Skipped when no peer build is configured.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>

#include "fp_util.h"
#include "../common/ucx_loop_util.h"

#define NRBUF 8u

struct cli {
	char *fabric;
	pid_t peer;
	char name[64];
	struct doca_dev *dev;
	struct doca_pe *pe_cli, *pe_fp;
	struct doca_comch_client *cli;
	struct doca_comch_connection *conn;
	struct doca_comch_producer *prod;
	struct doca_comch_consumer *cons;
	struct fp_mem smem, rmem;
	uint32_t cap;
	uint32_t peer_cons, expired_id;
	bool got_done;
	/* receive side */
	uint64_t nrecv, nrecv_err, nsend_ok, nsend_err;
	doca_error_t last_recv_err, last_send_err;
	uint32_t exp_len, exp_seed;
	bool verify_ok;
	bool repost;
	uint32_t prefix;   /* repost receive buffers holding this many 'P' bytes */
	uint64_t nprefixed; /* messages received behind such a prefix */
};

static struct cli C;

static uint8_t pat(uint32_t seed, size_t i)
{
	return (uint8_t)(seed * 131u + i * 7u + (i >> 8));
}

static void on_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
	if (len == 4 && memcmp(buf, "done", 4) == 0)
		C.got_done = true;
}

static void on_new_cons(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c, uint32_t id)
{
	__atomic_store_n(&C.peer_cons, id, __ATOMIC_RELEASE); /* read by test_threads' producer */
}

static void on_expired_cons(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c, uint32_t id)
{
	C.expired_id = id;
}

static void ctrl_done(struct doca_comch_task_send *task, union doca_data tu, union doca_data cu)
{
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void recv_ok(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	struct doca_buf *b = doca_comch_consumer_task_post_recv_get_buf(t);
	const uint8_t *imm = doca_comch_consumer_task_post_recv_get_imm_data(t);
	uint32_t exp_imm[2] = {C.exp_seed, C.exp_len};
	void *data;
	size_t len;
	bool ok = true;

	C.nrecv++;
	doca_buf_get_data(b, &data);
	doca_buf_get_data_len(b, &len);
	if (C.exp_len != UINT32_MAX) {
		/* A buffer reposted with a prefix: the message follows it. */
		size_t pre = C.prefix != 0 && len == (size_t)C.exp_len + C.prefix ? C.prefix : 0;

		for (size_t i = 0; ok && i < pre; i++)
			ok = ((uint8_t *)data)[i] == 'P';
		if (pre != 0)
			C.nprefixed++;
		data = (uint8_t *)data + pre;
		len -= pre;
		ok = ok && len == C.exp_len &&
		     doca_comch_consumer_task_post_recv_get_imm_data_len(t) == sizeof(exp_imm) &&
		     imm != NULL && memcmp(imm, exp_imm, sizeof(exp_imm)) == 0 &&
		     doca_comch_consumer_task_post_recv_get_producer_id(t) != 0;
		for (size_t i = 0; ok && i < len; i++)
			ok = ((uint8_t *)data)[i] == pat(C.exp_seed, i);
		C.verify_ok = ok;
	}
	doca_buf_reset_data_len(b);
	if (C.prefix != 0) {
		void *head;

		doca_buf_get_head(b, &head);
		memset(head, 'P', C.prefix);
		doca_buf_set_data(b, head, C.prefix);
	}
	if (!C.repost || doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)) != DOCA_SUCCESS)
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	C.nrecv_err++;
	C.last_recv_err = doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(t));
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void send_ok(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	C.nsend_ok++;
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static void send_err(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	C.nsend_err++;
	C.last_send_err = doca_task_get_status(doca_comch_producer_task_send_as_task(t));
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static void progress(void)
{
	doca_pe_progress(C.pe_fp);
	doca_pe_progress(C.pe_cli);
}

static enum doca_ctx_states state_of(struct doca_ctx *ctx)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	doca_ctx_get_state(ctx, &st);
	return st;
}

#define WAIT_FOR(cond, secs)                                                                                          \
	({                                                                                                            \
		double end_ = fp_now() + (secs);                                                                      \
		while (!(cond) && fp_now() < end_)                                                                    \
			progress();                                                                                   \
		(cond);                                                                                               \
	})

static void send_ctrl(const char *m)
{
	struct doca_comch_task_send *t;

	assert_int_equal(doca_comch_client_task_send_alloc_init(C.cli, C.conn, m, (uint32_t)strlen(m), &t),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_comch_task_send_as_task(t)), DOCA_SUCCESS);
}

static void post_all(void)
{
	for (uint32_t i = 0; i < NRBUF; i++) {
		struct doca_comch_consumer_task_post_recv *t;

		assert_int_equal(doca_comch_consumer_task_post_recv_alloc_init(C.cons, C.rmem.bufs[i], &t),
				 DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)), DOCA_SUCCESS);
	}
}

static int teardown(void **state);

static int setup_peer_(void **state, const char *extra, bool fp);

static int setup_peer(void **state, const char *extra)
{
	if (setup_peer_(state, extra, true) == 0)
		return 0;
	if (C.peer > 0)
		kill(C.peer, SIGKILL);
	teardown(state);
	return -1;
}

static int setup_peer_(void **state, const char *extra, bool fp)
{
	static int seq;
	char path[512], bufs[16], size[32];
	uint32_t pcap = 0, ccap = 0;

	memset(&C, 0, sizeof(C));
	C.exp_len = UINT32_MAX;
	C.repost = true;
	if (!fp_peer_path("tests/comch_fp/fp_peer", path, sizeof(path)))
		return -1;
	C.fabric = fp_fabric_make();
	snprintf(C.name, sizeof(C.name), "fp_test_%d_%d", getpid(), seq++);
	C.dev = fp_open_dev(FP_HOST_PCI);
	if (C.dev == NULL)
		return -1;
	doca_comch_producer_cap_get_max_buf_size(doca_dev_as_devinfo(C.dev), &pcap);
	doca_comch_consumer_cap_get_max_buf_size(doca_dev_as_devinfo(C.dev), &ccap);
	C.cap = pcap < ccap ? pcap : ccap;
	snprintf(bufs, sizeof(bufs), "%u", NRBUF);
	snprintf(size, sizeof(size), "%u", C.cap);
	{
		char *argv[] = {path, C.name, "echo", "--bufs", bufs, "--size", size, (char *)extra, NULL};

		C.peer = fp_spawn(argv);
	}
	if (C.peer <= 0)
		return -1;
	if (doca_pe_create(&C.pe_cli) != DOCA_SUCCESS || doca_pe_create(&C.pe_fp) != DOCA_SUCCESS ||
	    doca_comch_client_create(C.dev, C.name, &C.cli) != DOCA_SUCCESS ||
	    doca_comch_client_task_send_set_conf(C.cli, ctrl_done, ctrl_done, 16) != DOCA_SUCCESS ||
	    doca_comch_client_event_msg_recv_register(C.cli, on_msg) != DOCA_SUCCESS ||
	    doca_comch_client_event_consumer_register(C.cli, on_new_cons, on_expired_cons) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(C.pe_cli, doca_comch_client_as_ctx(C.cli)) != DOCA_SUCCESS)
		return -1;
	doca_ctx_start(doca_comch_client_as_ctx(C.cli));
	if (!WAIT_FOR(state_of(doca_comch_client_as_ctx(C.cli)) == DOCA_CTX_STATE_RUNNING, 15))
		return -1;
	if (doca_comch_client_get_connection(C.cli, &C.conn) != DOCA_SUCCESS)
		return -1;
	if (!fp)
		return 0;
	if (fp_mem_init(&C.smem, C.dev, (size_t)C.cap + 64, 1, DOCA_ACCESS_FLAG_PCI_READ_ONLY) != DOCA_SUCCESS ||
	    fp_mem_init(&C.rmem, C.dev, C.cap, NRBUF, DOCA_ACCESS_FLAG_PCI_READ_WRITE) != DOCA_SUCCESS)
		return -1;
	if (doca_comch_consumer_create(C.conn, C.rmem.mmap, &C.cons) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(C.pe_fp, doca_comch_consumer_as_ctx(C.cons)) != DOCA_SUCCESS ||
	    doca_comch_consumer_task_post_recv_set_conf(C.cons, recv_ok, recv_err, NRBUF) != DOCA_SUCCESS ||
	    fp_consumer_start(C.cons, C.pe_fp, C.pe_cli, 10) != DOCA_SUCCESS)
		return -1;
	if (doca_comch_producer_create(C.conn, &C.prod) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(C.pe_fp, doca_comch_producer_as_ctx(C.prod)) != DOCA_SUCCESS ||
	    doca_comch_producer_task_send_set_conf(C.prod, send_ok, send_err, 64) != DOCA_SUCCESS ||
	    doca_ctx_start(doca_comch_producer_as_ctx(C.prod)) != DOCA_SUCCESS)
		return -1;
	post_all();
	if (!WAIT_FOR(C.peer_cons != 0, 10))
		return -1;
	return 0;
}

static int setup_echo(void **state)
{
	return setup_peer(state, NULL);
}

static int setup_client_only(void **state)
{
	if (setup_peer_(state, NULL, false) == 0)
		return 0;
	if (C.peer > 0)
		kill(C.peer, SIGKILL);
	teardown(state);
	return -1;
}

static int setup_nopost(void **state)
{
	return setup_peer(state, "--no-post");
}

static void stop_ctx(struct doca_ctx *ctx)
{
	if (ctx == NULL || state_of(ctx) == DOCA_CTX_STATE_IDLE)
		return;
	doca_ctx_stop(ctx);
	WAIT_FOR(state_of(ctx) == DOCA_CTX_STATE_IDLE, 5);
}

static int teardown(void **state)
{
	int rc = 0;

	if (C.prod) {
		stop_ctx(doca_comch_producer_as_ctx(C.prod));
		if (doca_comch_producer_destroy(C.prod) != DOCA_SUCCESS)
			rc = -1;
	}
	if (C.cons) {
		stop_ctx(doca_comch_consumer_as_ctx(C.cons));
		if (doca_comch_consumer_destroy(C.cons) != DOCA_SUCCESS)
			rc = -1;
	}
	if (C.cli) {
		stop_ctx(doca_comch_client_as_ctx(C.cli));
		if (doca_comch_client_destroy(C.cli) != DOCA_SUCCESS)
			rc = -1;
	}
	if (C.pe_fp)
		doca_pe_destroy(C.pe_fp);
	if (C.pe_cli)
		doca_pe_destroy(C.pe_cli);
	fp_mem_fini(&C.smem);
	fp_mem_fini(&C.rmem);
	if (C.dev)
		doca_dev_close(C.dev);
	/* The peer must leave by itself, cleanly, once we disconnect. */
	if (C.peer > 0 && fp_reap(C.peer, 10) != 0) {
		fprintf(stderr, "fp_peer did not exit cleanly\n");
		rc = -1;
	}
	fp_fabric_remove(C.fabric);
	return rc;
}

static doca_error_t send_msg(uint32_t len, uint32_t seed, uint32_t consumer)
{
	struct doca_comch_producer_task_send *t;
	struct doca_buf *b = C.smem.bufs[0];
	uint32_t imm[2] = {seed, len};
	doca_error_t e;

	doca_buf_set_data(b, C.smem.addr, len);
	e = doca_comch_producer_task_send_alloc_init(C.prod, b, (uint8_t *)imm, sizeof(imm), consumer, &t);
	if (e != DOCA_SUCCESS)
		return e;
	e = doca_task_submit(doca_comch_producer_task_send_as_task(t));
	if (e != DOCA_SUCCESS)
		doca_task_free(doca_comch_producer_task_send_as_task(t));
	return e;
}

static void echo_one(uint32_t len, uint32_t seed)
{
	uint64_t before = C.nrecv;
	doca_error_t e;

	for (uint32_t i = 0; i < len; i++)
		C.smem.addr[i] = pat(seed, i);
	C.exp_len = len;
	C.exp_seed = seed;
	C.verify_ok = false;
	while ((e = send_msg(len, seed, C.peer_cons)) == DOCA_ERROR_AGAIN)
		progress();
	assert_int_equal(e, DOCA_SUCCESS);
	if (!WAIT_FOR(C.nrecv == before + 1, 10))
		fail_msg("no echo of %u bytes (seed %u): received %llu, expected %llu", len, seed,
			 (unsigned long long)C.nrecv, (unsigned long long)before + 1);
	assert_true(C.verify_ok);
}

static void test_echo_integrity(void **state)
{
	uint32_t seed = 1;

	for (uint32_t len = 1; len <= 4096; len++)
		echo_one(len, seed++);
	for (uint64_t len = 4097; len < C.cap; len = len * 5 / 4 + 13)
		echo_one((uint32_t)len, seed++);
	echo_one(C.cap, seed++);
	assert_int_equal(C.nrecv_err, 0);
	assert_int_equal(C.nsend_err, 0);
}

/* Receive buffers that already hold data: the message is appended behind
 * it (directly placed or not), the bytes before it stay, in every buffer of
 * the receive memory (the first and last lie partly outside its whole
 * pages). */
static void test_append_behind_data(void **state)
{
	uint32_t seed = 500;

	C.prefix = 100;
	/* once round every buffer to put the prefixes in place */
	for (uint32_t i = 0; i < NRBUF; i++)
		echo_one(4096, seed++);
	C.nprefixed = 0;
	for (uint32_t i = 0; i < 3 * NRBUF; i++)
		echo_one(i % 2 ? C.cap - C.prefix : 2000 + i * 977 % (C.cap - 2100), seed++);
	assert_int_equal(C.nprefixed, 3 * NRBUF);
	assert_int_equal(C.nrecv_err, 0);
	assert_int_equal(C.nsend_err, 0);
}

static void test_unknown_consumer(void **state)
{
	assert_int_equal(send_msg(16, 1, C.peer_cons + 1000), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(send_msg(16, 1, 0), DOCA_ERROR_NOT_FOUND);
	echo_one(16, 5); /* still fine afterwards */
}

static void test_size_over_cap(void **state)
{
	struct doca_comch_producer_task_send *t;
	uint8_t imm[64] = {0};

	assert_int_equal(send_msg(C.cap + 1, 1, C.peer_cons), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_task_send_alloc_init(C.prod, C.smem.bufs[0], imm, 33, C.peer_cons, &t),
			 DOCA_ERROR_INVALID_VALUE);
	echo_one(C.cap, 9);
}

static void test_again_without_posted(void **state)
{
	doca_error_t e;

	/* the peer has not posted a buffer: back-pressure, task stays ours */
	for (int i = 0; i < 20; i++) {
		progress();
		assert_int_equal(send_msg(64, 3, C.peer_cons), DOCA_ERROR_AGAIN);
	}
	send_ctrl("post");
	for (uint32_t i = 0; i < 64; i++)
		C.smem.addr[i] = pat(3, i);
	C.exp_len = 64;
	C.exp_seed = 3;
	{
		double end = fp_now() + 5;

		while ((e = send_msg(64, 3, C.peer_cons)) == DOCA_ERROR_AGAIN && fp_now() < end)
			progress();
	}
	assert_int_equal(e, DOCA_SUCCESS);
	assert_true(WAIT_FOR(C.nrecv == 1, 5));
	assert_true(C.verify_ok);
}

static void test_consumer_expiry(void **state)
{
	uint32_t id = C.peer_cons;

	echo_one(100, 4);
	send_ctrl("expire");
	assert_true(WAIT_FOR(C.expired_id == id, 5));
	assert_int_equal(send_msg(16, 1, id), DOCA_ERROR_NOT_FOUND);
}

static void test_stop_flushes_and_restart(void **state)
{
	struct doca_ctx *cc = doca_comch_consumer_as_ctx(C.cons);

	echo_one(64, 11);
	assert_int_equal(doca_ctx_stop(cc), DOCA_ERROR_IN_PROGRESS);
	assert_true(WAIT_FOR(state_of(cc) == DOCA_CTX_STATE_IDLE, 5));
	/* every posted buffer came back through the error callback */
	assert_int_equal(C.nrecv_err, NRBUF);
	assert_int_equal(C.last_recv_err, DOCA_ERROR_IO_FAILED);
	/* start again: announced anew, the peer echoes to it */
	assert_int_equal(fp_consumer_start(C.cons, C.pe_fp, C.pe_cli, 10), DOCA_SUCCESS);
	post_all();
	echo_one(1000, 12);
	echo_one(C.cap, 13);
}

/* The secure_channel pattern: producer and consumer each on their own thread
 * with their own PE, created there, while this thread progresses the client. */
#define T_MSGS 3000u
#define T_SIZE 256u

struct t_side {
	pthread_t th;
	int done;      /* atomic */
	int ok;
	uint64_t count;
	struct doca_pe *pe;
	struct fp_mem mem;
};

static struct t_side TP, TC;

static void t_send_cb(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	TP.count++;
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static void t_send_err(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static void t_recv_cb(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	struct doca_buf *b = doca_comch_consumer_task_post_recv_get_buf(t);
	const uint32_t *imm = (const uint32_t *)doca_comch_consumer_task_post_recv_get_imm_data(t);
	uint8_t *data;
	size_t len;

	doca_buf_get_data(b, (void **)&data);
	doca_buf_get_data_len(b, &len);
	if (len != T_SIZE || imm == NULL || imm[0] != TC.count || imm[1] != T_SIZE)
		TC.ok = 0;
	for (size_t i = 0; TC.ok && i < len; i++)
		TC.ok = data[i] == pat(imm[0], i);
	TC.count++;
	doca_buf_reset_data_len(b);
	if (doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)) != DOCA_SUCCESS)
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void t_recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void t_stop(struct doca_pe *pe, struct doca_ctx *ctx)
{
	enum doca_ctx_states st;
	double end = fp_now() + 5;

	doca_ctx_stop(ctx);
	do {
		doca_pe_progress(pe);
		doca_ctx_get_state(ctx, &st);
	} while (st != DOCA_CTX_STATE_IDLE && fp_now() < end);
}

static void *t_consumer(void *arg)
{
	struct doca_comch_consumer *c = NULL;
	double end = fp_now() + 30;

	TC.ok = 0;
	if (doca_pe_create(&TC.pe) != DOCA_SUCCESS ||
	    fp_mem_init(&TC.mem, C.dev, T_SIZE, 32, DOCA_ACCESS_FLAG_PCI_READ_WRITE) != DOCA_SUCCESS ||
	    doca_comch_consumer_create(C.conn, TC.mem.mmap, &c) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(TC.pe, doca_comch_consumer_as_ctx(c)) != DOCA_SUCCESS ||
	    doca_comch_consumer_task_post_recv_set_conf(c, t_recv_cb, t_recv_err, 32) != DOCA_SUCCESS ||
	    fp_consumer_start(c, TC.pe, NULL, 10) != DOCA_SUCCESS)
		goto out;
	TC.ok = 1;
	for (uint32_t i = 0; i < 32; i++) {
		struct doca_comch_consumer_task_post_recv *t;

		if (doca_comch_consumer_task_post_recv_alloc_init(c, TC.mem.bufs[i], &t) != DOCA_SUCCESS ||
		    doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)) != DOCA_SUCCESS)
			TC.ok = 0;
	}
	while (TC.ok && TC.count < T_MSGS && fp_now() < end)
		doca_pe_progress(TC.pe);
	if (TC.count != T_MSGS)
		TC.ok = 0;
out:
	if (c != NULL) {
		t_stop(TC.pe, doca_comch_consumer_as_ctx(c));
		doca_comch_consumer_destroy(c);
	}
	if (TC.pe)
		doca_pe_destroy(TC.pe);
	fp_mem_fini(&TC.mem);
	__atomic_store_n(&TC.done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *t_producer(void *arg)
{
	struct doca_comch_producer *p = NULL;
	double end = fp_now() + 30;
	uint32_t seq = 0, id;

	TP.ok = 0;
	if (doca_pe_create(&TP.pe) != DOCA_SUCCESS ||
	    fp_mem_init(&TP.mem, C.dev, T_SIZE, 1, DOCA_ACCESS_FLAG_PCI_READ_ONLY) != DOCA_SUCCESS ||
	    doca_comch_producer_create(C.conn, &p) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(TP.pe, doca_comch_producer_as_ctx(p)) != DOCA_SUCCESS ||
	    doca_comch_producer_task_send_set_conf(p, t_send_cb, t_send_err, 64) != DOCA_SUCCESS ||
	    doca_ctx_start(doca_comch_producer_as_ctx(p)) != DOCA_SUCCESS)
		goto out;
	while ((id = __atomic_load_n(&C.peer_cons, __ATOMIC_ACQUIRE)) == 0 && fp_now() < end)
		doca_pe_progress(TP.pe);
	while (seq < T_MSGS && fp_now() < end) {
		struct doca_comch_producer_task_send *t;
		uint32_t imm[2] = {seq, T_SIZE};
		doca_error_t e;

		/* one source buffer: wait for the previous send to complete */
		while (TP.count < seq && fp_now() < end)
			doca_pe_progress(TP.pe);
		for (uint32_t i = 0; i < T_SIZE; i++)
			TP.mem.addr[i] = pat(seq, i);
		doca_buf_set_data(TP.mem.bufs[0], TP.mem.addr, T_SIZE);
		if (doca_comch_producer_task_send_alloc_init(p, TP.mem.bufs[0], (uint8_t *)imm, sizeof(imm), id, &t) !=
		    DOCA_SUCCESS)
			break;
		while ((e = doca_task_submit(doca_comch_producer_task_send_as_task(t))) == DOCA_ERROR_AGAIN &&
		       fp_now() < end)
			doca_pe_progress(TP.pe);
		if (e != DOCA_SUCCESS) {
			doca_task_free(doca_comch_producer_task_send_as_task(t));
			break;
		}
		seq++;
	}
	while (TP.count < seq && fp_now() < end)
		doca_pe_progress(TP.pe);
	TP.ok = seq == T_MSGS && TP.count == T_MSGS;
out:
	if (p != NULL) {
		t_stop(TP.pe, doca_comch_producer_as_ctx(p));
		doca_comch_producer_destroy(p);
	}
	if (TP.pe)
		doca_pe_destroy(TP.pe);
	fp_mem_fini(&TP.mem);
	__atomic_store_n(&TP.done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_threads(void **state)
{
	double end = fp_now() + 60;

	memset(&TP, 0, sizeof(TP));
	memset(&TC, 0, sizeof(TC));
	assert_int_equal(pthread_create(&TC.th, NULL, t_consumer, NULL), 0);
	assert_int_equal(pthread_create(&TP.th, NULL, t_producer, NULL), 0);
	while (!(__atomic_load_n(&TP.done, __ATOMIC_ACQUIRE) && __atomic_load_n(&TC.done, __ATOMIC_ACQUIRE)) &&
	       fp_now() < end)
		doca_pe_progress(C.pe_cli);
	pthread_join(TP.th, NULL);
	pthread_join(TC.th, NULL);
	assert_true(TP.ok);
	assert_true(TC.ok);
	assert_int_equal(TC.count, T_MSGS);
}

/* A consumer whose program sleeps on the PE's notification handle is woken
 * by incoming fast-path data. */
static void test_event_driven_wakeup(void **state)
{
	doca_notification_handle_t h;
	int wakes = 0;

	assert_int_equal(doca_pe_get_notification_handle(C.pe_fp, &h), DOCA_SUCCESS);
	for (uint32_t m = 0; m < 20; m++) {
		uint64_t before = C.nrecv;
		double end = fp_now() + 10;
		doca_error_t e;

		for (uint32_t i = 0; i < 512; i++)
			C.smem.addr[i] = pat(100 + m, i);
		C.exp_len = 512;
		C.exp_seed = 100 + m;
		while ((e = send_msg(512, 100 + m, C.peer_cons)) == DOCA_ERROR_AGAIN)
			progress();
		assert_int_equal(e, DOCA_SUCCESS);
		while (C.nrecv == before && fp_now() < end) {
			struct pollfd pfd = {.fd = h, .events = POLLIN};

			while (doca_pe_progress(C.pe_fp))
				;
			if (C.nrecv != before)
				break;
			assert_int_equal(doca_pe_request_notification(C.pe_fp), DOCA_SUCCESS);
			if (poll(&pfd, 1, 5000) > 0)
				wakes++;
			assert_int_equal(doca_pe_clear_notification(C.pe_fp, h), DOCA_SUCCESS);
		}
		assert_int_equal(C.nrecv, before + 1);
		assert_true(C.verify_ok);
	}
	assert_true(wakes > 0);
}

/* Producers and consumers pin their connection: the client (and, checked by
 * fp_peer at its exit, the server) cannot be destroyed under them; a create
 * refused on the dead connection leaves no pin behind. */
static void test_owner_in_use(void **state)
{
	struct doca_comch_producer *p2 = NULL;
	struct doca_comch_consumer *c2 = NULL;

	stop_ctx(doca_comch_producer_as_ctx(C.prod));
	stop_ctx(doca_comch_consumer_as_ctx(C.cons));
	assert_int_equal(doca_comch_client_destroy(C.cli), DOCA_ERROR_BAD_STATE); /* still running */
	stop_ctx(doca_comch_client_as_ctx(C.cli));
	assert_int_equal(state_of(doca_comch_client_as_ctx(C.cli)), DOCA_CTX_STATE_IDLE);
	assert_int_equal(doca_comch_producer_create(C.conn, &p2), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_consumer_create(C.conn, C.rmem.mmap, &c2), DOCA_ERROR_BAD_STATE);
	assert_null(p2);
	assert_null(c2);
	assert_int_equal(doca_comch_client_destroy(C.cli), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_comch_producer_destroy(C.prod), DOCA_SUCCESS);
	C.prod = NULL;
	assert_int_equal(doca_comch_client_destroy(C.cli), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_comch_consumer_destroy(C.cons), DOCA_SUCCESS);
	C.cons = NULL;
	assert_int_equal(doca_comch_client_destroy(C.cli), DOCA_SUCCESS);
	C.cli = NULL;
}

static void test_peer_kill(void **state)
{
	struct doca_ctx *pc = doca_comch_producer_as_ctx(C.prod);
	struct doca_ctx *cc = doca_comch_consumer_as_ctx(C.cons);
	double t0;
	int sent = 0;

	C.exp_len = UINT32_MAX; /* stream, no per-message check */
	for (uint32_t i = 0; i < 4096; i++)
		C.smem.addr[i] = (uint8_t)i;
	while (C.nrecv < 200) {
		if (send_msg(4096, 0, C.peer_cons) == DOCA_SUCCESS)
			sent++;
		progress();
	}
	kill(C.peer, SIGKILL);
	t0 = fp_now();
	/* keep sending: errors, never a hang */
	while (fp_now() - t0 < 5 && (state_of(pc) != DOCA_CTX_STATE_IDLE || state_of(cc) != DOCA_CTX_STATE_IDLE)) {
		doca_error_t e = send_msg(4096, 0, C.peer_cons);

		assert_true(e == DOCA_SUCCESS || e == DOCA_ERROR_AGAIN || e == DOCA_ERROR_NOT_FOUND ||
			    e == DOCA_ERROR_NOT_CONNECTED || e == DOCA_ERROR_BAD_STATE);
		progress();
	}
	assert_int_equal(state_of(pc), DOCA_CTX_STATE_IDLE);
	assert_int_equal(state_of(cc), DOCA_CTX_STATE_IDLE);
	assert_true(fp_now() - t0 < 3.0);
	/* posted receive buffers were handed back with a connection error */
	assert_int_equal(C.nrecv_err, NRBUF);
	assert_int_equal(C.last_recv_err, DOCA_ERROR_CONNECTION_RESET);
	assert_true(sent > 0);
	waitpid(C.peer, NULL, 0);
	C.peer = 0;
}

static void test_bad_args(void **state)
{
	struct doca_devinfo *di = doca_dev_as_devinfo(C.dev);
	struct doca_comch_producer *p;
	struct doca_comch_consumer *c;
	struct doca_comch_producer_task_send *st;
	struct doca_comch_consumer_task_post_recv *rt;
	struct doca_comch_consumer_completion *cc;
	doca_dpa_dev_comch_producer_t dpa_prod;
	doca_dpa_dev_comch_consumer_t dpa_cons;
	uint32_t v;
	uint8_t imm[4] = {0};

	/* producer */
	assert_int_equal(doca_comch_producer_create(NULL, &p), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_create(C.conn, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_cap_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_cap_is_supported(di), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_get_id(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_get_id(C.prod, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_get_id(C.prod, &v), DOCA_SUCCESS);
	assert_int_not_equal(v, 0);
	assert_int_equal(doca_comch_producer_cap_get_max_num_tasks(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_cap_get_max_num_tasks(di, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_cap_get_max_buf_size(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_cap_get_max_buf_size(di, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_cap_get_max_buf_list_len(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_cap_get_max_producers(di, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_comch_producer_as_ctx(NULL));
	/* DPA side: checks, then NOT_SUPPORTED (C.prod is running: BAD_STATE) */
	assert_int_equal(doca_comch_producer_set_dev_max_num_send(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_set_dev_max_num_send(C.prod, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_set_dev_max_num_send(C.prod, 1), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_producer_get_dpa_handle(C.prod, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_get_dpa_handle(NULL, &dpa_prod), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_get_dpa_handle(C.prod, &dpa_prod), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_comch_producer_dpa_completion_attach(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_create(C.conn, &p), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_set_dev_max_num_send(p, 64), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_comch_producer_dpa_completion_attach(p, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_destroy(p), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_task_send_set_conf(NULL, send_ok, send_err, 4), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_task_send_set_conf(C.prod, NULL, send_err, 4), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_task_send_set_conf(C.prod, send_ok, send_err, 0), DOCA_ERROR_INVALID_VALUE);
	/* running: configuration and destroy refused */
	assert_int_equal(doca_comch_producer_task_send_set_conf(C.prod, send_ok, send_err, 4), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_producer_destroy(C.prod), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_producer_task_send_alloc_init(NULL, C.smem.bufs[0], NULL, 0, 1, &st),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_task_send_alloc_init(C.prod, NULL, NULL, 0, 1, &st),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_task_send_alloc_init(C.prod, C.smem.bufs[0], NULL, 4, 1, &st),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_task_send_alloc_init(C.prod, C.smem.bufs[0], NULL, 0, 1, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_task_send_alloc_init(C.prod, C.smem.bufs[0], imm, 4, 77, &st),
			 DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_task_send_get_consumer_id(st), 77);
	doca_comch_producer_task_send_set_consumer_id(st, 78);
	assert_int_equal(doca_comch_producer_task_send_get_consumer_id(st), 78);
	assert_ptr_equal(doca_comch_producer_task_send_get_buf(st), C.smem.bufs[0]);
	assert_int_equal(doca_comch_producer_task_send_get_imm_data_len(st), 4);
	doca_comch_producer_task_send_set_imm_data(st, imm, 100); /* too long: ignored */
	assert_int_equal(doca_comch_producer_task_send_get_imm_data_len(st), 4);
	doca_comch_producer_task_send_set_imm_data(st, NULL, 0);
	assert_null(doca_comch_producer_task_send_get_imm_data(st));
	doca_comch_producer_task_send_set_buf(st, NULL);
	assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(st)), DOCA_ERROR_INVALID_VALUE);
	doca_task_free(doca_comch_producer_task_send_as_task(st));
	assert_null(doca_comch_producer_task_send_as_task(NULL));
	assert_null(doca_comch_producer_task_send_get_buf(NULL));
	assert_int_equal(doca_comch_producer_task_send_get_consumer_id(NULL), 0);
	assert_null(doca_comch_producer_task_send_get_imm_data(NULL));
	assert_int_equal(doca_comch_producer_task_send_get_imm_data_len(NULL), 0);
	doca_comch_producer_task_send_set_buf(NULL, NULL);
	doca_comch_producer_task_send_set_consumer_id(NULL, 1);
	doca_comch_producer_task_send_set_imm_data(NULL, imm, 1);

	/* consumer */
	assert_int_equal(doca_comch_consumer_create(NULL, C.rmem.mmap, &c), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_create(C.conn, NULL, &c), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_create(C.conn, C.rmem.mmap, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_destroy(C.cons), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_consumer_cap_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_cap_is_supported(di), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_get_id(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_get_id(C.cons, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_cap_get_max_num_tasks(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_cap_get_max_buf_size(di, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_cap_get_max_buf_list_len(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_cap_get_max_consumers(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_cap_get_max_imm_data_len(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_cap_get_max_imm_data_len(di, &v), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_get_imm_data_len(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_set_imm_data_len(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_set_imm_data_len(C.cons, 1000), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_set_imm_data_len(C.cons, 1), DOCA_ERROR_BAD_STATE);
	assert_null(doca_comch_consumer_as_ctx(NULL));
	/* DPA side: checks, then NOT_SUPPORTED (C.cons is running: BAD_STATE) */
	assert_int_equal(doca_comch_consumer_set_dev_max_num_recv(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_set_dev_max_num_recv(C.cons, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_set_dev_max_num_recv(C.cons, 1), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_consumer_get_dpa_handle(C.cons, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_get_dpa_handle(C.cons, &dpa_cons), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_comch_consumer_completion_create(&cc), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_set_completion(NULL, cc, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_set_completion(C.cons, NULL, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_set_completion(C.cons, cc, 0), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_consumer_create(C.conn, C.rmem.mmap, &c), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_set_dev_max_num_recv(c, 64), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_comch_consumer_set_completion(c, cc, 7), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_comch_consumer_destroy(c), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_completion_destroy(cc), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_task_post_recv_set_conf(NULL, recv_ok, recv_err, 1),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_task_post_recv_set_conf(C.cons, recv_ok, NULL, 1),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_task_post_recv_set_conf(C.cons, recv_ok, recv_err, 1),
			 DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_consumer_task_post_recv_alloc_init(NULL, C.rmem.bufs[0], &rt),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_task_post_recv_alloc_init(C.cons, NULL, &rt), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_task_post_recv_alloc_init(C.cons, C.rmem.bufs[0], NULL),
			 DOCA_ERROR_INVALID_VALUE);
	/* all NRBUF tasks are posted: the pool is empty */
	assert_int_equal(doca_comch_consumer_task_post_recv_alloc_init(C.cons, C.rmem.bufs[0], &rt),
			 DOCA_ERROR_NO_MEMORY);
	assert_null(doca_comch_consumer_task_post_recv_get_buf(NULL));
	assert_null(doca_comch_consumer_task_post_recv_get_imm_data(NULL));
	assert_int_equal(doca_comch_consumer_task_post_recv_get_imm_data_len(NULL), 0);
	assert_int_equal(doca_comch_consumer_task_post_recv_get_producer_id(NULL), 0);
	assert_null(doca_comch_consumer_task_post_recv_as_task(NULL));
	doca_comch_consumer_task_post_recv_set_buf(NULL, NULL);
}

/* A send the fault rules keep from arriving: it completes with status and
 * no echo comes back (the next echo_one checks the seed of what arrives). */
static void send_faulted(uint32_t len, uint32_t seed, doca_error_t status)
{
	uint64_t ok = C.nsend_ok, err = C.nsend_err, recv = C.nrecv;
	doca_error_t e;

	for (uint32_t i = 0; i < len; i++)
		C.smem.addr[i] = pat(seed, i);
	while ((e = send_msg(len, seed, C.peer_cons)) == DOCA_ERROR_AGAIN)
		progress();
	assert_int_equal(e, DOCA_SUCCESS);
	assert_true(WAIT_FOR(C.nsend_ok + C.nsend_err == ok + err + 1, 5));
	if (status == DOCA_SUCCESS) {
		assert_int_equal(C.nsend_ok, ok + 1);
	} else {
		assert_int_equal(C.nsend_err, err + 1);
		assert_int_equal(C.last_send_err, status);
	}
	assert_int_equal(C.nrecv, recv);
}

/* Run with SOFTDOCA_FAULTS=FP_FAULT_RULES in this process only (main, mode
 * "faults"; fp_spawn keeps it from the peer). */
#define FP_FAULT_RULES "producer:nth=3:drop;producer:nth=5:error=IO_FAILED;producer:after=8:cut"

static void test_producer_faults(void **state)
{
	struct doca_comch_producer_task_send *t;

	echo_one(100, 1);
	echo_one(200, 2);
	send_faulted(300, 3, DOCA_SUCCESS); /* dropped: completes, never arrives */
	echo_one(400, 4);
	send_faulted(500, 5, DOCA_ERROR_IO_FAILED);
	echo_one(600, 6);
	echo_one(700, 7);
	echo_one(800, 8);
	send_faulted(900, 9, DOCA_ERROR_CONNECTION_RESET); /* cut */
	/* The producer fails and stops as on a lost connection; nothing more
	 * is sent; the rest of the connection (our consumer) is unaffected. */
	assert_true(WAIT_FOR(state_of(doca_comch_producer_as_ctx(C.prod)) == DOCA_CTX_STATE_IDLE, 5));
	assert_int_not_equal(doca_comch_producer_task_send_alloc_init(C.prod, C.smem.bufs[0], NULL, 0, C.peer_cons, &t),
			     DOCA_SUCCESS);
	assert_int_equal(C.nrecv, 6);
	assert_int_equal(C.nrecv_err, 0);
	assert_int_equal(state_of(doca_comch_consumer_as_ctx(C.cons)), DOCA_CTX_STATE_RUNNING);
}

/* usage: test_fp_two_proc [all|ring|faults [ucx]]
 * "ucx" after the mode: both processes over the UCX link on 127.0.0.1
 * (SOFTDOCA_LINK, inherited by the peer) instead of the fabric directory. */
int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bad_args, setup_echo, teardown),
		cmocka_unit_test_setup_teardown(test_echo_integrity, setup_echo, teardown),
		cmocka_unit_test_setup_teardown(test_append_behind_data, setup_echo, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_consumer, setup_echo, teardown),
		cmocka_unit_test_setup_teardown(test_size_over_cap, setup_echo, teardown),
		cmocka_unit_test_setup_teardown(test_again_without_posted, setup_nopost, teardown),
		cmocka_unit_test_setup_teardown(test_consumer_expiry, setup_echo, teardown),
		cmocka_unit_test_setup_teardown(test_stop_flushes_and_restart, setup_echo, teardown),
		cmocka_unit_test_setup_teardown(test_threads, setup_client_only, teardown),
		cmocka_unit_test_setup_teardown(test_event_driven_wakeup, setup_echo, teardown),
		cmocka_unit_test_setup_teardown(test_owner_in_use, setup_echo, teardown),
		cmocka_unit_test_setup_teardown(test_peer_kill, setup_echo, teardown),
	};
	const struct CMUnitTest fault_tests[] = {
		cmocka_unit_test_setup_teardown(test_producer_faults, setup_echo, teardown),
	};
	char path[512];

	if (!fp_peer_path("tests/comch_fp/fp_peer", path, sizeof(path))) {
		fprintf(stderr, "no dpu peer build (SOFTDOCA_PEER_BUILD_DIR): skipped\n");
		return 77;
	}
	signal(SIGPIPE, SIG_IGN);
	if (argc > 2 && strcmp(argv[2], "ucx") == 0 && !ucx_loop_env("fast path test secret")) {
		fprintf(stderr, "cannot set up the UCX link (secret file, port)\n");
		return 1;
	}
	/* SOFTDOCA_FAULTS is read once per process, at the first create. */
	if (argc > 1 && strcmp(argv[1], "faults") == 0) {
		setenv("SOFTDOCA_FAULTS", FP_FAULT_RULES, 1);
		return cmocka_run_group_tests(fault_tests, NULL, NULL);
	}
	/* Receive memory left private on both sides (the peer inherits it):
	 * every message through the ring, none placed directly. */
	if (argc > 1 && strcmp(argv[1], "ring") == 0)
		setenv("SOFTDOCA_REMOTE_NO_MOVE", "1", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
