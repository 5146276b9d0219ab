/*
 * fault_proc - both halves of the fault and soak tests (suite 'faults',
 * tests/soak). Run as "server" from the dpu-flavor build, as "client" from
 * the host one. Public API only.
 *
 *   server bp NAME SLOW_EVERY SLOW_US SIZE BUFS
 *       one client; a consumer with BUFS buffers that sleeps SLOW_US every
 *       SLOW_EVERY messages; checks every message (sequence and pattern);
 *       on the client's "end N" answers "done RECEIVED ERRORS RSS_GROWTH_KB".
 *   client bp NAME NMSG SIZE SECONDS
 *       a producer sending as fast as it can (until NMSG or SECONDS), keeps
 *       submitting through AGAIN; prints one "bp:" summary line.
 *   server many NAME NCLIENTS MSGS [signal]
 *       any number of clients; a producer per connection sends MSGS messages
 *       to every consumer announced; after NCLIENTS clients said "ok" (and,
 *       with "signal", a SIGUSR1) it tells them all "bye" and exits when
 *       they are gone.
 *   client many NAME NCONS MSGS
 *       NCONS consumers (FULL from the device limit is reported and the
 *       client goes on with fewer), each must receive MSGS in order.
 *       Exit 3 if the server refused the connection.
 */
#define _GNU_SOURCE
#include <sched.h>

#include "fp_util.h"

#define MAX_CONNS 64
#define MAX_CONS 8
#define CONS_BUFS 8
#define MANY_SIZE 256
#define BP_POOL 64

struct hdr {
	uint64_t seq;
	uint32_t tag;
	uint32_t len;
};

static uint8_t pat(uint64_t seq, uint32_t tag, size_t i)
{
	return (uint8_t)(seq * 31u + tag * 7u + i);
}

static void fill(uint8_t *p, size_t len, uint64_t seq, uint32_t tag)
{
	struct hdr h = {.seq = seq, .tag = tag, .len = (uint32_t)len};

	memcpy(p, &h, sizeof(h));
	for (size_t i = sizeof(h); i < len; i++)
		p[i] = pat(seq, tag, i);
}

/* 0 when p holds message seq of tag, complete */
static int check(const uint8_t *p, size_t len, uint64_t seq, uint32_t tag)
{
	struct hdr h;

	if (len < sizeof(h))
		return -1;
	memcpy(&h, p, sizeof(h));
	if (h.seq != seq || h.tag != tag || h.len != len)
		return -1;
	for (size_t i = sizeof(h); i < len; i++)
		if (p[i] != pat(seq, tag, i))
			return -1;
	return 0;
}

static long rss_kb(void)
{
	long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f == NULL)
		return 0;
	if (fscanf(f, "%ld %ld", &size, &res) != 2)
		res = 0;
	fclose(f);
	return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static enum doca_ctx_states state_of(struct doca_ctx *ctx)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	doca_ctx_get_state(ctx, &st);
	return st;
}

/* ---- one process's state ------------------------------------------------ */

struct cons {
	struct doca_comch_consumer *c;
	uint32_t id;
	uint64_t next, errors;
	struct fp_mem mem;
};

struct conn {
	struct doca_comch_connection *c;
	struct doca_comch_producer *prod;
	bool gone, ok, broken;
	uint32_t ncons;
	struct {
		uint32_t id;
		uint64_t sent;
	} peers[MAX_CONS];
};

