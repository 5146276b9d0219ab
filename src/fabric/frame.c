/* Frame header encoding and checking: the only place that trusts nothing. */
#include <string.h>

#include "sd_fabric.h"

void sd_frame_hdr_init(struct sd_frame_hdr *hdr, uint16_t type, uint32_t flags, uint32_t length, uint64_t seq)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->magic = SD_FRAME_MAGIC;
	hdr->version = SD_FRAME_VERSION;
	hdr->type = type;
	hdr->flags = flags;
	hdr->length = length;
	hdr->seq = seq;
}

const char *sd_frame_type_name(uint16_t type)
{
	switch (type) {
	case SD_FRAME_HELLO:
		return "HELLO";
	case SD_FRAME_ACCEPT:
		return "ACCEPT";
	case SD_FRAME_REJECT:
		return "REJECT";
	case SD_FRAME_MSG:
		return "MSG";
	case SD_FRAME_BYE:
		return "BYE";
	default:
		if (type >= SD_FRAME_FP_FIRST && type <= SD_FRAME_FP_LAST)
			return "FASTPATH";
		return "UNKNOWN";
	}
}

static doca_error_t body_size_ok(uint16_t type, uint32_t len, const char **why)
{
	switch (type) {
	case SD_FRAME_HELLO:
		if (len != sizeof(struct sd_frame_hello))
			goto bad;
		return DOCA_SUCCESS;
	case SD_FRAME_ACCEPT:
		if (len != sizeof(struct sd_frame_accept))
			goto bad;
		return DOCA_SUCCESS;
	case SD_FRAME_REJECT:
		if (len != sizeof(struct sd_frame_reject))
			goto bad;
		return DOCA_SUCCESS;
	case SD_FRAME_MSG:
		if (len == 0 || len > SD_FRAME_MAX_MSG)
			goto bad;
		return DOCA_SUCCESS;
	case SD_FRAME_BYE:
		if (len != 0)
			goto bad;
		return DOCA_SUCCESS;
	default:
		if (type >= SD_FRAME_FP_FIRST && type <= SD_FRAME_FP_LAST) {
			if (len > SD_FRAME_FP_MAX_BODY)
				goto bad;
			return DOCA_SUCCESS;
		}
		*why = "unknown frame type";
		return DOCA_ERROR_INVALID_VALUE;
	}
bad:
	*why = "body size does not match the frame type";
	return DOCA_ERROR_INVALID_VALUE;
}

doca_error_t sd_frame_parse(const void *buf, size_t received, struct sd_frame_view *view, const char **why)
{
	struct sd_frame_hdr hdr;
	const char *dummy;
	doca_error_t err;

	if (why == NULL)
		why = &dummy;
	*why = "ok";
	if (buf == NULL || view == NULL) {
		*why = "no buffer";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (received < sizeof(hdr)) {
		*why = "truncated header";
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(&hdr, buf, sizeof(hdr));
	if (hdr.magic != SD_FRAME_MAGIC) {
		*why = "bad magic";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (hdr.version != SD_FRAME_VERSION) {
		*why = "unsupported frame version";
		return DOCA_ERROR_UNSUPPORTED_VERSION;
	}
	if (hdr.length > SD_FRAME_MAX_BODY) {
		*why = "oversized frame";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((size_t)hdr.length != received - sizeof(hdr)) {
		*why = hdr.length > received - sizeof(hdr) ? "truncated body" : "trailing bytes after body";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (hdr.flags & ~SD_FRAME_F_FD) {
		*why = "unknown frame flags";
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = body_size_ok(hdr.type, hdr.length, why);
	if (err != DOCA_SUCCESS)
		return err;
	view->type = hdr.type;
	view->flags = hdr.flags;
	view->seq = hdr.seq;
	view->length = hdr.length;
	view->body = hdr.length ? (const uint8_t *)buf + sizeof(hdr) : NULL;
	return DOCA_SUCCESS;
}
