/*
 * inventory.c - doca_buf_inventory: a pool of doca_buf descriptors.
 *
 * Descriptors live in chunks for the inventory's lifetime (one from create,
 * one more per expand); the free ones form a singly linked list through
 * free_next, so get and put are O(1). The lock is taken only for buffers of
 * thread-safe mmaps (see mem_priv.h), so the single-threaded path stays a
 * plain list operation.
 */
#include <stdlib.h>
#include <string.h>

#include "mem_priv.h"
#include "sd_log.h"

SD_LOG_REGISTER(DOCA_BUF_INVENTORY);

/* A chunk of n free descriptors, put in front of the free list in address order. */
static doca_error_t add_chunk(struct doca_buf_inventory *inv, uint32_t n)
{
	struct sd_inv_chunk *c;

	c = calloc(1, sizeof(*c) + (size_t)n * sizeof(c->elems[0]));
	if (c == NULL)
		return DOCA_ERROR_NO_MEMORY;
	c->n = n;
	for (uint32_t i = n; i-- > 0;) {
		c->elems[i].inv = inv;
		c->elems[i].free_next = inv->free_head;
		inv->free_head = &c->elems[i];
	}
	c->next = inv->chunks;
	inv->chunks = c;
	inv->num += n;
	inv->nfree += n;
	return DOCA_SUCCESS;
}

doca_error_t sd_inv_init(struct doca_buf_inventory *inv, uint32_t num)
{
	memset(inv, 0, sizeof(*inv));
	if (pthread_mutex_init(&inv->lock, NULL) != 0)
		return DOCA_ERROR_OPERATING_SYSTEM;
	if (add_chunk(inv, num) != DOCA_SUCCESS) {
		pthread_mutex_destroy(&inv->lock);
		return DOCA_ERROR_NO_MEMORY;
	}
	return DOCA_SUCCESS;
}

