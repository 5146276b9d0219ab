/*
 * comch_bench - what the Comch fast path costs between two processes,
 * measured next to an AF_UNIX socketpair in the same run.
 *
 * The host-flavor build is the client: for each message size (64 B, 256 B,
 * 4 KiB, 64 KiB) it starts the dpu-flavor build of itself as the server
 * (--serve NAME BUFS SIZE; found through --peer PATH or
 * $SOFTDOCA_PEER_BUILD_DIR/bench/comch/comch_bench) in a private fabric
 * directory, creates a producer on the connection and streams messages into
 * the server's consumer, which has min(1024, 4 MiB / size) receive buffers
 * posted and reposts each as soon as it completes. A run ends when the server
 * reports (control message) that it received them all. The baseline sends
 * the same messages, one write() each, over a socketpair to a forked reader
 * that reads them one by one.
 *
 * usage (host build): comch_bench [--peer PATH] [--scale F] [--min-size BYTES] [--max-size BYTES]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/socket.h>


#define FP_PEER_MAIN fp_peer_main
#include "fp_peer.c"

struct run {
	uint32_t size;
	uint64_t n_fp, n_sock;
};

static struct run runs[] = {
	{64, 4000000, 400000},
	{256, 4000000, 400000},
	{4096, 1000000, 200000},
	{65536, 100000, 50000},
};

/* ---- baseline ------------------------------------------------------------ */

static int read_full(int fd, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (uint8_t *)p + got, n - got);

		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return -1;
		}
		got += (size_t)r;
	}
	return 0;
}

static double bench_socketpair(uint32_t size, uint64_t n)
{
	int sv[2];
	uint8_t *buf = malloc(size);
	double t0, t1;
	char ack;
	pid_t pid;

	if (buf == NULL || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return -1;
	memset(buf, 0x5a, size);
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		for (uint64_t i = 0; i < n; i++)
			if (read_full(sv[1], buf, size) != 0)
				_exit(1);
		ack = 1;
		if (write(sv[1], &ack, 1) != 1)
			_exit(1);
		_exit(0);
	}
	close(sv[1]);
	t0 = fp_now();
	for (uint64_t i = 0; i < n; i++) {
		size_t off = 0;

		while (off < size) {
			ssize_t w = write(sv[0], buf + off, size - off);

			if (w <= 0) {
				if (w < 0 && errno == EINTR)
					continue;
				goto out;
			}
			off += (size_t)w;
		}
	}
	if (read_full(sv[0], &ack, 1) != 0)
		goto out;
	t1 = fp_now();
	close(sv[0]);
	waitpid(pid, NULL, 0);
	free(buf);
	return (double)n / (t1 - t0);
out:
	close(sv[0]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	free(buf);
	return -1;
}

/* ---- fast path ----------------------------------------------------------- */

struct bench {
	struct doca_dev *dev;
	struct doca_pe *pe_cli, *pe_fp;
	struct doca_comch_client *cli;
	struct doca_comch_connection *conn;
	struct doca_comch_producer *prod;
	struct fp_mem mem;
	uint32_t peer_cons;
	bool done, bye;
	uint64_t completed, failed;
};

static struct bench B;

static void b_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
	if (len == 4 && memcmp(buf, "done", 4) == 0)
		B.done = true;
	else if (len == 3 && memcmp(buf, "bye", 3) == 0)
		B.bye = true;
}

static void b_new_cons(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c, uint32_t id)
{
	B.peer_cons = id;
}

static void b_exp_cons(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c, uint32_t id)
{
}

