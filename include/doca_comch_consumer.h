/*
 * doca_comch_consumer.h - DOCA Comch consumer: the receiving half of the
 * Comch fast path.
 *
 * Model: a consumer rides on an established doca_comch_connection and on an
 * mmap holding the memory its receive buffers come from. Starting it
 * announces it to the peer, whose new-consumer event carries this consumer's
 * id (doca_comch_consumer_get_id); stopping or destroying it - or the death
 * of its process - reaches the peer as an expired-consumer event. The
 * consumer posts receive buffers with post_recv tasks; each message a peer
 * producer sends fills the oldest posted buffer (the data is appended to the
 * buffer's data segment, which must have room for it; reset the data length
 * before posting a buffer again) and completes that task. The producer's id
 * and any immediate data are then available on the task.
 *
 * Call order:
 *   doca_comch_consumer_create(connection, mmap) -> doca_comch_consumer_as_ctx
 *   -> doca_pe_connect_ctx -> doca_comch_consumer_task_post_recv_set_conf
 *   [-> doca_comch_consumer_set_imm_data_len] -> doca_ctx_start, which
 *   answers DOCA_ERROR_IN_PROGRESS: the context is STARTING (no task can be
 *   allocated yet) while it is announced, and reaches RUNNING through the
 *   state-changed callback from a later doca_pe_progress of its PE, never
 *   inside doca_ctx_start (a PE waiting on its notification handle is woken
 *   for it) -> post_recv_alloc_init + doca_task_submit per buffer (from the
 *   RUNNING callback, or once doca_ctx_get_state says RUNNING) ->
 *   doca_pe_progress ... -> doca_ctx_stop (posted tasks are flushed to the
 *   error callback, where they are freed; the context reaches IDLE once
 *   they are) -> progress to IDLE -> doca_comch_consumer_destroy. The peer
 *   learns of the consumer whether or not it has producers or consumers of
 *   its own on the connection yet: its new-consumer event is never lost. A
 *   consumer holds its connection from create to destroy: destroying the
 *   connection's server/client (or doca_comch_server_disconnect) answers
 *   DOCA_ERROR_IN_USE until then.
 *
 * Errors of post_recv tasks (error callback, doca_task_get_status):
 * DOCA_ERROR_IO_FAILED - flushed by doca_ctx_stop; DOCA_ERROR_CONNECTION_RESET
 * - the connection died (the context then moves to STOPPING and IDLE by
 * itself); DOCA_ERROR_UNEXPECTED - the peer wrote garbage into the shared
 * ring (the consumer then stops).
 *
 * Threading: a consumer and its tasks belong to the thread that progresses
 * the consumer's PE; it may differ from the thread progressing the
 * connection's server/client, which must keep being progressed (it carries
 * the announcements). Received data is picked up by doca_pe_progress of the
 * consumer's PE, busy polling or event driven: progress the PE until
 * doca_pe_progress returns 0 (an idle consumer reports activity for a few
 * dozen polls first), arm the notification handle and wait; the next
 * message from a producer makes it readable.
 *
 * softdoca: when the mmap grants DOCA_ACCESS_FLAG_PCI_READ_WRITE (the right a
 * card needs to write into it), doca_ctx_start moves the whole pages of its
 * range in place onto shared memory (same addresses, content kept) and the
 * peer's producers write each message straight into the posted buffer, one
 * copy; the unaligned edge pages and memory that cannot move (locked,
 * file-backed, shared, hugetlb, the stack; SOFTDOCA_REMOTE_NO_MOVE=1) take the
 * shared ring, two copies. Rules this brings, as for doca_mmap_export_pci: no
 * thread may write the mmap's memory while doca_ctx_start of the consumer
 * runs (a store between the copy and the remap is lost); from then on,
 * after fork() a child shares those pages instead of copying them, and
 * MADV_DONTNEED no longer zeroes them. The pages stay moved (and mapped by
 * the peer until it sees the consumer expire) after the consumer stops.
 */
#ifndef DOCA_COMCH_CONSUMER_H_
#define DOCA_COMCH_CONSUMER_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_ctx;
struct doca_dev;
struct doca_devinfo;
struct doca_mmap;
struct doca_task;
struct doca_dpa_thread;
struct doca_comch_connection;
struct doca_comch_consumer;
struct doca_comch_consumer_task_post_recv;
/* A completion context on the DPA shared by DPA consumers (below). */
struct doca_comch_consumer_completion;

/* Handles a DPA kernel uses to reach a consumer / a consumer completion
 * context. DOCA 3.3 declares the second in doca_types.h; it stays here too
 * until ours does (repeating an identical typedef is valid C11 and C++). */
typedef uint64_t doca_dpa_dev_comch_consumer_t;
typedef uint64_t doca_dpa_dev_comch_consumer_completion_t;

/* ---- creation and capabilities ----------------------------------------- */

