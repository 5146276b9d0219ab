/*
 * sd_mem.h - memory maps and buffers as the data-path libraries see them.
 *
 * A doca_buf describes [addr, addr+len) inside a started mmap, with a data
 * segment [data, data+data_len) inside it. Buffers may be chained (list of
 * segments); the head holds the chain length. The layout is exposed here so
 * that the DMA and Comch fast paths read fields without calls.
 *
 * Ownership: while a task that names a buffer is submitted, the context owns
 * the buffer (the user must not touch it); the data path may write the
 * destination's data_len. Everything else goes through the public API.
 *
 * Implemented in src/mem/.
 */
#ifndef SD_MEM_H_
#define SD_MEM_H_

#include "sd_abi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

struct doca_mmap;
struct doca_dev;
struct doca_buf_inventory;

struct doca_buf {
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	uint8_t *addr;           /* start of the buffer */
	size_t len;              /* length of the buffer */
	uint8_t *data;           /* start of the data segment, addr <= data */
	size_t data_len;         /* data + data_len <= addr + len */
	struct doca_buf *next;   /* next segment of the chain, NULL at the end */
	struct doca_buf *last;   /* valid on the head only: last segment */
	uint32_t list_len;       /* valid on the head only: segments in the chain */
	uint16_t refcount;
	uint16_t flags;          /* SD_BUF_* */
	struct doca_buf *free_next; /* inventory free list link */
};

#define SD_BUF_IN_USE (1u << 0) /* handed out by its inventory */

/*
 * The head of every doca_mmap, for checks the data path makes per task
 * without a call: the registered range (the exporter's addresses for a
 * from-export mmap) and start_id, non-zero exactly while the mmap is
 * started, different for every start in this process (and for every
 * from-export mmap). Nothing that decides whether a device may use the mmap
 * (range, permissions, devices, kind) changes while it is started, so a
 * verdict reached for one start_id holds as long as the mmap still shows
 * that id: a data path may cache "mmap M with id I is usable as a source
 * for device D" and re-check only when the id differs. Written only by
 * src/mem/mmap.c (start, stop, create from export).
 */
struct sd_mmap_view {
	uint8_t *addr;
	size_t len;
	uint64_t start_id;
};

static inline const struct sd_mmap_view *sd_mmap_view_of(const struct doca_mmap *mmap)
{
	return (const struct sd_mmap_view *)(const void *)mmap;
}

/* sd_mmap_contains of a started mmap, inline: [p, p+n) inside the range. */
static inline bool sd_mmap_view_contains(const struct sd_mmap_view *v, const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p, base = (uintptr_t)v->addr;

	return p != NULL && a >= base && a - base <= v->len && n <= v->len - (a - base);
}

/* mmap queries used by the data path. */
bool sd_mmap_is_started(const struct doca_mmap *mmap);
uint32_t sd_mmap_access(const struct doca_mmap *mmap); /* enum doca_access_flag bits */
bool sd_mmap_has_dev(const struct doca_mmap *mmap, const struct doca_dev *dev);
/* Base and length of the registered range. */
uint8_t *sd_mmap_base(const struct doca_mmap *mmap);
size_t sd_mmap_len(const struct doca_mmap *mmap);
/* Is [p, p+n) inside the mmap's registered range? */
bool sd_mmap_contains(const struct doca_mmap *mmap, const void *p, size_t n);

/* Rights of a device of this process (DMA, Comch, sync events on this side):
 * may it read / write memory of this mmap? The rule is DOCA's and lives in
 * src/mem/mmap.c: a local mmap is always readable, and writable when any of
 * LOCAL_READ_WRITE, PCI_READ_WRITE, RDMA_WRITE, RDMA_ATOMIC is set; a
 * from-export mmap is readable with PCI_READ_ONLY or PCI_READ_WRITE and
 * writable with PCI_READ_WRITE, as the exporter set them. Ask these rather
 * than testing sd_mmap_access bits. */
bool sd_mmap_can_read(const struct doca_mmap *mmap);
bool sd_mmap_can_write(const struct doca_mmap *mmap);

/* The import behind a from-export mmap (doca_mmap_create_from_export), NULL
 * for a local mmap. Addresses of such an mmap (sd_mmap_base, doca_bufs on
 * it) are the exporter's: move bytes with sd_remote_read/write (sd_remote.h),
 * never dereference them. Valid until the mmap is destroyed. */
struct sd_remote;
struct sd_remote *sd_mmap_remote(const struct doca_mmap *mmap);

/* Total data length of a chain (sum of data_len) and free tail space of a
 * chain (for each segment: addr+len - (data+data_len)). */
size_t sd_buf_chain_data_len(const struct doca_buf *head);

#endif /* SD_MEM_H_ */
