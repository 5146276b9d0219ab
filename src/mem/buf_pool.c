/*
 * buf_pool.c - doca_buf_pool: fixed elements of one mmap, one doca_buf each.
 *
 * The pool embeds an inventory whose descriptors stand for its elements:
 * descriptor i is element i, so a buffer knows its element from its place in
 * the (single) chunk, and releasing a pool buffer goes through the ordinary
 * sd_inv_put path without knowing about pools. Element addresses are
 * computed at start, when the alignment can no longer change.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_buf_pool.h>

#include "mem_priv.h"
#include "sd_log.h"

SD_LOG_REGISTER(DOCA_BUF_POOL);

struct doca_buf_pool {
	struct doca_buf_inventory inv; /* one chunk: descriptor i is element i */
	struct doca_mmap *mmap;
	uint32_t num;
	size_t elem_size;
	size_t align;
	bool started;
	bool counted;                  /* the elements count in mmap->nbufs */
	union doca_data user_data;
	uint8_t *first;                /* element 0, set at start */
	size_t stride;
};

doca_error_t doca_buf_pool_create(size_t num_elements, size_t element_size, const struct doca_mmap *mmap,
				  struct doca_buf_pool **buf_pool)
{
	struct doca_buf_pool *pool;
	doca_error_t ret;

