/*
 * doca_dma.h - DOCA DMA: copy memory between DOCA buffers.
 *
 * Model: a struct doca_dma is a DOCA context (doca_dma_as_ctx) opened on one
 * device. It offers one task type, memcpy: copy the data segments of a source
 * buffer (or chain) into the free space of a destination buffer (or chain),
 * i.e. from data + data_len to the end of each destination segment. On
 * success the data length of every destination segment that received bytes
 * grows by what was written into it. In softdoca the copy is done by a
 * software engine (small copies from doca_pe_progress, a bounded number per
 * call, large ones by an engine thread); the API behaves as on the card,
 * including a program that sleeps on the PE's notification handle.
 *
 * Call order:
 *     doca_dma_cap_task_memcpy_is_supported(devinfo)     (optional check)
 *     doca_dma_create(dev, &dma)
 *     doca_dma_task_memcpy_set_conf(dma, ok_cb, err_cb, num_tasks)
 *     doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma))
 *     doca_ctx_start(doca_dma_as_ctx(dma))
 *     doca_dma_task_memcpy_alloc_init(dma, src, dst, user_data, &task)
 *     doca_task_submit(doca_dma_task_memcpy_as_task(task))
 *     ... doca_pe_progress(pe) calls ok_cb or err_cb ...
 *     doca_task_free(...); doca_ctx_stop(...); doca_dma_destroy(dma)
 *
 * Failures: a task without a source or destination is refused by
 * doca_task_submit with DOCA_ERROR_INVALID_VALUE. doca_task_submit does not
 * validate further (as DOCA documents); doca_task_try_submit refuses with
 * DOCA_ERROR_INVALID_VALUE every task that would fail: a chain longer than
 * the device's max buffer-list length, a source holding no data, a
 * destination without free space, a total above the max buffer size, a
 * destination too small, a buffer outside its mmap, an mmap that is not
 * started, has not the DMA device, or lacks the read/write permission. Such
 * a task submitted with doca_task_submit fails at execution: its error
 * callback runs with doca_task_get_status() == DOCA_ERROR_INVALID_VALUE,
 * nothing is written, and the context then moves to STOPPING, flushing the
 * tasks behind it (the card's behaviour on a failed task). Tasks not yet
 * executed when the context is stopped are flushed through the error
 * callback (DOCA_ERROR_IO_FAILED).
 *
 * Threading: a DMA context and its tasks are used from the thread that
 * progresses its PE; callbacks run from doca_pe_progress on that thread.
 */
#ifndef DOCA_DMA_H_
#define DOCA_DMA_H_

#include <inttypes.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>
#include <doca_buf.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_pe.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_dma;
struct doca_dma_task_memcpy;
struct doca_gpu_dma;

/* Completion (success or error) callback of a memcpy task. */
typedef void (*doca_dma_task_memcpy_completion_cb_t)(struct doca_dma_task_memcpy *task,
						     union doca_data task_user_data,
						     union doca_data ctx_user_data);

/* Create a DMA context on an opened device. NOT_SUPPORTED if the device has
 * no DMA memcpy capability. */
DOCA_STABLE doca_error_t doca_dma_create(struct doca_dev *dev, struct doca_dma **dma);

/* Destroy an idle DMA context. DOCA_ERROR_IN_USE unless it is IDLE (stopped,
 * every task freed); DOCA_ERROR_INVALID_VALUE for NULL. */
DOCA_STABLE doca_error_t doca_dma_destroy(struct doca_dma *dma);

/* The context view of a DMA instance (NULL for NULL). */
DOCA_STABLE struct doca_ctx *doca_dma_as_ctx(struct doca_dma *dma);

/* Maximum number of tasks a DMA context of this device can hold. */
DOCA_STABLE doca_error_t doca_dma_cap_get_max_num_tasks(struct doca_dma *dma, uint32_t *max_num_tasks);

/* DOCA_SUCCESS if the device supports the memcpy task, NOT_SUPPORTED if not. */
DOCA_STABLE doca_error_t doca_dma_cap_task_memcpy_is_supported(const struct doca_devinfo *devinfo);

/* Maximum total bytes one memcpy task may copy. */
DOCA_STABLE doca_error_t doca_dma_cap_task_memcpy_get_max_buf_size(const struct doca_devinfo *devinfo,
								   uint64_t *buf_size);

/* Maximum number of segments in a source or destination chain. */
DOCA_STABLE doca_error_t doca_dma_cap_task_memcpy_get_max_buf_list_len(const struct doca_devinfo *devinfo,
								       uint32_t *max_buf_list_len);

/* Configure the memcpy task type: callbacks and pool size (idle only). */
DOCA_STABLE doca_error_t doca_dma_task_memcpy_set_conf(struct doca_dma *dma,
						       doca_dma_task_memcpy_completion_cb_t task_completion_cb,
						       doca_dma_task_memcpy_completion_cb_t task_error_cb,
						       uint32_t num_memcpy_tasks);

/* Take a task from the pool (context running) and set its buffers. */
DOCA_STABLE doca_error_t doca_dma_task_memcpy_alloc_init(struct doca_dma *dma, const struct doca_buf *src,
							 struct doca_buf *dst, union doca_data user_data,
							 struct doca_dma_task_memcpy **task);

/* The generic task view (submit, free, status). */
DOCA_STABLE struct doca_task *doca_dma_task_memcpy_as_task(struct doca_dma_task_memcpy *task);

/* Buffers of a task that is not submitted. */
DOCA_STABLE void doca_dma_task_memcpy_set_src(struct doca_dma_task_memcpy *task, const struct doca_buf *src);
DOCA_STABLE const struct doca_buf *doca_dma_task_memcpy_get_src(const struct doca_dma_task_memcpy *task);
DOCA_STABLE void doca_dma_task_memcpy_set_dst(struct doca_dma_task_memcpy *task, struct doca_buf *dst);
DOCA_STABLE struct doca_buf *doca_dma_task_memcpy_get_dst(const struct doca_dma_task_memcpy *task);

/* GPU data path: no GPU is emulated, always NOT_SUPPORTED. */
DOCA_EXPERIMENTAL doca_error_t doca_dma_get_gpu_handle(struct doca_dma *dma, struct doca_gpu_dma **gpu_dma);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DMA_H_ */
