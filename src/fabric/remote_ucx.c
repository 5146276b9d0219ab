/*
 * Remote memory across the network (SOFTDOCA_LINK=ucx://): what
 * doca_mmap_export_pci / doca_mmap_create_from_export and DMA tasks on an
 * imported mmap become when the two sides are on different machines. Part of
 * the UCX module; remote_mem.c calls it through struct sd_link_remote_ops.
 *
 * Model: the exporter's own UCX thread serves its exports; the exporting
 * program runs nothing for a remote DMA to happen, and needs no Comch (a
 * host program such as dma_copy_host has none).
 *   export:  the first export makes a second UCX listener, on the local
 *            address that routes to the SOFTDOCA_LINK peer (a UDP connect +
 *            getsockname: on the Arm side that is the link's own address),
 *            port chosen by the kernel. The descriptor (struct
 *            sd_remote_ndesc, 112 bytes, sd_remote.h) names that address
 *            and port, a random 64-bit export id and 128-bit token, the
 *            range, the rights, card and side.
 *   import:  the importer connects there, passes the link's mutual HMAC
 *            handshake (link_auth.c: both prove the shared secret, bound to
 *            the card), then sends RM_OPEN {id, token, card, side}. The
 *            exporter checks the export is live, the token (constant time),
 *            the card (the one the handshake authenticated) and that the
 *            importer is the other side; RM_GRANT answers with the range and
 *            rights or the error and why. One connection per import.
 *   access:  each DMA segment is cut in chunks of RM_CHUNK bytes, at most
 *            RM_WINDOW of them in flight: RM_READ {addr, len} is answered by
 *            RM_DONE {error} + the bytes, RM_WRITE {addr, len} + the bytes by
 *            RM_DONE {error}. The exporter checks every request again:
 *            export still live (revoked: NOT_FOUND), inside the range
 *            (INVALID_VALUE), rights (a write to a read-only export:
 *            NOT_PERMITTED), and copies with process_vm_readv/writev on
 *            itself (/proc/self/mem where a seccomp profile refuses them),
 *            so memory the program unmapped is IO_FAILED, not a crash.
 *   values:  an export of kind SD_REMOTE_NKIND_CELL is a doca_sync_event's
 *            8-byte value (remote_cell.c). It takes no RM_READ/RM_WRITE
 *            (NOT_PERMITTED), only RM_ATOMIC {addr, op, operand}: get, set
 *            or add, run by the exporter with an atomic instruction on its
 *            own 8 bytes (which stay mapped until unexport, taken under this
 *            module's lock as the operation is) and answered by RM_DONE +
 *            the value before it; the address must be the export's, an
 *            update needs PCI_READ_WRITE. A memory export takes no RM_ATOMIC
 *            (NOT_PERMITTED). The grant names the kind, and an importer
 *            whose descriptor says otherwise gives up (INVALID_VALUE).
 *   release: RM_DETACH before the connection closes; an importer whose
 *            connection fails without it is "lost" (export_lost), which a
 *            sync event's exporter reports to its waits as a dead peer.
 *
 * Why messages and not UCX RMA (ucp_put/get with an rkey): over TCP, which
 * is what a network without RDMA hardware offers, UCX emulates RMA with its
 * own active messages whose handler writes to whatever address the sender
 * names, without looking at the rkey. A worker that enabled RMA would let any
 * peer that reaches its port -- before or without our handshake -- read and
 * write all of the exporter's memory. Here the worker enables active messages
 * only, so the checks above are the only way in, and no key ever appears in
 * the descriptor file or on the wire. (With RDMA hardware the NIC enforces
 * rkeys; using them there is left for later.)
 *
 * Hostile peers: every message is checked for its exact size and for the
 * state it may arrive in (no I/O before a grant, no second RM_OPEN, a DONE
 * must match a request of ours, sizes as requested); anything else drops the
 * connection, logged. An importer may make the exporter hold at most
 * RM_MAX_PENDING bytes of answers; past that it is dropped.
 *
 * Faults and time bounds: the exporter killed or the link down during an
 * access -> the waiting DMA returns CONNECTION_RESET when UCX reports the
 * endpoint dead (a killed process: at once, its kernel resets the TCP
 * connection) or when nothing was heard for SOFTDOCA_LINK_TIMEOUT_MS (5 s by
 * default: keepalive, link_ucx.c); a peer that keeps the link alive but
 * stops answering costs at most SOFTDOCA_LINK_TIMEOUT_MS + 1 s per chunk
 * window, after which the connection is dropped and the access fails
 * CONNECTION_RESET. An import finds a dead exporter (NOT_FOUND) within the
 * same bound.
 *
 * Threading: everything runs under the module's lock; import, read and write
 * block their caller (never the UCX thread) waiting on it. Messages arrive on
 * the UCX thread (sd_ucx_rm_message).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <unistd.h>

#include <doca_types.h>
#include <openssl/crypto.h>

#include "sd_env.h"
#include "sd_link_ucx.h"
#include "sd_log.h"
#include "sd_remote.h"
#include "link_ucx_int.h"

SD_LOG_REGISTER(REMOTE);

#define RM_CHUNK (256u * 1024u)
#define RM_WINDOW 8u
#define RM_MAX_PENDING (4u * RM_WINDOW * RM_CHUNK)
#define RM_ACCESS_PCI (DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE)

/* ---- messages (AM payloads; the AM header carries kind and request id) -- */

