/*
 * comch_bench - what the Comch fast path costs between two processes,
 * measured next to AF_UNIX SOCK_SEQPACKET in the same run.
 *
 * The host-flavor build is the client: for each message size (64 B, 256 B,
 * 4 KiB, 64 KiB) it starts the dpu-flavor build of itself as the server
 * (--serve NAME BUFS SIZE; found through --peer PATH or
 * $SOFTDOCA_PEER_BUILD_DIR/bench/comch/comch_bench) in a private fabric
 * directory, creates a producer on the connection and streams messages into
 * the server's consumer, which has min(1024, 4 MiB / size) receive buffers
 * posted and reposts each as soon as it completes. A repetition ends when the
 * server reports (control message) that it received them all. The baseline
 * sends the same messages, one send() each, over an AF_UNIX SOCK_SEQPACKET
 * socketpair to a forked reader that receives them one by one; the server is
 * stopped (SIGSTOP) meanwhile, so that its polling does not compete with it.
 *
 * Repetitions alternate the two (-r, default 5), each sized by a warm-up to
 * last about -t seconds. Rows (bench/common/bench_util.h): the median of
 * messages/s, the spread, the CPU cost of both processes (getrusage of this
 * one, /proc/PID/stat of the server or the reader) per GB and per million
 * messages, and comch_fp's ratio to af_unix_seqpacket repetition by
 * repetition.
 *
 * --load N: the oversubscribed run (64 B and 64 KiB unless sizes are given):
 * N busy-loop processes per core run during both the fast path and the
 * baseline; the per-repetition ratios are printed.
 *
 * --peer-wrap 'CMD': the server runs through CMD (sh words, e.g. "ip netns exec
 * B ..."), as bench/ucx/run_ucx.sh does to put it across a network link:
 * only the fast-path rows are measured then (the baseline of a network is
 * the caller's, e.g. iperf3 between the same hosts), and the CPU columns
 * count this process alone (the server's is out of reach).
 *
 * COMCH_BENCH_DIAG=1: a line per fast-path repetition on stderr (rate,
 * context switches and last CPU of both processes, sends refused for want
 * of credits and sleeps of the producer; the server's sleeps per round),
 * to tell a repetition in which both processes shared a CPU from one in
 * which they ran side by side.
 *
 * usage (host build): comch_bench [--peer PATH] [-r REPS] [-t SECONDS] [--min-size BYTES] [--max-size BYTES]
 *                                 [--csv FILE] [--load N] [--peer-wrap CMD]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/socket.h>

#include "common/bench_util.h"

#define FP_PEER_MAIN fp_peer_main
#include "fp_peer.c"

static const uint32_t sizes[] = {64, 256, 4096, 65536};
static const char *peer_wrap; /* --peer-wrap: the server runs through this command */
static char wrap_script[BU_WRAP_SCRIPT_MAX]; /* bu_wrap_script of it */

/* ---- baseline ------------------------------------------------------------ */

