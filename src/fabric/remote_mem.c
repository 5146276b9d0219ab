/*
 * Remote memory: how one side of an emulated card reaches memory that the
 * other side exported (see sd_remote.h for the model and the errors).
 *
 * Mechanism: cross-memory attach. The importer copies with
 * process_vm_readv/process_vm_writev directly between its pages and the
 * exporter's: one copy, no segment to set up, and nothing runs in the
 * exporter (as a DMA engine does not ask the host CPU). The kernel allows it
 * when the importer may ptrace the exporter: same uid, and Yama
 * ptrace_scope 0, or 1 with the exporter's consent, which sd_remote_export()
 * gives (prctl PR_SET_PTRACER_ANY) when it finds scope 1.
 *
 * Fallback: when process_vm_* is refused (EPERM/ENOSYS, typically a seccomp
 * filter in a container profile), the importer opens /proc/<pid>/mem
 * (read-only for a read-only export) and uses pread/pwrite at the exporter's
 * addresses: one copy too, same permission model, and the open file pins the
 * exporter's address space, so a recycled pid is never reached through it.
 * SOFTDOCA_REMOTE_FORCE_FALLBACK=1 (internal, for tests and benchmarks)
 * selects it from the start. When both are refused (Yama scope 2 or 3, a
 * stricter LSM) the import fails NOT_PERMITTED with a message saying why.
 *
 * Shared pages (the fast path): a copy per syscall pins every page it
 * touches and reaches only about half of memcpy's speed on 4 KiB pages. So
 * sd_remote_export() moves the whole pages inside the exported range onto a
 * memfd in place (sd_pages_share(), page_move.c): the program keeps its
 * pointers and bytes. The record (below) names the memfd; the importer
 * reopens it through /proc/<pid>/fd/<n> -- the same ptrace "read" rule as
 * cross-memory attach, nothing asked of the exporter -- checks that the file
 * is the one named (inode, device, owner, seals, size), maps it (read-only
 * for a read-only export) and copies with plain loads and stores. The page
 * fragments at either end of an unaligned range stay on the kernel path.
 * What a move costs the program and why some ranges are not moved is in
 * sd_remote.h and sd_pages.h.
 * SOFTDOCA_REMOTE_NO_MOVE=1 turns the move off at export.
 *
 * Liveness and forgery: the descriptor names a record in the exporter (in
 * the same allocation as the descriptor) holding a copy of the descriptor
 * and a LIVE/REVOKED marker. The import reads it and compares every byte, so
 * a forged field fails even with a correct checksum; each access re-reads it
 * before moving a byte, so a revoked export or a recycled pid fails cleanly.
 * None of this stops a hostile process of the same user: it could ptrace the
 * exporter anyway.
 *
 * Across a network (SOFTDOCA_LINK=ucx://): none of the above can reach the
 * other machine, so export, import and every access go to the UCX module
 * (sd_link_remote(), sd_link_ucx.h; the protocol is in remote_ucx.c). This
 * file keeps what both kinds share: the argument checks, the descriptor's
 * layout checks, card and side, range and rights before any byte moves.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include <doca_types.h>

#include "sd_env.h"
#include "sd_link_ucx.h"
#include "sd_log.h"
#include "sd_pages.h"
#include "sd_remote.h"

SD_LOG_REGISTER(REMOTE);

#define REC_LIVE 0x45564c5258445353ull    /* arbitrary, distinct markers */
#define REC_REVOKED 0x44564b5258445353ull

#define ACCESS_KNOWN 0x7fu
#define ACCESS_PCI (DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE)

/* One kernel call moves at most this much (MAX_RW_COUNT is just under 2 GiB). */
#define CHUNK (1ull << 30)

/* The moved interior of an export, as the exporter tells it (len 0: none). */
struct sd_remote_shm {
	int32_t fd;     /* the memfd's number in the exporter */
	uint32_t reserved;
	uint64_t ino;   /* the memfd's inode and device */
	uint64_t dev;
	uint64_t addr;  /* exporter address of the first moved page */
	uint64_t len;   /* whole pages */
	uint64_t off;   /* offset of addr in the memfd */
};

struct sd_remote_record {
	uint64_t state; /* REC_LIVE / REC_REVOKED */
	struct sd_remote_desc desc;
	struct sd_remote_shm shm;
};

/* What sd_remote_export hands out: the descriptor first, then the record. */
struct export_block {
	struct sd_remote_desc desc;
	struct sd_remote_record rec;
	struct sd_pages *moved; /* the memfd behind rec.shm, or NULL */
};

enum mech {
	MECH_PVM,
	MECH_PROC_MEM,
};

struct sd_remote {
	struct sd_remote_desc desc; /* across the network: filled from the sd_remote_ndesc */
	enum mech mech;
	const struct sd_link_remote_ops *link; /* across the network, else NULL */
	void *link_handle;
	int mem_fd;        /* /proc/<pid>/mem for MECH_PROC_MEM, else -1 */
	uint8_t *shm;      /* the export's moved pages mapped here, or NULL */
	uint64_t shm_addr; /* their exporter address */
	size_t shm_len;
};

uint64_t sd_remote_desc_checksum(const struct sd_remote_desc *d)
{
	return sd_fnv1a(d, offsetof(struct sd_remote_desc, checksum));
}

uint64_t sd_remote_ndesc_checksum(const struct sd_remote_ndesc *d)
{
	return sd_fnv1a(d, offsetof(struct sd_remote_ndesc, checksum));
}

/* The remote memory of SOFTDOCA_LINK: SUCCESS with *ops NULL for the local
 * one (also where remote_mem.c is built without the link). */
static doca_error_t link_remote(const struct sd_link_remote_ops **ops)
{
	*ops = NULL;
	if (sd_link_remote == NULL)
		return DOCA_SUCCESS;
	return sd_link_remote(ops);
}