struct rm_open {
	uint64_t id;
	uint8_t token[SD_REMOTE_TOKEN_LEN];
	uint32_t card;
	uint8_t side; /* the importer's */
	uint8_t reserved[3];
};
_Static_assert(sizeof(struct rm_open) == 32, "rm_open layout");

struct rm_grant {
	int32_t error; /* doca_error_t */
	uint32_t access;
	uint64_t addr;
	uint64_t len;
	uint32_t kind;    /* SD_REMOTE_NKIND_* */
	char reason[100]; /* NUL-terminated */
};
_Static_assert(sizeof(struct rm_grant) == 128, "rm_grant layout");

struct rm_io {
	uint64_t addr; /* exporter's address */
	uint64_t len;  /* 1..RM_CHUNK */
};

/* On a value export (SD_REMOTE_NKIND_CELL): answered by RM_DONE + the
 * 8 bytes the value held before. */
struct rm_atomic {
	uint64_t addr; /* exporter's address: the export's own */
	uint32_t op;   /* enum sd_remote_atomic_op */
	uint32_t reserved;
	uint64_t operand;
};
_Static_assert(sizeof(struct rm_atomic) == 24, "rm_atomic layout");

struct rm_done {
	int32_t error; /* doca_error_t */
	uint32_t reserved;
	uint64_t len; /* bytes that follow (a successful read) */
};
_Static_assert(sizeof(struct rm_done) + RM_CHUNK <= SD_UCX_POOLED_MAX, "a read's answer reuses buffers");

/* ---- exporter ------------------------------------------------------------- */

struct rexp {
	struct rexp *next;
	uint64_t id;
	uint8_t token[SD_REMOTE_TOKEN_LEN];
	uint64_t addr, len;
	uint32_t access, card, kind;
	uint8_t side;
	bool lost; /* an importer's link failed before it released the import */
};

/* An importer's session on the exporter (the connection's rm; freed with it). */
struct rsess {
	uint64_t id;
	bool detached; /* the importer released the import (RM_DETACH) */
};

static struct rexp *g_exports;
/* serving: /proc/self/mem instead of process_vm_* (see self_copy) */
static int g_self_mem = -1;
static bool g_self_pvm_refused;

static struct rexp *find_export(uint64_t id)
{
	struct rexp *x;

	for (x = g_exports; x != NULL; x = x->next)
		if (x->id == id)
			return x;
	return NULL;
}

uint32_t sd_ucx_rm_hello_card(const void *hello, size_t len)
{
	struct sd_auth_hello h;
	struct rexp *x;

	if (hello != NULL && len == sizeof(h)) {
		memcpy(&h, hello, sizeof(h));
		for (x = g_exports; x != NULL; x = x->next)
			if (x->card == h.card)
				return h.card;
		/* the handshake then refuses it, naming a card we serve */
		return g_exports != NULL ? g_exports->card : h.card + 1;
	}
	return g_exports != NULL ? g_exports->card : 0;
}

static doca_error_t fill_random(void *p, size_t n)
{
	size_t got = 0;
	ssize_t k;

	while (got < n) {
		k = getrandom((uint8_t *)p + got, n - got, 0);
		if (k <= 0)
			return DOCA_ERROR_OPERATING_SYSTEM;
		got += (size_t)k;
	}
	return DOCA_SUCCESS;
}

