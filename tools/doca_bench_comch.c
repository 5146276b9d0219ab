/*
 * doca_bench_comch.c - the Comch session of the doca_comch::producer and
 * doca_comch::consumer steps: devices, capabilities, the control connection.
 *
 * A Comch fast path needs both ends of one connection, so a Comch run is a
 * session of two processes: the measuring doca_bench and a companion
 * (doca_bench --companion --companion-connection-string comch=NAME) on the
 * other side. Which one is the Comch server is not a choice: the server runs
 * on the Arm (the device supports doca_comch_server), the client on the host;
 * either may be the measuring side. Both use the public API only, as a user
 * program would: doca_comch_server/client for the control connection,
 * doca_comch_producer/consumer with producer send and consumer post-receive
 * tasks for the data.
 *
 * Control protocol (text messages on the connection, measuring side A,
 * companion B): A sends "hello 1", B answers "hello 1". Per permutation A
 * sends "perm P|C SIZE NBUFS TOTAL CONSUMER_ID" (P: A produces; C: A
 * consumes from B, TOTAL messages or until "stop" when TOTAL is 0, into A's
 * consumer CONSUMER_ID). Both ends build a fresh producer or consumer, memory
 * and tasks for the permutation (doca_bench_comch_fp.c), so that every
 * permutation starts clean as the DMA step's do. B answers "ready ID" (its
 * consumer's id, or 0) or "error TEXT".
 *   A produces: A sends, then drains, destroys its producer and sends
 *   "end N"; B, having checked every message, answers "done RECEIVED BAD
 *   [TEXT]" once it got N (or gives up when nothing arrives for a while).
 *   A consumes: B sends until TOTAL or "stop", then answers "sent N"; A keeps
 *   reposting its receives until it got N, so no message of one permutation
 *   can arrive in the next.
 * At the end A sends "bye" and B answers "bye" and exits. The two sides'
 * loops are in doca_bench_comch_run.c.
 *
 * One session per process, so the callbacks reach it through a global
 * pointer (doca_bench_comch.h). Waiting is adaptive: when progress reports
 * nothing and no task can go, the loop sleeps on the progress engines'
 * notification handles (the libraries spin briefly before they report
 * nothing), so two busy processes on few cores do not spin against the work
 * they wait for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "doca_bench_comch.h"

struct bench_comch *sess;
volatile sig_atomic_t comch_stop_signal;

void comch_on_signal(int sig)
{
	(void)sig;
	comch_stop_signal = 1;
}

uint64_t comch_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void comch_err(const char *fmt, ...)
{
	va_list ap;

	if (sess->err[0] != '\0')
		return; /* the first error is the one to report */
	va_start(ap, fmt);
	vsnprintf(sess->err, sizeof(sess->err), fmt, ap);
	va_end(ap);
}


/* ---- devices --------------------------------------------------------------- */

static bool comch_capable(struct doca_devinfo *di)
{
	return (doca_comch_cap_server_is_supported(di) == DOCA_SUCCESS ||
		doca_comch_cap_client_is_supported(di) == DOCA_SUCCESS) &&
	       doca_comch_producer_cap_is_supported(di) == DOCA_SUCCESS &&
	       doca_comch_consumer_cap_is_supported(di) == DOCA_SUCCESS;
}

int bench_comch_open_dev(const char *pci, struct doca_dev **dev)
{
	return bench_open_capable_dev(pci, comch_capable, "Comch producers and consumers", dev);
}

/*
 * The end this process runs must take messages of the job size and
 * job_count tasks: say which capability refuses, before anything runs.
 */
