/*
 * doca_comch_producer.h - DOCA Comch producer: the sending half of the Comch
 * fast path.
 *
 * Model: a producer rides on an established doca_comch_connection (from a
 * client, or from a server's connection event). It sends the data of a
 * doca_buf, plus optional immediate data, to one consumer that the peer
 * created on the same connection; the consumer's id arrives through the
 * new-consumer event of doca_comch_server_event_consumer_register /
 * doca_comch_client_event_consumer_register. A message needs a receive buffer
 * that the consumer posted: while none is free, doca_task_submit answers
 * DOCA_ERROR_AGAIN and the task stays the caller's (retry after progress).
 * softdoca moves the data through memory shared between the two processes;
 * a send task completes (callback from doca_pe_progress) once its data has
 * been copied out of the source buffer, so the buffer may be reused then.
 *
 * Call order:
 *   doca_comch_producer_create(connection) -> doca_comch_producer_as_ctx ->
 *   doca_pe_connect_ctx -> doca_comch_producer_task_send_set_conf ->
 *   doca_ctx_start (RUNNING at once) -> doca_comch_producer_task_send_alloc_init
 *   -> doca_task_submit ... doca_pe_progress -> doca_ctx_stop -> progress to
 *   IDLE -> doca_comch_producer_destroy. A producer holds its connection
 *   from create to destroy: destroying the connection's server/client (or
 *   doca_comch_server_disconnect) answers DOCA_ERROR_IN_USE until then.
 *   Stopping the server/client first is fine: the producer goes to IDLE.
 *
 * Submit answers (doca_task_submit): DOCA_ERROR_AGAIN - no free posted
 * receive buffer at the consumer yet, or the shared ring is momentarily full;
 * DOCA_ERROR_NOT_FOUND - no live consumer with that id on this connection
 * (never announced, or expired); DOCA_ERROR_INVALID_VALUE - the data is longer
 * than doca_comch_producer_cap_get_max_buf_size, longer than the receive
 * buffer it would land in, or the immediate data is longer than the
 * consumer accepts; DOCA_ERROR_NOT_CONNECTED - the connection is gone.
 * If the connection dies, the producer's context moves to STOPPING and then
 * IDLE by itself (state callback).
 *
 * Threading: a producer and its tasks belong to the thread that progresses
 * the producer's PE, which may differ from the thread progressing the
 * connection's server/client (the secure_channel pattern: one thread per
 * producer/consumer, the main thread keeps progressing the connection, which
 * must go on being progressed for consumer events to arrive).
 */
#ifndef DOCA_COMCH_PRODUCER_H_
#define DOCA_COMCH_PRODUCER_H_

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
struct doca_task;
struct doca_dpa_completion;
struct doca_comch_connection;
struct doca_comch_producer;
struct doca_comch_producer_task_send;

typedef uint64_t doca_dpa_dev_comch_producer_t;

/* ---- creation and capabilities ----------------------------------------- */

/* INVALID_VALUE: NULL argument; BAD_STATE: the connection is not alive;
 * NO_MEMORY; FULL: max producers per connection reached. */
DOCA_STABLE
doca_error_t doca_comch_producer_create(struct doca_comch_connection *comch_connection,
					struct doca_comch_producer **producer);

/* BAD_STATE unless the context is IDLE. */
DOCA_STABLE
doca_error_t doca_comch_producer_destroy(struct doca_comch_producer *producer);

DOCA_STABLE
doca_error_t doca_comch_producer_cap_is_supported(const struct doca_devinfo *devinfo);

/* Per-connection unique, non-zero; what consumers see as producer id. */
DOCA_STABLE
doca_error_t doca_comch_producer_get_id(const struct doca_comch_producer *producer, uint32_t *id);

DOCA_STABLE
doca_error_t doca_comch_producer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo, uint32_t *max_num_tasks);

DOCA_STABLE
doca_error_t doca_comch_producer_cap_get_max_buf_size(const struct doca_devinfo *devinfo, uint32_t *max_buf_size);

