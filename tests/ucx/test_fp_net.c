/*
 * The Comch fast path across a network (src/comch/fastpath.c, "Across a
 * network") driven from both ends of its seam, in one process, with no
 * network: the Comch connection and the UCX module are doubles. The test
 * plays the peer: it feeds the tap what a hostile or broken peer could send
 * and checks that every violation is refused or marks the consumer broken,
 * never more memory or a crash; and that an honest exchange (announce,
 * credits, fragments) lands as the API says: each message in the receive
 * buffer granted for it, and nowhere else.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cmocka.h>

#include "comch_priv.h"
#include "fastpath.h"
#include "sd_comch.h"
#include "sd_ctx.h"
#include "sd_dev.h"
#include "sd_fabric.h"
#include "sd_link_ucx.h"
#include "sd_mem.h"

/* ---- doubles: the connection, the device, the transport, the module ---- */

static struct doca_comch_connection t_conn;
static void *t_slot;
static struct sd_caps t_caps;
static sd_comch_fp_handler_t t_handler;
static void *t_handler_arg;
static int t_events_new, t_events_gone;
static sd_link_fp_tap_fn t_tap;
static void *t_tap_arg;
static int t_syncs;
/* the module's double holds this announcement until a sync finds the tap
 * attached; attach takes t_attach_us (another thread is then inside it) */
static struct sd_fp_net_new_body t_held;
static bool t_holding;
static unsigned int t_attach_us;
static int t_in_attach;

/* what our side sent beside the frames, last one kept (head and body
 * joined); the largest head and body of any */
static uint16_t t_sent_kind;
static uint8_t t_sent[SD_LINK_FP_MAX_BODY];
static uint32_t t_sent_len;
static int t_sent_count;
static uint32_t t_sent_max_body;
static bool t_loopback; /* each message sent goes to our own tap */

void **sd_comch_conn_fp_slot(struct doca_comch_connection *conn)
{
	(void)conn;
	return &t_slot;
}

bool sd_comch_conn_fp_attach(struct doca_comch_connection *conn, sd_comch_fp_handler_t handler, void *arg)
{
	(void)conn;
	t_handler = handler;
	t_handler_arg = arg;
	return true;
}

void sd_comch_conn_fp_set_handler(struct doca_comch_connection *conn, sd_comch_fp_handler_t handler, void *arg)
{
	(void)conn;
	t_handler = handler;
	t_handler_arg = arg;
}

doca_error_t sd_comch_conn_fp_send(struct doca_comch_connection *conn, uint16_t kind, const void *body, uint32_t len,
				   int fd)
{
	(void)conn;
	(void)kind;
	(void)body;
	(void)len;
	return fd >= 0 ? DOCA_ERROR_NOT_SUPPORTED : DOCA_SUCCESS;
}

bool sd_comch_conn_is_alive(const struct doca_comch_connection *conn)
{
	(void)conn;
	return true;
}

struct doca_dev *sd_comch_conn_dev(const struct doca_comch_connection *conn)
{
	(void)conn;
	return (struct doca_dev *)&t_caps; /* only ever handed to sd_dev_caps */
}

const struct sd_caps *sd_dev_caps(const struct doca_dev *dev)
{
	(void)dev;
	return &t_caps;
}

void sd_comch_conn_raise_consumer_event(struct doca_comch_connection *conn, uint32_t consumer_id, bool appeared)
{
	(void)conn;
	(void)consumer_id;
	if (appeared)
		t_events_new++;
	else
		t_events_gone++;
}

void sd_comch_conn_ref(struct doca_comch_connection *conn)
{
	(void)conn;
}

void sd_comch_conn_unref(struct doca_comch_connection *conn)
{
	(void)conn;
}

uint32_t sd_comch_conn_id(const struct doca_comch_connection *conn)
{
	return conn != NULL ? 1 : 0;
}

void sd_ctx_init(struct doca_ctx *ctx, const struct sd_ctx_ops *ops, const char *name)
{
	(void)ctx;
	(void)ops;
	(void)name;
}

