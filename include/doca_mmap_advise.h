/*
 * doca_mmap_advise.h - DOCA mmap advise: tell the device about memory, e.g.
 * invalidate the CPU cache lines of a buffer that a DMA engine wrote.
 *
 * Model: a struct doca_mmap_advise is a DOCA context (doca_mmap_advise_as_ctx)
 * opened on one device. It offers one task type, invalidate-cache: after it
 * completes successfully, the CPU reads the buffer's memory as the device
 * last wrote it. The buffer must lie inside a started mmap that has the
 * context's device.
 *
 * In softdoca the DMA engine is itself a CPU thread and CPU caches are
 * coherent, so there is nothing stale to drop: the task checks the buffer as
 * the card would and completes successfully (a failed check fails the task
 * with DOCA_ERROR_INVALID_VALUE through the error callback).
 *
 * Call order:
 *     doca_mmap_advise_cap_task_cache_invalidate_is_supported(devinfo)
 *     doca_mmap_advise_create(dev, &advise)
 *     doca_mmap_advise_task_invalidate_cache_set_conf(advise, ok_cb, err_cb, num_tasks)
 *     doca_pe_connect_ctx(pe, doca_mmap_advise_as_ctx(advise)); doca_ctx_start(...)
 *     doca_mmap_advise_task_invalidate_cache_alloc_init(advise, buf, user_data, &task)
 *     doca_task_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(task))
 *     ... doca_pe_progress(pe) calls ok_cb or err_cb ...
 *     doca_task_free(...); doca_ctx_stop(...); doca_mmap_advise_destroy(advise)
 *
 * Threading: the context and its tasks are used from the thread that
 * progresses its PE; callbacks run from doca_pe_progress on that thread.
 */
#ifndef DOCA_MMAP_ADVISE_H_
#define DOCA_MMAP_ADVISE_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;
struct doca_dev;
struct doca_devinfo;
struct doca_mmap_advise;
struct doca_buf;
struct doca_task;

struct doca_mmap_advise_task_invalidate_cache;

/* Completion (success or error) callback of an invalidate-cache task. */
typedef void (*doca_mmap_advise_task_invalidate_cache_completion_cb_t)(
	struct doca_mmap_advise_task_invalidate_cache *task,
	union doca_data task_user_data,
	union doca_data ctx_user_data);

/* Create an mmap advise context on an opened device. */
DOCA_EXPERIMENTAL
doca_error_t doca_mmap_advise_create(struct doca_dev *dev, struct doca_mmap_advise **mmap_advise);

/* Destroy an idle mmap advise context. */
DOCA_EXPERIMENTAL
doca_error_t doca_mmap_advise_destroy(struct doca_mmap_advise *mmap_advise);

/* The context view (NULL for NULL). */
DOCA_EXPERIMENTAL
struct doca_ctx *doca_mmap_advise_as_ctx(struct doca_mmap_advise *mmap_advise);

/* DOCA_SUCCESS if the device can run invalidate-cache tasks, NOT_SUPPORTED if not. */
DOCA_EXPERIMENTAL
doca_error_t doca_mmap_advise_cap_task_cache_invalidate_is_supported(const struct doca_devinfo *devinfo);

/* Largest buffer (bytes) one invalidate-cache task may cover. */
DOCA_EXPERIMENTAL
doca_error_t doca_mmap_advise_task_cache_invalidate_get_max_buf_size(const struct doca_devinfo *devinfo,
								     uint64_t *buf_size);

/* Callbacks and pool size of the invalidate-cache task type. NOT_PERMITTED
 * unless the context is idle. */
DOCA_EXPERIMENTAL
doca_error_t doca_mmap_advise_task_invalidate_cache_set_conf(
	struct doca_mmap_advise *mmap_advise,
	doca_mmap_advise_task_invalidate_cache_completion_cb_t completion_cb,
	doca_mmap_advise_task_invalidate_cache_completion_cb_t error_cb,
	uint32_t num_tasks);

/* Take a task from the pool (context running) and name its buffer. */
DOCA_EXPERIMENTAL
doca_error_t doca_mmap_advise_task_invalidate_cache_alloc_init(struct doca_mmap_advise *mmap_advise,
							       struct doca_buf *buf,
							       union doca_data user_data,
							       struct doca_mmap_advise_task_invalidate_cache **task);

/* The generic task view (submit, free, status). */
DOCA_EXPERIMENTAL
struct doca_task *doca_mmap_advise_task_invalidate_cache_as_doca_task(
	struct doca_mmap_advise_task_invalidate_cache *task);

/* The buffer of a task that is not submitted. */
DOCA_EXPERIMENTAL
void doca_mmap_advise_task_invalidate_cache_set_buf(struct doca_mmap_advise_task_invalidate_cache *task,
						    struct doca_buf *buf);

DOCA_EXPERIMENTAL
struct doca_buf *doca_mmap_advise_task_invalidate_cache_get_buf(
	const struct doca_mmap_advise_task_invalidate_cache *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_MMAP_ADVISE_H_ */
