/*
 * doca_comch.h - DOCA Comch: a communication channel between a client on the
 * host and a server on the BlueField Arm side (softdoca: over the emulated
 * PCIe link, see the fabric directory in the README).
 *
 * Model:
 *  - A server (doca_comch_server) runs on the Arm side (DOCA_ARCH_DPU). It is
 *    created on a device and on the representor of the host function it
 *    serves, under a name. It accepts clients of that host function and sees
 *    each one as a doca_comch_connection.
 *  - A client (doca_comch_client) runs on the host. It is created on a device
 *    with the name of the server to reach, and owns exactly one connection.
 *  - Both are DOCA contexts (doca_comch_*_as_ctx): connect them to a PE,
 *    start, progress the PE, stop, destroy.
 *  - Control messages (at most max_msg_size bytes each) are sent with send
 *    tasks and received through the msg-recv event. The fast path (producer,
 *    consumer: doca_comch_producer.h, doca_comch_consumer.h) rides on an
 *    established connection and holds it from its create to its destroy.
 *  - Connection lifetime: a connection dies when the peer goes away, on
 *    doca_comch_server_disconnect, or when its owner stops; a dead one keeps
 *    answering (update_info CONNECTION_ABORTED, sends complete with
 *    NOT_CONNECTED, user data and owner still readable). Its memory stays
 *    valid: a client's connection until doca_comch_client_destroy (also
 *    across a stop and restart, which makes a new connection); a server's
 *    until a stop of the server completes while no producer/consumer holds
 *    it, at the latest until doca_comch_server_destroy. Destroy (and
 *    doca_comch_server_disconnect) answers DOCA_ERROR_IN_USE while a
 *    producer/consumer holds one of the connections: destroy those first.
 *
 * Call order:
 *   server: doca_comch_cap_server_is_supported -> doca_comch_server_create ->
 *           doca_comch_server_task_send_set_conf,
 *           doca_comch_server_event_msg_recv_register,
 *           doca_comch_server_event_connection_status_changed_register,
 *           [doca_comch_server_event_consumer_register,
 *            doca_comch_server_set_max_msg_size/_set_recv_queue_size]
 *           -> doca_pe_connect_ctx -> doca_ctx_start (RUNNING at once: it
 *           listens) -> progress -> doca_ctx_stop -> doca_comch_server_destroy
 *   client: doca_comch_cap_client_is_supported -> doca_comch_client_create ->
 *           doca_comch_client_task_send_set_conf,
 *           doca_comch_client_event_msg_recv_register, [consumer events,
 *           sizes] -> doca_pe_connect_ctx -> doca_ctx_start (answers
 *           DOCA_ERROR_IN_PROGRESS; the context is STARTING until the server
 *           accepted it, then RUNNING) -> doca_comch_client_get_connection
 *           -> ... -> doca_ctx_stop -> doca_comch_client_destroy
 *   The doca_pe_progress that makes the client RUNNING delivers no event of
 *   its connection: what the server sent right after accepting it (a
 *   message, a consumer announcement) comes with the next call, once the
 *   program has taken the connection and set its user data.
 *   The server must be started before the client can connect; a client
 *   started first keeps trying quietly, and after 3 s (then every 10 s)
 *   logs an SDK warning naming the server and address it waits for
 *   (softdoca: SOFTDOCA_COMCH_WAIT_WARN_MS=<ms> changes the first delay).
 *   Events must be registered before start: a message that arrives is
 *   delivered to the callback registered at that time.
 *
 * Threading: a server or client, its connections and its tasks are used from
 * the thread that progresses its PE. All callbacks run from doca_pe_progress
 * on that thread. Different servers/clients may live on different threads.
 * Producers and consumers may be created on a connection from other threads
 * (see doca_comch_producer.h): the lifetime rules above keep it valid there.
 */
#ifndef DOCA_COMCH_H_
#define DOCA_COMCH_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_dev;
struct doca_dev_rep;
struct doca_devinfo;
struct doca_ctx;
struct doca_task;

/* ---- connections ------------------------------------------------------ */

