/*
 * sd_fault.h - SOFTDOCA_FAULTS: faults injected on purpose, so that a
 * program's error paths can be tested on a machine where nothing fails.
 *
 *     SOFTDOCA_FAULTS="rule[;rule...]"      rule = WHERE:WHEN:WHAT
 *
 *     WHERE  dma      DMA memcpy tasks submitted by this process
 *            comch    Comch messages sent by this process (send tasks of
 *                     servers and clients; not the producer/consumer fast path)
 *            producer Comch fast-path messages sent by this process's
 *                     producers (doca_comch_producer send tasks)
 *     WHEN   nth=N    the Nth of them (counted per process and WHERE, from 1)
 *            every=N  the Nth, 2Nth, 3Nth...
 *            after=N  every one after the first N
 *            size=N, size>=N, size<=N   those of that many bytes (DMA: the
 *                     source's data length; Comch: the message length)
 *     WHAT   dma:     error=NAME   the task fails with that DOCA error when it
 *                                  executes (NAME with or without DOCA_ERROR_):
 *                                  its error callback runs, then the context
 *                                  moves to STOPPING and flushes the rest, as
 *                                  for any execution failure; the destination
 *                                  is left untouched
 *            comch:   drop         the message never arrives; its send task
 *                                  completes successfully (a message lost on
 *                                  the link, as the sender sees it)
 *                     delay=D      the message leaves D after it was submitted
 *                                  (D = N followed by us, ms or s, at most 60 s);
 *                                  later messages of that connection wait
 *                                  behind it, so order is kept
 *                     cut          the link is cut instead of sending: the send
 *                                  fails with DOCA_ERROR_CONNECTION_RESET and
 *                                  both sides see what a dead peer looks like
 *                                  (the peer's connection closes; a client's
 *                                  context stops)
 *            producer: drop        the message is not published; its send task
 *                                  completes successfully (lost on the way)
 *                     error=NAME   the send task is accepted and completes
 *                                  with that error (its error callback runs);
 *                                  nothing is published, later sends go on
 *                     cut          the fast path is cut for this producer:
 *                                  the send fails with
 *                                  DOCA_ERROR_CONNECTION_RESET (its error
 *                                  callback runs) and the producer context
 *                                  fails and stops, as on a lost connection;
 *                                  the peer's consumer just sees no more
 *                                  messages from it (the control connection
 *                                  itself stays up: use a comch cut rule to
 *                                  kill that)
 *                     (delay is not available for producer rules)
 *
 * The first rule that matches a task or message decides. The variable is
 * read once, at the first doca_dma_create / doca_comch_server_create /
 * doca_comch_client_create / doca_comch_producer_create; a malformed variable makes each of those calls
 * fail with DOCA_ERROR_INVALID_VALUE and an SDK error naming the rule and the
 * grammar (never a silently unfaulted run). Each rule logs one SDK WARNING
 * the first time it fires and an INFO line at exit with how often it fired.
 *
 * Cost when unset: the hooks test sd_fault_where (set once, before any
 * context of the process exists) with one predictable branch.
 *
 * Thread-safe. Implemented in src/core/fault.c.
 */
#ifndef SD_FAULT_H_
#define SD_FAULT_H_

#include "sd_abi.h"

#include <stdbool.h>
#include <stdint.h>

#include <doca_error.h>

#define SD_FAULT_DMA (1u << 0)
#define SD_FAULT_COMCH (1u << 1)
#define SD_FAULT_PRODUCER (1u << 2)

/* Which WHEREs have rules (0 without the variable, or with a malformed one). */
extern uint32_t sd_fault_where;

static inline bool sd_fault_active(uint32_t where)
{
	return __builtin_expect((sd_fault_where & where) != 0, 0);
}

/* Read and check SOFTDOCA_FAULTS (once per process). DOCA_SUCCESS, or
 * DOCA_ERROR_INVALID_VALUE (logged on every call) when it is malformed:
 * the caller's create fails with it. */
doca_error_t sd_fault_setup(void);

/* A DMA task is being submitted with that many source bytes: DOCA_SUCCESS,
 * or the error it must fail with (counted and logged here). */
doca_error_t sd_fault_dma_submit(const void *task, uint64_t bytes);

enum sd_fault_action {
	SD_FAULT_PASS = 0,
	SD_FAULT_DROP,
	SD_FAULT_HOLD, /* not yet: try again later */
	SD_FAULT_CUT,
	SD_FAULT_FAIL, /* fail with the error given */
};

/* A Comch send task is submitted: decide (and count) its fault once. */
void sd_fault_comch_submit(const void *task, uint32_t len, uint64_t submit_ns);
/* Each time the task is about to go on the link: what to do with it now. */
enum sd_fault_action sd_fault_comch_send(const void *task, uint64_t now_ns);

/* A fast-path producer send of len bytes is submitted: what to do with it
 * (PASS, DROP, CUT, or FAIL with *err), decided and counted once. */
enum sd_fault_action sd_fault_producer_send(uint32_t len, doca_error_t *err);

#endif /* SD_FAULT_H_ */
