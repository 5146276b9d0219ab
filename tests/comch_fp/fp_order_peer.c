/*
 * fp_order_peer - the Arm-side (dpu flavor) half of test_fp_order: a Comch
 * server whose fast path is driven, step by step, by control messages from
 * the test's client, so the test can create producers and consumers on
 * either side in any order. One connection; every consumer and producer on
 * one PE (the server's is another).
 *
 * Commands (client -> us):   Reports (us -> client):
 *   "C <n>"  create and start n consumers; each, once RUNNING, posts its
 *            buffers and reports         "crun <id>"
 *   "P"      create and start a producer "prun <id>"
 *   "S <consumer id> <text>" send text from the first producer to the
 *            client's consumer           "sent <id>" / "serr <id> <error>"
 *   "X"      stop and destroy every consumer        "cgone"
 *   "Q"      stop and destroy everything            "bye"
 * Events, whenever they happen:
 *   "new <id>" / "exp <id>"   the server's new/expired consumer callbacks
 *   "got <our consumer id> <text>"   a consumer received a message
 *   "bad <what>"              something DOCA documents did not happen
 *
 * usage: fp_order_peer <server-name> [--cons-on-connect]
 *   --cons-on-connect: create one consumer inside the connection callback,
 *   before the client has even seen its context RUNNING.
 * Exits when the client goes away (30 s at most).
 */
#define _GNU_SOURCE
#include <stdarg.h>

#include "fp_util.h"

#define OP_MAX_CONS 8
#define OP_BUFS 4
#define OP_BUF_SIZE 256

struct op_cons {
	struct doca_comch_consumer *c;
	struct fp_mem mem;
	uint32_t id;
	bool running_seen;
};

static struct {
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_pe *pe_srv, *pe_fp;
	struct doca_comch_server *srv;
	struct doca_comch_connection *conn;
	bool gone;
	bool cons_on_connect;
	struct op_cons cons[OP_MAX_CONS];
	uint32_t ncons;
	struct doca_comch_producer *prod;
	struct fp_mem src;
	char cmd[16][128];
	uint32_t cmd_head, cmd_tail;
} P;

static void ctrl_done(struct doca_comch_task_send *task, union doca_data tu, union doca_data cu)
{
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void report(const char *fmt, ...)
{
	struct doca_comch_task_send *t;
	char m[160];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	if (P.conn == NULL || n <= 0)
		return;
	for (int i = 0; i < 1000; i++) {
		doca_error_t e = doca_comch_server_task_send_alloc_init(P.srv, P.conn, m, (uint32_t)n, &t);

		if (e == DOCA_ERROR_NO_MEMORY) {
			doca_pe_progress(P.pe_srv);
			continue;
		}
		if (e != DOCA_SUCCESS)
			return;
		if (doca_task_submit(doca_comch_task_send_as_task(t)) != DOCA_SUCCESS)
			doca_task_free(doca_comch_task_send_as_task(t));
		return;
	}
}

static void on_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
	uint32_t slot = P.cmd_tail % 16;

	if (len >= sizeof(P.cmd[0]) || P.cmd_tail - P.cmd_head == 16)
		return;
	memcpy(P.cmd[slot], buf, len);
	P.cmd[slot][len] = '\0';
	P.cmd_tail++;
}

static void on_new(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c, uint32_t id)
{
	report("new %u", id);
}

static void on_expired(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c, uint32_t id)
{
	report("exp %u", id);
}

static void recv_ok(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	struct op_cons *k = cu.ptr;
	struct doca_buf *b = doca_comch_consumer_task_post_recv_get_buf(t);
	void *data;
	size_t len;

	doca_buf_get_data(b, &data);
	doca_buf_get_data_len(b, &len);
	report("got %u %.*s", k->id, (int)len, (char *)data);
	doca_buf_reset_data_len(b);
	if (doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)) != DOCA_SUCCESS)
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

/* RUNNING comes from doca_pe_progress, never from doca_ctx_start: post the
 * buffers right here, as DOCA's own programs do. */
static void cons_state(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
		       enum doca_ctx_states next)
{
	struct op_cons *k = ud.ptr;

