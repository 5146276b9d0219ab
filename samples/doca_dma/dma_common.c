/*
 * dma_common.c - arguments, resources and callbacks shared by the DMA samples.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doca_argp.h>
#include <doca_ctx.h>
#include <doca_log.h>
#include <doca_pe.h>

#include "dma_common.h"

DOCA_LOG_REGISTER(DMA_COMMON);

static doca_error_t pci_addr_callback(void *param, void *config)
{
	struct dma_config *conf = config;
	const char *addr = param;
	size_t len = strnlen(addr, DOCA_DEVINFO_PCI_ADDR_SIZE);

	if (len == 0 || len >= DOCA_DEVINFO_PCI_ADDR_SIZE) {
		DOCA_LOG_ERR("Entered device PCI address \"%s\" is not valid: expected 1 to %d characters", addr,
			     DOCA_DEVINFO_PCI_ADDR_SIZE - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(conf->pci_address, addr, len + 1);
	return DOCA_SUCCESS;
}

static doca_error_t text_callback(void *param, void *config)
{
	struct dma_config *conf = config;
	const char *txt = param;
	size_t len = strnlen(txt, MAX_TXT_SIZE);

	if (len == 0) {
		DOCA_LOG_ERR("Entered text is empty");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (len > MAX_USER_TXT_SIZE) {
		DOCA_LOG_ERR("Entered text exceeds the maximum size of %d characters", MAX_USER_TXT_SIZE);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(conf->cpy_txt, txt, len + 1);
	return DOCA_SUCCESS;
}

static doca_error_t num_tasks_callback(void *param, void *config)
{
	struct dma_config *conf = config;
	int n = *(int *)param;

	if (n < 1 || n > MAX_NUM_TASKS) {
		DOCA_LOG_ERR("Entered number of tasks %d is out of range [1, %d]", n, MAX_NUM_TASKS);
		return DOCA_ERROR_INVALID_VALUE;
	}
	conf->num_tasks = (uint32_t)n;
	return DOCA_SUCCESS;
}

static doca_error_t max_num_ranges_callback(void *param, void *config)
{
	struct dma_config *conf = config;
	int n = *(int *)param;

	if (n < 0 || n > MAX_NUM_RANGES) {
		DOCA_LOG_ERR("Entered max number of profiling ranges %d is out of range [0, %d]", n, MAX_NUM_RANGES);
		return DOCA_ERROR_INVALID_VALUE;
	}
	conf->max_num_ranges = (uint32_t)n;
	return DOCA_SUCCESS;
}

static doca_error_t num_bufs_check(int n, const char *what, uint32_t *out)
{
	if (n < 1) {
		DOCA_LOG_ERR("Entered number of %s buffers %d must be at least 1", what, n);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* The device's buffer-list limit is checked once the device is open. */
	*out = (uint32_t)n;
	return DOCA_SUCCESS;
}

static doca_error_t num_src_buf_callback(void *param, void *config)
{
	return num_bufs_check(*(int *)param, "source", &((struct dma_config *)config)->num_src_buf);
}

static doca_error_t num_dst_buf_callback(void *param, void *config)
{
	return num_bufs_check(*(int *)param, "destination", &((struct dma_config *)config)->num_dst_buf);
}

static doca_error_t path_check(const char *path, char *dst, const char *what)
{
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
	return path_check(param, ((struct dma_copy_files_cfg *)config)->export_desc_path, "export descriptor file");
}

static doca_error_t buffer_path_callback(void *param, void *config)
{
	return path_check(param, ((struct dma_copy_files_cfg *)config)->buf_info_path, "buffer information file");
}

static doca_error_t add_param(const char *short_name, const char *long_name, const char *arguments,
			      const char *description, enum doca_argp_type type, doca_argp_param_cb_t cb)
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
	if (arguments != NULL)
		doca_argp_param_set_arguments(param, arguments);
	doca_argp_param_set_description(param, description);
	doca_argp_param_set_callback(param, cb);
	doca_argp_param_set_type(param, type);
	err = doca_argp_register_param(param);
	if (err != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to register program param %s: %s", long_name, doca_error_get_descr(err));
	return err;
}

static doca_error_t register_num_bufs_params(const char *src_description, const char *dst_description)
{
	doca_error_t err;

	err = add_param("ns", "num-src-buf", "<NUM>", src_description, DOCA_ARGP_TYPE_INT, num_src_buf_callback);
	if (err != DOCA_SUCCESS)
		return err;
	return add_param("nd", "num-dst-buf", "<NUM>", dst_description, DOCA_ARGP_TYPE_INT, num_dst_buf_callback);
}

