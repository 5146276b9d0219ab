/*
 * doca_bench_comch_fp.c - one permutation's Comch fast path: memory, buffers,
 * the producer or the consumer and its tasks, submission, and the check of
 * every message at the receiving end. Both the measuring side and the
 * companion build theirs here, fresh for each permutation.
 *
 * Messages are checked at the receiving end: the first 8 bytes (fewer in a
 * shorter message) are the message's sequence number, little endian, the
 * rest a pattern of the position and the size; a message of the wrong
 * length, sequence or content is counted and reported, and fails the run.
 * Per-message latency: producer step, a send task's submit to its completion
 * callback (a send the consumer has no receive for is refused with
 * DOCA_ERROR_AGAIN and retried: it was not submitted); consumer step, a
 * receive task's post to its completion (the time a posted buffer waits for
 * the producer's message). Throughput is from the first measured submit (or
 * post) to the last measured completion. In throughput mode one measured
 * job in BENCH_TIME_EVERY is timed, and completions read the clock only at
 * that pace, when nothing is left in flight, and after the measured phase
 * (for its last completion): at 64 B two clock reads per message cost more
 * than the message does. How long nothing moved (stall checks) is read from
 * a count of completions, in idle loops only (comch_idle_ns).
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

/* ---- messages -------------------------------------------------------------- */

static uint8_t pattern(size_t i, size_t size)
{
	return (uint8_t)(i * 7 + size * 13 + 0x5a);
}

/*
 * Write message seq's header into job j's buffer. The test aid
 * SOFTDOCA_BENCH_CORRUPT_SEQ=N makes this producer flip the last byte of
 * message N, so that the receiving end's check can be seen to work.
 */
static void stamp(struct cjob *j, size_t size, uint64_t seq)
{
	size_t i;

	if (j->corrupted) {
		j->addr[size - 1] = sess->ref[size - 1];
		j->corrupted = false;
	}
	for (i = 0; i < 8 && i < size; i++)
		j->addr[i] = (uint8_t)(seq >> (8 * i));
	if (seq == sess->corrupt_seq) {
		j->addr[size - 1] ^= 0xff;
		j->corrupted = true;
	}
}

/* The receiving end's check of message number sess->rx. */
static void check_msg(struct doca_buf *buf)
{
	size_t len = 0, i;
	void *data = NULL;
	const uint8_t *p;
	uint64_t seq = sess->rx++;

	if (doca_buf_get_data(buf, &data) != DOCA_SUCCESS || doca_buf_get_data_len(buf, &len) != DOCA_SUCCESS)
		len = SIZE_MAX;
	p = data;
	if (len != sess->size) {
		if (sess->rx_bad++ == 0)
			snprintf(sess->bad_why, sizeof(sess->bad_why),
				 "message %" PRIu64 " has %zu bytes, expected %zu", seq, len, sess->size);
		return;
	}
	for (i = 0; i < 8 && i < len; i++) {
		if (p[i] != (uint8_t)(seq >> (8 * i))) {
			uint64_t got = 0;

			for (i = 0; i < 8 && i < len; i++)
				got |= (uint64_t)p[i] << (8 * i);
			if (sess->rx_bad++ == 0)
				snprintf(sess->bad_why, sizeof(sess->bad_why),
					 "message %" PRIu64 " carries sequence number %"
					 PRIu64 " (lost, repeated or reordered messages)", seq, got);
			return;
		}
	}
	if (len > 8 && memcmp(p + 8, sess->ref + 8, len - 8) != 0) {
		for (i = 8; i < len && p[i] == sess->ref[i]; i++)
			;
		if (sess->rx_bad++ == 0)
			snprintf(sess->bad_why, sizeof(sess->bad_why), "message %" PRIu64 " differs at byte %zu", seq,
				 i);
	}
}

/* ---- the fast path of one permutation ---------------------------------------------- */

static void job_free_task(struct cjob *j)
{
	if (j->send != NULL)
		doca_task_free(doca_comch_producer_task_send_as_task(j->send));
	if (j->recv != NULL)
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(j->recv));
	j->send = NULL;
	j->recv = NULL;
}