doca_error_t sd_ctx_fini(struct doca_ctx *ctx)
{
	(void)ctx;
	return DOCA_SUCCESS;
}

static doca_error_t t_link_send(struct sd_link *link, uint16_t type, const void *body, uint32_t len, int fd)
{
	(void)link;
	(void)type;
	(void)body;
	(void)len;
	(void)fd;
	return DOCA_SUCCESS;
}

static const struct sd_link_ops t_transport = {
	.name = "ucx",
	.send = t_link_send,
};

const struct sd_link_ops *sd_fabric_transport(void)
{
	return &t_transport;
}

static doca_error_t t_fp_attach(struct sd_link *link, sd_link_fp_tap_fn tap, void *arg)
{
	(void)link;
	if (t_attach_us) {
		__atomic_store_n(&t_in_attach, 1, __ATOMIC_RELEASE);
		usleep(t_attach_us);
	}
	t_tap_arg = arg;
	__atomic_store_n(&t_tap, tap, __ATOMIC_RELEASE);
	return DOCA_SUCCESS;
}

static doca_error_t t_fp_send(struct sd_link *link, uint16_t kind, const void *head, uint32_t hlen, const void *body,
			     uint32_t len)
{
	(void)link;
	assert_true(hlen <= sizeof(t_sent) && len <= sizeof(t_sent) - hlen);
	t_sent_kind = kind;
	if (hlen)
		memcpy(t_sent, head, hlen);
	if (len)
		memcpy(t_sent + hlen, body, len);
	t_sent_len = hlen + len;
	t_sent_count++;
	if (len > t_sent_max_body)
		t_sent_max_body = len;
	if (t_loopback)
		t_tap(t_tap_arg, kind, t_sent, t_sent_len);
	return DOCA_SUCCESS;
}

static void t_fp_sync(struct sd_link *link)
{
	sd_link_fp_tap_fn tap = __atomic_load_n(&t_tap, __ATOMIC_ACQUIRE);

	(void)link;
	t_syncs++;
	if (t_holding && tap != NULL) {
		t_holding = false;
		tap(t_tap_arg, SD_FP_NET_NEW, &t_held, sizeof(t_held));
	}
}

static const struct sd_link_fp_ops t_fp_ops = {
	.attach = t_fp_attach,
	.send = t_fp_send,
	.sync = t_fp_sync,
};

const struct sd_link_fp_ops *sd_link_fastpath(void)
{
	return &t_fp_ops;
}

struct sd_link *sd_comch_conn_link(const struct doca_comch_connection *conn)
{
	(void)conn;
	return NULL; /* only ever handed to the module's double */
}

/* ---- helpers ------------------------------------------------------------- */

static struct sd_fp_conn *st;

static int setup(void **state)
{
	memset(&t_conn, 0, sizeof(t_conn));
	t_slot = NULL;
	t_handler = NULL;
	t_tap = NULL;
	t_events_new = t_events_gone = t_syncs = t_sent_count = 0;
	t_sent_max_body = 0;
	t_loopback = false;
	t_holding = false;
	t_attach_us = 0;
	t_in_attach = 0;
	memset(&t_caps, 0, sizeof(t_caps));
	t_caps.producer_max_buf_size = 4u << 20;
	t_caps.consumer_max_buf_size = 4u << 20;
	t_caps.max_consumers_per_connection = 4;
	if (state != NULL && *state != NULL)
		return 0; /* the test attaches */
	assert_int_equal(sd_fp_conn_get(&t_conn, &st), DOCA_SUCCESS);
	assert_true(st->net);
	assert_non_null(st->nops);
	assert_non_null(t_tap);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	/* the connection dies: CLOSED, then our reference */
	t_handler(&t_conn, SD_COMCH_FP_CLOSED, NULL, 0, -1, t_handler_arg);
	sd_fp_conn_put(st);
	return 0;
}

static void tap(uint16_t kind, const void *body, uint32_t len)
{
	t_tap(t_tap_arg, kind, body, len);
}

