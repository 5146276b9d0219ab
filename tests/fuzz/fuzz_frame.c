/*
 * libFuzzer target: what a hostile or broken peer can put in front of us.
 *
 * The first input byte picks the surface (top two bits) and a few options:
 *
 *   0, 1  fabric frames. The rest of the input is a list of records
 *         [u16 LE: bits 0-12 length, 13 pad past the largest valid frame,
 *         14 attach one fd, 15 attach two][bytes]; each record goes as one
 *         datagram over a SOCK_SEQPACKET pair, exactly as a peer's send
 *         would, and is received with the socket transport's recv until it
 *         answers AGAIN or refuses a frame (the caller then drops the link).
 *         Option bit 0: fix up magic/version/length/seq so that the fuzzer
 *         gets past the header; bit 1: keep the seq as sent. The raw input
 *         also goes through sd_frame_parse directly.
 *   2     fast-path shared-memory header as a peer maps it: a region laid out
 *         by sd_fp_region_init, its header XORed with input bytes (or, with
 *         option bit 0, replaced by them), checked by sd_fp_region_check; if
 *         accepted, a producer runs against consumer counters and buffer
 *         capacities the input keeps rewriting.
 *   3     fast-path ring as the consumer reads it: ring bytes and tail from
 *         the input (a hostile producer), sd_fp_rx_peek/release until it
 *         finds nothing or garbage (option bit 1: DIRECT records allowed,
 *         buffers posted with destinations); with option bit 0 instead a
 *         producer and a consumer exchange input-sized messages and every
 *         byte must arrive as sent (option bit 1: through a shared receive
 *         memory, so large ones are placed directly).
 *
 * Anything accepted must stay inside the buffers it was given (ASan checks
 * the bounds) and obey the documented invariants; no fd may leak.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <doca_log.h>

#include "fastpath_ring.h"
#include "sd_fabric.h"

#define REC_LEN_MASK 0x1fffu
#define REC_PAD 0x2000u
#define REC_FD1 0x4000u
#define REC_FD2 0x8000u

static uint8_t *rxbuf;
static uint8_t *big;

struct reader {
	const uint8_t *p;
	size_t n;
};

static uint64_t take(struct reader *r, size_t bytes)
{
	uint64_t v = 0;

	for (size_t i = 0; i < bytes && r->n > 0; i++, r->p++, r->n--)
		v |= (uint64_t)r->p[0] << (8 * i);
	return v;
}

/*
 * Message contents are a ramp: byte i of a message is (first + i) mod 256,
 * written and checked 256 bytes at a time from a table. Per-byte loops took
 * over three quarters of the run, mostly in coverage callbacks that have
 * nothing to discover here.
 */
static uint8_t ramp[512]; /* ramp[k] = k mod 256, set up in LLVMFuzzerInitialize */

static void fill_pattern(uint8_t *p, uint32_t n, uint8_t first)
{
	for (uint32_t off = 0; off < n; off += 256)
		memcpy(p + off, ramp + first, n - off < 256 ? n - off : 256);
}

static bool pattern_ok(const uint8_t *p, uint32_t n, uint8_t first)
{
	for (uint32_t off = 0; off < n; off += 256)
		if (memcmp(p + off, ramp + first, n - off < 256 ? n - off : 256) != 0)
			return false;
	return true;
}

static void check_view(const uint8_t *buf, size_t n, const struct sd_frame_view *v)
{
	if (v->length != n - sizeof(struct sd_frame_hdr) || v->length > SD_FRAME_MAX_BODY)
		abort();
	if ((v->length == 0) != (v->body == NULL))
		abort();
	if (v->body != NULL && (const uint8_t *)v->body != buf + sizeof(struct sd_frame_hdr))
		abort();
	if (v->flags & ~SD_FRAME_F_FD)
		abort();
	switch (v->type) {
	case SD_FRAME_HELLO:
		if (v->length != sizeof(struct sd_frame_hello))
			abort();
		break;
	case SD_FRAME_ACCEPT:
		if (v->length != sizeof(struct sd_frame_accept))
			abort();
		break;
	case SD_FRAME_REJECT:
		if (v->length != sizeof(struct sd_frame_reject))
			abort();
		break;
	case SD_FRAME_MSG:
		if (v->length == 0 || v->length > SD_FRAME_MAX_MSG)
			abort();
		break;
	case SD_FRAME_BYE:
		if (v->length != 0)
			abort();
		break;
	default:
		if (v->type < SD_FRAME_FP_FIRST || v->type > SD_FRAME_FP_LAST || v->length > SD_FRAME_FP_MAX_BODY)
			abort();
	}
	if (strcmp(sd_frame_type_name(v->type), "UNKNOWN") == 0)
		abort();
}

