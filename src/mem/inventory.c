/*
 * inventory.c - doca_buf_inventory: a fixed pool of doca_buf descriptors.
 *
 * Descriptors live in one array for the inventory's lifetime; the free ones
 * form a singly linked list through free_next, so get and put are O(1).
 */
#include <stdlib.h>
#include <string.h>

#include "mem_priv.h"
#include "sd_log.h"

SD_LOG_REGISTER(DOCA_BUF_INVENTORY);

doca_error_t doca_buf_inventory_create(size_t num_elements, struct doca_buf_inventory **inventory)
{
	struct doca_buf_inventory *inv;

	if (inventory == NULL || num_elements == 0 || num_elements > UINT32_MAX) {
		SD_LOG_ERR("failed to create inventory: invalid argument (num_elements %zu)", num_elements);
		return DOCA_ERROR_INVALID_VALUE;
	}
	inv = calloc(1, sizeof(*inv));
	if (inv == NULL)
		return DOCA_ERROR_NO_MEMORY;
	inv->elems = calloc(num_elements, sizeof(*inv->elems));
	if (inv->elems == NULL) {
		free(inv);
		SD_LOG_ERR("failed to create inventory: cannot allocate %zu elements", num_elements);
		return DOCA_ERROR_NO_MEMORY;
	}
	inv->num = (uint32_t)num_elements;
	for (uint32_t i = num_elements; i-- > 0;) {
		inv->elems[i].inv = inv;
		inv->elems[i].free_next = inv->free_head;
		inv->free_head = &inv->elems[i];
	}
	inv->nfree = inv->num;
	*inventory = inv;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_destroy(struct doca_buf_inventory *inventory)
{
	if (inventory == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (inventory->nfree != inventory->num) {
		SD_LOG_ERR("failed to destroy inventory: %u buffer(s) still in use", inventory->num - inventory->nfree);
		return DOCA_ERROR_IN_USE;
	}
	free(inventory->elems);
	free(inventory);
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_start(struct doca_buf_inventory *inventory)
{
	if (inventory == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (inventory->started) {
		SD_LOG_ERR("failed to start inventory: already started");
		return DOCA_ERROR_BAD_STATE;
	}
	inventory->started = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_stop(struct doca_buf_inventory *inventory)
{
	if (inventory == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	/* buffers already out stay valid; only new retrievals are refused */
	inventory->started = false;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_set_user_data(struct doca_buf_inventory *inventory, union doca_data user_data)
{
	if (inventory == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	/* documented: only a started inventory takes user data */
	if (!inventory->started)
		return DOCA_ERROR_BAD_STATE;
	inventory->user_data = user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_get_user_data(const struct doca_buf_inventory *inventory, union doca_data *user_data)
{
	if (inventory == NULL || user_data == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*user_data = inventory->user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_get_num_elements(const struct doca_buf_inventory *inventory,
						 uint32_t *num_of_elements)
{
	if (inventory == NULL || num_of_elements == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*num_of_elements = inventory->num;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_get_num_free_elements(const struct doca_buf_inventory *inventory,
						      uint32_t *num_of_free_elements)
{
	if (inventory == NULL || num_of_free_elements == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*num_of_free_elements = inventory->nfree;
	return DOCA_SUCCESS;
}

static doca_error_t inv_get(struct doca_buf_inventory *inv, struct doca_mmap *mmap, void *addr, size_t len,
			    void *data, size_t data_len, struct doca_buf **out)
{
	struct doca_buf *b;

	b = inv->free_head;
	if (b == NULL)
		return DOCA_ERROR_NO_MEMORY;
	inv->free_head = b->free_next;
	inv->nfree--;
	b->free_next = NULL;
	b->mmap = mmap;
	b->inv = inv;
	b->addr = addr;
	b->len = len;
	b->data = data;
	b->data_len = data_len;
	b->next = NULL;
	b->last = b;
	b->list_len = 1;
	b->refcount = 1;
	b->flags = SD_BUF_IN_USE;
	atomic_fetch_add(&mmap->nbufs, 1);
	*out = b;
	return DOCA_SUCCESS;
}

void sd_inv_put(struct doca_buf *buf)
{
	struct doca_buf_inventory *inv = buf->inv;

	atomic_fetch_sub(&buf->mmap->nbufs, 1);
	buf->mmap = NULL;
	buf->addr = NULL;
	buf->data = NULL;
	buf->len = 0;
	buf->data_len = 0;
	buf->next = NULL;
	buf->last = NULL;
	buf->list_len = 0;
	buf->refcount = 0;
	buf->flags = 0;
	buf->free_next = inv->free_head;
	inv->free_head = buf;
	inv->nfree++;
}

static doca_error_t check_get(struct doca_buf_inventory *inventory, struct doca_mmap *mmap, const char *what)
{
	if (!inventory->started) {
		SD_LOG_ERR("failed to %s: inventory is not started", what);
		return DOCA_ERROR_BAD_STATE;
	}
	if (!mmap->started) {
		SD_LOG_ERR("failed to %s: mmap is not started", what);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_buf_get_by_args(struct doca_buf_inventory *inventory, struct doca_mmap *mmap,
						void *addr, size_t len, void *data, size_t data_len,
						struct doca_buf **buf)
{
	uintptr_t a = (uintptr_t)addr, d = (uintptr_t)data;
	doca_error_t ret;

	if (inventory == NULL || mmap == NULL || addr == NULL || data == NULL || buf == NULL || len == 0) {
		SD_LOG_ERR("failed to get buffer: invalid argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	ret = check_get(inventory, mmap, "get buffer");
	if (ret != DOCA_SUCCESS)
		return ret;
	if (!sd_mmap_contains(mmap, addr, len)) {
		SD_LOG_ERR("failed to get buffer: range %p + %zu is outside the mmap range %p + %zu", addr, len,
			   (void *)mmap->addr, mmap->len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (d < a || d - a > len || data_len > len - (d - a)) {
		SD_LOG_ERR("failed to get buffer: data %p + %zu is outside the buffer %p + %zu", data, data_len, addr,
			   len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	ret = inv_get(inventory, mmap, addr, len, data, data_len, buf);
	if (ret == DOCA_ERROR_NO_MEMORY)
		SD_LOG_ERR("failed to get buffer: inventory of %u elements is empty", inventory->num);
	return ret;
}

doca_error_t doca_buf_inventory_buf_dup(struct doca_buf_inventory *inventory, const struct doca_buf *src_buf,
					struct doca_buf **dst_buf)
{
	struct doca_buf *head = NULL, *tail = NULL, *nb = NULL;
	const struct doca_buf *s;
	doca_error_t ret;

	if (inventory == NULL || src_buf == NULL || dst_buf == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!(src_buf->flags & SD_BUF_IN_USE)) {
		SD_LOG_ERR("failed to duplicate buffer: source buffer is not allocated");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (src_buf->flags & SD_BUF_CHAINED_) {
		SD_LOG_ERR("failed to duplicate buffer: source is inside a list, not its head");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (inventory->nfree < src_buf->list_len) {
		SD_LOG_ERR("failed to duplicate buffer: inventory has %u free elements, %u needed", inventory->nfree,
			   src_buf->list_len);
		return DOCA_ERROR_NO_MEMORY;
	}
	for (s = src_buf; s != NULL; s = s->next) {
		ret = check_get(inventory, s->mmap, "duplicate buffer");
		if (ret != DOCA_SUCCESS)
			return ret;
	}
	for (s = src_buf; s != NULL; s = s->next) {
		inv_get(inventory, s->mmap, s->addr, s->len, s->data, s->data_len, &nb);
		if (head == NULL) {
			head = nb;
		} else {
			nb->flags |= SD_BUF_CHAINED_;
			nb->last = NULL;
			nb->list_len = 0;
			tail->next = nb;
			head->list_len++;
		}
		tail = nb;
	}
	head->last = tail;
	*dst_buf = head;
	return DOCA_SUCCESS;
}