doca_error_t register_dma_params(bool is_remote, bool is_local_copy)
{
	doca_error_t err;

	(void)is_remote; /* the remote sample's extra parameters are not part of this build */
	err = add_param("p", "pci-addr", "<PCI-ADDRESS>", "DOCA DMA device PCI address", DOCA_ARGP_TYPE_STRING,
			pci_addr_callback);
	if (err != DOCA_SUCCESS)
		return err;
	err = add_param("t", "text", "<TEXT>", "Text to DMA copy", DOCA_ARGP_TYPE_STRING, text_callback);
	if (err != DOCA_SUCCESS)
		return err;
	if (!is_local_copy)
		return DOCA_SUCCESS;
	err = add_param("nt", "num-tasks", "<NUM>",
			"Number of DMA tasks, each copying the text once (only valid for dma_local_copy sample)",
			DOCA_ARGP_TYPE_INT, num_tasks_callback);
	if (err != DOCA_SUCCESS)
		return err;
	err = add_param("mnr", "max-num-range-profiling-displayed", "<NUM>",
			"Number of profiled task ranges to display, 0 disables range profiling (max 128)",
			DOCA_ARGP_TYPE_INT, max_num_ranges_callback);
	if (err != DOCA_SUCCESS)
		return err;
#ifdef DOCA_ARCH_DPU
	return register_num_bufs_params("Number of chained source buffers per task",
					"Number of chained destination buffers per task");
#else
	return DOCA_SUCCESS;
#endif
}

static doca_error_t register_dma_copy_files_params(bool is_dpu_side)
{
	doca_error_t err;

	err = register_dma_params(true, false);
	if (err != DOCA_SUCCESS)
		return err;
	err = add_param("d", "descriptor-path", "<PATH>",
			is_dpu_side ? "Exported descriptor file path to read" : "Exported descriptor file path to save",
			DOCA_ARGP_TYPE_STRING, descriptor_path_callback);
	if (err != DOCA_SUCCESS)
		return err;
	err = add_param("b", "buffer-path", "<PATH>",
			is_dpu_side ? "Buffer information file path to read" : "Buffer information file path to save",
			DOCA_ARGP_TYPE_STRING, buffer_path_callback);
	if (err != DOCA_SUCCESS || !is_dpu_side)
		return err;
	return register_num_bufs_params("Number of chained source (host) buffers",
					"Number of chained destination (local) buffers");
}

void dma_config_set_defaults(struct dma_config *conf, const char *pci_addr)
{
	memset(conf, 0, sizeof(*conf));
	snprintf(conf->pci_address, sizeof(conf->pci_address), "%s", pci_addr);
	strcpy(conf->cpy_txt, DEFAULT_TEXT);
	conf->num_src_buf = DEFAULT_NUM_BUFS;
	conf->num_dst_buf = DEFAULT_NUM_BUFS;
	conf->num_tasks = DEFAULT_NUM_TASKS;
}

static void dma_copy_files_cfg_set_defaults(struct dma_copy_files_cfg *cfg, const char *pci_addr)
{
	memset(cfg, 0, sizeof(*cfg));
	dma_config_set_defaults(&cfg->dma, pci_addr);
	strcpy(cfg->export_desc_path, DEFAULT_EXPORT_DESC_PATH);
	strcpy(cfg->buf_info_path, DEFAULT_BUF_INFO_PATH);
}

doca_error_t dma_sample_log_init(void)
{
	struct doca_log_backend *sdk_log;
	doca_error_t err;

	err = doca_log_backend_create_standard();
	if (err != DOCA_SUCCESS)
		return err;
	err = doca_log_backend_create_with_file_sdk(stderr, &sdk_log);
	if (err != DOCA_SUCCESS)
		return err;
	return doca_log_backend_set_sdk_level(sdk_log, DOCA_LOG_LEVEL_WARNING);
}

doca_error_t dma_sample_parse_args(int argc, char **argv, void *config, doca_error_t (*register_params)(void))
{
	doca_error_t err;

	err = doca_argp_init(NULL, config);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to init ARGP resources: %s", doca_error_get_descr(err));
		return err;
	}
	err = register_params();
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to register DMA sample parameters: %s", doca_error_get_descr(err));
		goto destroy_argp;
	}
	err = doca_argp_start(argc, argv);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to parse sample input: %s", doca_error_get_descr(err));
		goto destroy_argp;
	}
	return DOCA_SUCCESS;

destroy_argp:
	doca_argp_destroy();
	return err;
}

static doca_error_t register_dma_copy_dpu_params(void)
{
	return register_dma_copy_files_params(true);
}

static doca_error_t register_dma_copy_host_params(void)
{
	return register_dma_copy_files_params(false);
}

