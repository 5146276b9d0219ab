/*
 * Moving a process's own pages onto shared memory in place (sd_pages.h).
 *
 * Why: a copy per syscall into another process pins every page it touches
 * and reaches only about half of memcpy's speed on 4 KiB pages. Pages that
 * live on a memfd can be mapped by the other process, which then copies with
 * plain loads and stores. So the whole pages of a range are copied onto a
 * memfd and the memfd is mapped MAP_SHARED|MAP_FIXED over exactly those
 * addresses: the program keeps its pointers and its bytes. move_range() says
 * how each hazard is met; range_refusal() which mappings are left alone.
 * Remote memory exports use it (remote_mem.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sd_env.h"
#include "sd_log.h"
#include "sd_pages.h"

SD_LOG_REGISTER(REMOTE);

#define MOVE_NAME "softdoca-export"
#define MOVE_PATH "/memfd:" MOVE_NAME " (deleted)"
#define MOVE_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

/* A memfd backing the moved pages [a, e) of this process. Exports whose
 * interior lies inside it share it (refs), so a second export of the same
 * memory never moves pages that importers of the first one map already. */
struct sd_pages {
	uintptr_t a, e;
	int fd;
	uint64_t ino, dev;
	unsigned int refs;
	bool listed; /* still in moved_list (a stale entry is dropped from it) */
	struct sd_pages *next;
};

static pthread_mutex_t moved_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sd_pages *moved_list;  /* under moved_lock */
static unsigned int moved_logged; /* reasons already said at INFO, under moved_lock */

enum stay_reason {
	STAY_SWITCH = 1u << 0,
	STAY_MAPPING = 1u << 1,
	STAY_OVERLAP = 1u << 2,
	STAY_KERNEL = 1u << 3,
};

size_t sd_page_size(void)
{
	long pg = sysconf(_SC_PAGESIZE);

	return pg > 0 ? (size_t)pg : 4096u;
}

/* Say once per reason (INFO) why an export keeps its pages where they are;
 * repeats go to DEBUG. Called under moved_lock. */
static void stay(enum stay_reason reason, uintptr_t a, uintptr_t e, const char *why)
{
	if (!(moved_logged & reason)) {
		moved_logged |= reason;
		SD_LOG_INFO("export: pages 0x%" PRIxPTR "-0x%" PRIxPTR " stay where they are (%s): the other side "
			    "copies them through the kernel, at about half of memcpy's speed (said once per reason)",
			    a, e, why);
		return;
	}
	SD_LOG_DBG("export: pages 0x%" PRIxPTR "-0x%" PRIxPTR " stay where they are (%s)", a, e, why);
}

/* Is one VmFlags token (two letters) in the line? */
static bool vmflag(const char *flags, const char *f)
{
	for (const char *p = flags; (p = strstr(p, f)) != NULL; p++)
		if ((p == flags || p[-1] == ' ') && (p[2] == ' ' || p[2] == '\n' || p[2] == '\0'))
			return true;
	return false;
}

/* Why a mapping with this smaps header cannot be moved, or NULL. An earlier
 * move's memfd (its export since freed) may be moved again. */
static const char *vma_refusal(const char *perms, unsigned long ino, const char *path)
{
	if (strcmp(perms, "rw-s") == 0 && strcmp(path, MOVE_PATH) == 0)
		return NULL;
	if (strcmp(perms, "rw-p") != 0)
		return perms[3] == 's' ? "a shared mapping" : "not a read-write, non-executable mapping";
	if (strcmp(path, "[stack]") == 0)
		return "on the main thread's stack";
	if (ino != 0 || (path[0] != '\0' && strcmp(path, "[heap]") != 0 && strncmp(path, "[anon:", 6) != 0))
		return "a file-backed or special mapping";
	return NULL;
}

