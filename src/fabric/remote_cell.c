/*
 * Shared 64-bit cells: the memory behind a doca_sync_event that both sides
 * of the emulated link update (see sd_remote.h for the model and errors).
 *
 * Why a memfd and not the remote-memory seam (process_vm_*): a sync event is
 * updated with atomic read-modify-write operations from both processes at
 * once, and only memory mapped by both gives that. Why /proc/<pid>/fd and not
 * an fd sent over a fabric socket: DOCA programs carry the export bytes over
 * their own channel (Comch in NVIDIA's samples) and may never progress
 * anything while they wait on the event, so the exporter cannot be asked to
 * hand out a descriptor; reopening the memfd through /proc needs nothing
 * from it, and the kernel's "ptrace read" rule keeps other users out.
 *
 * The importer treats every byte it receives, and every byte of the page, as
 * hostile: the page holds plain numbers (no pointers), it is sealed against
 * shrinking (no SIGBUS while mapped), and what the descriptor says is
 * compared with what the kernel reports about the file (inode, owner, size,
 * seals) and with the token the exporter wrote into the page.
 *
 * Across a network (SOFTDOCA_LINK=ucx://) no page can be shared: the
 * exporter keeps its page and serves the value through its UCX thread as
 * an export of its own kind (sd_remote_export_net, SD_REMOTE_NKIND_CELL),
 * and the importer holds no page at all: every get, set and add is one
 * atomic operation that the exporter runs on its 8 bytes (sd_remote_atomic,
 * a round trip). Liveness there is the link's: an operation fails when the
 * exporter or the network is gone, and the exporter learns of an importer
 * that lost its link without releasing the import.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <doca_types.h>

#include "sd_log.h"
#include "sd_remote.h"

SD_LOG_REGISTER(REMOTE_CELL);

#define CELL_PAGE 4096u
#define CELL_MAGIC 0x4c454353u /* "SCEL" */
#define CELL_VERSION 1u
#define CELL_LIVE 0x4556494cu
#define CELL_REVOKED 0x4b564552u
#define CELL_SLOTS 32
#define CELL_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)
#define FD_MAX (1 << 20)

/* One importer: its pid and start time (0 while the slot is being claimed). */
struct cell_slot {
	uint32_t pid;
	uint32_t reserved;
	uint64_t start_time;
};

/* The shared page: plain numbers only, every field read atomically. */
struct cell_page {
	uint32_t magic;
	uint16_t version;
	uint16_t reserved;
	uint32_t state; /* CELL_LIVE / CELL_REVOKED */
	uint32_t owner_pid;
	uint8_t token[SD_REMOTE_TOKEN_LEN];
	uint8_t pad0[32];
	uint64_t value; /* its own cache line */
	uint8_t pad1[56];
	struct cell_slot slots[CELL_SLOTS];
};
_Static_assert(sizeof(struct cell_page) <= CELL_PAGE, "cell page fits a page");
_Static_assert(__builtin_offsetof(struct cell_page, value) == 64, "value on its own line");

struct sd_cell {
	struct cell_page *page; /* NULL for a network import */
	void *net_export;       /* exporter: the network export (sd_remote_export_net), or NULL */
	struct sd_remote *net;  /* importer across the network, else NULL */
	bool exporter;
	bool reported;  /* a failed peer check was logged */
	int fd;         /* exporter: the memfd */
	int slot;       /* importer: its slot, -1 if none was free */
	uint32_t peer_pid;
	uint64_t peer_start;
	uint64_t ino, dev;
};

static uint64_t desc_checksum(const struct sd_cell_desc *d)
{
	return sd_fnv1a(d, offsetof(struct sd_cell_desc, checksum));
}