/* n messages of size bytes over SOCK_SEQPACKET to a forked reader; false on failure. */
static bool bench_seqpacket(uint32_t size, uint64_t n, struct bu_series *out)
{
	int sv[2], sndbuf = 4 << 20;
	uint8_t *buf = malloc(size);
	double t0, t1, c0, c1, peer_cpu;
	char ack;
	pid_t pid;

	if (buf == NULL || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0) {
		free(buf);
		return false;
	}
	/* Room for a few messages of the largest size in flight. */
	(void)setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	memset(buf, 0x5a, size);
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		for (uint64_t i = 0; i < n; i++) {
			ssize_t r = recv(sv[1], buf, size, 0);

			if (r < 0 && errno == EINTR) {
				i--;
				continue;
			}
			if (r != (ssize_t)size)
				_exit(1);
		}
		ack = 1;
		if (send(sv[1], &ack, 1, 0) != 1)
			_exit(1);
		_exit(0);
	}
	close(sv[1]);
	c0 = bu_cpu();
	t0 = bu_now();
	for (uint64_t i = 0; i < n; i++) {
		ssize_t w = send(sv[0], buf, size, 0);

		if (w < 0 && errno == EINTR) {
			i--;
			continue;
		}
		if (w != (ssize_t)size)
			goto out;
	}
	if (recv(sv[0], &ack, 1, 0) != 1)
		goto out;
	t1 = bu_now();
	c1 = bu_cpu();
	close(sv[0]);
	{
		struct rusage ru;

		/* The reader's own CPU time, from its exit. */
		if (wait4(pid, NULL, 0, &ru) != pid)
			memset(&ru, 0, sizeof(ru));
		peer_cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
			   (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	}
	free(buf);
	if (out != NULL)
		bu_add(out, (double)n, t1 - t0, (c1 - c0) + peer_cpu, size);
	return true;
out:
	close(sv[0]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	free(buf);
	return false;
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
	struct fp_waiter waiter; /* both PEs' notification handles */
	struct fp_waiter waiter_fp;
};

static struct bench B;

/* COMCH_BENCH_DIAG=1: a line per fast-path repetition with what decides its
 * figure: context switches of both processes (voluntary: slept; not: was
 * preempted), the CPU each was last seen on, and how often the producer
 * was refused a send and slept. */
static bool diag;

struct diag_snap {
	long long vol, invol;
	int cpu;
};

static void diag_proc(pid_t pid, struct diag_snap *d)
{
	char path[64], line[256];
	FILE *f;

	d->vol = d->invol = -1;
	d->cpu = -1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "voluntary_ctxt_switches:", 24) == 0)
			d->vol = atoll(line + 24);
		else if (strncmp(line, "nonvoluntary_ctxt_switches:", 27) == 0)
			d->invol = atoll(line + 27);
	}
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f != NULL) {
		char buf[1024], *q;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);

		buf[n] = '\0';
		q = strrchr(buf, ')');
		/* field 39 (processor), counted from field 3 after the ')' */
		for (int i = 0; q != NULL && i < 37; i++)
			q = strchr(q + 1, ' ');
		if (q != NULL)
			d->cpu = atoi(q + 1);
		fclose(f);
	}
}

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

	/* Poll, and sleep on the PEs' notification when neither reports
	 * anything: waiting for the server must not take its CPU. */
	while (!*flag && fp_now() < end) {
		int busy = doca_pe_progress(B.pe_fp);

		busy += doca_pe_progress(B.pe_cli);
		if (!busy && !*flag && B.waiter.ep >= 0)
			fp_waiter_sleep(&B.waiter, 10);
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
	if (!fp_waiter_init(&B.waiter, B.pe_fp, B.pe_cli))
		fp_waiter_fini(&B.waiter);
	if (!fp_waiter_init(&B.waiter_fp, B.pe_fp, NULL))
		fp_waiter_fini(&B.waiter_fp);
	return B.peer_cons != 0 ? 0 : -1;
}

/* n messages of size bytes through the fast path; false on failure. server:
 * the peer's pid, whose CPU time counts too. */
static bool bench_fastpath(uint32_t size, uint64_t n, uint64_t *total, pid_t server, struct bu_series *out)
{
	struct doca_buf *b = B.mem.bufs[0];
	char m[64];
	double t0, t1, c0, c1, s0, s1;
	uint64_t sent = 0, it = 0, refused = 0, sleeps = 0, long_sleeps = 0;
	double slept = 0;
	struct diag_snap dc0, dc1, ds0, ds1;

	*total += n;
	snprintf(m, sizeof(m), "expect %llu", (unsigned long long)*total);
	B.done = false;
	b_ctrl(m);
	doca_buf_set_data(b, B.mem.addr, size);
	if (diag) {
		diag_proc(getpid(), &dc0);
		diag_proc(server, &ds0);
	}
	s0 = bu_proc_cpu(server);
	c0 = bu_cpu();
	t0 = bu_now();
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
			return false;
		}
		if (e != DOCA_SUCCESS || (++it & 255) == 0) {
			/* The consumer has no receive free: the producer spins
			 * a little (progress reports that), then we sleep until
			 * the consumer has reposted, as a DOCA program would on
			 * the PE's notification handle. */
			refused += e == DOCA_ERROR_AGAIN;
			if (!doca_pe_progress(B.pe_fp) && e == DOCA_ERROR_AGAIN) {
				double z = diag ? bu_now() : 0;

				sleeps++;
				if (B.waiter_fp.ep >= 0)
					fp_waiter_sleep(&B.waiter_fp, 10);
				else
					sched_yield();
				if (diag) {
					z = bu_now() - z;
					slept += z;
					long_sleeps += z > 0.005;
				}
			}
			if ((++it & 4095) == 0)
				doca_pe_progress(B.pe_cli);
		}
	}
	if (!b_wait(&B.done, 60))
		return false;
	t1 = bu_now();
	c1 = bu_cpu();
	s1 = bu_proc_cpu(server);
	if (diag) {
		diag_proc(getpid(), &dc1);
		diag_proc(server, &ds1);
		fprintf(stderr, "diag %u B: %llu msgs %.2f M/s  cli vol %lld invol %lld cpu %d  srv vol %lld invol %lld cpu %d  "
			"refused %llu sleeps %llu (%.1f ms, %llu over 5 ms)\n", size, (unsigned long long)n,
			(double)n / (t1 - t0) / 1e6, dc1.vol - dc0.vol, dc1.invol - dc0.invol, dc1.cpu, ds1.vol - ds0.vol,
			ds1.invol - ds0.invol, ds1.cpu, (unsigned long long)refused, (unsigned long long)sleeps, slept * 1e3,
			(unsigned long long)long_sleeps);
	}
	if (out != NULL)
		bu_add(out, (double)n, t1 - t0, (c1 - c0) + (s0 >= 0 && s1 >= 0 ? s1 - s0 : 0), size);
	return true;
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
	fp_waiter_fini(&B.waiter);
	fp_waiter_fini(&B.waiter_fp);
	if (B.pe_fp)
		doca_pe_destroy(B.pe_fp);
	if (B.pe_cli)
		doca_pe_destroy(B.pe_cli);
	fp_mem_fini(&B.mem);
	if (B.dev)
		doca_dev_close(B.dev);
}

