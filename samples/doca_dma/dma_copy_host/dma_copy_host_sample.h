/*
 * dma_copy_host_sample.h - the host half of the DMA copy sample pair.
 *
 * The host exports a buffer holding the -t text to the Arm side
 * (doca_mmap_export_pci), writes the export descriptor to -d and the
 * buffer's address and length to -b, and waits (Enter, end of input, or
 * SIGINT/SIGTERM) while doca_dma_copy_dpu, run on the Arm side with the same
 * two files, DMA-copies the text out of it. The files are removed on exit:
 * the descriptor names memory that no longer exists once the host is gone.
 *
 * Buffer information file: two decimal lines, the buffer's address and its
 * length in bytes (the text and its terminating NUL).
 */
#ifndef DMA_COPY_HOST_SAMPLE_H_
#define DMA_COPY_HOST_SAMPLE_H_

#include <doca_error.h>

#include "dma_common.h"

/* Export the text, write both files, wait for the Arm side, clean up. */
doca_error_t dma_copy_host(struct dma_copy_files_cfg *cfg);

#endif /* DMA_COPY_HOST_SAMPLE_H_ */
