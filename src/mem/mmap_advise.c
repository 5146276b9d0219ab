/*
 * mmap_advise.c - the DOCA mmap advise context and its invalidate-cache task.
 *
 * On a BlueField the task drops the CPU's cached copy of memory that a DMA
 * engine (or the peer over PCIe) wrote behind the CPU's back, so that the
 * next CPU read sees the device's data. Here every writer is a CPU thread
 * (the DMA engine thread, process_vm_writev for remote DMA) and the CPU
 * caches are coherent: no cache line can be stale, so there is nothing to
 * invalidate. The task still checks its buffer as the card does (a started
 * mmap that has the context's device, local memory, within the size limit)
 * and then completes successfully. The fence before the completion is not
 * needed for coherence; it keeps the promise that the program's later reads
 * are ordered after everything the device wrote before it submitted.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <doca_buf.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap_advise.h>
#include <doca_pe.h>

#include "sd_ctx.h"
#include "sd_dev.h"
#include "sd_log.h"
#include "sd_mem.h"

SD_LOG_REGISTER(MMAP_ADVISE);

struct doca_mmap_advise_task_invalidate_cache {
	struct doca_task task; /* first: the core's view */
	struct doca_buf *buf;
};

struct doca_mmap_advise {
	struct doca_ctx ctx;   /* first: doca_mmap_advise_as_ctx() is a cast */
	struct doca_dev *dev;
	const struct sd_caps *caps;
	struct sd_task_class inval_cls;
	doca_mmap_advise_task_invalidate_cache_completion_cb_t ok_cb;
	doca_mmap_advise_task_invalidate_cache_completion_cb_t err_cb;
};

static struct doca_mmap_advise *to_advise(struct doca_ctx *ctx)
{
	return (struct doca_mmap_advise *)ctx;
}

static struct doca_mmap_advise_task_invalidate_cache *to_inval(struct doca_task *task)
{
	return (struct doca_mmap_advise_task_invalidate_cache *)task;
}

/* ---- capabilities ---- */