int comch_check_limits(struct doca_devinfo *di, bool producer, uint64_t size, uint64_t n, char *why, size_t len)
{
	const char *kind = producer ? "producer" : "consumer";
	uint32_t max_buf = 0, max_tasks = 0;
	doca_error_t e1, e2;

	e1 = producer ? doca_comch_producer_cap_get_max_buf_size(di, &max_buf) :
			doca_comch_consumer_cap_get_max_buf_size(di, &max_buf);
	e2 = producer ? doca_comch_producer_cap_get_max_num_tasks(di, &max_tasks) :
			doca_comch_consumer_cap_get_max_num_tasks(di, &max_tasks);
	if (e1 != DOCA_SUCCESS || e2 != DOCA_SUCCESS) {
		snprintf(why, len, "the device does not report its Comch %s limits: %s", kind,
			 doca_error_get_descr(e1 != DOCA_SUCCESS ? e1 : e2));
		return -1;
	}
	if (size > max_buf) {
		snprintf(why, len, "job size %" PRIu64 " is above the device's Comch %s maximum of %u bytes per "
			 "message (doca_comch_%s_cap_get_max_buf_size)", size, kind, max_buf, kind);
		return -1;
	}
	if (n > max_tasks) {
		snprintf(why, len, "--data-provider-job-count %" PRIu64 " is above the device's %u Comch %s tasks "
			 "(doca_comch_%s_cap_get_max_num_tasks)", n, max_tasks, kind, kind);
		return -1;
	}
	if (n * size > MAX_TOTAL_MEMORY) {
		snprintf(why, len, "the run needs %" PRIu64 " MiB of message buffers, more than the %llu MiB allowed; "
			 "lower --data-provider-job-count", (n * size) >> 20, MAX_TOTAL_MEMORY >> 20);
		return -1;
	}
	return 0;
}

int bench_comch_check(const struct bench_cfg *cfg, struct doca_dev *dev)
{
	bool producer = cfg->step == BENCH_STEP_COMCH_PRODUCER;
	char why[256];
	uint32_t i, n = cfg->sweep == BENCH_SWEEP_JOB_SIZE ? cfg->n_sweep : 1;
	cpu_set_t set;

	for (i = 0; i < n; i++) {
		uint64_t size = cfg->sweep == BENCH_SWEEP_JOB_SIZE ? cfg->sweep_values[i] : cfg->job_size;

		if (comch_check_limits(doca_dev_as_devinfo(dev), producer, size, cfg->job_count, why,
				       sizeof(why)) != 0) {
			fprintf(stderr, "doca_bench: %s: %s\n", bench_step_name(cfg->step), why);
			return -1;
		}
	}
	/* The one thread runs on the first selected core: say now, not after the companion connected. */
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && !CPU_ISSET(cfg->cores[0], &set)) {
		fprintf(stderr, "doca_bench: core %d is not available to this process (allowed: see taskset -p %d)\n",
			cfg->cores[0], (int)getpid());
		return -1;
	}
	return 0;
}

/* ---- control connection ------------------------------------------------------ */

static void ctl_done(struct doca_comch_task_send *task, union doca_data tu, union doca_data cu)
{
	(void)tu;
	(void)cu;
	sess->ctl_inflight--;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void ctl_fail(struct doca_comch_task_send *task, union doca_data tu, union doca_data cu)
{
	(void)tu;
	(void)cu;
	sess->ctl_inflight--;
	if (sess->ctl_err == DOCA_SUCCESS)
		sess->ctl_err = doca_task_get_status(doca_comch_task_send_as_task(task));
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void on_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
	(void)ev;
	(void)c;
	if (sess->q_tail - sess->q_head >= CTL_QUEUE || len >= CTL_MAX) {
		sess->q_overflow = true;
		return;
	}
	memcpy(sess->q[sess->q_tail % CTL_QUEUE], buf, len);
	sess->q[sess->q_tail % CTL_QUEUE][len] = '\0';
	sess->q_tail++;
}

static void on_connect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
		       uint8_t ok)
{
	(void)ev;
	if (ok && sess->conn == NULL)
		sess->conn = c;
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
			  uint8_t ok)
{
	(void)ev;
	(void)ok;
	if (c == sess->conn)
		sess->disconnected = true;
}

static void on_new_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c, uint32_t id)
{
	(void)ev;
	(void)c;
	sess->new_cons = id;
}

static void on_expired_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *c, uint32_t id)
{
	(void)ev;
	(void)c;
	if (sess->new_cons == id)
		sess->new_cons = 0;
}

static struct doca_ctx *ctl_ctx(void)
{
	return sess->server ? doca_comch_server_as_ctx(sess->srv) : doca_comch_client_as_ctx(sess->cli);
}

