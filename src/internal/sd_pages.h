/*
 * sd_pages.h - put the whole pages of a range of this process on shared
 * memory in place, so that another process can map them.
 *
 * sd_pages_share() copies the whole pages inside [addr, addr + len) onto a
 * sealed memfd (it cannot shrink or grow) and maps it MAP_SHARED|MAP_FIXED
 * over the same addresses: pointers and content stay as they were. A range
 * whose pages were already moved (by an earlier call that still holds them)
 * shares that memfd. The page fragments at either end are not moved.
 *
 * It is best effort: pages stay where they are (SUCCESS, *pages NULL, the
 * reason said once per reason at INFO, else DEBUG) when the range has no
 * whole page, is not ordinary private anonymous read-write memory (stack,
 * file-backed, locked, hugetlb, DONTFORK, userfaultfd, sealed...), overlaps
 * another move only in part, the kernel refuses, or
 * SOFTDOCA_REMOTE_NO_MOVE=1. Only a junk SOFTDOCA_REMOTE_NO_MOVE is an error
 * (INVALID_VALUE, logged).
 *
 * What it costs the program: the moved pages are shared memory from then on
 * (a fork shares them instead of copying on write; madvise(MADV_DONTNEED)
 * keeps their content). The caller must not race writes to the range with
 * the call itself: a store between the copy and the remap is lost.
 *
 * sd_pages_put() drops one hold; the last one closes the memfd (the pages
 * stay mapped in the program).
 *
 * Threading: both calls are thread-safe (one process-wide lock; they are
 * rare: once per export).
 *
 * Implemented in src/fabric/page_move.c.
 */
#ifndef SD_PAGES_H_
#define SD_PAGES_H_

#include "sd_abi.h"

#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

/* Descriptor numbers above this are not ours to name in a record. */
#define SD_PAGES_FD_MAX (1 << 20)

/* Where the moved pages are: fd (this process's number) at offset off
 * holds the whole pages [addr, addr + len); ino/dev identify the memfd. */
struct sd_pages_share {
	int fd;
	uint64_t ino, dev;
	uint64_t addr, len, off;
};

struct sd_pages;

doca_error_t sd_pages_share(uintptr_t addr, size_t len, struct sd_pages **pages, struct sd_pages_share *share);
void sd_pages_put(struct sd_pages *pages);
size_t sd_page_size(void);

#endif /* SD_PAGES_H_ */