int dma_copy_files_main(int argc, char **argv, bool is_dpu_side, doca_error_t (*run)(struct dma_copy_files_cfg *cfg))
{
#ifdef DOCA_ARCH_DPU
	const bool on_dpu = true;
#else
	const bool on_dpu = false;
#endif
	struct dma_copy_files_cfg cfg;
	doca_error_t err;

	dma_copy_files_cfg_set_defaults(&cfg, is_dpu_side ? DEFAULT_PCI_ADDR : DMA_COPY_HOST_DEFAULT_PCI_ADDR);
	if (dma_sample_log_init() != DOCA_SUCCESS)
		return EXIT_FAILURE;

	DOCA_LOG_INFO("Starting the sample");

	err = dma_sample_parse_args(argc, argv, &cfg,
				    is_dpu_side ? register_dma_copy_dpu_params : register_dma_copy_host_params);
	if (err != DOCA_SUCCESS)
		goto sample_exit;

	if (is_dpu_side != on_dpu) {
		DOCA_LOG_ERR("%s", is_dpu_side ? "DMA copy DPU sample can run only on the DPU" :
						 "DMA copy host sample can run only on the host");
		err = DOCA_ERROR_NOT_SUPPORTED;
	} else {
		err = run(&cfg);
		if (err != DOCA_SUCCESS)
			DOCA_LOG_ERR("Sample function has failed: %s", doca_error_get_descr(err));
	}
	doca_argp_destroy();
sample_exit:
	DOCA_LOG_INFO("%s", err == DOCA_SUCCESS ? "Sample finished successfully" : "Sample finished with errors");
	return err == DOCA_SUCCESS ? EXIT_SUCCESS : EXIT_FAILURE;
}

doca_error_t dma_task_is_supported(struct doca_devinfo *devinfo)
{
	return doca_dma_cap_task_memcpy_is_supported(devinfo);
}

void dma_memcpy_completed_callback(struct doca_dma_task_memcpy *dma_task, union doca_data task_user_data,
				   union doca_data ctx_user_data)
{
	struct dma_resources *resources = ctx_user_data.ptr;
	doca_error_t *result = task_user_data.ptr;

	DOCA_LOG_INFO("DMA task was completed successfully");
	*result = DOCA_SUCCESS;
	doca_task_free(doca_dma_task_memcpy_as_task(dma_task));
	if (--resources->num_remaining_tasks == 0)
		(void)doca_ctx_stop(resources->state.ctx);
}

void dma_memcpy_error_callback(struct doca_dma_task_memcpy *dma_task, union doca_data task_user_data,
			       union doca_data ctx_user_data)
{
	struct dma_resources *resources = ctx_user_data.ptr;
	struct doca_task *task = doca_dma_task_memcpy_as_task(dma_task);
	doca_error_t *result = task_user_data.ptr;

	*result = doca_task_get_status(task);
	DOCA_LOG_ERR("DMA task failed: %s", doca_error_get_descr(*result));
	doca_task_free(task);
	if (--resources->num_remaining_tasks == 0)
		(void)doca_ctx_stop(resources->state.ctx);
}

void dma_state_changed_callback(const union doca_data user_data, struct doca_ctx *ctx,
				enum doca_ctx_states prev_state, enum doca_ctx_states next_state)
{
	struct dma_resources *resources = user_data.ptr;

	(void)ctx;
	(void)prev_state;
	switch (next_state) {
	case DOCA_CTX_STATE_IDLE:
		DOCA_LOG_INFO("DMA context has been stopped");
		resources->run_pe_progress = false;
		break;
	case DOCA_CTX_STATE_STARTING:
		/* A DMA context starts synchronously. */
		DOCA_LOG_ERR("DMA context entered into starting state. Unexpected transition");
		break;
	case DOCA_CTX_STATE_RUNNING:
		DOCA_LOG_INFO("DMA context is running");
		break;
	case DOCA_CTX_STATE_STOPPING:
		DOCA_LOG_INFO("DMA context entered into stopping state. Any inflight tasks will be flushed");
		break;
	default:
		break;
	}
}

