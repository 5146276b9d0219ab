/*
 * A hostile peer against a Comch server (issue 6).
 *
 * This program (host flavor) starts hostile_victim from the dpu-flavor peer
 * build and connects to it twice over:
 *   - as a well-behaved Comch client through the public API, which must
 *     keep exchanging messages with the server after every attack;
 *   - once per case, as a raw fabric peer writing frames by hand
 *     (struct sd_frame_hdr of sd_fabric.h on an AF_UNIX SOCK_SEQPACKET
 *     socket): truncated, lying about their length, oversized, wrong magic,
 *     version, type, flags, sequence, fd, messages above the server's
 *     maximum, and forged fast-path announcements and shared regions.
 * Each case checks that the victim logged a clear error naming the problem,
 * dropped (or, for fast-path announcements, refused) only what the hostile
 * peer sent, and still answers the good client. At the end the victim must
 * exit cleanly (status 0, no sanitizer report).
 *
 * usage: test_hostile            the cases that pass
 *        test_hostile known-bugs the cases that show open bugs (none now):
 *                                not in the meson list
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <dirent.h>

#include <cmocka.h>

#include "fp_util.h"
#include "sd_fabric.h"
#include "fastpath.h"

#define VICTIM_NAME "hostile"
#define VICTIM_MAX_MSG 1024

static struct {
	char *fabric;
	char logdir[64];
	char out_path[128], err_path[128];
	pid_t pid;
	char sock[108];
	uint32_t card;
	char pci[SD_FABRIC_PCI_MAX];
	/* the good client */
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_comch_client *client;
	struct doca_comch_connection *conn;
	int echoes;
	uint32_t last_echo;
	int pings;
	/* where this case's part of the victim's logs starts */
	long out_mark, err_mark;
} V;

/* ---- the victim's output ------------------------------------------------- */

static char *slurp(const char *path, long from)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (f == NULL)
		return strdup("");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	if (from > n)
		from = n;
	buf = calloc(1, (size_t)(n - from) + 1);
	fseek(f, from, SEEK_SET);
	if (fread(buf, 1, (size_t)(n - from), f) != (size_t)(n - from))
		buf[0] = '\0';
	fclose(f);
	return buf;
}

static long fsize(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : 0;
}

static void mark(void)
{
	V.out_mark = fsize(V.out_path);
	V.err_mark = fsize(V.err_path);
}

/* Since the last mark: does the victim's stdout / stderr hold s? */
static bool out_has(const char *s)
{
	char *b = slurp(V.out_path, V.out_mark);
	bool r = strstr(b, s) != NULL;

	free(b);
	return r;
}

static bool err_has(const char *s)
{
	char *b = slurp(V.err_path, V.err_mark);
	bool r = strstr(b, s) != NULL;

	free(b);
	return r;
}

static void progress_for(double ms)
{
	double end = fp_now() + ms / 1000.0;

	while (fp_now() < end)
		if (!doca_pe_progress(V.pe))
			usleep(200);
}

static bool wait_out(const char *s, double ms)
{
	double end = fp_now() + ms / 1000.0;

	while (!out_has(s)) {
		if (fp_now() > end)
			return false;
		progress_for(5);
	}
	return true;
}

static bool wait_err(const char *s, double ms)
{
	double end = fp_now() + ms / 1000.0;

	while (!err_has(s)) {
		if (fp_now() > end)
			return false;
		progress_for(5);
	}
	return true;
}

static void dump_victim(void)
{
	char *o = slurp(V.out_path, V.out_mark), *e = slurp(V.err_path, V.err_mark);

	fprintf(stderr, "--- victim stdout since case start ---\n%s--- victim stderr ---\n%s---\n", o, e);
	free(o);
	free(e);
}

/* ---- the good client ----------------------------------------------------- */

