/*
 * buf_array.c - doca_buf_arr: the host-side object of a device buffer array.
 *
 * The object, its parameters and their checks are real; what the array is
 * for (element handles in a GPU's or the DPA's memory) needs a device that
 * softdoca does not emulate, so no target can be set and start stops at the
 * missing target, as DOCA documents for an array without one.
 */
#include <stdlib.h>

#include <doca_buf_array.h>

#include "mem_priv.h"
#include "sd_log.h"

SD_LOG_REGISTER(DOCA_BUF_ARRAY);

struct doca_buf_arr {
	size_t num;
	struct doca_mmap *mmap;   /* set by doca_buf_arr_set_params */
	size_t elem_size;
	uint64_t start_offset;
	bool started;
	bool ever_started;        /* start is allowed once in the array's life */
};

doca_error_t doca_buf_arr_create(size_t num_elem, struct doca_buf_arr **buf_arr)
{
	struct doca_buf_arr *a;

	if (num_elem == 0 || buf_arr == NULL) {
		SD_LOG_ERR("failed to create buffer array: invalid argument (%zu elements)", num_elem);
		return DOCA_ERROR_INVALID_VALUE;
	}
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return DOCA_ERROR_NO_MEMORY;
	a->num = num_elem;
	*buf_arr = a;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_arr_destroy(struct doca_buf_arr *buf_arr)
{
	if (buf_arr == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	free(buf_arr);
	return DOCA_SUCCESS;
}

static doca_error_t check_config(const struct doca_buf_arr *buf_arr, const char *what)
{
	if (buf_arr == NULL) {
		SD_LOG_ERR("failed to %s: NULL buffer array", what);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (buf_arr->started) {
		SD_LOG_ERR("failed to %s: buffer array is started", what);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_arr_set_params(struct doca_buf_arr *buf_arr, struct doca_mmap *mmap, size_t elem_size,
				     uint64_t start_offset)
{
	doca_error_t ret = check_config(buf_arr, "set buffer array parameters");

	if (ret != DOCA_SUCCESS)
		return ret;
	if (mmap == NULL || elem_size == 0) {
		SD_LOG_ERR("failed to set buffer array parameters: invalid argument (mmap %p, element size %zu)",
			   (void *)mmap, elem_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!mmap->range_set || start_offset >= mmap->len) {
		SD_LOG_ERR("failed to set buffer array parameters: offset %llu is outside the mmap's range",
			   (unsigned long long)start_offset);
		return DOCA_ERROR_INVALID_VALUE;
	}
	buf_arr->mmap = mmap;
	buf_arr->elem_size = elem_size;
	buf_arr->start_offset = start_offset;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_arr_set_target_gpu(struct doca_buf_arr *buf_arr, struct doca_gpu *gpu_handler)
{
	doca_error_t ret = check_config(buf_arr, "set buffer array target GPU");

	if (ret != DOCA_SUCCESS)
		return ret;
	if (gpu_handler == NULL) {
		SD_LOG_ERR("failed to set buffer array target GPU: NULL GPU");
		return DOCA_ERROR_INVALID_VALUE;
	}
	SD_LOG_ERR("failed to set buffer array target GPU: no GPU is emulated");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_buf_arr_set_target_dpa(struct doca_buf_arr *buf_arr, struct doca_dpa *dpa_handler)
{
	doca_error_t ret = check_config(buf_arr, "set buffer array target DPA");

	if (ret != DOCA_SUCCESS)
		return ret;
	if (dpa_handler == NULL) {
		SD_LOG_ERR("failed to set buffer array target DPA: NULL DPA");
		return DOCA_ERROR_INVALID_VALUE;
	}
	SD_LOG_ERR("failed to set buffer array target DPA: no DPA is emulated");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_buf_arr_start(struct doca_buf_arr *buf_arr)
{
	struct doca_mmap *mmap;
	uint64_t need;

	if (buf_arr == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (buf_arr->ever_started) {
		SD_LOG_ERR("failed to start buffer array: it can be started only once");
		return DOCA_ERROR_BAD_STATE;
	}
	mmap = buf_arr->mmap;
	if (mmap == NULL) {
		SD_LOG_ERR("failed to start buffer array: parameters not set (doca_buf_arr_set_params)");
		return DOCA_ERROR_BAD_STATE;
	}
	if (!mmap->started) {
		SD_LOG_ERR("failed to start buffer array: its mmap is not started");
		return DOCA_ERROR_BAD_STATE;
	}
	if (buf_arr->elem_size > (UINT64_MAX - buf_arr->start_offset) / buf_arr->num)
		need = UINT64_MAX;
	else
		need = buf_arr->start_offset + (uint64_t)buf_arr->num * buf_arr->elem_size;
	if (need > mmap->len) {
		SD_LOG_ERR("failed to start buffer array: %zu elements of %zu bytes from offset %llu exceed the mmap's "
			   "%zu bytes",
			   buf_arr->num, buf_arr->elem_size, (unsigned long long)buf_arr->start_offset, mmap->len);
		return DOCA_ERROR_NO_MEMORY;
	}
	/* a target can never be set here (no GPU, no DPA) */
	SD_LOG_ERR("failed to start buffer array: no target device set (no GPU or DPA is emulated)");
	return DOCA_ERROR_BAD_STATE;
}

doca_error_t doca_buf_arr_stop(struct doca_buf_arr *buf_arr)
{
	if (buf_arr == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	/* DOCA lists only a bad argument for stop: an array that is not
	 * started is already stopped */
	buf_arr->started = false;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_arr_get_gpu_handle(const struct doca_buf_arr *buf_arr, struct doca_gpu_buf_arr **gpu_buf_arr)
{
	if (buf_arr == NULL || gpu_buf_arr == NULL) {
		SD_LOG_ERR("failed to get buffer array GPU handle: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!buf_arr->started) {
		SD_LOG_ERR("failed to get buffer array GPU handle: buffer array is not started");
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_buf_arr_get_dpa_handle(const struct doca_buf_arr *buf_arr, doca_dpa_dev_buf_arr_t *dpa_buf_arr)
{
	if (buf_arr == NULL || dpa_buf_arr == NULL) {
		SD_LOG_ERR("failed to get buffer array DPA handle: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!buf_arr->started) {
		SD_LOG_ERR("failed to get buffer array DPA handle: buffer array is not started");
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_ERROR_NOT_SUPPORTED;
}
