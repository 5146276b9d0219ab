/*
 * dma_copy_host_main.c - entry point of doca_dma_copy_host: defaults,
 * logging, arguments (-p, -t, -d, -b), the host guard, then dma_copy_host().
 */
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_build_config.h>
#include <doca_error.h>
#include <doca_log.h>

#include "dma_copy_host_sample.h"

DOCA_LOG_REGISTER(DMA_COPY_HOST_MAIN);

static doca_error_t path_arg(void *param, char *dst, const char *what)
{
	const char *path = param;
	size_t len = strnlen(path, MAX_ARG_SIZE);

	if (len == 0) {
		DOCA_LOG_ERR("Entered %s path is empty", what);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (len >= MAX_ARG_SIZE) {
		DOCA_LOG_ERR("Entered %s path exceeds the maximum size of %d characters", what, MAX_ARG_SIZE - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(dst, path, len + 1);
	return DOCA_SUCCESS;
}

static doca_error_t descriptor_path_callback(void *param, void *config)
{
	return path_arg(param, ((struct dma_copy_host_cfg *)config)->export_desc_path, "export descriptor file");
}

static doca_error_t buffer_path_callback(void *param, void *config)
{
	return path_arg(param, ((struct dma_copy_host_cfg *)config)->buf_info_path, "buffer information file");
}

static doca_error_t register_path_param(const char *short_name, const char *long_name, const char *description,
					doca_argp_param_cb_t cb)
{
	struct doca_argp_param *param;
	doca_error_t err;

	err = doca_argp_param_create(&param);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create ARGP param: %s", doca_error_get_descr(err));
		return err;
	}
	doca_argp_param_set_short_name(param, short_name);
	doca_argp_param_set_long_name(param, long_name);
	doca_argp_param_set_arguments(param, "<PATH>");
	doca_argp_param_set_description(param, description);
	doca_argp_param_set_callback(param, cb);
	doca_argp_param_set_type(param, DOCA_ARGP_TYPE_STRING);
	err = doca_argp_register_param(param);
	if (err != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to register program param %s: %s", long_name, doca_error_get_descr(err));
	return err;
}

static doca_error_t register_dma_copy_host_params(void)
{
	doca_error_t err;

	err = register_dma_params(true, false);
	if (err != DOCA_SUCCESS)
		return err;
	err = register_path_param("d", "descriptor-path", "Exported descriptor file path to save",
				  descriptor_path_callback);
	if (err != DOCA_SUCCESS)
		return err;
	return register_path_param("b", "buffer-path", "Buffer information file path to save",
				   buffer_path_callback);
}

int main(int argc, char **argv)
{
	struct dma_copy_host_cfg cfg;
	struct doca_log_backend *sdk_log;
	int exit_status = EXIT_FAILURE;
	doca_error_t err;

	memset(&cfg, 0, sizeof(cfg));
	strcpy(cfg.dma.pci_address, DMA_COPY_HOST_DEFAULT_PCI_ADDR);
	strcpy(cfg.dma.cpy_txt, DEFAULT_TEXT);
	cfg.dma.num_src_buf = DEFAULT_NUM_BUFS;
	cfg.dma.num_dst_buf = DEFAULT_NUM_BUFS;
	cfg.dma.num_tasks = DEFAULT_NUM_TASKS;
	strcpy(cfg.export_desc_path, DEFAULT_EXPORT_DESC_PATH);
	strcpy(cfg.buf_info_path, DEFAULT_BUF_INFO_PATH);

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

	err = doca_argp_init(NULL, &cfg);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to init ARGP resources: %s", doca_error_get_descr(err));
		goto sample_exit;
	}
	err = register_dma_copy_host_params();
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to register DMA sample parameters: %s", doca_error_get_descr(err));
		goto argp_cleanup;
	}
	err = doca_argp_start(argc, argv);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to parse sample input: %s", doca_error_get_descr(err));
		goto argp_cleanup;
	}

#ifdef DOCA_ARCH_DPU
	DOCA_LOG_ERR("DMA copy host sample can run only on the host");
	goto argp_cleanup;
#endif

	err = dma_copy_host(&cfg);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Sample function has failed: %s", doca_error_get_descr(err));
		goto argp_cleanup;
	}
	exit_status = EXIT_SUCCESS;

argp_cleanup:
	doca_argp_destroy();
sample_exit:
	if (exit_status == EXIT_SUCCESS)
		DOCA_LOG_INFO("Sample finished successfully");
	else
		DOCA_LOG_INFO("Sample finished with errors");
	return exit_status;
}