void sd_inv_fini(struct doca_buf_inventory *inv)
{
	struct sd_inv_chunk *c, *next;

	for (c = inv->chunks; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	inv->chunks = NULL;
	pthread_mutex_destroy(&inv->lock);
}

doca_error_t doca_buf_inventory_create(size_t num_elements, struct doca_buf_inventory **inventory)
{
	struct doca_buf_inventory *inv;
	doca_error_t ret;

	if (inventory == NULL || num_elements == 0 || num_elements > UINT32_MAX) {
		SD_LOG_ERR("failed to create inventory: invalid argument (num_elements %zu)", num_elements);
		return DOCA_ERROR_INVALID_VALUE;
	}
	inv = malloc(sizeof(*inv));
	if (inv == NULL)
		return DOCA_ERROR_NO_MEMORY;
	ret = sd_inv_init(inv, (uint32_t)num_elements);
	if (ret != DOCA_SUCCESS) {
		free(inv);
		SD_LOG_ERR("failed to create inventory: cannot allocate %zu elements", num_elements);
		return ret;
	}
	*inventory = inv;
	SD_LOG_DBG("inventory %p created: %zu element(s)", (void *)inv, num_elements);
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_destroy(struct doca_buf_inventory *inventory)
{
	uint32_t used;

	if (inventory == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&inventory->lock);
	used = inventory->num - inventory->nfree;
	pthread_mutex_unlock(&inventory->lock);
	if (used != 0) {
		SD_LOG_ERR("failed to destroy inventory: %u buffer(s) still in use", used);
		return DOCA_ERROR_IN_USE;
	}
	SD_LOG_DBG("inventory %p destroyed: %u element(s)", (void *)inventory, inventory->num);
	sd_inv_fini(inventory);
	free(inventory);
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_expand(struct doca_buf_inventory *inventory, uint32_t num_elements)
{
	doca_error_t ret;

	if (inventory == NULL || num_elements == 0) {
		SD_LOG_ERR("failed to expand inventory: invalid argument (num_elements %u)", num_elements);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!inventory->started) {
		SD_LOG_ERR("failed to expand inventory: inventory is not started");
		return DOCA_ERROR_BAD_STATE;
	}
	pthread_mutex_lock(&inventory->lock);
	if (num_elements > UINT32_MAX - inventory->num) {
		pthread_mutex_unlock(&inventory->lock);
		SD_LOG_ERR("failed to expand inventory: %u + %u elements exceed %u", inventory->num, num_elements,
			   UINT32_MAX);
		return DOCA_ERROR_INVALID_VALUE;
	}
	ret = add_chunk(inventory, num_elements);
	pthread_mutex_unlock(&inventory->lock);
	if (ret != DOCA_SUCCESS)
		SD_LOG_ERR("failed to expand inventory: cannot allocate %u elements", num_elements);
	return ret;
}

doca_error_t doca_buf_inventory_start(struct doca_buf_inventory *inventory)
{
	if (inventory == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	/*
	 * DOCA lists no failure but a bad argument, and speaks of what the
	 * "first" start finalizes: start may be called again (after a stop or
	 * not), and on a started inventory there is nothing left to do.
	 */
	inventory->started = true;
	SD_LOG_DBG("inventory %p started: %u element(s)", (void *)inventory, inventory->num);
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
	struct doca_buf_inventory *inv = (struct doca_buf_inventory *)inventory;

	if (inventory == NULL || num_of_elements == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&inv->lock);
	*num_of_elements = inv->num;
	pthread_mutex_unlock(&inv->lock);
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_get_num_free_elements(const struct doca_buf_inventory *inventory,
						      uint32_t *num_of_free_elements)
{
	struct doca_buf_inventory *inv = (struct doca_buf_inventory *)inventory;

	if (inventory == NULL || num_of_free_elements == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&inv->lock);
	*num_of_free_elements = inv->nfree;
	pthread_mutex_unlock(&inv->lock);
	return DOCA_SUCCESS;
}

struct doca_buf *sd_inv_take(struct doca_buf_inventory *inv, bool lock)
{
	struct doca_buf *b;

	if (lock)
		pthread_mutex_lock(&inv->lock);
	b = inv->free_head;
	if (b != NULL) {
		inv->free_head = b->free_next;
		inv->nfree--;
		b->free_next = NULL;
	}
	if (lock)
		pthread_mutex_unlock(&inv->lock);
	SD_LOG_TRC("inventory %p: buffer %p taken", (void *)inv, (void *)b);
	return b;
}

/* Point a descriptor just taken at memory of mmap, as a list of one. */
static void buf_fill(struct doca_buf *b, struct doca_buf_inventory *inv, struct doca_mmap *mmap, void *addr,
		     size_t len, void *data, size_t data_len)
{
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
	if (mmap->thread_safe) {
		b->flags = SD_BUF_IN_USE | SD_BUF_UNCOUNTED_ | SD_BUF_LOCKED_;
	} else {
		b->flags = SD_BUF_IN_USE;
		atomic_fetch_add(&mmap->nbufs, 1);
	}
}

static doca_error_t inv_get(struct doca_buf_inventory *inv, struct doca_mmap *mmap, void *addr, size_t len,
			    void *data, size_t data_len, struct doca_buf **out)
{
	struct doca_buf *b;

	b = sd_inv_take(inv, mmap->thread_safe);
	if (b == NULL)
		return DOCA_ERROR_NO_MEMORY;
	buf_fill(b, inv, mmap, addr, len, data, data_len);
	*out = b;
	return DOCA_SUCCESS;
}

void sd_inv_put(struct doca_buf *buf)
{
	struct doca_buf_inventory *inv = buf->inv;
	bool lock = (buf->flags & SD_BUF_LOCKED_) != 0;

	/* an uncounted buffer may outlive its (thread-safe) mmap: do not touch it */
	if (!(buf->flags & SD_BUF_UNCOUNTED_))
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
	if (lock)
		pthread_mutex_lock(&inv->lock);
	SD_LOG_TRC("inventory %p: buffer %p returned", (void *)inv, (void *)buf);
	buf->free_next = inv->free_head;
	inv->free_head = buf;
	inv->nfree++;
	if (lock)
		pthread_mutex_unlock(&inv->lock);
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
	bool lock = false;
	uint32_t nfree;
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
	for (s = src_buf; s != NULL; s = s->next) {
		ret = check_get(inventory, s->mmap, "duplicate buffer");
		if (ret != DOCA_SUCCESS)
			return ret;
		lock = lock || s->mmap->thread_safe;
	}
	/* the whole list comes out at once: no other thread may take in between */
	if (lock)
		pthread_mutex_lock(&inventory->lock);
	nfree = inventory->nfree;
	if (nfree < src_buf->list_len) {
		if (lock)
			pthread_mutex_unlock(&inventory->lock);
		SD_LOG_ERR("failed to duplicate buffer: inventory has %u free elements, %u needed", nfree,
			   src_buf->list_len);
		return DOCA_ERROR_NO_MEMORY;
	}
	for (s = src_buf; s != NULL; s = s->next) {
		nb = sd_inv_take(inventory, false);
		buf_fill(nb, inventory, s->mmap, s->addr, s->len, s->data, s->data_len);
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
	if (lock)
		pthread_mutex_unlock(&inventory->lock);
	head->last = tail;
	*dst_buf = head;
	return DOCA_SUCCESS;
}
