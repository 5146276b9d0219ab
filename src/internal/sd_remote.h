/*
 * sd_remote.h - memory of one side of an emulated card, reached from the
 * other side (the mechanism under doca_mmap_export_pci and
 * doca_mmap_create_from_export).
 *
 * Model: the exporter calls sd_remote_export() on a registered range and
 * gets a descriptor (SD_REMOTE_DESC_SIZE bytes, carried to the other side by
 * any means). The importer calls sd_remote_import(), then sd_remote_read() /
 * sd_remote_write() move bytes between its own memory and the exporter's,
 * with no call on the exporter's side: the importer reaches the exporter's
 * pages through shared memory where the export could be moved onto it, and
 * through the kernel elsewhere (process_vm_readv/writev, or /proc/<pid>/mem;
 * see src/fabric/remote_mem.c for the mechanisms and their fallbacks).
 *
 * Moving at export: sd_remote_export() moves the whole pages inside the
 * range onto a memfd, in place (same addresses, same content: the program
 * sees no change), and the importer maps that memfd and copies with plain
 * loads and stores. The rules this brings for the exporting program:
 *   - no other thread may write the range while sd_remote_export() runs
 *     (a write racing the move may be lost);
 *   - after fork(), a child shares the moved pages with the parent instead
 *     of getting a copy-on-write copy (fork+exec is unaffected);
 *   - the pages stay moved after the export is freed (the memory stays
 *     valid and keeps its content; only the memfd's descriptor is closed);
 *   - madvise(MADV_DONTNEED) no longer zeroes moved pages (shared memory
 *     keeps its content), so an allocator that purges that way may hand
 *     the same bytes out again instead of zeroes;
 *   - the move needs the range's size again, briefly, while it copies; a
 *     page neither side ever touched is allocated in the memfd when first
 *     touched, and if memory then runs out that touch is a SIGBUS, not an
 *     error code.
 * Where a move cannot be done (locked, file-backed, shared, hugetlb, stack,
 * read-only or special mappings, a range overlapping an earlier move
 * partially, a failing kernel call) the export keeps the pages where they
 * are and says why in the log (INFO, once per reason). The page fragments at
 * either end of an unaligned range are never moved.
 * SOFTDOCA_REMOTE_NO_MOVE=1 (a switch read with sd_env_bool; junk fails the
 * export) disables the move; SOFTDOCA_REMOTE_FORCE_FALLBACK=1 makes an
 * import ignore the shared pages and use /proc/<pid>/mem for everything.
 *
 * Call order:
 *   exporter:  sd_remote_export -> (descriptor travels) ... -> sd_remote_export_free
 *   importer:  sd_remote_import -> sd_remote_read/write ... -> sd_remote_release
 * sd_remote_export_free() revokes the export: later imports fail, and so do
 * later accesses of existing imports (an access racing the revoke may still
 * complete, as a DMA in flight would).
 *
 * Errors (every failed check touches neither process's memory):
 *   INVALID_VALUE        NULL/zero arguments; a truncated, oversized, corrupted
 *                        or forged descriptor (one that does not match a live
 *                        export of the named process); a range outside the
 *                        export.
 *   UNSUPPORTED_VERSION  a descriptor of another layout version.
 *   NOT_PERMITTED        descriptor of another card, or of this same side; an
 *                        exporter owned by another user; a write to a
 *                        read-only export (or a read of an export with no PCI
 *                        right); the kernel refuses cross-process access
 *                        (ptrace policy) with both mechanisms.
 *   NOT_FOUND            at import: the exporter process has exited (or its
 *                        pid now names another process), or it revoked the
 *                        export (INVALID_VALUE once the exporter reused the
 *                        revoked record's memory); at access: the export
 *                        was revoked.
 *   CONNECTION_RESET     at access: the exporter died (before or during it).
 *   IO_FAILED            at access: the exporter unmapped memory it still
 *                        exports (the range is no longer readable/writable).
 *
 * Both processes must share a pid namespace (the descriptor names a pid).
 *
 * Across a network (SOFTDOCA_LINK=ucx://..., sd_link_ucx.h): the export is
 * served by the exporter's UCX progress thread and the descriptor is a
 * struct sd_remote_ndesc instead (below; the 96-byte layout above stays the
 * one of the local fabric). An importer recognises either kind by its
 * magic; a network descriptor without SOFTDOCA_LINK fails NOT_SUPPORTED.
 * The errors are the same, with two additions: NOT_PERMITTED at import when
 * the exporter does not accept our secret (or we do not accept its), and
 * CONNECTION_RESET at access also when the link drops or falls silent for
 * SOFTDOCA_LINK_TIMEOUT_MS. The network export's security model is in
 * src/fabric/remote_ucx.c.
 *
 * Security: both processes run as the same user (the fabric's rule, checked
 * at import). The token, the card/side checks and the live-export check stop
 * accidental misuse (stale, mistyped, corrupted or crossed descriptors); they
 * do not stop a hostile process of the same user, which can ptrace or read
 * /proc/<pid>/mem of the exporter anyway.
 *
 * Threading: an import is immutable after sd_remote_import(); any number of
 * threads may call sd_remote_read/write on it concurrently, but not
 * concurrently with sd_remote_release(). sd_remote_export/_free are
 * thread-safe.
 *
 * Implemented in src/fabric/remote_mem.c.
 */
