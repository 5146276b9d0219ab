/*
 * dma_copy_host_main.c - entry point of doca_dma_copy_host: arguments -p,
 * -t, -d, -b, runs on the host only (dma_copy_files_main() in dma_common.c),
 * then dma_copy_host().
 */
#include <stdbool.h>

#include "dma_copy_host_sample.h"

int main(int argc, char **argv)
{
	return dma_copy_files_main(argc, argv, false, dma_copy_host);
}
