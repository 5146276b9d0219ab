/*
 * doca_buf_inventory.h - pools of doca_buf descriptors.
 *
 * Model: an inventory holds a number of doca_buf descriptors (set at create,
 * raised by doca_buf_inventory_expand while started). Getting a buffer points
 * a free descriptor at memory of a started doca_mmap; doca_buf_dec_refcount
 * to 0 gives it back. An empty inventory answers DOCA_ERROR_NO_MEMORY
 * (release finished buffers or expand, do not spin).
 *
 * Call order: doca_buf_inventory_create -> doca_buf_inventory_start (may
 *   be called again, started or stopped: it fails only on a bad argument) ->
 *   (user data: only while started) -> doca_buf_inventory_buf_get_by_*() ...
 *   -> (doca_buf_inventory_stop: refuses new retrievals) ->
 *   doca_buf_inventory_destroy (implicitly stops; DOCA_ERROR_IN_USE while
 *   buffers are out).
 *
 * Threading: not thread-safe; use one inventory per thread or serialize.
 * Exception: buffers on a thread-safe mmap (doca_mmap_enable_thread_safety)
 * may be taken from and released to one inventory by several threads at
 * once, and expand and the counters may be called meanwhile.
 */
#ifndef DOCA_BUF_INVENTORY_H_
#define DOCA_BUF_INVENTORY_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_buf_inventory;
struct doca_mmap;

DOCA_STABLE doca_error_t doca_buf_inventory_create(size_t num_elements, struct doca_buf_inventory **inventory);
DOCA_STABLE doca_error_t doca_buf_inventory_destroy(struct doca_buf_inventory *inventory);
DOCA_STABLE doca_error_t doca_buf_inventory_start(struct doca_buf_inventory *inventory);
DOCA_STABLE doca_error_t doca_buf_inventory_stop(struct doca_buf_inventory *inventory);

/* Add num_elements (> 0) descriptors; the inventory must be started
 * (DOCA_ERROR_BAD_STATE otherwise). Buffers already out stay valid. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_expand(struct doca_buf_inventory *inventory,
							 uint32_t num_elements);

DOCA_STABLE doca_error_t doca_buf_inventory_set_user_data(struct doca_buf_inventory *inventory,
							  union doca_data user_data);
DOCA_STABLE doca_error_t doca_buf_inventory_get_user_data(const struct doca_buf_inventory *inventory,
							  union doca_data *user_data);
DOCA_STABLE doca_error_t doca_buf_inventory_get_num_elements(const struct doca_buf_inventory *inventory,
							     uint32_t *num_of_elements);
DOCA_STABLE doca_error_t doca_buf_inventory_get_num_free_elements(const struct doca_buf_inventory *inventory,
								  uint32_t *num_of_free_elements);

/* Buffer [addr, addr+len) with data segment [data, data+data_len), all inside
 * the started mmap's range (DOCA_ERROR_INVALID_VALUE otherwise). */
DOCA_STABLE doca_error_t doca_buf_inventory_buf_get_by_args(struct doca_buf_inventory *inventory,
							    struct doca_mmap *mmap, void *addr, size_t len,
							    void *data, size_t data_len, struct doca_buf **buf);

/* Buffer [addr, addr+len) with an empty data segment at addr. */
static inline doca_error_t doca_buf_inventory_buf_get_by_addr(struct doca_buf_inventory *inventory,
							      struct doca_mmap *mmap, void *addr, size_t len,
							      struct doca_buf **buf)
{
	return doca_buf_inventory_buf_get_by_args(inventory, mmap, addr, len, addr, 0, buf);
}

/* Buffer that is all data: [data, data+data_len). */
static inline doca_error_t doca_buf_inventory_buf_get_by_data(struct doca_buf_inventory *inventory,
							      struct doca_mmap *mmap, void *data, size_t data_len,
							      struct doca_buf **buf)
{
	return doca_buf_inventory_buf_get_by_args(inventory, mmap, data, data_len, data, data_len, buf);
}

/* A new buffer from this inventory describing the same memory as src_buf
 * (for a list head: a new list of the same shape; inside a list:
 * DOCA_ERROR_NOT_PERMITTED). */
DOCA_STABLE doca_error_t doca_buf_inventory_buf_dup(struct doca_buf_inventory *inventory,
						    const struct doca_buf *src_buf, struct doca_buf **dst_buf);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_INVENTORY_H_ */