static void job_done(struct cjob *j)
{
	j->inflight = false;
	sess->inflight--;
	if (sess->stopping) {
		job_free_task(j); /* a context reaches idle once its tasks are freed */
		return;
	}
	sess->moves++;
	if (j->measured) {
		sess->completed++;
		if (j->timed || sess->completed % sess->time_every == 0 || sess->inflight == 0 || !sess->measuring) {
			uint64_t now = comch_now_ns();

			sess->last_ns = now;
			if (j->timed)
				bench_lat_record(&sess->lat, now - j->submit_ns);
		}
	}
	sess->ready[sess->n_ready++] = (uint32_t)(j - sess->jobs);
}

uint64_t comch_idle_ns(void)
{
	uint64_t now = comch_now_ns();

	if (sess->moves != sess->moves_seen) {
		sess->moves_seen = sess->moves;
		sess->last_move_ns = now;
	}
	return now - sess->last_move_ns;
}

static void job_failed(struct cjob *j, doca_error_t why)
{
	j->inflight = false;
	sess->inflight--;
	if (sess->stopping) {
		job_free_task(j); /* receives flushed by the consumer's stop */
		return;
	}
	sess->failed++;
	if (sess->first_error == DOCA_SUCCESS)
		sess->first_error = why;
}

static void send_ok(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	(void)t;
	(void)cu;
	job_done(tu.ptr);
}

static void send_err(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	(void)cu;
	job_failed(tu.ptr, doca_task_get_status(doca_comch_producer_task_send_as_task(t)));
}

static void recv_ok(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	(void)cu;
	check_msg(doca_comch_consumer_task_post_recv_get_buf(t));
	job_done(tu.ptr);
}

static void recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	(void)cu;
	job_failed(tu.ptr, doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(t)));
}

static void fp_reset_counters(void)
{
	sess->rx = sess->rx_bad = 0;
	sess->bad_why[0] = '\0';
	sess->measuring = false;
	sess->first_ns = sess->last_ns = sess->completed = sess->submitted = 0;
	bench_lat_reset(&sess->lat);
	sess->failed = 0;
	sess->first_error = DOCA_SUCCESS;
	sess->stopping = false;
	sess->last_move_ns = comch_now_ns();
	sess->moves_seen = sess->moves;
	sess->corrupt_seq = UINT64_MAX;
	if (getenv("SOFTDOCA_BENCH_CORRUPT_SEQ") != NULL) {
		char *end;
		unsigned long long v = strtoull(getenv("SOFTDOCA_BENCH_CORRUPT_SEQ"), &end, 10);

		if (*end == '\0')
			sess->corrupt_seq = v;
	}
}