bool comch_ctl_down(void)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	if (sess->disconnected)
		return true;
	if (sess->conn == NULL)
		return false;
	(void)doca_ctx_get_state(ctl_ctx(), &st);
	return st != DOCA_CTX_STATE_RUNNING;
}

int comch_ctl_send(const char *fmt, ...)
{
	struct doca_comch_task_send *t;
	char m[CTL_MAX];
	doca_error_t e;
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	if (len < 0 || len >= (int)sizeof(m) || sess->conn == NULL || comch_ctl_down())
		return -1;
	e = sess->server ? doca_comch_server_task_send_alloc_init(sess->srv, sess->conn, m, (uint32_t)len, &t) :
			doca_comch_client_task_send_alloc_init(sess->cli, sess->conn, m, (uint32_t)len, &t);
	if (e == DOCA_SUCCESS) {
		e = doca_task_submit(doca_comch_task_send_as_task(t));
		if (e != DOCA_SUCCESS)
			doca_task_free(doca_comch_task_send_as_task(t));
	}
	if (e != DOCA_SUCCESS) {
		comch_err("sending a control message: %s", doca_error_get_descr(e));
		return -1;
	}
	sess->ctl_inflight++;
	return 0;
}

/* One round of progress on both engines: how much happened. */
int comch_progress(bool ctl)
{
	int busy = doca_pe_progress(sess->pe_fp);

	if (ctl)
		busy += doca_pe_progress(sess->pe_ctl);
	return busy;
}

void comch_idle_wait(int ms)
{
	struct epoll_event ev[2];

	if (sess->ep < 0) {
		sched_yield();
		return;
	}
	(void)doca_pe_request_notification(sess->pe_fp);
	(void)doca_pe_request_notification(sess->pe_ctl);
	(void)epoll_wait(sess->ep, ev, 2, ms);
	(void)doca_pe_clear_notification(sess->pe_fp, 0);
	(void)doca_pe_clear_notification(sess->pe_ctl, 0);
}

/* The next control message into m, waiting up to secs (idle). 0, or -1 with sess->err set. */
int comch_ctl_recv(char *m, double secs)
{
	uint64_t end = comch_now_ns() + (uint64_t)(secs * 1e9);

	for (;;) {
		if (sess->q_head != sess->q_tail) {
			strcpy(m, sess->q[sess->q_head % CTL_QUEUE]);
			sess->q_head++;
			return 0;
		}
		if (sess->q_overflow) {
			comch_err("a control message was lost (too many or too long)");
			return -1;
		}
		if (comch_ctl_down()) {
			comch_err("the Comch connection to the %s is gone",
				sess->companion ? "measuring side" : "companion");
			return -1;
		}
		if (comch_stop_signal) {
			comch_err("stopped by a signal");
			return -1;
		}
		if (comch_now_ns() >= end) {
			comch_err("no answer from the %s within %.0f s",
				  sess->companion ? "measuring side" : "companion",
				secs);
			return -1;
		}
		if (!comch_progress(true))
			comch_idle_wait(20);
	}
}

bool comch_ctl_poll(char *m)
{
	if (sess->q_head == sess->q_tail)
		return false;
	strcpy(m, sess->q[sess->q_head % CTL_QUEUE]);
	sess->q_head++;
	return true;
}

static int open_rep(void)
{
	struct doca_devinfo_rep **list = NULL;
	uint32_t n = 0;
	doca_error_t e;

	e = doca_devinfo_rep_create_list(sess->dev, DOCA_DEVINFO_REP_FILTER_NET, &list, &n);
	if (e != DOCA_SUCCESS || n == 0) {
		comch_err("the Comch server needs a host representor, and the device lists none%s%s",
			e != DOCA_SUCCESS ? ": " : "", e != DOCA_SUCCESS ? doca_error_get_descr(e) : "");
		if (e == DOCA_SUCCESS)
			doca_devinfo_rep_destroy_list(list);
		return -1;
	}
	e = doca_dev_rep_open(list[0], &sess->rep);
	doca_devinfo_rep_destroy_list(list);
	if (e != DOCA_SUCCESS) {
		sess->rep = NULL;
		comch_err("cannot open the host representor: %s", doca_error_get_descr(e));
		return -1;
	}
	return 0;
}

