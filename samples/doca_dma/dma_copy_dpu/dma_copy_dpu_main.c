/*
 * dma_copy_dpu_main.c - entry point of doca_dma_copy_dpu: arguments -p, -t,
 * -d, -b, -ns, -nd, runs on the DPU only (dma_copy_files_main() in
 * dma_common.c), then dma_copy_dpu(). -t is accepted for symmetry with the
 * host sample; the text copied is the host's.
 */
#include <stdbool.h>

#include "dma_copy_dpu_sample.h"

int main(int argc, char **argv)
{
	return dma_copy_files_main(argc, argv, true, dma_copy_dpu);
}
