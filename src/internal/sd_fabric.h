/*
 * sd_fabric.h - the emulated PCIe link between the host side and the Arm
 * side of an emulated card.
 *
 * Processes of the two sides meet in the fabric directory:
 *   $SOFTDOCA_FABRIC, else $XDG_RUNTIME_DIR/softdoca-fabric, else
 *   /tmp/softdoca-fabric-<uid>.
 * It is created mode 0700; one that belongs to another user or is open to
 * group/other is refused (NOT_PERMITTED, logged). A relative
 * $SOFTDOCA_FABRIC is resolved once, against the working directory at the
 * first use (logged at INFO), so a later chdir does not move the fabric.
 *
 * A listener is named by an address (card, PCI function, name): the server
 * listens under its representor's host-function address, the client connects
 * from its own host function. Peer credentials are checked both ways (same
 * uid only). One server owns an address: a second listener on it fails
 * (ALREADY_EXIST, its log names the owner's pid), however the two starts
 * interleave. A listener whose owner died leaves a stale socket behind; the
 * next listener on that address reclaims it. While a listener exists the
 * directory holds exactly its socket file, and nothing once it is closed.
 *
 * Frames: every record on a link is one frame, a struct sd_frame_hdr followed
 * by `length` body bytes, optionally carrying one fd. sd_link_recv checks
 * every frame (size, magic, version, type, per-type body size, sequence)
 * before handing it out; a bad frame is INVALID_VALUE (or
 * UNSUPPORTED_VERSION) and the caller drops the link.
 *
 * Comch conversation on a link: client HELLO (its card, host function,
 * server name, max message size) -> server ACCEPT (its max message size) or
 * REJECT (doca_error_t + reason; the server then closes). After ACCEPT both
 * sides send MSG and fast-path frames; BYE (or EOF) ends it.
 *
 * Transport: struct sd_link_ops, chosen once per process by
 * sd_fabric_transport(): the socket transport (AF_UNIX SOCK_SEQPACKET in
 * the fabric directory), or with SOFTDOCA_LINK=ucx://ADDR:PORT the UCX
 * transport across a network (sd_link_ucx.h; no file descriptors cross it;
 * remote memory across it: remote_ucx.c).
 *
 * Threading: sd_link_send is thread-safe (serialised per link) and so is
 * sd_link_close against concurrent senders; everything else on a link from
 * one thread at a time.
 *
 * Implemented in src/fabric/ (frame.c, fabric_dir.c, link_socket.c).
 */
#ifndef SD_FABRIC_H_
#define SD_FABRIC_H_

#include "sd_abi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/types.h>

#include <doca_error.h>

/* ---- wire format -------------------------------------------------------- */

#define SD_FRAME_MAGIC 0x42464453u /* "SDFB" little-endian */
#define SD_FRAME_VERSION 1u

struct sd_frame_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;   /* enum sd_frame_type, or a fast-path kind */
	uint32_t flags;  /* SD_FRAME_F_* */
	uint32_t length; /* body bytes after the header */
	uint64_t seq;    /* per direction, from 0, +1 per frame */
};

_Static_assert(sizeof(struct sd_frame_hdr) == 24, "frame header is 24 bytes on the wire");
_Static_assert(__builtin_offsetof(struct sd_frame_hdr, magic) == 0, "magic at 0");
_Static_assert(__builtin_offsetof(struct sd_frame_hdr, version) == 4, "version at 4");
_Static_assert(__builtin_offsetof(struct sd_frame_hdr, type) == 6, "type at 6");
_Static_assert(__builtin_offsetof(struct sd_frame_hdr, flags) == 8, "flags at 8");
_Static_assert(__builtin_offsetof(struct sd_frame_hdr, length) == 12, "length at 12");
_Static_assert(__builtin_offsetof(struct sd_frame_hdr, seq) == 16, "seq at 16");

/* The frame carried a file descriptor (SCM_RIGHTS). */
#define SD_FRAME_F_FD 0x1u