static bool waiter_add(struct doca_pe *pe)
{
	doca_notification_handle_t h;
	struct epoll_event e = {.events = EPOLLIN};

	return doca_pe_get_notification_handle(pe, &h) == DOCA_SUCCESS &&
	       epoll_ctl(sess->ep, EPOLL_CTL_ADD, h, &e) == 0;
}

int comch_session_open(const char *name, double wait_s)
{
	struct doca_devinfo *di = doca_dev_as_devinfo(sess->dev);
	uint64_t end = comch_now_ns() + (uint64_t)(wait_s * 1e9);
	const char *other = sess->companion ? "--pipeline-steps doca_comch::STEP " : "--companion ";
	uint32_t max_name = 0;

	sess->server = doca_comch_cap_server_is_supported(di) == DOCA_SUCCESS;
	if (doca_comch_cap_get_max_name_len(di, &max_name) == DOCA_SUCCESS && strlen(name) > max_name) {
		comch_err("the Comch server name '%s' is longer than the device's %u characters", name, max_name);
		return -1;
	}
	CHECK(doca_pe_create(&sess->pe_ctl), "doca_pe_create");
	CHECK(doca_pe_create(&sess->pe_fp), "doca_pe_create");
	if (sess->server) {
		if (open_rep() != 0)
			return -1;
		CHECK(doca_comch_server_create(sess->dev, sess->rep, name, &sess->srv), "doca_comch_server_create");
		CHECK(doca_comch_server_task_send_set_conf(sess->srv, ctl_done, ctl_fail, 32),
		      "doca_comch_server_task_send_set_conf");
		CHECK(doca_comch_server_event_msg_recv_register(sess->srv, on_msg),
		      "doca_comch_server_event_msg_recv_register");
		CHECK(doca_comch_server_event_connection_status_changed_register(sess->srv, on_connect, on_disconnect),
		      "doca_comch_server_event_connection_status_changed_register");
		CHECK(doca_comch_server_event_consumer_register(sess->srv, on_new_consumer, on_expired_consumer),
		      "doca_comch_server_event_consumer_register");
		CHECK(doca_pe_connect_ctx(sess->pe_ctl, doca_comch_server_as_ctx(sess->srv)), "doca_pe_connect_ctx");
		CHECK(doca_ctx_start(doca_comch_server_as_ctx(sess->srv)), "doca_ctx_start (Comch server)");
		while (sess->conn == NULL) {
			if (comch_stop_signal) {
				comch_err("stopped by a signal");
				return -1;
			}
			if (comch_now_ns() >= end) {
				comch_err("no Comch client connected to server '%s' within %.0f s (start the "
					  "other side: doca_bench %s--companion-connection-string comch=%s on the "
					  "host)", name, wait_s, other, name);
				return -1;
			}
			if (!doca_pe_progress(sess->pe_ctl))
				usleep(1000);
		}
	} else {
		enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;
		doca_error_t e;

		CHECK(doca_comch_client_create(sess->dev, name, &sess->cli), "doca_comch_client_create");
		CHECK(doca_comch_client_task_send_set_conf(sess->cli, ctl_done, ctl_fail, 32),
		      "doca_comch_client_task_send_set_conf");
		CHECK(doca_comch_client_event_msg_recv_register(sess->cli, on_msg),
		      "doca_comch_client_event_msg_recv_register");
		CHECK(doca_comch_client_event_consumer_register(sess->cli, on_new_consumer, on_expired_consumer),
		      "doca_comch_client_event_consumer_register");
		CHECK(doca_pe_connect_ctx(sess->pe_ctl, doca_comch_client_as_ctx(sess->cli)), "doca_pe_connect_ctx");
		e = doca_ctx_start(doca_comch_client_as_ctx(sess->cli));
		if (e != DOCA_SUCCESS && e != DOCA_ERROR_IN_PROGRESS) {
			comch_err("doca_ctx_start (Comch client): %s", doca_error_get_descr(e));
			return -1;
		}
		for (;;) {
			(void)doca_ctx_get_state(doca_comch_client_as_ctx(sess->cli), &st);
			if (st == DOCA_CTX_STATE_RUNNING)
				break;
			if (st == DOCA_CTX_STATE_IDLE) {
				comch_err("the Comch client for server '%s' failed to start", name);
				return -1;
			}
			if (comch_stop_signal) {
				comch_err("stopped by a signal");
				return -1;
			}
			if (comch_now_ns() >= end) {
				comch_err("no Comch server '%s' accepted within %.0f s (start the other side: "
					  "doca_bench %s--companion-connection-string comch=%s on the Arm)", name,
					  wait_s, other, name);
				return -1;
			}
			if (!doca_pe_progress(sess->pe_ctl))
				usleep(1000);
		}
		CHECK(doca_comch_client_get_connection(sess->cli, &sess->conn), "doca_comch_client_get_connection");
	}
	sess->ep = epoll_create1(EPOLL_CLOEXEC);
	if (sess->ep >= 0 && (!waiter_add(sess->pe_fp) || !waiter_add(sess->pe_ctl))) {
		close(sess->ep);
		sess->ep = -1;
	}
	return 0;
}