#ifndef SD_REMOTE_H_
#define SD_REMOTE_H_

#include "sd_abi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <doca_error.h>

#include "sd_dev.h"

/* ---- descriptor (the bytes that travel) -------------------------------- */

#define SD_REMOTE_DESC_MAGIC 0x58524453u /* "SDRX" little-endian */
#define SD_REMOTE_DESC_VERSION 1u
#define SD_REMOTE_PCI_MAX 16
#define SD_REMOTE_TOKEN_LEN 16

struct sd_remote_desc {
	uint32_t magic;
	uint16_t version;
	uint16_t size;          /* sizeof(struct sd_remote_desc) */
	uint32_t card;          /* emulated card of the exporter */
	uint8_t side;           /* enum sd_side of the exporter */
	uint8_t reserved0[3];   /* zero */
	uint32_t access;        /* enum doca_access_flag bits of the exported mmap */
	uint32_t pid;           /* exporter */
	uint64_t start_time;    /* exporter's start, clock ticks after boot (/proc/<pid>/stat field 22) */
	uint64_t addr;          /* exported range, exporter's addresses */
	uint64_t len;
	uint64_t record;        /* exporter's address of its live-export record */
	uint8_t token[SD_REMOTE_TOKEN_LEN]; /* random, per export */
	char pci[SD_REMOTE_PCI_MAX];        /* exporter's PCI function, NUL-terminated */
	uint64_t checksum;      /* FNV-1a 64 of every byte before this field */
};

#define SD_REMOTE_DESC_SIZE 96u
_Static_assert(sizeof(struct sd_remote_desc) == SD_REMOTE_DESC_SIZE, "remote descriptor is 96 bytes");
_Static_assert(__builtin_offsetof(struct sd_remote_desc, magic) == 0, "magic at 0");
_Static_assert(__builtin_offsetof(struct sd_remote_desc, version) == 4, "version at 4");
_Static_assert(__builtin_offsetof(struct sd_remote_desc, size) == 6, "size at 6");
_Static_assert(__builtin_offsetof(struct sd_remote_desc, card) == 8, "card at 8");
_Static_assert(__builtin_offsetof(struct sd_remote_desc, side) == 12, "side at 12");
_Static_assert(__builtin_offsetof(struct sd_remote_desc, access) == 16, "access at 16");
_Static_assert(__builtin_offsetof(struct sd_remote_desc, pid) == 20, "pid at 20");
_Static_assert(__builtin_offsetof(struct sd_remote_desc, start_time) == 24, "start_time at 24");
_Static_assert(__builtin_offsetof(struct sd_remote_desc, addr) == 32, "addr at 32");
_Static_assert(__builtin_offsetof(struct sd_remote_desc, len) == 40, "len at 40");
_Static_assert(__builtin_offsetof(struct sd_remote_desc, record) == 48, "record at 48");
_Static_assert(__builtin_offsetof(struct sd_remote_desc, token) == 56, "token at 56");
_Static_assert(__builtin_offsetof(struct sd_remote_desc, pci) == 72, "pci at 72");
_Static_assert(__builtin_offsetof(struct sd_remote_desc, checksum) == 88, "checksum at 88");

