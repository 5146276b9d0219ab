/*
 * doca_bench_comch.h - what the three files of doca_bench's Comch steps share
 * (not part of doca_bench.h: the rest of the tool sees struct bench_comch
 * only as a handle).
 *
 * doca_bench_comch.c: devices, capability checks, the control connection
 * (server or client) and the session; doca_bench_comch_fp.c: one
 * permutation's producer or consumer, memory and tasks, and the message
 * check; doca_bench_comch_run.c: the measuring side's runs and the
 * companion's loop. One thread: nothing here is locked.
 */
#ifndef DOCA_BENCH_COMCH_H
#define DOCA_BENCH_COMCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "doca_bench.h"

#define MAX_TOTAL_MEMORY (4ull << 30)
#define CTL_MAX 256                 /* longest control message */
#define CTL_QUEUE 16                /* received control messages not yet read */
#define CONNECT_WAIT_S 30.0         /* for the other side to appear */
#define REPLY_WAIT_S 15.0           /* for an answer to a control message */
#define STALL_S 10.0                /* no message moved for this long: the peer is gone or stuck */
#define COMPANION_DEFAULT_S 300.0   /* companion: idle limit without --run-limit-seconds */
#define PROTO "1"

struct cjob {
	struct doca_buf *buf;
	struct doca_comch_producer_task_send *send;
	struct doca_comch_consumer_task_post_recv *recv;
	uint8_t *addr;
	uint64_t submit_ns;
	bool inflight;
	bool measured;  /* submitted in the measured phase */
	bool timed;     /* a measured one whose latency is taken (submit_ns set) */
	bool corrupted; /* the last byte was flipped on purpose (see corrupt_seq) */
};

struct bench_comch {
	bool server;        /* this process is the Comch server (the Arm side) */
	bool companion;
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_pe *pe_ctl, *pe_fp;
	struct doca_comch_server *srv;
	struct doca_comch_client *cli;
	struct doca_comch_connection *conn;
	bool disconnected;
	uint32_t new_cons;  /* last consumer the peer announced */
	char q[CTL_QUEUE][CTL_MAX];
	uint32_t q_head, q_tail;
	bool q_overflow;
	uint32_t ctl_inflight;
	doca_error_t ctl_err;
	int ep;             /* epoll on both PEs' notification handles */
	/* the fast path of the current permutation */
	size_t size;
	uint32_t n;
	uint8_t *mem;
	size_t mem_len;
	uint8_t *ref;       /* the expected message body */
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_comch_producer *prod;
	struct doca_comch_consumer *cons;
	struct cjob *jobs;
	uint32_t *ready;    /* stack of jobs that may be (re)submitted */
	uint32_t n_ready;
	uint32_t inflight;
	bool stopping;      /* tearing down: receive flushes are not failures */
	uint64_t failed;
	doca_error_t first_error;
	/* receive check */
	uint64_t rx, rx_bad;
	char bad_why[128];
	/* measurement */
	bool measuring;
	uint64_t first_ns, last_ns, completed, submitted;
	struct bench_lat_samples lat;
	uint32_t time_every;   /* time one measured job in this many (bench_time_every) */
	uint64_t moves;        /* jobs completed, all phases */
	uint64_t moves_seen;   /* moves at last_move_ns */
	uint64_t last_move_ns; /* when moves was last seen to change (comch_idle_ns) */
	uint64_t corrupt_seq;  /* SOFTDOCA_BENCH_CORRUPT_SEQ: the message this producer spoils */
	char err[256];
};

/* The one session of this process: the libraries' callbacks reach it here. */
extern struct bench_comch *sess;
extern volatile sig_atomic_t comch_stop_signal;

/* Record the first error of the session (comch_err), or return -1 from the caller with it. */
#define CHECK(call, what)                                                          \
	do {                                                                       \
		doca_error_t e_ = (call);                                          \
		if (e_ != DOCA_SUCCESS) {                                          \
			comch_err("%s: %s", what, doca_error_get_descr(e_));         \
			return -1;                                                 \
		}                                                                  \
	} while (0)

/* doca_bench_comch.c */
uint64_t comch_now_ns(void);
void comch_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void comch_on_signal(int sig);
int comch_check_limits(struct doca_devinfo *di, bool producer, uint64_t size, uint64_t n, char *why, size_t len);
struct bench_comch *comch_session_new(struct doca_dev *dev, bool companion);
int comch_session_open(const char *name, double wait_s);
void comch_session_free(void);
bool comch_ctl_down(void);
int comch_ctl_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int comch_ctl_recv(char *m, double secs);
bool comch_ctl_poll(char *m);
int comch_progress(bool ctl);
void comch_idle_wait(int ms);
void comch_stop_ctx(struct doca_ctx *ctx);

/* doca_bench_comch_fp.c */
int comch_fp_build(bool producer, size_t size, uint32_t n);
int comch_fp_bind_producer(uint32_t cons_id);
/* How long no job has completed: the clock is read here, not per job. */
uint64_t comch_idle_ns(void);
int comch_fp_submit(bool producer, uint64_t *seq, uint64_t limit, uint64_t measured_limit);
int comch_fp_failed(void);
void comch_fp_stop(void);
void comch_fp_free(void);

#endif
