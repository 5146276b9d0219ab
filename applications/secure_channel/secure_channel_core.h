/*
 * secure_channel_core.h - the secure_channel application: a Comch server on
 * the BlueField Arm side and a client on the host exchange -n messages of -s
 * bytes in each direction over the Comch fast path (producer -> consumer).
 *
 * Call order (secure_channel.c):
 *     register_secure_channel_params() -> doca_argp_start()
 *     comch_utils_fast_path_init(SERVER_NAME, ..., comch_recv_event_cb,
 *         comch_recv_event_cb, new_consumer_callback, expired_consumer_callback)
 *     sc_start() -> comch_utils_destroy()
 *
 * Threading: the main thread owns the Comch control path and keeps
 * progressing it; sc_start runs one producer and one consumer thread, each
 * with its own progress engine. They share the atomic fields of struct
 * cc_ctx; each thread's results are written before its *_done flag is set
 * and read after the thread is joined. The fast-path threads use the
 * connection while the main thread progresses it: the library keeps a
 * connection valid (dead, answering "not connected") until its client or
 * server is destroyed, which happens only after both threads are joined
 * (a producer or consumer pins it: that destroy would answer IN_USE).
 *
 * Wire format of the control messages: struct metadata_msg (type, number of
 * messages, message size), every field in network byte order. The peer's
 * START_MSG tells each consumer what to expect; END_MSG (Arm side to host)
 * says both sides are done.
 */
#ifndef SECURE_CHANNEL_CORE_H_
#define SECURE_CHANNEL_CORE_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <doca_comch.h>
#include <doca_dev.h>
#include <doca_error.h>

#include "comch_utils.h"

#define SERVER_NAME "secure_channel_server"
#define MAX_FASTPATH_TASKS 1024

enum sc_mode {
	SC_MODE_HOST, /* client, x86 host side */
	SC_MODE_DPU,  /* server, BlueField Arm side */
};

struct sc_config {
	enum sc_mode mode;
	char cc_dev_pci_addr[DOCA_DEVINFO_PCI_ADDR_SIZE];
	char cc_dev_rep_pci_addr[DOCA_DEVINFO_REP_PCI_ADDR_SIZE];
	uint32_t send_msg_size;
	uint32_t send_msg_nb;
};

/* State shared by the control path (main thread) and the fast-path threads. */
struct cc_ctx {
	struct comch_cfg *comch_cfg;
	struct doca_comch_connection *comch_connection;
	struct doca_dev *dev;            /* the Comch device, shared by both threads */
	uint32_t send_msg_size;         /* what our producer sends (-s, -n) */
	uint32_t send_msg_nb;
	uint32_t recv_msg_size;         /* what our consumer expects (peer's START_MSG) */
	uint32_t recv_msg_nb;
	atomic_uint expected_msgs;      /* from the peer's START_MSG; 0 again on END_MSG */
	atomic_uint expected_msg_size;
	atomic_bool start_received;
	atomic_bool end_received;
	atomic_uint consumer_id;        /* the peer's consumer, from the new-consumer event */
	atomic_bool consumer_expired;
	atomic_bool stop_all;           /* connection lost or the other thread failed: quit */
	atomic_bool producer_done;
	atomic_bool consumer_done;
	doca_error_t producer_result;
	doca_error_t consumer_result;
	uint32_t producer_sent;
	uint32_t consumer_received;
	double producer_ms;
	double consumer_ms;
};

doca_error_t register_secure_channel_params(void);

void comch_recv_event_cb(struct doca_comch_event_msg_recv *event, uint8_t *recv_buffer, uint32_t msg_len,
			 struct doca_comch_connection *comch_connection);
void new_consumer_callback(struct doca_comch_event_consumer *event, struct doca_comch_connection *comch_connection,
			   uint32_t id);
void expired_consumer_callback(struct doca_comch_event_consumer *event,
			       struct doca_comch_connection *comch_connection, uint32_t id);

doca_error_t sc_start(struct comch_cfg *comch_cfg, struct sc_config *cfg, struct cc_ctx *ctx);

#endif /* SECURE_CHANNEL_CORE_H_ */
