/*
 * doca_bench_comch_run.c - the loops of a Comch session: the measuring
 * side's producer and consumer runs (warm-up, the measured phase under the
 * run limits, the drain and the companion's verdict), and the companion's
 * loop that serves them (see doca_bench_comch.c for the protocol).
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

/* ---- the measuring side ---------------------------------------------------------- */

static bool time_up(uint64_t deadline)
{
	return deadline != 0 && comch_now_ns() >= deadline;
}

/* Parse "error TEXT" answers into sess->err; true if m was one. */
static bool peer_error(const char *m)
{
	if (strncmp(m, "error ", 6) != 0)
		return false;
	comch_err("companion: %s", m + 6);
	return true;
}

/* A produces into B's consumer. */
static int run_producer(const struct bench_cfg *cfg, uint64_t job_limit)
{
	uint64_t seq = 0, warm = cfg->warm_up_jobs, deadline = 0, recv_n = 0, bad = 0;
	uint32_t cons_id = 0;
	char m[CTL_MAX];
	int rc = -1, went, it = 0;

	if (comch_fp_build(true, cfg->job_size, cfg->job_count) != 0 ||
	    comch_ctl_send("perm P %" PRIu64 " %u 0 0", cfg->job_size, cfg->job_count) != 0)
		goto out_noend;
	if (comch_ctl_recv(m, REPLY_WAIT_S) != 0 || peer_error(m))
		goto out_noend;
	if (sscanf(m, "ready %u", &cons_id) != 1 || cons_id == 0) {
		comch_err("unexpected answer '%s' to perm", m);
		goto out_noend;
	}
	if (comch_fp_bind_producer(cons_id) != 0)
		goto out;
	/* Warm-up: warm messages, drained, then the measured phase. */
	for (;;) {
		bool stalled;

		if (!sess->measuring && seq >= warm && sess->inflight == 0) {
			sess->measuring = true;
			if (cfg->run_limit_seconds > 0)
				deadline = comch_now_ns() + (uint64_t)(cfg->run_limit_seconds * 1e9);
		}
		if (sess->measuring && (time_up(deadline) || sess->submitted >= job_limit)) {
			if (sess->inflight == 0)
				break;
			went = 0;
		} else {
			uint64_t lim = !sess->measuring ? warm :
				       job_limit == UINT64_MAX ? UINT64_MAX : seq + (job_limit - sess->submitted);

			went = comch_fp_submit(true, &seq, lim, job_limit);
			if (went < 0)
				goto out;
		}
		if (sess->failed != 0)
			break;
		stalled = !comch_progress((++it & 63) == 0) && went == 0;
		if (stalled) {
			if (comch_idle_ns() > (uint64_t)(STALL_S * 1e9)) {
				comch_err("no message could be sent for %.0f s: the companion's consumer stopped "
					"taking them", STALL_S);
				goto out;
			}
			if (comch_ctl_down()) {
				comch_err("the Comch connection to the companion is gone");
				goto out;
			}
			comch_idle_wait(deadline ? 1 : 10);
		}
	}
	if (comch_fp_failed() != 0)
		goto out;
	rc = 0;
out:
	/* Our producer goes first, then the companion checks what it received. */
	comch_fp_stop();
	if (comch_ctl_send("end %" PRIu64, seq) != 0 || comch_ctl_recv(m, REPLY_WAIT_S + STALL_S) != 0) {
		rc = -1;
		goto out_noend;
	}
	if (peer_error(m)) {
		rc = -1;
	} else if (sscanf(m, "done %" SCNu64 " %" SCNu64, &recv_n, &bad) != 2) {
		comch_err("unexpected answer '%s' to end", m);
		rc = -1;
	} else if (bad != 0) {
		const char *why = strchr(m + 5, ' ');

		why = why ? strchr(why + 1, ' ') : NULL;
		comch_err("the companion's consumer found %" PRIu64 " bad messages: %s", bad, why ? why + 1 : "");
		rc = -1;
	} else if (rc == 0 && recv_n != seq) {
		comch_err("the companion's consumer received %" PRIu64 " of the %" PRIu64 " messages sent", recv_n,
			  seq);
		rc = -1;
	}
out_noend:
	return rc;
}