static void usage(void)
{
	fprintf(stderr, "usage: comch_bench [--peer PATH] [-r REPS (1..%d)] [-t SECONDS] [--min-size BYTES] "
			"[--max-size BYTES] [--csv FILE] [--load N (1..8)] [--peer-wrap CMD]\n",
		BU_MAX_REPS);
	exit(2);
}

static unsigned long long parse_num(const char *opt, const char *arg, unsigned long long lo, unsigned long long hi)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno != 0 || end == arg || *end != '\0' || arg[0] == '-' || v < lo || v > hi) {
		fprintf(stderr, "comch_bench: %s: '%s' is not a number in %llu..%llu\n", opt, arg, lo, hi);
		usage();
	}
	return v;
}

/* How many messages make a repetition of about secs at the rate a warm-up of n saw. */
static uint64_t calibrate(const struct bu_series *warm, uint64_t n, double secs)
{
	double want = warm->n ? warm->ops[warm->n - 1] * secs : (double)n;

	if (want < 1000)
		want = 1000;
	if (want > 50e6)
		want = 50e6;
	return (uint64_t)want;
}

/* One size: a fresh server, warm-ups, then reps alternating fast path and baseline. */
static int one_size(const char *peer, uint32_t size, uint32_t reps, double secs, int load, size_t idx)
{
	uint32_t nbufs = (4u << 20) / size;
	struct bu_series fp = {0}, sock = {0}, wfp = {0}, wsock = {0};
	char bufs[16], sz[16], name[64], n_fp[32], n_sock[40];
	uint64_t total = 0, nf, ns;
	char *fabric;
	pid_t pid;
	int rc = 0;

	/* A fresh server per size, whose consumer posts up to 4 MiB of
	 * receive buffers (at most 1024) of that size. */
	if (nbufs > 1024)
		nbufs = 1024;
	snprintf(bufs, sizeof(bufs), "%u", nbufs);
	snprintf(sz, sizeof(sz), "%u", size);
	memset(&B, 0, sizeof(B));
	B.waiter.ep = B.waiter_fp.ep = -1;
	fabric = fp_fabric_make();
	if (fabric == NULL) {
		perror("comch_bench: fabric directory");
		return 1;
	}
	snprintf(name, sizeof(name), "comch_bench_%d_%zu", getpid(), idx);
	if (peer_wrap != NULL) {
		char *pargv[] = {"/bin/sh", "-c", wrap_script, "sh", (char *)peer, "--serve", name, bufs, sz, NULL};

		pid = fp_spawn(pargv);
	} else {
		char *pargv[] = {(char *)peer, "--serve", name, bufs, sz, NULL};

		pid = fp_spawn(pargv);
	}
	if (load) {
		snprintf(n_fp, sizeof(n_fp), "comch_fp_load%d", load);
		snprintf(n_sock, sizeof(n_sock), "af_unix_seqpacket_load%d", load);
	} else {
		snprintf(n_fp, sizeof(n_fp), "comch_fp");
		snprintf(n_sock, sizeof(n_sock), "af_unix_seqpacket");
	}
	if (b_setup(name) != 0) {
		fprintf(stderr, "comch_bench: could not set up the fast path with the peer\n");
		rc = 1;
		goto out;
	}
	if (peer_wrap != NULL) {
		/* The wrapper's pid is not the server's: no CPU of it, no
		 * SIGSTOP, no local baseline. */
		if (!bench_fastpath(size, 20000, &total, -1, &wfp)) {
			rc = 1;
			goto fail;
		}
		nf = calibrate(&wfp, 20000, secs);
		for (uint32_t r = 0; r < reps && rc == 0; r++)
			if (!bench_fastpath(size, nf, &total, -1, &fp))
				rc = 1;
		goto fail;
	}
	/* Warm-ups, which also size the repetitions (quiet, so that a loaded
	 * run moves as many messages as a quiet one would in secs). */
	if (!bench_fastpath(size, 20000, &total, pid, &wfp) || kill(pid, SIGSTOP) != 0 ||
	    !bench_seqpacket(size, 20000, &wsock) || kill(pid, SIGCONT) != 0) {
		rc = 1;
		goto fail;
	}
	nf = calibrate(&wfp, 20000, secs);
	ns = calibrate(&wsock, 20000, secs);
	if (load)
		bu_load_on();
	for (uint32_t r = 0; r < reps && rc == 0; r++) {
		if (!bench_fastpath(size, nf, &total, pid, &fp))
			rc = 1;
		else if (kill(pid, SIGSTOP) != 0 || !bench_seqpacket(size, ns, &sock))
			rc = 1;
		kill(pid, SIGCONT);
	}
	if (load)
		bu_load_off();
fail:
	if (rc != 0) {
		fprintf(stderr, "comch_bench: run of %u bytes failed\n", size);
	} else if (peer_wrap != NULL) {
		bu_row(n_fp, size, nbufs, &fp, NULL, load);
	} else {
		bu_pair(&fp, &sock);
		bu_row(n_sock, size, 1, &sock, NULL, load);
		bu_row(n_fp, size, nbufs, &fp, n_sock, load);
		if (load)
			bu_ratios_line("comch_fp/af_unix under load", &fp);
	}
out:
	b_teardown();
	if (fp_reap(pid, 10) != 0)
		rc = 1;
	fp_fabric_remove(fabric);
	return rc;
}