/* An export across the network: the allocation sd_remote_export hands out
 * starts with the descriptor, as the local export_block does; the magic
 * tells sd_remote_export_free which one it holds. */
struct net_export {
	struct sd_remote_ndesc desc;
	const struct sd_link_remote_ops *link;
};

doca_error_t sd_remote_export_net(void *addr, size_t len, uint32_t access, uint32_t kind, uint32_t card,
				  enum sd_side side, const char *pci, void **desc, size_t *desc_len)
{
	const struct sd_link_remote_ops *link;
	struct net_export *x;
	doca_error_t err;

	err = link_remote(&link);
	if (err != DOCA_SUCCESS) {
		SD_LOG_ERR("export: SOFTDOCA_LINK is set but unusable: not exported");
		return err;
	}
	if (link == NULL)
		return DOCA_ERROR_AGAIN;
	x = calloc(1, sizeof(*x));
	if (x == NULL)
		return DOCA_ERROR_NO_MEMORY;
	err = link->export_mem(addr, len, access, kind, card, (uint8_t)side, pci, &x->desc);
	if (err != DOCA_SUCCESS) {
		free(x);
		return err;
	}
	x->desc.checksum = sd_remote_ndesc_checksum(&x->desc);
	x->link = link;
	*desc = x;
	*desc_len = SD_REMOTE_NDESC_SIZE;
	return DOCA_SUCCESS;
}

static int yama_scope(void)
{
	char c = 0;
	int fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1; /* no Yama */
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c >= '0' && c <= '9' ? c - '0' : -1;
}

static void export_consent_once(void)
{
	int scope = yama_scope();

	if (scope == 1) {
		/* Let the importer (not our ancestor) attach; exporting grants that already. */
		if (prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0) != 0)
			SD_LOG_WARN("Yama ptrace_scope is 1 and PR_SET_PTRACER failed (%s): the other side may be refused",
				    strerror(errno));
	} else if (scope >= 2) {
		SD_LOG_WARN("Yama ptrace_scope is %d: the other side will be refused access to exported memory "
			    "(set kernel.yama.ptrace_scope to 0 or 1)",
			    scope);
	}
}

/* The importer's process_vm_* pins every base page it copies, which costs
 * about a third of the bandwidth at memcpy speeds; huge pages cut that to one
 * pin per 2 MiB. So, like RDMA libraries that madvise registered memory, ask
 * for transparent huge pages on the 2 MiB-aligned interior of a large export:
 * best effort, it changes only how pages faulted from now on are backed. */