static doca_error_t ux_export(void *addr, size_t len, uint32_t access, uint32_t kind, uint32_t card, uint8_t side,
			      const char *pci, struct sd_remote_ndesc *d)
{
	struct sockaddr_storage sa;
	socklen_t salen = 0;
	struct rexp *x;
	doca_error_t err;

	x = calloc(1, sizeof(*x));
	if (x == NULL)
		return DOCA_ERROR_NO_MEMORY;
	sd_ucx_lock();
	err = sd_ucx_rm_listen(card, &sa, &salen);
	if (err != DOCA_SUCCESS) {
		sd_ucx_unlock();
		free(x);
		SD_LOG_ERR("export: cannot serve memory across the network: %s", doca_error_get_name(err));
		return err;
	}
	do {
		err = fill_random(&x->id, sizeof(x->id));
	} while (err == DOCA_SUCCESS && (x->id == 0 || find_export(x->id) != NULL));
	if (err == DOCA_SUCCESS)
		err = fill_random(x->token, sizeof(x->token));
	if (err != DOCA_SUCCESS) {
		sd_ucx_unlock();
		free(x);
		SD_LOG_ERR("export: getrandom failed");
		return err;
	}
	x->addr = (uint64_t)(uintptr_t)addr;
	x->len = len;
	x->access = access;
	x->kind = kind;
	x->card = card;
	x->side = side;
	memset(d, 0, sizeof(*d));
	d->magic = SD_REMOTE_NDESC_MAGIC;
	d->version = SD_REMOTE_NDESC_VERSION;
	d->size = SD_REMOTE_NDESC_SIZE;
	d->card = card;
	d->side = side;
	d->access = access;
	d->pid = (uint32_t)getpid();
	d->id = x->id;
	d->addr = x->addr;
	d->len = len;
	d->kind = kind;
	memcpy(d->token, x->token, sizeof(d->token));
	snprintf(d->pci, sizeof(d->pci), "%s", pci);
	if (sa.ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)&sa;

		d->family = 4;
		d->port = ntohs(in->sin_port);
		memcpy(d->ip, &in->sin_addr, 4);
	} else {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&sa;

		d->family = 6;
		d->port = ntohs(in6->sin6_port);
		memcpy(d->ip, &in6->sin6_addr, 16);
	}
	/* the checksum is remote_mem.c's (sd_remote_ndesc_checksum) */
	{
		int fb = 0;

		/* as for local imports (sd_remote.h): the fallback for everything */
		if (sd_env_bool("SOFTDOCA_REMOTE_FORCE_FALLBACK", &fb) == DOCA_SUCCESS && fb)
			g_self_pvm_refused = true;
	}
	x->next = g_exports;
	g_exports = x;
	sd_ucx_unlock();
	return DOCA_SUCCESS;
}

static void ux_unexport(uint64_t id)
{
	struct rexp **pp, *x;

	sd_ucx_lock();
	for (pp = &g_exports; (x = *pp) != NULL; pp = &x->next) {
		if (x->id == id) {
			*pp = x->next;
			OPENSSL_cleanse(x, sizeof(*x));
			free(x);
			break;
		}
	}
	sd_ucx_unlock();
}

static bool ux_export_lost(uint64_t id)
{
	struct rexp *x;
	bool lost;

	sd_ucx_lock();
	x = find_export(id);
	lost = x != NULL && x->lost;
	sd_ucx_unlock();
	return lost;
}

/* Does the export let the importer read (any PCI right) or update it? */
static bool export_allows(const struct rexp *x, bool write)
{
	return (x->access & (write ? DOCA_ACCESS_FLAG_PCI_READ_WRITE : RM_ACCESS_PCI)) != 0;
}

static void hostile(struct uconn *c, const char *what)
{
	SD_LOG_ERR("remote memory: peer %s (pid %u) %s; dropping the connection", sd_ucx_peer(c), sd_ucx_peer_pid(c),
		   what);
	sd_ucx_drop(c, DOCA_ERROR_CONNECTION_RESET);
}

static void serve_open(struct uconn *c, const void *data, size_t len)
{
	struct rm_grant gr;
	struct rm_open o;
	struct rsess *s;
	struct rexp *x;

	if (sd_ucx_rm(c) != NULL) {
		hostile(c, "opened a second export on one connection");
		return;
	}
	if (len != sizeof(o)) {
		hostile(c, "sent a malformed RM_OPEN");
		return;
	}
	memcpy(&o, data, sizeof(o));
	memset(&gr, 0, sizeof(gr));
	x = find_export(o.id);
	if (x == NULL) {
		gr.error = DOCA_ERROR_NOT_FOUND;
		snprintf(gr.reason, sizeof(gr.reason), "no such export (revoked, or the exporter restarted)");
	} else if (CRYPTO_memcmp(o.token, x->token, sizeof(o.token)) != 0 || o.reserved[0] || o.reserved[1] ||
		   o.reserved[2]) {
		gr.error = DOCA_ERROR_INVALID_VALUE;
		snprintf(gr.reason, sizeof(gr.reason), "the token does not match: forged or corrupted descriptor");
	} else if (o.card != x->card || sd_ucx_card(c) != x->card) {
		gr.error = DOCA_ERROR_NOT_PERMITTED;
		snprintf(gr.reason, sizeof(gr.reason), "the export belongs to card %u", (unsigned)x->card);
	} else if ((o.side != SD_SIDE_HOST && o.side != SD_SIDE_DPU) || o.side == x->side) {
		gr.error = DOCA_ERROR_NOT_PERMITTED;
		snprintf(gr.reason, sizeof(gr.reason), "only the other side of the card may import it");
	} else {
		s = calloc(1, sizeof(*s));
		if (s == NULL) {
			gr.error = DOCA_ERROR_NO_MEMORY;
			snprintf(gr.reason, sizeof(gr.reason), "out of memory");
		} else {
			s->id = x->id;
			sd_ucx_set_rm(c, s);
			gr.error = DOCA_SUCCESS;
			gr.access = x->access;
			gr.addr = x->addr;
			gr.len = x->len;
			gr.kind = x->kind;
			snprintf(gr.reason, sizeof(gr.reason), "ok");
		}
	}
	OPENSSL_cleanse(&o, sizeof(o));
	if (gr.error != DOCA_SUCCESS)
		SD_LOG_ERR("remote memory: import by %s (pid %u) refused: %s", sd_ucx_peer(c), sd_ucx_peer_pid(c),
			   gr.reason);
	else
		SD_LOG_DBG("remote memory: %s (pid %u) imported 0x%llx+%llu", sd_ucx_peer(c), sd_ucx_peer_pid(c),
			   (unsigned long long)gr.addr, (unsigned long long)gr.len);
	(void)sd_ucx_send(c, LK_RM_GRANT, 0, &gr, sizeof(gr), NULL, 0);
}