static struct {
	bool server, bp;
	const char *name;
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_pe *pe;
	struct doca_comch_server *srv;
	struct doca_comch_client *cli;
	/* server */
	struct conn conns[MAX_CONNS];
	uint32_t nconns, nok, want_ok, live;
	bool bye_sent, wait_signal;
	/* consumers of this process */
	struct cons cons[MAX_CONS];
	uint32_t ncons;
	/* producer (bp client, many server) */
	struct fp_mem pmem;
	uint32_t pfree[BP_POOL], npfree;
	uint64_t msgs;
	size_t size;
	/* bp */
	uint32_t slow_every, slow_us, bp_bufs;
	uint32_t peer_cons;
	uint64_t end_at;
	bool got_end, got_done, got_bye;
	long rss_base;
	char done_msg[128];
	uint64_t total_recv, total_err, total_bytes;
} S;

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static void ctrl_done(struct doca_comch_task_send *t, union doca_data tu, union doca_data cu)
{
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void ctrl_send(struct doca_comch_connection *c, const char *msg)
{
	struct doca_comch_task_send *t;
	doca_error_t e;

	if (S.server)
		e = doca_comch_server_task_send_alloc_init(S.srv, c, msg, (uint32_t)strlen(msg), &t);
	else
		e = doca_comch_client_task_send_alloc_init(S.cli, c, msg, (uint32_t)strlen(msg), &t);
	if (e != DOCA_SUCCESS) {
		fprintf(stderr, "fault_proc: control send alloc: %s\n", doca_error_get_name(e));
		return;
	}
	if (doca_task_submit(doca_comch_task_send_as_task(t)) != DOCA_SUCCESS)
		doca_task_free(doca_comch_task_send_as_task(t));
}

static struct conn *conn_of(struct doca_comch_connection *c)
{
	for (uint32_t i = 0; i < S.nconns; i++)
		if (S.conns[i].c == c)
			return &S.conns[i];
	return NULL;
}

static void on_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
	char m[128];

	if (len >= sizeof(m))
		return;
	memcpy(m, buf, len);
	m[len] = '\0';
	if (strncmp(m, "end ", 4) == 0) {
		S.end_at = strtoull(m + 4, NULL, 10);
		S.got_end = true;
	} else if (strncmp(m, "done ", 5) == 0) {
		snprintf(S.done_msg, sizeof(S.done_msg), "%s", m + 5);
		S.got_done = true;
	} else if (strcmp(m, "ok") == 0) {
		struct conn *k = conn_of(c);

		if (k != NULL && !k->ok) {
			k->ok = true;
			S.nok++;
		}
	} else if (strcmp(m, "bye") == 0) {
		S.got_bye = true;
	}
}

static void on_connect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
		       uint8_t ok)
{
	if (!ok || S.nconns >= MAX_CONNS)
		return;
	memset(&S.conns[S.nconns], 0, sizeof(S.conns[0]));
	S.conns[S.nconns++].c = c;
	S.live++;
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
			  uint8_t ok)
{
	struct conn *k = conn_of(c);

	if (k != NULL && !k->gone) {
		k->gone = true;
		S.live--;
	}
}

static void on_new_cons(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c, uint32_t id)
{
	struct conn *k;

	if (!S.server) {
		S.peer_cons = id;
		return;
	}
	k = conn_of(c);
	if (k != NULL && k->ncons < MAX_CONS) {
		k->peers[k->ncons].id = id;
		k->peers[k->ncons++].sent = 0;
	}
}

static void on_expired_cons(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c, uint32_t id)
{
}

/* ---- consumers ---------------------------------------------------------- */

static void repost(struct doca_comch_consumer_task_post_recv *t)
{
	doca_buf_reset_data_len(doca_comch_consumer_task_post_recv_get_buf(t));
	if (doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)) != DOCA_SUCCESS)
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void recv_ok(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	struct cons *k = cu.ptr;
	struct doca_buf *b = doca_comch_consumer_task_post_recv_get_buf(t);
	void *data;
	size_t len;

	doca_buf_get_data(b, &data);
	doca_buf_get_data_len(b, &len);
	if (check(data, len, k->next, S.bp ? 1 : k->id) != 0) {
		if (k->errors++ < 5)
			fprintf(stderr, "fault_proc: consumer %u: message %llu wrong (len %zu)\n", k->id,
				(unsigned long long)k->next, len);
	}
	k->next++;
	if (S.total_recv++ == 0 && !S.server) {
		printf("many: receiving\n"); /* test_faults kill-one waits for it */
		fflush(stdout);
	}
	S.total_bytes += len;
	repost(t);
	if (S.bp && S.slow_every && S.total_recv % S.slow_every == 0)
		usleep(S.slow_us);
}