static void export_hint_hugepages(void *addr, size_t len)
{
	const uintptr_t huge = 2u << 20;
	uintptr_t a = ((uintptr_t)addr + huge - 1) & ~(huge - 1);
	uintptr_t e = ((uintptr_t)addr + len) & ~(huge - 1);

	if (e > a)
		(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
}

doca_error_t sd_remote_export(void *addr, size_t len, uint32_t access, uint32_t card, enum sd_side side,
			      const char *pci_addr, void **desc, size_t *desc_len)
{
	struct sd_pages_share share;
	static pthread_once_t consent = PTHREAD_ONCE_INIT;
	struct export_block *b;
	uint64_t start;
	doca_error_t err;
	char pci[SD_REMOTE_PCI_MAX] = {0};

	if (addr == NULL || len == 0 || pci_addr == NULL || desc == NULL || desc_len == NULL) {
		SD_LOG_ERR("export: NULL or empty argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((uint64_t)(uintptr_t)addr > (uint64_t)INT64_MAX - len) {
		SD_LOG_ERR("export: range %p + %zu wraps around", addr, len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (side != SD_SIDE_HOST && side != SD_SIDE_DPU) {
		SD_LOG_ERR("export: bad side %d", (int)side);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (access & ~ACCESS_KNOWN) {
		SD_LOG_ERR("export: unknown access bits 0x%x", access);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!(access & ACCESS_PCI)) {
		SD_LOG_ERR("export: the mmap grants neither PCI_READ_ONLY nor PCI_READ_WRITE (access 0x%x)", access);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (strlen(pci_addr) >= sizeof(pci)) {
		SD_LOG_ERR("export: PCI address '%.32s' too long", pci_addr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(pci, pci_addr, strlen(pci_addr));
	if (!sd_pci_plausible(pci, sizeof(pci))) {
		SD_LOG_ERR("export: '%s' is not a PCI address", pci_addr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = sd_remote_export_net(addr, len, access, SD_REMOTE_NKIND_MEM, card, side, pci, desc, desc_len);
	if (err != DOCA_ERROR_AGAIN)
		return err;
	err = sd_proc_identity(getpid(), &start, NULL);
	if (err != DOCA_SUCCESS) {
		SD_LOG_ERR("export: cannot read this process's start time from /proc");
		return DOCA_ERROR_OPERATING_SYSTEM;
	}

	b = calloc(1, sizeof(*b));
	if (b == NULL)
		return DOCA_ERROR_NO_MEMORY;
	if (getrandom(b->desc.token, sizeof(b->desc.token), 0) != (ssize_t)sizeof(b->desc.token)) {
		SD_LOG_ERR("export: getrandom failed: %s", strerror(errno));
		free(b);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	b->desc.magic = SD_REMOTE_DESC_MAGIC;
	b->desc.version = SD_REMOTE_DESC_VERSION;
	b->desc.size = SD_REMOTE_DESC_SIZE;
	b->desc.card = card;
	b->desc.side = (uint8_t)side;
	b->desc.access = access;
	b->desc.pid = (uint32_t)getpid();
	b->desc.start_time = start;
	b->desc.addr = (uint64_t)(uintptr_t)addr;
	b->desc.len = len;
	b->desc.record = (uint64_t)(uintptr_t)&b->rec;
	memcpy(b->desc.pci, pci, sizeof(pci));
	b->desc.checksum = sd_remote_desc_checksum(&b->desc);
	b->rec.desc = b->desc;
	/* a move that cannot be done never fails the export (only a junk
	 * SOFTDOCA_REMOTE_NO_MOVE does): the kernel path covers the range */
	err = sd_pages_share((uintptr_t)addr, len, &b->moved, &share);
	if (err != DOCA_SUCCESS) {
		free(b);
		return err;
	}
	if (b->moved != NULL) {
		b->rec.shm.fd = share.fd;
		b->rec.shm.ino = share.ino;
		b->rec.shm.dev = share.dev;
		b->rec.shm.addr = share.addr;
		b->rec.shm.len = share.len;
		b->rec.shm.off = share.off;
	}
	__atomic_store_n(&b->rec.state, REC_LIVE, __ATOMIC_RELEASE);

	pthread_once(&consent, export_consent_once);
	if (b->moved == NULL)
		export_hint_hugepages(addr, len);
	*desc = b;
	*desc_len = SD_REMOTE_DESC_SIZE;
	return DOCA_SUCCESS;
}

void sd_remote_export_free(void *desc)
{
	struct export_block *b = desc;

	if (b == NULL)
		return;
	if (b->desc.magic == SD_REMOTE_NDESC_MAGIC) {
		struct net_export *x = desc;

		x->link->unexport(x->desc.id);
		memset(x, 0, sizeof(*x));
		free(x);
		return;
	}
	__atomic_store_n(&b->rec.state, REC_REVOKED, __ATOMIC_RELEASE);
	sd_pages_put(b->moved);
	free(b);
}

/* ---- importer ------------------------------------------------------------ */

static doca_error_t errno_error(int e)
{
	switch (e) {
	case ESRCH:
		return DOCA_ERROR_CONNECTION_RESET;
	case EPERM:
	case EACCES:
		return DOCA_ERROR_NOT_PERMITTED;
	case ENOSYS:
		return DOCA_ERROR_NOT_SUPPORTED;
	case EFAULT:
	case EIO:
		return DOCA_ERROR_IO_FAILED;
	case ENOMEM:
		return DOCA_ERROR_NO_MEMORY;
	default:
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
}

/* Move len bytes; on failure *done says how far it got and errno why
 * (ESRCH also stands for "the address space is gone" with /proc/<pid>/mem). */
static int pvm_copy(pid_t pid, bool write, uint64_t raddr, void *local, size_t len, size_t *done)
{
	*done = 0;
	while (*done < len) {
		size_t n = len - *done > CHUNK ? CHUNK : len - *done;
		struct iovec l = {(char *)local + *done, n};
		struct iovec r = {(void *)(uintptr_t)(raddr + *done), n};
		ssize_t k = write ? process_vm_writev(pid, &l, 1, &r, 1, 0) : process_vm_readv(pid, &l, 1, &r, 1, 0);

		if (k > 0) {
			*done += (size_t)k;
			continue;
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k == 0)
			errno = EFAULT;
		return -1;
	}
	return 0;
}

static int proc_mem_copy(int fd, bool write, uint64_t raddr, void *local, size_t len, size_t *done)
{
	*done = 0;
	while (*done < len) {
		size_t n = len - *done > CHUNK ? CHUNK : len - *done;
		off_t off = (off_t)(raddr + *done);
		ssize_t k = write ? pwrite(fd, (char *)local + *done, n, off) : pread(fd, (char *)local + *done, n, off);

		if (k > 0) {
			*done += (size_t)k;
			continue;
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k == 0)
			errno = ESRCH; /* the exporter's address space has no users left */
		return -1;
	}
	return 0;
}

static int remote_copy(const struct sd_remote *r, bool write, uint64_t raddr, void *local, size_t len, size_t *done)
{
	if (r->mech == MECH_PROC_MEM)
		return proc_mem_copy(r->mem_fd, write, raddr, local, len, done);
	return pvm_copy((pid_t)r->desc.pid, write, raddr, local, len, done);
}

/* Compare a record read from the exporter with our descriptor. */
static doca_error_t record_verdict(const struct sd_remote_record *rec, const struct sd_remote_desc *d)
{
	if (memcmp(&rec->desc, d, sizeof(*d)) != 0)
		return DOCA_ERROR_INVALID_VALUE;
	if (rec->state == REC_LIVE)
		return DOCA_SUCCESS;
	if (rec->state == REC_REVOKED)
		return DOCA_ERROR_NOT_FOUND;
	return DOCA_ERROR_INVALID_VALUE;
}

/* SOFTDOCA_REMOTE_FORCE_FALLBACK: "1" forces /proc/<pid>/mem; anything but
 * unset/""/"0"/"1" fails the import (logged by name), since a mistyped
 * switch silently ignored is a test that checks the wrong mechanism. */
static doca_error_t force_fallback(bool *on)
{
	int v;
	doca_error_t err = sd_env_bool("SOFTDOCA_REMOTE_FORCE_FALLBACK", &v);

	*on = v != 0;
	return err;
}

static bool desc_can_write(const struct sd_remote_desc *d)
{
	return (d->access & DOCA_ACCESS_FLAG_PCI_READ_WRITE) != 0;
}

static doca_error_t open_proc_mem(struct sd_remote *r)
{
	char path[64];
	uint64_t start;
	pid_t pid = (pid_t)r->desc.pid;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	r->mem_fd = open(path, (desc_can_write(&r->desc) ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (r->mem_fd < 0) {
		int e = errno;

		if (e == ENOENT || e == ESRCH) {
			SD_LOG_ERR("import: exporter process %d has exited", (int)pid);
			return DOCA_ERROR_NOT_FOUND;
		}
		SD_LOG_ERR("import: the kernel refuses access to process %d's memory (%s): check "
			   "kernel.yama.ptrace_scope (0 or 1 works) and seccomp/LSM policy",
			   (int)pid, strerror(e));
		return e == EACCES || e == EPERM ? DOCA_ERROR_NOT_PERMITTED : DOCA_ERROR_OPERATING_SYSTEM;
	}
	/* The pid may have been recycled between the identity check and open(). */
	if (sd_proc_identity(pid, &start, NULL) != DOCA_SUCCESS || start != r->desc.start_time) {
		SD_LOG_ERR("import: exporter process %d has exited", (int)pid);
		return DOCA_ERROR_NOT_FOUND;
	}
	return DOCA_SUCCESS;
}

/* Read the record and, in the same kernel call where it can, one byte at
 * each of nprobe exporter addresses. 0 when the record was read; *probed
 * tells whether the probes were too (errno says why not). */
static int read_record(const struct sd_remote *r, struct sd_remote_record *rec, const uint64_t *probe, int nprobe,
		       bool *probed)
{
	uint8_t sink[2];
	size_t done;

	*probed = nprobe == 0;
	if (r->mech == MECH_PVM && nprobe > 0) {
		struct iovec l[3] = {{rec, sizeof(*rec)}}, rv[3] = {{(void *)(uintptr_t)r->desc.record, sizeof(*rec)}};
		ssize_t k;

		for (int i = 0; i < nprobe && i < 2; i++) {
			l[1 + i] = (struct iovec){&sink[i], 1};
			rv[1 + i] = (struct iovec){(void *)(uintptr_t)probe[i], 1};
		}
		do
			k = process_vm_readv((pid_t)r->desc.pid, l, 1 + (unsigned long)nprobe, rv,
					     1 + (unsigned long)nprobe, 0);
		while (k < 0 && errno == EINTR);
		if (k < (ssize_t)sizeof(*rec)) {
			if (k >= 0)
				errno = EFAULT;
			return -1;
		}
		*probed = k == (ssize_t)(sizeof(*rec) + (size_t)nprobe);
		if (!*probed)
			errno = EFAULT;
		return 0;
	}
	if (remote_copy(r, false, r->desc.record, rec, sizeof(*rec), &done) != 0)
		return -1;
	for (int i = 0; i < nprobe; i++)
		if (remote_copy(r, false, probe[i], &sink[0], 1, &done) != 0)
			return 0;
	*probed = true;
	return 0;
}

/* Read the exporter's record; at import (importing) a failure reads as
 * "exited" / "no such export", at access time as "died" / "revoked". With
 * probes (access time, the shared part of an access), also check that the
 * exporter still maps those addresses: IO_FAILED if not, as on the kernel
 * path. out (may be NULL) gets the record. */
static doca_error_t check_record(const struct sd_remote *r, bool importing, struct sd_remote_record *out,
				 const uint64_t *probe, int nprobe)
{
	struct sd_remote_record rec;
	doca_error_t err;
	uint64_t start;
	bool probed;
	pid_t pid = (pid_t)r->desc.pid;

	if (read_record(r, &rec, probe, nprobe, &probed) != 0) {
		int e = errno;

		if (e == EPERM || e == EACCES || e == ENOSYS)
			return errno_error(e); /* the caller decides about the fallback */
		if (e != ESRCH && sd_proc_identity(pid, &start, NULL) == DOCA_SUCCESS && start == r->desc.start_time) {
			SD_LOG_ERR("%s: process %d holds no export at 0x%" PRIx64 " (forged descriptor, or the "
				   "export was destroyed)",
				   importing ? "import" : "remote access", (int)pid, r->desc.record);
			return importing ? DOCA_ERROR_INVALID_VALUE : DOCA_ERROR_NOT_FOUND;
		}
		SD_LOG_ERR("%s: exporter process %d has exited", importing ? "import" : "remote access", (int)pid);
		return importing ? DOCA_ERROR_NOT_FOUND : DOCA_ERROR_CONNECTION_RESET;
	}
	err = record_verdict(&rec, &r->desc);
	if (err == DOCA_SUCCESS && !probed) {
		int e = errno;

		if (e == ESRCH) {
			SD_LOG_ERR("remote access: exporter process %d has exited", (int)pid);
			return DOCA_ERROR_CONNECTION_RESET;
		}
		SD_LOG_ERR("remote access: process %d no longer maps the exported memory at 0x%" PRIx64 " (%s): did "
			   "the exporter unmap exported memory?",
			   (int)pid, probe[0], strerror(e));
		return errno_error(e == EPERM || e == EACCES || e == ENOSYS ? EIO : e);
	}
	if (err == DOCA_SUCCESS) {
		if (out != NULL)
			*out = rec;
		return err;
	}
	/* A pid now naming another process also lands here (PVM only). */
	if (r->mech == MECH_PVM &&
	    (sd_proc_identity(pid, &start, NULL) != DOCA_SUCCESS || start != r->desc.start_time)) {
		SD_LOG_ERR("%s: exporter process %d has exited", importing ? "import" : "remote access", (int)pid);
		return importing ? DOCA_ERROR_NOT_FOUND : DOCA_ERROR_CONNECTION_RESET;
	}
	if (err == DOCA_ERROR_NOT_FOUND)
		SD_LOG_ERR("%s: process %d revoked this export (its mmap was destroyed)",
			   importing ? "import" : "remote access", (int)pid);
	else
		SD_LOG_ERR("%s: descriptor does not match a live export of process %d (forged, or the export "
			   "was destroyed)",
			   importing ? "import" : "remote access", (int)pid);
	return importing ? err : DOCA_ERROR_NOT_FOUND;
}

static doca_error_t desc_check(const void *desc, size_t desc_len, struct sd_remote_desc *d)
{
	const char *why = NULL;

	if (desc_len < offsetof(struct sd_remote_desc, card)) {
		SD_LOG_ERR("import: descriptor truncated (%zu bytes, %u expected)", desc_len, SD_REMOTE_DESC_SIZE);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memset(d, 0, sizeof(*d));
	memcpy(d, desc, desc_len < sizeof(*d) ? desc_len : sizeof(*d));
	if (d->magic != SD_REMOTE_DESC_MAGIC) {
		SD_LOG_ERR("import: not a softdoca export descriptor (magic 0x%08x)", d->magic);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (d->version != SD_REMOTE_DESC_VERSION) {
		SD_LOG_ERR("import: descriptor version %u, this library reads version %u", d->version,
			   SD_REMOTE_DESC_VERSION);
		return DOCA_ERROR_UNSUPPORTED_VERSION;
	}
	if (desc_len != SD_REMOTE_DESC_SIZE || d->size != SD_REMOTE_DESC_SIZE) {
		SD_LOG_ERR("import: descriptor of %zu bytes (header says %u), %u expected: truncated or padded",
			   desc_len, d->size, SD_REMOTE_DESC_SIZE);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (d->checksum != sd_remote_desc_checksum(d)) {
		SD_LOG_ERR("import: descriptor corrupted (checksum mismatch)");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (d->side != SD_SIDE_HOST && d->side != SD_SIDE_DPU)
		why = "side";
	else if (d->reserved0[0] || d->reserved0[1] || d->reserved0[2])
		why = "reserved bytes";
	else if ((d->access & ~ACCESS_KNOWN) || !(d->access & ACCESS_PCI))
		why = "access";
	else if (d->pid == 0 || d->pid > INT_MAX)
		why = "pid";
	else if (d->len == 0 || d->addr == 0 || d->addr > (uint64_t)INT64_MAX - d->len)
		why = "range";
	else if (d->record == 0 || d->record > (uint64_t)INT64_MAX - sizeof(struct sd_remote_record))
		why = "record";
	else if (!sd_pci_plausible(d->pci, sizeof(d->pci)))
		why = "PCI address";
	if (why != NULL) {
		SD_LOG_ERR("import: malformed descriptor (%s)", why);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

/* Say once (INFO) why an import copies through the kernel although the
 * exporter moved pages for it; repeats go to DEBUG. */
static void unshared(const struct sd_remote *r, const char *why, int e)
{
	static int said;

	if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		SD_LOG_INFO("import: the shared pages of process %u's export are not mapped here (%s%s%s): copying "
			    "through the kernel instead (said once)",
			    r->desc.pid, why, e ? ": " : "", e ? strerror(e) : "");
	else
		SD_LOG_DBG("import: the shared pages of process %u's export are not mapped here (%s%s%s)", r->desc.pid,
			   why, e ? ": " : "", e ? strerror(e) : "");
}

/* Is what the exporter's record says about its moved pages possible? (The
 * record came from the exporter's memory: checked like any peer input.) */
static bool shm_plausible(const struct sd_remote_desc *d, const struct sd_remote_shm *s, size_t pg)
{
	return s->fd >= 0 && s->fd < SD_PAGES_FD_MAX && s->reserved == 0 && s->len != 0 && s->len <= d->len &&
	       s->len % pg == 0 && s->addr % pg == 0 && s->off % pg == 0 && s->len <= SIZE_MAX &&
	       s->off <= (uint64_t)INT64_MAX - s->len && s->addr >= d->addr && s->addr - d->addr <= d->len - s->len;
}

/*
 * Map the exporter's moved pages (best effort: on any refusal the import
 * keeps using the kernel path for the whole range). The memfd is reopened
 * through /proc/<pid>/fd/<n>, which the kernel allows under the same ptrace
 * "read" rule as process_vm_readv; the file must be the one the record
 * names (inode, device), belong to this user, be sealed against shrinking
 * (no SIGBUS) and be large enough. Read-only exports are opened and mapped
 * read-only.
 */
static void map_shared(struct sd_remote *r, const struct sd_remote_shm *s)
{
	size_t pg = sd_page_size();
	bool rw = desc_can_write(&r->desc);
	char path[64];
	struct stat st;
	uint64_t start;
	void *p;
	int fd, seals;

	if (s->len == 0)
		return; /* nothing was moved */
	if (!shm_plausible(&r->desc, s, pg)) {
		unshared(r, "the exporter's record of them is malformed", 0);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%u/fd/%d", r->desc.pid, s->fd);
	fd = open(path, (rw ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0) {
		unshared(r, "cannot open its memfd", errno);
		return;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_ino != s->ino ||
	    (uint64_t)st.st_dev != s->dev || st.st_size < 0 || (uint64_t)st.st_size < s->off + s->len) {
		unshared(r, "its descriptor names another file", 0);
		goto out;
	}
	if (st.st_uid != geteuid()) {
		unshared(r, "its memfd belongs to another user", 0);
		goto out;
	}
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK)) {
		unshared(r, "its memfd is not sealed against shrinking", 0);
		goto out;
	}
	/* the pid may have been recycled between the record check and open() */
	if (sd_proc_identity((pid_t)r->desc.pid, &start, NULL) != DOCA_SUCCESS || start != r->desc.start_time) {
		unshared(r, "the exporter exited", 0);
		goto out;
	}
	p = mmap(NULL, (size_t)s->len, PROT_READ | (rw ? PROT_WRITE : 0), MAP_SHARED, fd, (off_t)s->off);
	if (p == MAP_FAILED) {
		unshared(r, "mmap of its memfd failed", errno);
		goto out;
	}
	r->shm = p;
	r->shm_addr = s->addr;
	r->shm_len = (size_t)s->len;
out:
	close(fd);
}

/* A network descriptor: layout, card and side, as desc_check does for the
 * local one; the exporter checks id, token and rights again. */
static doca_error_t ndesc_check(const void *desc, size_t desc_len, uint32_t kind, uint32_t my_card,
				enum sd_side my_side, struct sd_remote_ndesc *d)
{
	static const uint8_t zero[16];
	const char *why = NULL;

	memset(d, 0, sizeof(*d));
	memcpy(d, desc, desc_len < sizeof(*d) ? desc_len : sizeof(*d));
	if (d->version != SD_REMOTE_NDESC_VERSION) {
		SD_LOG_ERR("import: network descriptor version %u, this library reads version %u", d->version,
			   SD_REMOTE_NDESC_VERSION);
		return DOCA_ERROR_UNSUPPORTED_VERSION;
	}
	if (desc_len != SD_REMOTE_NDESC_SIZE || d->size != SD_REMOTE_NDESC_SIZE) {
		SD_LOG_ERR("import: network descriptor of %zu bytes (header says %u), %u expected: truncated or padded",
			   desc_len, d->size, SD_REMOTE_NDESC_SIZE);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (d->checksum != sd_remote_ndesc_checksum(d)) {
		SD_LOG_ERR("import: descriptor corrupted (checksum mismatch)");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (d->kind != kind) {
		SD_LOG_ERR("import: the descriptor is the export of %s, not of %s",
			   d->kind == SD_REMOTE_NKIND_CELL ? "a sync event"
			   : d->kind == SD_REMOTE_NKIND_MEM ? "memory (an mmap)"
							    : "something unknown",
			   kind == SD_REMOTE_NKIND_CELL ? "a sync event" : "memory (an mmap)");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (d->side != SD_SIDE_HOST && d->side != SD_SIDE_DPU)
		why = "side";
	else if (d->reserved != 0)
		why = "reserved bytes";
	else if ((d->access & ~ACCESS_KNOWN) || !(d->access & ACCESS_PCI))
		why = "access";
	else if (d->len == 0 || d->addr == 0 || d->addr > (uint64_t)INT64_MAX - d->len)
		why = "range";
	else if ((d->family != 4 && d->family != 6) || d->port == 0 ||
		 (d->family == 4 && memcmp(d->ip + 4, zero, 12) != 0))
		why = "listener address";
	else if (!sd_pci_plausible(d->pci, sizeof(d->pci)))
		why = "PCI address";
	if (why != NULL) {
		SD_LOG_ERR("import: malformed network descriptor (%s)", why);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (d->card != my_card) {
		SD_LOG_ERR("import: descriptor exported on card %u, this device is on card %u", d->card, my_card);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (d->side == my_side) {
		SD_LOG_ERR("import: descriptor exported by the %s side: only the other side of the card may import it",
			   d->side == SD_SIDE_HOST ? "host" : "dpu");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return DOCA_SUCCESS;
}

doca_error_t sd_remote_import_net(const void *desc, size_t desc_len, uint32_t kind, uint32_t my_card,
				  enum sd_side my_side, struct sd_remote **out)
{
	const struct sd_link_remote_ops *link;
	struct sd_remote_ndesc d;
	struct sd_remote *r;
	doca_error_t err;

	err = ndesc_check(desc, desc_len, kind, my_card, my_side, &d);
	if (err != DOCA_SUCCESS)
		return err;
	err = link_remote(&link);
	if (err != DOCA_SUCCESS)
		return err;
	if (link == NULL) {
		SD_LOG_ERR("import: the descriptor names an export across the network (process %u, %s): set "
			   "SOFTDOCA_LINK and SOFTDOCA_LINK_SECRET_FILE as on the exporter's side",
			   d.pid, d.pci);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return DOCA_ERROR_NO_MEMORY;
	r->mem_fd = -1;
	r->link = link;
	r->desc.magic = SD_REMOTE_DESC_MAGIC;
	r->desc.card = d.card;
	r->desc.side = d.side;
	r->desc.access = d.access;
	r->desc.pid = d.pid;
	r->desc.addr = d.addr;
	r->desc.len = d.len;
	memcpy(r->desc.pci, d.pci, sizeof(r->desc.pci));
	err = link->import(&d, (uint8_t)my_side, &r->link_handle);
	if (err != DOCA_SUCCESS) {
		free(r);
		return err;
	}
	SD_LOG_DBG("imported %" PRIu64 " bytes at 0x%" PRIx64 " of process %u (%s, card %u) across the network",
		   d.len, d.addr, d.pid, d.pci, d.card);
	*out = r;
	return DOCA_SUCCESS;
}

doca_error_t sd_remote_import(const void *desc, size_t desc_len, uint32_t my_card, enum sd_side my_side,
			      struct sd_remote **out)
{
	struct sd_remote_record rec = {0};
	uint32_t magic = 0;
	struct sd_remote_desc d;
	struct sd_remote *r;
	uint64_t start;
	bool fallback;
	uid_t uid;
	doca_error_t err;

	if (desc == NULL || out == NULL || (my_side != SD_SIDE_HOST && my_side != SD_SIDE_DPU)) {
		SD_LOG_ERR("import: NULL descriptor/output or bad side");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (desc_len >= sizeof(magic))
		memcpy(&magic, desc, sizeof(magic));
	if (magic == SD_REMOTE_NDESC_MAGIC)
		return sd_remote_import_net(desc, desc_len, SD_REMOTE_NKIND_MEM, my_card, my_side, out);
	err = desc_check(desc, desc_len, &d);
	if (err != DOCA_SUCCESS)
		return err;
	if (d.card != my_card) {
		SD_LOG_ERR("import: descriptor exported on card %u, this device is on card %u", d.card, my_card);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (d.side == my_side) {
		SD_LOG_ERR("import: descriptor exported by the %s side: only the other side of the card may import it",
			   d.side == SD_SIDE_HOST ? "host" : "dpu");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	err = sd_proc_identity((pid_t)d.pid, &start, &uid);
	if (err == DOCA_ERROR_NOT_FOUND || (err == DOCA_SUCCESS && start != d.start_time)) {
		SD_LOG_ERR("import: exporter process %u has exited%s", d.pid,
			   err == DOCA_SUCCESS ? " (its pid now names another process)" : "");
		return DOCA_ERROR_NOT_FOUND;
	}
	if (err != DOCA_SUCCESS) {
		SD_LOG_ERR("import: cannot read /proc/%u/stat", d.pid);
		return err;
	}
	if (uid != geteuid()) {
		SD_LOG_ERR("import: exporter process %u belongs to uid %u, not to this user (uid %u)", d.pid,
			   (unsigned)uid, (unsigned)geteuid());
		return DOCA_ERROR_NOT_PERMITTED;
	}

	err = force_fallback(&fallback);
	if (err != DOCA_SUCCESS) {
		SD_LOG_ERR("import: not attempted: SOFTDOCA_REMOTE_FORCE_FALLBACK holds an invalid value");
		return err;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return DOCA_ERROR_NO_MEMORY;
	r->desc = d;
	r->mem_fd = -1;
	r->mech = MECH_PVM;
	if (!fallback) {
		err = check_record(r, true, &rec, NULL, 0);
		if (err != DOCA_ERROR_NOT_PERMITTED && err != DOCA_ERROR_NOT_SUPPORTED)
			goto done;
		SD_LOG_INFO("import: process_vm_readv refused by the kernel; falling back to /proc/%u/mem", d.pid);
	}
	r->mech = MECH_PROC_MEM;
	err = open_proc_mem(r);
	if (err == DOCA_SUCCESS)
		err = check_record(r, true, &rec, NULL, 0);
	if (err == DOCA_ERROR_NOT_SUPPORTED)
		err = DOCA_ERROR_NOT_PERMITTED;
done:
	if (err != DOCA_SUCCESS) {
		sd_remote_release(r);
		return err;
	}
	if (!fallback)
		map_shared(r, &rec.shm);
	SD_LOG_DBG("imported %" PRIu64 " bytes at 0x%" PRIx64 " of process %u (%s, card %u) via %s", d.len, d.addr,
		   d.pid, d.pci, d.card, sd_remote_mechanism(r));
	*out = r;
	return DOCA_SUCCESS;
}

doca_error_t sd_remote_atomic(struct sd_remote *r, enum sd_remote_atomic_op op, uint64_t operand, uint64_t *old)
{
	if (r == NULL || old == NULL || op < SD_REMOTE_ATOMIC_GET || op > SD_REMOTE_ATOMIC_ADD)
		return DOCA_ERROR_INVALID_VALUE;
	if (r->link == NULL || r->desc.len != sizeof(uint64_t))
		return DOCA_ERROR_NOT_SUPPORTED;
	return r->link->atomic(r->link_handle, (uint32_t)op, r->desc.addr, operand, old);
}

bool sd_remote_export_lost(const void *desc)
{
	const struct net_export *x = desc;

	return x != NULL && x->desc.magic == SD_REMOTE_NDESC_MAGIC && x->link->export_lost(x->desc.id);
}

void sd_remote_release(struct sd_remote *r)
{
	if (r == NULL)
		return;
	if (r->link != NULL)
		r->link->release(r->link_handle);
	if (r->mem_fd >= 0)
		close(r->mem_fd);
	if (r->shm != NULL)
		munmap(r->shm, r->shm_len);
	free(r);
}

uint64_t sd_remote_addr(const struct sd_remote *r)
{
	return r != NULL ? r->desc.addr : 0;
}

size_t sd_remote_len(const struct sd_remote *r)
{
	return r != NULL ? (size_t)r->desc.len : 0;
}

uint32_t sd_remote_access(const struct sd_remote *r)
{
	return r != NULL ? r->desc.access : 0;
}

uint32_t sd_remote_card(const struct sd_remote *r)
{
	return r != NULL ? r->desc.card : 0;
}

enum sd_side sd_remote_side(const struct sd_remote *r)
{
	return r != NULL ? (enum sd_side)r->desc.side : SD_SIDE_HOST;
}

const char *sd_remote_pci(const struct sd_remote *r)
{
	return r != NULL ? r->desc.pci : "";
}

int sd_remote_pid(const struct sd_remote *r)
{
	return r != NULL ? (int)r->desc.pid : 0;
}

bool sd_remote_contains(const struct sd_remote *r, uint64_t remote_addr, size_t len)
{
	if (r == NULL)
		return false;
	return remote_addr >= r->desc.addr && len <= r->desc.len && remote_addr - r->desc.addr <= r->desc.len - len;
}

bool sd_remote_can_read(const struct sd_remote *r)
{
	return r != NULL && (r->desc.access & ACCESS_PCI) != 0;
}

bool sd_remote_can_write(const struct sd_remote *r)
{
	return r != NULL && desc_can_write(&r->desc);
}

const char *sd_remote_mechanism(const struct sd_remote *r)
{
	if (r == NULL)
		return "none";
	if (r->link != NULL)
		return "ucx";
	if (r->shm != NULL)
		return r->mech == MECH_PROC_MEM ? "shared+proc_mem" : "shared+process_vm";
	return r->mech == MECH_PROC_MEM ? "proc_mem" : "process_vm";
}

size_t sd_remote_shared_len(const struct sd_remote *r)
{
	return r != NULL && r->shm != NULL ? r->shm_len : 0;
}

/* Move the bytes of an access: the shared part [s_lo, s_hi) (empty if
 * s_lo == s_hi) with memcpy, the rest through the kernel. On failure *done
 * says how far it got, errno why. */
static int rw_copy(const struct sd_remote *r, bool write, uint64_t raddr, uint8_t *local, size_t len, uint64_t s_lo,
		   uint64_t s_hi, size_t *done)
{
	size_t head = (size_t)(s_lo - raddr), mid = (size_t)(s_hi - s_lo), k;
	uint8_t *shm;

	if (mid == 0)
		return remote_copy(r, write, raddr, local, len, done);
	if (head != 0 && remote_copy(r, write, raddr, local, head, done) != 0)
		return -1;
	shm = r->shm + (s_lo - r->shm_addr);
	if (write)
		memcpy(shm, local + head, mid);
	else
		memcpy(local + head, shm, mid);
	*done = head + mid;
	if (*done == len)
		return 0;
	if (remote_copy(r, write, s_hi, local + *done, len - *done, &k) != 0) {
		*done += k;
		return -1;
	}
	*done = len;
	return 0;
}

/* The checks of an access (bounds, rights; on the local fabric also the
 * export live and its first and last shared byte still mapped by the
 * exporter), logged; the shared part of the range in [*s_lo, *s_hi) (empty
 * when s_lo == s_hi). The caller moves the bytes. */
static doca_error_t remote_check(struct sd_remote *r, bool write, uint64_t raddr, size_t len, uint64_t *s_lo,
				 uint64_t *s_hi)
{
	const char *op = write ? "remote write" : "remote read";
	uint64_t probe[2];
	doca_error_t err;

	*s_lo = *s_hi = raddr;
	if (!sd_remote_contains(r, raddr, len)) {
		SD_LOG_ERR("%s: [0x%" PRIx64 ", +%zu) is outside the export [0x%" PRIx64 ", +%" PRIu64 ")", op, raddr,
			   len, r->desc.addr, r->desc.len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (write ? !sd_remote_can_write(r) : !sd_remote_can_read(r)) {
		SD_LOG_ERR("%s: the export does not allow it (access 0x%x)", op, r->desc.access);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (r->link != NULL)
		return DOCA_SUCCESS; /* the exporter's side checks the rest */
	if (r->shm != NULL) {
		*s_lo = raddr > r->shm_addr ? raddr : r->shm_addr;
		*s_hi = raddr + len < r->shm_addr + r->shm_len ? raddr + len : r->shm_addr + r->shm_len;
		if (*s_hi <= *s_lo)
			*s_lo = *s_hi = raddr;
	}
	/* The shared part is checked like the kernel path checks every page:
	 * the exporter must still map its first and last byte. */
	probe[0] = *s_lo;
	probe[1] = *s_hi - 1;
	err = check_record(r, false, NULL, probe, *s_hi > *s_lo ? 2 : 0);
	if (err == DOCA_ERROR_NOT_SUPPORTED)
		SD_LOG_ERR("%s: the kernel now refuses process_vm_%sv", op, write ? "write" : "read");
	if (err != DOCA_SUCCESS)
		return err == DOCA_ERROR_NOT_SUPPORTED ? DOCA_ERROR_NOT_PERMITTED : err;
	return DOCA_SUCCESS;
}

static doca_error_t remote_rw(struct sd_remote *r, bool write, uint64_t raddr, void *local, size_t len)
{
	const char *op = write ? "remote write" : "remote read";
	uint64_t s_lo, s_hi;
	doca_error_t err;
	size_t done;
	int e;

	if (r == NULL || (local == NULL && len != 0)) {
		SD_LOG_ERR("%s: NULL argument", op);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (len == 0)
		return DOCA_SUCCESS;
	err = remote_check(r, write, raddr, len, &s_lo, &s_hi);
	if (err != DOCA_SUCCESS)
		return err;
	if (r->link != NULL)
		return write ? r->link->write(r->link_handle, raddr, local, len)
			     : r->link->read(r->link_handle, raddr, local, len);
	if (rw_copy(r, write, raddr, local, len, s_lo, s_hi, &done) == 0)
		return DOCA_SUCCESS;
	e = errno;
	err = errno_error(e);
	if (err == DOCA_ERROR_CONNECTION_RESET)
		SD_LOG_ERR("%s: exporter process %u died after %zu of %zu bytes", op, r->desc.pid, done, len);
	else
		SD_LOG_ERR("%s: failed after %zu of %zu bytes at 0x%" PRIx64 ": %s (did the exporter unmap "
			   "exported memory?)",
			   op, done, len, raddr, strerror(e));
	return err;
}

doca_error_t sd_remote_direct(struct sd_remote *r, bool write, uint64_t remote_addr, size_t len, uint8_t **ptr)
{
	uint64_t s_lo, s_hi;
	doca_error_t err;

	if (ptr == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*ptr = NULL;
	if (r == NULL || len == 0)
		return DOCA_ERROR_INVALID_VALUE;
	if (r->link != NULL || r->shm == NULL || remote_addr < r->shm_addr || remote_addr - r->shm_addr >= r->shm_len ||
	    len > r->shm_len - (remote_addr - r->shm_addr) || !sd_remote_contains(r, remote_addr, len))
		return DOCA_SUCCESS; /* not wholly in the shared pages: sd_remote_read/write moves it */
	err = remote_check(r, write, remote_addr, len, &s_lo, &s_hi);
	if (err == DOCA_SUCCESS)
		*ptr = r->shm + (remote_addr - r->shm_addr);
	return err;
}

doca_error_t sd_remote_read(struct sd_remote *r, uint64_t remote_addr, void *local, size_t len)
{
	return remote_rw(r, false, remote_addr, local, len);
}

doca_error_t sd_remote_write(struct sd_remote *r, uint64_t remote_addr, const void *local, size_t len)
{
	return remote_rw(r, true, remote_addr, (void *)local, len);
}