/* A consumes what B produces. */
static int run_consumer(const struct bench_cfg *cfg, uint64_t job_limit)
{
	uint64_t warm = cfg->warm_up_jobs, deadline = 0, sent = UINT64_MAX, posted = 0;
	uint32_t cons_id = 0;
	bool stop_sent = false, measuring_done = false, producing = false;
	char m[CTL_MAX];
	int rc = -1, it = 0;

	if (comch_fp_build(false, cfg->job_size, cfg->job_count) != 0)
		goto out;
	CHECK(doca_comch_consumer_get_id(sess->cons, &cons_id), "doca_comch_consumer_get_id");
	if (comch_fp_submit(false, &posted, UINT64_MAX, 0) < 0)
		goto out;
	/* The companion produces until "stop": the receives decide what is measured. */
	if (comch_ctl_send("perm C %" PRIu64 " %u 0 %u", cfg->job_size, cfg->job_count, cons_id) != 0 ||
	    comch_ctl_recv(m, REPLY_WAIT_S) != 0 || peer_error(m))
		goto out;
	if (strncmp(m, "ready", 5) != 0) {
		comch_err("unexpected answer '%s' to perm", m);
		goto out;
	}
	producing = true;
	if (warm == 0) {
		sess->measuring = true;
		if (cfg->run_limit_seconds > 0)
			deadline = comch_now_ns() + (uint64_t)(cfg->run_limit_seconds * 1e9);
	}
	for (;;) {
		int went;
		bool busy;

		if (!sess->measuring && !measuring_done && sess->rx >= warm) {
			/* The receives posted from now on are measured ones. */
			sess->measuring = true;
			if (cfg->run_limit_seconds > 0)
				deadline = comch_now_ns() + (uint64_t)(cfg->run_limit_seconds * 1e9);
		}
		if (sess->measuring && (time_up(deadline) || sess->completed >= job_limit)) {
			sess->measuring = false;
			measuring_done = true;
			if (comch_ctl_send("stop") != 0)
				goto out;
			stop_sent = true;
		}
		if (sent == UINT64_MAX && comch_ctl_poll(m)) {
			if (peer_error(m)) {
				producing = false; /* the companion gave up, and is idle */
				goto out;
			}
			if (sscanf(m, "sent %" SCNu64, &sent) != 1) {
				comch_err("unexpected message '%s' from the companion", m);
				goto out;
			}
		}
		if (sent != UINT64_MAX && sess->rx >= sent)
			break;
		if (sess->rx_bad != 0 || sess->failed != 0)
			break;
		/* Keep receives posted until everything sent has arrived; measured ones while measuring. */
		went = comch_fp_submit(false, &posted, UINT64_MAX, job_limit);
		if (went < 0)
			goto out;
		busy = comch_progress((++it & 15) == 0 || measuring_done) || went > 0;
		if (!busy) {
			if (comch_idle_ns() > (uint64_t)(STALL_S * 1e9)) {
				comch_err("no message arrived for %.0f s: the companion's producer stopped", STALL_S);
				goto out;
			}
			if (comch_ctl_down()) {
				comch_err("the Comch connection to the companion is gone");
				goto out;
			}
			comch_idle_wait(deadline && !measuring_done ? 1 : 10);
		}
	}
	if (sess->rx_bad != 0) {
		comch_err("%" PRIu64 " bad messages received: %s", sess->rx_bad, sess->bad_why);
		goto out;
	}
	if (comch_fp_failed() != 0)
		goto out;
	rc = 0;
out:
	if (rc != 0 && producing && sent == UINT64_MAX) {
		/* Bring the companion's producer back to idle: stop, and take its count. */
		if (!stop_sent)
			(void)comch_ctl_send("stop");
		while (comch_ctl_recv(m, REPLY_WAIT_S) == 0 && strncmp(m, "sent ", 5) != 0 &&
		       strncmp(m, "error ", 6) != 0)
			;
	}
	return rc;
}