/* Copy within this process through the kernel: an address the program
 * unmapped fails (EFAULT) instead of crashing the exporter. Where a seccomp
 * profile refuses process_vm_* (EPERM, ENOSYS), /proc/self/mem does the
 * same (opened once, kept; SOFTDOCA_REMOTE_FORCE_FALLBACK=1 at an export
 * selects it from then on, for tests). */

static doca_error_t self_copy(bool write, uint64_t addr, void *buf, size_t len)
{
	struct iovec l, r;
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		l.iov_base = (uint8_t *)buf + done;
		l.iov_len = len - done;
		r.iov_base = (void *)(uintptr_t)(addr + done);
		r.iov_len = len - done;
		if (!g_self_pvm_refused) {
			n = write ? process_vm_writev(getpid(), &l, 1, &r, 1, 0)
				  : process_vm_readv(getpid(), &l, 1, &r, 1, 0);
			if (n < 0 && (errno == EPERM || errno == ENOSYS)) {
				SD_LOG_INFO("remote memory: process_vm_%sv refused here (%s): serving exports "
					    "through /proc/self/mem", write ? "write" : "read", strerror(errno));
				g_self_pvm_refused = true;
				continue;
			}
		} else {
			if (g_self_mem < 0)
				g_self_mem = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
			if (g_self_mem < 0)
				return DOCA_ERROR_IO_FAILED;
			n = write ? pwrite(g_self_mem, l.iov_base, l.iov_len, (off_t)(addr + done))
				  : pread(g_self_mem, l.iov_base, l.iov_len, (off_t)(addr + done));
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return DOCA_ERROR_IO_FAILED;
		done += (size_t)n;
	}
	return DOCA_SUCCESS;
}

static void serve_io(struct uconn *c, bool write, uint32_t req, const uint8_t *data, size_t len)
{
	struct rsess *s = sd_ucx_rm(c);
	struct txb *answer = NULL;
	struct rm_done dn;
	struct rm_io io;
	struct rexp *x;
	doca_error_t err;

	if (s == NULL) {
		hostile(c, "asked for memory before opening an export");
		return;
	}
	if (len < sizeof(io)) {
		hostile(c, "sent a truncated request");
		return;
	}
	memcpy(&io, data, sizeof(io));
	if (io.len == 0 || io.len > RM_CHUNK || len != sizeof(io) + (write ? io.len : 0)) {
		hostile(c, "sent a request of a bad size");
		return;
	}
	if (sd_ucx_pending(c) > RM_MAX_PENDING) {
		hostile(c, "sent more requests than it waits answers for");
		return;
	}
	x = find_export(s->id);
	if (x == NULL) {
		err = DOCA_ERROR_NOT_FOUND;
		SD_LOG_DBG("remote memory: %s (pid %u): access to a revoked export", sd_ucx_peer(c),
			   sd_ucx_peer_pid(c));
	} else if (x->kind != SD_REMOTE_NKIND_MEM) {
		err = DOCA_ERROR_NOT_PERMITTED;
		SD_LOG_ERR("remote memory: %s (pid %u): a %s of a sync event's value, which moves by atomic "
			   "operations only",
			   sd_ucx_peer(c), sd_ucx_peer_pid(c), write ? "write" : "read");
	} else if (io.addr < x->addr || io.len > x->len || io.addr - x->addr > x->len - io.len) {
		err = DOCA_ERROR_INVALID_VALUE;
		SD_LOG_ERR("remote memory: %s (pid %u): [0x%llx, +%llu) is outside the export [0x%llx, +%llu)",
			   sd_ucx_peer(c), sd_ucx_peer_pid(c), (unsigned long long)io.addr, (unsigned long long)io.len,
			   (unsigned long long)x->addr, (unsigned long long)x->len);
	} else if (!export_allows(x, write)) {
		err = DOCA_ERROR_NOT_PERMITTED;
		SD_LOG_ERR("remote memory: %s (pid %u): a %s the export does not allow (access 0x%x)", sd_ucx_peer(c),
			   sd_ucx_peer_pid(c), write ? "write" : "read", x->access);
	} else if (write) {
		err = self_copy(true, io.addr, (void *)(data + sizeof(io)), (size_t)io.len);
	} else {
		/* the bytes go straight into the answer: no buffer of our own */
		answer = sd_ucx_msg_new(sizeof(dn) + (size_t)io.len);
		err = answer == NULL ? DOCA_ERROR_NO_MEMORY
				     : self_copy(false, io.addr, (uint8_t *)sd_ucx_msg_data(answer) + sizeof(dn),
						 (size_t)io.len);
	}
	if (err == DOCA_ERROR_IO_FAILED)
		SD_LOG_ERR("remote memory: %s of %llu bytes at 0x%llx failed: the program unmapped memory it still "
			   "exports", write ? "write" : "read", (unsigned long long)io.len, (unsigned long long)io.addr);
	memset(&dn, 0, sizeof(dn));
	dn.error = err;
	dn.len = err == DOCA_SUCCESS && !write ? io.len : 0;
	if (dn.len == 0) {
		sd_ucx_msg_free(answer);
		answer = sd_ucx_msg_new(sizeof(dn));
	}
	if (answer == NULL) {
		sd_ucx_drop(c, DOCA_ERROR_NO_MEMORY);
		return;
	}
	memcpy(sd_ucx_msg_data(answer), &dn, sizeof(dn));
	(void)sd_ucx_post(c, answer, LK_RM_DONE, req);
}