/* false: the socket is full (the peer would wait; we stop sending) */
static bool send_record(int fd, const uint8_t *data, size_t len, unsigned int nfds)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {.iov_base = (void *)data, .iov_len = len};
	struct msghdr msg;
	int fds[2] = {-1, -1};
	ssize_t n;

	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (nfds > 0) {
		struct cmsghdr *c;

		for (unsigned int i = 0; i < nfds; i++) {
			fds[i] = eventfd(0, EFD_CLOEXEC);
			if (fds[i] < 0)
				abort();
		}
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	n = sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS)
		abort();
	if (n >= 0 && n != (ssize_t)len)
		abort();
	for (unsigned int i = 0; i < nfds; i++)
		close(fds[i]);
	return n >= 0;
}

static void fuzz_frames(uint8_t opt, const uint8_t *data, size_t size)
{
	struct sd_frame_view view;
	struct reader r = {data, size};
	struct sd_link link;
	const char *why = NULL;
	int sv[2], rfd;
	uint64_t seq = 0;
	doca_error_t err;

	/* the decoder alone, on the whole input */
	err = sd_frame_parse(data, size, &view, &why);
	if (err == DOCA_SUCCESS)
		check_view(data, size, &view);
	else if ((err != DOCA_ERROR_INVALID_VALUE && err != DOCA_ERROR_UNSUPPORTED_VERSION) || why == NULL)
		abort();
	if (sd_frame_parse(NULL, size, &view, NULL) != DOCA_ERROR_INVALID_VALUE ||
	    sd_frame_parse(data, size, NULL, NULL) != DOCA_ERROR_INVALID_VALUE)
		abort();

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		abort();
	/* at most 64 datagrams, as many as the socket takes without waiting */
	for (int n = 0; n < 64 && r.n >= 2; n++) {
		unsigned int h = (unsigned int)take(&r, 2), len = h & REC_LEN_MASK;
		size_t out;

		if (len > r.n)
			len = (unsigned int)r.n;
		memcpy(big, r.p, len);
		r.p += len;
		r.n -= len;
		out = len;
		if (h & REC_PAD) {
			memset(big + len, 0, SD_FRAME_BUF_SIZE + 1 - len);
			out = SD_FRAME_BUF_SIZE + 1;
		}
		if ((opt & 1) && out >= sizeof(struct sd_frame_hdr)) {
			struct sd_frame_hdr hdr;

			memcpy(&hdr, big, sizeof(hdr));
			hdr.magic = SD_FRAME_MAGIC;
			hdr.version = SD_FRAME_VERSION;
			hdr.length = (uint32_t)(out - sizeof(hdr));
			if (!(opt & 2))
				hdr.seq = seq;
			memcpy(big, &hdr, sizeof(hdr));
		}
		seq++;
		if (!send_record(sv[1], big, out, (h & REC_FD2) ? 2 : (h & REC_FD1) ? 1 : 0))
			break;
	}

	/* The receiving end, as the transport's accept/connect would set it up. */
	memset(&link, 0, sizeof(link));
	link.ops = sd_fabric_transport();
	link.fd = sv[0];
	link.peer_pid = getpid();
	if (pthread_mutex_init(&link.lock, NULL) != 0)
		abort();
	for (;;) {
		uint64_t expect = link.rx_seq;

		err = sd_link_recv(&link, rxbuf, &view, &rfd);
		if (err == DOCA_ERROR_AGAIN)
			break;
		if (err != DOCA_SUCCESS) {
			/* refused: no descriptor handed out, and the caller drops the link */
			/* (an empty datagram reads as end of stream: CONNECTION_RESET) */
			if (rfd != -1 || (err != DOCA_ERROR_INVALID_VALUE && err != DOCA_ERROR_UNSUPPORTED_VERSION &&
					  err != DOCA_ERROR_CONNECTION_RESET))
				abort();
			break;
		}
		if (view.seq != expect || link.rx_seq != expect + 1)
			abort();
		if (((view.flags & SD_FRAME_F_FD) != 0) != (rfd >= 0))
			abort();
		check_view(rxbuf, view.length + sizeof(struct sd_frame_hdr), &view);
		if (view.body != NULL) {
			volatile uint8_t sink = 0;

			for (uint32_t i = 0; i < view.length; i += 64)
				sink ^= ((const uint8_t *)view.body)[i];
			(void)sink;
		}
		if (rfd >= 0 && close(rfd) != 0)
			abort();
	}
	close(sv[0]);
	close(sv[1]);
	pthread_mutex_destroy(&link.lock);
}

