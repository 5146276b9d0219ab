/*
 * dma_copy_dpu_sample.h - the Arm-side half of the DMA copy sample pair.
 *
 * Reads the export descriptor (-d) and the buffer information (-b) that
 * doca_dma_copy_host wrote (and is still waiting over), builds a mmap from
 * the export, DMA-copies the host's text into a local buffer (the source
 * split into -ns chained segments, the destination into -nd) and logs it.
 *
 * Buffer information file: two decimal lines, the host buffer's address and
 * its length in bytes.
 */
#ifndef DMA_COPY_DPU_SAMPLE_H_
#define DMA_COPY_DPU_SAMPLE_H_

#include <doca_error.h>

#include "dma_common.h"

#define MAX_EXPORT_DESC_SIZE 4096 /* longest descriptor file accepted */

/* Read both files, DMA-copy the host's text here and log it. */
doca_error_t dma_copy_dpu(struct dma_copy_files_cfg *cfg);

#endif /* DMA_COPY_DPU_SAMPLE_H_ */