void comch_stop_ctx(struct doca_ctx *ctx)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;
	uint64_t end = comch_now_ns() + 5ull * 1000000000ull;

	(void)doca_ctx_get_state(ctx, &st);
	if (st == DOCA_CTX_STATE_IDLE)
		return;
	(void)doca_ctx_stop(ctx);
	do {
		comch_progress(true);
		(void)doca_ctx_get_state(ctx, &st);
	} while (st != DOCA_CTX_STATE_IDLE && comch_now_ns() < end);
}

void comch_session_free(void)
{
	uint64_t end = comch_now_ns() + 2ull * 1000000000ull;

	/* Let the last control sends (the "bye") complete before stopping. */
	while (sess->ctl_inflight > 0 && comch_now_ns() < end && !comch_ctl_down())
		comch_progress(true);
	if (sess->srv != NULL) {
		comch_stop_ctx(doca_comch_server_as_ctx(sess->srv));
		(void)doca_comch_server_destroy(sess->srv);
	}
	if (sess->cli != NULL) {
		comch_stop_ctx(doca_comch_client_as_ctx(sess->cli));
		(void)doca_comch_client_destroy(sess->cli);
	}
	if (sess->ep >= 0)
		close(sess->ep);
	if (sess->pe_fp != NULL)
		(void)doca_pe_destroy(sess->pe_fp);
	if (sess->pe_ctl != NULL)
		(void)doca_pe_destroy(sess->pe_ctl);
	if (sess->rep != NULL)
		(void)doca_dev_rep_close(sess->rep);
	free(sess);
	sess = NULL;
}

struct bench_comch *comch_session_new(struct doca_dev *dev, bool companion)
{
	sess = calloc(1, sizeof(*sess));
	if (sess == NULL) {
		fprintf(stderr, "doca_bench: out of memory\n");
		return NULL;
	}
	sess->dev = dev;
	sess->companion = companion;
	sess->ep = -1;
	sess->time_every = BENCH_TIME_EVERY; /* bench_run_comch sets the run's */
	return sess;
}


int bench_comch_connect(const struct bench_cfg *cfg, struct doca_dev *dev, struct bench_comch **session)
{
	char m[CTL_MAX];

	*session = NULL;
	if (comch_session_new(dev, false) == NULL)
		return -1;
	if (comch_session_open(cfg->companion + 6, CONNECT_WAIT_S) != 0 || comch_ctl_send("hello " PROTO) != 0 ||
	    comch_ctl_recv(m, REPLY_WAIT_S) != 0)
		goto fail;
	if (strcmp(m, "hello " PROTO) != 0) {
		comch_err("the companion answered '%s' to hello (another program, or another version?)", m);
		goto fail;
	}
	*session = sess;
	return 0;
fail:
	fprintf(stderr, "doca_bench: Comch session '%s': %s\n", cfg->companion + 6, sess->err);
	comch_session_free();
	return -1;
}

void bench_comch_close(struct bench_comch *session)
{
	char m[CTL_MAX];

	if (session == NULL)
		return;
	sess = session;
	if (comch_ctl_send("bye") == 0) {
		/* Skip what is left of an aborted permutation's answers. */
		while (comch_ctl_recv(m, REPLY_WAIT_S) == 0 && strcmp(m, "bye") != 0)
			;
	}
	comch_session_free();
}