/* A sync event's value: the operation runs on the exporter's own 8 bytes,
 * which the export keeps mapped until unexport (under the module's lock,
 * as this is), so an atomic instruction is safe where a copy of memory of
 * the program's is not. */
static void serve_atomic(struct uconn *c, uint32_t req, const uint8_t *data, size_t len)
{
	struct rsess *s = sd_ucx_rm(c);
	struct rm_atomic at;
	struct rm_done dn;
	uint64_t old = 0;
	uint64_t *value;
	struct rexp *x;
	doca_error_t err;
	bool write;

	if (s == NULL) {
		hostile(c, "asked for a value before opening an export");
		return;
	}
	if (len != sizeof(at)) {
		hostile(c, "sent a malformed RM_ATOMIC");
		return;
	}
	memcpy(&at, data, sizeof(at));
	if (at.reserved != 0 || at.op < SD_REMOTE_ATOMIC_GET || at.op > SD_REMOTE_ATOMIC_ADD) {
		hostile(c, "sent an unknown atomic operation");
		return;
	}
	if (sd_ucx_pending(c) > RM_MAX_PENDING) {
		hostile(c, "sent more requests than it waits answers for");
		return;
	}
	write = at.op != SD_REMOTE_ATOMIC_GET;
	x = find_export(s->id);
	if (x == NULL) {
		err = DOCA_ERROR_NOT_FOUND;
		SD_LOG_DBG("remote memory: %s (pid %u): atomic on a revoked export", sd_ucx_peer(c),
			   sd_ucx_peer_pid(c));
	} else if (x->kind != SD_REMOTE_NKIND_CELL) {
		err = DOCA_ERROR_NOT_PERMITTED;
		SD_LOG_ERR("remote memory: %s (pid %u): an atomic operation on exported memory (only a sync "
			   "event's value takes them)",
			   sd_ucx_peer(c), sd_ucx_peer_pid(c));
	} else if (at.addr != x->addr) {
		err = DOCA_ERROR_INVALID_VALUE;
		SD_LOG_ERR("remote memory: %s (pid %u): atomic at 0x%llx, the exported value is at 0x%llx",
			   sd_ucx_peer(c), sd_ucx_peer_pid(c), (unsigned long long)at.addr,
			   (unsigned long long)x->addr);
	} else if (!export_allows(x, write)) {
		err = DOCA_ERROR_NOT_PERMITTED;
		SD_LOG_ERR("remote memory: %s (pid %u): an update the export does not allow (access 0x%x)",
			   sd_ucx_peer(c), sd_ucx_peer_pid(c), x->access);
	} else {
		value = (uint64_t *)(uintptr_t)x->addr;
		if (at.op == SD_REMOTE_ATOMIC_GET)
			old = __atomic_load_n(value, __ATOMIC_ACQUIRE);
		else if (at.op == SD_REMOTE_ATOMIC_SET)
			old = __atomic_exchange_n(value, at.operand, __ATOMIC_ACQ_REL);
		else
			old = __atomic_fetch_add(value, at.operand, __ATOMIC_ACQ_REL);
		err = DOCA_SUCCESS;
	}
	memset(&dn, 0, sizeof(dn));
	dn.error = err;
	dn.len = err == DOCA_SUCCESS ? sizeof(old) : 0;
	(void)sd_ucx_send(c, LK_RM_DONE, req, &dn, sizeof(dn), &old, (size_t)dn.len);
}

static void serve_detach(struct uconn *c, size_t len)
{
	struct rsess *s = sd_ucx_rm(c);

	if (s == NULL || len != 0) {
		hostile(c, "sent a malformed RM_DETACH");
		return;
	}
	s->detached = true;
}

