/*
 * The fast path's waiting, between two processes: this host-flavor client
 * against fp_peer (dpu flavor, from the peer build), both waiting the way a
 * DOCA program does (progress; when it reports nothing, sleep on the PEs'
 * notification handles). Checked: what idling costs (CPU time of both
 * processes from /proc/<pid>/stat), that a producer refused for want of
 * credits sleeps and is woken by the consumer's post, and that messages stay
 * in order and intact across many sleeps and wake-ups - with random pauses
 * on both sides, with busy-loop processes competing, through many ring
 * wrap-arounds - with no lost wake-up (each sleep is bounded by a timeout far
 * longer than any wake-up takes; one that runs out fails the test).
 * Skipped when no peer build is configured. With the argument "ucx" both
 * processes talk over the UCX link on 127.0.0.1 instead (the fast path as
 * network messages, the module's thread in each process): the same rules,
 * its thread included in what idling may cost.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "fp_util.h"
#include "../common/ucx_loop_util.h"

#define NRBUF 16u
#define MAXLEN (64u * 1024u)
/* A sleep that lasts this long was not woken: a lost wake-up. */
#define LOST_MS 4000

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
	struct fp_waiter waiter;
	uint32_t peer_cons;
	uint64_t nrecv, nrecv_err, nsend_err, next_seq;
	bool bad;
	char why[160];
	pid_t load[8];
	int nload;
};

static struct cli C;

static uint8_t pat(uint32_t seq, size_t i)
{
	return (uint8_t)(seq * 167u + i * 13u + (i >> 9));
}

/* Sizes that sweep the rings: mostly small, now and then up to MAXLEN. */
static uint32_t len_of(uint32_t seq)
{
	uint32_t h = seq * 2654435761u;

	return (h >> 28) == 0 ? 1 + (h >> 4) % MAXLEN : 1 + (h >> 8) % 2048;
}

static void on_new_cons(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c, uint32_t id)
{
	C.peer_cons = id;
}

static void on_expired_cons(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c, uint32_t id)
{
}

static void ctrl_done(struct doca_comch_task_send *task, union doca_data tu, union doca_data cu)
{
	doca_task_free(doca_comch_task_send_as_task(task));
}

