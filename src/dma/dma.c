/*
 * dma.c - the DOCA DMA API layer: object, capabilities, memcpy task type,
 * argument checks. The bytes are moved by the engine behind engine.h.
 * Buffers of an mmap created from an export (the other side's memory) carry
 * the exporter's addresses; the copy reaches them through sd_remote.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dma_priv.h"
#include "sd_fault.h"
#include "sd_log.h"
#include "sd_remote.h"

SD_LOG_REGISTER(DMA);

/* Copies are split in chunks of this size when they may be aborted. */
#define SD_DMA_ABORT_CHUNK (1u << 20)

static doca_error_t dma_ctx_start(struct doca_ctx *ctx);
static void dma_ctx_stop(struct doca_ctx *ctx);
static int dma_ctx_progress(struct doca_ctx *ctx);
static bool dma_ctx_has_work(const struct doca_ctx *ctx);
static bool dma_ctx_describe_wait(const struct doca_ctx *ctx, uint64_t waited_ms, char *buf, size_t cap);

static const struct sd_ctx_ops dma_ctx_ops = {
	.start = dma_ctx_start,
	.stop = dma_ctx_stop,
	.progress = dma_ctx_progress,
	.has_work = dma_ctx_has_work,
	.describe_wait = dma_ctx_describe_wait,
};

static doca_error_t memcpy_submit(struct doca_task *task);
static void memcpy_deliver(struct doca_task *task);
static doca_error_t memcpy_validate(struct doca_task *task);

static const struct sd_task_class_ops memcpy_ops = {
	.submit = memcpy_submit,
	.deliver = memcpy_deliver,
	.validate = memcpy_validate,
};

/* ---- capabilities ---- */

/* The caps of a device for memcpy tasks: what every memcpy capability
 * query checks first. */
