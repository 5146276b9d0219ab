/*
 * sd_link_ucx.h - the link across a network: selection, authentication and
 * the UCX transport.
 *
 * Selection (src/fabric/link_select.c, always built): SOFTDOCA_LINK unset or
 * empty keeps the socket transport of the fabric directory. SOFTDOCA_LINK=
 * ucx://ADDR:PORT (ADDR an IPv4 address, a host name or [IPv6]) selects the
 * UCX transport; so does a card's own link in the topology (cards[i].link,
 * which wins for that card: struct sd_link_urls). It needs a secret
 * (SOFTDOCA_LINK_SECRET_FILE, the topology's link_secret_file or
 * ~/.softdoca-secret). All are read and checked once, at the first use of
 * the fabric; a bad setting makes every listen and connect fail with the
 * error it got (logged once, naming the variable), never a silent fall-back
 * to the local fabric.
 *
 * The UCX transport lives in a module (sd_link_ucx.so, next to
 * libdoca_common in "softdoca/" or in the build tree) loaded only when asked
 * for, so processes that do not use it never load UCX. A softdoca built
 * without UCX answers ucx:// with NOT_SUPPORTED.
 *
 * Authentication (src/fabric/link_auth.c): a mutual challenge-response on a
 * secret both sides read from their SOFTDOCA_LINK_SECRET_FILE, before any
 * frame is accepted:
 *   client -> server  HELLO     {card, pid, nonce_c}
 *   server -> client  CHALLENGE {card, pid, nonce_s, mac_s}
 *   client -> server  PROOF     {mac_c, the address the client opens}
 *   server -> client  RESULT    {doca_error_t, reason}
 * with mac_x = HMAC-SHA256(secret, role_x || own nonce || peer nonce || card),
 * role 'S' for the server and 'C' for the client, card little-endian. The
 * secret never travels and is never logged; MACs are compared in constant
 * time. pid fields are the peer's claim, for logs only.
 *
 * Remote memory (doca_mmap_export_pci / doca_mmap_create_from_export with
 * SOFTDOCA_LINK set): served by the exporter's UCX thread on a second,
 * ephemeral listener, reached through the same handshake; see struct
 * sd_link_remote_ops below and src/fabric/remote_ucx.c.
 *
 * Threading: parsing and the handshake functions are pure (no global
 * state); sd_link_select and sd_link_remote are thread-safe.
 */
#ifndef SD_LINK_UCX_H_
#define SD_LINK_UCX_H_

#include "sd_fabric.h"

#include <stdint.h>
#include <sys/socket.h>

#include <doca_error.h>

/* ---- SOFTDOCA_LINK URL --------------------------------------------------- */

#define SD_LINK_HOST_MAX 256

/* The secret file used when neither SOFTDOCA_LINK_SECRET_FILE nor the
 * topology's link_secret_file names one: this, in $HOME. */
#define SD_LINK_DEFAULT_SECRET ".softdoca-secret"

struct sd_link_url {
	char host[SD_LINK_HOST_MAX]; /* as written, without brackets */
	uint16_t port;
	struct sockaddr_storage sa; /* resolved */
	socklen_t salen;
	char text[SD_LINK_HOST_MAX + 16]; /* "ucx://host:port" for logs */
};

/* Parse "ucx://ADDR:PORT" and resolve ADDR. INVALID_VALUE (bad scheme,
 * missing or bad port, port out of 1..65535, empty address) or NOT_FOUND
 * (unresolvable); why (cap bytes) gets the explanation. */
doca_error_t sd_link_url_parse(const char *text, struct sd_link_url *out, char *why, size_t cap);

/* ---- secret file --------------------------------------------------------- */

#define SD_LINK_SECRET_MAX 4096

/* Read the secret at path into buf (SD_LINK_SECRET_MAX bytes). Refused
 * (NOT_PERMITTED) unless a regular file (no symlink), owned by us, no
 * group/other access; INVALID_VALUE if empty or larger than
 * SD_LINK_SECRET_MAX; why gets the explanation (never the content). */
doca_error_t sd_link_secret_load(const char *path, uint8_t *buf, size_t *len, char *why, size_t cap);

/* ---- handshake ----------------------------------------------------------- */

#define SD_AUTH_MAGIC 0x48544153u /* "SATH" */
#define SD_AUTH_VERSION 1u
#define SD_AUTH_NONCE 32
#define SD_AUTH_MAC 32

struct sd_auth_hello {
	uint32_t magic;
	uint16_t version;
	uint16_t reserved;
	uint32_t card;
	uint32_t pid;
	uint8_t nonce[SD_AUTH_NONCE];
};