/* INVALID_VALUE: NULL argument; BAD_STATE: the connection is not alive or
 * the mmap is not started; NO_MEMORY; FULL: max consumers reached. */
DOCA_STABLE
doca_error_t doca_comch_consumer_create(struct doca_comch_connection *comch_connection, struct doca_mmap *buf_mmap,
					struct doca_comch_consumer **consumer);

/* BAD_STATE unless the context is IDLE. */
DOCA_STABLE
doca_error_t doca_comch_consumer_destroy(struct doca_comch_consumer *consumer);

DOCA_STABLE
doca_error_t doca_comch_consumer_cap_is_supported(const struct doca_devinfo *devinfo);

/* Per-connection unique, non-zero; what the peer's consumer events carry. */
DOCA_STABLE
doca_error_t doca_comch_consumer_get_id(const struct doca_comch_consumer *consumer, uint32_t *id);

DOCA_STABLE
doca_error_t doca_comch_consumer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo, uint32_t *max_num_tasks);

DOCA_STABLE
doca_error_t doca_comch_consumer_cap_get_max_buf_size(const struct doca_devinfo *devinfo, uint32_t *max_buf_size);

DOCA_STABLE
doca_error_t doca_comch_consumer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
							  uint32_t *max_buf_list_len);

DOCA_STABLE
doca_error_t doca_comch_consumer_cap_get_max_consumers(const struct doca_devinfo *devinfo, uint32_t *max_consumers);

DOCA_STABLE
doca_error_t doca_comch_consumer_cap_get_max_imm_data_len(const struct doca_devinfo *devinfo,
							  uint32_t *max_imm_data_len);

/* Immediate data this consumer accepts (default: the maximum). */
DOCA_STABLE
doca_error_t doca_comch_consumer_get_imm_data_len(const struct doca_comch_consumer *consumer, uint32_t *imm_data_len);

/* IDLE only; at most doca_comch_consumer_cap_get_max_imm_data_len. */
DOCA_STABLE
doca_error_t doca_comch_consumer_set_imm_data_len(struct doca_comch_consumer *consumer, uint32_t imm_data_len);

DOCA_STABLE
struct doca_ctx *doca_comch_consumer_as_ctx(struct doca_comch_consumer *consumer);

/* ---- consumers on the DPA -------------------------------------------------
 * A consumer whose data path runs on the DPA (doca_ctx_set_datapath_on_dpa)
 * reports its receives to a consumer completion context, which a DPA thread
 * polls; the CPU side only configures both. Call order in DOCA:
 *   doca_comch_consumer_completion_create -> _set_max_num_consumers,
 *   _set_max_num_recv, _set_imm_data_len, _set_dpa_thread ->
 *   doca_comch_consumer_completion_start -> per consumer:
 *   doca_ctx_set_datapath_on_dpa, doca_comch_consumer_set_dev_max_num_recv,
 *   doca_comch_consumer_set_completion, doca_ctx_start ->
 *   doca_comch_consumer_get_dpa_handle / _completion_get_dpa_handle for the
 *   kernel -> ... -> consumers stopped and destroyed ->
 *   doca_comch_consumer_completion_stop -> _destroy.
 *
 * softdoca emulates no DPA. The completion context is a real configuration
 * object (create, its three settings with their checks, destroy); whatever needs
 * a DPA answers DOCA_ERROR_NOT_SUPPORTED after its argument and state
 * checks: _set_dpa_thread, _start, _get_dpa_handle, and on the consumer
 * set_dev_max_num_recv, set_completion and get_dpa_handle. So a completion
 * context never runs: _stop answers BAD_STATE, and destroy always succeeds.
 * Not thread-safe: use one completion context from one thread at a time.
 */