/* Memory, inventory and buffers for n messages of size bytes, and the producer or the consumer. */
int comch_fp_build(bool producer, size_t size, uint32_t n)
{
	uint32_t i;

	sess->size = size;
	sess->n = n;
	fp_reset_counters();
	sess->mem_len = ((size_t)n * size + 4095) & ~(size_t)4095;
	if (posix_memalign((void **)&sess->mem, 4096, sess->mem_len) != 0) {
		sess->mem = NULL;
		comch_err("out of memory (%zu bytes)", sess->mem_len);
		return -1;
	}
	sess->ref = malloc(size);
	sess->jobs = calloc(n, sizeof(*sess->jobs));
	sess->ready = calloc(n, sizeof(*sess->ready));
	sess->lat.v = malloc(BENCH_LAT_CAP * sizeof(*sess->lat.v));
	if (sess->ref == NULL || sess->jobs == NULL || sess->ready == NULL || sess->lat.v == NULL) {
		comch_err("out of memory");
		return -1;
	}
	for (i = 0; i < size; i++)
		sess->ref[i] = pattern(i, size);
	for (i = 0; i < n; i++)
		memcpy(sess->mem + (size_t)i * size, sess->ref, size); /* also faults the pages in before timing */
	CHECK(doca_mmap_create(&sess->mmap), "doca_mmap_create");
	CHECK(doca_mmap_set_memrange(sess->mmap, sess->mem, sess->mem_len), "doca_mmap_set_memrange");
	CHECK(doca_mmap_set_permissions(sess->mmap,
					DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_PCI_READ_WRITE),
	      "doca_mmap_set_permissions");
	CHECK(doca_mmap_add_dev(sess->mmap, sess->dev), "doca_mmap_add_dev");
	CHECK(doca_mmap_start(sess->mmap), "doca_mmap_start");
	CHECK(doca_buf_inventory_create(n, &sess->inv), "doca_buf_inventory_create");
	CHECK(doca_buf_inventory_start(sess->inv), "doca_buf_inventory_start");
	for (i = 0; i < n; i++) {
		struct cjob *j = &sess->jobs[i];

		j->addr = sess->mem + (size_t)i * size;
		if (producer)
			CHECK(doca_buf_inventory_buf_get_by_data(sess->inv, sess->mmap, j->addr, size, &j->buf),
			      "doca_buf_inventory_buf_get_by_data");
		else
			CHECK(doca_buf_inventory_buf_get_by_addr(sess->inv, sess->mmap, j->addr, size, &j->buf),
			      "doca_buf_inventory_buf_get_by_addr");
		sess->ready[sess->n_ready++] = i;
	}
	if (producer) {
		CHECK(doca_comch_producer_create(sess->conn, &sess->prod), "doca_comch_producer_create");
		CHECK(doca_pe_connect_ctx(sess->pe_fp, doca_comch_producer_as_ctx(sess->prod)), "doca_pe_connect_ctx");
		CHECK(doca_comch_producer_task_send_set_conf(sess->prod, send_ok, send_err, n),
		      "doca_comch_producer_task_send_set_conf");
		CHECK(doca_ctx_start(doca_comch_producer_as_ctx(sess->prod)), "doca_ctx_start (producer)");
	} else {
		struct doca_ctx *ctx;
		enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;
		uint64_t end = comch_now_ns() + (uint64_t)(REPLY_WAIT_S * 1e9);
		doca_error_t e;

		CHECK(doca_comch_consumer_create(sess->conn, sess->mmap, &sess->cons), "doca_comch_consumer_create");
		ctx = doca_comch_consumer_as_ctx(sess->cons);
		CHECK(doca_pe_connect_ctx(sess->pe_fp, ctx), "doca_pe_connect_ctx");
		CHECK(doca_comch_consumer_task_post_recv_set_conf(sess->cons, recv_ok, recv_err, n),
		      "doca_comch_consumer_task_post_recv_set_conf");
		e = doca_ctx_start(ctx);
		if (e != DOCA_SUCCESS && e != DOCA_ERROR_IN_PROGRESS) {
			comch_err("doca_ctx_start (consumer): %s", doca_error_get_descr(e));
			return -1;
		}
		/* A consumer starts asynchronously: it runs once the connection told the peer about it. */
		while (doca_ctx_get_state(ctx, &st) == DOCA_SUCCESS && st == DOCA_CTX_STATE_STARTING &&
		       comch_now_ns() < end)
			comch_progress(true);
		if (st != DOCA_CTX_STATE_RUNNING) {
			comch_err("the consumer did not start (state %d)", (int)st);
			return -1;
		}
		for (i = 0; i < n; i++) {
			union doca_data ud = {.ptr = &sess->jobs[i]};

			CHECK(doca_comch_consumer_task_post_recv_alloc_init(sess->cons, sess->jobs[i].buf,
									   &sess->jobs[i].recv),
			      "doca_comch_consumer_task_post_recv_alloc_init");
			doca_task_set_user_data(doca_comch_consumer_task_post_recv_as_task(sess->jobs[i].recv), ud);
		}
	}
	return 0;
}

/* The producer's send tasks, once the peer's consumer is known to this side's connection. */
int comch_fp_bind_producer(uint32_t cons_id)
{
	uint64_t end = comch_now_ns() + (uint64_t)(REPLY_WAIT_S * 1e9);
	uint32_t i;

	while (sess->new_cons != cons_id) {
		if (comch_now_ns() >= end || comch_ctl_down()) {
			comch_err("the peer's consumer %u was never announced on the connection", cons_id);
			return -1;
		}
		if (!comch_progress(true))
			comch_idle_wait(10);
	}
	for (i = 0; i < sess->n; i++) {
		union doca_data ud = {.ptr = &sess->jobs[i]};

		CHECK(doca_comch_producer_task_send_alloc_init(sess->prod, sess->jobs[i].buf, NULL, 0, cons_id,
							       &sess->jobs[i].send),
		      "doca_comch_producer_task_send_alloc_init");
		doca_task_set_user_data(doca_comch_producer_task_send_as_task(sess->jobs[i].send), ud);
	}
	return 0;
}