struct sd_auth_challenge {
	uint32_t magic;
	uint16_t version;
	uint16_t reserved;
	uint32_t card;
	uint32_t pid;
	uint8_t nonce[SD_AUTH_NONCE];
	uint8_t mac[SD_AUTH_MAC];
};

struct sd_auth_proof {
	uint32_t magic;
	uint16_t version;
	uint16_t reserved;
	uint8_t mac[SD_AUTH_MAC];
	struct sd_fabric_addr addr; /* what the client opens */
};

struct sd_auth_result {
	uint32_t magic;
	int32_t error; /* doca_error_t: SUCCESS, NOT_PERMITTED, NOT_FOUND... */
	char reason[120];
};

struct sd_auth {
	bool server;
	uint32_t card;
	const uint8_t *secret;
	size_t secret_len;
	uint8_t own[SD_AUTH_NONCE];
	uint8_t peer[SD_AUTH_NONCE];
	uint32_t peer_pid;
	int step; /* what comes next, internal */
};

/* The MAC of one side (role 'C' or 'S'). */
void sd_auth_mac(const uint8_t *secret, size_t secret_len, char role, const uint8_t *own, const uint8_t *peer,
		 uint32_t card, uint8_t out[SD_AUTH_MAC]);

/* Client: start, fill the HELLO. */
doca_error_t sd_auth_client_hello(struct sd_auth *a, const uint8_t *secret, size_t len, uint32_t card,
				  struct sd_auth_hello *out);
/* Server: check a HELLO (len bytes) for our card, fill the CHALLENGE.
 * INVALID_VALUE: malformed; NOT_PERMITTED: another card. */
doca_error_t sd_auth_server_challenge(struct sd_auth *a, const uint8_t *secret, size_t secret_len, uint32_t card,
				      const void *msg, size_t len, struct sd_auth_challenge *out, char *why,
				      size_t cap);
/* Client: check the server's CHALLENGE, fill the PROOF for addr.
 * NOT_PERMITTED: the server does not know the secret (or another card). */
doca_error_t sd_auth_client_proof(struct sd_auth *a, const void *msg, size_t len, const struct sd_fabric_addr *addr,
				  struct sd_auth_proof *out, char *why, size_t cap);
/* Server: check the client's PROOF; *addr gets what it opens.
 * NOT_PERMITTED: the client does not know the secret. */
doca_error_t sd_auth_server_verify(struct sd_auth *a, const void *msg, size_t len, struct sd_fabric_addr *addr,
				   char *why, size_t cap);

/* ---- the transport module ------------------------------------------------ */

/* Where the cards' Arm sides listen: def (SOFTDOCA_LINK, else the
 * topology's "link"; NULL when only cards name theirs) and, for each of the
 * topology's ncards cards, its own link (cards[i].link; salen 0: none, def
 * applies; salen 0 with text: named but unresolvable here, unreachable). A
 * card with neither cannot listen or connect (NOT_SUPPORTED). */
#define SD_LINK_MAX_CARDS 4096u
struct sd_link_urls {
	const struct sd_link_url *def;
	const struct sd_link_url *cards;
	uint32_t ncards;
};

/* The module's one entry point (dlsym), called once. */
#define SD_LINK_UCX_ENTRY "priv_doca_sd_link_ucx_init"
typedef const struct sd_link_ops *(*sd_link_ucx_init_fn)(const struct sd_link_urls *urls, const uint8_t *secret,
							 size_t secret_len, doca_error_t *err);

/* ---- remote memory across the link --------------------------------------- */

/*
 * What remote_mem.c asks of the module when SOFTDOCA_LINK=ucx:// is set
 * (protocol, security and time bounds in src/fabric/remote_ucx.c). Each
 * call is checked there again; remote_mem.c checks the descriptor's layout,
 * card and side first. Thread-safe; read/write block the caller until the
 * bytes moved or failed (bounded by SOFTDOCA_LINK_TIMEOUT_MS + 1 s without
 * progress); an import is used as sd_remote.h says (no read/write
 * concurrent with release).
 */
struct sd_remote_ndesc;