static void b_ctrl_done(struct doca_comch_task_send *t, union doca_data tu, union doca_data cu)
{
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void b_send_ok(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	B.completed++;
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static void b_send_err(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	B.failed++;
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static enum doca_ctx_states b_state(struct doca_ctx *ctx)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	doca_ctx_get_state(ctx, &st);
	return st;
}

static bool b_wait(bool *flag, double secs)
{
	double end = fp_now() + secs;

	while (!*flag && fp_now() < end) {
		doca_pe_progress(B.pe_fp);
		doca_pe_progress(B.pe_cli);
	}
	return *flag;
}

static void b_ctrl(const char *m)
{
	struct doca_comch_task_send *t;

	if (doca_comch_client_task_send_alloc_init(B.cli, B.conn, m, (uint32_t)strlen(m), &t) == DOCA_SUCCESS &&
	    doca_task_submit(doca_comch_task_send_as_task(t)) != DOCA_SUCCESS)
		doca_task_free(doca_comch_task_send_as_task(t));
}

static int b_setup(const char *name)
{
	double end = fp_now() + 15;

	B.dev = fp_open_dev(FP_HOST_PCI);
	if (B.dev == NULL)
		return -1;
	if (doca_pe_create(&B.pe_cli) != DOCA_SUCCESS || doca_pe_create(&B.pe_fp) != DOCA_SUCCESS ||
	    doca_comch_client_create(B.dev, name, &B.cli) != DOCA_SUCCESS ||
	    doca_comch_client_task_send_set_conf(B.cli, b_ctrl_done, b_ctrl_done, 16) != DOCA_SUCCESS ||
	    doca_comch_client_event_msg_recv_register(B.cli, b_msg) != DOCA_SUCCESS ||
	    doca_comch_client_event_consumer_register(B.cli, b_new_cons, b_exp_cons) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(B.pe_cli, doca_comch_client_as_ctx(B.cli)) != DOCA_SUCCESS)
		return -1;
	doca_ctx_start(doca_comch_client_as_ctx(B.cli));
	while (b_state(doca_comch_client_as_ctx(B.cli)) != DOCA_CTX_STATE_RUNNING && fp_now() < end)
		doca_pe_progress(B.pe_cli);
	if (doca_comch_client_get_connection(B.cli, &B.conn) != DOCA_SUCCESS)
		return -1;
	if (fp_mem_init(&B.mem, B.dev, 65536, 1, DOCA_ACCESS_FLAG_PCI_READ_ONLY) != DOCA_SUCCESS)
		return -1;
	memset(B.mem.addr, 0xa5, 65536);
	if (doca_comch_producer_create(B.conn, &B.prod) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(B.pe_fp, doca_comch_producer_as_ctx(B.prod)) != DOCA_SUCCESS ||
	    doca_comch_producer_task_send_set_conf(B.prod, b_send_ok, b_send_err, 4096) != DOCA_SUCCESS ||
	    doca_ctx_start(doca_comch_producer_as_ctx(B.prod)) != DOCA_SUCCESS)
		return -1;
	while (B.peer_cons == 0 && fp_now() < end) {
		doca_pe_progress(B.pe_cli);
		doca_pe_progress(B.pe_fp);
	}
	return B.peer_cons != 0 ? 0 : -1;
}

static double bench_fastpath(uint32_t size, uint64_t n, uint64_t *total)
{
	struct doca_buf *b = B.mem.bufs[0];
	char m[64];
	double t0, t1;
	uint64_t sent = 0, it = 0;

	*total += n;
	snprintf(m, sizeof(m), "expect %llu", (unsigned long long)*total);
	B.done = false;
	b_ctrl(m);
	doca_buf_set_data(b, B.mem.addr, size);
	t0 = fp_now();
	while (sent < n) {
		struct doca_comch_producer_task_send *t;
		doca_error_t e = doca_comch_producer_task_send_alloc_init(B.prod, b, NULL, 0, B.peer_cons, &t);

		if (e == DOCA_SUCCESS) {
			e = doca_task_submit(doca_comch_producer_task_send_as_task(t));
			if (e == DOCA_SUCCESS)
				sent++;
			else
				doca_task_free(doca_comch_producer_task_send_as_task(t));
		}
		if (e != DOCA_SUCCESS && e != DOCA_ERROR_AGAIN && e != DOCA_ERROR_NO_MEMORY) {
			fprintf(stderr, "comch_bench: send failed: %s\n", doca_error_get_name(e));
			return -1;
		}
		if (e != DOCA_SUCCESS || (++it & 255) == 0) {
			if (!doca_pe_progress(B.pe_fp) && e == DOCA_ERROR_AGAIN)
				sched_yield(); /* the consumer needs the CPU more */
			if ((++it & 4095) == 0)
				doca_pe_progress(B.pe_cli);
		}
	}
	if (!b_wait(&B.done, 30))
		return -1;
	t1 = fp_now();
	return (double)n / (t1 - t0);
}

static void b_teardown(void)
{
	/* The server stops its producer and consumer first (and says so), so
	 * that no fast-path object on either side outlives the connection. */
	if (B.conn != NULL) {
		b_ctrl("quit");
		b_wait(&B.bye, 5);
	}
	if (B.prod != NULL) {
		doca_ctx_stop(doca_comch_producer_as_ctx(B.prod));
		while (b_state(doca_comch_producer_as_ctx(B.prod)) != DOCA_CTX_STATE_IDLE)
			doca_pe_progress(B.pe_fp);
		doca_comch_producer_destroy(B.prod);
	}
	if (B.cli != NULL) {
		double end = fp_now() + 5;

		doca_ctx_stop(doca_comch_client_as_ctx(B.cli));
		while (b_state(doca_comch_client_as_ctx(B.cli)) != DOCA_CTX_STATE_IDLE && fp_now() < end)
			doca_pe_progress(B.pe_cli);
		doca_comch_client_destroy(B.cli);
	}
	if (B.pe_fp)
		doca_pe_destroy(B.pe_fp);
	if (B.pe_cli)
		doca_pe_destroy(B.pe_cli);
	fp_mem_fini(&B.mem);
	if (B.dev)
		doca_dev_close(B.dev);
}

int main(int argc, char **argv)
{
	char peer[512] = "", name[64];
	double scale = 1.0;
	uint32_t min_size = 0, max_size = UINT32_MAX;
	uint64_t total = 0;
	char *fabric;
	pid_t pid;
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--serve") == 0 && i + 3 < argc) {
			char *pargv[] = {"comch_bench", argv[i + 1], "sink", "--bufs", argv[i + 2], "--size", argv[i + 3],
					 NULL};

			return fp_peer_main(7, pargv);
		} else if (strcmp(argv[i], "--peer") == 0 && i + 1 < argc) {
			snprintf(peer, sizeof(peer), "%s", argv[++i]);
		} else if (strcmp(argv[i], "--min-size") == 0 && i + 1 < argc) {
			min_size = (uint32_t)atoi(argv[++i]);
		} else if (strcmp(argv[i], "--max-size") == 0 && i + 1 < argc) {
			max_size = (uint32_t)atoi(argv[++i]);
		} else if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc) {
			scale = atof(argv[++i]);
		} else {
			fprintf(stderr, "usage: comch_bench [--peer PATH] [--scale F] [--min-size BYTES] [--max-size BYTES]\n");
			return 2;
		}
	}