/* A region of our own, with sizes small enough for one input. */
static void *make_region(struct reader *r, struct sd_fp_params *p, size_t *size)
{
	uint8_t shape = (uint8_t)take(r, 1);
	uint64_t max;
	void *base;

	memset(p, 0, sizeof(*p));
	p->consumer_id = (uint32_t)take(r, 1);
	p->qcap = 1u << (shape & 7);
	p->ring_size = (uint64_t)SD_FP_MIN_RING << ((shape >> 3) & 1);
	p->imm_len = (uint32_t)take(r, 1) % (SD_FP_MAX_IMM + 1);
	max = (p->ring_size / 2 - 16 - SD_FP_MAX_IMM) & ~(uint64_t)(SD_FP_REC_ALIGN - 1);
	p->max_msg = 1 + (uint32_t)(take(r, 2) % max);
	*size = sd_fp_region_size(p);
	base = aligned_alloc(SD_FP_CACHELINE, *size);
	if (base == NULL)
		abort();
	memset(base, 0, *size);
	sd_fp_region_init(base, *size, p, 4242);
	return base;
}

static void fuzz_fp_producer(uint8_t opt, const uint8_t *data, size_t size)
{
	struct reader r = {data, size};
	struct sd_fp_params p, got;
	struct sd_fp_shm_hdr *h;
	struct sd_fp_tx tx;
	uint8_t raw[sizeof(struct sd_fp_shm_hdr)];
	size_t rsize;
	uint8_t *base = make_region(&r, &p, &rsize);
	doca_error_t err;

	h = (struct sd_fp_shm_hdr *)base;
	memset(raw, 0, sizeof(raw));
	for (size_t i = 0; i < sizeof(raw) && r.n > 0; i++)
		raw[i] = (uint8_t)take(&r, 1);
	if (opt & 1) {
		memcpy(h, raw, sizeof(raw));
	} else {
		for (size_t i = 0; i < sizeof(raw); i++)
			((uint8_t *)h)[i] ^= raw[i];
	}

	err = sd_fp_region_check(base, rsize, &got);
	if (sd_fp_region_check(NULL, rsize, &got) != DOCA_ERROR_INVALID_VALUE ||
	    sd_fp_region_check(base, sizeof(*h) - 1, &got) != DOCA_ERROR_INVALID_VALUE)
		abort();
	if (err != DOCA_SUCCESS) {
		if (err != DOCA_ERROR_INVALID_VALUE && err != DOCA_ERROR_UNSUPPORTED_VERSION)
			abort();
		free(base);
		return;
	}
	/* accepted: what it claims must fit the bytes we mapped */
	if (sd_fp_region_size(&got) != rsize || got.imm_len > SD_FP_MAX_IMM || got.max_msg == 0 ||
	    2 * sd_fp_rec_size(got.max_msg, got.imm_len) > got.ring_size)
		abort();

	sd_fp_tx_init(&tx, base, &got);
	for (int n = 0; n < 256 && r.n > 0; n++) {
		uint8_t op = (uint8_t)take(&r, 1);
		uint8_t *payload = NULL, *imm = NULL;
		uint8_t *ring = base + sizeof(*h) + (rsize - sizeof(*h) - got.ring_size);

		switch (op & 3) {
		case 0: /* the consumer (or someone) rewrites its counters */
			if (op & 4)
				__atomic_store_n(&h->posted, take(&r, ((op >> 4) & 7) + 1), __ATOMIC_RELEASE);
			else
				__atomic_store_n(&h->head, take(&r, ((op >> 4) & 7) + 1), __ATOMIC_RELEASE);
			break;
		case 1: /* a buffer capacity */
			((uint32_t *)(base + sizeof(*h)))[take(&r, 1) & (got.qcap - 1)] = (uint32_t)take(&r, 4);
			break;
		case 2: /* an honest consumer catches up with everything */
			__atomic_store_n(&h->head, tx.tail, __ATOMIC_RELEASE);
			__atomic_store_n(&h->posted, tx.sent + got.qcap, __ATOMIC_RELEASE);
			for (uint32_t i = 0; i < got.qcap; i++)
				((uint32_t *)(base + sizeof(*h)))[i] = got.max_msg;
			h->closed = (op & 4) ? (uint32_t)take(&r, 1) : 0;
			break;
		default: {
			uint32_t len = (uint32_t)take(&r, 3) % (got.max_msg + 2);
			uint32_t ilen = (uint32_t)take(&r, 1) % (SD_FP_MAX_IMM + 2);

			err = sd_fp_tx_reserve(&tx, len, ilen, 7, &payload, &imm);
			if (err == DOCA_SUCCESS) {
				if (len > got.max_msg || ilen > got.imm_len)
					abort();
				if (imm < ring || payload + len > ring + got.ring_size || imm + ilen > payload)
					abort();
				memset(imm, 0xa5, ilen);
				memset(payload, 0x5a, len);
				sd_fp_tx_commit(&tx);
			} else if (err != DOCA_ERROR_AGAIN && err != DOCA_ERROR_NOT_FOUND &&
				   err != DOCA_ERROR_INVALID_VALUE && err != DOCA_ERROR_UNEXPECTED) {
				abort();
			}
		}
		}
	}
	free(base);
}

