/*
 * The order rules of the Comch fast path, two processes: this host-flavor
 * client against fp_order_peer (dpu flavor, from the peer build), which
 * creates its producers and consumers when told to. Skipped without a peer
 * build.
 *
 * - A consumer starts asynchronously: doca_ctx_start answers IN_PROGRESS,
 *   the context is STARTING, and RUNNING comes through the state-changed
 *   callback from a later doca_pe_progress (never inside doca_ctx_start);
 *   receive buffers posted from that callback are accepted. A PE sleeping on
 *   its notification handle is woken for it. Producers start synchronously.
 * - No announcement is lost: a consumer announced before the other process
 *   has any producer or consumer on the connection raises the new-consumer
 *   event there anyway (and the expired one when it goes), whichever side
 *   creates first, whatever the order, several per connection, even when
 *   created inside the server's connection callback.
 * - Nothing stays behind in the fabric directory.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <dirent.h>
#include <poll.h>

#include <doca_log.h>

#include "fp_util.h"

#define MAXC 8
#define NB 4
#define BS 256

struct lcons {
	struct doca_comch_consumer *c;
	struct fp_mem mem;
	uint32_t id;
	int running_cbs;     /* RUNNING callbacks seen */
	bool running_in_pe;  /* ... each from inside doca_pe_progress */
	bool posted_ok;
	struct doca_comch_consumer_task_post_recv *tasks[NB]; /* as posted from RUNNING */
	int nerr;            /* error completions */
	int resubmit_in_err; /* ... whose resubmission was refused (BAD_STATE) */
	enum doca_ctx_states seen[8];
	int nseen;
	char got[MAXC][BS + 1];
	int ngot;
};

static struct {
	char *fabric;
	pid_t peer;
	char name[64];
	struct doca_dev *dev;
	struct doca_pe *pe_cli, *pe_fp;
	struct doca_comch_client *cli;
	struct doca_comch_connection *conn;
	struct lcons cons[MAXC];
	uint32_t ncons;
	struct doca_comch_producer *prod;
	struct fp_mem src;
	uint32_t new_ids[32], exp_ids[32];
	int n_new, n_exp;
	int n_new_at_running; /* new-consumer events already seen when the client became RUNNING */
	char rep[64][160];
	int nrep;
	bool in_pe;
	uint64_t sent_ok, sent_err;
} T;

/* ---- the client and the peer's reports ---------------------------------- */

static void ctrl_done(struct doca_comch_task_send *task, union doca_data tu, union doca_data cu)
{
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void on_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
	if (T.nrep == 64 || len >= sizeof(T.rep[0]))
		return;
	memcpy(T.rep[T.nrep], buf, len);
	T.rep[T.nrep++][len] = '\0';
	if (len >= 4 && memcmp(buf, "bad ", 4) == 0)
		fprintf(stderr, "fp_order_peer: %s\n", T.rep[T.nrep - 1]);
}

static void on_new(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c, uint32_t id)
{
	assert_non_null(ev);
	assert_ptr_equal(c, T.conn);
	if (T.n_new < 32)
		T.new_ids[T.n_new++] = id;
}

static void on_exp(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c, uint32_t id)
{
	if (T.n_exp < 32)
		T.exp_ids[T.n_exp++] = id;
}

static void cli_state(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
		      enum doca_ctx_states next)
{
	if (next == DOCA_CTX_STATE_RUNNING)
		T.n_new_at_running = T.n_new;
}

static void progress(void)
{
	T.in_pe = true;
	doca_pe_progress(T.pe_fp);
	doca_pe_progress(T.pe_cli);
	T.in_pe = false;
}

#define WAIT_FOR(cond, secs)                                                                                          \
	({                                                                                                            \
		double end_ = fp_now() + (secs);                                                                      \
		while (!(cond) && fp_now() < end_)                                                                    \
			progress();                                                                                   \
		(cond);                                                                                               \
	})

static enum doca_ctx_states state_of(struct doca_ctx *ctx)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	doca_ctx_get_state(ctx, &st);
	return st;
}