enum sd_frame_type {
	SD_FRAME_HELLO = 1,  /* client -> server, struct sd_frame_hello */
	SD_FRAME_ACCEPT = 2, /* server -> client, struct sd_frame_accept */
	SD_FRAME_REJECT = 3, /* server -> client, struct sd_frame_reject */
	SD_FRAME_MSG = 4,    /* a Comch control message, 1..SD_FRAME_MAX_MSG bytes */
	SD_FRAME_BYE = 5,    /* orderly disconnect, no body */
	/* SD_FRAME_FP_FIRST..SD_FRAME_FP_LAST: fast-path kinds, opaque bodies
	 * of at most SD_FRAME_FP_MAX_BODY bytes (see sd_comch.h). */
	SD_FRAME_FP_FIRST = 0x100,
	SD_FRAME_FP_LAST = 0x1ff,
};

#define SD_FRAME_MAX_MSG (64u * 1024u)
#define SD_FRAME_FP_MAX_BODY 4096u
#define SD_FRAME_MAX_BODY SD_FRAME_MAX_MSG
/* Receive buffer large enough for any valid frame. */
#define SD_FRAME_BUF_SIZE (sizeof(struct sd_frame_hdr) + SD_FRAME_MAX_BODY)

#define SD_FABRIC_NAME_MAX 128 /* with the NUL */
#define SD_FABRIC_PCI_MAX 16

struct sd_frame_hello {
	uint32_t card;
	uint32_t max_msg_size;
	uint32_t pid;
	uint32_t reserved;
	char pci_addr[SD_FABRIC_PCI_MAX]; /* client's host function, NUL-terminated */
	char name[SD_FABRIC_NAME_MAX];    /* server name, NUL-terminated */
};
_Static_assert(sizeof(struct sd_frame_hello) == 16 + SD_FABRIC_PCI_MAX + SD_FABRIC_NAME_MAX, "hello layout");

struct sd_frame_accept {
	uint32_t max_msg_size; /* server's limit */
	uint32_t pid;
};
_Static_assert(sizeof(struct sd_frame_accept) == 8, "accept layout");

struct sd_frame_reject {
	int32_t error;   /* doca_error_t */
	char reason[124]; /* NUL-terminated */
};
_Static_assert(sizeof(struct sd_frame_reject) == 128, "reject layout");

/* A checked frame: body points into the caller's buffer. */
struct sd_frame_view {
	uint16_t type;
	uint32_t flags;
	uint64_t seq;
	const void *body;
	uint32_t length;
};

/* Build a header. */
void sd_frame_hdr_init(struct sd_frame_hdr *hdr, uint16_t type, uint32_t flags, uint32_t length, uint64_t seq);
/* Check `received` bytes at buf as one frame. INVALID_VALUE (truncated,
 * oversized, unknown type, body size wrong for its type, bad magic) or
 * UNSUPPORTED_VERSION; *why gets a static explanation. */
doca_error_t sd_frame_parse(const void *buf, size_t received, struct sd_frame_view *view, const char **why);
const char *sd_frame_type_name(uint16_t type);

/* ---- fabric directory and addresses ------------------------------------ */

struct sd_fabric_addr {
	uint32_t card;
	char pci[SD_FABRIC_PCI_MAX];
	char name[SD_FABRIC_NAME_MAX];
};

/* Resolve, create if missing (mode 0700) and check the fabric directory. */
doca_error_t sd_fabric_dir(char *out, size_t cap);
/* Check an existing directory: ours, a real directory, no group/other access. */
doca_error_t sd_fabric_dir_check(const char *dir);
/* The socket path of an address: "<dir>/card<N>-<pci>-<name>.sock"; names
 * with characters outside [A-Za-z0-9._-], or too long for sun_path, become
 * a readable prefix plus a hash. */
doca_error_t sd_fabric_addr_path(const struct sd_fabric_addr *addr, char *out, size_t cap);

/* ---- links ------------------------------------------------------------- */

struct sd_link;