int bench_run_comch(const struct bench_cfg *cfg, struct bench_comch *session, struct bench_result *res)
{
	uint64_t job_limit = UINT64_MAX;
	char why[256];
	int rc;

	sess = session;
	sess->err[0] = '\0';
	sess->time_every = bench_time_every(cfg);
	memset(res, 0, sizeof(*res));
	if (cfg->run_limit_jobs != 0)
		job_limit = cfg->run_limit_jobs;
	if (cfg->run_limit_bytes != 0) {
		uint64_t j = (cfg->run_limit_bytes + cfg->job_size - 1) / cfg->job_size;

		if (j < job_limit)
			job_limit = j;
	}
	if (comch_check_limits(doca_dev_as_devinfo(sess->dev), cfg->step == BENCH_STEP_COMCH_PRODUCER, cfg->job_size,
			 cfg->job_count, why, sizeof(why)) != 0) {
		fprintf(stderr, "doca_bench: %s: %s\n", bench_step_name(cfg->step), why);
		return -1;
	}
	if (cfg->n_cores > 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cfg->cores[0], &set);
		if (sched_setaffinity(0, sizeof(set), &set) != 0) {
			fprintf(stderr, "doca_bench: core %d is not available to this process (allowed: see taskset -p "
					"%d)\n", cfg->cores[0], (int)getpid());
			return -1;
		}
	}
	rc = cfg->step == BENCH_STEP_COMCH_PRODUCER ? run_producer(cfg, job_limit) : run_consumer(cfg, job_limit);
	res->threads = 1;
	res->enqueued = sess->submitted;
	res->dequeued = sess->completed;
	res->duration_ns = sess->last_ns > sess->first_ns ? sess->last_ns - sess->first_ns : 0;
	res->bytes_in = res->dequeued * cfg->job_size;
	res->bytes_out = res->dequeued * cfg->job_size;
	if (sess->lat.v != NULL)
		bench_latency_compute(sess->lat.v, sess->lat.n, &res->lat);
	comch_fp_free();
	if (rc == 0 && res->dequeued == 0) {
		comch_err("no job completed in the measured phase");
		rc = -1;
	}
	if (rc != 0)
		fprintf(stderr, "doca_bench: %s: %s\n", bench_step_name(cfg->step),
			sess->err[0] ? sess->err : "failed");
	return rc;
}

/* ---- the companion ------------------------------------------------------------- */

bool bench_is_comch_companion(const struct bench_cfg *cfg)
{
	return cfg->companion_role && cfg->companion != NULL && strncmp(cfg->companion, "comch=", 6) == 0;
}

/* B consumes what A produces, until "end N" and N messages arrived. True if A said bye instead. */
static bool serve_consume(uint64_t size, uint32_t n)
{
	uint64_t posted = 0, expect = UINT64_MAX;
	char m[CTL_MAX];
	uint32_t id = 0;
	int it = 0;

	if (comch_fp_build(false, size, n) != 0 || doca_comch_consumer_get_id(sess->cons, &id) != DOCA_SUCCESS ||
	    comch_fp_submit(false, &posted, UINT64_MAX, 0) < 0) {
		(void)comch_ctl_send("error %s", sess->err[0] ? sess->err : "cannot build the consumer");
		comch_fp_free();
		return false;
	}
	if (comch_ctl_send("ready %u", id) != 0) {
		comch_fp_free();
		return false;
	}
	for (;;) {
		int went;

		if (expect == UINT64_MAX && comch_ctl_poll(m)) {
			if (strcmp(m, "bye") == 0) {
				comch_fp_free();
				return true;
			}
			if (sscanf(m, "end %" SCNu64, &expect) != 1) {
				comch_err("unexpected message '%s' while consuming", m);
				break;
			}
			sess->last_move_ns = comch_now_ns();
		}
		if (expect != UINT64_MAX && sess->rx >= expect)
			break;
		went = comch_fp_submit(false, &posted, UINT64_MAX, 0);
		if (went < 0)
			break;
		if (!comch_progress((++it & 15) == 0 || expect != UINT64_MAX) && went == 0) {
			if (comch_ctl_down() || comch_stop_signal) {
				comch_err(comch_stop_signal ? "stopped by a signal" : "the connection is gone");
				break;
			}
			/* After "end", messages in flight must arrive soon; before it the producer may pause. */
			if (expect != UINT64_MAX && comch_idle_ns() > (uint64_t)(STALL_S * 1e9))
				break;
			if (expect == UINT64_MAX &&
			    comch_idle_ns() > (uint64_t)(COMPANION_DEFAULT_S * 1e9)) {
				comch_err("the measuring side went silent");
				break;
			}
			comch_idle_wait(10);
		}
	}
	if (sess->err[0] != '\0')
		(void)comch_ctl_send("error %s", sess->err);
	else if (sess->failed != 0)
		(void)comch_ctl_send("error %" PRIu64 " consumer receives failed: %s", sess->failed,
			       doca_error_get_descr(sess->first_error));
	else
		(void)comch_ctl_send("done %" PRIu64 " %" PRIu64 " %s", sess->rx, sess->rx_bad, sess->bad_why);
	comch_fp_free();
	return false;
}