/* VmFlags that a MAP_SHARED memfd mapping would not keep. */
static const char *flags_refusal(const char *flags)
{
	static const struct {
		const char *flag, *why;
	} bad[] = {
		{"lo", "locked memory (mlock)"},	    {"lf", "locked memory (mlock on fault)"},
		{"ht", "hugetlb memory"},		    {"io", "an I/O mapping"},
		{"pf", "a PFN mapping"},		    {"dc", "memory marked MADV_DONTFORK"},
		{"wf", "memory marked MADV_WIPEONFORK"},  {"gd", "a grows-down (stack) mapping"},
		{"um", "memory registered with userfaultfd"}, {"uw", "memory registered with userfaultfd"},
		{"ui", "memory registered with userfaultfd"}, {"ss", "a shadow stack"},
		{"sl", "sealed memory (mseal)"},	    {"mt", "memory with MTE tags"},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (vmflag(flags, bad[i].flag))
			return bad[i].why;
	return NULL;
}

/* Can every page of [a, e) be moved? NULL if so, else why not. Reads
 * /proc/self/smaps (an export is rare; the flags are only there). */
static const char *range_refusal(uintptr_t a, uintptr_t e)
{
	const char *why = NULL;
	bool inside = false;
	uintptr_t cursor = a;
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen("/proc/self/smaps", "re");

	if (f == NULL)
		return "/proc/self/smaps is unreadable";
	while (why == NULL && getline(&line, &cap, f) > 0) {
		unsigned long lo, hi, off, ino;
		unsigned int maj, mnr;
		char perms[8];
		int pos = 0;

		if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu %n", &lo, &hi, perms, &off, &maj, &mnr, &ino, &pos) >= 7 &&
		    pos > 0) {
			char *path = line + pos;

			path[strcspn(path, "\n")] = '\0';
			if (lo >= e)
				break;
			inside = hi > a;
			if (!inside)
				continue;
			if (lo > cursor) {
				why = "part of the range is not mapped";
				break;
			}
			cursor = hi;
			why = vma_refusal(perms, ino, path);
		} else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
			why = flags_refusal(line + 8);
		}
	}
	free(line);
	fclose(f);
	if (why == NULL && cursor < e)
		why = "part of the range is not mapped";
	return why;
}

/* Does any page of [a, e) hold a non-zero byte? Reading an untouched
 * anonymous page maps the zero page, so this allocates nothing. */
static bool page_has_data(const uint8_t *p, size_t n)
{
	const uint64_t *w = (const uint64_t *)(const void *)p;

	for (size_t i = 0; i < n / 8; i++)
		if (w[i] != 0)
			return true;
	return false;
}

/*
 * Move the whole pages [a, e) onto a new memfd in place. How each hazard is
 * met:
 *  - content: copied into the memfd (through a second, temporary mapping)
 *    before the memfd is mapped over the range; all-zero pages are skipped,
 *    so memory the program never touched is not allocated by the move.
 *  - a writer racing the move: its store between the copy and the MAP_FIXED
 *    would be lost. Exports do not race with writes to the exported memory
 *    (sd_remote.h says so); the copy is short (one memcpy of the range).
 *  - MAP_FIXED failing (out of mappings, memory): the kernel may already
 *    have dropped the old pages, so the range is mapped anonymous again and
 *    refilled from the memfd before giving up: the program keeps its bytes.
 *  - truncation of the memfd (which would SIGBUS both sides): sealed.
 *  - mappings whose properties a shared memfd mapping would not keep
 *    (locked, hugetlb, DONTFORK, userfaultfd, sealed, file-backed...) are
 *    refused beforehand by range_refusal().
 */