	if (next != DOCA_CTX_STATE_RUNNING)
		return;
	if (prev != DOCA_CTX_STATE_STARTING)
		report("bad consumer %u went %d -> RUNNING", k->id, (int)prev);
	for (uint32_t i = 0; i < OP_BUFS; i++) {
		struct doca_comch_consumer_task_post_recv *t;

		if (doca_comch_consumer_task_post_recv_alloc_init(k->c, k->mem.bufs[i], &t) != DOCA_SUCCESS ||
		    doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)) != DOCA_SUCCESS) {
			report("bad consumer %u cannot post from its RUNNING callback", k->id);
			return;
		}
	}
	k->running_seen = true;
	report("crun %u", k->id);
}

static void cons_add(void)
{
	struct op_cons *k;
	struct doca_ctx *ctx;
	doca_error_t e;

	if (P.ncons == OP_MAX_CONS)
		return;
	k = &P.cons[P.ncons];
	memset(k, 0, sizeof(*k));
	if (fp_mem_init(&k->mem, P.dev, OP_BUF_SIZE, OP_BUFS, DOCA_ACCESS_FLAG_PCI_READ_WRITE) != DOCA_SUCCESS ||
	    doca_comch_consumer_create(P.conn, k->mem.mmap, &k->c) != DOCA_SUCCESS) {
		report("bad consumer create");
		return;
	}
	P.ncons++;
	ctx = doca_comch_consumer_as_ctx(k->c);
	doca_comch_consumer_get_id(k->c, &k->id);
	doca_ctx_set_user_data(ctx, (union doca_data){.ptr = k});
	doca_ctx_set_state_changed_cb(ctx, cons_state);
	if (doca_pe_connect_ctx(P.pe_fp, ctx) != DOCA_SUCCESS ||
	    doca_comch_consumer_task_post_recv_set_conf(k->c, recv_ok, recv_err, OP_BUFS) != DOCA_SUCCESS) {
		report("bad consumer configuration");
		return;
	}
	e = doca_ctx_start(ctx);
	if (e != DOCA_ERROR_IN_PROGRESS)
		report("bad consumer %u start answered %s", k->id, doca_error_get_name(e));
	if (k->running_seen)
		report("bad consumer %u RUNNING inside doca_ctx_start", k->id);
}

static void ctx_stop(struct doca_ctx *ctx)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;
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

static void cons_drop_all(void)
{
	for (uint32_t i = 0; i < P.ncons; i++) {
		ctx_stop(doca_comch_consumer_as_ctx(P.cons[i].c));
		if (doca_comch_consumer_destroy(P.cons[i].c) != DOCA_SUCCESS)
			report("bad consumer destroy");
		fp_mem_fini(&P.cons[i].mem);
	}
	P.ncons = 0;
}