/* What the consumer knows privately about each buffer it posted. */
struct post_note {
	uint32_t cap;
	bool direct; /* posted with a destination in the shared receive memory */
};

static void fuzz_fp_consumer(uint8_t opt, const uint8_t *data, size_t size)
{
	struct reader r = {data, size};
	struct sd_fp_params p;
	struct sd_fp_rx rx;
	struct sd_fp_msg m;
	size_t rsize, fill;
	uint8_t *base = make_region(&r, &p, &rsize);
	uint8_t *ring = base + rsize - p.ring_size;
	uint8_t scratch[SD_FP_MAX_IMM];
	struct post_note notes[1u << 7];
	uint32_t nposts, taken = 0;

	sd_fp_rx_init(&rx, base);
	rx.direct_ok = (opt & 2) != 0;
	nposts = (uint32_t)take(&r, 1) % (p.qcap + 1);
	for (uint32_t i = 0; i < nposts; i++) {
		struct post_note *n = &notes[i];

		n->cap = (uint32_t)take(&r, 2);
		n->direct = rx.direct_ok && (take(&r, 1) & 1);
		if (n->direct)
			sd_fp_rx_post_at(&rx, n->cap, take(&r, 4));
		else
			sd_fp_rx_post(&rx, n->cap);
	}
	/* the producer's side: a tail and whatever it wrote into the ring */
	__atomic_store_n(&rx.hdr->tail, take(&r, 3), __ATOMIC_RELEASE);
	fill = r.n < p.ring_size ? r.n : p.ring_size;
	memcpy(ring, r.p, fill);
	for (int n = 0; n < 64; n++) {
		int rc = sd_fp_rx_peek(&rx, &m);

		if (rc == 0 || rc == -1)
			break;
		if (rc != 1 || m.len > p.max_msg || m.imm_len > p.imm_len || m.imm < ring ||
		    m.imm + m.imm_len > ring + p.ring_size)
			abort();
		if (m.direct) {
			/* only where allowed, and then the bytes are not in the ring */
			if (!rx.direct_ok || m.payload != NULL)
				abort();
		} else if (m.payload + m.len > ring + p.ring_size || m.imm + m.imm_len > m.payload) {
			abort();
		}
		/* the consumer's own checks (consumer.c): a buffer it posted, big
		 * enough, offered for direct placement if the record says so */
		if (taken == nposts || m.len > notes[taken].cap || (m.direct && !notes[taken].direct))
			break;
		memcpy(scratch, m.imm, m.imm_len);
		if (!m.direct && m.len > 0 && (m.payload[0] ^ m.payload[m.len - 1]) == 0x100)
			abort(); /* touch both ends */
		sd_fp_rx_release(&rx);
		taken++;
	}
	sd_fp_rx_arm(&rx);
	sd_fp_rx_disarm(&rx);
	sd_fp_rx_close(&rx);
	free(base);
}