static struct sd_pages *move_range(uintptr_t a, uintptr_t e, const char **why)
{
	size_t n = e - a, pg = sd_page_size();
	struct sd_pages *m;
	struct stat st;
	uint8_t *tmp;
	void *at;
	int fd, err;

	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		*why = "out of memory";
		return NULL;
	}
	fd = memfd_create(MOVE_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || fd >= SD_PAGES_FD_MAX || ftruncate(fd, (off_t)n) != 0 || fcntl(fd, F_ADD_SEALS, MOVE_SEALS) != 0 ||
	    fstat(fd, &st) != 0) {
		*why = fd < 0 ? "memfd_create failed" : "the memfd could not be sized and sealed";
		goto fail;
	}
	tmp = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (tmp == MAP_FAILED) {
		*why = "the memfd could not be mapped";
		goto fail;
	}
	for (size_t off = 0; off < n; off += pg)
		if (page_has_data((const uint8_t *)(a + off), pg))
			memcpy(tmp + off, (const uint8_t *)(a + off), pg);
	at = mmap((void *)a, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
	if (at != (void *)a) {
		err = errno;
		at = mmap((void *)a, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (at == (void *)a)
			memcpy(at, tmp, n);
		else
			SD_LOG_CRIT("export: moving pages 0x%" PRIxPTR "-0x%" PRIxPTR " failed (%s) and they could not be "
				    "restored (%s): their content is lost",
				    a, e, strerror(err), strerror(errno));
		munmap(tmp, n);
		*why = "mapping the memfd over the range failed";
		goto fail;
	}
	munmap(tmp, n);
	m->a = a;
	m->e = e;
	m->fd = fd;
	m->ino = (uint64_t)st.st_ino;
	m->dev = (uint64_t)st.st_dev;
	m->refs = 1;
	m->listed = true;
	m->next = moved_list;
	moved_list = m;
	SD_LOG_DBG("export: moved pages 0x%" PRIxPTR "-0x%" PRIxPTR " onto memfd %d in place", a, e, fd);
	return m;
fail:
	if (fd >= 0)
		close(fd);
	free(m);
	return NULL;
}

/* Is [a, e) still mapped from m's memfd at the offsets of the move? (The
 * program may have unmapped it and mapped something else there.) */
static bool still_moved(const struct sd_pages *m, uintptr_t a, uintptr_t e)
{
	uintptr_t cursor = a;
	char line[512];
	bool ok = true;
	FILE *f = fopen("/proc/self/maps", "re");

	if (f == NULL)
		return false;
	while (ok && fgets(line, sizeof(line), f) != NULL) {
		unsigned long lo, hi, off, ino;
		unsigned int maj, mnr;
		char perms[8];

		if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu", &lo, &hi, perms, &off, &maj, &mnr, &ino) != 7)
			continue;
		if (lo >= e)
			break;
		if (hi <= a)
			continue;
		ok = lo <= cursor && ino == m->ino && strcmp(perms, "rw-s") == 0 &&
		     off + (cursor - lo) == (unsigned long)(cursor - m->a);
		cursor = hi;
	}
	fclose(f);
	return ok && cursor >= e;
}

void sd_pages_put(struct sd_pages *m)
{
	struct sd_pages **pp;
	struct stat st;

	if (m == NULL)
		return;
	pthread_mutex_lock(&moved_lock);
	if (--m->refs == 0) {
		for (pp = &moved_list; m->listed && *pp != NULL; pp = &(*pp)->next) {
			if (*pp == m) {
				*pp = m->next;
				break;
			}
		}
		/* the pages stay mapped in the program; only the name goes (unless
		 * the program closed that number itself and reused it since) */
		if (fstat(m->fd, &st) == 0 && (uint64_t)st.st_ino == m->ino && (uint64_t)st.st_dev == m->dev)
			close(m->fd);
		free(m);
	}
	pthread_mutex_unlock(&moved_lock);
}

doca_error_t sd_pages_share(uintptr_t addr, size_t len, struct sd_pages **pages, struct sd_pages_share *share)
{
	size_t pg = sd_page_size();
	uintptr_t a = (addr + pg - 1) & ~(uintptr_t)(pg - 1);
	uintptr_t e = (addr + len) & ~(uintptr_t)(pg - 1);
	struct sd_pages *m, **pp, *hit = NULL;
	const char *why = NULL;
	int off;
	doca_error_t err;

	*pages = NULL;
	memset(share, 0, sizeof(*share));
	err = sd_env_bool("SOFTDOCA_REMOTE_NO_MOVE", &off);
	if (err != DOCA_SUCCESS) {
		SD_LOG_ERR("export: not attempted: SOFTDOCA_REMOTE_NO_MOVE holds an invalid value");
		return err;
	}
	if (e <= a)
		return DOCA_SUCCESS; /* no whole page inside */
	pthread_mutex_lock(&moved_lock);
	if (off) {
		stay(STAY_SWITCH, a, e, "SOFTDOCA_REMOTE_NO_MOVE=1");
		goto out;
	}
	for (pp = &moved_list; (m = *pp) != NULL;) {
		if (m->e <= a || m->a >= e) {
			pp = &m->next;
			continue;
		}
		if (!still_moved(m, a > m->a ? a : m->a, e < m->e ? e : m->e)) {
			/* the program unmapped those pages (and maybe mapped others there):
			 * forget the move; exports that still hold it keep the memfd */
			*pp = m->next;
			m->listed = false;
			continue;
		}
		if (m->a <= a && m->e >= e)
			hit = m;
		else
			why = "it overlaps pages moved for another export only in part";
		break;
	}
	if (why != NULL) {
		stay(STAY_OVERLAP, a, e, why);
		goto out;
	}
	if (hit == NULL) {
		why = range_refusal(a, e);
		if (why != NULL) {
			stay(STAY_MAPPING, a, e, why);
			goto out;
		}
		hit = move_range(a, e, &why);
		if (hit == NULL) {
			stay(STAY_KERNEL, a, e, why);
			goto out;
		}
	} else {
		hit->refs++;
	}
	*pages = hit;
	share->fd = hit->fd;
	share->ino = hit->ino;
	share->dev = hit->dev;
	share->addr = a;
	share->len = e - a;
	share->off = a - hit->a;
out:
	pthread_mutex_unlock(&moved_lock);
	return DOCA_SUCCESS;
}