/*
 * Stop the producer or consumer: a context reaches idle only once all its
 * tasks are freed, so the idle ones are freed first and the ones in flight
 * (posted receives, which the stop flushes) as they come back.
 */
void comch_fp_stop(void)
{
	uint32_t i;

	sess->stopping = true;
	for (i = 0; sess->jobs != NULL && i < sess->n; i++)
		if (!sess->jobs[i].inflight)
			job_free_task(&sess->jobs[i]);
	if (sess->prod != NULL)
		comch_stop_ctx(doca_comch_producer_as_ctx(sess->prod));
	if (sess->cons != NULL)
		comch_stop_ctx(doca_comch_consumer_as_ctx(sess->cons));
}

void comch_fp_free(void)
{
	uint32_t i;

	comch_fp_stop();
	if (sess->jobs != NULL) {
		for (i = 0; i < sess->n; i++) {
			if (!sess->jobs[i].inflight)
				job_free_task(&sess->jobs[i]);
			if (sess->jobs[i].buf != NULL)
				(void)doca_buf_dec_refcount(sess->jobs[i].buf, NULL);
		}
	}
	if (sess->prod != NULL)
		(void)doca_comch_producer_destroy(sess->prod);
	if (sess->cons != NULL)
		(void)doca_comch_consumer_destroy(sess->cons);
	sess->prod = NULL;
	sess->cons = NULL;
	if (sess->inv != NULL) {
		(void)doca_buf_inventory_stop(sess->inv);
		(void)doca_buf_inventory_destroy(sess->inv);
	}
	sess->inv = NULL;
	if (sess->mmap != NULL) {
		(void)doca_mmap_stop(sess->mmap);
		(void)doca_mmap_destroy(sess->mmap);
	}
	sess->mmap = NULL;
	free(sess->mem);
	free(sess->ref);
	free(sess->jobs);
	free(sess->ready);
	free(sess->lat.v);
	sess->mem = sess->ref = NULL;
	sess->jobs = NULL;
	sess->ready = NULL;
	sess->lat.v = NULL;
	sess->n_ready = sess->inflight = 0;
	sess->n = 0;
}

/*
 * Submit ready jobs while *seq < limit. A send the consumer cannot take yet
 * (DOCA_ERROR_AGAIN) stays ready for the next round. While measuring, the
 * first measured_limit submissions are the measured ones; later ones (the
 * receives kept posted to drain the producer) are not. Returns how many
 * went, or -1 on a failure.
 */
int comch_fp_submit(bool producer, uint64_t *seq, uint64_t limit, uint64_t measured_limit)
{
	int went = 0;

	while (sess->n_ready > 0 && *seq < limit) {
		struct cjob *j = &sess->jobs[sess->ready[sess->n_ready - 1]];
		bool measured = sess->measuring && sess->submitted < measured_limit;
		doca_error_t e;

		j->timed = measured && sess->submitted % sess->time_every == 0;
		if (producer) {
			stamp(j, sess->size, *seq);
			if (j->timed)
				j->submit_ns = comch_now_ns();
			e = doca_task_submit(doca_comch_producer_task_send_as_task(j->send));
		} else {
			(void)doca_buf_reset_data_len(j->buf);
			if (j->timed)
				j->submit_ns = comch_now_ns();
			e = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(j->recv));
		}
		if (e == DOCA_ERROR_AGAIN)
			break;
		if (e != DOCA_SUCCESS) {
			comch_err("%s submit: %s", producer ? "producer send" : "consumer receive",
				doca_error_get_descr(e));
			return -1;
		}
		sess->n_ready--;
		j->inflight = true;
		j->measured = measured;
		sess->inflight++;
		went++;
		(*seq)++;
		if (measured && sess->submitted++ == 0)
			sess->first_ns = j->submit_ns; /* the first is always timed */
	}
	return went;
}

int comch_fp_failed(void)
{
	if (sess->failed == 0)
		return 0;
	comch_err("%" PRIu64 " Comch tasks failed: %s", sess->failed, doca_error_get_descr(sess->first_error));
	return -1;
}