/* Post the next buffer; in shared memory the n-th is slot n % qcap. */
static void post_slot(struct sd_fp_rx *rx, bool shared, uint64_t *posted)
{
	if (shared)
		sd_fp_rx_post_at(rx, rx->p.max_msg, (*posted % rx->p.qcap) * (uint64_t)rx->p.max_msg);
	else
		sd_fp_rx_post(rx, rx->p.max_msg);
	(*posted)++;
}

/*
 * An honest producer and consumer: every message arrives intact and in
 * order. With shared receive memory (shared: the consumer's buffers, one
 * max_msg slot per credit, mapped by the producer too) every message of
 * SD_FP_DIRECT_MIN bytes or more must be placed directly, the rest go
 * through the ring.
 */
static void fuzz_fp_roundtrip(bool shared, const uint8_t *data, size_t size)
{
	struct reader r = {data, size};
	struct sd_fp_params p, got;
	struct sd_fp_tx tx;
	struct sd_fp_rx rx;
	struct sd_fp_msg m;
	size_t rsize;
	uint8_t *base = make_region(&r, &p, &rsize);
	uint8_t *dmem = NULL;
	uint64_t sent = 0, recvd = 0, posted = 0;
	uint32_t lens[1u << 7];

	if (sd_fp_region_check(base, rsize, &got) != DOCA_SUCCESS || memcmp(&got, &p, sizeof(p)) != 0)
		abort();
	sd_fp_rx_init(&rx, base);
	sd_fp_tx_init(&tx, base, &got);
	if (shared) {
		dmem = malloc((size_t)p.qcap * p.max_msg);
		if (dmem == NULL)
			abort();
		tx.dbase = dmem;
		tx.dlen = (uint64_t)p.qcap * p.max_msg;
		rx.direct_ok = true;
	}
	for (uint32_t i = 0; i < p.qcap; i++)
		post_slot(&rx, shared, &posted);
	while (r.n > 0) {
		uint8_t op = (uint8_t)take(&r, 1);

		if (op & 1) {
			uint32_t len = (uint32_t)take(&r, 2) % (p.max_msg + 1), ilen = (op >> 1) % (p.imm_len + 1);
			uint8_t *payload, *imm;
			bool direct = false;
			doca_error_t err = shared ? sd_fp_tx_reserve_direct(&tx, len, ilen, (uint32_t)sent, &payload,
									     &imm, &direct)
						  : sd_fp_tx_reserve(&tx, len, ilen, (uint32_t)sent, &payload, &imm);

			if (err == DOCA_ERROR_AGAIN) {
				/* only when every posted buffer is taken or the ring is full */
				if (sent - recvd < p.qcap &&
				    (2 * (sent - recvd) + 3) * sd_fp_rec_size(p.max_msg, p.imm_len) <= p.ring_size)
					abort();
				continue;
			}
			if (err != DOCA_SUCCESS || direct != (shared && len >= SD_FP_DIRECT_MIN))
				abort();
			if (direct && payload != dmem + (sent % p.qcap) * (uint64_t)p.max_msg)
				abort();
			fill_pattern(imm, ilen, (uint8_t)sent);
			fill_pattern(payload, len, (uint8_t)(sent * 31));
			lens[sent % (sizeof(lens) / sizeof(lens[0]))] = len | ilen << 24;
			sd_fp_tx_commit(&tx);
			sent++;
		} else {
			int rc = sd_fp_rx_peek(&rx, &m);
			const uint8_t *bytes;

			if (rc == 0) {
				if (recvd != sent)
					abort();
				continue;
			}
			if (rc != 1 || recvd == sent || m.producer_id != (uint32_t)recvd ||
			    (m.len | m.imm_len << 24) != lens[recvd % (sizeof(lens) / sizeof(lens[0]))] ||
			    m.direct != (shared && m.len >= SD_FP_DIRECT_MIN))
				abort();
			bytes = m.direct ? dmem + (recvd % p.qcap) * (uint64_t)p.max_msg : m.payload;
			if (!pattern_ok(m.imm, m.imm_len, (uint8_t)recvd) ||
			    !pattern_ok(bytes, m.len, (uint8_t)(recvd * 31)))
				abort();
			sd_fp_rx_release(&rx);
			post_slot(&rx, shared, &posted);
			recvd++;
		}
	}
	free(dmem);
	free(base);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct doca_log_backend *sdk;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	(void)argc;
	(void)argv;
	/* the transport's refusals are formatted, into /dev/null */
	if (fd < 0 || doca_log_backend_create_with_fd_sdk(fd, &sdk) != DOCA_SUCCESS ||
	    doca_log_backend_set_sdk_level(sdk, DOCA_LOG_LEVEL_TRACE) != DOCA_SUCCESS)
		abort();
	for (size_t k = 0; k < sizeof(ramp); k++)
		ramp[k] = (uint8_t)k;
	rxbuf = malloc(SD_FRAME_BUF_SIZE);
	big = malloc(SD_FRAME_BUF_SIZE + 1);
	if (rxbuf == NULL || big == NULL)
		abort();
	return 0;
}

