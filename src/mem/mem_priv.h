/*
 * mem_priv.h - mmap and inventory objects (src/mem only). struct doca_buf
 * itself is the contract's (sd_mem.h).
 */
#ifndef SD_MEM_PRIV_H_
#define SD_MEM_PRIV_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_mmap.h>

#include "sd_mem.h"

struct sd_remote;

/* Private doca_buf flag: the buffer is chained behind another one (not a head). */
#define SD_BUF_CHAINED_ (1u << 1)

enum sd_mmap_kind {
	SD_MMAP_LOCAL = 0,  /* memory of this process */
	SD_MMAP_REMOTE = 1, /* created from another side's export */
};

#define SD_MMAP_DEFAULT_MAX_DEVS 16

struct doca_mmap {
	enum sd_mmap_kind kind;
	bool started;
	bool ever_started;  /* the free callback runs only for an mmap that was started */
	bool range_set;
	uint8_t *addr;
	size_t len;
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

struct doca_buf_inventory {
	struct doca_buf *elems;
	uint32_t num;
	uint32_t nfree;
	struct doca_buf *free_head;
	bool started;
	union doca_data user_data;
};

/* Return one descriptor (not its chain) to its inventory. */
void sd_inv_put(struct doca_buf *buf);

#endif /* SD_MEM_PRIV_H_ */