struct sd_link_ops {
	const char *name;
	/* Listen on addr. ALREADY_EXIST if a live listener owns it (logged
	 * with its pid; a stale one is reclaimed). */
	doca_error_t (*listen)(const struct sd_fabric_addr *addr, struct sd_link **out);
	/* The peer dead_pid that listened on addr died (gone or exiting):
	 * remove what it left there unless a live listener answers (waits
	 * briefly for dead_pid's own listener to close). SUCCESS: removed or
	 * nothing there; BAD_STATE: dead_pid still lives; ALREADY_EXIST: a
	 * live listener; NOT_PERMITTED: the file is not ours. */
	doca_error_t (*reclaim)(const struct sd_fabric_addr *addr, pid_t dead_pid);
	/* Accept one pending peer: AGAIN if none; NOT_PERMITTED (logged, peer
	 * dropped) if its credentials differ. FULL: transient, the process (or
	 * system) is out of descriptors or kernel memory, errno says which
	 * (EMFILE, ENFILE, ENOBUFS, ENOMEM). The peer stays queued and the
	 * listener's fd stays readable, so a caller must pause before it tries
	 * again and tell the user what to raise (the Comch server backs off on
	 * a timer, server.c); the transport itself neither pauses nor logs
	 * above DEBUG. OPERATING_SYSTEM (logged, errno set): anything else. */
	doca_error_t (*accept)(struct sd_link *listener, struct sd_link **out);
	/* Connect to addr: NOT_FOUND if nobody listens, AGAIN if the listener
	 * is momentarily full or (across a network) the peer has not answered
	 * yet: call again later, the attempt goes on meanwhile; NOT_PERMITTED
	 * on a credential mismatch. */
	doca_error_t (*connect)(const struct sd_fabric_addr *addr, struct sd_link **out);
	/* Send one frame (fd >= 0 travels with it; the caller keeps its copy).
	 * AGAIN: the link is full; NOT_CONNECTED: closed; CONNECTION_RESET:
	 * the peer is gone. */
	doca_error_t (*send)(struct sd_link *link, uint16_t type, const void *body, uint32_t len, int fd);
	/* Receive and check one frame into buf (SD_FRAME_BUF_SIZE bytes). AGAIN:
	 * nothing pending; CONNECTION_RESET: the peer closed or died;
	 * INVALID_VALUE/UNSUPPORTED_VERSION: a bad frame (logged). *fd gets a
	 * received descriptor (the caller owns it) or -1. */
	doca_error_t (*recv)(struct sd_link *link, void *buf, struct sd_frame_view *view, int *fd);
	/* Close the descriptor (idempotent, safe against concurrent send); a
	 * listener also removes its socket file. The object stays valid. */
	void (*close)(struct sd_link *link);
	/* Free the object (closes it first). */
	void (*destroy)(struct sd_link *link);
};

/* Common part of every link; transports extend it. */
struct sd_link {
	const struct sd_link_ops *ops;
	int fd;                 /* pollable: readable = work pending; -1 once closed */
	pid_t peer_pid;         /* from the peer's credentials, 0 for a listener */
	uint64_t tx_seq;        /* next sequence number to send (under lock) */
	uint64_t rx_seq;        /* next sequence number expected */
	pthread_mutex_t lock;   /* serialises send and close */
};

const struct sd_link_ops *sd_fabric_transport(void);
/* The transport SOFTDOCA_LINK asks for, given the socket one
 * (src/fabric/link_select.c). Weak so that the socket transport can be
 * built and tested alone: absent, sd_fabric_transport() is the socket. */
const struct sd_link_ops *sd_link_select(const struct sd_link_ops *socket_ops) __attribute__((weak));

static inline doca_error_t sd_link_send(struct sd_link *l, uint16_t type, const void *body, uint32_t len, int fd)
{
	return l->ops->send(l, type, body, len, fd);
}
static inline doca_error_t sd_link_recv(struct sd_link *l, void *buf, struct sd_frame_view *view, int *fd)
{
	return l->ops->recv(l, buf, view, fd);
}
static inline void sd_link_close(struct sd_link *l)
{
	l->ops->close(l);
}
static inline void sd_link_destroy(struct sd_link *l)
{
	if (l != NULL)
		l->ops->destroy(l);
}

#endif /* SD_FABRIC_H_ */