static void good_sent(struct doca_comch_task_send *t, union doca_data tu, union doca_data cu)
{
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void good_recv(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len,
		      struct doca_comch_connection *c)
{
	unsigned n;

	if (len > 5 && len < 32 && sscanf((const char *)buf, "ping-%u", &n) == 1) {
		V.echoes++;
		V.last_echo = n;
	}
}

static bool good_send(const char *msg)
{
	struct doca_comch_task_send *t;

	if (doca_comch_client_task_send_alloc_init(V.client, V.conn, msg, (uint32_t)strlen(msg), &t) != DOCA_SUCCESS)
		return false;
	if (doca_task_submit(doca_comch_task_send_as_task(t)) != DOCA_SUCCESS) {
		doca_task_free(doca_comch_task_send_as_task(t));
		return false;
	}
	return true;
}

/* The server still serves the good client: a message goes there and back. */
static void good_roundtrip(void)
{
	char msg[32];
	double end = fp_now() + 3;
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	doca_ctx_get_state(doca_comch_client_as_ctx(V.client), &st);
	assert_int_equal(st, DOCA_CTX_STATE_RUNNING);
	snprintf(msg, sizeof(msg), "ping-%d", ++V.pings);
	assert_true(good_send(msg));
	while (V.last_echo != (uint32_t)V.pings && fp_now() < end)
		progress_for(2);
	if (V.last_echo != (uint32_t)V.pings)
		dump_victim();
	assert_int_equal(V.last_echo, V.pings);
}

/* ---- raw frames ------------------------------------------------------------ */

struct raw {
	int fd;
	uint64_t seq; /* next sequence number we send */
	uint64_t rseq;
};

static void raw_connect(struct raw *r)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	memset(r, 0, sizeof(*r));
	r->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	assert_true(r->fd >= 0);
	strcpy(sa.sun_path, V.sock);
	assert_int_equal(connect(r->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
}

static void raw_close(struct raw *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

/* Send bytes as one record, with an fd if fd >= 0. 0 or -errno. */
static int raw_send_bytes(struct raw *r, const void *buf, size_t len, int fd)
{
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&ctl, 0, sizeof(ctl));
		m.msg_control = ctl.b;
		m.msg_controllen = sizeof(ctl.b);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(r->fd, &m, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

/* A frame with every header field chosen by the caller. */
struct fr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint32_t flags;
	uint32_t length; /* header field */
	uint64_t seq;
};

static int raw_send_forged(struct raw *r, const struct fr *f, const void *body, size_t body_len, int fd)
{
	size_t n = sizeof(struct sd_frame_hdr) + body_len;
	uint8_t *buf = calloc(1, n);
	struct sd_frame_hdr h;
	int rc;

	h.magic = f->magic;
	h.version = f->version;
	h.type = f->type;
	h.flags = f->flags;
	h.length = f->length;
	h.seq = f->seq;
	memcpy(buf, &h, sizeof(h));
	if (body_len)
		memcpy(buf + sizeof(h), body, body_len);
	rc = raw_send_bytes(r, buf, n, fd);
	free(buf);
	r->seq++;
	return rc;
}

/* A well-formed frame. */
static int raw_send(struct raw *r, uint16_t type, const void *body, uint32_t len, int fd)
{
	struct fr f = {SD_FRAME_MAGIC, SD_FRAME_VERSION, type, fd >= 0 ? SD_FRAME_F_FD : 0, len, r->seq};

	return raw_send_forged(r, &f, body, len, fd);
}

/* Next frame from the victim (progressing the good client meanwhile).
 * 1: got one; 0: the victim closed the link; -1: timeout. */
static int raw_recv(struct raw *r, uint16_t *type, void *body, uint32_t *len, int *fd, double ms)
{
	double end = fp_now() + ms / 1000.0;
	union {
		char b[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} ctl;
	static uint8_t buf[SD_FRAME_BUF_SIZE];

	*fd = -1;
	for (;;) {
		struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
		struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b,
				   .msg_controllen = sizeof(ctl.b)};
		struct sd_frame_hdr h;
		ssize_t n = recvmsg(r->fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return 0;
		if (n > 0) {
			for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c != NULL; c = CMSG_NXTHDR(&m, c))
				if (c->cmsg_type == SCM_RIGHTS)
					memcpy(fd, CMSG_DATA(c), sizeof(int));
			assert_true((size_t)n >= sizeof(h));
			memcpy(&h, buf, sizeof(h));
			assert_int_equal(h.magic, SD_FRAME_MAGIC);
			*type = h.type;
			*len = (uint32_t)n - sizeof(h);
			if (body != NULL)
				memcpy(body, buf + sizeof(h), *len);
			r->rseq++;
			return 1;
		}
		if (fp_now() > end)
			return -1;
		progress_for(2);
	}
}

/* The victim hangs up on us within ms (frames before that are skipped). */
static bool raw_dropped(struct raw *r, double ms)
{
	double end = fp_now() + ms / 1000.0;

	for (;;) {
		uint16_t type;
		uint32_t len;
		int fd, rc = raw_recv(r, &type, NULL, &len, &fd, 50);

		if (fd >= 0)
			close(fd);
		if (rc == 0)
			return true;
		if (fp_now() > end)
			return false;
	}
}

static void hello_body(struct sd_frame_hello *h)
{
	memset(h, 0, sizeof(*h));
	h->card = V.card;
	h->max_msg_size = 4080;
	h->pid = (uint32_t)getpid();
	strcpy(h->pci_addr, V.pci);
	strcpy(h->name, VICTIM_NAME);
}

/* Connect and complete the handshake. */
static void raw_handshake(struct raw *r)
{
	struct sd_frame_hello h;
	struct sd_frame_accept a;
	uint16_t type;
	uint32_t len;
	int fd;

	raw_connect(r);
	hello_body(&h);
	assert_int_equal(raw_send(r, SD_FRAME_HELLO, &h, sizeof(h), -1), 0);
	assert_int_equal(raw_recv(r, &type, &a, &len, &fd, 3000), 1);
	assert_int_equal(type, SD_FRAME_ACCEPT);
	assert_int_equal(len, sizeof(a));
	assert_int_equal(a.max_msg_size, VICTIM_MAX_MSG);
	assert_true(wait_out("CONNECT", 3000));
}

/* Common ending of a control-frame case: the link is dropped with the
 * expected explanation, the victim lives, the good client is served. */
static void expect_drop(struct raw *r, const char *why)
{
	bool dropped = raw_dropped(r, 3000);
	bool logged = wait_err(why, 2000);

	if (!dropped || !logged)
		dump_victim();
	assert_true(dropped);
	assert_true(logged);
	assert_int_equal(waitpid(V.pid, NULL, WNOHANG), 0);
	raw_close(r);
	good_roundtrip();
}

/* After a handshake, one forged frame f (its seq the expected one plus
 * skew) with body and fd: the victim drops the connection, logging why. */
static void drop_after_handshake(const struct fr *forged, uint64_t skew, const void *body, size_t len, int fd,
				 const char *why)
{
	struct fr f = *forged;
	struct raw r;

	raw_handshake(&r);
	f.seq = r.seq + skew;
	assert_int_equal(raw_send_forged(&r, &f, body, len, fd), 0);
	expect_drop(&r, why);
}

/* ---- setup ------------------------------------------------------------------ */

static bool find_socket(void)
{
	DIR *d = opendir(V.fabric);
	struct dirent *e;
	bool ok = false;

	if (d == NULL)
		return false;
	while ((e = readdir(d)) != NULL && !ok) {
		char pci[SD_FABRIC_PCI_MAX] = "";

		if (strstr(e->d_name, "-" VICTIM_NAME ".sock") == NULL)
			continue;
		if (sscanf(e->d_name, "card%u-%15[^-]-", &V.card, pci) != 2)
			continue;
		if (strlen(V.fabric) + 1 + strlen(e->d_name) >= sizeof(V.sock))
			continue;
		strcpy(V.pci, pci);
		strcpy(V.sock, V.fabric);
		strcat(V.sock, "/");
		strcat(V.sock, e->d_name);
		ok = true;
	}
	closedir(d);
	return ok;
}

static int group_setup(void **state)
{
	char path[512];
	const char *peer = getenv("SOFTDOCA_PEER_BUILD_DIR");
	double end;

	memset(&V, 0, sizeof(V));
	V.pid = -1;
	if (!fp_peer_path("tests/hostile/hostile_victim", path, sizeof(path))) {
		fprintf(stderr, "no dpu-flavor peer build (SOFTDOCA_PEER_BUILD_DIR): skipped\n");
		return 0;
	}
	V.fabric = fp_fabric_make();
	strcpy(V.logdir, "/tmp/sd-hostile-XXXXXX");
	if (V.fabric == NULL || mkdtemp(V.logdir) == NULL)
		return -1;
	snprintf(V.out_path, sizeof(V.out_path), "%s/out", V.logdir);
	snprintf(V.err_path, sizeof(V.err_path), "%s/err", V.logdir);
	V.pid = fork();
	if (V.pid == 0) {
		char lib[512];
		int o = open(V.out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(V.err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		dup2(o, 1);
		dup2(e, 2);
		/* meson points LD_LIBRARY_PATH at our flavor's libraries */
		snprintf(lib, sizeof(lib), "%s/src", peer);
		setenv("LD_LIBRARY_PATH", lib, 1);
		execl(path, path, VICTIM_NAME, (char *)NULL);
		_exit(127);
	}
	if (V.pid < 0)
		return -1;
	end = fp_now() + 15;
	while (!out_has("READY") || !find_socket()) {
		if (fp_now() > end || waitpid(V.pid, NULL, WNOHANG) != 0) {
			dump_victim();
			return -1;
		}
		usleep(10000);
	}
	/* the good client */
	V.dev = fp_open_dev(FP_HOST_PCI);
	if (V.dev == NULL || doca_pe_create(&V.pe) != DOCA_SUCCESS ||
	    doca_comch_client_create(V.dev, VICTIM_NAME, &V.client) != DOCA_SUCCESS ||
	    doca_comch_client_task_send_set_conf(V.client, good_sent, good_sent, 64) != DOCA_SUCCESS ||
	    doca_comch_client_event_msg_recv_register(V.client, good_recv) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(V.pe, doca_comch_client_as_ctx(V.client)) != DOCA_SUCCESS)
		return -1;
	doca_ctx_start(doca_comch_client_as_ctx(V.client));
	end = fp_now() + 5;
	for (;;) {
		enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

		doca_ctx_get_state(doca_comch_client_as_ctx(V.client), &st);
		if (st == DOCA_CTX_STATE_RUNNING)
			break;
		if (fp_now() > end)
			return -1;
		progress_for(2);
	}
	if (doca_comch_client_get_connection(V.client, &V.conn) != DOCA_SUCCESS)
		return -1;
	return 0;
}

static int group_teardown(void **state)
{
	int rc = 0, status = -1;
	char *err;

	if (V.fabric == NULL)
		return 0; /* skipped */
	if (V.client != NULL) {
		enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;
		double end = fp_now() + 3;

		mark();
		if (V.pid > 0 && good_send("quit"))
			wait_out("DONE", 5000);
		doca_ctx_get_state(doca_comch_client_as_ctx(V.client), &st);
		if (st != DOCA_CTX_STATE_IDLE)
			doca_ctx_stop(doca_comch_client_as_ctx(V.client));
		do {
			doca_pe_progress(V.pe);
			doca_ctx_get_state(doca_comch_client_as_ctx(V.client), &st);
		} while (st != DOCA_CTX_STATE_IDLE && fp_now() < end);
		doca_comch_client_destroy(V.client);
	}
	if (V.pe != NULL)
		doca_pe_destroy(V.pe);
	if (V.dev != NULL)
		doca_dev_close(V.dev);
	/* a victim that already died was reported by its case */
	status = V.pid > 0 ? fp_reap(V.pid, 10) : 0;
	V.out_mark = V.err_mark = 0;
	err = slurp(V.err_path, 0);
	if (V.pid > 0 && (status != 0 || strstr(err, "Sanitizer") != NULL || strstr(err, "runtime error") != NULL)) {
		fprintf(stderr, "victim exit status %d\n", status);
		dump_victim();
		rc = -1;
	}
	free(err);
	unlink(V.out_path);
	unlink(V.err_path);
	rmdir(V.logdir);
	fp_fabric_remove(V.fabric);
	return rc;
}

#define NEED_VICTIM()                 \
	do {                          \
		if (V.pid <= 0)       \
			skip();       \
		mark();               \
	} while (0)

/* ---- control-frame cases ------------------------------------------------------- */

static void t_truncated_header(void **state)
{
	struct raw r;
	uint8_t junk[10] = {0x53, 0x44, 0x46, 0x42, 1, 0};

	NEED_VICTIM();
	raw_connect(&r);
	assert_int_equal(raw_send_bytes(&r, junk, sizeof(junk), -1), 0);
	expect_drop(&r, "truncated header");
}

static void t_length_beyond_frame(void **state)
{
	struct raw r;
	struct sd_frame_hello h;
	struct fr f = {SD_FRAME_MAGIC, SD_FRAME_VERSION, SD_FRAME_HELLO, 0, sizeof(h), 0};

	NEED_VICTIM();
	raw_connect(&r);
	hello_body(&h);
	/* the header announces a full HELLO; 20 bytes of it travel */
	assert_int_equal(raw_send_forged(&r, &f, &h, 20, -1), 0);
	expect_drop(&r, "truncated body");
}

static void t_length_beyond_frame_after_handshake(void **state)
{
	const struct fr f = {SD_FRAME_MAGIC, SD_FRAME_VERSION, SD_FRAME_MSG, 0, 4000, 0};

	NEED_VICTIM();
	drop_after_handshake(&f, 0, "short", 5, -1, "truncated body");
	assert_true(wait_out("DISCONNECT", 2000));
}

static void t_trailing_bytes(void **state)
{
	struct raw r;
	uint8_t body[64] = {0};
	struct fr f = {SD_FRAME_MAGIC, SD_FRAME_VERSION, SD_FRAME_BYE, 0, 0, 0};

	NEED_VICTIM();
	raw_connect(&r);
	assert_int_equal(raw_send_forged(&r, &f, body, sizeof(body), -1), 0);
	expect_drop(&r, "trailing bytes after body");
}

static void t_oversized_record(void **state)
{
	struct raw r;
	size_t n = SD_FRAME_BUF_SIZE + 4096;
	uint8_t *body;
	struct fr f = {SD_FRAME_MAGIC, SD_FRAME_VERSION, SD_FRAME_MSG, 0, (uint32_t)n, 0};
	int rc;

	NEED_VICTIM();
	raw_handshake(&r);
	f.seq = r.seq;
	/* a record larger than any valid frame: the receiver's buffer is
	 * SD_FRAME_BUF_SIZE, the kernel truncates, the victim must notice.
	 * Freed before any assertion can jump out of the case. */
	body = calloc(1, n);
	assert_non_null(body);
	rc = raw_send_forged(&r, &f, body, n, -1);
	free(body);
	assert_int_equal(rc, 0);
	expect_drop(&r, "frame larger than any valid frame");
}

static void t_oversized_length_field(void **state)
{
	const struct fr f = {SD_FRAME_MAGIC, SD_FRAME_VERSION, SD_FRAME_MSG, 0, 0xffffffffu, 0};

	NEED_VICTIM();
	drop_after_handshake(&f, 0, "x", 1, -1, "oversized frame");
}

static void t_wrong_magic(void **state)
{
	struct raw r;
	struct sd_frame_hello h;
	struct fr f = {0x41414141u, SD_FRAME_VERSION, SD_FRAME_HELLO, 0, sizeof(h), 0};

	NEED_VICTIM();
	raw_connect(&r);
	hello_body(&h);
	assert_int_equal(raw_send_forged(&r, &f, &h, sizeof(h), -1), 0);
	expect_drop(&r, "bad magic");
}

static void t_wrong_version(void **state)
{
	struct raw r;
	struct sd_frame_hello h;
	struct fr f = {SD_FRAME_MAGIC, SD_FRAME_VERSION + 1, SD_FRAME_HELLO, 0, sizeof(h), 0};

	NEED_VICTIM();
	raw_connect(&r);
	hello_body(&h);
	assert_int_equal(raw_send_forged(&r, &f, &h, sizeof(h), -1), 0);
	expect_drop(&r, "unsupported frame version");
}

static void t_wrong_version_after_handshake(void **state)
{
	const struct fr f = {SD_FRAME_MAGIC, 0, SD_FRAME_MSG, 0, 4, 0};

	NEED_VICTIM();
	drop_after_handshake(&f, 0, "ping", 4, -1, "unsupported frame version");
	assert_true(wait_out("DISCONNECT", 2000));
}

static void t_unknown_type(void **state)
{
	const struct fr f = {SD_FRAME_MAGIC, SD_FRAME_VERSION, 77, 0, 4, 0};

	NEED_VICTIM();
	drop_after_handshake(&f, 0, "ping", 4, -1, "unknown frame type");
}

static void t_type_above_fast_path_range(void **state)
{
	const struct fr f = {SD_FRAME_MAGIC, SD_FRAME_VERSION, 0x200, 0, 0, 0};

	NEED_VICTIM();
	drop_after_handshake(&f, 0, NULL, 0, -1, "unknown frame type");
}

static void t_unknown_flags(void **state)
{
	const struct fr f = {SD_FRAME_MAGIC, SD_FRAME_VERSION, SD_FRAME_MSG, 0x80, 4, 0};

	NEED_VICTIM();
	drop_after_handshake(&f, 0, "ping", 4, -1, "unknown frame flags");
}

static void t_wrong_body_size_for_type(void **state)
{
	struct raw r;
	uint8_t body[sizeof(struct sd_frame_hello) - 1] = {0};

	NEED_VICTIM();
	raw_connect(&r);
	assert_int_equal(raw_send(&r, SD_FRAME_HELLO, body, sizeof(body), -1), 0);
	expect_drop(&r, "body size does not match the frame type");
}

static void t_empty_message(void **state)
{
	struct raw r;

	NEED_VICTIM();
	raw_handshake(&r);
	assert_int_equal(raw_send(&r, SD_FRAME_MSG, NULL, 0, -1), 0);
	expect_drop(&r, "body size does not match the frame type");
}

static void t_out_of_sequence(void **state)
{
	const struct fr f = {SD_FRAME_MAGIC, SD_FRAME_VERSION, SD_FRAME_MSG, 0, 4, 0};

	NEED_VICTIM();
	drop_after_handshake(&f, 5, "ping", 4, -1, "frame out of sequence");
}

static void t_fd_without_flag(void **state)
{
	const struct fr f = {SD_FRAME_MAGIC, SD_FRAME_VERSION, SD_FRAME_MSG, 0, 4, 0};
	int p[2];

	NEED_VICTIM();
	assert_int_equal(pipe(p), 0);
	drop_after_handshake(&f, 0, "ping", 4, p[0], "file descriptor does not match the frame flags");
	close(p[0]);
	close(p[1]);
}

static void t_flag_without_fd(void **state)
{
	const struct fr f = {SD_FRAME_MAGIC, SD_FRAME_VERSION, SD_FRAME_MSG, SD_FRAME_F_FD, 4, 0};

	NEED_VICTIM();
	drop_after_handshake(&f, 0, "ping", 4, -1, "file descriptor does not match the frame flags");
}

static void t_message_before_handshake(void **state)
{
	struct raw r;

	NEED_VICTIM();
	raw_connect(&r);
	assert_int_equal(raw_send(&r, SD_FRAME_MSG, "ping", 4, -1), 0);
	expect_drop(&r, "message before the handshake");
}

static void t_hello_unterminated(void **state)
{
	struct raw r;
	struct sd_frame_hello h;

	NEED_VICTIM();
	raw_connect(&r);
	hello_body(&h);
	memset(h.name, 'A', sizeof(h.name));
	assert_int_equal(raw_send(&r, SD_FRAME_HELLO, &h, sizeof(h), -1), 0);
	expect_drop(&r, "malformed HELLO");
}

static void t_hello_twice(void **state)
{
	struct raw r;
	struct sd_frame_hello h;

	NEED_VICTIM();
	raw_handshake(&r);
	hello_body(&h);
	assert_int_equal(raw_send(&r, SD_FRAME_HELLO, &h, sizeof(h), -1), 0);
	expect_drop(&r, "unexpected HELLO frame");
	assert_true(wait_out("DISCONNECT", 2000));
}

static void t_server_frame_from_client(void **state)
{
	struct raw r;
	struct sd_frame_accept a = {0};

	NEED_VICTIM();
	raw_connect(&r);
	assert_int_equal(raw_send(&r, SD_FRAME_ACCEPT, &a, sizeof(a), -1), 0);
	expect_drop(&r, "unexpected ACCEPT frame");
}

static void t_hello_wrong_function(void **state)
{
	struct raw r;
	struct sd_frame_hello h;
	struct sd_frame_reject rej;
	uint16_t type;
	uint32_t len;
	int fd;

	NEED_VICTIM();
	raw_connect(&r);
	hello_body(&h);
	h.card = V.card + 7;
	assert_int_equal(raw_send(&r, SD_FRAME_HELLO, &h, sizeof(h), -1), 0);
	assert_int_equal(raw_recv(&r, &type, &rej, &len, &fd, 3000), 1);
	assert_int_equal(type, SD_FRAME_REJECT);
	assert_int_equal(rej.error, DOCA_ERROR_NOT_PERMITTED);
	expect_drop(&r, "refused a client");
}

/* Many bad peers at once: each is dropped, none blocks the others. */
static void t_flood_of_bad_peers(void **state)
{
	struct raw r[16];
	uint8_t junk[3] = {1, 2, 3};

	NEED_VICTIM();
	for (int i = 0; i < 16; i++) {
		raw_connect(&r[i]);
		assert_int_equal(raw_send_bytes(&r[i], junk, sizeof(junk), -1), 0);
	}
	for (int i = 0; i < 16; i++) {
		assert_true(raw_dropped(&r[i], 3000));
		raw_close(&r[i]);
	}
	good_roundtrip();
}

/* A peer that connects and never speaks is dropped after the handshake
 * timeout (5 s). */
static void t_silent_peer(void **state)
{
	struct raw r;

	NEED_VICTIM();
	raw_connect(&r);
	assert_true(raw_dropped(&r, 8000));
	assert_true(wait_err("never completed the handshake", 2000));
	raw_close(&r);
	good_roundtrip();
}

/* ---- fast path ------------------------------------------------------------------ */

/* Handshake, ask the victim for its producer and consumer, collect the
 * announcement of its consumer (memfd in *cons_fd). */
static void fp_handshake(struct raw *r, int *cons_fd, uint32_t *cons_id, uint64_t *cons_size)
{
	double end = fp_now() + 5;

	raw_handshake(r);
	assert_int_equal(raw_send(r, SD_FRAME_MSG, "fp", 2, -1), 0);
	assert_true(wait_out("FP_UP", 3000));
	*cons_fd = -1;
	while (fp_now() < end) {
		uint8_t body[SD_FRAME_FP_MAX_BODY];
		uint16_t type;
		uint32_t len;
		int fd, rc = raw_recv(r, &type, body, &len, &fd, 100);

		assert_int_not_equal(rc, 0);
		if (rc < 0)
			continue;
		if (type == SD_FP_CONSUMER_NEW && fd >= 0 && len == sizeof(struct sd_fp_new_body) && *cons_fd < 0) {
			struct sd_fp_new_body b;

			memcpy(&b, body, sizeof(b));
			*cons_fd = fd;
			*cons_id = b.consumer_id;
			*cons_size = b.region_size;
			return;
		}
		if (fd >= 0)
			close(fd);
	}
	fail_msg("the victim never announced its consumer");
}

static void fp_announce(struct raw *r, uint32_t version, uint32_t id, uint64_t size, int fd)
{
	struct sd_fp_new_body b = {.version = version, .consumer_id = id, .region_size = size};

	assert_int_equal(raw_send(r, SD_FP_CONSUMER_NEW, &b, sizeof(b), fd), 0);
}

/* A region laid out as a consumer would (qcap 1, smallest ring), its memfd
 * sealed as a consumer's is unless `seal` is false. */
static int fp_region_sealed(uint32_t id, void **base, size_t *size, bool seal)
{
	struct sd_fp_shm_hdr *h;
	int fd = memfd_create("hostile-region", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	/* header, caps (one line), dsts (one line), ring */
	*size = sizeof(struct sd_fp_shm_hdr) + 2 * SD_FP_CACHELINE + SD_FP_MIN_RING;
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)*size), 0);
	if (seal)
		assert_int_equal(fcntl(fd, F_ADD_SEALS, SD_FP_SEALS), 0);
	*base = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(*base != MAP_FAILED);
	h = *base;
	h->magic = SD_FP_MAGIC;
	h->version = SD_FP_VERSION;
	h->hdr_size = sizeof(*h);
	h->owner_pid = (uint32_t)getpid();
	h->consumer_id = id;
	h->region_size = *size;
	h->caps_off = sizeof(*h);
	h->ring_off = sizeof(*h) + 2 * SD_FP_CACHELINE;
	*(uint64_t *)((uint8_t *)*base + sizeof(*h) + SD_FP_CACHELINE) = SD_FP_NO_DST;
	h->ring_size = SD_FP_MIN_RING;
	h->qcap = 1;
	h->max_msg = 1024;
	h->imm_len = 0;
	return fd;
}

static int fp_region(uint32_t id, void **base, size_t *size)
{
	return fp_region_sealed(id, base, size, true);
}

/* After a refused fast-path announcement: logged, not mapped, victim fine. */
static void fp_refused(struct raw *r, const char *why)
{
	bool logged = wait_err(why, 3000);

	if (!logged)
		dump_victim();
	assert_true(logged);
	assert_false(out_has("NEWCONS"));
	assert_int_equal(waitpid(V.pid, NULL, WNOHANG), 0);
	good_roundtrip();
}

static void fp_finish(struct raw *r, int cons_fd)
{
	if (cons_fd >= 0)
		close(cons_fd);
	raw_close(r);
	assert_true(wait_out("DISCONNECT", 3000));
	good_roundtrip();
}

/* One credit of `bytes` posted in a consumer region. */
static void fp_grant(void *base, uint32_t bytes)
{
	struct sd_fp_shm_hdr *h = base;

	((uint32_t *)((uint8_t *)base + h->caps_off))[0] = bytes;
	__atomic_store_n(&h->posted, 1, __ATOMIC_RELEASE);
}

/* A memfd of `real` bytes announced as a region of `claimed` bytes:
 * refused with `why`. */
static void fp_refuse_memfd(const char *name, off_t real, uint32_t id, uint64_t claimed, const char *why)
{
	struct raw r;
	uint64_t csize;
	uint32_t cid;
	int cfd, m = memfd_create(name, MFD_CLOEXEC);

	assert_int_equal(ftruncate(m, real), 0);
	fp_handshake(&r, &cfd, &cid, &csize);
	fp_announce(&r, SD_FP_VERSION, id, claimed, m);
	close(m);
	fp_refused(&r, why);
	fp_finish(&r, cfd);
}

/* A valid region for consumer `id` with one credit of `credit` bytes,
 * announced over a fresh connection: the cases where the victim's producer
 * writes. `forge` (may be NULL) edits the header before the announcement. */
struct fp_case {
	struct raw r;
	int cfd;
	void *base;
	size_t size;
	struct sd_fp_shm_hdr *h;
};

static void fp_case_start(struct fp_case *c, uint32_t id, uint32_t credit, void (*forge)(struct sd_fp_shm_hdr *h))
{
	uint64_t csize;
	uint32_t cid;
	int m = fp_region(id, &c->base, &c->size);

	c->h = c->base;
	fp_grant(c->base, credit);
	if (forge != NULL)
		forge(c->h);
	fp_handshake(&c->r, &c->cfd, &cid, &csize);
	fp_announce(&c->r, SD_FP_VERSION, id, c->size, m);
	close(m);
}

static void fp_case_finish(struct fp_case *c)
{
	munmap(c->base, c->size);
	fp_finish(&c->r, c->cfd);
}

static void t_fp_announce_without_fd(void **state)
{
	struct raw r;
	uint64_t csize;
	uint32_t cid;
	int cfd;

	NEED_VICTIM();
	fp_handshake(&r, &cfd, &cid, &csize);
	fp_announce(&r, SD_FP_VERSION, 5, 4096, -1);
	fp_refused(&r, "malformed consumer announcement");
	fp_finish(&r, cfd);
}

static void t_fp_announce_short_body(void **state)
{
	struct raw r;
	uint64_t csize;
	uint32_t cid;
	int cfd, m = memfd_create("x", MFD_CLOEXEC);

	NEED_VICTIM();
	fp_handshake(&r, &cfd, &cid, &csize);
	assert_int_equal(raw_send(&r, SD_FP_CONSUMER_NEW, "abc", 3, m), 0);
	close(m);
	fp_refused(&r, "malformed consumer announcement");
	fp_finish(&r, cfd);
}

static void t_fp_announce_pipe(void **state)
{
	struct raw r;
	uint64_t csize;
	uint32_t cid;
	int cfd, p[2];

	NEED_VICTIM();
	assert_int_equal(pipe(p), 0);
	fp_handshake(&r, &cfd, &cid, &csize);
	fp_announce(&r, SD_FP_VERSION, 5, 1 << 20, p[0]);
	close(p[0]);
	close(p[1]);
	fp_refused(&r, "consumer 5 region of bad size");
	fp_finish(&r, cfd);
}

static void t_fp_announce_tiny_memfd(void **state)
{
	NEED_VICTIM();
	fp_refuse_memfd("tiny", 100, 6, 100, "consumer 6 region of bad size");
}

static void t_fp_announce_size_lie(void **state)
{
	NEED_VICTIM();
	/* claims 64 MiB, the memfd holds 4 KiB: mapping it would fault */
	fp_refuse_memfd("small", 4096, 7, 64ull << 20, "consumer 7 region of bad size");
}

static void t_fp_announce_wrong_version(void **state)
{
	struct raw r;
	uint64_t csize;
	uint32_t cid;
	int cfd, m;
	void *base;
	size_t size;

	NEED_VICTIM();
	m = fp_region(8, &base, &size);
	fp_handshake(&r, &cfd, &cid, &csize);
	fp_announce(&r, SD_FP_VERSION + 9, 8, size, m);
	fp_refused(&r, "consumer announcement of version");
	close(m);
	munmap(base, size);
	fp_finish(&r, cfd);
}

/* Regions whose header lies: each must be refused at map time. */
static void t_fp_forged_region_headers(void **state)
{
	struct raw r;
	uint64_t csize;
	uint32_t cid;
	int cfd;

	NEED_VICTIM();
	fp_handshake(&r, &cfd, &cid, &csize);
	for (int k = 0; k < 9; k++) {
		void *base;
		size_t size;
		uint32_t id = 100 + (uint32_t)k;
		int m = fp_region(id, &base, &size);
		struct sd_fp_shm_hdr *h = base;
		char why[64];

		switch (k) {
		case 0: h->magic = 0; break;
		case 1: h->version = 7; break;
		case 2: h->ring_size = 1ull << 40; break;           /* past the region */
		case 3: h->ring_off = size - 64; break;             /* ring at the very end */
		case 4: h->caps_off = size; break;                  /* caps outside */
		case 5: h->qcap = 3; break;                         /* not a power of two */
		case 6: h->max_msg = 0x7fffffff; break;             /* messages larger than the ring */
		case 7: h->region_size = size * 2; break;           /* disagrees with the memfd */
		case 8: h->consumer_id = id + 1; break;             /* not the announced consumer */
		}
		mark();
		fp_announce(&r, SD_FP_VERSION, id, size, m);
		snprintf(why, sizeof(why), "consumer %u region refused", id);
		fp_refused(&r, why);
		close(m);
		munmap(base, size);
	}
	fp_finish(&r, cfd);
}

/* A valid region whose counters the hostile peer then forges: the
 * victim's producer must notice and refuse to write, not write past the
 * ring. */
static void forge_head_past_tail(struct sd_fp_shm_hdr *h)
{
	/* a credit, but the consumer claims to have consumed bytes never
	 * written (head past tail) */
	h->head = 1ull << 20;
}

static void t_fp_forged_counters(void **state)
{
	struct fp_case c;

	NEED_VICTIM();
	fp_case_start(&c, 200, 256, forge_head_past_tail);
	assert_true(wait_out("NEWCONS 200", 3000));
	assert_true(wait_out("FPERR 200 DOCA_ERROR_UNEXPECTED", 3000));
	assert_true(wait_err("shared ring is corrupt", 2000));
	good_roundtrip();
	fp_case_finish(&c);
}

static void t_fp_small_credit(void **state)
{
	struct fp_case c;

	NEED_VICTIM();
	/* one credit, of 8 bytes: the victim's 64-byte message does not fit */
	fp_case_start(&c, 201, 8, NULL);
	assert_true(wait_out("FPERR 201 DOCA_ERROR_INVALID_VALUE", 3000));
	fp_case_finish(&c);
}

/* The honest path works between the two, so the refusals above mean
 * something: a valid region gets the victim's message, in bounds. */
static void t_fp_valid_region(void **state)
{
	struct fp_case c;
	struct sd_fp_rec *rec;
	double end;

	NEED_VICTIM();
	fp_case_start(&c, 202, 256, NULL);
	assert_true(wait_out("FPSENT 202", 3000));
	end = fp_now() + 2;
	while (__atomic_load_n(&c.h->tail, __ATOMIC_ACQUIRE) == 0 && fp_now() < end)
		usleep(1000);
	assert_int_equal(c.h->tail, sd_fp_rec_size(64, 0));
	rec = (struct sd_fp_rec *)((uint8_t *)c.base + c.h->ring_off);
	assert_int_equal(rec->len, 64);
	assert_int_equal(((uint8_t *)(rec + 1))[63], 'v');
	fp_case_finish(&c);
}

/* Frames about consumers that do not exist, and stray fds: ignored. */
static void t_fp_unknown_ids_and_kinds(void **state)
{
	struct raw r;
	uint64_t csize;
	uint32_t cid;
	int cfd, p[2];
	struct sd_fp_gone_body g = {.consumer_id = 0xdeadbeef};

	NEED_VICTIM();
	assert_int_equal(pipe(p), 0);
	fp_handshake(&r, &cfd, &cid, &csize);
	assert_int_equal(raw_send(&r, SD_FP_CONSUMER_GONE, &g, sizeof(g), -1), 0);
	assert_int_equal(raw_send(&r, SD_FP_CONSUMER_GONE, "x", 1, -1), 0);
	assert_int_equal(raw_send(&r, SD_FP_CONSUMER_EVFD, &g, sizeof(g), p[0]), 0);
	assert_int_equal(raw_send(&r, SD_FP_CONSUMER_EVFD, &g, sizeof(g), -1), 0);
	assert_int_equal(raw_send(&r, 0x1ff, "zz", 2, p[1]), 0);
	close(p[0]);
	close(p[1]);
	assert_true(wait_err("unknown frame kind 0x1ff", 3000));
	assert_false(out_has("EXPIRED"));
	good_roundtrip();
	fp_finish(&r, cfd);
}

/* The victim's own consumer: the hostile peer maps its region, forges the
 * header (sizes, offsets) and publishes a record; the consumer must use
 * only its own copies, deliver the honest record, then stop on garbage. */
static void t_fp_forge_victim_consumer(void **state)
{
	struct raw r;
	uint64_t csize;
	uint32_t cid;
	int cfd;
	uint8_t *base;
	struct sd_fp_shm_hdr *h;
	struct sd_fp_rec *rec;
	uint64_t ring_off, ring_size, caps_off;
	double end;

	NEED_VICTIM();
	fp_handshake(&r, &cfd, &cid, &csize);
	base = mmap(NULL, csize, PROT_READ | PROT_WRITE, MAP_SHARED, cfd, 0);
	assert_true(base != MAP_FAILED);
	h = (struct sd_fp_shm_hdr *)base;
	ring_off = h->ring_off;
	ring_size = h->ring_size;
	caps_off = h->caps_off;
	end = fp_now() + 3;
	while (__atomic_load_n(&h->posted, __ATOMIC_ACQUIRE) == 0 && fp_now() < end)
		progress_for(2);
	assert_true(h->posted > 0);
	/* the static line, rewritten to point everywhere else */
	h->ring_off = 1ull << 40;
	h->ring_size = 1ull << 41;
	h->caps_off = csize + 4096;
	h->qcap = 1u << 30;
	h->max_msg = 0xffffffffu;
	h->imm_len = 0xffffffffu;
	h->hdr_size = 0;
	/* an honest record where the real ring is */
	rec = (struct sd_fp_rec *)(base + ring_off);
	rec->len = 64;
	rec->imm_len = 0;
	rec->producer_id = 1;
	rec->flags = 0;
	memset(rec + 1, 'h', 64);
	__atomic_store_n(&h->tail, sd_fp_rec_size(64, 0), __ATOMIC_RELEASE);
	assert_true(wait_out("FPRECV 64", 3000));
	assert_false(out_has("CONS_FAILED"));
	/* now garbage: a record claiming more than the ring */
	rec = (struct sd_fp_rec *)(base + ring_off + sd_fp_rec_size(64, 0));
	rec->len = (uint32_t)ring_size * 2;
	rec->flags = 0;
	__atomic_store_n(&h->tail, 2 * sd_fp_rec_size(64, 0), __ATOMIC_RELEASE);
	assert_true(wait_out("CONS_FAILED", 3000));
	assert_true(wait_err("invalid message into the shared ring", 2000));
	(void)caps_off;
	munmap(base, csize);
	good_roundtrip();
	fp_finish(&r, cfd);
}

/* The victim's consumer posted its buffers without a destination (its
 * receive memory has no whole page to share): a DIRECT record, which says
 * the bytes are already in the buffer, is garbage there. */
static void t_fp_direct_record_for_private_buffer(void **state)
{
	struct raw r;
	uint64_t csize, dsts_off;
	uint32_t cid;
	int cfd;
	uint8_t *base;
	struct sd_fp_shm_hdr *h;
	struct sd_fp_rec *rec;
	double end;

	NEED_VICTIM();
	fp_handshake(&r, &cfd, &cid, &csize);
	base = mmap(NULL, csize, PROT_READ | PROT_WRITE, MAP_SHARED, cfd, 0);
	assert_true(base != MAP_FAILED);
	h = (struct sd_fp_shm_hdr *)base;
	end = fp_now() + 3;
	while (__atomic_load_n(&h->posted, __ATOMIC_ACQUIRE) == 0 && fp_now() < end)
		progress_for(2);
	assert_true(h->posted > 0);
	dsts_off = h->caps_off + ((h->qcap * sizeof(uint32_t) + SD_FP_CACHELINE - 1) & ~(uint64_t)(SD_FP_CACHELINE - 1));
	if (*(uint64_t *)(base + dsts_off) != SD_FP_NO_DST) {
		/* its one page happened to be page aligned and was shared */
		munmap(base, csize);
		fp_finish(&r, cfd);
		skip();
	}
	rec = (struct sd_fp_rec *)(base + h->ring_off);
	rec->len = 200;
	rec->imm_len = 0;
	rec->producer_id = 1;
	rec->flags = SD_FP_REC_DIRECT;
	__atomic_store_n(&h->tail, sd_fp_rec_size(0, 0), __ATOMIC_RELEASE);
	assert_true(wait_out("CONS_FAILED", 3000));
	assert_true(wait_err("invalid message into the shared ring", 2000));
	assert_false(out_has("FPRECV 200"));
	munmap(base, csize);
	good_roundtrip();
	fp_finish(&r, cfd);
}

/* Receive memory offers the victim's producer must refuse: no fd, a pipe,
 * an unsealed memfd, a range outside the memfd or not page aligned, an
 * oversized one. Each is logged; the consumer stays on the ring. */
static void t_fp_bufmem_refused(void **state)
{
	struct fp_case c;
	struct sd_fp_bufmem_body b = {.consumer_id = 203, .off = 0, .len = 4096};
	int p[2], m, sealed;

	NEED_VICTIM();
	fp_case_start(&c, 203, 256, NULL);
	assert_true(wait_out("FPSENT 203", 3000));
	assert_int_equal(pipe(p), 0);
	m = memfd_create("hostile-bufmem", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	sealed = memfd_create("hostile-bufmem-sealed", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	assert_true(m >= 0 && sealed >= 0);
	assert_int_equal(ftruncate(m, 8192), 0);
	assert_int_equal(ftruncate(sealed, 8192), 0);
	assert_int_equal(fcntl(sealed, F_ADD_SEALS, SD_FP_SEALS), 0);

	mark();
	assert_int_equal(raw_send(&c.r, SD_FP_CONSUMER_BUFMEM, &b, sizeof(b), -1), 0);
	assert_true(wait_err("malformed receive memory offer", 3000));
	mark();
	assert_int_equal(raw_send(&c.r, SD_FP_CONSUMER_BUFMEM, &b, sizeof(b) - 1, sealed), 0);
	assert_true(wait_err("malformed receive memory offer", 3000));
	mark();
	assert_int_equal(raw_send(&c.r, SD_FP_CONSUMER_BUFMEM, &b, sizeof(b), p[0]), 0);
	assert_true(wait_err("consumer 203 receive memory refused", 3000));
	mark();
	assert_int_equal(raw_send(&c.r, SD_FP_CONSUMER_BUFMEM, &b, sizeof(b), m), 0);
	assert_true(wait_err("consumer 203 receive memory refused", 3000));
	b.off = 4096;
	b.len = 8192;
	mark();
	assert_int_equal(raw_send(&c.r, SD_FP_CONSUMER_BUFMEM, &b, sizeof(b), sealed), 0);
	assert_true(wait_err("consumer 203 receive memory refused", 3000));
	b.off = 100;
	b.len = 4096;
	mark();
	assert_int_equal(raw_send(&c.r, SD_FP_CONSUMER_BUFMEM, &b, sizeof(b), sealed), 0);
	assert_true(wait_err("consumer 203 receive memory refused", 3000));
	b.off = 0;
	b.len = UINT64_MAX & ~4095ull;
	mark();
	assert_int_equal(raw_send(&c.r, SD_FP_CONSUMER_BUFMEM, &b, sizeof(b), sealed), 0);
	assert_true(wait_err("consumer 203 receive memory refused", 3000));
	/* well formed, for a consumer that does not exist: ignored */
	b.consumer_id = 0xdeadbeef;
	b.len = 4096;
	assert_int_equal(raw_send(&c.r, SD_FP_CONSUMER_BUFMEM, &b, sizeof(b), sealed), 0);
	close(p[0]);
	close(p[1]);
	close(m);
	close(sealed);
	assert_int_equal(waitpid(V.pid, NULL, WNOHANG), 0);
	good_roundtrip();
	fp_case_finish(&c);
}

/* ---- peers breaking the message contract ------------------------------------ */

/* A client that sends but never reads: the server's echoes to it back up.
 * Its sends must not hold up the other clients'. */
static void t_peer_stops_reading(void **state)
{
	struct raw r;
	uint8_t msg[1000];
	char ping[32];
	double end;

	NEED_VICTIM();
	memset(msg, 'm', sizeof(msg));
	raw_handshake(&r);
	/* enough to fill the link, fewer than the victim's 256 send tasks */
	for (int i = 0; i < 300; i++)
		assert_int_equal(raw_send(&r, SD_FRAME_MSG, msg, sizeof(msg), -1), 0);
	assert_true(wait_out("MSG 1000", 3000));
	progress_for(500);
	snprintf(ping, sizeof(ping), "ping-%d", ++V.pings);
	assert_true(good_send(ping));
	end = fp_now() + 3;
	while (V.last_echo != (uint32_t)V.pings && fp_now() < end)
		progress_for(2);
	if (V.last_echo != (uint32_t)V.pings) {
		fprintf(stderr, "BUG: the good client's echo is stuck behind the sends to a peer that does not read\n");
		dump_victim();
	}
	raw_close(&r);
	assert_int_equal(V.last_echo, V.pings);
	assert_true(wait_out("DISCONNECT", 3000));
}

/* Server max message size 1024, frame limit 64 KiB: a 2000-byte message
 * must not reach the application; the connection is dropped. */
static void t_message_above_max_msg_size(void **state)
{
	struct raw r;
	uint8_t big[2000];

	NEED_VICTIM();
	memset(big, 'b', sizeof(big));
	raw_handshake(&r);
	assert_int_equal(raw_send(&r, SD_FRAME_MSG, big, sizeof(big), -1), 0);
	progress_for(300);
	if (out_has("MSG 2000"))
		fprintf(stderr, "BUG: the server delivered a 2000-byte message (max message size %u)\n",
			VICTIM_MAX_MSG);
	assert_false(out_has("MSG 2000"));
	expect_drop(&r, "exceeds the max message size");
	assert_true(wait_out("DISCONNECT", 2000));
}

/* ---- once known bugs, fixed in the fast path ------------------------------ */

/* A peer that could shrink its memfd after announcing it would make the
 * victim's producer write into pages that no longer exist (SIGBUS): a
 * region not sealed against resizing is refused, and a sealed one cannot
 * shrink. */
static void t_fp_shrunk_region(void **state)
{
	struct raw r;
	uint64_t csize;
	uint32_t cid;
	int cfd, m;
	void *base;
	size_t size;
	struct sd_fp_shm_hdr *h;
	int st = 0;

	NEED_VICTIM();
	m = fp_region_sealed(300, &base, &size, false);
	h = base;
	/* the producer resumes at tail: 32 KiB into the ring, far past the
	 * first page, which is all that would remain */
	h->tail = h->head = 32768;
	fp_handshake(&r, &cfd, &cid, &csize);
	fp_announce(&r, SD_FP_VERSION, 300, size, m);
	fp_refused(&r, "consumer 300 region refused: not sealed against resizing");
	/* had it been mapped, this would kill the victim */
	assert_int_equal(ftruncate(m, 4096), 0);
	fp_grant(base, 256);
	progress_for(300);
	if (waitpid(V.pid, &st, WNOHANG) != 0) {
		fprintf(stderr, "BUG: the victim died (%s) writing into a shrunk consumer region\n",
			WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "exit");
		dump_victim();
		V.pid = -1;
		fail();
	}
	close(m);
	munmap(base, size);

	/* sealed as a consumer seals it: the memfd cannot shrink */
	m = fp_region(302, &base, &size);
	assert_int_equal(ftruncate(m, 4096), -1);
	assert_int_equal(errno, EPERM);
	close(m);
	munmap(base, size);
	fp_finish(&r, cfd);
}

/* More consumer announcements than a connection may have consumers
 * (max_consumers_per_connection, 64): those beyond are refused. */
static void t_fp_consumer_flood(void **state)
{
	struct raw r;
	uint64_t csize;
	uint32_t cid;
	int cfd, seen = 0;
	char *out;

	NEED_VICTIM();
	fp_handshake(&r, &cfd, &cid, &csize);
	for (uint32_t i = 0; i < 100; i++) {
		void *base;
		size_t size;
		int m = fp_region(400 + i, &base, &size);

		fp_announce(&r, SD_FP_VERSION, 400 + i, size, m);
		close(m);
		munmap(base, size);
	}
	assert_true(wait_err("consumer 499 refused: the peer already has 64 consumers on this connection", 5000));
	progress_for(200);
	out = slurp(V.out_path, V.out_mark);
	for (char *q = out; (q = strstr(q, "NEWCONS 4")) != NULL; q++)
		seen++;
	free(out);
	if (seen > 64)
		fprintf(stderr, "BUG: the victim mapped %d consumers announced on one connection (max 64)\n", seen);
	assert_true(seen <= 64);
	fp_finish(&r, cfd);
}

/* The consumer's "eventfd" is a full blocking pipe: refused, else the
 * victim's producer would block in write() on the wake-up. */
static void t_fp_evfd_is_full_pipe(void **state)
{
	struct raw r;
	uint64_t csize;
	uint32_t cid;
	int cfd, m, p[2];
	void *base;
	size_t size;
	struct sd_fp_shm_hdr *h;
	struct sd_fp_gone_body g = {.consumer_id = 301};
	char junk[4096] = {0};

	NEED_VICTIM();
	assert_int_equal(pipe(p), 0);
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	while (write(p[1], junk, sizeof(junk)) > 0)
		;
	fcntl(p[1], F_SETFL, 0);
	m = fp_region(301, &base, &size);
	h = base;
	h->wake = 1;
	fp_handshake(&r, &cfd, &cid, &csize);
	fp_announce(&r, SD_FP_VERSION, 301, size, m);
	assert_int_equal(raw_send(&r, SD_FP_CONSUMER_EVFD, &g, sizeof(g), p[1]), 0);
	close(m);
	assert_true(wait_out("NEWCONS 301", 3000));
	assert_true(wait_err("consumer 301 wake-up fd refused: not an eventfd", 3000));
	progress_for(100);
	fp_grant(base, 256);
	/* the victim is single-threaded: if it blocks, the good client starves
	 * (a ping already in flight may still be answered: wait first) */
	progress_for(500);
	{
		char msg[32];
		double end = fp_now() + 2;

		snprintf(msg, sizeof(msg), "ping-%d", ++V.pings);
		assert_true(good_send(msg));
		while (V.last_echo != (uint32_t)V.pings && fp_now() < end)
			progress_for(2);
		if (V.last_echo != (uint32_t)V.pings) {
			char wpath[64], wchan[64] = "?";
			FILE *wf;

			snprintf(wpath, sizeof(wpath), "/proc/%d/wchan", (int)V.pid);
			wf = fopen(wpath, "r");
			if (wf != NULL) {
				if (fgets(wchan, sizeof(wchan), wf) == NULL)
					strcpy(wchan, "?");
				fclose(wf);
			}
			fprintf(stderr, "BUG: the victim hangs writing its wake-up into a full pipe (kernel wait: %s)\n",
				wchan);
			/* unblock it (closing the read end would SIGPIPE it) */
			fcntl(p[0], F_SETFL, O_NONBLOCK);
			while (read(p[0], junk, sizeof(junk)) > 0)
				;
			progress_for(200);
			close(p[0]);
			close(p[1]);
			munmap(base, size);
			fail();
		}
	}
	close(p[0]);
	close(p[1]);
	munmap(base, size);
	fp_finish(&r, cfd);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest cases[] = {
		cmocka_unit_test(t_truncated_header),
		cmocka_unit_test(t_length_beyond_frame),
		cmocka_unit_test(t_length_beyond_frame_after_handshake),
		cmocka_unit_test(t_trailing_bytes),
		cmocka_unit_test(t_oversized_record),
		cmocka_unit_test(t_oversized_length_field),
		cmocka_unit_test(t_wrong_magic),
		cmocka_unit_test(t_wrong_version),
		cmocka_unit_test(t_wrong_version_after_handshake),
		cmocka_unit_test(t_unknown_type),
		cmocka_unit_test(t_type_above_fast_path_range),
		cmocka_unit_test(t_unknown_flags),
		cmocka_unit_test(t_wrong_body_size_for_type),
		cmocka_unit_test(t_empty_message),
		cmocka_unit_test(t_out_of_sequence),
		cmocka_unit_test(t_fd_without_flag),
		cmocka_unit_test(t_flag_without_fd),
		cmocka_unit_test(t_message_before_handshake),
		cmocka_unit_test(t_hello_unterminated),
		cmocka_unit_test(t_hello_twice),
		cmocka_unit_test(t_server_frame_from_client),
		cmocka_unit_test(t_hello_wrong_function),
		cmocka_unit_test(t_flood_of_bad_peers),
		cmocka_unit_test(t_silent_peer),
		cmocka_unit_test(t_fp_announce_without_fd),
		cmocka_unit_test(t_fp_announce_short_body),
		cmocka_unit_test(t_fp_announce_pipe),
		cmocka_unit_test(t_fp_announce_tiny_memfd),
		cmocka_unit_test(t_fp_announce_size_lie),
		cmocka_unit_test(t_fp_announce_wrong_version),
		cmocka_unit_test(t_fp_forged_region_headers),
		cmocka_unit_test(t_fp_forged_counters),
		cmocka_unit_test(t_fp_small_credit),
		cmocka_unit_test(t_fp_valid_region),
		cmocka_unit_test(t_fp_unknown_ids_and_kinds),
		cmocka_unit_test(t_fp_forge_victim_consumer),
		cmocka_unit_test(t_fp_direct_record_for_private_buffer),
		cmocka_unit_test(t_fp_bufmem_refused),
		cmocka_unit_test(t_peer_stops_reading),
		cmocka_unit_test(t_message_above_max_msg_size),
		cmocka_unit_test(t_fp_shrunk_region),
		cmocka_unit_test(t_fp_evfd_is_full_pipe),
		cmocka_unit_test(t_fp_consumer_flood),
	};
	/* Cases that show open bugs go here (one victim each: some kill it);
	 * none are open. */
	const struct CMUnitTest *bugs = NULL;
	const size_t nbugs = 0;

	if (argc > 1 && strcmp(argv[1], "known-bugs") == 0) {
		int failed = 0;

		for (size_t i = 0; i < nbugs; i++) {
			const struct CMUnitTest one[] = {bugs[i]};

			if (argc > 2 && strcmp(argv[2], bugs[i].name) != 0)
				continue;
			failed += _cmocka_run_group_tests(bugs[i].name, one, 1, group_setup, group_teardown);
		}
		return failed;
	}
	return cmocka_run_group_tests_name("hostile", cases, group_setup, group_teardown);
}