static void send_ok(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	report("sent %u", doca_comch_producer_task_send_get_consumer_id(t));
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static void send_err(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	report("serr %u %s", doca_comch_producer_task_send_get_consumer_id(t),
	       doca_error_get_name(doca_task_get_status(doca_comch_producer_task_send_as_task(t))));
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static void prod_add(void)
{
	uint32_t id = 0;

	if (P.prod != NULL)
		return;
	if (doca_comch_producer_create(P.conn, &P.prod) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(P.pe_fp, doca_comch_producer_as_ctx(P.prod)) != DOCA_SUCCESS ||
	    doca_comch_producer_task_send_set_conf(P.prod, send_ok, send_err, 16) != DOCA_SUCCESS ||
	    doca_ctx_start(doca_comch_producer_as_ctx(P.prod)) != DOCA_SUCCESS) {
		report("bad producer");
		return;
	}
	doca_comch_producer_get_id(P.prod, &id);
	report("prun %u", id);
}

static void prod_send(uint32_t id, const char *text)
{
	struct doca_comch_producer_task_send *t;
	size_t n = strlen(text);
	double end = fp_now() + 5;
	doca_error_t e;

	if (P.prod == NULL || n > OP_BUF_SIZE) {
		report("serr %u no-producer", id);
		return;
	}
	memcpy(P.src.addr, text, n);
	doca_buf_set_data(P.src.bufs[0], P.src.addr, n);
	e = doca_comch_producer_task_send_alloc_init(P.prod, P.src.bufs[0], NULL, 0, id, &t);
	if (e != DOCA_SUCCESS) {
		report("serr %u %s", id, doca_error_get_name(e));
		return;
	}
	/* AGAIN: the consumer has not posted a buffer yet */
	while ((e = doca_task_submit(doca_comch_producer_task_send_as_task(t))) == DOCA_ERROR_AGAIN && fp_now() < end)
		doca_pe_progress(P.pe_fp);
	if (e != DOCA_SUCCESS) {
		doca_task_free(doca_comch_producer_task_send_as_task(t));
		report("serr %u %s", id, doca_error_get_name(e));
	}
}

static void on_connect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
		       uint8_t ok)
{
	if (!ok || P.conn != NULL)
		return;
	P.conn = c;
	if (P.cons_on_connect)
		cons_add();
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
			  uint8_t ok)
{
	if (c == P.conn)
		P.gone = true;
}

static void run_cmd(char *m)
{
	if (m[0] == 'C') {
		int n = atoi(m + 1);

		while (n-- > 0)
			cons_add();
	} else if (m[0] == 'P') {
		prod_add();
	} else if (m[0] == 'S') {
		char *end;
		uint32_t id = (uint32_t)strtoul(m + 1, &end, 10);

		prod_send(id, *end == ' ' ? end + 1 : end);
	} else if (m[0] == 'X') {
		cons_drop_all();
		report("cgone");
	} else if (m[0] == 'Q') {
		cons_drop_all();
		if (P.prod != NULL) {
			ctx_stop(doca_comch_producer_as_ctx(P.prod));
			doca_comch_producer_destroy(P.prod);
			P.prod = NULL;
		}
		report("bye");
	}
}

int main(int argc, char **argv)
{
	double end = fp_now() + 30;

	if (argc < 2)
		return 2;
	P.cons_on_connect = argc > 2 && strcmp(argv[2], "--cons-on-connect") == 0;
	P.dev = fp_open_dev(FP_DPU_PCI);
	P.rep = P.dev ? fp_open_rep(P.dev, FP_HOST_PCI) : NULL;
	if (P.rep == NULL || fp_mem_init(&P.src, P.dev, OP_BUF_SIZE, 1, DOCA_ACCESS_FLAG_PCI_READ_WRITE) != DOCA_SUCCESS)
		return 3;
	if (doca_pe_create(&P.pe_srv) != DOCA_SUCCESS || doca_pe_create(&P.pe_fp) != DOCA_SUCCESS ||
	    doca_comch_server_create(P.dev, P.rep, argv[1], &P.srv) != DOCA_SUCCESS ||
	    doca_comch_server_task_send_set_conf(P.srv, ctrl_done, ctrl_done, 64) != DOCA_SUCCESS ||
	    doca_comch_server_event_msg_recv_register(P.srv, on_msg) != DOCA_SUCCESS ||
	    doca_comch_server_event_connection_status_changed_register(P.srv, on_connect, on_disconnect) !=
		    DOCA_SUCCESS ||
	    doca_comch_server_event_consumer_register(P.srv, on_new, on_expired) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(P.pe_srv, doca_comch_server_as_ctx(P.srv)) != DOCA_SUCCESS ||
	    doca_ctx_start(doca_comch_server_as_ctx(P.srv)) != DOCA_SUCCESS)
		return 4;
	while (!P.gone && fp_now() < end) {
		int busy = doca_pe_progress(P.pe_srv) + doca_pe_progress(P.pe_fp);

		while (P.cmd_head != P.cmd_tail)
			run_cmd(P.cmd[P.cmd_head++ % 16]);
		if (!busy)
			usleep(200);
	}
	cons_drop_all();
	if (P.prod != NULL) {
		ctx_stop(doca_comch_producer_as_ctx(P.prod));
		doca_comch_producer_destroy(P.prod);
	}
	ctx_stop(doca_comch_server_as_ctx(P.srv));
	if (doca_comch_server_destroy(P.srv) != DOCA_SUCCESS)
		return 5;
	doca_pe_destroy(P.pe_fp);
	doca_pe_destroy(P.pe_srv);
	fp_mem_fini(&P.src);
	doca_dev_rep_close(P.rep);
	doca_dev_close(P.dev);
	return P.gone ? 0 : 6;
}