static doca_error_t advise_caps(const struct doca_devinfo *devinfo, const struct sd_caps **caps)
{
	if (devinfo == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*caps = sd_devinfo_caps(devinfo);
	if (*caps == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	/* the topology's mmap_cache_invalidate_supported (default true) */
	return (*caps)->mmap_cache_invalidate_supported ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_mmap_advise_cap_task_cache_invalidate_is_supported(const struct doca_devinfo *devinfo)
{
	const struct sd_caps *caps;

	return advise_caps(devinfo, &caps);
}

/* A buffer lies in one mmap, so the mmap size limit is the buffer limit. */
doca_error_t doca_mmap_advise_task_cache_invalidate_get_max_buf_size(const struct doca_devinfo *devinfo,
								     uint64_t *buf_size)
{
	const struct sd_caps *caps;
	doca_error_t rc;

	if (buf_size == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	rc = advise_caps(devinfo, &caps);
	if (rc != DOCA_SUCCESS)
		return rc;
	*buf_size = caps->mmap_max_size;
	return DOCA_SUCCESS;
}

/* ---- the task ---- */

static doca_error_t check_buf(const struct doca_mmap_advise *adv, const struct doca_buf *head)
{
	const struct doca_buf *b;
	uint64_t total = 0;

	for (b = head; b != NULL; b = b->next) {
		if (b->mmap == NULL || !sd_mmap_is_started(b->mmap)) {
			SD_LOG_ERR("Invalidate cache task failed: the buffer's mmap is not started");
			return DOCA_ERROR_INVALID_VALUE;
		}
		if (!sd_mmap_has_dev(b->mmap, adv->dev)) {
			SD_LOG_ERR("Invalidate cache task failed: the buffer's mmap has not the device %s",
				   sd_dev_pci_addr(adv->dev));
			return DOCA_ERROR_INVALID_VALUE;
		}
		if (sd_mmap_remote(b->mmap) != NULL) {
			SD_LOG_ERR("Invalidate cache task failed: the buffer is the peer's memory, not local memory");
			return DOCA_ERROR_INVALID_VALUE;
		}
		if (b->addr == NULL || !sd_mmap_contains(b->mmap, b->addr, b->len)) {
			SD_LOG_ERR("Invalidate cache task failed: buffer %p+%zu is outside its mmap", (void *)b->addr,
				   b->len);
			return DOCA_ERROR_INVALID_VALUE;
		}
		total += b->len;
	}
	if (total > adv->caps->mmap_max_size) {
		SD_LOG_ERR("Invalidate cache task failed: %" PRIu64 " bytes exceed the maximum of %" PRIu64, total,
			   adv->caps->mmap_max_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t inval_submit(struct doca_task *task)
{
	struct doca_mmap_advise_task_invalidate_cache *t = to_inval(task);
	struct doca_mmap_advise *adv = to_advise(task->cls->ctx);
	doca_error_t status;

	if (t->buf == NULL) {
		SD_LOG_ERR("Failed to submit invalidate cache task: buffer is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	status = check_buf(adv, t->buf);
	if (status == DOCA_SUCCESS)
		atomic_thread_fence(memory_order_seq_cst);
	/* Done now; the callback runs from the next doca_pe_progress. */
	sd_task_complete(task, status);
	return DOCA_SUCCESS;
}

static void inval_deliver(struct doca_task *task)
{
	struct doca_mmap_advise *adv = to_advise(task->cls->ctx);

	if (task->status == DOCA_SUCCESS)
		adv->ok_cb(to_inval(task), task->user_data, adv->ctx.user_data);
	else
		adv->err_cb(to_inval(task), task->user_data, adv->ctx.user_data);
}

static const struct sd_task_class_ops inval_ops = {
	.submit = inval_submit,
	.deliver = inval_deliver,
};

/* ---- the context ---- */

static doca_error_t advise_start(struct doca_ctx *ctx)
{
	struct doca_mmap_advise *adv = to_advise(ctx);

	if (!adv->inval_cls.configured) {
		SD_LOG_ERR("Failed to start mmap advise: no task type configured "
			   "(doca_mmap_advise_task_invalidate_cache_set_conf)");
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

/* Tasks never wait inside this context (they complete in submit), so a stop
 * has nothing to flush: the core reaches IDLE once their callbacks ran. */
static const struct sd_ctx_ops advise_ctx_ops = {
	.start = advise_start,
	.stop = NULL,
	.progress = NULL,
};

doca_error_t doca_mmap_advise_create(struct doca_dev *dev, struct doca_mmap_advise **mmap_advise)
{
	struct doca_mmap_advise *adv;
	const struct sd_caps *caps;

	if (dev == NULL || mmap_advise == NULL) {
		SD_LOG_ERR("Failed to create mmap advise: %s is NULL", dev == NULL ? "dev" : "mmap_advise");
		return DOCA_ERROR_INVALID_VALUE;
	}
	caps = sd_dev_caps(dev);
	if (caps == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	adv = calloc(1, sizeof(*adv));
	if (adv == NULL) {
		SD_LOG_ERR("Failed to allocate mmap advise");
		return DOCA_ERROR_NO_MEMORY;
	}
	adv->dev = dev;
	adv->caps = caps;
	sd_ctx_init(&adv->ctx, &advise_ctx_ops, "mmap_advise");
	sd_task_class_init(&adv->inval_cls, &adv->ctx, &inval_ops, "mmap_advise_invalidate_cache",
			   sizeof(struct doca_mmap_advise_task_invalidate_cache));
	sd_dev_get(dev);
	*mmap_advise = adv;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_advise_destroy(struct doca_mmap_advise *mmap_advise)
{
	doca_error_t rc;

	if (mmap_advise == NULL) {
		SD_LOG_ERR("Failed to destroy mmap advise: mmap_advise is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	rc = sd_ctx_fini(&mmap_advise->ctx);
	if (rc != DOCA_SUCCESS)
		return rc;
	sd_dev_put(mmap_advise->dev);
	free(mmap_advise);
	return DOCA_SUCCESS;
}

struct doca_ctx *doca_mmap_advise_as_ctx(struct doca_mmap_advise *mmap_advise)
{
	return mmap_advise == NULL ? NULL : &mmap_advise->ctx;
}

doca_error_t doca_mmap_advise_task_invalidate_cache_set_conf(
	struct doca_mmap_advise *mmap_advise, doca_mmap_advise_task_invalidate_cache_completion_cb_t completion_cb,
	doca_mmap_advise_task_invalidate_cache_completion_cb_t error_cb, uint32_t num_tasks)
{
	doca_error_t rc;

	if (mmap_advise == NULL || completion_cb == NULL || error_cb == NULL) {
		SD_LOG_ERR("Failed to configure invalidate cache task: %s is NULL",
			   mmap_advise == NULL ? "mmap_advise" :
			   completion_cb == NULL ? "completion callback" : "error callback");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (mmap_advise->ctx.state != DOCA_CTX_STATE_IDLE) {
		SD_LOG_ERR("Failed to configure invalidate cache task: context is not idle");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (num_tasks == 0) {
		SD_LOG_ERR("Failed to configure invalidate cache task: number of tasks is 0");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!mmap_advise->caps->mmap_cache_invalidate_supported) {
		SD_LOG_ERR("Failed to configure invalidate cache task: device %s does not support it",
			   sd_dev_pci_addr(mmap_advise->dev));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	rc = sd_task_class_conf(&mmap_advise->inval_cls, num_tasks);
	if (rc != DOCA_SUCCESS)
		return rc;
	mmap_advise->ok_cb = completion_cb;
	mmap_advise->err_cb = error_cb;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_advise_task_invalidate_cache_alloc_init(struct doca_mmap_advise *mmap_advise,
							       struct doca_buf *buf, union doca_data user_data,
							       struct doca_mmap_advise_task_invalidate_cache **task)
{
	struct doca_task *t;
	doca_error_t rc;

	if (mmap_advise == NULL || task == NULL) {
		SD_LOG_ERR("Failed to allocate invalidate cache task: %s is NULL",
			   mmap_advise == NULL ? "mmap_advise" : "task");
		return DOCA_ERROR_INVALID_VALUE;
	}
	rc = sd_task_alloc(&mmap_advise->inval_cls, &t);
	if (rc != DOCA_SUCCESS) {
		if (rc == DOCA_ERROR_NO_MEMORY)
			SD_LOG_ERR("Failed to allocate invalidate cache task: no more tasks in the pool");
		return rc;
	}
	to_inval(t)->buf = buf;
	t->user_data = user_data;
	*task = to_inval(t);
	return DOCA_SUCCESS;
}

struct doca_task *doca_mmap_advise_task_invalidate_cache_as_doca_task(
	struct doca_mmap_advise_task_invalidate_cache *task)
{
	return task == NULL ? NULL : &task->task;
}

void doca_mmap_advise_task_invalidate_cache_set_buf(struct doca_mmap_advise_task_invalidate_cache *task,
						    struct doca_buf *buf)
{
	if (task == NULL) {
		SD_LOG_ERR("Failed to set invalidate cache task buffer: task is NULL");
		return;
	}
	if (task->task.state != SD_TASK_ALLOCATED) {
		SD_LOG_ERR("Failed to set invalidate cache task buffer: task is submitted");
		return;
	}
	task->buf = buf;
}

struct doca_buf *doca_mmap_advise_task_invalidate_cache_get_buf(
	const struct doca_mmap_advise_task_invalidate_cache *task)
{
	return task == NULL ? NULL : task->buf;
}