int main(int argc, char **argv)
{
	char peer[512] = "";
	uint32_t min_size = 0, max_size = UINT32_MAX, reps = 5;
	double secs = 0.3;
	bool sized = false;
	int rc = 0, load = 0;
	char *end;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--serve") == 0 && i + 3 < argc) {
			char *pargv[] = {"comch_bench", argv[i + 1], "sink", "--bufs", argv[i + 2], "--size", argv[i + 3],
					 NULL};

			return fp_peer_main(7, pargv);
		} else if (strcmp(argv[i], "--peer") == 0 && i + 1 < argc) {
			snprintf(peer, sizeof(peer), "%s", argv[++i]);
		} else if (strcmp(argv[i], "--min-size") == 0 && i + 1 < argc) {
			min_size = (uint32_t)parse_num("--min-size", argv[++i], 1, UINT32_MAX);
			sized = true;
		} else if (strcmp(argv[i], "--max-size") == 0 && i + 1 < argc) {
			max_size = (uint32_t)parse_num("--max-size", argv[++i], 1, UINT32_MAX);
			sized = true;
		} else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc) {
			reps = (uint32_t)parse_num("-r", argv[++i], 1, BU_MAX_REPS);
		} else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
			secs = strtod(argv[++i], &end);
			if (end == argv[i] || *end != '\0' || !(secs > 0 && secs < 60)) {
				fprintf(stderr, "comch_bench: -t: '%s' is not a number of seconds in (0, 60)\n",
					argv[i]);
				usage();
			}
		} else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
			if (!bu_csv_open(argv[++i]))
				return 1;
		} else if (strcmp(argv[i], "--peer-wrap") == 0 && i + 1 < argc) {
			peer_wrap = argv[++i];
			if (!bu_wrap_script(peer_wrap, wrap_script)) {
				fprintf(stderr, "comch_bench: --peer-wrap: an empty or over-long command\n");
				usage();
			}
		} else if (strcmp(argv[i], "--load") == 0 && i + 1 < argc) {
			load = (int)parse_num("--load", argv[++i], 1, 8);
		} else {
			usage();
		}
	}
	if (load && peer_wrap != NULL) {
		fprintf(stderr, "comch_bench: --load and --peer-wrap do not go together (the load is local)\n");
		return 2;
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
	diag = getenv("COMCH_BENCH_DIAG") != NULL && getenv("COMCH_BENCH_DIAG")[0] == '1';
	/* The competitors first, while this process has no other thread. */
	if (load && bu_load_start(load) < 0)
		return 1;
	if (load)
		printf("comch_bench --load %d: %d busy-loop process(es) competing (%d per core) during both\n", load,
		       bu_load_n, load);
	if (peer_wrap != NULL)
		printf("comch_bench: Comch producer -> consumer, the server through '%s', median of %u repetitions of "
		       "~%.2f s\n",
		       peer_wrap, reps, secs);
	else
		printf("comch_bench: Comch producer -> consumer (two processes, shared memory) vs AF_UNIX "
		       "SOCK_SEQPACKET, median of %u alternating repetitions of ~%.2f s\n",
		       reps, secs);
	bu_header();
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && rc == 0; i++) {
		if (sizes[i] < min_size || sizes[i] > max_size)
			continue;
		if (load && !sized && sizes[i] != 64 && sizes[i] != 65536)
			continue;
		rc = one_size(peer, sizes[i], reps, secs, load, i);
	}
	bu_load_stop();
	if (bu_csv != NULL)
		fclose(bu_csv);
	return rc;
}
