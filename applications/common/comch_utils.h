/*
 * comch_utils.h - the Comch control-path glue shared by the applications.
 *
 * Model: one process is either the Comch server (BlueField Arm side, built
 * with DOCA_ARCH_DPU: needs a device and the representor of the host
 * function it serves) or the client (host side: needs a device only). Both
 * own one progress engine (PE) on which the server/client context runs.
 *
 * Call order:
 *     comch_utils_init() or comch_utils_fast_path_init()
 *         returns once a connection to the peer exists (the server waits for
 *         its first client, the client waits until its context is RUNNING)
 *     comch_util_get_connection()
 *     comch_utils_send() / comch_utils_progress_connection() ...
 *     comch_utils_destroy()
 *
 * The receive callbacks run from comch_utils_progress_connection() (or
 * from the progress loops inside the calls above) and may call
 * comch_utils_get_user_data() to reach the application state.
 *
 * Threading: every call here runs on the thread that called the init
 * function; the PE is not shared with producer/consumer threads.
 *
 * Peer death: once the connection is gone, comch_utils_progress_connection
 * and comch_utils_send answer DOCA_ERROR_NOT_CONNECTED and
 * comch_util_get_connection() NULL. After comch_utils_interrupt() (signal
 * handler) comch_utils_progress_connection and comch_utils_check_connection
 * answer DOCA_ERROR_SHUTDOWN, while comch_utils_send still sends (so that an
 * interrupted program can tell its peer; it gives up only where it would
 * wait for the peer) and comch_util_get_connection() still answers the
 * connection.
 */
#ifndef COMCH_UTILS_H_
#define COMCH_UTILS_H_

#include <stdint.h>

#include <doca_comch.h>
#include <doca_dev.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct comch_cfg;

/* Control path only. client_recv_event_cb is used on the host, server_recv_event_cb on the Arm side. */
doca_error_t comch_utils_init(const char *server_name, const char *pci_addr, const char *rep_pci_addr, void *user_data,
			      doca_comch_event_msg_recv_cb_t client_recv_event_cb,
			      doca_comch_event_msg_recv_cb_t server_recv_event_cb, struct comch_cfg **comch_cfg);

/* Control path plus the consumer events the fast path (producer/consumer) needs. */
doca_error_t comch_utils_fast_path_init(const char *server_name, const char *pci_addr, const char *rep_pci_addr,
					void *user_data, doca_comch_event_msg_recv_cb_t client_recv_event_cb,
					doca_comch_event_msg_recv_cb_t server_recv_event_cb,
					doca_comch_event_consumer_cb_t new_consumer_event_cb,
					doca_comch_event_consumer_cb_t expired_consumer_event_cb,
					struct comch_cfg **comch_cfg);

/* Send one control message; progresses the PE while the send queue is full. */
doca_error_t comch_utils_send(struct doca_comch_connection *connection, const void *msg, uint32_t len);

/* Progress the PE behind the connection once. DOCA_SUCCESS while connected. */
doca_error_t comch_utils_progress_connection(struct doca_comch_connection *connection);

/* The user_data given at init, reached from a connection (NULL if unknown). */
void *comch_utils_get_user_data(struct doca_comch_connection *connection);

/* The active connection (NULL once it is gone). */
struct doca_comch_connection *comch_util_get_connection(struct comch_cfg *comch_cfg);

/* The local device the Comch context was opened on (for the fast path). */
struct doca_dev *comch_utils_get_device(struct comch_cfg *comch_cfg);

/* Largest control message the connection accepts. */
uint32_t comch_utils_get_max_buffer_size(struct comch_cfg *comch_cfg);

/* DOCA_SUCCESS while the connection to the peer is alive. */
doca_error_t comch_utils_check_connection(struct comch_cfg *comch_cfg);

/*
 * Ask every wait loop of this module to give up (they answer
 * DOCA_ERROR_SHUTDOWN). Async-signal-safe: meant for SIGINT/SIGTERM handlers,
 * so that an interrupted program still tears down cleanly.
 */
void comch_utils_interrupt(void);
/* Was comch_utils_interrupt() called? */
int comch_utils_interrupted(void);
/*
 * SIGINT and SIGTERM call comch_utils_interrupt(). The handler stays for the
 * whole run: further signals are counted and change nothing, so a second
 * Ctrl-C cannot cut the (time-bounded) teardown short and leave the
 * process's sockets behind in the fabric directory.
 */
void comch_utils_install_signal_handlers(void);
/* How many SIGINT/SIGTERM arrived so far. */
int comch_utils_signal_count(void);

/* Stop the context, close everything opened by init, free comch_cfg. */
doca_error_t comch_utils_destroy(struct comch_cfg *comch_cfg);

#ifdef __cplusplus
}
#endif

#endif /* COMCH_UTILS_H_ */
