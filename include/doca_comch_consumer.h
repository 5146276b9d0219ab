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
 *   [-> doca_comch_consumer_set_imm_data_len] -> doca_ctx_start (RUNNING at
 *   once) -> post_recv_alloc_init + doca_task_submit per buffer ->
 *   doca_pe_progress ... -> doca_ctx_stop (posted tasks are flushed to the
 *   error callback) -> progress to IDLE -> doca_comch_consumer_destroy. A
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
struct doca_comch_connection;
struct doca_comch_consumer;
struct doca_comch_consumer_task_post_recv;

typedef uint64_t doca_dpa_dev_comch_consumer_t;

/* ---- creation and capabilities ----------------------------------------- */

/* INVALID_VALUE: NULL argument; BAD_STATE: the connection is not alive or
 * the mmap is not started; NO_MEMORY; FULL: max consumers reached. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_create(struct doca_comch_connection *comch_connection, struct doca_mmap *buf_mmap,
					struct doca_comch_consumer **consumer);

/* BAD_STATE unless the context is IDLE. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_destroy(struct doca_comch_consumer *consumer);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_cap_is_supported(const struct doca_devinfo *devinfo);

/* Per-connection unique, non-zero; what the peer's consumer events carry. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_get_id(const struct doca_comch_consumer *consumer, uint32_t *id);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo, uint32_t *max_num_tasks);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_cap_get_max_buf_size(const struct doca_devinfo *devinfo, uint32_t *max_buf_size);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
							  uint32_t *max_buf_list_len);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_cap_get_max_consumers(const struct doca_devinfo *devinfo, uint32_t *max_consumers);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_cap_get_max_imm_data_len(const struct doca_devinfo *devinfo,
							  uint32_t *max_imm_data_len);

/* Immediate data this consumer accepts (default: the maximum). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_get_imm_data_len(const struct doca_comch_consumer *consumer, uint32_t *imm_data_len);

/* IDLE only; at most doca_comch_consumer_cap_get_max_imm_data_len. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_set_imm_data_len(struct doca_comch_consumer *consumer, uint32_t imm_data_len);

DOCA_EXPERIMENTAL
struct doca_ctx *doca_comch_consumer_as_ctx(struct doca_comch_consumer *consumer);

/* No DPA is emulated: argument checks, then DOCA_ERROR_NOT_SUPPORTED. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_set_dev_num_recv(struct doca_comch_consumer *consumer, uint32_t dev_num_recv);
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_get_dpa_handle(struct doca_comch_consumer *consumer,
						doca_dpa_dev_comch_consumer_t *dpa_consumer);

/* ---- post_recv task ----------------------------------------------------- */

/* Used for both the success and the error callback. */
typedef void (*doca_comch_consumer_task_post_recv_completion_cb_t)(struct doca_comch_consumer_task_post_recv *task,
								   union doca_data task_user_data,
								   union doca_data ctx_user_data);

/* IDLE only. num_post_recv_tasks: 1..doca_comch_consumer_cap_get_max_num_tasks. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_task_post_recv_set_conf(
	struct doca_comch_consumer *consumer, doca_comch_consumer_task_post_recv_completion_cb_t task_completion_cb,
	doca_comch_consumer_task_post_recv_completion_cb_t task_error_cb, uint32_t num_post_recv_tasks);

/* buf must lie inside the consumer's mmap. INVALID_VALUE: bad argument;
 * NO_MEMORY: pool empty; BAD_STATE: not RUNNING. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_task_post_recv_alloc_init(struct doca_comch_consumer *consumer,
							   struct doca_buf *buf,
							   struct doca_comch_consumer_task_post_recv **task);

DOCA_EXPERIMENTAL
struct doca_buf *doca_comch_consumer_task_post_recv_get_buf(const struct doca_comch_consumer_task_post_recv *task);

DOCA_EXPERIMENTAL
void doca_comch_consumer_task_post_recv_set_buf(struct doca_comch_consumer_task_post_recv *task, struct doca_buf *buf);

/* Set on completion: the producer that filled the buffer (0 before). */
DOCA_EXPERIMENTAL
uint32_t doca_comch_consumer_task_post_recv_get_producer_id(const struct doca_comch_consumer_task_post_recv *task);

/* Set on completion: NULL when the message carried no immediate data. */
DOCA_EXPERIMENTAL
uint8_t *doca_comch_consumer_task_post_recv_get_imm_data(const struct doca_comch_consumer_task_post_recv *task);

DOCA_EXPERIMENTAL
uint32_t doca_comch_consumer_task_post_recv_get_imm_data_len(const struct doca_comch_consumer_task_post_recv *task);

DOCA_EXPERIMENTAL
struct doca_task *doca_comch_consumer_task_post_recv_as_task(struct doca_comch_consumer_task_post_recv *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_CONSUMER_H_ */
