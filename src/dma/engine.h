/*
 * engine.h - the seam between the DMA API layer (dma.c) and whatever moves
 * the bytes.
 *
 * The API layer validates calls and owns the task pool; an engine receives
 * submitted memcpy tasks and finishes each with sd_task_complete() on the
 * PE's thread (from its poll or stop hook). Today's engine is a software one
 * (engine_sw.c); another engine (a real device, a different copy strategy)
 * fills the same table.
 *
 * Rules for every engine:
 *   - submit() is called on the PE's thread while the context is RUNNING;
 *     it only queues (execution is asynchronous to the submitter).
 *   - poll() is called from the context's progress hook (RUNNING and
 *     STOPPING), returns how many tasks it finished. It executes a bounded
 *     number of tasks per call. A task whose execution fails is finished
 *     with sd_task_fail() (the context then stops and flushes the rest);
 *     the engine executes nothing more after it.
 *   - stop() starts a flush: every queued task not yet copied completes with
 *     SD_TASK_FLUSHED_STATUS. drained() is true once the engine holds no task
 *     and owns no thread; the API layer then calls sd_ctx_stop_done().
 */
#ifndef SD_DMA_ENGINE_H_
#define SD_DMA_ENGINE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#include "sd_mem.h"

struct doca_dma;
struct doca_dma_task_memcpy;
struct doca_pe;
struct sd_dma_engine;

/* Internal to libdoca_dma: hidden, so calls inside the library skip the PLT. */
#define SD_DMA_INTERNAL __attribute__((visibility("hidden")))

struct sd_dma_engine_ops {
	const char *name;
	doca_error_t (*create)(struct sd_dma_engine **eng, struct doca_dma *dma);
	void (*destroy)(struct sd_dma_engine *eng);
	doca_error_t (*start)(struct sd_dma_engine *eng, struct doca_pe *pe);
	void (*stop)(struct sd_dma_engine *eng);
	bool (*drained)(struct sd_dma_engine *eng);
	doca_error_t (*submit)(struct sd_dma_engine *eng, struct doca_dma_task_memcpy *task);
	int (*poll)(struct sd_dma_engine *eng);
	/* Tasks accepted and not yet executed (the next poll has work). */
	bool (*has_work)(const struct sd_dma_engine *eng);
	/* Optional, PE thread: where the tasks it holds are, for the
	 * stuck-program warning (one clause, no trailing period). */
	void (*describe)(const struct sd_dma_engine *eng, char *buf, size_t cap);
};

SD_DMA_INTERNAL extern const struct sd_dma_engine_ops sd_dma_sw_engine;

/* The last mmaps found usable as source / destination by this context's
 * device, with the start they were checked in (sd_mmap_view's start_id):
 * the verdict holds while the mmap shows the same id, since nothing it
 * depends on changes while an mmap is started, and an mmap stopped (or
 * destroyed and another one created at its address) shows another id. An
 * engine may keep it across polls; zero it when the context starts. */
struct sd_dma_check_cache {
	const struct doca_mmap *src_ok;
	const struct doca_mmap *dst_ok;
	uint64_t src_ok_id;
	uint64_t dst_ok_id;
	bool src_ok_remote; /* src_ok / dst_ok is a from-export mmap */
	bool dst_ok_remote;
};

/* Does the cache vouch for m (non-NULL, checked in its current start)? */
static inline bool sd_dma_cache_hit(const struct doca_mmap *cached, uint64_t cached_id, const struct doca_mmap *m)
{
	return m != NULL && m == cached && sd_mmap_view_of(m)->start_id == cached_id;
}

/* Task buffers in remote memory (a from-export mmap): the bytes cross to
 * the other side of the card through sd_remote_read/write (system calls). */
#define SD_DMA_SRC_REMOTE (1u << 0)
#define SD_DMA_DST_REMOTE (1u << 1)

/* Provided by the API layer for engines: check a submitted task's buffers
 * against their mmaps and the device limits; returns the byte count through
 * *total and sets task->eng_remote. DOCA_SUCCESS or the status the task must
 * fail with (logged). A task whose source and destination are both remote
 * fails (DMA moves bytes between local memory and local or remote memory).
 * cache may be NULL. */
SD_DMA_INTERNAL doca_error_t sd_dma_task_check(struct doca_dma_task_memcpy *task, struct sd_dma_check_cache *cache,
					       size_t *total);
/* Copy a checked task (source data segments into destination free space)
 * and update destination data lengths. Safe off the PE's thread. If abort is
 * non-NULL it is polled between chunks. Returns DOCA_SUCCESS, DOCA_ERROR_AGAIN
 * if aborted, or the failure (logged; a remote access that failed, e.g. the
 * exporter died). Destination lengths are untouched unless it succeeded. */
SD_DMA_INTERNAL doca_error_t sd_dma_task_copy(struct doca_dma_task_memcpy *task, const volatile int *abort);

#endif /* SD_DMA_ENGINE_H_ */
