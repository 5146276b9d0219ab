/*
 * sd_comch.h - the seam between the Comch control path (server, client,
 * connection: src/comch/server.c, client.c, connection.c) and the Comch fast
 * path (producer, consumer: src/comch/producer.c, consumer.c, fastpath*.c).
 *
 * struct doca_comch_connection is private to the control path; the fast path
 * uses only the functions below.
 *
 * Frames: besides its own control frames, a connection carries "fast-path
 * frames" of a kind >= SD_COMCH_FP_KIND_BASE with a body of at most
 * SD_COMCH_FP_MAX_BODY bytes and optionally one file descriptor. The control
 * path does not interpret them: every one received after the handshake is
 * handed to the connection's fast-path handler, or, while none is attached
 * (no producer or consumer of this process has used the connection yet), to
 * sd_fp_conn_adopt, which attaches one. None is ever dropped: the peer's
 * consumer announcements reach the owner's new-consumer event before this
 * process creates any producer, as DOCA's programs expect.
 *
 * Threading:
 *  - The handler runs on the thread that progresses the connection (the PE of
 *    the server or client context that owns it), from doca_pe_progress.
 *  - sd_comch_conn_fp_send, sd_comch_conn_is_alive, sd_comch_conn_dev,
 *    sd_comch_conn_link, sd_comch_conn_pe, sd_comch_conn_alloc_consumer_id,
 *    sd_comch_conn_ref/_unref and sd_comch_conn_fp_attach are thread-safe
 *    (on any connection the user was handed, see Lifetime).
 *  - sd_comch_conn_raise_consumer_event must be called on the connection's
 *    thread (normally from within the handler).
 *  - sd_comch_conn_fp_set_handler is safe from any thread against the
 *    connection's death (prefer sd_comch_conn_fp_attach, which says whether
 *    CLOSED will follow); detaching (NULL) from another thread does not wait
 *    for a handler call in flight. sd_comch_conn_fp_slot is a plain pointer:
 *    synchronise through it as you need.
 *
 * Lifetime: when the connection dies (peer death, disconnect, server/client
 * stop or destroy) the handler is called once with kind SD_COMCH_FP_CLOSED,
 * body NULL, len 0, fd -1. The memory of a connection handed to the user
 * stays valid after its death (every call above answers "dead":
 * is_alive false, fp_send NOT_CONNECTED, fp_attach false): a client's until
 * the client is destroyed; a server's until the server stops, or, while
 * pinned with sd_comch_conn_ref, until the server is destroyed. A producer or
 * consumer pins its connection from create to destroy; the owner's destroy
 * (and doca_comch_server_disconnect) answers IN_USE while it is pinned.
 *
 * Implemented in src/comch/connection.c.
 */
#ifndef SD_COMCH_H_
#define SD_COMCH_H_

#include "sd_abi.h"

#include <stdbool.h>
#include <stdint.h>

#include <doca_error.h>

struct doca_comch_connection;
struct doca_dev;

/* SOFTDOCA_COMCH_WAIT_WARN_MS=<ms> (softdoca-only, for tests and impatient
 * labs): a client's first waiting warning after <ms> instead of 3 s, 1 ms ..
 * 1 day (client.c; the UCX link's blocking connect warns after it too). */
#define SD_COMCH_WAIT_WARN_ENV "SOFTDOCA_COMCH_WAIT_WARN_MS"
#define SD_COMCH_WAIT_WARN_FIRST_MS 3000u
#define SD_COMCH_WAIT_WARN_MAX_MS (24ull * 3600 * 1000)

/* Kinds below the base are control-path frames; the fast path uses
 * SD_COMCH_FP_KIND_BASE .. SD_COMCH_FP_KIND_MAX. */
#define SD_COMCH_FP_KIND_BASE 0x100u
#define SD_COMCH_FP_KIND_MAX 0x1ffu
/* Pseudo kind given to the handler when the connection is gone. */
#define SD_COMCH_FP_CLOSED 0xffffu
/* Largest fast-path frame body. */
#define SD_COMCH_FP_MAX_BODY 4096u

typedef void (*sd_comch_fp_handler_t)(struct doca_comch_connection *conn, uint16_t kind, const void *body,
				      uint32_t len, int fd, void *arg);

/* One dispatcher per connection (NULL handler detaches). If no handler is set
 * when a fast-path frame arrives, sd_fp_conn_adopt gets it. */
void sd_comch_conn_fp_set_handler(struct doca_comch_connection *conn, sd_comch_fp_handler_t handler, void *arg);

/* Like sd_comch_conn_fp_set_handler, from any thread, and telling the
 * outcome: true if the handler is installed (it WILL get
 * SD_COMCH_FP_CLOSED exactly once later), false if the connection is
 * already closed (nothing installed, no CLOSED will come) or handler is
 * NULL. */
bool sd_comch_conn_fp_attach(struct doca_comch_connection *conn, sd_comch_fp_handler_t handler, void *arg);

/* Implemented by the fast path (src/comch/fastpath.c), called by the
 * control path on the connection's thread for a fast-path frame that found
 * no handler: attaches the fast path's state and dispatcher to conn, then
 * handles the frame. Takes fd (closes it or keeps it). */
void sd_fp_conn_adopt(struct doca_comch_connection *conn, uint16_t kind, const void *body, uint32_t len, int fd);

/* Pin / unpin the connection (any thread): a producer/consumer takes one in
 * its create (before anything else touches the connection) and drops it in
 * its destroy. */
void sd_comch_conn_ref(struct doca_comch_connection *conn);
void sd_comch_conn_unref(struct doca_comch_connection *conn);

/* Slot for the fast path's per-connection state (initially NULL). */
void **sd_comch_conn_fp_slot(struct doca_comch_connection *conn);

/* Send one fast-path frame to the peer. Thread-safe. fd >= 0 is passed with
 * SCM_RIGHTS (the caller keeps its own copy; close it yourself).
 * INVALID_VALUE: bad kind/length; NOT_CONNECTED: the connection is dead;
 * AGAIN: the link is momentarily full (retry). */
doca_error_t sd_comch_conn_fp_send(struct doca_comch_connection *conn, uint16_t kind, const void *body, uint32_t len,
				   int fd);

/* Atomic read, any thread. */
bool sd_comch_conn_is_alive(const struct doca_comch_connection *conn);

/* The local device the connection was made on (server's or client's dev). */
struct doca_dev *sd_comch_conn_dev(const struct doca_comch_connection *conn);

/* The fabric link the connection runs on: valid while the connection is
 * (until its CLOSED, for the fast path). */
struct sd_link;
struct sd_link *sd_comch_conn_link(const struct doca_comch_connection *conn);

/* The peer announced a consumer (appeared = true) or one went away: invokes
 * the owning server's/client's new/expired consumer callback. Connection's
 * thread only. */
void sd_comch_conn_raise_consumer_event(struct doca_comch_connection *conn, uint32_t consumer_id, bool appeared);

/* Non-zero id, unique per connection. Thread-safe. */
uint32_t sd_comch_conn_alloc_consumer_id(struct doca_comch_connection *conn);

/* The PE progressing the connection (the owner ctx's PE); may be NULL when
 * the owner is not connected to one. Lets the fast path wake it. */
struct doca_pe *sd_comch_conn_pe(const struct doca_comch_connection *conn);

#endif /* SD_COMCH_H_ */
