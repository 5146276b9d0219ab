/*
 * hostile_victim - the Arm-side (dpu flavor) Comch server that test_hostile
 * attacks. It serves any number of clients on one PE:
 *   - echoes every message (server max message size 1024), printing
 *     "MSG <len>" for each;
 *   - "fp" from a client: creates a producer and a consumer (4 receive
 *     buffers of 256 bytes, posted) on that connection ("FP_UP");
 *   - a consumer the client announces ("NEWCONS <id>"): sends it one
 *     64-byte message through the producer, retrying while there is no
 *     credit ("FPSENT <id>" or "FPERR <id> <error>");
 *   - its own consumer getting a message ("FPRECV <len>") or failing
 *     ("CONS_FAILED");
 *   - "quit": stops everything cleanly and exits 0 ("DONE").
 * Connection events print "CONNECT" / "DISCONNECT". Exits after 60 s
 * whatever happens, so a broken test never leaves it behind.
 *
 * usage: hostile_victim <server-name>
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fp_util.h"

#define MAX_SLOTS 64
#define NBUFS 4
#define BUF_SIZE 256
#define VICTIM_MAX_MSG 1024

struct slot {
	struct doca_comch_connection *conn;
	bool used, want_fp, fp_up, down, cons_failed;
	struct doca_comch_producer *prod;
	struct doca_comch_consumer *cons;
	struct fp_mem mem;     /* receive buffers of our consumer */
	struct fp_mem src;     /* what our producer sends */
	uint32_t peer_cons;    /* consumer announced by the client, to feed */
	bool peer_fed;
};

static struct slot slots[MAX_SLOTS];
static struct doca_comch_server *srv;
static struct doca_pe *pe;
static struct doca_dev *dev;
static volatile int quit_flag;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static struct slot *slot_of(struct doca_comch_connection *c, bool create)
{
	for (int i = 0; i < MAX_SLOTS; i++)
		if (slots[i].used && slots[i].conn == c)
			return &slots[i];
	if (!create)
		return NULL;
	for (int i = 0; i < MAX_SLOTS; i++)
		if (!slots[i].used) {
			memset(&slots[i], 0, sizeof(slots[i]));
			slots[i].used = true;
			slots[i].conn = c;
			return &slots[i];
		}
	return NULL;
}

static void ctrl_done(struct doca_comch_task_send *task, union doca_data tu, union doca_data cu)
{
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void on_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
	struct doca_comch_task_send *t;
	struct slot *s;

	say("MSG %u", len);
	if (len == 4 && memcmp(buf, "quit", 4) == 0) {
		quit_flag = 1;
		return;
	}
	if (len == 2 && memcmp(buf, "fp", 2) == 0) {
		s = slot_of(c, false);
		if (s != NULL)
			s->want_fp = true;
		return;
	}
	if (doca_comch_server_task_send_alloc_init(srv, c, buf, len, &t) != DOCA_SUCCESS) {
		say("ECHO_ALLOC_FAILED");
		return;
	}
	if (doca_task_submit(doca_comch_task_send_as_task(t)) != DOCA_SUCCESS) {
		say("ECHO_SUBMIT_FAILED");
		doca_task_free(doca_comch_task_send_as_task(t));
	}
}

static void on_connect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
		       uint8_t ok)
{
	if (slot_of(c, true) == NULL)
		say("NO_SLOT");
	say("CONNECT");
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
			  uint8_t ok)
{
	struct slot *s = slot_of(c, false);

	if (s != NULL)
		s->down = true;
	say("DISCONNECT");
}

static void on_new_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c, uint32_t id)
{
	struct slot *s = slot_of(c, false);

	say("NEWCONS %u", id);
	if (s != NULL && s->peer_cons == 0) {
		s->peer_cons = id;
		s->peer_fed = false;
	}
}

static void on_expired_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c, uint32_t id)
{
	struct slot *s = slot_of(c, false);

	say("EXPIRED %u", id);
	if (s != NULL && s->peer_cons == id)
		s->peer_cons = 0;
}

static void recv_ok(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	struct doca_buf *b = doca_comch_consumer_task_post_recv_get_buf(t);
	size_t len = 0;

	doca_buf_get_data_len(b, &len);
	say("FPRECV %zu", len);
	doca_buf_reset_data_len(b);
	if (doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)) != DOCA_SUCCESS)
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void send_ok(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static enum doca_ctx_states state_of(struct doca_ctx *ctx)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	doca_ctx_get_state(ctx, &st);
	return st;
}

static void stop_ctx(struct doca_ctx *ctx)
{
	double end = fp_now() + 5;

	if (state_of(ctx) == DOCA_CTX_STATE_IDLE)
		return;
	doca_ctx_stop(ctx);
	while (state_of(ctx) != DOCA_CTX_STATE_IDLE && fp_now() < end)
		doca_pe_progress(pe);
}

static void fp_teardown(struct slot *s)
{
	if (s->cons != NULL) {
		stop_ctx(doca_comch_consumer_as_ctx(s->cons));
		if (doca_comch_consumer_destroy(s->cons) != DOCA_SUCCESS)
			say("CONS_DESTROY_FAILED");
		s->cons = NULL;
	}
	if (s->prod != NULL) {
		stop_ctx(doca_comch_producer_as_ctx(s->prod));
		if (doca_comch_producer_destroy(s->prod) != DOCA_SUCCESS)
			say("PROD_DESTROY_FAILED");
		s->prod = NULL;
	}
	fp_mem_fini(&s->mem);
	fp_mem_fini(&s->src);
	s->fp_up = false;
}