DOCA_STABLE
doca_error_t doca_comch_producer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
							  uint32_t *max_buf_list_len);

DOCA_STABLE
doca_error_t doca_comch_producer_cap_get_max_producers(const struct doca_devinfo *devinfo, uint32_t *max_producers);

DOCA_STABLE
struct doca_ctx *doca_comch_producer_as_ctx(struct doca_comch_producer *producer);

/* ---- producer on the DPA -------------------------------------------------
 * These configure a producer whose data path runs on the DPA (after
 * doca_ctx_set_datapath_on_dpa). softdoca emulates no DPA: each checks its
 * arguments (INVALID_VALUE; BAD_STATE for configuring a started producer),
 * then answers DOCA_ERROR_NOT_SUPPORTED. */

/* Most sends the DPA producer may have outstanding (DOCA rounds it up to a
 * power of two). dev_num_send must not be 0. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_set_dev_max_num_send(struct doca_comch_producer *producer, uint32_t dev_num_send);
/* Deliver this producer's completions to a DPA completion context. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_dpa_completion_attach(struct doca_comch_producer *producer,
						       struct doca_dpa_completion *dpa_comp);
/* The producer's handle for DPA kernels (valid once started on the DPA). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_get_dpa_handle(struct doca_comch_producer *producer,
						doca_dpa_dev_comch_producer_t *dpa_producer);

/* ---- send task ---------------------------------------------------------- */

/* Used for both the success and the error callback. */
typedef void (*doca_comch_producer_task_send_completion_cb_t)(struct doca_comch_producer_task_send *task,
							      union doca_data task_user_data,
							      union doca_data ctx_user_data);

/* IDLE only. num_send_tasks: 1..doca_comch_producer_cap_get_max_num_tasks. */
DOCA_STABLE
doca_error_t doca_comch_producer_task_send_set_conf(struct doca_comch_producer *producer,
						    doca_comch_producer_task_send_completion_cb_t task_completion_cb,
						    doca_comch_producer_task_send_completion_cb_t task_error_cb,
						    uint32_t num_send_tasks);

/* imm_data may be NULL when imm_data_len is 0; it is copied into the task
 * (the pointer is not const in DOCA's signature, but softdoca never writes
 * through it). INVALID_VALUE: bad argument or imm_data_len above
 * doca_comch_consumer_cap_get_max_imm_data_len; NO_MEMORY: pool empty;
 * BAD_STATE: not RUNNING. */
DOCA_STABLE
doca_error_t doca_comch_producer_task_send_alloc_init(struct doca_comch_producer *producer,
						      const struct doca_buf *buf, uint8_t *imm_data,
						      uint32_t imm_data_len, uint32_t consumer_id,
						      struct doca_comch_producer_task_send **task);

DOCA_STABLE
const struct doca_buf *doca_comch_producer_task_send_get_buf(const struct doca_comch_producer_task_send *task);

DOCA_STABLE
void doca_comch_producer_task_send_set_buf(struct doca_comch_producer_task_send *task, const struct doca_buf *buf);

DOCA_STABLE
uint32_t doca_comch_producer_task_send_get_consumer_id(const struct doca_comch_producer_task_send *task);

DOCA_STABLE
void doca_comch_producer_task_send_set_consumer_id(struct doca_comch_producer_task_send *task,
						   const uint32_t consumer_id);

/* NULL when the task carries no immediate data. */
DOCA_STABLE
uint8_t *doca_comch_producer_task_send_get_imm_data(const struct doca_comch_producer_task_send *task);

DOCA_STABLE
uint32_t doca_comch_producer_task_send_get_imm_data_len(const struct doca_comch_producer_task_send *task);

/* Copies the data into the task (imm_data is only read); a length above the
 * maximum is ignored (logged). */
DOCA_STABLE
void doca_comch_producer_task_send_set_imm_data(struct doca_comch_producer_task_send *task, uint8_t *imm_data,
						uint32_t imm_data_len);

DOCA_STABLE
struct doca_task *doca_comch_producer_task_send_as_task(struct doca_comch_producer_task_send *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_PRODUCER_H_ */