/* FNV-1a 64 over the descriptor's bytes before `checksum`. */
uint64_t sd_remote_desc_checksum(const struct sd_remote_desc *d);

/* The descriptor of an export across the network: it names the exporter's
 * remote-memory listener (an ephemeral port on the exporter's address toward
 * the SOFTDOCA_LINK peer) and the export (id, token, range, rights, card,
 * side). It carries no UCX key and no secret: the importer must pass the
 * link's mutual authentication there, then present id + token, before any
 * byte moves (src/fabric/remote_ucx.c). */
#define SD_REMOTE_NDESC_MAGIC 0x4e524453u /* "SDRN" little-endian */
#define SD_REMOTE_NDESC_VERSION 1u

struct sd_remote_ndesc {
	uint32_t magic;
	uint16_t version;
	uint16_t size;          /* sizeof(struct sd_remote_ndesc) */
	uint32_t card;          /* emulated card of the exporter */
	uint8_t side;           /* enum sd_side of the exporter */
	uint8_t family;         /* 4 or 6: the listener's address family */
	uint16_t port;          /* the listener's TCP port, host order */
	uint32_t access;        /* enum doca_access_flag bits of the exported mmap */
	uint32_t pid;           /* exporter's pid in its namespace: for logs only */
	uint64_t id;            /* the export, random, per export */
	uint64_t addr;          /* exported range, exporter's addresses */
	uint64_t len;
	uint8_t token[SD_REMOTE_TOKEN_LEN]; /* random, per export */
	uint8_t ip[16];         /* the listener's address (IPv4: the first 4 bytes, rest zero) */
	char pci[SD_REMOTE_PCI_MAX];        /* exporter's PCI function, NUL-terminated */
	uint32_t kind;          /* SD_REMOTE_NKIND_*: what the importer may do with it */
	uint32_t reserved;      /* zero */
	uint64_t checksum;      /* FNV-1a 64 of every byte before this field */
};

/* Memory (doca_mmap_export_pci; read and write), or the 8-byte value of a
 * doca_sync_event (doca_sync_event_export_to_remote_pci; atomic operations
 * only, sd_remote_atomic). */
#define SD_REMOTE_NKIND_MEM 0u
#define SD_REMOTE_NKIND_CELL 1u

#define SD_REMOTE_NDESC_SIZE 112u
_Static_assert(sizeof(struct sd_remote_ndesc) == SD_REMOTE_NDESC_SIZE, "network descriptor is 112 bytes");
_Static_assert(__builtin_offsetof(struct sd_remote_ndesc, magic) == 0, "magic at 0 in both layouts");
_Static_assert(__builtin_offsetof(struct sd_remote_ndesc, version) == 4, "version at 4 in both layouts");
_Static_assert(__builtin_offsetof(struct sd_remote_ndesc, access) == 16, "access at 16");
_Static_assert(__builtin_offsetof(struct sd_remote_ndesc, id) == 24, "id at 24");
_Static_assert(__builtin_offsetof(struct sd_remote_ndesc, token) == 48, "token at 48");
_Static_assert(__builtin_offsetof(struct sd_remote_ndesc, ip) == 64, "ip at 64");
_Static_assert(__builtin_offsetof(struct sd_remote_ndesc, pci) == 80, "pci at 80");
_Static_assert(__builtin_offsetof(struct sd_remote_ndesc, kind) == 96, "kind at 96");
_Static_assert(__builtin_offsetof(struct sd_remote_ndesc, checksum) == 104, "checksum at 104");

/* FNV-1a 64 over the network descriptor's bytes before `checksum`. */
uint64_t sd_remote_ndesc_checksum(const struct sd_remote_ndesc *d);