static void peer_cmd(const char *fmt, ...)
{
	struct doca_comch_task_send *t;
	char m[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	assert_int_equal(doca_comch_client_task_send_alloc_init(T.cli, T.conn, m, (uint32_t)n, &t), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_comch_task_send_as_task(t)), DOCA_SUCCESS);
}

/* Take the first report starting with prefix (its rest into rest, may be
 * NULL); fail the test after secs. */
static void peer_said(const char *prefix, char *rest, double secs)
{
	double end = fp_now() + secs;
	size_t pl = strlen(prefix);

	for (;;) {
		for (int i = 0; i < T.nrep; i++) {
			if (strncmp(T.rep[i], prefix, pl) != 0)
				continue;
			if (rest != NULL)
				strcpy(rest, T.rep[i] + pl);
			memmove(T.rep[i], T.rep[i + 1], (size_t)(T.nrep - i - 1) * sizeof(T.rep[0]));
			T.nrep--;
			return;
		}
		for (int i = 0; i < T.nrep; i++)
			if (strncmp(T.rep[i], "bad ", 4) == 0)
				fail_msg("peer: %s", T.rep[i]);
		if (fp_now() > end)
			fail_msg("the peer never said \"%s...\"", prefix);
		progress();
	}
}

static uint32_t peer_said_id(const char *prefix)
{
	char rest[160];

	peer_said(prefix, rest, 10);
	return (uint32_t)strtoul(rest, NULL, 10);
}

static bool has_id(const uint32_t *ids, int n, uint32_t id)
{
	for (int i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/* The SDK log of this process, to look for errors a flow must not log. */
static FILE *sdk_log;

static void log_capture(void)
{
	struct doca_log_backend *be;

	if (sdk_log != NULL)
		return;
	sdk_log = tmpfile();
	assert_non_null(sdk_log);
	assert_int_equal(doca_log_backend_create_with_file_sdk(sdk_log, &be), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
}

static bool log_has(const char *what)
{
	static char text[1 << 16];
	size_t n;

	fflush(sdk_log);
	rewind(sdk_log);
	n = fread(text, 1, sizeof(text) - 1, sdk_log);
	text[n] = '\0';
	fseek(sdk_log, 0, SEEK_END);
	return strstr(text, what) != NULL;
}

/* ---- local consumers and producer --------------------------------------- */

static void recv_ok(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	struct lcons *k = cu.ptr;
	struct doca_buf *b = doca_comch_consumer_task_post_recv_get_buf(t);
	void *data;
	size_t len;

	doca_buf_get_data(b, &data);
	doca_buf_get_data_len(b, &len);
	if (k->ngot < MAXC && len <= BS) {
		memcpy(k->got[k->ngot], data, len);
		k->got[k->ngot++][len] = '\0';
	}
	doca_buf_reset_data_len(b);
	if (doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)) != DOCA_SUCCESS)
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

/* Flushed by a stop: try to post it again (refused: the context is
 * STOPPING), then free it, as secure_channel-like programs do. */
static void recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	struct lcons *k = cu.ptr;
	struct doca_task *task = doca_comch_consumer_task_post_recv_as_task(t);

	k->nerr++;
	if (doca_task_submit(task) == DOCA_ERROR_BAD_STATE)
		k->resubmit_in_err++;
	doca_task_free(task);
}

static void cons_state(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
		       enum doca_ctx_states next)
{
	struct lcons *k = ud.ptr;

	if (k->nseen < 8)
		k->seen[k->nseen++] = next;
	if (next != DOCA_CTX_STATE_RUNNING)
		return;
	k->running_cbs++;
	k->running_in_pe = T.in_pe && prev == DOCA_CTX_STATE_STARTING;
	k->posted_ok = true;
	for (uint32_t i = 0; i < NB; i++) {
		struct doca_comch_consumer_task_post_recv *t;

		if (doca_comch_consumer_task_post_recv_alloc_init(k->c, k->mem.bufs[i], &t) != DOCA_SUCCESS ||
		    doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)) != DOCA_SUCCESS)
			k->posted_ok = false;
		k->tasks[i] = t;
	}
}

/* Create and start a consumer: IN_PROGRESS, STARTING; not waited for. */
static struct lcons *cons_begin(void)
{
	struct lcons *k = &T.cons[T.ncons];
	struct doca_ctx *ctx;

