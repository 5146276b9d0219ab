/* The UCX transport through its sd_link_ops, both ends in this process over
 * 127.0.0.1 (UCX_TLS=tcp): routing by address among several listeners, an
 * unknown name, frames both ways in order, back-pressure (AGAIN) and its
 * release, descriptors refused, close seen by the peer, junk at the port,
 * the listen refusals, a card with a link of its own (cards[i].link), and a
 * connect whose peer never answers (it does not block its caller). No root needed; the two-namespace test covers the rest. */
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "sd_link_ucx.h"
#include "../../src/fabric/link_ucx_int.h"
#include "../common/ucx_loop_util.h"

const struct sd_link_ops *priv_doca_sd_link_ucx_init(const struct sd_link_urls *urls, const uint8_t *secret,
						     size_t secret_len, doca_error_t *err);
const struct sd_link_fp_ops *priv_doca_sd_link_ucx_fastpath(void);

static const struct sd_link_ops *ops;
static uint16_t port, card2_port; /* SOFTDOCA_LINK's; card 2's own link's */
static int quiet_fd = -1;          /* card 1's link: a TCP listener that never answers */
static struct sd_link *lis_a, *lis_b;

static struct sd_fabric_addr addr(const char *name)
{
	struct sd_fabric_addr a;

	memset(&a, 0, sizeof(a));
	a.card = 0;
	strcpy(a.pci, "0000:3b:00.0");
	strcpy(a.name, name);
	return a;
}

/* Wait until fd is readable (at most ms). */
static bool readable(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, ms) == 1;
}

static struct sd_link *accept_one(struct sd_link *lis)
{
	struct sd_link *l = NULL;
	int i;

	for (i = 0; i < 100; i++) {
		if (!readable(lis->fd, 100))
			continue;
		if (ops->accept(lis, &l) == DOCA_SUCCESS)
			return l;
	}
	return NULL;
}

/* connect, called again while it answers AGAIN (the handshake under way:
 * slow under the sanitizers), as the Comch client does on its timer. */
static doca_error_t connect_wait(const struct sd_fabric_addr *a, struct sd_link **c)
{
	doca_error_t err;
	int i;

	for (i = 0; i < 1000; i++) {
		err = ops->connect(a, c);
		if (err != DOCA_ERROR_AGAIN)
			return err;
		usleep(20000);
	}
	return err;
}

/* A client of a (connect_wait) and its server end, accepted on lis. */
static struct sd_link *connect_accept(const struct sd_fabric_addr *a, struct sd_link *lis, struct sd_link **c)
{
	struct sd_link *s;

	assert_int_equal(connect_wait(a, c), DOCA_SUCCESS);
	s = accept_one(lis);
	assert_non_null(s);
	return s;
}

static doca_error_t recv_wait(struct sd_link *l, void *buf, struct sd_frame_view *v, int ms)
{
	doca_error_t err;
	int fd, i;

	for (i = 0; i < ms / 10; i++) {
		err = ops->recv(l, buf, v, &fd);
		if (err != DOCA_ERROR_AGAIN)
			return err;
		(void)readable(l->fd, 10);
	}
	return DOCA_ERROR_AGAIN;
}

