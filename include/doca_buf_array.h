/*
 * doca_buf_array.h - an array of fixed-size buffers for a GPU or the DPA.
 *
 * Model: a buffer array describes num_elem elements of elem_size bytes laid
 * out back to back in a doca_mmap, from start_offset bytes into its range.
 * It is built on the host or the Arm side for use by a device data path: the
 * array is started for a target (a GPU or the DPA) and the device code gets
 * the array through a handle (doca_buf_arr_get_gpu_handle /
 * doca_buf_arr_get_dpa_handle), indexing elements or using it as a free list.
 *
 * Call order:
 *   doca_buf_arr_create -> doca_buf_arr_set_params (required) ->
 *   doca_buf_arr_set_target_gpu / _dpa (required) -> (mmap started) ->
 *   doca_buf_arr_start (once) -> get the handle -> (doca_buf_arr_stop, which
 *   fails only on a bad argument: stopping a stopped array succeeds) ->
 *   doca_buf_arr_destroy (implicitly stops).
 *   Configuring a started array: DOCA_ERROR_BAD_STATE. The mmap must
 *   outlive the array.
 *
 * softdoca emulates neither GPUs nor the DPA: setting a target and getting
 * a handle answer DOCA_ERROR_NOT_SUPPORTED (after their argument and state
 * checks), so doca_buf_arr_start, which needs a target, answers
 * DOCA_ERROR_BAD_STATE once the parameters and the mmap are checked.
 *
 * Threading: not thread-safe; configure and start from one thread.
 */
#ifndef DOCA_BUF_ARRAY_H_
#define DOCA_BUF_ARRAY_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf_arr;
struct doca_mmap;
struct doca_gpu;
struct doca_gpu_buf_arr;
struct doca_dpa;

/* Handle of a buffer array in the DPA's address space. */
typedef uint64_t doca_dpa_dev_buf_arr_t;

/* num_elem > 0. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_create(size_t num_elem, struct doca_buf_arr **buf_arr);
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_destroy(struct doca_buf_arr *buf_arr);

/* mmap with its range set; elem_size > 0; start_offset inside the range. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_set_params(struct doca_buf_arr *buf_arr, struct doca_mmap *mmap,
						       size_t elem_size, uint64_t start_offset);
/* No GPU / DPA is emulated: DOCA_ERROR_NOT_SUPPORTED after the checks
 * (INVALID_VALUE, BAD_STATE when started). */
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_set_target_gpu(struct doca_buf_arr *buf_arr,
							   struct doca_gpu *gpu_handler);
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_set_target_dpa(struct doca_buf_arr *buf_arr,
							   struct doca_dpa *dpa_handler);

/*
 * Start (once in the array's life): DOCA_ERROR_BAD_STATE when started
 * before, when the parameters or the target are missing, or when the mmap is
 * not started; DOCA_ERROR_NO_MEMORY when the elements do not fit in the
 * mmap's range.
 */
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_start(struct doca_buf_arr *buf_arr);
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_stop(struct doca_buf_arr *buf_arr);

/* DOCA_ERROR_BAD_STATE when not started; no GPU / DPA: DOCA_ERROR_NOT_SUPPORTED. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_get_gpu_handle(const struct doca_buf_arr *buf_arr,
							   struct doca_gpu_buf_arr **gpu_buf_arr);
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_get_dpa_handle(const struct doca_buf_arr *buf_arr,
							   doca_dpa_dev_buf_arr_t *dpa_buf_arr);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_ARRAY_H_ */