/* ---- helpers shared by every descriptor that crosses the link ----------- */

/* Start time (field 22 of /proc/<pid>/stat) and owner (uid may be NULL) of a
 * live process; NOT_FOUND if there is none or it is a zombie. */
doca_error_t sd_proc_identity(pid_t pid, uint64_t *start_time, uid_t *uid);
/* A peer-supplied PCI address field: 1..cap-1 hex digits, ':' and '.', the
 * rest of the field zero. */
bool sd_pci_plausible(const char *s, size_t cap);
/* FNV-1a 64 of n bytes: the descriptors' checksum (not a MAC: the token and
 * the exporter's record carry the trust). */
uint64_t sd_fnv1a(const void *p, size_t n);

/* ---- exporter side ------------------------------------------------------ */

/*
 * Export [addr, addr+len) with `access` (doca_access_flag bits; at least one
 * of PCI_READ_ONLY / PCI_READ_WRITE, else NOT_PERMITTED) as the memory of
 * (card, side, pci_addr). *desc gets one allocation of which the first
 * *desc_len (= SD_REMOTE_DESC_SIZE, or SD_REMOTE_NDESC_SIZE with
 * SOFTDOCA_LINK=ucx://) bytes are the descriptor; free it with
 * sd_remote_export_free() (which revokes the export), not free().
 * Called from doca_mmap_export_pci() on a started mmap.
 */
doca_error_t sd_remote_export(void *addr, size_t len, uint32_t access, uint32_t card, enum sd_side side,
			      const char *pci_addr, void **desc, size_t *desc_len);
/* Revoke and free a descriptor from sd_remote_export(). NULL is a no-op. */
void sd_remote_export_free(void *desc);

/* ---- importer side ------------------------------------------------------ */

struct sd_remote;

/*
 * Check a descriptor and open the exporter's memory. my_card/my_side: the
 * importing device's card (sd_dev_card) and this process's side (sd_side);
 * the exporter must be the other side of the same card.
 */
doca_error_t sd_remote_import(const void *desc, size_t desc_len, uint32_t my_card, enum sd_side my_side,
			      struct sd_remote **out);
/* Close an import. NULL is a no-op. */
void sd_remote_release(struct sd_remote *r);

/* The exported range (exporter's addresses: doca_bufs of a from-export mmap
 * carry these, they are not dereferenceable here), its rights and origin. */
uint64_t sd_remote_addr(const struct sd_remote *r);
size_t sd_remote_len(const struct sd_remote *r);
uint32_t sd_remote_access(const struct sd_remote *r);
uint32_t sd_remote_card(const struct sd_remote *r);
enum sd_side sd_remote_side(const struct sd_remote *r);
const char *sd_remote_pci(const struct sd_remote *r);
int sd_remote_pid(const struct sd_remote *r);
/* Is [remote_addr, remote_addr+len) inside the export? */
bool sd_remote_contains(const struct sd_remote *r, uint64_t remote_addr, size_t len);
/* May the importer read / write it (PCI_READ_ONLY|PCI_READ_WRITE / PCI_READ_WRITE)? */
bool sd_remote_can_read(const struct sd_remote *r);
bool sd_remote_can_write(const struct sd_remote *r);
/* "process_vm" or "proc_mem" (the fallback), prefixed with "shared+" when
 * the moved interior of the export is mapped here, or "ucx" across the
 * network: for logs and tests. */
const char *sd_remote_mechanism(const struct sd_remote *r);
/* Bytes of the export this import reaches by loads and stores (the moved
 * interior; 0 when nothing was moved or the import could not map it). */
size_t sd_remote_shared_len(const struct sd_remote *r);

/* Copy len bytes between the export (at exporter address remote_addr) and
 * local memory. len == 0 is a successful no-op. Checks (bounds, rights,
 * export still live) happen before any byte moves. */