static void recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static doca_error_t cons_add(struct doca_comch_connection *c, uint32_t nbufs, size_t size)
{
	struct cons *k = &S.cons[S.ncons];
	doca_error_t e;

	e = fp_mem_init(&k->mem, S.dev, size, nbufs, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	if (e != DOCA_SUCCESS)
		return e;
	e = doca_comch_consumer_create(c, k->mem.mmap, &k->c);
	if (e != DOCA_SUCCESS) {
		fp_mem_fini(&k->mem);
		return e;
	}
	S.ncons++;
	doca_ctx_set_user_data(doca_comch_consumer_as_ctx(k->c), (union doca_data){.ptr = k});
	if ((e = doca_pe_connect_ctx(S.pe, doca_comch_consumer_as_ctx(k->c))) != DOCA_SUCCESS ||
	    (e = doca_comch_consumer_task_post_recv_set_conf(k->c, recv_ok, recv_err, nbufs)) != DOCA_SUCCESS ||
	    (e = fp_consumer_start(k->c, S.pe, NULL, 10)) != DOCA_SUCCESS)
		return e;
	doca_comch_consumer_get_id(k->c, &k->id);
	for (uint32_t i = 0; i < nbufs; i++) {
		struct doca_comch_consumer_task_post_recv *t;

		if ((e = doca_comch_consumer_task_post_recv_alloc_init(k->c, k->mem.bufs[i], &t)) != DOCA_SUCCESS)
			return e;
		if ((e = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t))) != DOCA_SUCCESS) {
			doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
			return e;
		}
	}
	return DOCA_SUCCESS;
}

/* ---- producers ---------------------------------------------------------- */

