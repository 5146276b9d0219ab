/*
 * buf.c - doca_buf accessors, data segment, refcounts and lists.
 *
 * A list is a chain of descriptors through next; the head carries last and
 * list_len, the others are flagged SD_BUF_CHAINED_. The head's refcount
 * stands for the whole list.
 */
#include <stdint.h>

#include "mem_priv.h"
#include "sd_log.h"

SD_LOG_REGISTER(DOCA_BUF);

static bool is_head(const struct doca_buf *buf)
{
	return !(buf->flags & SD_BUF_CHAINED_);
}

static doca_error_t __attribute__((noinline, cold)) alloc_error(const struct doca_buf *buf, const char *what)
{
	if (buf == NULL) {
		SD_LOG_ERR("failed to %s: NULL buffer", what);
		return DOCA_ERROR_INVALID_VALUE;
	}
	SD_LOG_ERR("failed to %s: buffer %p is not allocated", what, (const void *)buf);
	return DOCA_ERROR_BAD_STATE;
}

/* Inline in every accessor (the data path calls some once per task); the
 * message is built out of line. */
static inline doca_error_t check_alloc(const struct doca_buf *buf, const char *what)
{
	if (__builtin_expect(buf != NULL && (buf->flags & SD_BUF_IN_USE), 1))
		return DOCA_SUCCESS;
	return alloc_error(buf, what);
}

