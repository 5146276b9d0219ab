/*
 * common.c - device opening, core objects and small helpers shared by the
 * samples and applications (see common.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_log.h>

#include "common.h"

DOCA_LOG_REGISTER(COMMON);

/* A context that never reaches idle must not hang the program forever. */
#define STOP_TIMEOUT_SEC 30

doca_error_t open_doca_device_with_pci(const char *pci_addr, tasks_check func, struct doca_dev **retval)
{
	struct doca_devinfo **list;
	uint32_t n;
	uint8_t eq;
	doca_error_t res;

	if (pci_addr == NULL || retval == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*retval = NULL;
	res = doca_devinfo_create_list(&list, &n);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to load doca devices list: %s", doca_error_get_descr(res));
		return res;
	}
	for (uint32_t i = 0; i < n; i++) {
		res = doca_devinfo_is_equal_pci_addr(list[i], pci_addr, &eq);
		if (res != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Invalid PCI address %s: %s", pci_addr, doca_error_get_descr(res));
			doca_devinfo_destroy_list(list);
			return res;
		}
		if (!eq)
			continue;
		if (func != NULL && func(list[i]) != DOCA_SUCCESS)
			continue;
		res = doca_dev_open(list[i], retval);
		if (res == DOCA_SUCCESS) {
			doca_devinfo_destroy_list(list);
			return res;
		}
	}
	DOCA_LOG_WARN("Matching device not found");
	doca_devinfo_destroy_list(list);
	return DOCA_ERROR_NOT_FOUND;
}

typedef doca_error_t (*name_getter)(const struct doca_devinfo *, char *, uint32_t);

static doca_error_t open_by_name(const uint8_t *value, size_t val_size, tasks_check func, struct doca_dev **retval,
				 name_getter get, uint32_t size)
{
	struct doca_devinfo **list;
	char *name;
	uint32_t n;
	doca_error_t res;

	if (value == NULL || retval == NULL || val_size == 0 || val_size >= size)
		return DOCA_ERROR_INVALID_VALUE;
	*retval = NULL;
	name = calloc(1, size);
	if (name == NULL)
		return DOCA_ERROR_NO_MEMORY;
	res = doca_devinfo_create_list(&list, &n);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to load doca devices list: %s", doca_error_get_descr(res));
		free(name);
		return res;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (get(list[i], name, size) != DOCA_SUCCESS)
			continue;
		if (strlen(name) != val_size || memcmp(name, value, val_size) != 0)
			continue;
		if (func != NULL && func(list[i]) != DOCA_SUCCESS)
			continue;
		res = doca_dev_open(list[i], retval);
		if (res == DOCA_SUCCESS)
			break;
	}
	doca_devinfo_destroy_list(list);
	free(name);
	if (*retval != NULL)
		return DOCA_SUCCESS;
	DOCA_LOG_WARN("Matching device not found");
	return DOCA_ERROR_NOT_FOUND;
}

doca_error_t open_doca_device_with_ibdev_name(const uint8_t *value, size_t val_size, tasks_check func,
					      struct doca_dev **retval)
{
	return open_by_name(value, val_size, func, retval, doca_devinfo_get_ibdev_name, DOCA_DEVINFO_IBDEV_NAME_SIZE);
}

doca_error_t open_doca_device_with_iface_name(const uint8_t *value, size_t val_size, tasks_check func,
					      struct doca_dev **retval)
{
	return open_by_name(value, val_size, func, retval, doca_devinfo_get_iface_name, DOCA_DEVINFO_IFACE_NAME_SIZE);
}

doca_error_t open_doca_device_with_capabilities(tasks_check func, struct doca_dev **retval)
{
	struct doca_devinfo **list;
	uint32_t n;
	doca_error_t res;

	if (retval == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*retval = NULL;
	res = doca_devinfo_create_list(&list, &n);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to load doca devices list: %s", doca_error_get_descr(res));
		return res;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (func != NULL && func(list[i]) != DOCA_SUCCESS)
			continue;
		if (doca_dev_open(list[i], retval) == DOCA_SUCCESS)
			break;
	}
	doca_devinfo_destroy_list(list);
	if (*retval != NULL)
		return DOCA_SUCCESS;
	DOCA_LOG_WARN("Matching device not found");
	return DOCA_ERROR_NOT_FOUND;
}

doca_error_t open_doca_device_rep_with_pci(struct doca_dev *local, enum doca_devinfo_rep_filter filter,
					   const char *pci_addr, struct doca_dev_rep **retval)
{
	struct doca_devinfo_rep **list;
	uint32_t n;
	uint8_t eq;
	doca_error_t res;

	if (local == NULL || pci_addr == NULL || retval == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*retval = NULL;
	res = doca_devinfo_rep_create_list(local, filter, &list, &n);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to list the device's representors: %s%s", doca_error_get_descr(res),
			     res == DOCA_ERROR_NOT_SUPPORTED ? " (representors exist only on the BlueField Arm side)" : "");
		return res;
	}
	for (uint32_t i = 0; i < n; i++) {
		res = doca_devinfo_rep_is_equal_pci_addr(list[i], pci_addr, &eq);
		if (res != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Invalid representor PCI address %s: %s", pci_addr, doca_error_get_descr(res));
			doca_devinfo_rep_destroy_list(list);
			return res;
		}
		if (eq && doca_dev_rep_open(list[i], retval) == DOCA_SUCCESS)
			break;
	}
	doca_devinfo_rep_destroy_list(list);
	if (*retval != NULL)
		return DOCA_SUCCESS;
	DOCA_LOG_WARN("Matching device not found");
	return DOCA_ERROR_NOT_FOUND;
}