#ifdef DOCA_ARCH_DPU
	fprintf(stderr, "comch_bench: this is the Arm-side (dpu) build; run the host build, it starts this one\n");
	return 2;
#endif
	if (peer[0] == '\0' && !fp_peer_path("bench/comch/comch_bench", peer, sizeof(peer))) {
		fprintf(stderr, "comch_bench: no dpu-flavor peer (use --peer PATH or SOFTDOCA_PEER_BUILD_DIR)\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	printf("comch_bench: Comch producer -> consumer (two processes, shared memory) vs AF_UNIX socketpair\n");
	printf("%8s | %12s %10s | %12s %10s | %8s\n", "size", "fp msg/s", "fp GB/s", "sock msg/s", "sock GB/s",
	       "ratio");
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]) && rc == 0; i++) {
		uint64_t nf = (uint64_t)((double)runs[i].n_fp * scale), ns = (uint64_t)((double)runs[i].n_sock * scale);
		uint32_t nbufs = (4u << 20) / runs[i].size;
		char bufs[16], size[16];
		double f, s;

		if (runs[i].size < min_size || runs[i].size > max_size)
			continue;
		if (nf == 0)
			nf = 1;
		if (ns == 0)
			ns = 1;
		/* A fresh server per size, whose consumer posts up to 4 MiB of
		 * receive buffers (at most 1024) of that size. */
		if (nbufs > 1024)
			nbufs = 1024;
		snprintf(bufs, sizeof(bufs), "%u", nbufs);
		snprintf(size, sizeof(size), "%u", runs[i].size);
		memset(&B, 0, sizeof(B));
		total = 0;
		fabric = fp_fabric_make();
		snprintf(name, sizeof(name), "comch_bench_%d_%zu", getpid(), i);
		{
			char *pargv[] = {peer, "--serve", name, bufs, size, NULL};

			pid = fp_spawn(pargv);
		}
		if (b_setup(name) != 0) {
			fprintf(stderr, "comch_bench: could not set up the fast path with the peer\n");
			rc = 1;
		} else {
			f = bench_fastpath(runs[i].size, nf, &total);
			s = bench_socketpair(runs[i].size, ns);
			if (f < 0 || s < 0) {
				fprintf(stderr, "comch_bench: run of %u bytes failed\n", runs[i].size);
				rc = 1;
			} else {
				printf("%8u | %12.0f %10.3f | %12.0f %10.3f | %7.1fx\n", runs[i].size, f,
				       f * runs[i].size / 1e9, s, s * runs[i].size / 1e9, f / s);
				fflush(stdout);
			}
		}
		b_teardown();
		if (fp_reap(pid, 10) != 0)
			rc = 1;
		fp_fabric_remove(fabric);
	}
	return rc;
}