doca_error_t doca_buf_inc_refcount(struct doca_buf *buf, uint16_t *refcount)
{
	doca_error_t ret = check_alloc(buf, "increase refcount");

	if (ret != DOCA_SUCCESS)
		return ret;
	if (!is_head(buf)) {
		SD_LOG_ERR("failed to increase refcount: buffer is not the head of its list");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (buf->refcount == UINT16_MAX) {
		SD_LOG_ERR("failed to increase refcount: already at its maximum");
		return DOCA_ERROR_TOO_BIG;
	}
	if (refcount != NULL)
		*refcount = buf->refcount;
	buf->refcount++;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_dec_refcount(struct doca_buf *buf, uint16_t *refcount)
{
	doca_error_t ret = check_alloc(buf, "decrease refcount");
	struct doca_buf *b, *next;

	if (ret != DOCA_SUCCESS)
		return ret;
	if (!is_head(buf)) {
		SD_LOG_ERR("failed to decrease refcount: buffer is not the head of its list");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (refcount != NULL)
		*refcount = buf->refcount;
	if (--buf->refcount > 0)
		return DOCA_SUCCESS;
	for (b = buf; b != NULL; b = next) {
		next = b->next;
		sd_inv_put(b);
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_get_refcount(const struct doca_buf *buf, uint16_t *refcount)
{
	if (buf == NULL || refcount == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*refcount = buf->refcount;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_get_len(const struct doca_buf *buf, size_t *len)
{
	if (buf == NULL || len == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*len = buf->len;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_get_head(const struct doca_buf *buf, void **head)
{
	if (buf == NULL || head == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*head = buf->addr;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_get_data_len(const struct doca_buf *buf, size_t *data_len)
{
	if (buf == NULL || data_len == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*data_len = buf->data_len;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_get_data(const struct doca_buf *buf, void **data)
{
	if (buf == NULL || data == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*data = buf->data;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_set_data(struct doca_buf *buf, void *data, size_t data_len)
{
	uintptr_t a, d = (uintptr_t)data;
	doca_error_t ret = check_alloc(buf, "set data");

	if (ret != DOCA_SUCCESS)
		return ret;
	a = (uintptr_t)buf->addr;
	if (data == NULL || d < a || d - a > buf->len || data_len > buf->len - (d - a)) {
		SD_LOG_ERR("failed to set data: %p + %zu is outside the buffer %p + %zu", data, data_len,
			   (void *)buf->addr, buf->len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	buf->data = data;
	buf->data_len = data_len;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_set_data_len(struct doca_buf *buf, size_t data_len)
{
	doca_error_t ret = check_alloc(buf, "set data length");
	size_t room;

	if (ret != DOCA_SUCCESS)
		return ret;
	room = buf->len - (size_t)(buf->data - buf->addr);
	if (data_len > room) {
		SD_LOG_ERR("failed to set data length: %zu exceeds the %zu bytes after the data start", data_len,
			   room);
		return DOCA_ERROR_INVALID_VALUE;
	}
	buf->data_len = data_len;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_reset_data_len(struct doca_buf *buf)
{
	doca_error_t ret = check_alloc(buf, "reset data length");

	if (ret != DOCA_SUCCESS)
		return ret;
	buf->data_len = 0;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_get_list_len(const struct doca_buf *buf, uint32_t *num_elements)
{
	if (buf == NULL || num_elements == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!is_head(buf)) {
		SD_LOG_ERR("failed to get list length: buffer is not the head of its list");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	*num_elements = buf->list_len;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_get_next_in_list(struct doca_buf *buf, struct doca_buf **next_buf)
{
	if (buf == NULL || next_buf == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*next_buf = buf->next;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_get_last_in_list(struct doca_buf *buf, struct doca_buf **last_buf)
{
	struct doca_buf *b;

	if (buf == NULL || last_buf == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (is_head(buf) && buf->last != NULL) {
		*last_buf = buf->last;
		return DOCA_SUCCESS;
	}
	for (b = buf; b->next != NULL; b = b->next)
		;
	*last_buf = b;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_is_first_in_list(const struct doca_buf *buf, uint8_t *is_first)
{
	if (buf == NULL || is_first == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*is_first = is_head(buf);
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_is_last_in_list(const struct doca_buf *buf, uint8_t *is_last)
{
	if (buf == NULL || is_last == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*is_last = buf->next == NULL;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_is_in_list(const struct doca_buf *buf, uint8_t *is_in_list)
{
	if (buf == NULL || is_in_list == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*is_in_list = !is_head(buf) || buf->list_len > 1;
	return DOCA_SUCCESS;
}

static doca_error_t check_chain(struct doca_buf *list1, struct doca_buf *list2)
{
	doca_error_t ret;

	ret = check_alloc(list1, "chain lists");
	if (ret != DOCA_SUCCESS)
		return ret;
	ret = check_alloc(list2, "chain lists");
	if (ret != DOCA_SUCCESS)
		return ret;
	if (list1 == list2) {
		SD_LOG_ERR("failed to chain lists: a list cannot be chained to itself");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!is_head(list1) || !is_head(list2)) {
		SD_LOG_ERR("failed to chain lists: both buffers must be list heads");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (list2->refcount != 1) {
		SD_LOG_ERR("failed to chain lists: list2 must have refcount 1 (has %u)", list2->refcount);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if ((uint64_t)list1->list_len + list2->list_len > UINT32_MAX)
		return DOCA_ERROR_TOO_BIG;
	return DOCA_SUCCESS;
}

static void do_chain(struct doca_buf *list1, struct doca_buf *tail, struct doca_buf *list2)
{
	tail->next = list2;
	list1->last = list2->last;
	list1->list_len += list2->list_len;
	list2->flags |= SD_BUF_CHAINED_;
	list2->last = NULL;
	list2->list_len = 0;
}

doca_error_t doca_buf_chain_list(struct doca_buf *list1, struct doca_buf *list2)
{
	doca_error_t ret = check_chain(list1, list2);

	if (ret != DOCA_SUCCESS)
		return ret;
	do_chain(list1, list1->last, list2);
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_chain_list_tail(struct doca_buf *list1_head, struct doca_buf *list1_tail,
				      struct doca_buf *list2)
{
	doca_error_t ret;

	if (list1_tail == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	ret = check_chain(list1_head, list2);
	if (ret != DOCA_SUCCESS)
		return ret;
	if (list1_head->last != list1_tail) {
		SD_LOG_ERR("failed to chain lists: the given tail is not the last element of list1");
		return DOCA_ERROR_INVALID_VALUE;
	}
	do_chain(list1_head, list1_tail, list2);
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_unchain_list(struct doca_buf *list1, struct doca_buf *list2)
{
	struct doca_buf *prev;
	uint32_t pos = 1;
	doca_error_t ret;

	ret = check_alloc(list1, "unchain lists");
	if (ret != DOCA_SUCCESS)
		return ret;
	ret = check_alloc(list2, "unchain lists");
	if (ret != DOCA_SUCCESS)
		return ret;
	if (!is_head(list1)) {
		SD_LOG_ERR("failed to unchain lists: list1 must be a list head");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	for (prev = list1; prev->next != NULL && prev->next != list2; prev = prev->next)
		pos++;
	if (prev->next != list2) {
		SD_LOG_ERR("failed to unchain lists: list2 is not an element of list1 after its head");
		return DOCA_ERROR_INVALID_VALUE;
	}
	prev->next = NULL;
	list2->flags &= (uint16_t)~SD_BUF_CHAINED_;
	list2->last = list1->last;
	list2->list_len = list1->list_len - pos;
	list2->refcount = 1;
	list1->last = prev;
	list1->list_len = pos;
	return DOCA_SUCCESS;
}

size_t sd_buf_chain_data_len(const struct doca_buf *head)
{
	size_t n = 0;

	for (const struct doca_buf *b = head; b != NULL; b = b->next)
		n += b->data_len;
	return n;
}