static void peer_new(uint32_t id, uint32_t max_msg, uint32_t imm_len, uint32_t slots)
{
	struct sd_fp_net_new_body b = {.version = SD_FP_VERSION, .consumer_id = id, .max_msg = max_msg,
				       .imm_len = imm_len, .slots = slots};

	tap(SD_FP_NET_NEW, &b, sizeof(b));
	t_handler(&t_conn, SD_FP_NET_NEW, &b, sizeof(b), -1, t_handler_arg);
}

static void peer_credit(uint32_t id, const uint32_t *caps, uint32_t n)
{
	static uint8_t buf[SD_LINK_FP_MAX_BODY];
	struct sd_fp_net_credit_hdr h = {.consumer_id = id, .count = n};

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), caps, n * sizeof(uint32_t));
	tap(SD_FP_NET_CREDIT, buf, (uint32_t)(sizeof(h) + n * sizeof(uint32_t)));
}

static void peer_data(uint32_t id, uint32_t producer, uint32_t total, uint32_t off, const void *bytes, uint32_t n,
		      uint32_t imm_len)
{
	static uint8_t buf[SD_LINK_FP_MAX_BODY];
	struct sd_fp_net_data_hdr h = {.consumer_id = id, .producer_id = producer, .total = total, .off = off,
				       .imm_len = imm_len};

	memset(h.imm, 0xab, sizeof(h.imm));
	memcpy(buf, &h, sizeof(h));
	if (n)
		memcpy(buf + sizeof(h), bytes, n);
	tap(SD_FP_NET_DATA, buf, (uint32_t)(sizeof(h) + n));
}

/* The receive buffers of the last local_consumer, in granting order: the
 * k-th complete message is written into t_dst[k]. */
#define T_RX_SLOT (SD_FP_NET_CHUNK + 8192)
static uint8_t t_rx[8][T_RX_SLOT];
static struct sd_fp_net_dst t_dst[8];

static struct sd_fp_local *local_consumer(uint32_t id, uint32_t max_msg, uint32_t caps0, uint32_t ncred)
{
	struct sd_fp_local *l;
	int evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); /* withdraw closes it */

	assert_true(evfd >= 0);
	assert_true(caps0 <= T_RX_SLOT && ncred <= 8);
	assert_int_equal(sd_fp_net_announce(st, id, evfd, max_msg, 8, 8, &l), DOCA_SUCCESS);
	assert_int_equal(t_sent_kind, SD_FP_NET_NEW);
	memset(t_rx, 0, sizeof(t_rx));
	for (uint32_t i = 0; i < ncred; i++) {
		t_dst[i].p = t_rx[i];
		t_dst[i].cap = caps0;
	}
	if (ncred)
		assert_int_equal(sd_fp_net_grant(st, l, t_dst, ncred), DOCA_SUCCESS);
	return l;
}

/* ---- the producers' side --------------------------------------------------- */