/* B produces into A's consumer cons_id: total messages, or until "stop" (total 0). */
static bool serve_produce(uint64_t size, uint32_t n, uint64_t total, uint32_t cons_id)
{
	uint64_t seq = 0, limit = total ? total : UINT64_MAX;
	bool bye = false;
	char m[CTL_MAX];
	int it = 0;

	if (comch_fp_build(true, size, n) != 0 || comch_fp_bind_producer(cons_id) != 0) {
		(void)comch_ctl_send("error %s", sess->err[0] ? sess->err : "cannot build the producer");
		comch_fp_free();
		return false;
	}
	if (comch_ctl_send("ready 0") != 0) {
		comch_fp_free();
		return false;
	}
	for (;;) {
		int went;

		if (comch_ctl_poll(m)) {
			if (strcmp(m, "stop") == 0) {
				limit = seq;
			} else if (strcmp(m, "bye") == 0) {
				bye = true;
				break;
			} else {
				comch_err("unexpected message '%s' while producing", m);
				break;
			}
		}
		if (seq >= limit && sess->inflight == 0)
			break;
		went = comch_fp_submit(true, &seq, limit, 0);
		if (went < 0 || sess->failed != 0)
			break;
		if (!comch_progress((++it & 63) == 0) && went == 0) {
			if (comch_ctl_down() || comch_stop_signal) {
				comch_err(comch_stop_signal ? "stopped by a signal" : "the connection is gone");
				break;
			}
			if (comch_idle_ns() > (uint64_t)(COMPANION_DEFAULT_S * 1e9)) {
				comch_err("the measuring side stopped receiving");
				break;
			}
			comch_idle_wait(10);
		}
	}
	comch_fp_stop();
	if (sess->err[0] != '\0')
		(void)comch_ctl_send("error %s", sess->err);
	else if (sess->failed != 0)
		(void)comch_ctl_send("error %" PRIu64 " producer sends failed: %s", sess->failed,
			       doca_error_get_descr(sess->first_error));
	else
		(void)comch_ctl_send("sent %" PRIu64, seq);
	comch_fp_free();
	return bye;
}

int bench_comch_companion_run(const struct bench_cfg *cfg, struct doca_dev *dev)
{
	const char *name = cfg->companion + 6;
	double idle = cfg->run_limit_seconds > 0 ? cfg->run_limit_seconds : COMPANION_DEFAULT_S;
	char m[CTL_MAX];
	int rc = -1;

	signal(SIGINT, comch_on_signal);
	signal(SIGTERM, comch_on_signal);
	if (comch_session_new(dev, true) == NULL)
		return -1;
	if (comch_session_open(name, idle) != 0)
		goto out;
	printf("doca_bench companion: Comch %s '%s' connected\n", sess->server ? "server" : "client", name);
	fflush(stdout);
	if (comch_ctl_recv(m, REPLY_WAIT_S) != 0)
		goto out;
	if (strcmp(m, "hello " PROTO) != 0) {
		comch_err("expected hello " PROTO ", got '%s'", m);
		(void)comch_ctl_send("error protocol: expected hello " PROTO);
		goto out;
	}
	if (comch_ctl_send("hello " PROTO) != 0)
		goto out;
	for (;;) {
		char mode = 0;
		uint64_t size = 0, total = 0;
		uint32_t n = 0, cons_id = 0;
		char why[256];

		if (comch_ctl_recv(m, idle) != 0)
			goto out;
		sess->err[0] = '\0';
		if (strcmp(m, "bye") == 0)
			break;
		if (strcmp(m, "stop") == 0 || strncmp(m, "end ", 4) == 0)
			continue; /* late for a permutation that already ended */
		if (sscanf(m, "perm %c %" SCNu64 " %u %" SCNu64 " %u", &mode, &size, &n, &total, &cons_id) != 5 ||
		    (mode != 'P' && mode != 'C') || size == 0 || n == 0) {
			(void)comch_ctl_send("error unexpected message '%.100s'", m);
			continue;
		}
		/* The measuring side produces (P): this side consumes, and the other way round. */
		if (comch_check_limits(doca_dev_as_devinfo(dev), mode == 'C', size, n, why, sizeof(why)) != 0) {
			(void)comch_ctl_send("error %s", why);
			continue;
		}
		printf("doca_bench companion: %s %" PRIu64 "-byte messages\n", mode == 'P' ? "consuming" : "producing",
		       size);
		fflush(stdout);
		if (mode == 'P' ? serve_consume(size, n) : serve_produce(size, n, total, cons_id))
			break;
		if (sess->err[0] != '\0') {
			if (comch_ctl_down())
				goto out; /* reported there */
			/* The measuring side was told; the session goes on. */
			fprintf(stderr, "doca_bench: companion: %s\n", sess->err);
		}
	}
	(void)comch_ctl_send("bye");
	printf("doca_bench companion: the session ended, done\n");
	rc = 0;
out:
	if (rc != 0)
		fprintf(stderr, "doca_bench: companion: %s\n", sess->err[0] ? sess->err : "failed");
	comch_session_free();
	return rc;
}