doca_error_t sd_remote_read(struct sd_remote *r, uint64_t remote_addr, void *local, size_t len);
doca_error_t sd_remote_write(struct sd_remote *r, uint64_t remote_addr, const void *local, size_t len);
/* Where the importer's own loads and stores reach [remote_addr, +len) of the
 * export, for a copier that moves the bytes itself (streaming stores, two
 * threads): the same checks as sd_remote_read/write (write: as for a write)
 * are made now, and on success *ptr is the local address of the range, or
 * NULL when it is not wholly in the shared pages (then sd_remote_read/write
 * must move it). A revoke or exit after the call is not seen by the copy, as
 * a DMA already in flight completes. */
doca_error_t sd_remote_direct(struct sd_remote *r, bool write, uint64_t remote_addr, size_t len, uint8_t **ptr);

/* ---- across the network only ------------------------------------------- */

/*
 * What remote_cell.c needs of the network export (SOFTDOCA_LINK=ucx://) to
 * serve a sync event's value; sd_remote_export/_import use the same with
 * kind SD_REMOTE_NKIND_MEM.
 *   sd_remote_export_net: as sd_remote_export, of kind SD_REMOTE_NKIND_*;
 *     AGAIN when no SOFTDOCA_LINK is set (the local fabric applies). A
 *     value export (NKIND_CELL, 8 bytes) must stay mapped until
 *     sd_remote_export_free returns.
 *   sd_remote_import_net: as sd_remote_import, of a network descriptor
 *     that must be of that kind (INVALID_VALUE otherwise);
 *     NOT_SUPPORTED without SOFTDOCA_LINK.
 *   sd_remote_atomic: one atomic operation on an imported value, which the
 *     exporter's UCX thread runs; the errors of sd_remote_read (NOT_FOUND
 *     once revoked, CONNECTION_RESET when the exporter or the link is gone).
 *   sd_remote_export_lost: an importer's link to this export failed before
 *     the importer released it (it died, or the network went down).
 */
enum sd_remote_atomic_op {
	SD_REMOTE_ATOMIC_GET = 1,
	SD_REMOTE_ATOMIC_SET = 2,
	SD_REMOTE_ATOMIC_ADD = 3,
};

doca_error_t sd_remote_export_net(void *addr, size_t len, uint32_t access, uint32_t kind, uint32_t card,
				  enum sd_side side, const char *pci_addr, void **desc, size_t *desc_len);
doca_error_t sd_remote_import_net(const void *desc, size_t desc_len, uint32_t kind, uint32_t my_card,
				  enum sd_side my_side, struct sd_remote **out);
doca_error_t sd_remote_atomic(struct sd_remote *r, enum sd_remote_atomic_op op, uint64_t operand, uint64_t *old);
bool sd_remote_export_lost(const void *desc);

/* ---- shared 64-bit cells (doca_sync_event across the link) ------------ */

/*
 * A cell is one 64-bit value that both sides update with atomic
 * instructions: it lives in a sealed memfd page that the exporter maps and
 * the importer maps too. The descriptor names the exporter's process and the
 * memfd's number in it; the importer reopens it through /proc/<pid>/fd/<n>
 * (same user, ptrace "read" access: no Yama attach rule applies), then checks
 * inode, owner, size, seals and the page's token before mapping it.
 *
 * Liveness: the exporter revokes the page when it destroys the cell; each
 * importer records its pid in the page. sd_cell_peer_check() tells a live
 * peer (SUCCESS) from a revoked export (NOT_FOUND) or a dead peer process
 * (CONNECTION_RESET): waits use it so that they do not spin forever.
 *
 * Errors at import: as sd_remote_import (INVALID_VALUE for anything forged,
 * truncated or not matching a live cell of the named process,
 * UNSUPPORTED_VERSION, NOT_PERMITTED for the wrong card/side/user or when
 * the kernel refuses, NOT_FOUND when the exporter has exited).
 *
 * Threading: the value may be used from any thread; create/export/import/
 * destroy and sd_cell_peer_check on one cell from one thread at a time.
 * Implemented in src/fabric/remote_cell.c.
 */

#define SD_CELL_DESC_MAGIC 0x45534453u /* "SDSE" little-endian */
#define SD_CELL_DESC_VERSION 1u