static void send_ok(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	S.pfree[S.npfree++] = (uint32_t)tu.u64;
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static void send_err(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	S.total_err++;
	send_ok(t, tu, cu);
}

static doca_error_t prod_make(struct doca_comch_connection *c, struct doca_comch_producer **p)
{
	doca_error_t e;

	if ((e = doca_comch_producer_create(c, p)) != DOCA_SUCCESS)
		return e;
	if ((e = doca_pe_connect_ctx(S.pe, doca_comch_producer_as_ctx(*p))) != DOCA_SUCCESS ||
	    (e = doca_comch_producer_task_send_set_conf(*p, send_ok, send_err, BP_POOL)) != DOCA_SUCCESS ||
	    (e = doca_ctx_start(doca_comch_producer_as_ctx(*p))) != DOCA_SUCCESS)
		return e;
	return DOCA_SUCCESS;
}

/* One message seq of tag to consumer id: SUCCESS, AGAIN (the consumer has
 * no free buffer: back-pressure), FULL (no free local task/buffer). */
static doca_error_t prod_send(struct doca_comch_producer *p, uint32_t id, uint64_t seq, uint32_t tag, size_t len)
{
	struct doca_comch_producer_task_send *t;
	struct doca_buf *b;
	uint32_t slot;
	void *data;
	doca_error_t e;

	if (S.npfree == 0)
		return DOCA_ERROR_FULL; /* our own buffers: progress and retry */
	slot = S.pfree[S.npfree - 1];
	b = S.pmem.bufs[slot];
	doca_buf_get_data(b, &data);
	fill(data, len, seq, tag);
	doca_buf_set_data_len(b, len);
	e = doca_comch_producer_task_send_alloc_init(p, b, NULL, 0, id, &t);
	if (e != DOCA_SUCCESS)
		return e == DOCA_ERROR_NO_MEMORY ? DOCA_ERROR_FULL : e;
	doca_task_set_user_data(doca_comch_producer_task_send_as_task(t), (union doca_data){.u64 = slot});
	e = doca_task_submit(doca_comch_producer_task_send_as_task(t));
	if (e != DOCA_SUCCESS) {
		doca_task_free(doca_comch_producer_task_send_as_task(t));
		return e;
	}
	S.npfree--;
	return DOCA_SUCCESS;
}

static void stop_wait(struct doca_ctx *ctx)
{
	double end = fp_now() + 5;

	if (state_of(ctx) == DOCA_CTX_STATE_IDLE)
		return;
	doca_ctx_stop(ctx);
	while (state_of(ctx) != DOCA_CTX_STATE_IDLE && fp_now() < end)
		doca_pe_progress(S.pe);
}

static void teardown(void)
{
	for (uint32_t i = 0; i < S.ncons; i++) {
		if (S.cons[i].c != NULL) {
			stop_wait(doca_comch_consumer_as_ctx(S.cons[i].c));
			doca_comch_consumer_destroy(S.cons[i].c);
		}
		fp_mem_fini(&S.cons[i].mem);
	}
	for (uint32_t i = 0; i < S.nconns; i++)
		if (S.conns[i].prod != NULL) {
			stop_wait(doca_comch_producer_as_ctx(S.conns[i].prod));
			doca_comch_producer_destroy(S.conns[i].prod);
		}
	if (S.srv != NULL) {
		stop_wait(doca_comch_server_as_ctx(S.srv));
		doca_comch_server_destroy(S.srv);
	}
	if (S.cli != NULL) {
		stop_wait(doca_comch_client_as_ctx(S.cli));
		doca_comch_client_destroy(S.cli);
	}
	if (S.pe != NULL)
		doca_pe_destroy(S.pe);
	fp_mem_fini(&S.pmem);
	if (S.rep != NULL)
		doca_dev_rep_close(S.rep);
	if (S.dev != NULL)
		doca_dev_close(S.dev);
}

static int setup(void)
{
	doca_error_t e;

	S.dev = fp_open_dev(S.server ? FP_DPU_PCI : FP_HOST_PCI);
	if (S.dev == NULL || (S.server && (S.rep = fp_open_rep(S.dev, FP_HOST_PCI)) == NULL)) {
		fprintf(stderr, "fault_proc: no device\n");
		return -1;
	}
	if ((e = doca_pe_create(&S.pe)) != DOCA_SUCCESS)
		goto fail;
	if (S.server) {
		if ((e = doca_comch_server_create(S.dev, S.rep, S.name, &S.srv)) != DOCA_SUCCESS ||
		    (e = doca_comch_server_task_send_set_conf(S.srv, ctrl_done, ctrl_done, 256)) != DOCA_SUCCESS ||
		    (e = doca_comch_server_event_msg_recv_register(S.srv, on_msg)) != DOCA_SUCCESS ||
		    (e = doca_comch_server_event_connection_status_changed_register(S.srv, on_connect,
										     on_disconnect)) != DOCA_SUCCESS ||
		    (e = doca_comch_server_event_consumer_register(S.srv, on_new_cons, on_expired_cons)) !=
			    DOCA_SUCCESS ||
		    (e = doca_pe_connect_ctx(S.pe, doca_comch_server_as_ctx(S.srv))) != DOCA_SUCCESS ||
		    (e = doca_ctx_start(doca_comch_server_as_ctx(S.srv))) != DOCA_SUCCESS)
			goto fail;
	} else {
		if ((e = doca_comch_client_create(S.dev, S.name, &S.cli)) != DOCA_SUCCESS ||
		    (e = doca_comch_client_task_send_set_conf(S.cli, ctrl_done, ctrl_done, 64)) != DOCA_SUCCESS ||
		    (e = doca_comch_client_event_msg_recv_register(S.cli, on_msg)) != DOCA_SUCCESS ||
		    (e = doca_comch_client_event_consumer_register(S.cli, on_new_cons, on_expired_cons)) !=
			    DOCA_SUCCESS ||
		    (e = doca_pe_connect_ctx(S.pe, doca_comch_client_as_ctx(S.cli))) != DOCA_SUCCESS)
			goto fail;
		e = doca_ctx_start(doca_comch_client_as_ctx(S.cli));
		if (e != DOCA_SUCCESS && e != DOCA_ERROR_IN_PROGRESS)
			goto fail;
	}
	return 0;
fail:
	fprintf(stderr, "fault_proc: setup: %s\n", doca_error_get_name(e));
	return -1;
}

static int pool_init(size_t size)
{
	if (fp_mem_init(&S.pmem, S.dev, size, BP_POOL, DOCA_ACCESS_FLAG_PCI_READ_WRITE) != DOCA_SUCCESS)
		return -1;
	for (uint32_t i = 0; i < BP_POOL; i++)
		S.pfree[S.npfree++] = i;
	return 0;
}

/* The client's connection once RUNNING; NULL if the context failed (refused). */
static struct doca_comch_connection *client_wait(double secs)
{
	struct doca_comch_connection *c = NULL;
	double end = fp_now() + secs;

	while (fp_now() < end) {
		enum doca_ctx_states st = state_of(doca_comch_client_as_ctx(S.cli));

		if (st == DOCA_CTX_STATE_RUNNING) {
			doca_comch_client_get_connection(S.cli, &c);
			return c;
		}
		if (st == DOCA_CTX_STATE_IDLE)
			return NULL;
		if (!doca_pe_progress(S.pe))
			usleep(1000);
	}
	return NULL;
}

static bool client_up(void)
{
	return state_of(doca_comch_client_as_ctx(S.cli)) == DOCA_CTX_STATE_RUNNING;
}

/* ---- modes -------------------------------------------------------------- */

static int server_bp(void)
{
	double end = 0;
	int rc = 1;

	S.bp = true;
	while (S.nconns == 0 || !S.conns[0].gone) {
		if (!doca_pe_progress(S.pe))
			sched_yield();
		if (S.nconns > 0 && S.ncons == 0 && !S.conns[0].gone) {
			doca_error_t e = cons_add(S.conns[0].c, S.bp_bufs, S.size);

			if (e != DOCA_SUCCESS) {
				fprintf(stderr, "fault_proc: consumer: %s\n", doca_error_get_name(e));
				break;
			}
		}
		if (S.total_recv == 20000)
			S.rss_base = rss_kb();
		if (S.got_end && S.total_recv >= S.end_at) {
			char m[128];
			long growth = S.rss_base ? rss_kb() - S.rss_base : 0;

			S.got_end = false;
			snprintf(m, sizeof(m), "done %llu %llu %llu %ld", (unsigned long long)S.total_recv,
				 (unsigned long long)S.cons[0].errors, (unsigned long long)S.total_bytes, growth);
			ctrl_send(S.conns[0].c, m);
			rc = S.cons[0].errors == 0 && S.total_recv == S.end_at ? 0 : 1;
			end = fp_now() + 10;
		}
		if (end && fp_now() > end)
			break;
	}
	return rc;
}

static int client_bp(uint64_t nmsg, double secs)
{
	struct doca_comch_connection *c = client_wait(30);
	struct doca_comch_producer *p = NULL;
	uint64_t seq = 0, again = 0, again_run = 0;
	long rss0 = 0, rss1;
	double t0, t1, stop;
	doca_error_t e;
	char m[64];
	int rc = 1;

	if (c == NULL) {
		fprintf(stderr, "fault_proc: no connection\n");
		return 1;
	}
	if (pool_init(S.size) != 0 || (e = prod_make(c, &p)) != DOCA_SUCCESS) {
		fprintf(stderr, "fault_proc: producer setup failed\n");
		return 1;
	}
	S.conns[0].prod = p;
	S.nconns = 1;
	while (S.peer_cons == 0 && client_up())
		if (!doca_pe_progress(S.pe))
			usleep(1000);
	t0 = fp_now();
	stop = secs > 0 ? t0 + secs : 0;
	while (seq < nmsg && client_up()) {
		e = prod_send(p, S.peer_cons, seq, 1, S.size);
		if (e == DOCA_SUCCESS) {
			again_run = 0;
			seq++;
			if (seq == 20000)
				rss0 = rss_kb();
			if ((seq & 1023) == 0 && stop && fp_now() > stop)
				break;
			continue;
		}
		if (e == DOCA_ERROR_AGAIN) {
			/* the consumer is behind: give it the CPU (there may be fewer
			 * cores than busy pollers) */
			again++;
			if (++again_run >= 16)
				usleep(50);
			else
				sched_yield();
		}
		else if (e != DOCA_ERROR_FULL) {
			fprintf(stderr, "fault_proc: send %llu: %s\n", (unsigned long long)seq, doca_error_get_name(e));
			break;
		}
		doca_pe_progress(S.pe);
	}
	t1 = fp_now();
	while (S.npfree < BP_POOL && client_up())
		doca_pe_progress(S.pe);
	rss1 = rss_kb();
	snprintf(m, sizeof(m), "end %llu", (unsigned long long)seq);
	ctrl_send(c, m);
	{
		double end = fp_now() + 30;

		while (!S.got_done && client_up() && fp_now() < end)
			if (!doca_pe_progress(S.pe))
				usleep(500);
	}
	if (S.got_done) {
		unsigned long long r = 0, errs = 1, bytes = 0;
		long srv_growth = 0;

		sscanf(S.done_msg, "%llu %llu %llu %ld", &r, &errs, &bytes, &srv_growth);
		printf("bp: sent %llu in %.2f s, AGAIN %llu, received %llu, bytes %llu, errors %llu, "
		       "rss growth client %ld KiB server %ld KiB\n",
		       (unsigned long long)seq, t1 - t0, (unsigned long long)again, r, bytes, errs,
		       rss0 ? rss1 - rss0 : 0, srv_growth);
		rc = r == seq && errs == 0 && S.total_err == 0 && seq == (secs > 0 ? seq : nmsg) ? 0 : 1;
	} else {
		printf("bp: sent %llu, no answer from the server\n", (unsigned long long)seq);
	}
	fflush(stdout);
	return rc;
}

static int server_many(uint64_t msgs)
{
	double end = fp_now() + 60;
	uint64_t sent_total = 0;

	S.size = MANY_SIZE;
	if (pool_init(S.size) != 0)
		return 1;
	while (fp_now() < end) {
		int busy = doca_pe_progress(S.pe);

		for (uint32_t i = 0; i < S.nconns; i++) {
			struct conn *k = &S.conns[i];

			if (k->gone || k->broken)
				continue;
			if (k->prod == NULL) {
				doca_error_t e = prod_make(k->c, &k->prod);

				if (e != DOCA_SUCCESS) {
					fprintf(stderr, "fault_proc: producer for connection %u: %s\n", i,
						doca_error_get_name(e));
					k->broken = true;
					continue;
				}
			}
			for (uint32_t j = 0; j < k->ncons; j++)
				while (k->peers[j].sent < msgs) {
					doca_error_t e = prod_send(k->prod, k->peers[j].id, k->peers[j].sent,
								   k->peers[j].id, S.size);

					if (e == DOCA_ERROR_AGAIN || e == DOCA_ERROR_FULL)
						break;
					if (e != DOCA_SUCCESS) {
						/* that client died: the others go on */
						fprintf(stderr, "fault_proc: send to consumer %u: %s\n", k->peers[j].id,
							doca_error_get_name(e));
						k->broken = true;
						goto next_conn;
					}
					k->peers[j].sent++;
					sent_total++;
					busy = 1;
				}
next_conn:;
		}
		if (S.nok >= S.want_ok && !S.bye_sent && (!S.wait_signal || got_usr1)) {
			S.bye_sent = true;
			for (uint32_t i = 0; i < S.nconns; i++)
				if (!S.conns[i].gone)
					ctrl_send(S.conns[i].c, "bye");
		}
		if (S.bye_sent && S.live == 0)
			break;
		if (!busy)
			usleep(200);
	}
	{
		uint32_t broken = 0;

		for (uint32_t i = 0; i < S.nconns; i++)
			broken += S.conns[i].broken;
		printf("many: served %u clients (%u said ok, %u lost), %llu messages\n", S.nconns, S.nok, broken,
		       (unsigned long long)sent_total);
	}
	fflush(stdout);
	return S.bye_sent && S.live == 0 && S.nok == S.want_ok ? 0 : 1;
}

static int client_many(uint32_t ncons, uint64_t msgs)
{
	struct doca_comch_connection *c = client_wait(30);
	double end = fp_now() + 45;
	uint32_t made = 0;
	bool said_ok = false;
	uint64_t errors = 0;

	if (c == NULL) {
		printf("many: connection refused or failed\n");
		fflush(stdout);
		return 3;
	}
	for (uint32_t i = 0; i < ncons && i < MAX_CONS; i++) {
		doca_error_t e = cons_add(c, CONS_BUFS, MANY_SIZE);

		if (e != DOCA_SUCCESS) {
			printf("many: consumer %u: %s\n", i, doca_error_get_name(e));
			if (e != DOCA_ERROR_FULL)
				return 1;
			continue;
		}
		made++;
	}
	while (fp_now() < end && client_up() && !S.got_bye) {
		bool all = true;

		for (uint32_t i = 0; i < S.ncons; i++)
			if (S.cons[i].next < msgs)
				all = false;
		if (all && !said_ok) {
			said_ok = true;
			ctrl_send(c, "ok");
		}
		if (!doca_pe_progress(S.pe))
			usleep(200);
	}
	for (uint32_t i = 0; i < S.ncons; i++) {
		errors += S.cons[i].errors;
		if (S.cons[i].next != msgs) {
			printf("many: consumer %u received %llu of %llu\n", S.cons[i].id,
			       (unsigned long long)S.cons[i].next, (unsigned long long)msgs);
			errors++;
		}
	}
	printf("many: %u consumers, %llu messages each, errors %llu, %s\n", made, (unsigned long long)msgs,
	       (unsigned long long)errors, S.got_bye ? "released" : "not released");
	fflush(stdout);
	return errors == 0 && S.got_bye ? 0 : 1;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc < 4) {
		fprintf(stderr, "usage: fault_proc server|client bp|many NAME ...\n");
		return 2;
	}
	S.server = strcmp(argv[1], "server") == 0;
	S.name = argv[3];
	S.size = 1024;
	if (strcmp(argv[2], "bp") == 0 && S.server) {
		S.slow_every = argc > 4 ? (uint32_t)atoi(argv[4]) : 0;
		S.slow_us = argc > 5 ? (uint32_t)atoi(argv[5]) : 0;
		S.size = argc > 6 ? (size_t)atol(argv[6]) : 1024;
		S.bp_bufs = argc > 7 ? (uint32_t)atoi(argv[7]) : 4;
	} else if (strcmp(argv[2], "bp") == 0) {
		S.size = argc > 5 ? (size_t)atol(argv[5]) : 1024;
	} else if (strcmp(argv[2], "many") == 0 && S.server) {
		S.want_ok = argc > 4 ? (uint32_t)atoi(argv[4]) : 1;
		S.wait_signal = argc > 6 && strcmp(argv[6], "signal") == 0;
		signal(SIGUSR1, on_usr1);
	} else if (strcmp(argv[2], "many") != 0) {
		return 2;
	}
	if (S.size < sizeof(struct hdr))
		S.size = sizeof(struct hdr);
	if (setup() != 0) {
		teardown();
		return 4;
	}
	if (strcmp(argv[2], "bp") == 0)
		rc = S.server ? server_bp() :
				client_bp(argc > 4 ? strtoull(argv[4], NULL, 10) : 200000,
					  argc > 6 ? atof(argv[6]) : 0);
	else
		rc = S.server ? server_many(argc > 5 ? strtoull(argv[5], NULL, 10) : 100) :
				client_many(argc > 4 ? (uint32_t)atoi(argv[4]) : 2,
					    argc > 5 ? strtoull(argv[5], NULL, 10) : 100);
	teardown();
	return rc;
}