/* ---- importer ------------------------------------------------------------- */

/* One read or write call: its requests in flight and its first error. */
struct rcall {
	unsigned int outstanding;
	doca_error_t err;
};

struct rreq {
	struct rreq *next;
	uint32_t id;
	bool write;
	uint8_t *local;
	uint64_t raddr;
	size_t len;
	struct rcall *call;
};

struct rimp {
	struct uconn *c;
	uint64_t addr, len;
	uint32_t access, kind;
	bool granted;
	bool opened; /* the exporter holds a session for us (its grant said yes) */
	doca_error_t grant_err;
	struct rreq *reqs;
	unsigned int inflight; /* requests of every call */
	uint64_t progress_ns;  /* when one last completed */
	uint32_t next_id;
	char peer[80];
};

static void req_finish(struct rimp *m, struct rreq *r, doca_error_t err)
{
	struct rreq **pp;

	for (pp = &m->reqs; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	}
	r->call->outstanding--;
	m->inflight--;
	m->progress_ns = sd_ucx_now();
	if (err != DOCA_SUCCESS && r->call->err == DOCA_SUCCESS)
		r->call->err = err;
	free(r);
	sd_ucx_broadcast();
}

void sd_ucx_rm_failed(struct uconn *c, bool server, doca_error_t err)
{
	struct rimp *m;

	/* an exporter's session goes with its connection: nothing waits on it,
	 * but the export remembers an importer that went without releasing */
	if (server) {
		struct rsess *s = sd_ucx_rm(c);
		struct rexp *x = s != NULL && !s->detached ? find_export(s->id) : NULL;

		if (x != NULL)
			x->lost = true;
		return;
	}
	m = sd_ucx_rm(c);
	if (m == NULL || m->c != c)
		return;
	while (m->reqs != NULL)
		req_finish(m, m->reqs, DOCA_ERROR_CONNECTION_RESET);
	if (!m->granted) {
		m->granted = true;
		m->grant_err = err;
	}
	sd_ucx_broadcast();
}

static void on_grant(struct uconn *c, struct rimp *m, const void *data, size_t len)
{
	struct rm_grant gr;

	if (m == NULL || m->granted || len != sizeof(gr)) {
		hostile(c, "sent an unexpected RM_GRANT");
		return;
	}
	memcpy(&gr, data, sizeof(gr));
	gr.reason[sizeof(gr.reason) - 1] = '\0';
	m->granted = true;
	m->opened = gr.error == DOCA_SUCCESS;
	if (gr.error != DOCA_SUCCESS) {
		SD_LOG_ERR("import: the exporter at %s (pid %u) refused: %s", m->peer, sd_ucx_peer_pid(c), gr.reason);
		m->grant_err = gr.error == DOCA_ERROR_NOT_FOUND || gr.error == DOCA_ERROR_NOT_PERMITTED ||
				       gr.error == DOCA_ERROR_NO_MEMORY
			       ? (doca_error_t)gr.error
			       : DOCA_ERROR_INVALID_VALUE;
	} else if (gr.addr != m->addr || gr.len != m->len || gr.access != m->access || gr.kind != m->kind) {
		SD_LOG_ERR("import: the exporter at %s grants 0x%llx+%llu access 0x%x kind %u, the descriptor says "
			   "0x%llx+%llu access 0x%x kind %u",
			   m->peer, (unsigned long long)gr.addr, (unsigned long long)gr.len, gr.access, gr.kind,
			   (unsigned long long)m->addr, (unsigned long long)m->len, m->access, m->kind);
		m->grant_err = DOCA_ERROR_INVALID_VALUE;
	} else {
		m->grant_err = DOCA_SUCCESS;
	}
	sd_ucx_broadcast();
}

static void on_done(struct uconn *c, struct rimp *m, uint32_t id, const uint8_t *data, size_t len)
{
	struct rm_done dn;
	struct rreq *r;
	doca_error_t err;

	if (m == NULL || !m->granted || len < sizeof(dn)) {
		hostile(c, "sent an unexpected RM_DONE");
		return;
	}
	for (r = m->reqs; r != NULL && r->id != id; r = r->next)
		;
	memcpy(&dn, data, sizeof(dn));
	if (r == NULL || (dn.error == DOCA_SUCCESS && !r->write && (dn.len != r->len || len != sizeof(dn) + r->len)) ||
	    ((dn.error != DOCA_SUCCESS || r->write) && (dn.len != 0 || len != sizeof(dn)))) {
		hostile(c, "answered a request we did not make, or with the wrong size");
		return;
	}
	switch (dn.error) {
	case DOCA_SUCCESS:
		if (!r->write)
			memcpy(r->local, data + sizeof(dn), r->len);
		err = DOCA_SUCCESS;
		break;
	case DOCA_ERROR_NOT_FOUND:
	case DOCA_ERROR_INVALID_VALUE:
	case DOCA_ERROR_NOT_PERMITTED:
	case DOCA_ERROR_IO_FAILED:
	case DOCA_ERROR_NO_MEMORY:
		err = (doca_error_t)dn.error;
		break;
	default:
		err = DOCA_ERROR_IO_FAILED;
		break;
	}
	if (err != DOCA_SUCCESS)
		SD_LOG_ERR("remote %s of %zu bytes at 0x%llx (exporter %s, pid %u) failed: %s%s",
			   r->write ? "write" : "read", r->len, (unsigned long long)r->raddr, m->peer,
			   sd_ucx_peer_pid(c), doca_error_get_descr(err),
			   err == DOCA_ERROR_NOT_FOUND ? " (the export was revoked)" : "");
	req_finish(m, r, err);
}