/* Allocates a stopped completion context. softdoca defaults: 1 consumer,
 * 64 receives, immediate data up to the maximum (32 bytes).
 * INVALID_VALUE: consumer_comp is NULL; NO_MEMORY. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_create(struct doca_comch_consumer_completion **consumer_comp);

/* The DPA thread woken by completions. INVALID_VALUE: NULL argument;
 * NOT_SUPPORTED otherwise (no DPA thread exists in softdoca). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_set_dpa_thread(struct doca_comch_consumer_completion *consumer_comp,
							   struct doca_dpa_thread *dpa_thread);

/* Frees the context (and, in DOCA, its DPA handle). INVALID_VALUE: NULL. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_destroy(struct doca_comch_consumer_completion *consumer_comp);

/* Checks the configuration and creates the context on the DPA; once
 * started it accepts consumers and refuses configuration. INVALID_VALUE:
 * NULL; NOT_SUPPORTED (no DPA). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_start(struct doca_comch_consumer_completion *consumer_comp);

/* Stops a started context that no consumer uses any more. INVALID_VALUE:
 * NULL; BAD_STATE: not started (always, in softdoca). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_stop(struct doca_comch_consumer_completion *consumer_comp);

/* The context's handle for DPA kernels. INVALID_VALUE: NULL argument;
 * NOT_SUPPORTED (no DPA). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_get_dpa_handle(
	struct doca_comch_consumer_completion *consumer_comp,
	doca_dpa_dev_comch_consumer_completion_t *consumer_comp_handle);

/* Most consumers that may share the context; rounded up to a power of two
 * (the getter answers the rounded value). INVALID_VALUE: NULL, 0, or above
 * 2^31; BAD_STATE once started. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_set_max_num_consumers(struct doca_comch_consumer_completion *consumer_comp,
								  uint32_t max_num_consumers);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_get_max_num_consumers(
	const struct doca_comch_consumer_completion *consumer_comp, uint32_t *max_num_consumers);

/* Most receives outstanding over all its consumers; rounded up to a power
 * of two as above, same errors. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_set_max_num_recv(struct doca_comch_consumer_completion *consumer_comp,
							     uint32_t max_num_recv);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_get_max_num_recv(const struct doca_comch_consumer_completion *consumer_comp,
							     uint32_t *max_num_recv);

/* Immediate data the context carries per completion: at least that of any
 * consumer using it, at most doca_comch_consumer_cap_get_max_imm_data_len.
 * INVALID_VALUE: NULL or too long; BAD_STATE once started. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_set_imm_data_len(struct doca_comch_consumer_completion *consumer_comp,
							     uint32_t imm_data_len);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_completion_get_imm_data_len(const struct doca_comch_consumer_completion *consumer_comp,
							     uint32_t *imm_data_len);

/* Most receives the DPA consumer may have posted (rounded up to a power of
 * two in DOCA). INVALID_VALUE: NULL or 0; BAD_STATE: the consumer is not
 * IDLE; NOT_SUPPORTED (no DPA). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_set_dev_max_num_recv(struct doca_comch_consumer *consumer, uint32_t dev_num_recv);

/* Report this DPA consumer's receives to consumer_comp, tagged with
 * user_data. INVALID_VALUE: NULL argument; BAD_STATE: the consumer is not
 * IDLE; NOT_SUPPORTED (no DPA). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_set_completion(struct doca_comch_consumer *consumer,
						struct doca_comch_consumer_completion *consumer_comp,
						uint32_t user_data);

/* The consumer's handle for DPA kernels. INVALID_VALUE: NULL argument;
 * NOT_SUPPORTED (no DPA). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_get_dpa_handle(struct doca_comch_consumer *consumer,
						doca_dpa_dev_comch_consumer_t *dpa_consumer);

/* ---- post_recv task ----------------------------------------------------- */

/* Used for both the success and the error callback. */
typedef void (*doca_comch_consumer_task_post_recv_completion_cb_t)(struct doca_comch_consumer_task_post_recv *task,
								   union doca_data task_user_data,
								   union doca_data ctx_user_data);

/* IDLE only. num_post_recv_tasks: 1..doca_comch_consumer_cap_get_max_num_tasks. */
DOCA_STABLE
doca_error_t doca_comch_consumer_task_post_recv_set_conf(
	struct doca_comch_consumer *consumer, doca_comch_consumer_task_post_recv_completion_cb_t task_completion_cb,
	doca_comch_consumer_task_post_recv_completion_cb_t task_error_cb, uint32_t num_post_recv_tasks);

/* buf must lie inside the consumer's mmap. INVALID_VALUE: bad argument;
 * NO_MEMORY: pool empty; BAD_STATE: not RUNNING. */
DOCA_STABLE
doca_error_t doca_comch_consumer_task_post_recv_alloc_init(struct doca_comch_consumer *consumer,
							   struct doca_buf *buf,
							   struct doca_comch_consumer_task_post_recv **task);

DOCA_STABLE
struct doca_buf *doca_comch_consumer_task_post_recv_get_buf(const struct doca_comch_consumer_task_post_recv *task);

DOCA_STABLE
void doca_comch_consumer_task_post_recv_set_buf(struct doca_comch_consumer_task_post_recv *task, struct doca_buf *buf);

/* Set on completion: the producer that filled the buffer (0 before). */
DOCA_STABLE
uint32_t doca_comch_consumer_task_post_recv_get_producer_id(const struct doca_comch_consumer_task_post_recv *task);

/* Set on completion: NULL when the message carried no immediate data. The
 * bytes live in the task: valid until it is posted again or freed. */
DOCA_STABLE
const uint8_t *doca_comch_consumer_task_post_recv_get_imm_data(const struct doca_comch_consumer_task_post_recv *task);

DOCA_STABLE
uint32_t doca_comch_consumer_task_post_recv_get_imm_data_len(const struct doca_comch_consumer_task_post_recv *task);

DOCA_STABLE
struct doca_task *doca_comch_consumer_task_post_recv_as_task(struct doca_comch_consumer_task_post_recv *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_CONSUMER_H_ */