	assert_true(T.ncons < MAXC);
	memset(k, 0, sizeof(*k));
	assert_int_equal(fp_mem_init(&k->mem, T.dev, BS, NB, DOCA_ACCESS_FLAG_PCI_READ_WRITE), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_create(T.conn, k->mem.mmap, &k->c), DOCA_SUCCESS);
	T.ncons++;
	ctx = doca_comch_consumer_as_ctx(k->c);
	assert_int_equal(doca_comch_consumer_get_id(k->c, &k->id), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_set_user_data(ctx, (union doca_data){.ptr = k}), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_set_state_changed_cb(ctx, cons_state), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(T.pe_fp, ctx), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_task_post_recv_set_conf(k->c, recv_ok, recv_err, NB), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(state_of(ctx), DOCA_CTX_STATE_STARTING);
	assert_int_equal(k->running_cbs, 0); /* never inside doca_ctx_start */
	return k;
}

static struct lcons *cons_add(void)
{
	struct lcons *k = cons_begin();

	assert_true(WAIT_FOR(k->running_cbs == 1, 10));
	assert_true(k->running_in_pe);
	assert_true(k->posted_ok);
	assert_int_equal(state_of(doca_comch_consumer_as_ctx(k->c)), DOCA_CTX_STATE_RUNNING);
	return k;
}

static void stop_ctx(struct doca_ctx *ctx)
{
	if (state_of(ctx) == DOCA_CTX_STATE_IDLE)
		return;
	doca_ctx_stop(ctx);
	assert_true(WAIT_FOR(state_of(ctx) == DOCA_CTX_STATE_IDLE, 5));
}

static void cons_drop(struct lcons *k)
{
	stop_ctx(doca_comch_consumer_as_ctx(k->c));
	assert_int_equal(doca_comch_consumer_destroy(k->c), DOCA_SUCCESS);
	k->c = NULL;
	fp_mem_fini(&k->mem);
}

static void send_ok(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	T.sent_ok++;
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static void send_err(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	T.sent_err++;
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static void prod_add(void)
{
	struct doca_ctx *ctx;

	assert_int_equal(doca_comch_producer_create(T.conn, &T.prod), DOCA_SUCCESS);
	ctx = doca_comch_producer_as_ctx(T.prod);
	assert_int_equal(doca_pe_connect_ctx(T.pe_fp, ctx), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_task_send_set_conf(T.prod, send_ok, send_err, 16), DOCA_SUCCESS);
	/* synchronous */
	assert_int_equal(doca_ctx_start(ctx), DOCA_SUCCESS);
	assert_int_equal(state_of(ctx), DOCA_CTX_STATE_RUNNING);
}

static void prod_send(uint32_t id, const char *text)
{
	struct doca_comch_producer_task_send *t;
	uint64_t before = T.sent_ok;
	size_t n = strlen(text);
	double end = fp_now() + 5;
	doca_error_t e;

	memcpy(T.src.addr, text, n);
	assert_int_equal(doca_buf_set_data(T.src.bufs[0], T.src.addr, n), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_task_send_alloc_init(T.prod, T.src.bufs[0], NULL, 0, id, &t),
			 DOCA_SUCCESS);
	while ((e = doca_task_submit(doca_comch_producer_task_send_as_task(t))) == DOCA_ERROR_AGAIN &&
	       fp_now() < end)
		progress();
	assert_int_equal(e, DOCA_SUCCESS);
	assert_true(WAIT_FOR(T.sent_ok == before + 1, 5));
}

static void expect_got(struct lcons *k, const char *text)
{
	assert_true(WAIT_FOR(k->ngot > 0, 10));
	assert_string_equal(k->got[0], text);
	memmove(k->got[0], k->got[1], sizeof(k->got[0]) * (MAXC - 1));
	k->ngot--;
}

/* ---- fixture ------------------------------------------------------------- */

static int fabric_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static int start_peer(const char *extra)
{
	static int seq;
	char path[512];

	memset(&T, 0, sizeof(T));
	T.n_new_at_running = -1;
	if (!fp_peer_path("tests/comch_fp/fp_order_peer", path, sizeof(path)))
		return -1;
	T.fabric = fp_fabric_make();
	snprintf(T.name, sizeof(T.name), "fp_order_%d_%d", getpid(), seq++);
	T.dev = fp_open_dev(FP_HOST_PCI);
	if (T.dev == NULL || T.fabric == NULL)
		return -1;
	{
		char *argv[] = {path, T.name, (char *)extra, NULL};

		T.peer = fp_spawn(argv);
	}
	if (T.peer <= 0 || fp_mem_init(&T.src, T.dev, BS, 1, DOCA_ACCESS_FLAG_PCI_READ_WRITE) != DOCA_SUCCESS)
		return -1;
	if (doca_pe_create(&T.pe_cli) != DOCA_SUCCESS || doca_pe_create(&T.pe_fp) != DOCA_SUCCESS ||
	    doca_comch_client_create(T.dev, T.name, &T.cli) != DOCA_SUCCESS ||
	    doca_comch_client_task_send_set_conf(T.cli, ctrl_done, ctrl_done, 32) != DOCA_SUCCESS ||
	    doca_comch_client_event_msg_recv_register(T.cli, on_msg) != DOCA_SUCCESS ||
	    doca_comch_client_event_consumer_register(T.cli, on_new, on_exp) != DOCA_SUCCESS ||
	    doca_ctx_set_state_changed_cb(doca_comch_client_as_ctx(T.cli), cli_state) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(T.pe_cli, doca_comch_client_as_ctx(T.cli)) != DOCA_SUCCESS)
		return -1;
	if (doca_ctx_start(doca_comch_client_as_ctx(T.cli)) != DOCA_ERROR_IN_PROGRESS)
		return -1;
	/* one call at a time, so that "RUNNING" and "the next call" are apart */
	{
		double end = fp_now() + 15;

		while (state_of(doca_comch_client_as_ctx(T.cli)) != DOCA_CTX_STATE_RUNNING && fp_now() < end) {
			doca_pe_progress(T.pe_cli);
			usleep(1000);
		}
	}
	if (doca_comch_client_get_connection(T.cli, &T.conn) != DOCA_SUCCESS)
		return -1;
	return 0;
}

static int setup(void **state)
{
	if (start_peer(NULL) == 0)
		return 0;
	if (T.peer > 0)
		kill(T.peer, SIGKILL);
	return -1;
}

static int setup_cons_on_connect(void **state)
{
	if (start_peer("--cons-on-connect") == 0)
		return 0;
	if (T.peer > 0)
		kill(T.peer, SIGKILL);
	return -1;
}

static int teardown(void **state)
{
	int rc = 0, left;

	for (uint32_t i = 0; i < T.ncons; i++)
		if (T.cons[i].c != NULL)
			cons_drop(&T.cons[i]);
	if (T.prod != NULL) {
		stop_ctx(doca_comch_producer_as_ctx(T.prod));
		if (doca_comch_producer_destroy(T.prod) != DOCA_SUCCESS)
			rc = -1;
	}
	if (T.cli != NULL) {
		stop_ctx(doca_comch_client_as_ctx(T.cli));
		if (doca_comch_client_destroy(T.cli) != DOCA_SUCCESS)
			rc = -1;
	}
	doca_pe_destroy(T.pe_fp);
	doca_pe_destroy(T.pe_cli);
	fp_mem_fini(&T.src);
	doca_dev_close(T.dev);
	if (T.peer > 0 && fp_reap(T.peer, 10) != 0) {
		fprintf(stderr, "fp_order_peer did not exit cleanly\n");
		rc = -1;
	}
	left = fabric_entries(T.fabric);
	if (left != 0) {
		fprintf(stderr, "fabric directory has %d entries left\n", left);
		rc = -1;
	}
	fp_fabric_remove(T.fabric);
	return rc;
}

/* ---- the tests ----------------------------------------------------------- */

/* NVIDIA's comch_data_path_high_speed order: the server's consumer comes
 * first; the client, with no producer yet, gets the new-consumer event and
 * only then creates its producer. */
static void test_peer_consumer_before_any_local_fp(void **state)
{
	uint32_t id;

	peer_cmd("C 1");
	id = peer_said_id("crun ");
	assert_true(WAIT_FOR(T.n_new == 1, 10));
	assert_int_equal(T.new_ids[0], id);
	prod_add();
	prod_send(id, "to-the-arm");
	peer_said("got ", NULL, 10);
	assert_int_equal(T.sent_err, 0);
}

/* The mirror: our consumer first, the server has nothing on the connection
 * yet; it creates its producer after the event. */
static void test_local_consumer_before_any_peer_fp(void **state)
{
	struct lcons *k = cons_add();
	char rest[160];

	assert_int_equal(peer_said_id("new "), k->id);
	peer_cmd("P");
	peer_said("prun ", NULL, 10);
	peer_cmd("S %u to-the-host", k->id);
	peer_said("sent ", rest, 10);
	assert_int_equal(strtoul(rest, NULL, 10), k->id);
	expect_got(k, "to-the-host");
}

/* Producers first on both sides, then consumers on both, then traffic
 * both ways. */
static void test_producers_first_both_sides(void **state)
{
	struct lcons *k;
	uint32_t pid;

	prod_add();
	peer_cmd("P");
	peer_said("prun ", NULL, 10);
	k = cons_add();
	assert_int_equal(peer_said_id("new "), k->id);
	peer_cmd("C 1");
	pid = peer_said_id("crun ");
	assert_true(WAIT_FOR(T.n_new == 1, 10));
	assert_int_equal(T.new_ids[0], pid);
	prod_send(pid, "ping");
	peer_said("got ", NULL, 10);
	peer_cmd("S %u pong", k->id);
	expect_got(k, "pong");
}

/* Several per connection, created on both sides at the same time: every
 * announcement arrives, ids are distinct, each message lands in the right
 * consumer. */
static void test_several_per_connection(void **state)
{
	struct lcons *k[3];
	uint32_t pids[3], ours[3];
	char rest[160];

	peer_cmd("C 3");
	for (int i = 0; i < 3; i++)
		k[i] = cons_begin();
	for (int i = 0; i < 3; i++)
		assert_true(WAIT_FOR(k[i]->running_cbs == 1, 10));
	for (int i = 0; i < 3; i++) {
		pids[i] = peer_said_id("crun ");
		ours[i] = peer_said_id("new ");
	}
	for (int i = 0; i < 3; i++) {
		assert_true(has_id(ours, 3, k[i]->id));
		for (int j = 0; j < i; j++) {
			assert_int_not_equal(pids[i], pids[j]);
			assert_int_not_equal(k[i]->id, k[j]->id);
		}
	}
	assert_true(WAIT_FOR(T.n_new == 3, 10));
	for (int i = 0; i < 3; i++)
		assert_true(has_id(T.new_ids, T.n_new, pids[i]));

	prod_add();
	peer_cmd("P");
	peer_said("prun ", NULL, 10);
	for (int i = 0; i < 3; i++) {
		char want[32];

		snprintf(want, sizeof(want), "%u for-arm-%d", pids[i], i);
		prod_send(pids[i], want + strcspn(want, " ") + 1);
		peer_said("got ", rest, 10);
		assert_string_equal(rest, want);
	}
	for (int i = 0; i < 3; i++) {
		char text[32];

		snprintf(text, sizeof(text), "for-host-%d", i);
		peer_cmd("S %u %s", k[i]->id, text);
		expect_got(k[i], text);
	}
	for (int i = 0; i < 3; i++)
		assert_int_equal(k[i]->ngot, 0);
}

/* A consumer created inside the server's connection callback, before the
 * client is even RUNNING: its announcement is queued behind the handshake
 * and reaches us after RUNNING, never lost. */
static void test_consumer_created_at_connect(void **state)
{
	uint32_t id;

	assert_int_equal(T.n_new_at_running, 0);
	id = peer_said_id("crun ");
	assert_true(WAIT_FOR(T.n_new == 1, 10));
	assert_int_equal(T.new_ids[0], id);
	prod_add();
	prod_send(id, "late-producer");
	peer_said("got ", NULL, 10);
}

/* Expiry reaches a process that never had a producer, both ways. */
static void test_expiry_without_producer(void **state)
{
	struct lcons *k;
	uint32_t id;

	peer_cmd("C 1");
	id = peer_said_id("crun ");
	assert_true(WAIT_FOR(T.n_new == 1, 10));
	peer_cmd("X");
	peer_said("cgone", NULL, 10);
	assert_true(WAIT_FOR(T.n_exp == 1, 10));
	assert_int_equal(T.exp_ids[0], id);

	k = cons_add();
	assert_int_equal(peer_said_id("new "), k->id);
	cons_drop(k);
	assert_int_equal(peer_said_id("exp "), k->id);
}

/* The consumer's state machine as DOCA documents it. */
static void test_consumer_start_is_asynchronous(void **state)
{
	struct doca_comch_consumer_task_post_recv *t;
	struct lcons *k = cons_begin(), *k2;
	struct doca_ctx *ctx = doca_comch_consumer_as_ctx(k->c);

	/* STARTING: inside doca_ctx_start only IDLE -> STARTING was reported,
	 * and no task can be allocated yet */
	assert_int_equal(k->nseen, 1);
	assert_int_equal(k->seen[0], DOCA_CTX_STATE_STARTING);
	assert_int_equal(doca_comch_consumer_task_post_recv_alloc_init(k->c, k->mem.bufs[0], &t), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_ctx_start(ctx), DOCA_ERROR_BAD_STATE);
	/* RUNNING from doca_pe_progress of the consumer's own PE */
	T.in_pe = true;
	assert_true(({
		double end = fp_now() + 5;
		while (k->running_cbs == 0 && fp_now() < end)
			doca_pe_progress(T.pe_fp);
		k->running_cbs == 1;
	}));
	T.in_pe = false;
	assert_true(k->running_in_pe);
	assert_true(k->posted_ok);
	assert_int_equal(peer_said_id("new "), k->id);

	/* stopped while still STARTING: back to IDLE, then it starts again */
	k2 = cons_begin();
	doca_ctx_stop(doca_comch_consumer_as_ctx(k2->c));
	assert_true(WAIT_FOR(state_of(doca_comch_consumer_as_ctx(k2->c)) == DOCA_CTX_STATE_IDLE, 5));
	assert_int_equal(k2->running_cbs, 0);
	k2->nseen = 0;
	assert_int_equal(doca_ctx_start(doca_comch_consumer_as_ctx(k2->c)), DOCA_ERROR_IN_PROGRESS);
	assert_true(WAIT_FOR(k2->running_cbs == 1, 5));
	assert_true(k2->running_in_pe);

	/* a running consumer with posted buffers stops asynchronously */
	assert_int_equal(doca_ctx_stop(ctx), DOCA_ERROR_IN_PROGRESS);
	assert_true(WAIT_FOR(state_of(ctx) == DOCA_CTX_STATE_IDLE, 5));
	/* and restarts asynchronously again */
	k->nseen = 0;
	k->running_cbs = 0;
	assert_int_equal(doca_ctx_start(ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(k->running_cbs, 0);
	assert_true(WAIT_FOR(k->running_cbs == 1, 5));
	peer_cmd("P");
	peer_said("prun ", NULL, 10);
	peer_cmd("S %u after-restart", k->id);
	expect_got(k, "after-restart");
}

/* A program that starts a consumer and sleeps on the PE's notification
 * handle is woken for the RUNNING transition. */
static void test_consumer_start_wakes_sleeper(void **state)
{
	doca_notification_handle_t h;
	struct lcons *k = cons_begin();
	struct pollfd pfd;
	int r;

	assert_int_equal(doca_pe_get_notification_handle(T.pe_fp, &h), DOCA_SUCCESS);
	assert_int_equal(doca_pe_request_notification(T.pe_fp), DOCA_SUCCESS);
	pfd.fd = (int)h;
	pfd.events = POLLIN;
	r = poll(&pfd, 1, 3000);
	assert_int_equal(r, 1);
	assert_int_equal(doca_pe_clear_notification(T.pe_fp, h), DOCA_SUCCESS);
	T.in_pe = true;
	doca_pe_progress(T.pe_fp);
	T.in_pe = false;
	assert_int_equal(k->running_cbs, 1);
	assert_true(k->running_in_pe);
}

/* Receive some messages, each buffer re-posted from its completion, then
 * stop with every buffer posted: they come back flushed through the error
 * callback, which may try to post again (refused) and frees them; the
 * consumer reaches IDLE, is destroyed, and nothing claims that a task was
 * owned by the context. */
static void test_stop_with_reposted_buffers(void **state)
{
	struct lcons *k;

	log_capture();
	k = cons_add();
	assert_int_equal(peer_said_id("new "), k->id);
	peer_cmd("P");
	peer_said("prun ", NULL, 10);
	for (int i = 0; i < 3 * NB; i++) {
		char text[16];

		snprintf(text, sizeof(text), "m%d", i);
		peer_cmd("S %u %s", k->id, text);
		expect_got(k, text);
	}
	doca_ctx_stop(doca_comch_consumer_as_ctx(k->c));
	assert_true(WAIT_FOR(state_of(doca_comch_consumer_as_ctx(k->c)) == DOCA_CTX_STATE_IDLE, 5));
	assert_int_equal(k->nerr, NB);
	assert_int_equal(k->resubmit_in_err, NB);
	assert_int_equal(doca_comch_consumer_destroy(k->c), DOCA_SUCCESS);
	k->c = NULL;
	fp_mem_fini(&k->mem);
	assert_false(log_has("owned by the context"));
	assert_false(log_has("not freed"));
}

/* NVIDIA's secure_channel: once the last message is in, the receive tasks
 * (all re-posted by their completions) are freed, and only then is the
 * consumer stopped. DOCA runs it: no error, the consumer reaches IDLE and is
 * destroyed. Needs the core to take a task freed while submitted back when
 * its context finishes it. */
static void test_nvidia_frees_posted_tasks_before_stop(void **state)
{
	struct lcons *k;
	double end;

	log_capture();
	k = cons_add();
	assert_int_equal(peer_said_id("new "), k->id);
	peer_cmd("P");
	peer_said("prun ", NULL, 10);
	for (int i = 0; i < NB; i++) {
		char text[16];

		snprintf(text, sizeof(text), "n%d", i);
		peer_cmd("S %u %s", k->id, text);
		expect_got(k, text);
	}
	for (int i = 0; i < NB; i++)
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(k->tasks[i]));
	doca_ctx_stop(doca_comch_consumer_as_ctx(k->c));
	end = fp_now() + 5;
	while (state_of(doca_comch_consumer_as_ctx(k->c)) != DOCA_CTX_STATE_IDLE && fp_now() < end)
		progress();
	assert_false(log_has("owned by the context"));
	assert_int_equal(state_of(doca_comch_consumer_as_ctx(k->c)), DOCA_CTX_STATE_IDLE);
	assert_int_equal(doca_comch_consumer_destroy(k->c), DOCA_SUCCESS);
	k->c = NULL;
	fp_mem_fini(&k->mem);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_peer_consumer_before_any_local_fp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_local_consumer_before_any_peer_fp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_producers_first_both_sides, setup, teardown),
		cmocka_unit_test_setup_teardown(test_several_per_connection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_consumer_created_at_connect, setup_cons_on_connect, teardown),
		cmocka_unit_test_setup_teardown(test_expiry_without_producer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_consumer_start_is_asynchronous, setup, teardown),
		cmocka_unit_test_setup_teardown(test_consumer_start_wakes_sleeper, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_with_reposted_buffers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nvidia_frees_posted_tasks_before_stop, setup, teardown),
	};
	char path[512];

	if (!fp_peer_path("tests/comch_fp/fp_order_peer", path, sizeof(path))) {
		fprintf(stderr, "no dpu peer build (SOFTDOCA_PEER_BUILD_DIR): skipped\n");
		return 77;
	}
	signal(SIGPIPE, SIG_IGN);
	/* argv[1]: run only the tests matching it; by default all but the one
	 * that waits for the core (see meson.build) */
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	else
		cmocka_set_skip_filter("test_nvidia_*");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