doca_error_t create_core_objects(struct program_core_objects *state, uint32_t max_bufs)
{
	doca_error_t res;

	if (state == NULL || state->dev == NULL || max_bufs == 0)
		return DOCA_ERROR_INVALID_VALUE;

	res = doca_mmap_create(&state->src_mmap);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to create source mmap: %s", doca_error_get_descr(res));
		return res;
	}
	res = doca_mmap_add_dev(state->src_mmap, state->dev);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to add device to source mmap: %s", doca_error_get_descr(res));
		goto destroy_src;
	}
	res = doca_mmap_create(&state->dst_mmap);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to create destination mmap: %s", doca_error_get_descr(res));
		goto destroy_src;
	}
	res = doca_mmap_add_dev(state->dst_mmap, state->dev);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to add device to destination mmap: %s", doca_error_get_descr(res));
		goto destroy_dst;
	}
	res = doca_buf_inventory_create(max_bufs, &state->buf_inv);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to create buffer inventory: %s", doca_error_get_descr(res));
		goto destroy_dst;
	}
	res = doca_buf_inventory_start(state->buf_inv);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to start buffer inventory: %s", doca_error_get_descr(res));
		goto destroy_inv;
	}
	res = doca_pe_create(&state->pe);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to create progress engine: %s", doca_error_get_descr(res));
		goto destroy_inv;
	}
	return DOCA_SUCCESS;

destroy_inv:
	doca_buf_inventory_destroy(state->buf_inv);
	state->buf_inv = NULL;
destroy_dst:
	doca_mmap_destroy(state->dst_mmap);
	state->dst_mmap = NULL;
destroy_src:
	doca_mmap_destroy(state->src_mmap);
	state->src_mmap = NULL;
	return res;
}

doca_error_t destroy_core_objects(struct program_core_objects *state)
{
	doca_error_t res = DOCA_SUCCESS, tmp;

	if (state == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (state->buf_inv != NULL) {
		tmp = doca_buf_inventory_destroy(state->buf_inv);
		if (tmp != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to destroy buffer inventory: %s", doca_error_get_descr(tmp));
			DOCA_ERROR_PROPAGATE(res, tmp);
		} else {
			state->buf_inv = NULL;
		}
	}
	if (state->dst_mmap != NULL) {
		tmp = doca_mmap_destroy(state->dst_mmap);
		if (tmp != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to destroy destination mmap: %s", doca_error_get_descr(tmp));
			DOCA_ERROR_PROPAGATE(res, tmp);
		} else {
			state->dst_mmap = NULL;
		}
	}
	if (state->src_mmap != NULL) {
		tmp = doca_mmap_destroy(state->src_mmap);
		if (tmp != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to destroy source mmap: %s", doca_error_get_descr(tmp));
			DOCA_ERROR_PROPAGATE(res, tmp);
		} else {
			state->src_mmap = NULL;
		}
	}
	if (state->pe != NULL) {
		tmp = doca_pe_destroy(state->pe);
		if (tmp != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to destroy progress engine: %s", doca_error_get_descr(tmp));
			DOCA_ERROR_PROPAGATE(res, tmp);
		} else {
			state->pe = NULL;
		}
	}
	if (state->dev != NULL) {
		tmp = doca_dev_close(state->dev);
		if (tmp != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to close device: %s", doca_error_get_descr(tmp));
			DOCA_ERROR_PROPAGATE(res, tmp);
		} else {
			state->dev = NULL;
		}
	}
	return res;
}

doca_error_t request_stop_ctx(struct doca_pe *pe, struct doca_ctx *ctx)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_STOPPING;
	struct timespec ts = {.tv_sec = 0, .tv_nsec = 10000};
	struct timespec start, now;
	doca_error_t res;

	if (pe == NULL || ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	res = doca_ctx_stop(ctx);
	if (res == DOCA_SUCCESS)
		return DOCA_SUCCESS;
	if (res != DOCA_ERROR_IN_PROGRESS) {
		DOCA_LOG_ERR("Failed to stop context: %s", doca_error_get_descr(res));
		return res;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		if (doca_pe_progress(pe) == 0)
			nanosleep(&ts, NULL);
		res = doca_ctx_get_state(ctx, &st);
		if (res != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to query context state: %s", doca_error_get_descr(res));
			return res;
		}
		if (st == DOCA_CTX_STATE_IDLE)
			return DOCA_SUCCESS;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec > STOP_TIMEOUT_SEC) {
			DOCA_LOG_ERR("Context did not reach idle within %d seconds", STOP_TIMEOUT_SEC);
			return DOCA_ERROR_TIME_OUT;
		}
	}
}

char *hex_dump(const void *data, size_t size)
{
	const uint8_t *p = data;
	size_t lines, cap, off = 0;
	char *out;

	if (data == NULL && size != 0)
		return NULL;
	/* per line: 8 offset + 2 + 16*3 + 1 + 16 ascii + 2 bars + newline */
	lines = (size + 15) / 16;
	cap = lines * 80 + 1;
	out = malloc(cap);
	if (out == NULL)
		return NULL;
	out[0] = '\0';
	for (size_t i = 0; i < size; i += 16) {
		size_t n = size - i < 16 ? size - i : 16;

		off += (size_t)snprintf(out + off, cap - off, "%08zx  ", i);
		for (size_t j = 0; j < 16; j++) {
			if (j < n)
				off += (size_t)snprintf(out + off, cap - off, "%02x ", p[i + j]);
			else
				off += (size_t)snprintf(out + off, cap - off, "   ");
		}
		off += (size_t)snprintf(out + off, cap - off, " |");
		for (size_t j = 0; j < n; j++)
			out[off++] = isprint(p[i + j]) ? (char)p[i + j] : '.';
		off += (size_t)snprintf(out + off, cap - off, "|\n");
	}
	return out;
}
