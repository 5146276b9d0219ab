/*
 * doca_buf_pool.h - a pool of fixed-size buffers carved out of one mmap.
 *
 * Model: a buffer pool cuts the memory range of a doca_mmap into
 * num_elements elements of element_size bytes, each starting at a multiple
 * of the element alignment (default 1: packed). Every element has its own
 * doca_buf for the pool's whole life, so allocating one is immediate: the
 * buffer describes its element, with an empty data segment at the element's
 * start. doca_buf_dec_refcount to 0 gives it back to the pool.
 *
 * Call order:
 *   (mmap with its range set) -> doca_buf_pool_create -> set alignment /
 *   user data -> (mmap started) -> doca_buf_pool_start (DOCA_ERROR_INITIALIZATION
 *   if the range is too small for the elements) -> doca_buf_pool_buf_alloc
 *   ... (DOCA_ERROR_EMPTY when every element is out) -> doca_buf_pool_stop
 *   (DOCA_ERROR_IN_USE while buffers are out; configuring is allowed again;
 *   a pool that is not started is already stopped: DOCA_SUCCESS)
 *   -> doca_buf_pool_destroy (implicitly stops; DOCA_ERROR_IN_USE while
 *   buffers are out).
 *   Setting properties of a started pool: DOCA_ERROR_BAD_STATE.
 *   While started, the pool's elements count as buffers of the mmap
 *   (doca_mmap_get_num_bufs), so the mmap cannot be stopped or destroyed
 *   under it. The mmap must outlive the pool.
 *
 * Threading: a pool is used from one thread at a time, except that buffers
 * of a pool on a thread-safe mmap (doca_mmap_enable_thread_safety) may be
 * allocated and released from several threads at once.
 */
#ifndef DOCA_BUF_POOL_H_
#define DOCA_BUF_POOL_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_buf_pool;
struct doca_mmap;

/* num_elements and element_size > 0; the mmap's range must be set already. */
DOCA_STABLE doca_error_t doca_buf_pool_create(size_t num_elements, size_t element_size, const struct doca_mmap *mmap,
					      struct doca_buf_pool **buf_pool);
DOCA_STABLE doca_error_t doca_buf_pool_destroy(struct doca_buf_pool *buf_pool);
/* The mmap must be started (DOCA_ERROR_BAD_STATE otherwise). */
DOCA_STABLE doca_error_t doca_buf_pool_start(struct doca_buf_pool *buf_pool);
DOCA_STABLE doca_error_t doca_buf_pool_stop(struct doca_buf_pool *buf_pool);

DOCA_STABLE doca_error_t doca_buf_pool_set_user_data(struct doca_buf_pool *buf_pool, union doca_data user_data);
DOCA_STABLE doca_error_t doca_buf_pool_get_user_data(const struct doca_buf_pool *buf_pool,
						     union doca_data *user_data);
/* A power of two, at least 1 (the default). */
DOCA_STABLE doca_error_t doca_buf_pool_set_element_alignment(struct doca_buf_pool *buf_pool,
							     size_t element_alignment);
DOCA_STABLE doca_error_t doca_buf_pool_get_element_alignment(const struct doca_buf_pool *buf_pool,
							     size_t *element_alignment);
DOCA_STABLE doca_error_t doca_buf_pool_get_num_elements(const struct doca_buf_pool *buf_pool,
							uint32_t *num_of_elements);
DOCA_STABLE doca_error_t doca_buf_pool_get_num_free_elements(const struct doca_buf_pool *buf_pool,
							     uint32_t *num_of_free_elements);

/* A buffer on a free element (refcount 1, data length 0). */
DOCA_STABLE doca_error_t doca_buf_pool_buf_alloc(struct doca_buf_pool *buf_pool, struct doca_buf **buf);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_POOL_H_ */