doca_error_t sd_cell_create(struct sd_cell **out)
{
	struct sd_cell *c;
	struct stat st;
	int fd;

	if (out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	fd = memfd_create("softdoca-sync-event", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		SD_LOG_ERR("sync event memory: memfd_create failed: %s", strerror(errno));
		return errno == ENOMEM || errno == EMFILE || errno == ENFILE ? DOCA_ERROR_NO_MEMORY
									      : DOCA_ERROR_OPERATING_SYSTEM;
	}
	if (ftruncate(fd, CELL_PAGE) != 0 || fcntl(fd, F_ADD_SEALS, CELL_SEALS) != 0 || fstat(fd, &st) != 0) {
		SD_LOG_ERR("sync event memory: cannot size and seal the memfd: %s", strerror(errno));
		close(fd);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		close(fd);
		return DOCA_ERROR_NO_MEMORY;
	}
	c->page = mmap(NULL, CELL_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (c->page == MAP_FAILED) {
		SD_LOG_ERR("sync event memory: mmap failed: %s", strerror(errno));
		close(fd);
		free(c);
		return DOCA_ERROR_NO_MEMORY;
	}
	if (getrandom(c->page->token, sizeof(c->page->token), 0) != (ssize_t)sizeof(c->page->token)) {
		SD_LOG_ERR("sync event memory: getrandom failed: %s", strerror(errno));
		munmap(c->page, CELL_PAGE);
		close(fd);
		free(c);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	c->exporter = true;
	c->fd = fd;
	c->slot = -1;
	c->ino = (uint64_t)st.st_ino;
	c->dev = (uint64_t)st.st_dev;
	c->page->magic = CELL_MAGIC;
	c->page->version = CELL_VERSION;
	c->page->owner_pid = (uint32_t)getpid();
	__atomic_store_n(&c->page->state, CELL_LIVE, __ATOMIC_RELEASE);
	*out = c;
	return DOCA_SUCCESS;
}

doca_error_t sd_cell_export(struct sd_cell *c, uint32_t card, enum sd_side side, const char *pci_addr,
			    union sd_cell_export_desc *desc, size_t *desc_len)
{
	struct sd_cell_desc d;
	uint64_t start;
	doca_error_t err;

	if (c == NULL || pci_addr == NULL || desc == NULL || desc_len == NULL || !c->exporter ||
	    (side != SD_SIDE_HOST && side != SD_SIDE_DPU))
		return DOCA_ERROR_INVALID_VALUE;
	if (c->net_export == NULL) {
		size_t len;

		err = sd_remote_export_net(&c->page->value, sizeof(c->page->value),
					   DOCA_ACCESS_FLAG_PCI_READ_WRITE, SD_REMOTE_NKIND_CELL, card, side, pci_addr,
					   &c->net_export, &len);
		if (err != DOCA_SUCCESS && err != DOCA_ERROR_AGAIN)
			return err;
	}
	if (c->net_export != NULL) {
		/* a second export of one event names the same one */
		memcpy(desc->net, c->net_export, sizeof(desc->net));
		*desc_len = sizeof(desc->net);
		return DOCA_SUCCESS;
	}
	memset(&d, 0, sizeof(d));
	if (strlen(pci_addr) >= sizeof(d.pci))
		return DOCA_ERROR_INVALID_VALUE;
	memcpy(d.pci, pci_addr, strlen(pci_addr));
	if (!sd_pci_plausible(d.pci, sizeof(d.pci)))
		return DOCA_ERROR_INVALID_VALUE;
	if (sd_proc_identity(getpid(), &start, NULL) != DOCA_SUCCESS) {
		SD_LOG_ERR("sync event export: cannot read this process's start time from /proc");
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	d.magic = SD_CELL_DESC_MAGIC;
	d.version = SD_CELL_DESC_VERSION;
	d.size = SD_CELL_DESC_SIZE;
	d.card = card;
	d.side = (uint8_t)side;
	d.pid = (uint32_t)getpid();
	d.fd = c->fd;
	d.start_time = start;
	d.ino = c->ino;
	d.dev = c->dev;
	memcpy(d.token, c->page->token, sizeof(d.token));
	d.checksum = desc_checksum(&d);
	desc->local = d;
	*desc_len = sizeof(d);
	return DOCA_SUCCESS;
}

static doca_error_t desc_check(const void *desc, size_t desc_len, struct sd_cell_desc *d)
{
	const char *why = NULL;

	if (desc_len < offsetof(struct sd_cell_desc, card)) {
		SD_LOG_ERR("sync event import: export data truncated (%zu bytes, %u expected)", desc_len,
			   SD_CELL_DESC_SIZE);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memset(d, 0, sizeof(*d));
	memcpy(d, desc, desc_len < sizeof(*d) ? desc_len : sizeof(*d));
	if (d->magic != SD_CELL_DESC_MAGIC) {
		SD_LOG_ERR("sync event import: not a softdoca sync event export (magic 0x%08x)", d->magic);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (d->version != SD_CELL_DESC_VERSION) {
		SD_LOG_ERR("sync event import: export version %u, this library reads version %u", d->version,
			   SD_CELL_DESC_VERSION);
		return DOCA_ERROR_UNSUPPORTED_VERSION;
	}
	if (desc_len != SD_CELL_DESC_SIZE || d->size != SD_CELL_DESC_SIZE) {
		SD_LOG_ERR("sync event import: export data of %zu bytes (header says %u), %u expected", desc_len,
			   d->size, SD_CELL_DESC_SIZE);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (d->checksum != desc_checksum(d)) {
		SD_LOG_ERR("sync event import: export data corrupted (checksum mismatch)");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (d->side != SD_SIDE_HOST && d->side != SD_SIDE_DPU)
		why = "side";
	else if (d->reserved0[0] || d->reserved0[1] || d->reserved0[2] || d->reserved1)
		why = "reserved bytes";
	else if (d->pid == 0 || d->pid > INT_MAX)
		why = "pid";
	else if (d->fd < 0 || d->fd >= FD_MAX)
		why = "descriptor number";
	else if (!sd_pci_plausible(d->pci, sizeof(d->pci)))
		why = "PCI address";
	if (why != NULL) {
		SD_LOG_ERR("sync event import: malformed export data (%s)", why);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

/* Open the exporter's memfd and check it is the file the descriptor names. */
static doca_error_t open_cell_file(const struct sd_cell_desc *d, int *out)
{
	char path[64];
	struct stat st;
	int fd, seals;

	snprintf(path, sizeof(path), "/proc/%u/fd/%d", d->pid, d->fd);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		if (e == ENOENT) {
			SD_LOG_ERR("sync event import: process %u holds no such event (forged export, or the event "
				   "was destroyed)",
				   d->pid);
			return DOCA_ERROR_INVALID_VALUE;
		}
		if (e == EACCES || e == EPERM) {
			SD_LOG_ERR("sync event import: the kernel refuses access to process %u's event (%s): check "
				   "that both sides run as the same user and are not marked non-dumpable",
				   d->pid, strerror(e));
			return DOCA_ERROR_NOT_PERMITTED;
		}
		SD_LOG_ERR("sync event import: cannot open %s: %s", path, strerror(e));
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_ino != d->ino ||
	    (uint64_t)st.st_dev != d->dev || st.st_size != (off_t)CELL_PAGE) {
		SD_LOG_ERR("sync event import: descriptor %d of process %u is not the exported event (forged export)",
			   d->fd, d->pid);
		close(fd);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (st.st_uid != geteuid()) {
		SD_LOG_ERR("sync event import: the event's memory belongs to uid %u, not to this user",
			   (unsigned)st.st_uid);
		close(fd);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & CELL_SEALS) != CELL_SEALS) {
		SD_LOG_ERR("sync event import: the event's memory is not sealed (forged export)");
		close(fd);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*out = fd;
	return DOCA_SUCCESS;
}

static void claim_slot(struct sd_cell *c)
{
	uint64_t start;

	c->slot = -1;
	if (sd_proc_identity(getpid(), &start, NULL) != DOCA_SUCCESS || start == 0)
		return;
	for (int i = 0; i < CELL_SLOTS; i++) {
		uint32_t zero = 0;

		if (__atomic_compare_exchange_n(&c->page->slots[i].pid, &zero, (uint32_t)getpid(), false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			__atomic_store_n(&c->page->slots[i].start_time, start, __ATOMIC_RELEASE);
			c->slot = i;
			return;
		}
	}
	SD_LOG_WARN("sync event import: %d importers already attached; the exporter will not see this "
		    "process die",
		    CELL_SLOTS);
}

static doca_error_t import_net(const void *desc, size_t desc_len, uint32_t my_card, enum sd_side my_side,
			       struct sd_cell **out)
{
	struct sd_remote *r;
	struct sd_cell *c;
	uint64_t v;
	doca_error_t err;

	err = sd_remote_import_net(desc, desc_len, SD_REMOTE_NKIND_CELL, my_card, my_side, &r);
	if (err != DOCA_SUCCESS)
		return err;
	/* one round trip now: an importer learns here, not at its first
	 * update, that the value answers */
	err = sd_remote_atomic(r, SD_REMOTE_ATOMIC_GET, 0, &v);
	if (err != DOCA_SUCCESS) {
		sd_remote_release(r);
		return err;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		sd_remote_release(r);
		return DOCA_ERROR_NO_MEMORY;
	}
	c->net = r;
	c->fd = -1;
	c->slot = -1;
	c->peer_pid = (uint32_t)sd_remote_pid(r);
	SD_LOG_DBG("sync event imported from process %u (%s, card %u) across the network", c->peer_pid,
		   sd_remote_pci(r), sd_remote_card(r));
	*out = c;
	return DOCA_SUCCESS;
}

doca_error_t sd_cell_import(const void *desc, size_t desc_len, uint32_t my_card, enum sd_side my_side,
			    struct sd_cell **out)
{
	struct sd_cell_desc d;
	struct cell_page *page;
	struct sd_cell *c;
	uint64_t start;
	uid_t uid;
	doca_error_t err;
	int fd;

	if (desc == NULL || out == NULL || (my_side != SD_SIDE_HOST && my_side != SD_SIDE_DPU))
		return DOCA_ERROR_INVALID_VALUE;
	if (desc_len >= sizeof(uint32_t) && memcmp(desc, &(uint32_t){SD_REMOTE_NDESC_MAGIC}, sizeof(uint32_t)) == 0)
		return import_net(desc, desc_len, my_card, my_side, out);
	err = desc_check(desc, desc_len, &d);
	if (err != DOCA_SUCCESS)
		return err;
	if (d.card != my_card) {
		SD_LOG_ERR("sync event import: exported on card %u, this device is on card %u", d.card, my_card);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (d.side == my_side) {
		SD_LOG_ERR("sync event import: exported by the %s side: only the other side of the card may import it",
			   sd_side_name((enum sd_side)d.side));
		return DOCA_ERROR_NOT_PERMITTED;
	}
	err = sd_proc_identity((pid_t)d.pid, &start, &uid);
	if (err == DOCA_ERROR_NOT_FOUND || (err == DOCA_SUCCESS && start != d.start_time)) {
		SD_LOG_ERR("sync event import: exporter process %u has exited", d.pid);
		return DOCA_ERROR_NOT_FOUND;
	}
	if (err != DOCA_SUCCESS)
		return err;
	if (uid != geteuid()) {
		SD_LOG_ERR("sync event import: exporter process %u belongs to uid %u, not to this user", d.pid,
			   (unsigned)uid);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	err = open_cell_file(&d, &fd);
	if (err != DOCA_SUCCESS)
		return err;
	page = mmap(NULL, CELL_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (page == MAP_FAILED) {
		SD_LOG_ERR("sync event import: mmap failed: %s", strerror(errno));
		return DOCA_ERROR_NO_MEMORY;
	}
	if (__atomic_load_n(&page->magic, __ATOMIC_ACQUIRE) != CELL_MAGIC || page->version != CELL_VERSION ||
	    memcmp(page->token, d.token, sizeof(d.token)) != 0) {
		SD_LOG_ERR("sync event import: the memory does not hold the exported event (forged export)");
		munmap(page, CELL_PAGE);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (__atomic_load_n(&page->state, __ATOMIC_ACQUIRE) != CELL_LIVE) {
		SD_LOG_ERR("sync event import: process %u destroyed this event", d.pid);
		munmap(page, CELL_PAGE);
		return DOCA_ERROR_NOT_FOUND;
	}
	/* The pid might have been recycled since the first check. */
	if (sd_proc_identity((pid_t)d.pid, &start, NULL) != DOCA_SUCCESS || start != d.start_time) {
		SD_LOG_ERR("sync event import: exporter process %u has exited", d.pid);
		munmap(page, CELL_PAGE);
		return DOCA_ERROR_NOT_FOUND;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		munmap(page, CELL_PAGE);
		return DOCA_ERROR_NO_MEMORY;
	}
	c->page = page;
	c->fd = -1;
	c->peer_pid = d.pid;
	c->peer_start = d.start_time;
	claim_slot(c);
	SD_LOG_DBG("sync event imported from process %u (%s, card %u)", d.pid, d.pci, d.card);
	*out = c;
	return DOCA_SUCCESS;
}

uint64_t *sd_cell_value(struct sd_cell *c)
{
	return c != NULL && c->page != NULL ? &c->page->value : NULL;
}

doca_error_t sd_cell_net_op(struct sd_cell *c, enum sd_remote_atomic_op op, uint64_t operand, uint64_t *old)
{
	if (c == NULL || c->net == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return sd_remote_atomic(c->net, op, operand, old);
}

doca_error_t sd_cell_revoked_check(const struct sd_cell *c)
{
	if (c == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (c->net != NULL)
		return DOCA_SUCCESS; /* the operations themselves say NOT_FOUND */
	return __atomic_load_n(&c->page->state, __ATOMIC_ACQUIRE) == CELL_LIVE ? DOCA_SUCCESS : DOCA_ERROR_NOT_FOUND;
}

static doca_error_t report(struct sd_cell *c, doca_error_t err, uint32_t pid)
{
	if (!c->reported) {
		c->reported = true;
		if (err == DOCA_ERROR_NOT_FOUND)
			SD_LOG_ERR("sync event: process %u destroyed the exported event", pid);
		else
			SD_LOG_ERR("sync event: process %u on the other side died", pid);
	}
	return err;
}

doca_error_t sd_cell_peer_check(struct sd_cell *c)
{
	uint64_t start;

	if (c == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (c->net != NULL) {
		uint64_t v;
		doca_error_t err = sd_remote_atomic(c->net, SD_REMOTE_ATOMIC_GET, 0, &v);

		return err == DOCA_SUCCESS ? DOCA_SUCCESS
		       : report(c, err == DOCA_ERROR_NOT_FOUND ? err : DOCA_ERROR_CONNECTION_RESET, c->peer_pid);
	}
	if (c->net_export != NULL && sd_remote_export_lost(c->net_export)) {
		if (!c->reported)
			SD_LOG_ERR("sync event: an importer across the network lost its link before it released "
				   "the event (it died, or the network is down)");
		c->reported = true;
		return DOCA_ERROR_CONNECTION_RESET;
	}
	if (!c->exporter) {
		if (sd_cell_revoked_check(c) != DOCA_SUCCESS)
			return report(c, DOCA_ERROR_NOT_FOUND, c->peer_pid);
		if (sd_proc_identity((pid_t)c->peer_pid, &start, NULL) != DOCA_SUCCESS || start != c->peer_start)
			return report(c, DOCA_ERROR_CONNECTION_RESET, c->peer_pid);
		return DOCA_SUCCESS;
	}
	for (int i = 0; i < CELL_SLOTS; i++) {
		uint32_t pid = __atomic_load_n(&c->page->slots[i].pid, __ATOMIC_ACQUIRE);
		uint64_t want = __atomic_load_n(&c->page->slots[i].start_time, __ATOMIC_ACQUIRE);

		if (pid == 0 || want == 0 || pid > INT_MAX)
			continue;
		if (sd_proc_identity((pid_t)pid, &start, NULL) != DOCA_SUCCESS || start != want) {
			/* Re-read: a clean detach may have raced with the check. */
			if (__atomic_load_n(&c->page->slots[i].pid, __ATOMIC_ACQUIRE) != pid ||
			    __atomic_load_n(&c->page->slots[i].start_time, __ATOMIC_ACQUIRE) != want)
				continue;
			return report(c, DOCA_ERROR_CONNECTION_RESET, pid);
		}
	}
	return DOCA_SUCCESS;
}

void sd_cell_destroy(struct sd_cell *c)
{
	if (c == NULL)
		return;
	if (c->net != NULL) {
		sd_remote_release(c->net);
		free(c);
		return;
	}
	if (c->exporter) {
		/* revoked over the network before the page goes: no atomic
		 * operation of a peer can reach it once this returns */
		sd_remote_export_free(c->net_export);
		__atomic_store_n(&c->page->state, CELL_REVOKED, __ATOMIC_RELEASE);
		close(c->fd);
	} else if (c->slot >= 0) {
		__atomic_store_n(&c->page->slots[c->slot].start_time, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&c->page->slots[c->slot].pid, 0, __ATOMIC_RELEASE);
	}
	munmap(c->page, CELL_PAGE);
	free(c);
}