/* One client <-> server link, owned by its server or client. Handed out by
 * the connect event (server) / doca_comch_client_get_connection (client);
 * it stays valid after it dies, as the Model above says (client: until the
 * client is destroyed; server: until a stop of the server completes while
 * no producer/consumer holds it, at the latest until its destroy). */
struct doca_comch_connection;

DOCA_STABLE
doca_error_t doca_comch_connection_set_user_data(struct doca_comch_connection *connection, union doca_data user_data);
/* The user data (zero if never set or connection is NULL). */
DOCA_STABLE
union doca_data doca_comch_connection_get_user_data(const struct doca_comch_connection *connection);

struct doca_comch_server;
struct doca_comch_client;

/* The owning server, or NULL when the connection belongs to a client. */
DOCA_STABLE
struct doca_comch_server *doca_comch_server_get_server_ctx(const struct doca_comch_connection *connection);
/* The owning client, or NULL when the connection belongs to a server. */
DOCA_STABLE
struct doca_comch_client *doca_comch_client_get_client_ctx(const struct doca_comch_connection *connection);

/* ---- capabilities ------------------------------------------------------ */

/* Longest server name, counting the terminating NUL. */
DOCA_STABLE
doca_error_t doca_comch_cap_get_max_name_len(const struct doca_devinfo *devinfo, uint32_t *max_name_len);
/* Largest control message. */
DOCA_STABLE
doca_error_t doca_comch_cap_get_max_msg_size(const struct doca_devinfo *devinfo, uint32_t *size);
/* Deepest receive queue. */
DOCA_STABLE
doca_error_t doca_comch_cap_get_max_recv_queue_size(const struct doca_devinfo *devinfo, uint32_t *size);
/* Most clients one server accepts at the same time. */
DOCA_STABLE
doca_error_t doca_comch_cap_get_max_clients(const struct doca_devinfo *devinfo, uint32_t *num_clients);
/* Largest number of send tasks of one server or client. */
DOCA_STABLE
doca_error_t doca_comch_cap_get_max_send_tasks(const struct doca_devinfo *devinfo, uint32_t *max_send_tasks);
/* DOCA_SUCCESS if the device can run a server (Arm side), NOT_SUPPORTED if not. */
DOCA_STABLE
doca_error_t doca_comch_cap_server_is_supported(const struct doca_devinfo *devinfo);
/* DOCA_SUCCESS if the device can run a client (host side), NOT_SUPPORTED if not. */
DOCA_STABLE
doca_error_t doca_comch_cap_client_is_supported(const struct doca_devinfo *devinfo);

/* ---- server ------------------------------------------------------------ */

/* name: NUL-terminated, at most doca_comch_cap_get_max_name_len bytes with
 * the NUL. INVALID_VALUE on NULL/empty/too long a name or a representor of
 * another card; NOT_SUPPORTED if dev cannot run a server. */
DOCA_STABLE
doca_error_t doca_comch_server_create(struct doca_dev *dev, struct doca_dev_rep *repr, const char *name,
				      struct doca_comch_server **comch_server);
/* Frees the server and every connection it still keeps. INVALID_VALUE: NULL;
 * BAD_STATE unless the context is IDLE; IN_USE while a producer/consumer
 * holds one of its connections (nothing is freed; destroy those first). */
DOCA_STABLE
doca_error_t doca_comch_server_destroy(struct doca_comch_server *comch_server);

/* Setters: IDLE only (BAD_STATE otherwise); size must be 1..the capability. */
DOCA_STABLE
doca_error_t doca_comch_server_set_max_msg_size(struct doca_comch_server *comch_server, uint32_t size);
DOCA_STABLE
doca_error_t doca_comch_server_get_max_msg_size(const struct doca_comch_server *comch_server, uint32_t *size);
DOCA_STABLE
doca_error_t doca_comch_server_set_recv_queue_size(struct doca_comch_server *comch_server, uint32_t size);
DOCA_STABLE
doca_error_t doca_comch_server_get_recv_queue_size(const struct doca_comch_server *comch_server, uint32_t *size);
DOCA_STABLE
doca_error_t doca_comch_server_get_device(const struct doca_comch_server *comch_server, struct doca_dev **dev);
/* The representor the server was created on. */
DOCA_STABLE
doca_error_t doca_comch_server_get_device_rep(const struct doca_comch_server *comch_server, struct doca_dev_rep **rep);