	if (mmap == NULL || buf_pool == NULL || num_elements == 0 || num_elements > UINT32_MAX || element_size == 0) {
		SD_LOG_ERR("failed to create buffer pool: invalid argument (%zu elements of %zu bytes)", num_elements,
			   element_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!mmap->range_set) {
		SD_LOG_ERR("failed to create buffer pool: the mmap has no memory range");
		return DOCA_ERROR_INVALID_VALUE;
	}
	pool = calloc(1, sizeof(*pool));
	if (pool == NULL)
		return DOCA_ERROR_NO_MEMORY;
	ret = sd_inv_init(&pool->inv, (uint32_t)num_elements);
	if (ret != DOCA_SUCCESS) {
		free(pool);
		SD_LOG_ERR("failed to create buffer pool: cannot allocate %zu elements", num_elements);
		return DOCA_ERROR_NO_MEMORY;
	}
	/* the descriptors are the pool's; they never serve get_by_* calls */
	pool->inv.started = true;
	pool->mmap = (struct doca_mmap *)mmap;
	pool->num = (uint32_t)num_elements;
	pool->elem_size = element_size;
	pool->align = 1;
	*buf_pool = pool;
	return DOCA_SUCCESS;
}

static uint32_t pool_used(struct doca_buf_pool *pool)
{
	uint32_t used;

	pthread_mutex_lock(&pool->inv.lock);
	used = pool->inv.num - pool->inv.nfree;
	pthread_mutex_unlock(&pool->inv.lock);
	return used;
}

static void pool_do_stop(struct doca_buf_pool *pool)
{
	if (pool->counted)
		atomic_fetch_sub(&pool->mmap->nbufs, pool->num);
	pool->counted = false;
	pool->started = false;
}

doca_error_t doca_buf_pool_destroy(struct doca_buf_pool *buf_pool)
{
	uint32_t used;

	if (buf_pool == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	used = pool_used(buf_pool);
	if (used != 0) {
		SD_LOG_ERR("failed to destroy buffer pool: %u buffer(s) still allocated", used);
		return DOCA_ERROR_IN_USE;
	}
	if (buf_pool->started)
		pool_do_stop(buf_pool);
	sd_inv_fini(&buf_pool->inv);
	free(buf_pool);
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_start(struct doca_buf_pool *buf_pool)
{
	uintptr_t base, first;
	size_t stride, need;
	struct doca_mmap *mmap;

	if (buf_pool == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (buf_pool->started) {
		SD_LOG_ERR("failed to start buffer pool: already started");
		return DOCA_ERROR_BAD_STATE;
	}
	mmap = buf_pool->mmap;
	if (!mmap->started) {
		SD_LOG_ERR("failed to start buffer pool: its mmap is not started");
		return DOCA_ERROR_BAD_STATE;
	}
	base = (uintptr_t)mmap->addr;
	first = (base + buf_pool->align - 1) & ~(uintptr_t)(buf_pool->align - 1);
	stride = (buf_pool->elem_size + buf_pool->align - 1) & ~(buf_pool->align - 1);
	/* the last element needs only its own size, not a full stride */
	if (first < base || stride < buf_pool->elem_size ||
	    (buf_pool->num > 1 && stride > (SIZE_MAX - buf_pool->elem_size) / (buf_pool->num - 1))) {
		SD_LOG_ERR("failed to start buffer pool: %u elements of %zu bytes overflow the address space",
			   buf_pool->num, buf_pool->elem_size);
		return DOCA_ERROR_INITIALIZATION;
	}
	need = (size_t)(buf_pool->num - 1) * stride + buf_pool->elem_size;
	if (first - base > mmap->len || need > mmap->len - (first - base)) {
		SD_LOG_ERR("failed to start buffer pool: %u elements of %zu bytes (alignment %zu) need more than the "
			   "mmap's %zu bytes",
			   buf_pool->num, buf_pool->elem_size, buf_pool->align, mmap->len);
		return DOCA_ERROR_INITIALIZATION;
	}
	buf_pool->first = (uint8_t *)first;
	buf_pool->stride = stride;
	buf_pool->counted = !mmap->thread_safe;
	if (buf_pool->counted)
		atomic_fetch_add(&mmap->nbufs, buf_pool->num);
	buf_pool->started = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_stop(struct doca_buf_pool *buf_pool)
{
	uint32_t used;

	if (buf_pool == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	/* stopping a pool that is not started has nothing to do; DOCA lists
	 * no state error for stop (as for an idle ctx) */
	if (!buf_pool->started)
		return DOCA_SUCCESS;
	used = pool_used(buf_pool);
	if (used != 0) {
		SD_LOG_ERR("failed to stop buffer pool: %u buffer(s) still allocated", used);
		return DOCA_ERROR_IN_USE;
	}
	pool_do_stop(buf_pool);
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_set_user_data(struct doca_buf_pool *buf_pool, union doca_data user_data)
{
	if (buf_pool == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (buf_pool->started) {
		SD_LOG_ERR("failed to set buffer pool user data: pool is started");
		return DOCA_ERROR_BAD_STATE;
	}
	buf_pool->user_data = user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_get_user_data(const struct doca_buf_pool *buf_pool, union doca_data *user_data)
{
	if (buf_pool == NULL || user_data == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*user_data = buf_pool->user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_set_element_alignment(struct doca_buf_pool *buf_pool, size_t element_alignment)
{
	if (buf_pool == NULL || element_alignment == 0 || (element_alignment & (element_alignment - 1)) != 0) {
		SD_LOG_ERR("failed to set buffer pool element alignment: %zu is not a power of 2", element_alignment);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (buf_pool->started) {
		SD_LOG_ERR("failed to set buffer pool element alignment: pool is started");
		return DOCA_ERROR_BAD_STATE;
	}
	buf_pool->align = element_alignment;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_get_element_alignment(const struct doca_buf_pool *buf_pool, size_t *element_alignment)
{
	if (buf_pool == NULL || element_alignment == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*element_alignment = buf_pool->align;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_get_num_elements(const struct doca_buf_pool *buf_pool, uint32_t *num_of_elements)
{
	if (buf_pool == NULL || num_of_elements == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*num_of_elements = buf_pool->num;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_get_num_free_elements(const struct doca_buf_pool *buf_pool,
						 uint32_t *num_of_free_elements)
{
	if (buf_pool == NULL || num_of_free_elements == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*num_of_free_elements = buf_pool->num - pool_used((struct doca_buf_pool *)buf_pool);
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_buf_alloc(struct doca_buf_pool *buf_pool, struct doca_buf **buf)
{
	struct doca_mmap *mmap;
	struct doca_buf *b;
	size_t idx;

	if (buf_pool == NULL || buf == NULL) {
		SD_LOG_ERR("failed to allocate buffer from pool: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	mmap = buf_pool->mmap;
	if (!buf_pool->started || !mmap->started) {
		SD_LOG_ERR("failed to allocate buffer from pool: %s is not started", buf_pool->started ? "its mmap" : "pool");
		return DOCA_ERROR_BAD_STATE;
	}
	b = sd_inv_take(&buf_pool->inv, mmap->thread_safe);
	if (b == NULL) {
		/* every element is out: back-pressure, not a fault */
		SD_LOG_DBG("buffer pool of %u elements is empty", buf_pool->num);
		return DOCA_ERROR_EMPTY;
	}
	idx = (size_t)(b - buf_pool->inv.chunks->elems);
	b->mmap = mmap;
	b->inv = &buf_pool->inv;
	b->addr = buf_pool->first + idx * buf_pool->stride;
	b->len = buf_pool->elem_size;
	b->data = b->addr;
	b->data_len = 0;
	b->next = NULL;
	b->last = b;
	b->list_len = 1;
	b->refcount = 1;
	b->flags = SD_BUF_IN_USE | SD_BUF_UNCOUNTED_ | (mmap->thread_safe ? SD_BUF_LOCKED_ : 0);
	*buf = b;
	return DOCA_SUCCESS;
}