static void test_routing(void **state)
{
	struct sd_fabric_addr b = addr("svc-b"), none = addr("nobody");
	static uint8_t buf[SD_FRAME_BUF_SIZE];
	struct sd_frame_view v;
	struct sd_link *c = NULL, *s;
	int fd;

	(void)state;
	/* nobody listens under that name: NOT_FOUND (the Comch client retries) */
	assert_int_equal(connect_wait(&none, &c), DOCA_ERROR_NOT_FOUND);
	s = connect_accept(&b, lis_b, &c);
	{
		struct sd_link *x = NULL;

		assert_int_equal(ops->accept(lis_a, &x), DOCA_ERROR_AGAIN); /* routed to b only */
	}
	assert_true(s->peer_pid == getpid() && c->peer_pid == getpid());
	assert_false(readable(s->fd, 0));
	assert_int_equal(ops->recv(s, buf, &v, &fd), DOCA_ERROR_AGAIN);
	assert_int_equal(ops->send(c, SD_FRAME_MSG, "hello", 5, -1), DOCA_SUCCESS);
	assert_int_equal(ops->send(c, SD_FRAME_MSG, "again", 5, -1), DOCA_SUCCESS);
	assert_int_equal(recv_wait(s, buf, &v, 3000), DOCA_SUCCESS);
	assert_int_equal(v.type, SD_FRAME_MSG);
	assert_int_equal(v.length, 5);
	assert_memory_equal(v.body, "hello", 5);
	assert_int_equal(recv_wait(s, buf, &v, 3000), DOCA_SUCCESS);
	assert_memory_equal(v.body, "again", 5);
	assert_int_equal(v.seq, 1);
	assert_int_equal(ops->send(s, SD_FRAME_BYE, NULL, 0, -1), DOCA_SUCCESS);
	assert_int_equal(recv_wait(c, buf, &v, 3000), DOCA_SUCCESS);
	assert_int_equal(v.type, SD_FRAME_BYE);

	/* a descriptor cannot cross the network */
	assert_int_equal(ops->send(c, SD_FRAME_FP_FIRST, "x", 1, 0), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(ops->send(c, SD_FRAME_MSG, NULL, 3, -1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(ops->send(c, SD_FRAME_MSG, buf, SD_FRAME_MAX_BODY + 1, -1), DOCA_ERROR_INVALID_VALUE);

	/* closing one end: the other reads CONNECTION_RESET, its fd readable */
	ops->close(c);
	assert_int_equal(ops->send(c, SD_FRAME_MSG, "late", 4, -1), DOCA_ERROR_NOT_CONNECTED);
	assert_int_equal(ops->recv(c, buf, &v, &fd), DOCA_ERROR_NOT_CONNECTED);
	assert_int_equal(recv_wait(s, buf, &v, 5000), DOCA_ERROR_CONNECTION_RESET);
	assert_true(readable(s->fd, 0));
	assert_int_equal(ops->send(s, SD_FRAME_MSG, "gone", 4, -1), DOCA_ERROR_CONNECTION_RESET);
	ops->destroy(c);
	ops->destroy(s);
}

/* A reader that does not read: the sender gets AGAIN once a window is in
 * flight, and room again as soon as the reader drains. */
static void test_backpressure(void **state)
{
	struct sd_fabric_addr a = addr("svc-a");
	static uint8_t buf[SD_FRAME_BUF_SIZE], big[SD_FRAME_MAX_MSG];
	struct sd_frame_view v;
	struct sd_link *c = NULL, *s;
	unsigned int sent = 0, got = 0;
	doca_error_t err;

	(void)state;
	s = connect_accept(&a, lis_a, &c);
	memset(big, 0x5a, sizeof(big));
	while ((err = ops->send(c, SD_FRAME_MSG, big, sizeof(big), -1)) == DOCA_SUCCESS)
		assert_true(++sent < 1000);
	assert_int_equal(err, DOCA_ERROR_AGAIN);
	assert_true(sent >= 16); /* about 2 MiB of 64 KiB messages */
	while (got < sent) {
		assert_int_equal(recv_wait(s, buf, &v, 5000), DOCA_SUCCESS);
		assert_int_equal(v.length, sizeof(big));
		assert_int_equal(v.seq, got);
		got++;
	}
	/* the credit comes back: sending works again */
	for (err = DOCA_ERROR_AGAIN, got = 0; err == DOCA_ERROR_AGAIN && got < 300; got++) {
		err = ops->send(c, SD_FRAME_MSG, big, sizeof(big), -1);
		if (err == DOCA_ERROR_AGAIN)
			usleep(10000);
	}
	assert_int_equal(err, DOCA_SUCCESS);
	assert_int_equal(recv_wait(s, buf, &v, 5000), DOCA_SUCCESS);
	ops->destroy(c);
	ops->destroy(s);
}

/* What the tap got (on the module's thread): messages counted, the last
 * kept. */
static pthread_mutex_t tap_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned int tap_n;
static uint16_t tap_kind;
static uint32_t tap_len;
static uint8_t tap_last[SD_LINK_FP_MAX_BODY];

static void tap(void *arg, uint16_t kind, const void *body, uint32_t len)
{
	(void)arg;
	pthread_mutex_lock(&tap_mu);
	tap_n++;
	tap_kind = kind;
	tap_len = len;
	memcpy(tap_last, body, len);
	pthread_mutex_unlock(&tap_mu);
}

static unsigned int tap_count(void)
{
	unsigned int n;

	pthread_mutex_lock(&tap_mu);
	n = tap_n;
	pthread_mutex_unlock(&tap_mu);
	return n;
}

/* The fast path's messages (sd_link_fp_ops): held until the tap is
 * attached, then delivered in order; a message of head and body arrives
 * joined, up to SD_LINK_FP_MAX_BODY; anything larger or of another kind is
 * refused at the sender. */
static void test_fast_path_messages(void **state)
{
	const struct sd_link_fp_ops *fp = priv_doca_sd_link_ucx_fastpath();
	struct sd_fabric_addr a = addr("svc-a");
	static uint8_t body[SD_LINK_FP_MAX_BODY];
	struct sd_link *c = NULL, *s;
	const char head[] = "head";
	int i;

	(void)state;
	assert_non_null(fp);
	s = connect_accept(&a, lis_a, &c);
	for (size_t k = 0; k < sizeof(body); k++)
		body[k] = (uint8_t)(k * 31 + 7);
	assert_int_equal(fp->send(c, SD_FRAME_FP_FIRST, head, 4, body, 10), DOCA_SUCCESS);
	assert_int_equal(fp->send(c, SD_FRAME_FP_FIRST + 1, head, 4, body, SD_LINK_FP_MAX_BODY - 4), DOCA_SUCCESS);
	/* refused at the sender */
	assert_int_equal(fp->send(c, SD_FRAME_FP_FIRST, head, 4, body, SD_LINK_FP_MAX_BODY - 3),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(fp->send(c, SD_FRAME_FP_FIRST, NULL, 4, body, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(fp->send(c, SD_FRAME_MSG, head, 4, NULL, 0), DOCA_ERROR_INVALID_VALUE);
	/* held: nobody to hand them to yet */
	usleep(200000);
	assert_int_equal(tap_count(), 0);
	assert_int_equal(fp->attach(s, tap, NULL), DOCA_SUCCESS);
	for (i = 0; i < 500 && tap_count() < 2; i++) {
		fp->sync(s);
		usleep(10000);
	}
	assert_int_equal(tap_count(), 2);
	pthread_mutex_lock(&tap_mu);
	assert_int_equal(tap_kind, SD_FRAME_FP_FIRST + 1);
	assert_int_equal(tap_len, SD_LINK_FP_MAX_BODY);
	assert_memory_equal(tap_last, head, 4);
	assert_memory_equal(tap_last + 4, body, SD_LINK_FP_MAX_BODY - 4);
	pthread_mutex_unlock(&tap_mu);
	ops->destroy(c);
	ops->destroy(s);
}

/* A batch of small messages (LK_BATCH, kind 10: records of kind, arg,
 * length, reserved, then the bytes) that a hostile peer made: the link is
 * dropped, whichever rule it breaks. */
static bool batch_dropped(uint32_t count, const void *body, size_t len, int ms)
{
	struct sd_fabric_addr a = addr("svc-a");
	static uint8_t buf[SD_FRAME_BUF_SIZE];
	struct sd_frame_view v;
	struct sd_link *c = NULL, *s;
	doca_error_t err;
	bool sent;

	s = connect_accept(&a, lis_a, &c);
	sd_ucx_lock();
	sent = sd_ucx_send(sd_ucx_link_conn(c), 10, count, body, len, NULL, 0);
	sd_ucx_unlock();
	assert_true(sent);
	err = recv_wait(s, buf, &v, ms);
	ops->destroy(c);
	ops->destroy(s);
	return err == DOCA_ERROR_CONNECTION_RESET;
}

static void test_hostile_batches(void **state)
{
	uint32_t b[16] = {0};

	(void)state;
	/* two credits: well formed, kept */
	b[0] = b[4] = 6; /* LK_CREDIT, no bytes */
	assert_false(batch_dropped(2, b, 32, 300));
	b[4] = 0;
	/* one record only: never sent as a batch */
	b[0] = 6; /* LK_CREDIT, no bytes */
	assert_true(batch_dropped(1, b, 16, 5000));
	/* a second record past the end */
	b[4] = 6;
	assert_true(batch_dropped(2, b, 24, 5000));
	/* a record longer than what is left */
	b[6] = 100;
	assert_true(batch_dropped(2, b, 32, 5000));
	/* a kind never batched (HELLO) */
	b[4] = 1;
	b[6] = 0;
	assert_true(batch_dropped(2, b, 32, 5000));
	/* reserved not zero */
	b[4] = 6;
	b[7] = 1;
	assert_true(batch_dropped(2, b, 32, 5000));
	/* bytes after the last record */
	b[7] = 0;
	assert_true(batch_dropped(2, b, 40, 5000));
}

/* Not a UCX peer at all: bytes of junk at the listening port, a connection
 * left open and silent. The listener survives both and serves the next. */
static void test_junk_peer(void **state)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	struct sd_fabric_addr a = addr("svc-a");
	static uint8_t buf[SD_FRAME_BUF_SIZE];
	struct sd_frame_view v;
	struct sd_link *c = NULL, *s;
	char junk[4096];
	int fd, quiet;

	(void)state;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(port);
	memset(junk, 0xa5, sizeof(junk));
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	(void)!write(fd, junk, sizeof(junk));
	close(fd);
	quiet = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(quiet >= 0);
	assert_int_equal(connect(quiet, (struct sockaddr *)&sin, sizeof(sin)), 0);
	usleep(200000);
	s = connect_accept(&a, lis_a, &c);
	assert_int_equal(ops->send(c, SD_FRAME_MSG, "ok", 2, -1), DOCA_SUCCESS);
	assert_int_equal(recv_wait(s, buf, &v, 3000), DOCA_SUCCESS);
	assert_memory_equal(v.body, "ok", 2);
	close(quiet);
	ops->destroy(c);
	ops->destroy(s);
}

static void test_listen_refusals(void **state)
{
	struct sd_fabric_addr a = addr("svc-a"), other = addr("svc-c");
	struct sd_link *l = NULL;

	(void)state;
	assert_int_equal(ops->listen(&a, &l), DOCA_ERROR_ALREADY_EXIST);
	/* card 4's own link did not resolve: that card is out of reach,
	 * not sent to SOFTDOCA_LINK's address */
	other.card = 4;
	assert_int_equal(ops->listen(&other, &l), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(ops->connect(&other, &l), DOCA_ERROR_NOT_SUPPORTED);
	/* another card of this process at the same address: the handshake's
	 * card tells their clients apart; a card nobody serves is refused */
	other.card = 3;
	assert_int_equal(ops->listen(&other, &l), DOCA_SUCCESS);
	{
		struct sd_fabric_addr stray = other;
		struct sd_link *c = NULL, *s;

		s = connect_accept(&other, l, &c);
		ops->destroy(s);
		ops->destroy(c);
		stray.card = 5;
		assert_int_equal(connect_wait(&stray, &c), DOCA_ERROR_NOT_PERMITTED);
	}
	ops->destroy(l);
	assert_int_equal(ops->reclaim(&a, 1), DOCA_SUCCESS);
	assert_int_equal(ops->accept(NULL, &l), DOCA_ERROR_INVALID_VALUE);
}

/* Card 2 has a link of its own (another port; on a real machine, another
 * Arm side's address): its servers listen there, its clients connect
 * there, its exports are served from a listener of their own; cards 0 and
 * 5 keep SOFTDOCA_LINK's. */
static void test_card_own_link(void **state)
{
	struct sd_fabric_addr x = addr("svc-x"), x0 = addr("svc-x");
	struct sockaddr_storage sa0, sa2, again;
	socklen_t len0 = 0, len2 = 0, len = 0;
	struct sd_link *lis = NULL, *c = NULL, *s;
	static uint8_t buf[SD_FRAME_BUF_SIZE];
	struct sd_frame_view v;

	(void)state;
	x.card = 2;
	assert_int_equal(ops->listen(&x, &lis), DOCA_SUCCESS);
	/* a card 0 client of that name goes to SOFTDOCA_LINK's address,
	 * where no card 0 server has it */
	assert_int_equal(connect_wait(&x0, &c), DOCA_ERROR_NOT_FOUND);
	s = connect_accept(&x, lis, &c);
	assert_int_equal(ops->send(c, SD_FRAME_MSG, "two", 3, -1), DOCA_SUCCESS);
	assert_int_equal(recv_wait(s, buf, &v, 3000), DOCA_SUCCESS);
	assert_memory_equal(v.body, "two", 3);
	ops->destroy(c);
	ops->destroy(s);
	{
		/* card 2's servers listen at its own link's port */
		struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(card2_port)};
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		assert_true(fd >= 0);
		assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
		close(fd);
	}
	/* exports of each card: a remote-memory listener per link */
	sd_ucx_lock();
	assert_int_equal(sd_ucx_rm_listen(0, &sa0, &len0), DOCA_SUCCESS);
	assert_int_equal(sd_ucx_rm_listen(2, &sa2, &len2), DOCA_SUCCESS);
	assert_int_equal(sd_ucx_rm_listen(5, &again, &len), DOCA_SUCCESS);
	sd_ucx_unlock();
	assert_int_equal(len, len0);
	assert_memory_equal(&again, &sa0, len0); /* card 5 (no link of its own) shares card 0's */
	assert_true(len2 == len0 && memcmp(&sa2, &sa0, len0) != 0);
	assert_int_equal(((struct sockaddr_in *)&sa2)->sin_addr.s_addr, htonl(INADDR_LOOPBACK));
	ops->destroy(lis);
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Card 1's Arm side takes TCP connections (the kernel queues them) and
 * never says a word, as a stopped process would: each connect returns at
 * once with AGAIN while the attempt goes on (a PE serving other cards must
 * not stall), until the link's timeout (3000 ms here) ends it: NOT_FOUND. */
static void test_connect_does_not_wait(void **state)
{
	struct sd_fabric_addr q = addr("svc-q");
	uint64_t t0 = mono_ms(), worst = 0;
	struct sd_link *c = NULL;
	unsigned int agains = 0;
	doca_error_t err;

	(void)state;
	q.card = 1;
	do {
		uint64_t t = mono_ms();

		err = ops->connect(&q, &c);
		if (mono_ms() - t > worst)
			worst = mono_ms() - t;
		if (err == DOCA_ERROR_AGAIN) {
			agains++;
			usleep(100000);
		}
	} while (err == DOCA_ERROR_AGAIN && mono_ms() - t0 < 15000);
	assert_int_equal(err, DOCA_ERROR_NOT_FOUND);
	assert_true(agains >= 10);
	assert_true(worst < 1000);
	assert_true(mono_ms() - t0 >= 2500);
}

static int setup(void **state)
{
	struct sd_fabric_addr a = addr("svc-a"), b = addr("svc-b");
	struct sd_link_url url;
	char text[64], why[128];
	doca_error_t err;

	(void)state;
	setenv("UCX_TLS", "tcp", 0);
	setenv("SOFTDOCA_LINK_TIMEOUT_MS", "3000", 0);
	port = ucx_loop_url(text, sizeof(text));
	if (port == 0)
		return -1;
	if (sd_link_url_parse(text, &url, why, sizeof(why)) != DOCA_SUCCESS)
		return -1;
	{
		struct sd_link_url cards[5];
		struct sockaddr_in sin = {.sin_family = AF_INET};
		socklen_t slen = sizeof(sin);

		memset(cards, 0, sizeof(cards));
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		quiet_fd = socket(AF_INET, SOCK_STREAM, 0);
		if (quiet_fd < 0 || bind(quiet_fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
		    listen(quiet_fd, 16) != 0 || getsockname(quiet_fd, (struct sockaddr *)&sin, &slen) != 0)
			return -1;
		snprintf(text, sizeof(text), "ucx://127.0.0.1:%u", (unsigned)ntohs(sin.sin_port));
		if (sd_link_url_parse(text, &cards[1], why, sizeof(why)) != DOCA_SUCCESS)
			return -1;
		card2_port = ucx_loop_url(text, sizeof(text));
		if (card2_port == 0 || card2_port == port ||
		    sd_link_url_parse(text, &cards[2], why, sizeof(why)) != DOCA_SUCCESS)
			return -1;
		/* card 4's own link named a host this machine could not resolve */
		snprintf(cards[4].text, sizeof(cards[4].text), "ucx://no-such-host.invalid:5");
		ops = priv_doca_sd_link_ucx_init(&(struct sd_link_urls){.def = &url, .cards = cards, .ncards = 5},
						 (const uint8_t *)"loop secret", 11, &err);
	}
	if (ops == NULL)
		return -1;
	if (ops->listen(&a, &lis_a) != DOCA_SUCCESS || ops->listen(&b, &lis_b) != DOCA_SUCCESS)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ops->destroy(lis_a);
	ops->destroy(lis_b);
	close(quiet_fd);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_routing),
		cmocka_unit_test(test_backpressure),
		cmocka_unit_test(test_fast_path_messages),
		cmocka_unit_test(test_hostile_batches),
		cmocka_unit_test(test_junk_peer),
		cmocka_unit_test(test_listen_refusals),
		cmocka_unit_test(test_card_own_link),
		cmocka_unit_test(test_connect_does_not_wait),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