doca_error_t allocate_dma_resources(const char *pci_addr, uint32_t num_src_buf, uint32_t num_dst_buf,
				    uint32_t num_tasks, struct dma_resources *resources)
{
	struct program_core_objects *state;
	uint32_t max_list_len = 0;
	union doca_data ctx_data;
	doca_error_t err, tmp;

	if (pci_addr == NULL || resources == NULL || num_tasks == 0 || num_src_buf == 0 || num_dst_buf == 0)
		return DOCA_ERROR_INVALID_VALUE;
	memset(resources, 0, sizeof(*resources));
	state = &resources->state;

	err = open_doca_device_with_pci(pci_addr, dma_task_is_supported, &state->dev);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to open DOCA device %s for DMA: %s", pci_addr, doca_error_get_descr(err));
		return err;
	}
	err = doca_dma_cap_task_memcpy_get_max_buf_list_len(doca_dev_as_devinfo(state->dev), &max_list_len);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to get the DMA max buffer list length: %s", doca_error_get_descr(err));
		goto close_device;
	}
	if (num_src_buf > max_list_len || num_dst_buf > max_list_len) {
		DOCA_LOG_ERR("Number of %s buffers %u exceeds the device's maximum buffer list length %u",
			     num_src_buf > max_list_len ? "source" : "destination",
			     num_src_buf > max_list_len ? num_src_buf : num_dst_buf, max_list_len);
		err = DOCA_ERROR_INVALID_VALUE;
		goto close_device;
	}
	err = create_core_objects(state, num_tasks * (num_src_buf + num_dst_buf));
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create DOCA core objects: %s", doca_error_get_descr(err));
		goto destroy_core;
	}
	err = doca_dma_create(state->dev, &resources->dma_ctx);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create DMA context: %s", doca_error_get_descr(err));
		goto destroy_core;
	}
	state->ctx = doca_dma_as_ctx(resources->dma_ctx);
	err = doca_ctx_set_state_changed_cb(state->ctx, dma_state_changed_callback);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set DMA state change callback: %s", doca_error_get_descr(err));
		goto destroy_dma;
	}
	err = doca_dma_task_memcpy_set_conf(resources->dma_ctx, dma_memcpy_completed_callback,
					    dma_memcpy_error_callback, num_tasks);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to configure DMA memcpy tasks: %s", doca_error_get_descr(err));
		goto destroy_dma;
	}
	ctx_data.ptr = resources;
	err = doca_ctx_set_user_data(state->ctx, ctx_data);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set DMA context user data: %s", doca_error_get_descr(err));
		goto destroy_dma;
	}
	return DOCA_SUCCESS;

destroy_dma:
	tmp = doca_dma_destroy(resources->dma_ctx);
	if (tmp != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to destroy DMA context: %s", doca_error_get_descr(tmp));
	resources->dma_ctx = NULL;
	state->ctx = NULL;
destroy_core:
	tmp = destroy_core_objects(state);
	if (tmp != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to destroy DOCA core objects: %s", doca_error_get_descr(tmp));
	return err;
close_device:
	tmp = doca_dev_close(state->dev);
	if (tmp != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to close DOCA device: %s", doca_error_get_descr(tmp));
	state->dev = NULL;
	return err;
}

doca_error_t destroy_dma_resources(struct dma_resources *resources)
{
	doca_error_t err = DOCA_SUCCESS, tmp;

	if (resources == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (resources->dma_ctx != NULL) {
		tmp = doca_dma_destroy(resources->dma_ctx);
		if (tmp != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to destroy DMA context: %s", doca_error_get_descr(tmp));
			DOCA_ERROR_PROPAGATE(err, tmp);
		}
		resources->dma_ctx = NULL;
		resources->state.ctx = NULL;
	}
	tmp = destroy_core_objects(&resources->state);
	if (tmp != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to destroy DOCA core objects: %s", doca_error_get_descr(tmp));
		DOCA_ERROR_PROPAGATE(err, tmp);
	}
	return err;
}

static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/* O_NONBLOCK makes the open itself return at once on a FIFO with no peer;
 * the type is then checked on the descriptor (no window for a swap), and
 * truncation waits until we know it is a regular file. */
int dma_open_regular_file(const char *path, int flags, mode_t mode, doca_error_t *err)
{
	struct stat st;
	int fd;

	fd = open(path, (flags & ~O_TRUNC) | O_NONBLOCK | O_CLOEXEC, mode);
	if (fd < 0) {
		DOCA_LOG_ERR("Failed to open %s: %s", path, strerror(errno));
		*err = errno == ENOENT ? DOCA_ERROR_NOT_FOUND : DOCA_ERROR_IO_FAILED;
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		DOCA_LOG_ERR("File %s is %s: a regular file is needed", path,
			     fstat(fd, &st) != 0 ? "not readable" : file_kind(st.st_mode));
		close(fd);
		*err = DOCA_ERROR_INVALID_VALUE;
		return -1;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 ||
	    ((flags & O_TRUNC) && ftruncate(fd, 0) != 0)) {
		DOCA_LOG_ERR("Failed to prepare %s: %s", path, strerror(errno));
		close(fd);
		*err = DOCA_ERROR_IO_FAILED;
		return -1;
	}
	return fd;
}