DOCA_STABLE
struct doca_ctx *doca_comch_server_as_ctx(struct doca_comch_server *comch_server);

/* Close one connection and tell the peer; the disconnect event follows from
 * progress, and the (dead) connection stays valid until the server stops.
 * INVALID_VALUE: NULL, or a connection of another server; BAD_STATE: the
 * server is not RUNNING; NOT_CONNECTED: the connection is already dead;
 * IN_USE: a producer/consumer still holds it (nothing done). */
DOCA_STABLE
doca_error_t doca_comch_server_disconnect(struct doca_comch_server *comch_server,
					  struct doca_comch_connection *connection);

/* ---- client ------------------------------------------------------------ */

/* name: the server to reach. INVALID_VALUE on a NULL argument or an
 * empty/too long name; NOT_SUPPORTED if dev cannot run a client. */
DOCA_STABLE
doca_error_t doca_comch_client_create(struct doca_dev *dev, const char *name, struct doca_comch_client **comch_client);
/* Frees the client and its connection(s): pointers from get_connection are
 * invalid afterwards. INVALID_VALUE: NULL; BAD_STATE unless the context is
 * IDLE; IN_USE while a producer/consumer holds its connection (nothing is
 * freed; destroy those first). */
DOCA_STABLE
doca_error_t doca_comch_client_destroy(struct doca_comch_client *comch_client);

/* Setters and getters as the server's. */
DOCA_STABLE
doca_error_t doca_comch_client_set_max_msg_size(struct doca_comch_client *comch_client, uint32_t size);
DOCA_STABLE
doca_error_t doca_comch_client_get_max_msg_size(const struct doca_comch_client *comch_client, uint32_t *size);
DOCA_STABLE
doca_error_t doca_comch_client_set_recv_queue_size(struct doca_comch_client *comch_client, uint32_t size);
DOCA_STABLE
doca_error_t doca_comch_client_get_recv_queue_size(const struct doca_comch_client *comch_client, uint32_t *size);
DOCA_STABLE
doca_error_t doca_comch_client_get_device(const struct doca_comch_client *comch_client, struct doca_dev **dev);

DOCA_STABLE
struct doca_ctx *doca_comch_client_as_ctx(struct doca_comch_client *comch_client);

/* The client's connection. INVALID_VALUE: NULL argument; BAD_STATE unless
 * the context is RUNNING (before the server accepted it, and again once the
 * connection is lost: the context then stops on its own). A pointer obtained
 * earlier stays valid, dead, until doca_comch_client_destroy. */
DOCA_STABLE
doca_error_t doca_comch_client_get_connection(const struct doca_comch_client *comch_client,
					      struct doca_comch_connection **connection);

/* ---- send task ---------------------------------------------------------- */

struct doca_comch_task_send;

/* Success and error completions share this type; the error one reads the
 * outcome with doca_task_get_status(doca_comch_task_send_as_task(task)). */
typedef void (*doca_comch_task_send_completion_cb_t)(struct doca_comch_task_send *task, union doca_data task_user_data,
						     union doca_data ctx_user_data);

DOCA_STABLE
doca_error_t doca_comch_server_task_send_set_conf(struct doca_comch_server *comch_server,
						  doca_comch_task_send_completion_cb_t task_completion_cb,
						  doca_comch_task_send_completion_cb_t task_error_cb,
						  uint32_t num_send_tasks);
DOCA_STABLE
doca_error_t doca_comch_client_task_send_set_conf(struct doca_comch_client *comch_client,
						  doca_comch_task_send_completion_cb_t task_completion_cb,
						  doca_comch_task_send_completion_cb_t task_error_cb,
						  uint32_t num_send_tasks);

