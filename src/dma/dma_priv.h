/*
 * dma_priv.h - the DMA objects as the API layer and the engines share them.
 * Not installed.
 */
#ifndef SD_DMA_PRIV_H_
#define SD_DMA_PRIV_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_dma.h>

#include "sd_ctx.h"
#include "sd_dev.h"
#include "sd_mem.h"
#include "engine.h"

struct doca_dma_task_memcpy {
	struct doca_task task; /* first: the core's view */
	const struct doca_buf *src;
	struct doca_buf *dst;
	/* engine-private: queue link and checked byte count */
	struct doca_dma_task_memcpy *eng_next;
	doca_error_t eng_status;
	bool eng_flushed;   /* given up by a stop, not failed (a failure may also be IO_FAILED) */
	uint8_t eng_remote; /* SD_DMA_SRC_REMOTE / SD_DMA_DST_REMOTE, set by sd_dma_task_check */
	bool eng_nt;	    /* the engine thread copies it with streaming stores (decided on the PE thread) */
	const uint8_t *eng_src; /* a single-segment task's bytes as this process reaches them */
	uint8_t *eng_dst;	/* (set with eng_remote == 0 before it goes to the engine thread) */
};

struct doca_dma {
	struct doca_ctx ctx; /* first: doca_dma_as_ctx() is a cast */
	struct doca_dev *dev;
	const struct sd_caps *caps;
	struct sd_task_class memcpy_cls;
	doca_dma_task_memcpy_completion_cb_t memcpy_ok_cb;
	doca_dma_task_memcpy_completion_cb_t memcpy_err_cb;
	const struct sd_dma_engine_ops *eng_ops;
	struct sd_dma_engine *eng;
	bool stop_pending; /* stop() called, sd_ctx_stop_done() not yet */
};

static inline struct doca_dma *sd_to_dma(struct doca_ctx *ctx)
{
	return (struct doca_dma *)ctx;
}

static inline struct doca_dma_task_memcpy *sd_to_memcpy(struct doca_task *task)
{
	return (struct doca_dma_task_memcpy *)task;
}

#endif /* SD_DMA_PRIV_H_ */