static int fp_setup(struct slot *s)
{
	if (fp_mem_init(&s->mem, dev, BUF_SIZE, NBUFS, DOCA_ACCESS_FLAG_PCI_READ_WRITE) != DOCA_SUCCESS ||
	    fp_mem_init(&s->src, dev, 64, 1, DOCA_ACCESS_FLAG_PCI_READ_WRITE) != DOCA_SUCCESS)
		return -1;
	memset(s->src.addr, 'v', 64);
	doca_buf_set_data(s->src.bufs[0], s->src.addr, 64);
	if (doca_comch_consumer_create(s->conn, s->mem.mmap, &s->cons) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(pe, doca_comch_consumer_as_ctx(s->cons)) != DOCA_SUCCESS ||
	    doca_comch_consumer_task_post_recv_set_conf(s->cons, recv_ok, recv_err, NBUFS) != DOCA_SUCCESS ||
	    fp_consumer_start(s->cons, pe, NULL, 10) != DOCA_SUCCESS)
		return -1;
	if (doca_comch_producer_create(s->conn, &s->prod) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(pe, doca_comch_producer_as_ctx(s->prod)) != DOCA_SUCCESS ||
	    doca_comch_producer_task_send_set_conf(s->prod, send_ok, send_ok, 16) != DOCA_SUCCESS ||
	    doca_ctx_start(doca_comch_producer_as_ctx(s->prod)) != DOCA_SUCCESS)
		return -1;
	for (int i = 0; i < NBUFS; i++) {
		struct doca_comch_consumer_task_post_recv *t;

		if (doca_comch_consumer_task_post_recv_alloc_init(s->cons, s->mem.bufs[i], &t) != DOCA_SUCCESS)
			return -1;
		if (doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)) != DOCA_SUCCESS) {
			doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
			return -1;
		}
	}
	s->fp_up = true;
	return 0;
}

/* Feed the consumer the client announced: one message, once. */
static void feed(struct slot *s)
{
	struct doca_comch_producer_task_send *t;
	doca_error_t e;

	if (!s->fp_up || s->down || s->peer_cons == 0 || s->peer_fed)
		return;
	if (doca_comch_producer_task_send_alloc_init(s->prod, s->src.bufs[0], NULL, 0, s->peer_cons, &t) !=
	    DOCA_SUCCESS)
		return;
	e = doca_task_submit(doca_comch_producer_task_send_as_task(t));
	if (e == DOCA_SUCCESS) {
		s->peer_fed = true;
		say("FPSENT %u", s->peer_cons);
		return;
	}
	doca_task_free(doca_comch_producer_task_send_as_task(t));
	if (e != DOCA_ERROR_AGAIN) {
		s->peer_fed = true;
		say("FPERR %u %s", s->peer_cons, doca_error_get_name(e));
	}
}

int main(int argc, char **argv)
{
	struct doca_dev_rep *rep;
	struct doca_ctx *ctx;
	double end = fp_now() + 60;

	if (argc < 2)
		return 2;
	dev = fp_open_dev(FP_DPU_PCI);
	rep = dev ? fp_open_rep(dev, FP_HOST_PCI) : NULL;
	if (rep == NULL)
		return 3;
	if (doca_pe_create(&pe) != DOCA_SUCCESS || doca_comch_server_create(dev, rep, argv[1], &srv) != DOCA_SUCCESS)
		return 4;
	ctx = doca_comch_server_as_ctx(srv);
	if (doca_comch_server_set_max_msg_size(srv, VICTIM_MAX_MSG) != DOCA_SUCCESS ||
	    doca_comch_server_task_send_set_conf(srv, ctrl_done, ctrl_done, 256) != DOCA_SUCCESS ||
	    doca_comch_server_event_msg_recv_register(srv, on_msg) != DOCA_SUCCESS ||
	    doca_comch_server_event_connection_status_changed_register(srv, on_connect, on_disconnect) !=
		    DOCA_SUCCESS ||
	    doca_comch_server_event_consumer_register(srv, on_new_consumer, on_expired_consumer) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(pe, ctx) != DOCA_SUCCESS || doca_ctx_start(ctx) != DOCA_SUCCESS)
		return 5;
	say("READY");
	while (!quit_flag && fp_now() < end) {
		int busy = doca_pe_progress(pe);

		for (int i = 0; i < MAX_SLOTS; i++) {
			struct slot *s = &slots[i];

			if (!s->used)
				continue;
			if (s->want_fp && !s->fp_up && !s->down) {
				s->want_fp = false;
				if (fp_setup(s) != 0) {
					say("FP_SETUP_FAILED");
					fp_teardown(s);
				} else {
					say("FP_UP");
				}
			}
			if (s->fp_up && !s->cons_failed &&
			    state_of(doca_comch_consumer_as_ctx(s->cons)) != DOCA_CTX_STATE_RUNNING) {
				s->cons_failed = true;
				say("CONS_FAILED");
			}
			feed(s);
			if (s->down) {
				fp_teardown(s);
				s->used = false;
			}
		}
		if (!busy)
			usleep(200);
	}
	for (int i = 0; i < MAX_SLOTS; i++)
		if (slots[i].used)
			fp_teardown(&slots[i]);
	stop_ctx(ctx);
	if (doca_comch_server_destroy(srv) != DOCA_SUCCESS)
		say("SERVER_DESTROY_FAILED");
	doca_pe_destroy(pe);
	doca_dev_rep_close(rep);
	doca_dev_close(dev);
	say("DONE");
	return quit_flag ? 0 : 1;
}
