/*
 * dma_local_copy_main.c - entry point of doca_dma_local_copy: defaults,
 * logging, arguments, the DPU guard, the buffers, then dma_local_copy().
 */
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_error.h>
#include <doca_log.h>

#include "dma_common.h"

DOCA_LOG_REGISTER(DMA_LOCAL_COPY_MAIN);

doca_error_t dma_local_copy(struct dma_config *dma_conf, char *dst_buffer, char *src_buffer, size_t length);

int main(int argc, char **argv)
{
	struct dma_config dma_conf;
	struct doca_log_backend *sdk_log;
	char *src_buffer = NULL;
	char *dst_buffer = NULL;
	size_t length, i;
	int exit_status = EXIT_FAILURE;
	doca_error_t err;

	memset(&dma_conf, 0, sizeof(dma_conf));
	strcpy(dma_conf.pci_address, DEFAULT_PCI_ADDR);
	strcpy(dma_conf.cpy_txt, DEFAULT_TEXT);
	dma_conf.num_src_buf = DEFAULT_NUM_BUFS;
	dma_conf.num_dst_buf = DEFAULT_NUM_BUFS;
	dma_conf.num_tasks = DEFAULT_NUM_TASKS;
	dma_conf.max_num_ranges = 0;

	err = doca_log_backend_create_standard();
	if (err != DOCA_SUCCESS)
		return EXIT_FAILURE;
	err = doca_log_backend_create_with_file_sdk(stderr, &sdk_log);
	if (err != DOCA_SUCCESS)
		return EXIT_FAILURE;
	err = doca_log_backend_set_sdk_level(sdk_log, DOCA_LOG_LEVEL_WARNING);
	if (err != DOCA_SUCCESS)
		return EXIT_FAILURE;

	DOCA_LOG_INFO("Starting the sample");

	err = doca_argp_init(NULL, &dma_conf);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to init ARGP resources: %s", doca_error_get_descr(err));
		goto sample_exit;
	}
	err = register_dma_params(false, true);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to register DMA sample parameters: %s", doca_error_get_descr(err));
		goto argp_cleanup;
	}
	err = doca_argp_start(argc, argv);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to parse sample input: %s", doca_error_get_descr(err));
		goto argp_cleanup;
	}

#ifndef DOCA_ARCH_DPU
	/* On the host the sample only serves range profiling. */
	if (dma_conf.max_num_ranges == 0) {
		DOCA_LOG_ERR("Local DMA copy can run only on the DPU");
		goto argp_cleanup;
	}
#endif

	length = strlen(dma_conf.cpy_txt) + 1;
	dst_buffer = calloc(1, length * dma_conf.num_tasks);
	if (dst_buffer == NULL) {
		DOCA_LOG_ERR("Destination buffer allocation failed");
		goto argp_cleanup;
	}
	src_buffer = malloc(length * dma_conf.num_tasks);
	if (src_buffer == NULL) {
		DOCA_LOG_ERR("Source buffer allocation failed");
		goto dst_buf_cleanup;
	}
	for (i = 0; i < dma_conf.num_tasks; i++)
		memcpy(src_buffer + i * length, dma_conf.cpy_txt, length);

	err = dma_local_copy(&dma_conf, dst_buffer, src_buffer, length);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Sample function has failed: %s", doca_error_get_descr(err));
		goto src_buf_cleanup;
	}
	exit_status = EXIT_SUCCESS;

src_buf_cleanup:
	free(src_buffer);
dst_buf_cleanup:
	free(dst_buffer);
argp_cleanup:
	doca_argp_destroy();
sample_exit:
	if (exit_status == EXIT_SUCCESS)
		DOCA_LOG_INFO("Sample finished successfully");
	else
		DOCA_LOG_INFO("Sample finished with errors");
	return exit_status;
}
