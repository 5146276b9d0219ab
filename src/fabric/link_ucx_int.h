/*
 * link_ucx_int.h - the seam inside the UCX module between the transport
 * (link_ucx.c: worker, thread, endpoints, handshake, keepalive) and remote
 * memory over it (remote_ucx.c). Private to the module.
 *
 * Model: a connection (struct uconn) has a role. Comch connections carry
 * frames (link_ucx.c alone); remote-memory connections carry the RM_*
 * messages, which link_ucx.c hands to remote_ucx.c once the connection is
 * authenticated: the exporter accepts them on its own listener
 * (sd_ucx_rm_listen), the importer opens one per import (sd_ucx_rm_connect).
 *
 * Locking: every function here and every callback below runs under the
 * module's one lock (sd_ucx_lock), taken by the caller or, for callbacks,
 * by the thread. Callbacks run on the UCX thread and must not block.
 */
#ifndef LINK_UCX_INT_H_
#define LINK_UCX_INT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <doca_error.h>

struct uconn;

/* Message kinds of remote memory (the AM header's kind; arg is a request id). */
enum {
	LK_RM_OPEN = 0x40, /* importer -> exporter: struct rm_open */
	LK_RM_GRANT,       /* exporter -> importer: struct rm_grant */
	LK_RM_READ,        /* importer -> exporter: struct rm_io */
	LK_RM_WRITE,       /* importer -> exporter: struct rm_io + the bytes */
	LK_RM_DONE,        /* exporter -> importer: struct rm_done (+ the bytes of a read) */
	LK_RM_ATOMIC,      /* importer -> exporter: struct rm_atomic (a sync event's value) */
	LK_RM_DETACH,      /* importer -> exporter: the import is released (no body) */
};

void sd_ucx_lock(void);
void sd_ucx_unlock(void);
/* Wait (lock held) for *flag until deadline (CLOCK_MONOTONIC ns); false on time-out. */
bool sd_ucx_wait(bool *flag, uint64_t deadline);
/* Wait (lock held) for one wake-up or until deadline; false once past it. */
bool sd_ucx_wait_once(uint64_t deadline);
/* Wake every waiter of sd_ucx_wait and sd_ucx_wait_once. */
void sd_ucx_broadcast(void);
uint64_t sd_ucx_now(void);
/* SOFTDOCA_LINK_TIMEOUT_MS in ns. */
uint64_t sd_ucx_timeout_ns(void);

/* The connection of a Comch link of this module (lock held; NULL for
 * another link or once closed): for tests sending what a hostile peer
 * would. */
struct sd_link;
struct uconn *sd_ucx_link_conn(struct sd_link *link);

/* Queue a message on c and wake the thread: false (c failed) without memory. */
bool sd_ucx_send(struct uconn *c, uint32_t kind, uint32_t arg, const void *a, size_t alen, const void *b,
		 size_t blen);
/* A message built in place, for a payload the caller would otherwise copy
 * into a buffer of its own first: sd_ucx_msg_new(len) gives room for len
 * bytes at sd_ucx_msg_data (NULL without memory or once UCX is gone);
 * sd_ucx_post queues it on c (m is the module's either way: false, c
 * failed); sd_ucx_msg_free drops one not posted. Payloads of up to
 * SD_UCX_POOLED_MAX bytes reuse buffers. */
#define SD_UCX_POOLED_MAX (256u * 1024u + 1024u)
struct txb;
struct txb *sd_ucx_msg_new(size_t len);
void *sd_ucx_msg_data(struct txb *m);
void sd_ucx_msg_free(struct txb *m);
bool sd_ucx_post(struct uconn *c, struct txb *m, uint32_t kind, uint32_t arg);
/* Payload bytes queued or in flight on c (what a flooding peer makes us hold). */
size_t sd_ucx_pending(const struct uconn *c);
/* Drop c (error err to whoever waits on it). */
void sd_ucx_drop(struct uconn *c, doca_error_t err);
bool sd_ucx_failed(const struct uconn *c, doca_error_t *err);
/* "ip:port" of the peer, and its claimed pid (logs only). */
const char *sd_ucx_peer(const struct uconn *c);
unsigned int sd_ucx_peer_pid(const struct uconn *c);
/* The card the peer authenticated for. */
uint32_t sd_ucx_card(const struct uconn *c);
/* remote_ucx.c's state on c: the importer's import, or the exporter's
 * session (freed with free() when c goes). */
void *sd_ucx_rm(const struct uconn *c);
void sd_ucx_set_rm(struct uconn *c, void *rm);

/* Exporter: the remote-memory listener for memory of card (made at the
 * first call for that card's link, on the local address that routes to
 * its peer, ephemeral port); *sa gets its address. */
doca_error_t sd_ucx_rm_listen(uint32_t card, struct sockaddr_storage *sa, socklen_t *salen);
/* Importer: connect to sa and authenticate for card (blocks, bounded by the
 * link timeout). NOT_FOUND: nobody answers; NOT_PERMITTED: the secrets
 * differ or the exporter refused the card. *out stays valid (failed, maybe)
 * until sd_ucx_rm_close. */
doca_error_t sd_ucx_rm_connect(const struct sockaddr_storage *sa, socklen_t salen, uint32_t card, const char *pci,
			       struct uconn **out);
/* Importer: let c go (the thread frees it once closed). */
void sd_ucx_rm_close(struct uconn *c);

/* ---- implemented by remote_ucx.c, called by link_ucx.c (thread, lock held) */

/* An RM_* message on an authenticated remote-memory connection. */
void sd_ucx_rm_message(struct uconn *c, bool server, uint32_t kind, uint32_t arg, const void *data, size_t len);
/* c failed or closed (its waiters must give up); server: the exporter's side. */
void sd_ucx_rm_failed(struct uconn *c, bool server, doca_error_t err);
/* The card an exporter's handshake serves for a HELLO (its card if this
 * process exports memory of that card, else a card no export has). */
uint32_t sd_ucx_rm_hello_card(const void *hello, size_t len);

#endif /* LINK_UCX_INT_H_ */
