/*
 * mem_priv.h - mmap, inventory and buffer pool objects (src/mem only).
 * struct doca_buf itself is the contract's (sd_mem.h).
 *
 * Counting: a buffer on a local mmap counts in the mmap's nbufs from get to
 * release, so that stop/destroy can refuse while memory is described. A
 * thread-safe mmap (doca_mmap_enable_thread_safety) counts nothing, as DOCA
 * documents, and its buffers are taken from and returned to their inventory
 * under the inventory's lock. A started buffer pool counts all of its
 * elements at once (they describe the mmap's memory until the pool stops).
 */
#ifndef SD_MEM_PRIV_H_
#define SD_MEM_PRIV_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_mmap.h>

#include "sd_mem.h"

struct sd_remote;

/* Private doca_buf flags. */
#define SD_BUF_CHAINED_ (1u << 1)   /* chained behind another buffer (not a head) */
#define SD_BUF_UNCOUNTED_ (1u << 2) /* not counted in its mmap's nbufs */
#define SD_BUF_LOCKED_ (1u << 3)    /* goes back to its inventory under the lock */

enum sd_mmap_kind {
	SD_MMAP_LOCAL = 0,  /* memory of this process */
	SD_MMAP_REMOTE = 1, /* created from another side's export */
};

#define SD_MMAP_DEFAULT_MAX_DEVS 16

struct doca_mmap {
	/* First, laid out as struct sd_mmap_view (sd_mem.h), which the data
	 * path reads inline; named here as the fields they always were. */
	union {
		struct sd_mmap_view view;
		struct {
			uint8_t *addr;
			size_t len;
			uint64_t start_id; /* sd_mmap_view: 0 unless started */
		};
	};
	enum sd_mmap_kind kind;
	bool started;
	bool ever_started;  /* the free callback runs only for an mmap that was started */
	bool range_set;
	bool thread_safe;   /* doca_mmap_enable_thread_safety: no buffer counting */
	uint32_t access;
	struct doca_dev **devs;
	uint32_t ndevs;
	uint32_t max_devs;
	union doca_data user_data;
	doca_mmap_memrange_free_cb_t *free_cb;
	void *free_opaque;
	atomic_uint nbufs; /* buffers describing this mmap's memory */
	struct sd_remote *remote; /* SD_MMAP_REMOTE: the import (its range is the exporter's) */
	void **exports;           /* descriptors handed out by doca_mmap_export_pci */
	uint32_t nexports;
};

/* Descriptors are allocated in chunks (create, then each expand) and never
 * move, since buffers handed out point into them. */
struct sd_inv_chunk {
	struct sd_inv_chunk *next;
	uint32_t n;
	struct doca_buf elems[];
};

struct doca_buf_inventory {
	struct sd_inv_chunk *chunks;
	uint32_t num;
	uint32_t nfree;
	struct doca_buf *free_head;
	bool started;
	union doca_data user_data;
	/* Taken around the free list for buffers of thread-safe mmaps (and by
	 * expand and the counters); other use is single-threaded, as in DOCA. */
	pthread_mutex_t lock;
};

/* An inventory's descriptors (for objects that embed one, like the pool). */
doca_error_t sd_inv_init(struct doca_buf_inventory *inv, uint32_t num);
void sd_inv_fini(struct doca_buf_inventory *inv);
/* Take a free descriptor (NULL when empty); lock: take the inventory lock. */
struct doca_buf *sd_inv_take(struct doca_buf_inventory *inv, bool lock);

/* Return one descriptor (not its chain) to its inventory. */
void sd_inv_put(struct doca_buf *buf);

#endif /* SD_MEM_PRIV_H_ */