void sd_ucx_rm_message(struct uconn *c, bool server, uint32_t kind, uint32_t arg, const void *data, size_t len)
{
	if (server) {
		if (kind == LK_RM_OPEN && arg == 0)
			serve_open(c, data, len);
		else if (kind == LK_RM_READ || kind == LK_RM_WRITE)
			serve_io(c, kind == LK_RM_WRITE, arg, data, len);
		else if (kind == LK_RM_ATOMIC)
			serve_atomic(c, arg, data, len);
		else if (kind == LK_RM_DETACH && arg == 0)
			serve_detach(c, len);
		else
			hostile(c, "sent a message only an exporter sends");
		return;
	}
	if (kind == LK_RM_GRANT && arg == 0)
		on_grant(c, sd_ucx_rm(c), data, len);
	else if (kind == LK_RM_DONE)
		on_done(c, sd_ucx_rm(c), arg, data, len);
	else
		hostile(c, "sent a message only an importer sends");
}

/* Close an import's connection (lock held), telling the exporter first that
 * this is a release and not a loss (remote_cell.c: a sync event's exporter
 * watches for importers that go away). */
static void detach_close(struct rimp *m)
{
	if (m->opened)
		(void)sd_ucx_send(m->c, LK_RM_DETACH, 0, NULL, 0, NULL, 0);
	sd_ucx_rm_close(m->c);
}