/*
 * An input opens at most a socket pair, two eventfds per record (closed
 * after the send) and what it receives, all from the lowest free
 * descriptor up; every one must be closed again. So the descriptors open
 * in a window from there (libFuzzer keeps some of its own above the
 * lowest free one) must be the same before and after. Comparing only the
 * lowest free descriptor would miss a leak above one closed later.
 */
#define FD_WINDOW 64

struct fd_snapshot {
	int from;
	uint64_t open; /* bit i: from + i is open */
};

static struct fd_snapshot fd_snapshot(void)
{
	struct fd_snapshot s = {dup(0), 0};

	if (s.from < 0)
		abort();
	close(s.from);
	for (int i = 0; i < FD_WINDOW; i++)
		if (fcntl(s.from + i, F_GETFD) != -1)
			s.open |= 1ull << i;
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Taken per input: between inputs libFuzzer itself may open descriptors
	 * (the pipes to the symbolizer when it reports a new function). */
	struct fd_snapshot before = fd_snapshot(), after;
	uint8_t mode;

	if (size == 0)
		return 0;
	mode = data[0];
	switch (mode >> 6) {
	case 0:
	case 1:
		fuzz_frames(mode & 3, data + 1, size - 1);
		break;
	case 2:
		fuzz_fp_producer(mode & 1, data + 1, size - 1);
		break;
	default:
		if (mode & 1)
			fuzz_fp_roundtrip((mode & 2) != 0, data + 1, size - 1);
		else
			fuzz_fp_consumer(mode & 3, data + 1, size - 1);
	}
	/* every descriptor a frame carried was closed, accepted or refused */
	after = fd_snapshot();
	if (after.from != before.from || after.open != before.open) {
		/* say which (seen when an input is replayed) */
		for (int i = 0; i < FD_WINDOW; i++) {
			char link[256] = "", name[32];
			int fd = before.from + i;

			if (((before.open >> i) & 1) == ((after.open >> i) & 1) && fd != after.from)
				continue;
			snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
			if (readlink(name, link, sizeof(link) - 1) < 0)
				strcpy(link, "(closed)");
			fprintf(stderr, "fuzz_frame: descriptor %d changed: now %s\n", fd, link);
		}
		abort();
	}
	return 0;
}