struct sd_cell_desc {
	uint32_t magic;
	uint16_t version;
	uint16_t size;          /* sizeof(struct sd_cell_desc) */
	uint32_t card;          /* emulated card of the exporter */
	uint8_t side;           /* enum sd_side of the exporter */
	uint8_t reserved0[3];   /* zero */
	uint32_t pid;           /* exporter */
	int32_t fd;             /* the memfd's number in the exporter */
	uint64_t start_time;    /* exporter's start (/proc/<pid>/stat field 22) */
	uint64_t ino;           /* the memfd's inode and device */
	uint64_t dev;
	uint8_t token[SD_REMOTE_TOKEN_LEN]; /* random, also stored in the page */
	char pci[SD_REMOTE_PCI_MAX];        /* exporter's PCI function, NUL-terminated */
	uint64_t reserved1;     /* zero */
	uint64_t checksum;      /* FNV-1a 64 of every byte before this field */
};

#define SD_CELL_DESC_SIZE 96u
_Static_assert(sizeof(struct sd_cell_desc) == SD_CELL_DESC_SIZE, "cell descriptor is 96 bytes");
_Static_assert(__builtin_offsetof(struct sd_cell_desc, pid) == 16, "pid at 16");
_Static_assert(__builtin_offsetof(struct sd_cell_desc, fd) == 20, "fd at 20");
_Static_assert(__builtin_offsetof(struct sd_cell_desc, start_time) == 24, "start_time at 24");
_Static_assert(__builtin_offsetof(struct sd_cell_desc, ino) == 32, "ino at 32");
_Static_assert(__builtin_offsetof(struct sd_cell_desc, token) == 48, "token at 48");
_Static_assert(__builtin_offsetof(struct sd_cell_desc, pci) == 64, "pci at 64");
_Static_assert(__builtin_offsetof(struct sd_cell_desc, checksum) == 88, "checksum at 88");

struct sd_cell;

/* What sd_cell_export writes: the local descriptor, or with
 * SOFTDOCA_LINK=ucx:// the network one (an export of kind
 * SD_REMOTE_NKIND_CELL; see "Across a network" in remote_cell.c). */
union sd_cell_export_desc {
	struct sd_cell_desc local;
	uint8_t net[SD_REMOTE_NDESC_SIZE];
};

/* Exporter: a new cell (value 0) in a memfd page of this process. */
doca_error_t sd_cell_create(struct sd_cell **out);
/* Fill *desc (*desc_len bytes of it) naming the cell as memory of
 * (card, side, pci_addr); across the network, the first call also starts
 * serving it there (an unusable SOFTDOCA_LINK fails the export). */
doca_error_t sd_cell_export(struct sd_cell *c, uint32_t card, enum sd_side side, const char *pci_addr,
			    union sd_cell_export_desc *desc, size_t *desc_len);
/* Importer: check a descriptor (either kind) and map the exporter's cell,
 * or across the network open it and make one round trip to it. */
doca_error_t sd_cell_import(const void *desc, size_t desc_len, uint32_t my_card, enum sd_side my_side,
			    struct sd_cell **out);
/* The 8-byte aligned value, for __atomic_* operations; NULL for a cell
 * imported across the network, whose value only sd_cell_net_op reaches. */
uint64_t *sd_cell_value(struct sd_cell *c);
/* A network import: one operation (sd_remote_atomic) on the value. */
doca_error_t sd_cell_net_op(struct sd_cell *c, enum sd_remote_atomic_op op, uint64_t operand, uint64_t *old);
/* SUCCESS, NOT_FOUND (the exporter revoked it) or CONNECTION_RESET (a peer
 * process that attached, or the exporter, died). Reads /proc: rate-limit it. */
doca_error_t sd_cell_peer_check(struct sd_cell *c);
/* Cheap part of the check (one load): NOT_FOUND once the exporter revoked it. */
doca_error_t sd_cell_revoked_check(const struct sd_cell *c);
/* Exporter: revoke and unmap; importer: detach and unmap. NULL is a no-op. */
void sd_cell_destroy(struct sd_cell *c);

#endif /* SD_REMOTE_H_ */