struct sd_link_remote_ops {
	/* Serve [addr, addr+len) as (card, side, pci) and fill *d. kind
	 * (SD_REMOTE_NKIND_*): memory, moved by read/write; or a sync event's
	 * 8-byte value, moved by atomic only, which must stay mapped until
	 * unexport returns. */
	doca_error_t (*export_mem)(void *addr, size_t len, uint32_t access, uint32_t kind, uint32_t card,
				   uint8_t side, const char *pci, struct sd_remote_ndesc *d);
	/* Revoke an export (later opens and accesses fail NOT_FOUND); once it
	 * returns, no access of a peer touches the range. */
	void (*unexport)(uint64_t id);
	/* An importer of this export lost its link without releasing it. */
	bool (*export_lost)(uint64_t id);
	/* Connect to the exporter d names, authenticate, open the export. */
	doca_error_t (*import)(const struct sd_remote_ndesc *d, uint8_t my_side, void **handle);
	doca_error_t (*read)(void *handle, uint64_t raddr, void *local, size_t len);
	doca_error_t (*write)(void *handle, uint64_t raddr, const void *local, size_t len);
	/* One atomic operation (enum sd_remote_atomic_op) on the 8 bytes of a
	 * value export at raddr; *old receives the value before it. */
	doca_error_t (*atomic)(void *handle, uint32_t op, uint64_t raddr, uint64_t operand, uint64_t *old);
	void (*release)(void *handle);
};

/* The module's second entry point (dlsym). */
#define SD_LINK_UCX_REMOTE_ENTRY "priv_doca_sd_link_ucx_remote"
typedef const struct sd_link_remote_ops *(*sd_link_ucx_remote_fn)(void);

/*
 * Which remote memory the process uses (link_select.c; selects the
 * transport first if nothing did yet): SUCCESS with *ops NULL for the local
 * mechanism (no SOFTDOCA_LINK), SUCCESS with the module's ops for UCX, or
 * the error that refuses the SOFTDOCA_LINK setting (logged). Weak: absent
 * where remote_mem.c is built without the link (its unit tests).
 */
doca_error_t sd_link_remote(const struct sd_link_remote_ops **ops) __attribute__((weak));

/* ---- the Comch fast path across the link --------------------------------- */

/*
 * What the Comch fast path (src/comch/fastpath.c, "Across a network") asks
 * of the module: messages of its own on a Comch link's connection, outside
 * the link's frames (no sequence number, no window of the link: the fast
 * path's credits bound them), delivered to a tap as they arrive so that a
 * producer gets its credits while its program is busy elsewhere (as the
 * shared ring gives them locally).
 *  - attach: install the link's tap (once; INVALID_VALUE for a link of
 *    another transport). Messages that came before it are held (bounded)
 *    and delivered first.
 *  - send: queue one message (kind in SD_FRAME_FP_FIRST..LAST) whose body
 *    is head (hlen bytes) then body (len bytes), at most SD_LINK_FP_MAX_BODY
 *    in all: gathered, so that a message's bytes go from the producer's
 *    buffer to the wire in one copy. NOT_CONNECTED: the link is closed or
 *    failed; AGAIN: too much is queued toward the peer (retry later).
 *  - sync: deliver, on the caller's thread, everything that arrived up to
 *    now and is not delivered yet (the fast path calls it before a frame
 *    that must find the tap's work done: frames and these messages leave
 *    in order, but reach the program by two ways).
 * The tap runs on the module's thread (or in sync), one call at a time,
 * in arrival order, without the module's lock: it may take its own locks,
 * must not block long and must not call back into the module. It may run
 * until the link is closed; close waits for a call in flight, and none
 * comes after it.
 */
typedef void (*sd_link_fp_tap_fn)(void *arg, uint16_t kind, const void *body, uint32_t len);

/* The largest fast-path message body across the link: fragments of large
 * Comch messages this big cost one network message each, not one per 4 KiB
 * (as a frame would). */
#define SD_LINK_FP_MAX_BODY (256u * 1024u)

struct sd_link_fp_ops {
	doca_error_t (*attach)(struct sd_link *link, sd_link_fp_tap_fn tap, void *arg);
	doca_error_t (*send)(struct sd_link *link, uint16_t kind, const void *head, uint32_t hlen, const void *body,
			     uint32_t len);
	void (*sync)(struct sd_link *link);
};

/* The module's third entry point (dlsym). */
#define SD_LINK_UCX_FP_ENTRY "priv_doca_sd_link_ucx_fastpath"
typedef const struct sd_link_fp_ops *(*sd_link_ucx_fp_fn)(void);

/* The fast-path calls of the transport in use (link_select.c; selects the
 * transport first if nothing did yet): the module's with SOFTDOCA_LINK=ucx,
 * NULL for the socket transport, a refused setting or a module without
 * them. Thread-safe. */
const struct sd_link_fp_ops *sd_link_fastpath(void);

#endif /* SD_LINK_UCX_H_ */