static doca_error_t ux_import(const struct sd_remote_ndesc *d, uint8_t my_side, void **handle)
{
	struct sockaddr_storage sa;
	socklen_t salen;
	struct rm_open o;
	struct uconn *c = NULL;
	struct rimp *m;
	doca_error_t err;
	char ip[INET6_ADDRSTRLEN] = "?";

	memset(&sa, 0, sizeof(sa));
	if (d->family == 4) {
		struct sockaddr_in *in = (struct sockaddr_in *)&sa;

		in->sin_family = AF_INET;
		in->sin_port = htons(d->port);
		memcpy(&in->sin_addr, d->ip, 4);
		salen = sizeof(*in);
		inet_ntop(AF_INET, d->ip, ip, sizeof(ip));
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&sa;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(d->port);
		memcpy(&in6->sin6_addr, d->ip, 16);
		salen = sizeof(*in6);
		inet_ntop(AF_INET6, d->ip, ip, sizeof(ip));
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return DOCA_ERROR_NO_MEMORY;
	m->addr = d->addr;
	m->len = d->len;
	m->access = d->access;
	m->kind = d->kind;
	snprintf(m->peer, sizeof(m->peer), d->family == 6 ? "[%s]:%u" : "%s:%u", ip, (unsigned)d->port);
	sd_ucx_lock();
	err = sd_ucx_rm_connect(&sa, salen, d->card, d->pci, &c);
	if (err != DOCA_SUCCESS) {
		sd_ucx_unlock();
		SD_LOG_ERR("import: cannot reach the exporter (pid %u, %s) at %s: %s%s", d->pid, d->pci, m->peer,
			   doca_error_get_descr(err),
			   err == DOCA_ERROR_NOT_FOUND ? " (has it exited? is the address reachable from here?)" : "");
		free(m);
		return err;
	}
	m->c = c;
	sd_ucx_set_rm(c, m);
	memset(&o, 0, sizeof(o));
	o.id = d->id;
	memcpy(o.token, d->token, sizeof(o.token));
	o.card = d->card;
	o.side = my_side;
	if (!sd_ucx_send(c, LK_RM_OPEN, 0, &o, sizeof(o), NULL, 0)) {
		m->granted = true;
		m->grant_err = DOCA_ERROR_CONNECTION_RESET;
	}
	OPENSSL_cleanse(&o, sizeof(o));
	if (!sd_ucx_wait(&m->granted, sd_ucx_now() + sd_ucx_timeout_ns() + 1000000000ull)) {
		SD_LOG_ERR("import: the exporter at %s did not answer", m->peer);
		m->grant_err = DOCA_ERROR_NOT_FOUND;
	}
	err = m->grant_err;
	if (err != DOCA_SUCCESS) {
		detach_close(m);
		sd_ucx_unlock();
		free(m);
		return err;
	}
	sd_ucx_unlock();
	*handle = m;
	return DOCA_SUCCESS;
}

/* A read or write of len bytes, or (at != NULL) one atomic operation whose
 * 8-byte answer lands in local. */
static doca_error_t ux_rw(void *handle, bool write, uint64_t raddr, uint8_t *local, size_t len,
			  const struct rm_atomic *at)
{
	const char *what = at != NULL ? "atomic" : write ? "write" : "read";
	struct rimp *m = handle;
	struct rcall call = {0};
	uint64_t since, tmo;
	struct rm_io io;
	struct rreq *r;
	size_t off = 0, n;

	if (m == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	sd_ucx_lock();
	tmo = sd_ucx_timeout_ns() + 1000000000ull;
	since = sd_ucx_now();
	for (;;) {
		if (m->c == NULL || sd_ucx_failed(m->c, NULL)) {
			if (call.err == DOCA_SUCCESS)
				call.err = DOCA_ERROR_CONNECTION_RESET;
			break; /* (a failed link finished every request) */
		}
		/* the window is the import's, shared by concurrent callers, so
		 * that the exporter never holds more than RM_WINDOW answers */
		while (off < len && m->inflight < RM_WINDOW && call.err == DOCA_SUCCESS) {
			n = len - off < RM_CHUNK ? len - off : RM_CHUNK;
			r = calloc(1, sizeof(*r));
			if (r == NULL) {
				call.err = DOCA_ERROR_NO_MEMORY;
				break;
			}
			if (++m->next_id == 0)
				m->next_id = 1;
			r->id = m->next_id;
			r->write = write;
			r->local = local + off;
			r->raddr = raddr + off;
			r->len = n;
			r->call = &call;
			io.addr = r->raddr;
			io.len = n;
			if (at != NULL ? !sd_ucx_send(m->c, LK_RM_ATOMIC, r->id, at, sizeof(*at), NULL, 0)
				       : !sd_ucx_send(m->c, write ? LK_RM_WRITE : LK_RM_READ, r->id, &io, sizeof(io),
						      write ? r->local : NULL, write ? n : 0)) {
				free(r);
				call.err = DOCA_ERROR_CONNECTION_RESET;
				break;
			}
			r->next = m->reqs;
			m->reqs = r;
			m->inflight++;
			call.outstanding++;
			off += n;
		}
		if (call.outstanding == 0 && (off >= len || call.err != DOCA_SUCCESS))
			break;
		/* bounded: nothing completed (for any caller) for tmo */
		if (m->progress_ns > since)
			since = m->progress_ns;
		if (sd_ucx_now() >= since + tmo) {
			SD_LOG_ERR("remote %s: the exporter at %s answered nothing for %llu ms; dropping the connection",
				   what, m->peer, (unsigned long long)(tmo / 1000000));
			sd_ucx_drop(m->c, DOCA_ERROR_CONNECTION_RESET);
			continue;
		}
		(void)sd_ucx_wait_once(since + tmo);
	}
	if (call.err == DOCA_ERROR_CONNECTION_RESET)
		SD_LOG_ERR("remote %s of %zu bytes at 0x%llx: the link to the exporter at %s is gone (the exporter "
			   "died or the network is down)",
			   what, len, (unsigned long long)raddr, m->peer);
	sd_ucx_unlock();
	return call.err;
}

static doca_error_t ux_read(void *handle, uint64_t raddr, void *local, size_t len)
{
	return ux_rw(handle, false, raddr, local, len, NULL);
}

static doca_error_t ux_write(void *handle, uint64_t raddr, const void *local, size_t len)
{
	return ux_rw(handle, true, raddr, (uint8_t *)(uintptr_t)local, len, NULL);
}

static doca_error_t ux_atomic(void *handle, uint32_t op, uint64_t raddr, uint64_t operand, uint64_t *old)
{
	struct rm_atomic at = {.addr = raddr, .op = op, .operand = operand};
	uint64_t v = 0;
	doca_error_t err;

	if (old == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	err = ux_rw(handle, false, raddr, (uint8_t *)&v, sizeof(v), &at);
	if (err == DOCA_SUCCESS)
		*old = v;
	return err;
}

static void ux_release(void *handle)
{
	struct rimp *m = handle;

	if (m == NULL)
		return;
	sd_ucx_lock();
	while (m->reqs != NULL)
		req_finish(m, m->reqs, DOCA_ERROR_CONNECTION_RESET);
	if (m->c != NULL)
		detach_close(m);
	m->c = NULL;
	sd_ucx_unlock();
	free(m);
}

static const struct sd_link_remote_ops ux_ops = {
	.export_mem = ux_export,
	.unexport = ux_unexport,
	.export_lost = ux_export_lost,
	.import = ux_import,
	.read = ux_read,
	.write = ux_write,
	.atomic = ux_atomic,
	.release = ux_release,
};

const struct sd_link_remote_ops *priv_doca_sd_link_ucx_remote(void);

const struct sd_link_remote_ops *priv_doca_sd_link_ucx_remote(void)
{
	return &ux_ops;
}
