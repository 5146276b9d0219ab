/*
 * doca_buf.h - DOCA buffers.
 *
 * Model: a doca_buf describes [head, head+len) inside a started doca_mmap,
 * with a data segment [data, data+data_len) inside it. Buffers come from a
 * doca_buf_inventory with refcount 1 and go back to it when the refcount
 * drops to 0. Buffers may be chained into a list (scatter/gather); the first
 * buffer is the head and stands for the whole list: refcount operations are
 * done on the head, and releasing the head releases every buffer of the list.
 *
 * Call order: doca_buf_inventory_buf_get_by_*() -> set data / chain -> hand
 * to a task -> (completion) -> doca_buf_dec_refcount.
 *
 * Threading: a doca_buf is not thread-safe; while a submitted task names a
 * buffer the context owns it and the program must not touch it. Releasing
 * buffers of a thread-safe mmap (doca_mmap_enable_thread_safety) from
 * several threads at once is safe, one thread per buffer.
 */
#ifndef DOCA_BUF_H_
#define DOCA_BUF_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;

/* *refcount (may be NULL) receives the count before the operation.
 * Only a list head (or a single buffer) may be inc/dec'ed: DOCA_ERROR_NOT_PERMITTED otherwise.
 * inc at UINT16_MAX: DOCA_ERROR_TOO_BIG; dec of a released buffer: DOCA_ERROR_BAD_STATE. */
DOCA_STABLE doca_error_t doca_buf_inc_refcount(struct doca_buf *buf, uint16_t *refcount);
DOCA_STABLE doca_error_t doca_buf_dec_refcount(struct doca_buf *buf, uint16_t *refcount);
DOCA_STABLE doca_error_t doca_buf_get_refcount(const struct doca_buf *buf, uint16_t *refcount);

DOCA_STABLE doca_error_t doca_buf_get_len(const struct doca_buf *buf, size_t *len);
DOCA_STABLE doca_error_t doca_buf_get_head(const struct doca_buf *buf, void **head);
DOCA_STABLE doca_error_t doca_buf_get_data_len(const struct doca_buf *buf, size_t *data_len);
DOCA_STABLE doca_error_t doca_buf_get_data(const struct doca_buf *buf, void **data);

/* The data segment must lie inside the buffer: DOCA_ERROR_INVALID_VALUE otherwise. */
DOCA_STABLE doca_error_t doca_buf_set_data(struct doca_buf *buf, void *data, size_t data_len);
DOCA_STABLE doca_error_t doca_buf_set_data_len(struct doca_buf *buf, size_t data_len);
DOCA_STABLE doca_error_t doca_buf_reset_data_len(struct doca_buf *buf);

/* Lists. */
DOCA_STABLE doca_error_t doca_buf_get_list_len(const struct doca_buf *buf, uint32_t *num_elements);
DOCA_STABLE doca_error_t doca_buf_get_next_in_list(struct doca_buf *buf, struct doca_buf **next_buf);
DOCA_STABLE doca_error_t doca_buf_get_last_in_list(struct doca_buf *buf, struct doca_buf **last_buf);
DOCA_STABLE doca_error_t doca_buf_is_first_in_list(const struct doca_buf *buf, uint8_t *is_first);
DOCA_STABLE doca_error_t doca_buf_is_last_in_list(const struct doca_buf *buf, uint8_t *is_last);
DOCA_STABLE doca_error_t doca_buf_is_in_list(const struct doca_buf *buf, uint8_t *is_in_list);
/* Append list2 (a head with refcount 1) to list1 (a head): DOCA_ERROR_NOT_PERMITTED otherwise. */
DOCA_STABLE doca_error_t doca_buf_chain_list(struct doca_buf *list1, struct doca_buf *list2);
/* Same, with list1's last element given (O(1) for long lists). */
DOCA_EXPERIMENTAL doca_error_t doca_buf_chain_list_tail(struct doca_buf *list1_head,
							struct doca_buf *list1_tail, struct doca_buf *list2);
/* Cut list1 (a head) before list2, an element of list1 other than its head (DOCA_ERROR_INVALID_VALUE
 * otherwise); list2 becomes a head with refcount 1. */
DOCA_STABLE doca_error_t doca_buf_unchain_list(struct doca_buf *list1, struct doca_buf *list2);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_H_ */