static void test_credits_and_refusals(void **state)
{
	struct sd_fp_remote *r;
	uint32_t caps[3] = {100, 10, 5000}; /* a credit above the maximum: the maximum holds */

	(void)state;
	peer_new(7, 4096, 8, 4);
	assert_int_equal(t_syncs, 1);
	assert_int_equal(t_events_new, 1);
	r = sd_fp_remote_get(st, 7);
	assert_non_null(r);
	/* no credit: AGAIN, as locally */
	assert_int_equal(sd_fp_net_take_credit(r, 1, 0), DOCA_ERROR_AGAIN);
	peer_credit(7, caps, 3);
	/* beyond the consumer's maximum or immediate data: INVALID_VALUE */
	assert_int_equal(sd_fp_net_take_credit(r, 4097, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_fp_net_take_credit(r, 1, 9), DOCA_ERROR_INVALID_VALUE);
	/* beyond the head credit's capacity: INVALID_VALUE, credit kept */
	assert_int_equal(sd_fp_net_take_credit(r, 101, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_fp_net_take_credit(r, 100, 8), DOCA_SUCCESS);
	assert_int_equal(sd_fp_net_take_credit(r, 11, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_fp_net_take_credit(r, 10, 0), DOCA_SUCCESS);
	assert_int_equal(sd_fp_net_take_credit(r, 4097, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sd_fp_net_take_credit(r, 4096, 0), DOCA_SUCCESS);
	assert_int_equal(sd_fp_net_take_credit(r, 1, 0), DOCA_ERROR_AGAIN);
	/* more credits than the slots it announced: the protocol is broken */
	{
		uint32_t many[5] = {1, 1, 1, 1, 1};

		peer_credit(7, many, 5);
	}
	assert_int_equal(sd_fp_net_take_credit(r, 1, 0), DOCA_ERROR_UNEXPECTED);
	sd_fp_remote_put(r);
}

static void test_bad_announcements(void **state)
{
	struct sd_fp_net_new_body b = {.version = SD_FP_VERSION, .consumer_id = 3, .max_msg = 64, .slots = 4};
	uint32_t c = 1;

	(void)state;
	tap(SD_FP_NET_NEW, &b, sizeof(b) - 1); /* short */
	b.slots = 3;                           /* not a power of two */
	tap(SD_FP_NET_NEW, &b, sizeof(b));
	b.slots = 4;
	b.imm_len = SD_FP_MAX_IMM + 1;
	tap(SD_FP_NET_NEW, &b, sizeof(b));
	b.imm_len = 0;
	b.version = SD_FP_VERSION + 1;
	tap(SD_FP_NET_NEW, &b, sizeof(b));
	b.version = SD_FP_VERSION;
	b.consumer_id = 0;
	tap(SD_FP_NET_NEW, &b, sizeof(b));
	assert_null(sd_fp_remote_get(st, 3));
	assert_null(sd_fp_remote_get(st, 0));
	/* the owner hears of none of them */
	t_handler(&t_conn, SD_FP_NET_NEW, &b, sizeof(b), -1, t_handler_arg);
	assert_int_equal(t_events_new, 0);
	/* credits for nobody, malformed credits: ignored */
	peer_credit(3, &c, 1);
	tap(SD_FP_NET_CREDIT, &c, 3);
	/* past the device's consumers per connection */
	for (uint32_t id = 10; id < 16; id++)
		peer_new(id, 64, 0, 4);
	assert_int_equal(t_events_new, 4);
	assert_null(sd_fp_remote_get(st, 14));
}

static void test_gone_then_back(void **state)
{
	struct sd_fp_gone_body g = {.consumer_id = 5};
	struct sd_fp_remote *r;

	(void)state;
	peer_new(5, 64, 0, 4);
	r = sd_fp_remote_get(st, 5);
	assert_non_null(r);
	tap(SD_FP_CONSUMER_GONE, &g, sizeof(g));
	assert_true(sd_fp_remote_dead(r));
	assert_int_equal(sd_fp_net_take_credit(r, 1, 0), DOCA_ERROR_NOT_FOUND);
	/* restarted before the owner heard it went: both events, in order */
	peer_new(5, 64, 0, 4);
	t_handler(&t_conn, SD_FP_CONSUMER_GONE, &g, sizeof(g), -1, t_handler_arg);
	assert_int_equal(t_events_new, 2);
	assert_int_equal(t_events_gone, 1);
	sd_fp_remote_put(r);
	r = sd_fp_remote_get(st, 5);
	assert_non_null(r);
	assert_false(sd_fp_remote_dead(r));
	sd_fp_remote_put(r);
}

static void *attach_thread(void *arg)
{
	*(doca_error_t *)arg = sd_fp_conn_get(&t_conn, &st);
	return NULL;
}

/* A producer or consumer of ours attaching on its own thread while the
 * peer's announcement comes in on the connection's: the dispatcher is in
 * place before the tap, and the frame that follows an announcement the
 * module already holds must still raise the event (the race that left a
 * secure_channel producer across a veth waiting for a consumer forever). */
static void test_announcement_while_attaching(void **state)
{
	struct sd_fp_net_new_body b = {.version = SD_FP_VERSION, .consumer_id = 9, .max_msg = 64, .slots = 4};
	doca_error_t got = DOCA_ERROR_UNKNOWN;
	pthread_t thr;

	(void)state;
	t_held = b;
	t_holding = true;
	t_attach_us = 100000;
	assert_int_equal(pthread_create(&thr, NULL, attach_thread, &got), 0);
	while (!__atomic_load_n(&t_in_attach, __ATOMIC_ACQUIRE))
		usleep(100);
	/* inside the module's attach: the dispatcher is already ours */
	assert_non_null(t_handler);
	t_handler(&t_conn, SD_FP_NET_NEW, &b, sizeof(b), -1, t_handler_arg);
	assert_int_equal(pthread_join(thr, NULL), 0);
	assert_int_equal(got, DOCA_SUCCESS);
	assert_false(t_holding);
	assert_int_equal(t_events_new, 1);
}

/* ---- the consumer's side ----------------------------------------------------- */

#define FRAG 4040u

/* What our producer sends: one network message per buffer of the chain up
 * to SD_FP_NET_CHUNK, none spanning two (the module gathers each straight
 * from the buffer); looped back into our own consumer, they are the
 * message, byte for byte. */
static void test_send_fragments(void **state)
{
	static uint8_t a[SD_FP_NET_CHUNK + 1000], b[3000];
	struct doca_buf ba = {0}, bempty = {0}, bb = {0};
	struct sd_fp_local *l;
	struct sd_fp_netmsg *m;
	bool bad;

	(void)state;
	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = (uint8_t)(i * 13 + 1);
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)(i * 5 + 3);
	ba.data = a;
	ba.data_len = sizeof(a);
	ba.next = &bempty; /* an empty buffer in the chain is skipped */
	bempty.next = &bb;
	bb.data = b;
	bb.data_len = sizeof(b);
	l = local_consumer(4, sizeof(a) + sizeof(b), sizeof(a) + sizeof(b), 2);
	t_sent_count = 0;
	t_loopback = true;
	assert_int_equal(sd_fp_net_send(st, 4, 77, "imm!", 4, &ba), DOCA_SUCCESS);
	/* an empty message: one fragment all the same */
	assert_int_equal(sd_fp_net_send(st, 4, 78, NULL, 0, NULL), DOCA_SUCCESS);
	t_loopback = false;
	assert_int_equal(t_sent_count, 4); /* SD_FP_NET_CHUNK, 1000, 3000; the empty one */
	assert_int_equal(t_sent_max_body, SD_FP_NET_CHUNK);
	m = sd_fp_net_take(st, l, &bad);
	assert_false(bad);
	assert_non_null(m);
	assert_int_equal(m->producer_id, 77);
	assert_int_equal(m->imm_len, 4);
	assert_memory_equal(m->imm, "imm!", 4);
	assert_int_equal(m->len, sizeof(a) + sizeof(b));
	/* written straight into the buffer granted first */
	assert_memory_equal(t_rx[0], a, sizeof(a));
	assert_memory_equal(t_rx[0] + sizeof(a), b, sizeof(b));
	assert_non_null(m->next);
	assert_int_equal(m->next->producer_id, 78);
	assert_int_equal(m->next->len, 0);
	free(m->next);
	free(m);
	sd_fp_conn_withdraw(st, 4);
}

/* Messages handed back are reused for the next ones that fit (a few
 * kept, a few MiB at most), and everything kept is freed with the
 * consumer. Messages of two fragments here: one of one fragment needs no
 * reassembly room. */
static void test_recycled_messages(void **state)
{
	static uint8_t bytes[200];
	struct sd_fp_netmsg *m, *m2, *many[12];
	struct sd_fp_local *l;
	bool bad;

	(void)state;
	memset(bytes, 0x3c, sizeof(bytes));
	l = local_consumer(6, sizeof(bytes), sizeof(bytes), 8);
	peer_data(6, 1, 100, 0, bytes, 50, 0);
	peer_data(6, 1, 100, 50, bytes + 50, 50, 0);
	m = sd_fp_net_take(st, l, &bad);
	assert_non_null(m);
	assert_memory_equal(t_rx[0], bytes, 100);
	sd_fp_net_recycle(st, l, m);
	peer_data(6, 1, 100, 0, bytes, 50, 0);
	peer_data(6, 1, 100, 50, bytes + 50, 50, 0);
	m2 = sd_fp_net_take(st, l, &bad);
	assert_ptr_equal(m2, m); /* reused */
	assert_int_equal(m2->len, 100);
	assert_memory_equal(t_rx[1], bytes, 100); /* the second credit's buffer */
	sd_fp_net_recycle(st, l, m2);
	/* larger than the spare: a fresh one */
	peer_data(6, 1, 200, 0, bytes, 100, 0);
	peer_data(6, 1, 200, 100, bytes + 100, 100, 0);
	m = sd_fp_net_take(st, l, &bad);
	assert_non_null(m);
	assert_ptr_not_equal(m, m2);
	assert_int_equal(m->len, 200);
	assert_memory_equal(t_rx[2], bytes, 200);
	free(m);
	/* more handed back than are kept: the rest freed (ASan: no leak) */
	for (int i = 0; i < 12; i++) {
		many[i] = malloc(sizeof(*many[i]) + 16 + (size_t)i);
		assert_non_null(many[i]);
		many[i]->cap = 16 + (uint32_t)i;
	}
	for (int i = 0; i < 12; i++)
		sd_fp_net_recycle(st, l, many[i]);
	assert_true(l->nspare <= 8);
	/* a large one is not kept */
	m = malloc(sizeof(*m) + (5u << 20));
	assert_non_null(m);
	m->cap = 5u << 20;
	sd_fp_net_recycle(st, l, m);
	assert_true(l->spare_bytes <= (4u << 20));
	sd_fp_net_recycle(st, l, NULL);
	sd_fp_conn_withdraw(st, 6);
}

static void test_messages_land_in_order(void **state)
{
	struct sd_fp_local *l;
	struct sd_fp_netmsg *m;
	uint8_t big[10000];
	bool bad;

	(void)state;
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7);
	l = local_consumer(9, sizeof(big), sizeof(big), 2);
	/* a message in three fragments (of any size: the receiver only
	 * checks offsets), and an empty one */
	peer_data(9, 1, sizeof(big), 0, big, FRAG, 4);
	peer_data(9, 1, sizeof(big), FRAG, big + FRAG, FRAG, 0);
	assert_false(sd_fp_net_pending(l));
	peer_data(9, 1, sizeof(big), 2 * FRAG, big + 2 * FRAG, sizeof(big) - 2 * FRAG, 0);
	peer_data(9, 2, 0, 0, NULL, 0, 0);
	assert_true(sd_fp_net_pending(l));
	m = sd_fp_net_take(st, l, &bad);
	assert_false(bad);
	assert_non_null(m);
	assert_int_equal(m->len, sizeof(big));
	assert_int_equal(m->producer_id, 1);
	assert_int_equal(m->imm_len, 4);
	assert_memory_equal(t_rx[0], big, sizeof(big));
	assert_non_null(m->next);
	assert_int_equal(m->next->len, 0);
	assert_int_equal(m->next->producer_id, 2);
	free(m->next);
	free(m);
	/* both credits used: a third message is a violation */
	peer_data(9, 1, 1, 0, big, 1, 0);
	m = sd_fp_net_take(st, l, &bad);
	assert_null(m);
	assert_true(bad);
	sd_fp_conn_withdraw(st, 9);
	assert_int_equal(t_sent_kind, SD_FP_CONSUMER_GONE);
}

/* A message goes into the buffer granted for it and nowhere else: one
 * longer than that buffer (though within the consumer's maximum) breaks
 * the protocol and writes nothing; once the consumer detached (it is
 * stopping and hands its buffers back), messages are dropped unwritten. */
/* Nothing was queued for consumer id nor written into its two buffers,
 * and it was marked broken or not (want_bad). Withdraws it. */
static void expect_nothing_placed(struct sd_fp_local *l, uint32_t id, bool want_bad)
{
	static const uint8_t zero[64];
	struct sd_fp_netmsg *m;
	bool bad;

	m = sd_fp_net_take(st, l, &bad);
	assert_null(m);
	assert_int_equal(bad, want_bad);
	assert_memory_equal(t_rx[0], zero, sizeof(zero));
	assert_memory_equal(t_rx[1], zero, sizeof(zero));
	sd_fp_conn_withdraw(st, id);
}

static void test_placement_bounds(void **state)
{
	uint8_t bytes[64];
	struct sd_fp_local *l;

	(void)state;
	memset(bytes, 0x77, sizeof(bytes));
	l = local_consumer(40, 64, 16, 2);
	peer_data(40, 1, 32, 0, bytes, 32, 0);
	expect_nothing_placed(l, 40, true);

	l = local_consumer(41, 64, 64, 2);
	peer_data(41, 1, 64, 0, bytes, 32, 0); /* half a message, then detached */
	sd_fp_net_detach(st, l);
	peer_data(41, 1, 64, 32, bytes + 32, 32, 0);
	peer_data(41, 2, 10, 0, bytes, 10, 0);
	expect_nothing_placed(l, 41, false);
}

static void test_hostile_fragments(void **state)
{
	static const struct {
		uint32_t total, off, n, imm;
		const char *what;
	} first[] = {
		{65, 0, 1, 0, "larger than the consumer's maximum"},
		{10, 1, 1, 0, "first fragment not at offset 0"},
		{10, 0, 11, 0, "fragment beyond its message"},
		{10, 0, 1, SD_FP_MAX_IMM + 1, "immediate data too long"},
	};
	uint8_t bytes[64] = {0};
	struct sd_fp_netmsg *m;
	struct sd_fp_local *l;
	bool bad;

	(void)state;
	for (size_t i = 0; i < sizeof(first) / sizeof(first[0]); i++) {
		l = local_consumer(20 + (uint32_t)i, 64, 64, 2);
		peer_data(20 + (uint32_t)i, 1, first[i].total, first[i].off, bytes, first[i].n, first[i].imm);
		m = sd_fp_net_take(st, l, &bad);
		assert_null(m);
		if (!bad)
			fail_msg("not refused: %s", first[i].what);
		sd_fp_conn_withdraw(st, 20 + (uint32_t)i);
	}
	/* continuation out of order, or changing the total */
	l = local_consumer(30, 64, 64, 2);
	peer_data(30, 1, 20, 0, bytes, 10, 0);
	peer_data(30, 1, 20, 5, bytes, 10, 0);
	m = sd_fp_net_take(st, l, &bad);
	assert_null(m);
	assert_true(bad);
	sd_fp_conn_withdraw(st, 30);
	l = local_consumer(31, 64, 64, 2);
	peer_data(31, 1, 20, 0, bytes, 10, 0);
	peer_data(31, 1, 30, 10, bytes, 10, 0);
	m = sd_fp_net_take(st, l, &bad);
	assert_null(m);
	assert_true(bad);
	sd_fp_conn_withdraw(st, 31);
	/* no credit at all */
	l = local_consumer(32, 64, 64, 0);
	peer_data(32, 1, 1, 0, bytes, 1, 0);
	m = sd_fp_net_take(st, l, &bad);
	assert_null(m);
	assert_true(bad);
	sd_fp_conn_withdraw(st, 32);
	/* truncated headers, unknown consumers: ignored, nothing breaks */
	tap(SD_FP_NET_DATA, bytes, 10);
	peer_data(99, 1, 1, 0, bytes, 1, 0);
	tap(0x1ee, bytes, 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_credits_and_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_announcements, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gone_then_back, setup, teardown),
		cmocka_unit_test_prestate_setup_teardown(test_announcement_while_attaching, setup, teardown,
							 (void *)"attached by the test"),
		cmocka_unit_test_setup_teardown(test_send_fragments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recycled_messages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_messages_land_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_placement_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_fragments, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