/* Echoes come back in order: seq in the immediate data, pattern in the payload. */
static void recv_ok(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	struct doca_buf *b = doca_comch_consumer_task_post_recv_get_buf(t);
	const uint8_t *imm = doca_comch_consumer_task_post_recv_get_imm_data(t);
	uint32_t seq = 0;
	uint8_t *data;
	size_t len;

	doca_buf_get_data(b, (void **)&data);
	doca_buf_get_data_len(b, &len);
	if (imm == NULL || doca_comch_consumer_task_post_recv_get_imm_data_len(t) != sizeof(seq)) {
		C.bad = true;
		snprintf(C.why, sizeof(C.why), "message %llu without its immediate data", (unsigned long long)C.nrecv);
	} else {
		memcpy(&seq, imm, sizeof(seq));
		if (seq != C.nrecv) {
			C.bad = true;
			snprintf(C.why, sizeof(C.why), "message %u arrived as number %llu", seq,
				 (unsigned long long)C.nrecv);
		} else if (len != len_of(seq)) {
			C.bad = true;
			snprintf(C.why, sizeof(C.why), "message %u: %zu bytes, sent %u", seq, len, len_of(seq));
		} else {
			for (size_t i = 0; i < len; i++)
				if (data[i] != pat(seq, i)) {
					C.bad = true;
					snprintf(C.why, sizeof(C.why), "message %u: byte %zu differs", seq, i);
					break;
				}
		}
	}
	C.nrecv++;
	doca_buf_reset_data_len(b);
	if (doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)) != DOCA_SUCCESS)
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	C.nrecv_err++;
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void send_ok(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static void send_err(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	C.nsend_err++;
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static int progress(void)
{
	return doca_pe_progress(C.pe_fp) + doca_pe_progress(C.pe_cli);
}

/* Progress; when nothing happens, sleep as a program would. False if a
 * sleep ran out (nobody woke us although, the caller says, someone should). */
static bool step(bool expect_wake)
{
	double t0;

	if (progress() != 0)
		return true;
	t0 = fp_now();
	fp_waiter_sleep(&C.waiter, LOST_MS + 500);
	return !expect_wake || (fp_now() - t0) * 1000 < LOST_MS;
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

static int teardown(void **state);

static int setup_(const char *mode, char *const extra[])
{
	static int seq;
	char path[512], bufs[16], size[32];
	char *argv[16];
	int n = 0;

	memset(&C, 0, sizeof(C));
	C.waiter.ep = -1;
	if (!fp_peer_path("tests/comch_fp/fp_peer", path, sizeof(path)))
		return -1;
	C.fabric = fp_fabric_make();
	snprintf(C.name, sizeof(C.name), "fp_wait_%d_%d", getpid(), seq++);
	C.dev = fp_open_dev(FP_HOST_PCI);
	if (C.dev == NULL)
		return -1;
	snprintf(bufs, sizeof(bufs), "%u", NRBUF);
	snprintf(size, sizeof(size), "%u", MAXLEN);
	argv[n++] = path;
	argv[n++] = C.name;
	argv[n++] = (char *)mode;
	argv[n++] = "--bufs";
	argv[n++] = bufs;
	argv[n++] = "--size";
	argv[n++] = size;
	/* The peer sleeps long too: a lost wake-up there stalls the test. */
	argv[n++] = "--wait-ms";
	argv[n++] = "10000";
	for (int i = 0; extra != NULL && extra[i] != NULL && n < 15; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	C.peer = fp_spawn(argv);
	if (C.peer <= 0)
		return -1;
	if (doca_pe_create(&C.pe_cli) != DOCA_SUCCESS || doca_pe_create(&C.pe_fp) != DOCA_SUCCESS ||
	    doca_comch_client_create(C.dev, C.name, &C.cli) != DOCA_SUCCESS ||
	    doca_comch_client_task_send_set_conf(C.cli, ctrl_done, ctrl_done, 16) != DOCA_SUCCESS ||
	    doca_comch_client_event_consumer_register(C.cli, on_new_cons, on_expired_cons) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(C.pe_cli, doca_comch_client_as_ctx(C.cli)) != DOCA_SUCCESS)
		return -1;
	doca_ctx_start(doca_comch_client_as_ctx(C.cli));
	if (!WAIT_FOR(state_of(doca_comch_client_as_ctx(C.cli)) == DOCA_CTX_STATE_RUNNING, 15))
		return -1;
	if (doca_comch_client_get_connection(C.cli, &C.conn) != DOCA_SUCCESS)
		return -1;
	if (fp_mem_init(&C.smem, C.dev, MAXLEN, 1, DOCA_ACCESS_FLAG_PCI_READ_ONLY) != DOCA_SUCCESS ||
	    fp_mem_init(&C.rmem, C.dev, MAXLEN, NRBUF, DOCA_ACCESS_FLAG_PCI_READ_WRITE) != DOCA_SUCCESS)
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
	for (uint32_t i = 0; i < NRBUF; i++) {
		struct doca_comch_consumer_task_post_recv *t;

		if (doca_comch_consumer_task_post_recv_alloc_init(C.cons, C.rmem.bufs[i], &t) != DOCA_SUCCESS ||
		    doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)) != DOCA_SUCCESS)
			return -1;
	}
	if (!WAIT_FOR(C.peer_cons != 0, 10))
		return -1;
	if (!fp_waiter_init(&C.waiter, C.pe_fp, C.pe_cli))
		return -1;
	return 0;
}

static int setup_mode(void **state, const char *mode, char *const extra[])
{
	if (setup_(mode, extra) == 0)
		return 0;
	fprintf(stderr, "test_fp_wait: setup failed (no peer build, or the peer did not come up)\n");
	if (C.peer > 0)
		kill(C.peer, SIGKILL);
	teardown(state);
	return -1;
}

static int setup_echo(void **state)
{
	return setup_mode(state, "echo", NULL);
}

static int setup_echo_jitter(void **state)
{
	char *extra[] = {"--jitter", NULL};

	return setup_mode(state, "echo", extra);
}

static int setup_nopost(void **state)
{
	char *extra[] = {"--no-post", NULL};

	return setup_mode(state, "sink", extra);
}

static void load_stop(void)
{
	for (int i = 0; i < C.nload; i++) {
		kill(C.load[i], SIGKILL);
		waitpid(C.load[i], NULL, 0);
	}
	C.nload = 0;
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

	load_stop();
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
	fp_waiter_fini(&C.waiter);
	if (C.pe_fp)
		doca_pe_destroy(C.pe_fp);
	if (C.pe_cli)
		doca_pe_destroy(C.pe_cli);
	fp_mem_fini(&C.smem);
	fp_mem_fini(&C.rmem);
	if (C.dev)
		doca_dev_close(C.dev);
	if (C.peer > 0 && fp_reap(C.peer, 10) != 0) {
		fprintf(stderr, "fp_peer did not exit cleanly\n");
		rc = -1;
	}
	fp_fabric_remove(C.fabric);
	return rc;
}

/* utime + stime of a process, all its threads, in seconds. */
static double cpu_of(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (p == NULL || (p = strrchr(buf, ')')) == NULL)
		return -1;
	/* after the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* Keep the processes waiting the DOCA way for secs; the CPU both used. */
static void idle_for(double secs, double *self, double *peer)
{
	double s0 = cpu_of(getpid()), p0 = cpu_of(C.peer), end = fp_now() + secs;

	while (fp_now() < end)
		step(false);
	*self = cpu_of(getpid()) - s0;
	*peer = cpu_of(C.peer) - p0;
}

static doca_error_t send_seq(uint32_t seq)
{
	struct doca_comch_producer_task_send *t;
	struct doca_buf *b = C.smem.bufs[0];
	uint32_t len = len_of(seq);
	doca_error_t e;

	for (uint32_t i = 0; i < len; i++)
		C.smem.addr[i] = pat(seq, i);
	doca_buf_set_data(b, C.smem.addr, len);
	e = doca_comch_producer_task_send_alloc_init(C.prod, b, (uint8_t *)&seq, sizeof(seq), C.peer_cons, &t);
	if (e != DOCA_SUCCESS)
		return e;
	e = doca_task_submit(doca_comch_producer_task_send_as_task(t));
	if (e != DOCA_SUCCESS)
		doca_task_free(doca_comch_producer_task_send_as_task(t));
	return e;
}

/* Both sides idle: a consumer with receives posted and nothing arriving,
 * a producer with nothing to send, on each side. Under 1% of a core each. */
static void test_idle_costs_nothing(void **state)
{
	double self, peer, end = fp_now() + 10;
	doca_error_t e;

	/* One echo first, so that both sides' fast paths have worked. The
	 * peer's consumer may not have posted its receives yet (a slow start,
	 * e.g. under ThreadSanitizer): AGAIN then, as for any producer. */
	while ((e = send_seq(0)) == DOCA_ERROR_AGAIN && fp_now() < end)
		progress();
	assert_int_equal(e, DOCA_SUCCESS);
	assert_true(WAIT_FOR(C.nrecv == 1, 10));
	assert_false(C.bad);
	idle_for(0.5, &self, &peer); /* settle */
	idle_for(3.0, &self, &peer);
	fprintf(stderr, "idle 3 s: this process %.3f s CPU, the peer %.3f s\n", self, peer);
	assert_true(self >= 0 && peer >= 0);
	assert_true(self < 0.03);
	assert_true(peer < 0.03);
}

/* No receive posted on the peer: the send is refused, the producer spins a
 * little and then the program sleeps (costing nothing) until the consumer
 * posts, whose post wakes it. */
static void test_refused_producer_sleeps_and_wakes(void **state)
{
	double s0, used, t0;
	doca_error_t e;

	assert_int_equal(send_seq(0), DOCA_ERROR_AGAIN);
	s0 = cpu_of(getpid());
	t0 = fp_now();
	while (fp_now() - t0 < 2.0) {
		assert_true(step(false));
		e = send_seq(0);
		assert_int_equal(e, DOCA_ERROR_AGAIN);
	}
	used = cpu_of(getpid()) - s0;
	fprintf(stderr, "refused producer, 2 s: %.3f s CPU\n", used);
	assert_true(used < 0.02);
	/* Now the peer posts: its consumer's post must wake us. */
	send_ctrl("post");
	t0 = fp_now();
	do {
		if (!step(true))
			fail_msg("the producer slept %d ms: the consumer's post did not wake it", LOST_MS);
		e = send_seq(0);
	} while (e == DOCA_ERROR_AGAIN && fp_now() - t0 < 10);
	assert_int_equal(e, DOCA_SUCCESS);
	fprintf(stderr, "woken %.1f ms after the post was requested\n", (fp_now() - t0) * 1000);
	assert_true(fp_now() - t0 < 2.0);
}

/* Echo n messages, at most NRBUF in flight, waiting the DOCA way between
 * steps and pausing at random; each step must make progress within LOST_MS. */
static void echo_many(uint32_t n, bool pauses)
{
	uint32_t sent = 0;
	double last = fp_now(), end = fp_now() + 120;
	uint64_t seen = 0;

	srand((unsigned int)getpid());
	while (C.nrecv < n && fp_now() < end && !C.bad) {
		while (sent < n && sent - C.nrecv < NRBUF) {
			doca_error_t e = send_seq(sent);

			if (e == DOCA_ERROR_AGAIN || e == DOCA_ERROR_NO_MEMORY)
				break;
			assert_int_equal(e, DOCA_SUCCESS);
			sent++;
		}
		if (!step(true))
			fail_msg("slept %d ms with %u sent and %llu echoed: a lost wake-up", LOST_MS, sent,
				 (unsigned long long)C.nrecv);
		if (C.nrecv != seen) {
			seen = C.nrecv;
			last = fp_now();
		} else if (fp_now() - last > LOST_MS / 1000.0 + 1) {
			fail_msg("no echo for %d ms with %u sent and %llu echoed: stalled", LOST_MS, sent,
				 (unsigned long long)C.nrecv);
		}
		if (pauses && rand() % 512 == 0)
			usleep((useconds_t)(rand() % 3000));
	}
	if (C.bad)
		fail_msg("%s", C.why);
	assert_int_equal(C.nrecv, n);
	assert_int_equal(C.nrecv_err, 0);
	assert_int_equal(C.nsend_err, 0);
}

/* Random pauses on both sides (the peer runs with --jitter): every message
 * in order and intact, the rings wrapping many times (the sizes add up to
 * tens of times a ring). */
static void test_order_with_pauses(void **state)
{
	echo_many(12000, true);
}

/* The same with two busy-loop processes per core competing: the sleeps and
 * wake-ups happen at every turn. */
static void test_order_under_contention(void **state)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	for (long i = 0; i < 2 * ncpu && C.nload < 8; i++) {
		pid_t p = fork();

		if (p == 0) {
			for (volatile unsigned long x = 0;; x++)
				;
		}
		if (p > 0)
			C.load[C.nload++] = p;
	}
	echo_many(4000, true);
	load_stop();
}

int main(int argc, char **argv)
{
	char path[512];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_idle_costs_nothing, setup_echo, teardown),
		cmocka_unit_test_setup_teardown(test_refused_producer_sleeps_and_wakes, setup_nopost, teardown),
		cmocka_unit_test_setup_teardown(test_order_with_pauses, setup_echo_jitter, teardown),
		cmocka_unit_test_setup_teardown(test_order_under_contention, setup_echo_jitter, teardown),
	};

	if (!fp_peer_path("tests/comch_fp/fp_peer", path, sizeof(path))) {
		fprintf(stderr, "test_fp_wait: no peer build (SOFTDOCA_PEER_BUILD_DIR); skipped\n");
		return 77;
	}
	signal(SIGPIPE, SIG_IGN);
	if (argc > 1 && strcmp(argv[1], "ucx") == 0 && !ucx_loop_env("fast path wait test secret")) {
		fprintf(stderr, "test_fp_wait: cannot set up the UCX link (secret file, port)\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