static doca_error_t memcpy_caps(const struct doca_devinfo *devinfo, const struct sd_caps **caps)
{
	if (devinfo == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*caps = sd_devinfo_caps(devinfo);
	if (*caps == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return (*caps)->dma_memcpy_supported ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_dma_cap_task_memcpy_is_supported(const struct doca_devinfo *devinfo)
{
	const struct sd_caps *caps;

	return memcpy_caps(devinfo, &caps);
}

doca_error_t doca_dma_cap_task_memcpy_get_max_buf_size(const struct doca_devinfo *devinfo, uint64_t *buf_size)
{
	const struct sd_caps *caps;
	doca_error_t res;

	if (buf_size == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	res = memcpy_caps(devinfo, &caps);
	if (res != DOCA_SUCCESS)
		return res;
	*buf_size = caps->dma_max_buf_size;
	return DOCA_SUCCESS;
}

doca_error_t doca_dma_cap_task_memcpy_get_max_buf_list_len(const struct doca_devinfo *devinfo,
							   uint32_t *max_buf_list_len)
{
	const struct sd_caps *caps;
	doca_error_t res;

	if (max_buf_list_len == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	res = memcpy_caps(devinfo, &caps);
	if (res != DOCA_SUCCESS)
		return res;
	*max_buf_list_len = caps->dma_max_buf_list_len;
	return DOCA_SUCCESS;
}

doca_error_t doca_dma_cap_get_max_num_tasks(struct doca_dma *dma, uint32_t *max_num_tasks)
{
	if (dma == NULL || max_num_tasks == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*max_num_tasks = dma->caps->dma_max_tasks;
	return DOCA_SUCCESS;
}

/* ---- object ---- */

doca_error_t doca_dma_create(struct doca_dev *dev, struct doca_dma **dma)
{
	const struct sd_caps *caps;
	struct doca_dma *d;
	doca_error_t err;

	if (dev == NULL || dma == NULL) {
		SD_LOG_ERR("Failed to create DMA: %s is NULL", dev == NULL ? "dev" : "dma");
		return DOCA_ERROR_INVALID_VALUE;
	}
	caps = sd_dev_caps(dev);
	if (caps == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!caps->dma_memcpy_supported) {
		SD_LOG_ERR("Failed to create DMA: device %s does not support DMA", sd_dev_pci_addr(dev));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	err = sd_fault_setup(); /* a malformed SOFTDOCA_FAULTS refuses to run unfaulted */
	if (err != DOCA_SUCCESS)
		return err;
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return DOCA_ERROR_NO_MEMORY;
	d->dev = dev;
	d->caps = caps;
	d->eng_ops = &sd_dma_sw_engine;
	err = d->eng_ops->create(&d->eng, d);
	if (err != DOCA_SUCCESS) {
		SD_LOG_ERR("Failed to create DMA engine %s: %s", d->eng_ops->name, doca_error_get_name(err));
		free(d);
		return err;
	}
	sd_ctx_init(&d->ctx, &dma_ctx_ops, "DMA");
	sd_task_class_init(&d->memcpy_cls, &d->ctx, &memcpy_ops, "dma_memcpy", sizeof(struct doca_dma_task_memcpy));
	sd_dev_get(dev);
	*dma = d;
	return DOCA_SUCCESS;
}

doca_error_t doca_dma_destroy(struct doca_dma *dma)
{
	doca_error_t err;

	if (dma == NULL) {
		SD_LOG_ERR("Failed to destroy DMA: dma is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* DOCA answers IN_USE while the context still works (not idle). */
	err = sd_ctx_fini(&dma->ctx);
	if (err != DOCA_SUCCESS) {
		SD_LOG_ERR("Failed to destroy DMA: context is not idle (stop it and let it reach idle first)");
		return err == DOCA_ERROR_BAD_STATE ? DOCA_ERROR_IN_USE : err;
	}
	dma->eng_ops->destroy(dma->eng);
	sd_dev_put(dma->dev);
	free(dma);
	return DOCA_SUCCESS;
}

struct doca_ctx *doca_dma_as_ctx(struct doca_dma *dma)
{
	return dma == NULL ? NULL : &dma->ctx;
}

doca_error_t doca_dma_get_gpu_handle(struct doca_dma *dma, struct doca_gpu_dma **gpu_dma)
{
	if (dma == NULL || gpu_dma == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_ERROR_NOT_SUPPORTED;
}

/* ---- context hooks ---- */

static doca_error_t dma_ctx_start(struct doca_ctx *ctx)
{
	struct doca_dma *dma = sd_to_dma(ctx);

	if (!dma->memcpy_cls.configured) {
		SD_LOG_ERR("Failed to start DMA: no task type configured (doca_dma_task_memcpy_set_conf)");
		return DOCA_ERROR_BAD_STATE;
	}
	dma->stop_pending = false;
	SD_LOG_DBG("DMA ctx %p: starting on PE %p, device %s, %u memcpy tasks, %s engine", (void *)ctx,
		   (void *)ctx->pe, sd_dev_pci_addr(dma->dev), dma->memcpy_cls.capacity, dma->eng_ops->name);
	return dma->eng_ops->start(dma->eng, ctx->pe);
}

static void dma_stop_if_drained(struct doca_dma *dma)
{
	if (dma->stop_pending && dma->eng_ops->drained(dma->eng)) {
		SD_LOG_DBG("DMA ctx %p: engine drained, stop done", (void *)&dma->ctx);
		dma->stop_pending = false;
		sd_ctx_stop_done(&dma->ctx);
	}
}

static void dma_ctx_stop(struct doca_ctx *ctx)
{
	struct doca_dma *dma = sd_to_dma(ctx);

	dma->stop_pending = true;
	SD_LOG_DBG("DMA ctx %p: stopping, %u tasks in flight are flushed or finished", (void *)ctx, ctx->inflight);
	dma->eng_ops->stop(dma->eng);
	dma_stop_if_drained(dma);
}

static bool dma_ctx_has_work(const struct doca_ctx *ctx)
{
	const struct doca_dma *dma = (const struct doca_dma *)ctx;

	return dma->eng_ops->has_work(dma->eng);
}

/* The stuck-program warning's sentence: only tasks can keep DMA waiting. */
static bool dma_ctx_describe_wait(const struct doca_ctx *ctx, uint64_t waited_ms, char *buf, size_t cap)
{
	const struct doca_dma *dma = (const struct doca_dma *)ctx;
	char where[320] = "";

	if (ctx->inflight == 0)
		return false;
	if (dma->eng_ops->describe != NULL)
		dma->eng_ops->describe(dma->eng, where, sizeof(where));
	snprintf(buf, cap, "%u DMA tasks in flight on DMA ctx %p for %.1f s, none completed%s%s", ctx->inflight,
		 (const void *)ctx, (double)waited_ms / 1000.0, where[0] != '\0' ? ": " : "", where);
	return true;
}

static int dma_ctx_progress(struct doca_ctx *ctx)
{
	struct doca_dma *dma = sd_to_dma(ctx);
	int n = dma->eng_ops->poll(dma->eng);

	if (dma->stop_pending) {
		dma_stop_if_drained(dma);
		if (!dma->stop_pending)
			n++;
	}
	return n;
}

/* ---- memcpy task type ---- */

doca_error_t doca_dma_task_memcpy_set_conf(struct doca_dma *dma,
					   doca_dma_task_memcpy_completion_cb_t task_completion_cb,
					   doca_dma_task_memcpy_completion_cb_t task_error_cb, uint32_t num_memcpy_tasks)
{
	doca_error_t err;

	if (dma == NULL || task_completion_cb == NULL || task_error_cb == NULL) {
		SD_LOG_ERR("Failed to configure DMA memcpy task: %s is NULL",
			   dma == NULL ? "dma" : task_completion_cb == NULL ? "completion callback" : "error callback");
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = sd_ctx_check_idle(&dma->ctx);
	if (err != DOCA_SUCCESS) {
		SD_LOG_ERR("Failed to configure DMA memcpy task: context is not idle");
		return err;
	}
	if (num_memcpy_tasks == 0 || num_memcpy_tasks > dma->caps->dma_max_tasks) {
		SD_LOG_ERR("Failed to configure DMA memcpy task: num_tasks %u out of range [1, %u]", num_memcpy_tasks,
			   dma->caps->dma_max_tasks);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = sd_task_class_conf(&dma->memcpy_cls, num_memcpy_tasks);
	if (err != DOCA_SUCCESS)
		return err;
	dma->memcpy_ok_cb = task_completion_cb;
	dma->memcpy_err_cb = task_error_cb;
	return DOCA_SUCCESS;
}

doca_error_t doca_dma_task_memcpy_alloc_init(struct doca_dma *dma, const struct doca_buf *src, struct doca_buf *dst,
					     union doca_data user_data, struct doca_dma_task_memcpy **task)
{
	struct doca_task *t;
	struct doca_dma_task_memcpy *mt;
	doca_error_t err;

	if (dma == NULL || task == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	err = sd_task_alloc(&dma->memcpy_cls, &t);
	if (err != DOCA_SUCCESS)
		return err;
	mt = sd_to_memcpy(t);
	mt->src = src;
	mt->dst = dst;
	t->user_data = user_data;
	*task = mt;
	return DOCA_SUCCESS;
}

struct doca_task *doca_dma_task_memcpy_as_task(struct doca_dma_task_memcpy *task)
{
	return task == NULL ? NULL : &task->task;
}

void doca_dma_task_memcpy_set_src(struct doca_dma_task_memcpy *task, const struct doca_buf *src)
{
	if (task == NULL || task->task.state == SD_TASK_SUBMITTED)
		return;
	task->src = src;
}

const struct doca_buf *doca_dma_task_memcpy_get_src(const struct doca_dma_task_memcpy *task)
{
	return task == NULL ? NULL : task->src;
}

void doca_dma_task_memcpy_set_dst(struct doca_dma_task_memcpy *task, struct doca_buf *dst)
{
	if (task == NULL || task->task.state == SD_TASK_SUBMITTED)
		return;
	task->dst = dst;
}

struct doca_buf *doca_dma_task_memcpy_get_dst(const struct doca_dma_task_memcpy *task)
{
	return task == NULL ? NULL : task->dst;
}

/* doca_task_submit does not validate (DOCA): only what the engine needs to
 * hold the task. Bad buffers, sizes and lists fail at execution, through
 * the error callback, and stop the context. */
/* memcpy_submit when a buffer is NULL or SOFTDOCA_FAULTS has DMA rules. */
static doca_error_t __attribute__((noinline, cold)) memcpy_submit_slow(struct doca_dma_task_memcpy *mt)
{
	struct doca_dma *dma = sd_to_dma(mt->task.cls->ctx);

	if (mt->src == NULL || mt->dst == NULL) {
		SD_LOG_ERR("Failed to submit DMA memcpy task: %s buffer is NULL", mt->src == NULL ? "source" : "destination");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* SOFTDOCA_FAULTS: the status stays SUCCESS while a task is submitted,
	 * so it carries an injected error to sd_dma_task_check. */
	mt->task.status = sd_fault_dma_submit(&mt->task, sd_buf_chain_data_len(mt->src));
	return dma->eng_ops->submit(dma->eng, mt);
}

static doca_error_t memcpy_submit(struct doca_task *task)
{
	struct doca_dma_task_memcpy *mt = sd_to_memcpy(task);
	struct doca_dma *dma = sd_to_dma(task->cls->ctx);

	/* The usual case makes no call but the engine's; the rest is out of line. */
	if (__builtin_expect(mt->src == NULL || mt->dst == NULL || sd_fault_active(SD_FAULT_DMA), 0))
		return memcpy_submit_slow(mt);
	return dma->eng_ops->submit(dma->eng, mt);
}

/* doca_task_try_submit: every check the execution makes, up front. */
static doca_error_t memcpy_validate(struct doca_task *task)
{
	struct doca_dma_task_memcpy *mt = sd_to_memcpy(task);
	size_t total;

	if (mt->src == NULL || mt->dst == NULL) {
		SD_LOG_ERR("Failed to submit DMA memcpy task: %s buffer is NULL", mt->src == NULL ? "source" : "destination");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_dma_task_check(mt, NULL, &total) != DOCA_SUCCESS) {
		SD_LOG_ERR("Failed to submit DMA memcpy task: the task is invalid");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static void memcpy_deliver(struct doca_task *task)
{
	struct doca_dma_task_memcpy *mt = sd_to_memcpy(task);
	struct doca_dma *dma = sd_to_dma(task->cls->ctx);

	if (task->status == DOCA_SUCCESS)
		dma->memcpy_ok_cb(mt, task->user_data, dma->ctx.user_data);
	else
		dma->memcpy_err_cb(mt, task->user_data, dma->ctx.user_data);
}

/* ---- checks and copy, shared with the engines ---- */

static bool seg_sane(const struct doca_buf *b)
{
	return b->addr != NULL && b->data >= b->addr && b->data_len <= b->len &&
	       (size_t)(b->data - b->addr) <= b->len - b->data_len;
}

static doca_error_t check_mmap(struct doca_dma *dma, const struct doca_buf *b, bool write, const char *which)
{
	struct doca_mmap *mmap = b->mmap;
	struct sd_remote *r;

	if (mmap == NULL) {
		SD_LOG_ERR("DMA memcpy task failed: %s buffer %p has no mmap", which, (const void *)b);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_mmap_is_started(mmap)) {
		SD_LOG_ERR("DMA memcpy task failed: mmap of the %s buffer is not started", which);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_mmap_has_dev(mmap, dma->dev)) {
		SD_LOG_ERR("DMA memcpy task failed: mmap of the %s buffer has not the DMA device %s", which,
			   sd_dev_pci_addr(dma->dev));
		return DOCA_ERROR_INVALID_VALUE;
	}
	r = sd_mmap_remote(mmap);
	if (write ? !sd_mmap_can_write(mmap) : !sd_mmap_can_read(mmap)) {
		if (r != NULL)
			SD_LOG_ERR("DMA memcpy task failed: the %s buffer is remote memory of process %d exported "
				   "without PCI %s permission",
				   which, sd_remote_pid(r), write ? "write (DOCA_ACCESS_FLAG_PCI_READ_WRITE)" : "read");
		else
			SD_LOG_ERR("DMA memcpy task failed: mmap of the %s buffer does not allow local %s", which,
				   write ? "write" : "read");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t sd_dma_task_check(struct doca_dma_task_memcpy *task, struct sd_dma_check_cache *cache, size_t *total)
{
	struct doca_dma *dma = sd_to_dma(task->task.cls->ctx);
	const struct doca_mmap *last_mmap = cache != NULL ? cache->src_ok : NULL;
	uint64_t last_id = cache != NULL ? cache->src_ok_id : 0;
	bool last_remote = cache != NULL ? cache->src_ok_remote : false;
	const struct doca_buf *b;
	size_t src_total = 0, dst_free = 0;
	uint32_t max_list = dma->caps->dma_max_buf_list_len;
	uint8_t remote = 0;
	doca_error_t err;

	/* An injected fault fails the task where a real failure would. */
	if (sd_fault_active(SD_FAULT_DMA) && task->task.state == SD_TASK_SUBMITTED && task->task.status != DOCA_SUCCESS)
		return task->task.status;
	/* src and dst are not NULL: submit and validate refuse that, and the
	 * setters leave a submitted task alone. */
	if (task->src->list_len > max_list || task->dst->list_len > max_list) {
		SD_LOG_ERR("DMA memcpy task failed: %s buffer list of %u exceeds the device maximum of %u",
			   task->src->list_len > max_list ? "source" : "destination",
			   task->src->list_len > max_list ? task->src->list_len : task->dst->list_len, max_list);
		return DOCA_ERROR_INVALID_VALUE;
	}
	for (b = task->src; b != NULL; b = b->next) {
		if (!sd_dma_cache_hit(last_mmap, last_id, b->mmap)) {
			err = check_mmap(dma, b, false, "source");
			if (err != DOCA_SUCCESS)
				return err;
			last_mmap = b->mmap;
			last_id = sd_mmap_view_of(last_mmap)->start_id;
			last_remote = sd_mmap_remote(last_mmap) != NULL;
		}
		if (last_remote)
			remote |= SD_DMA_SRC_REMOTE;
		/* For a remote mmap the range and these addresses are the exporter's: compared, never dereferenced. */
		if (!seg_sane(b) || (b->data_len > 0 && !sd_mmap_view_contains(sd_mmap_view_of(b->mmap), b->data, b->data_len))) {
			SD_LOG_ERR("DMA memcpy task failed: source data %p+%zu is outside its mmap", (void *)b->data,
				   b->data_len);
			return DOCA_ERROR_INVALID_VALUE;
		}
		src_total += b->data_len;
	}
	if (cache != NULL) {
		cache->src_ok = last_mmap;
		cache->src_ok_id = last_id;
		cache->src_ok_remote = last_remote;
	}
	if (src_total == 0) {
		SD_LOG_ERR("DMA memcpy task failed: the source holds no data (data length 0)");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (src_total > dma->caps->dma_max_buf_size) {
		SD_LOG_ERR("DMA memcpy task failed: %zu bytes exceed the maximum buffer size %lu", src_total,
			   (unsigned long)dma->caps->dma_max_buf_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	last_mmap = cache != NULL ? cache->dst_ok : NULL;
	last_id = cache != NULL ? cache->dst_ok_id : 0;
	last_remote = cache != NULL ? cache->dst_ok_remote : false;
	for (b = task->dst; b != NULL; b = b->next) {
		uint8_t *tail;
		size_t room;

		if (!sd_dma_cache_hit(last_mmap, last_id, b->mmap)) {
			err = check_mmap(dma, b, true, "destination");
			if (err != DOCA_SUCCESS)
				return err;
			last_mmap = b->mmap;
			last_id = sd_mmap_view_of(last_mmap)->start_id;
			last_remote = sd_mmap_remote(last_mmap) != NULL;
		}
		if (last_remote)
			remote |= SD_DMA_DST_REMOTE;
		if (!seg_sane(b)) {
			SD_LOG_ERR("DMA memcpy task failed: destination buffer %p is malformed", (const void *)b);
			return DOCA_ERROR_INVALID_VALUE;
		}
		tail = b->data + b->data_len;
		room = (size_t)(b->addr + b->len - tail);
		if (room > 0 && !sd_mmap_view_contains(sd_mmap_view_of(b->mmap), tail, room)) {
			SD_LOG_ERR("DMA memcpy task failed: destination space %p+%zu is outside its mmap", (void *)tail,
				   room);
			return DOCA_ERROR_INVALID_VALUE;
		}
		dst_free += room;
	}
	if (cache != NULL) {
		cache->dst_ok = last_mmap;
		cache->dst_ok_id = last_id;
		cache->dst_ok_remote = last_remote;
	}
	if (remote == (SD_DMA_SRC_REMOTE | SD_DMA_DST_REMOTE)) {
		SD_LOG_ERR("DMA memcpy task failed: source and destination are both remote memory (mmaps created "
			   "from an export); one side of a DMA copy must be local memory");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (dst_free == 0) {
		SD_LOG_ERR("DMA memcpy task failed: the destination has no free space (length 0 after its data)");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (dst_free < src_total) {
		SD_LOG_ERR("DMA memcpy task failed: destination has room for %zu bytes, source holds %zu", dst_free,
			   src_total);
		return DOCA_ERROR_INVALID_VALUE;
	}
	task->eng_remote = remote;
	*total = src_total;
	return DOCA_SUCCESS;
}

static inline void copy_bytes(uint8_t *d, const uint8_t *s, size_t n)
{
	/* Overlap is the caller's mistake, but must not be undefined here. */
	if ((d < s + n) && (s < d + n))
		memmove(d, s, n);
	else
		memcpy(d, s, n);
}

/* Move n bytes from source segment s (at sp) to destination segment d (at
 * dp); at most one of the two is remote (checked). */
static doca_error_t move_bytes(const struct doca_buf *s, const uint8_t *sp, const struct doca_buf *d, uint8_t *dp,
			       size_t n, uint8_t remote)
{
	struct sd_remote *r;
	doca_error_t err;

	if (remote == 0) {
		copy_bytes(dp, sp, n);
		return DOCA_SUCCESS;
	}
	if ((r = sd_mmap_remote(s->mmap)) != NULL) {
		err = sd_remote_read(r, (uint64_t)(uintptr_t)sp, dp, n);
		if (err != DOCA_SUCCESS)
			SD_LOG_ERR("DMA memcpy task failed: reading %zu bytes at 0x%" PRIxPTR " from process %d "
				   "(remote mmap) failed: %s",
				   n, (uintptr_t)sp, sd_remote_pid(r), doca_error_get_descr(err));
		return err;
	}
	if ((r = sd_mmap_remote(d->mmap)) != NULL) {
		err = sd_remote_write(r, (uint64_t)(uintptr_t)dp, sp, n);
		if (err != DOCA_SUCCESS)
			SD_LOG_ERR("DMA memcpy task failed: writing %zu bytes at 0x%" PRIxPTR " of process %d "
				   "(remote mmap) failed: %s",
				   n, (uintptr_t)dp, sd_remote_pid(r), doca_error_get_descr(err));
		return err;
	}
	copy_bytes(dp, sp, n);
	return DOCA_SUCCESS;
}

doca_error_t sd_dma_task_copy(struct doca_dma_task_memcpy *task, const volatile int *abort)
{
	const struct doca_buf *s = task->src;
	struct doca_buf *d = task->dst;
	uint8_t remote = task->eng_remote;
	const uint8_t *sp;
	size_t sleft;
	uint8_t *dp;
	size_t dleft;
	size_t since_check = 0;
	doca_error_t err;

	/* The common single-segment case without abort polling. */
	if (s->next == NULL && d->next == NULL && abort == NULL) {
		err = move_bytes(s, s->data, d, d->data + d->data_len, s->data_len, remote);
		if (err == DOCA_SUCCESS)
			d->data_len += s->data_len;
		return err;
	}

	sp = s->data;
	sleft = s->data_len;
	dp = d->data + d->data_len;
	dleft = (size_t)(d->addr + d->len - dp);
	for (;;) {
		size_t n;

		while (sleft == 0 && s != NULL) {
			s = s->next;
			if (s != NULL) {
				sp = s->data;
				sleft = s->data_len;
			}
		}
		if (s == NULL)
			break;
		while (dleft == 0) {
			d = d->next; /* the check guaranteed room; the guard is for buffers changed behind our back */
			if (d == NULL) {
				SD_LOG_ERR("DMA memcpy task failed: destination chain changed while the task was submitted");
				return DOCA_ERROR_INVALID_VALUE;
			}
			dp = d->data + d->data_len;
			dleft = (size_t)(d->addr + d->len - dp);
		}
		n = sleft < dleft ? sleft : dleft;
		if (abort != NULL && n > SD_DMA_ABORT_CHUNK)
			n = SD_DMA_ABORT_CHUNK;
		err = move_bytes(s, sp, d, dp, n, remote);
		if (err != DOCA_SUCCESS)
			return err;
		sp += n;
		sleft -= n;
		dp += n;
		dleft -= n;
		if (abort != NULL) {
			since_check += n;
			if (since_check >= SD_DMA_ABORT_CHUNK) {
				since_check = 0;
				if (__atomic_load_n(abort, __ATOMIC_RELAXED))
					return DOCA_ERROR_AGAIN;
			}
		}
	}

	/* Only a finished copy publishes destination lengths. */
	{
		size_t left = 0;

		for (s = task->src; s != NULL; s = s->next)
			left += s->data_len;
		for (d = task->dst; d != NULL && left > 0; d = d->next) {
			size_t room = (size_t)(d->addr + d->len - (d->data + d->data_len));
			size_t w = room < left ? room : left;

			d->data_len += w;
			left -= w;
		}
	}
	return DOCA_SUCCESS;
}