/* The message is copied into the task. INVALID_VALUE: NULL argument, len 0
 * or above the max message size, a connection of another server/client;
 * BAD_STATE: not RUNNING; NO_MEMORY: every task of the pool is in use.
 * A task sent on a connection that died completes through the error callback
 * with DOCA_ERROR_CONNECTION_RESET (or NOT_CONNECTED if it was dead already). */
DOCA_STABLE
doca_error_t doca_comch_server_task_send_alloc_init(struct doca_comch_server *comch_server,
						    struct doca_comch_connection *peer, const void *msg, uint32_t len,
						    struct doca_comch_task_send **task);
DOCA_STABLE
doca_error_t doca_comch_client_task_send_alloc_init(struct doca_comch_client *comch_client,
						    struct doca_comch_connection *peer, const void *msg, uint32_t len,
						    struct doca_comch_task_send **task);

DOCA_STABLE
struct doca_task *doca_comch_task_send_as_task(struct doca_comch_task_send *task);

/* ---- receive event ---------------------------------------------------- */

struct doca_comch_event_msg_recv;

/* recv_buffer is valid only during the callback. */
typedef void (*doca_comch_event_msg_recv_cb_t)(struct doca_comch_event_msg_recv *event, uint8_t *recv_buffer,
					       uint32_t msg_len, struct doca_comch_connection *comch_connection);

DOCA_STABLE
doca_error_t doca_comch_server_event_msg_recv_register(struct doca_comch_server *comch_server,
						       doca_comch_event_msg_recv_cb_t recv_event_cb);
DOCA_STABLE
doca_error_t doca_comch_client_event_msg_recv_register(struct doca_comch_client *comch_client,
						       doca_comch_event_msg_recv_cb_t recv_event_cb);

/* ---- connection events (server) --------------------------------------- */

struct doca_comch_event_connection_status_changed;

/* change_successful: 1 if the connect/disconnect succeeded, 0 otherwise. */
typedef void (*doca_comch_event_connection_status_changed_cb_t)(
	struct doca_comch_event_connection_status_changed *event, struct doca_comch_connection *comch_connection,
	uint8_t change_successful);

DOCA_STABLE
doca_error_t doca_comch_server_event_connection_status_changed_register(
	struct doca_comch_server *comch_server, doca_comch_event_connection_status_changed_cb_t connect_event_cb,
	doca_comch_event_connection_status_changed_cb_t disconnect_event_cb);

/* ---- connection statistics ---------------------------------------------- */

enum doca_comch_counter {
	DOCA_COMCH_COUNTER_SENT_MESSAGES = 1,
	DOCA_COMCH_COUNTER_SENT_BYTES = 2,
	DOCA_COMCH_COUNTER_RECV_MESSAGES = 3,
	DOCA_COMCH_COUNTER_RECV_BYTES = 4,
};

/* Snapshot the counters read by doca_comch_connection_get_counter.
 * CONNECTION_ABORTED if the connection failed. */
DOCA_STABLE
doca_error_t doca_comch_connection_update_info(struct doca_comch_connection *comch_connection);
DOCA_STABLE
doca_error_t doca_comch_connection_get_counter(const struct doca_comch_connection *comch_connection,
					       enum doca_comch_counter counter_type, uint64_t *counter_value);

/* ---- consumer events --------------------------------------------------- */

struct doca_comch_event_consumer;

/* id: the consumer the peer created (new) or destroyed (expired). */
typedef void (*doca_comch_event_consumer_cb_t)(struct doca_comch_event_consumer *event,
					       struct doca_comch_connection *comch_connection, uint32_t id);

DOCA_STABLE
doca_error_t doca_comch_server_event_consumer_register(struct doca_comch_server *comch_server,
						       doca_comch_event_consumer_cb_t new_consumer_event_cb,
						       doca_comch_event_consumer_cb_t expired_consumer_event_cb);
DOCA_STABLE
doca_error_t doca_comch_client_event_consumer_register(struct doca_comch_client *comch_client,
						       doca_comch_event_consumer_cb_t new_consumer_event_cb,
						       doca_comch_event_consumer_cb_t expired_consumer_event_cb);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_H_ */
