/*
 * common.c - device opening, core objects and small helpers shared by the
 * samples and applications (see common.h).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_log.h>

#include "common.h"

DOCA_LOG_REGISTER(COMMON);

/* A context that never reaches idle must not hang the program forever. */
#define STOP_TIMEOUT_SEC 30

/* Whether a device is the one asked for; an error ends the search with it. */
typedef doca_error_t (*devinfo_match)(struct doca_devinfo *info, const void *arg, bool *match);

/* Opens the first device that matches (all do with a NULL match) and passes
 * func: the loop every open_doca_device_with_* shares. */
static doca_error_t open_matching(devinfo_match match, const void *arg, tasks_check func, struct doca_dev **retval)
{
	struct doca_devinfo **list;
	uint32_t n;
	bool ok;
	doca_error_t res;

	res = doca_devinfo_create_list(&list, &n);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to load doca devices list: %s", doca_error_get_descr(res));
		return res;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (match != NULL) {
			res = match(list[i], arg, &ok);
			if (res != DOCA_SUCCESS) {
				doca_devinfo_destroy_list(list);
				return res;
			}
			if (!ok)
				continue;
		}
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

static doca_error_t match_pci(struct doca_devinfo *info, const void *arg, bool *match)
{
	const char *pci_addr = arg;
	uint8_t eq = 0;
	doca_error_t res = doca_devinfo_is_equal_pci_addr(info, pci_addr, &eq);

	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Invalid PCI address %s: %s", pci_addr, doca_error_get_descr(res));
		return res;
	}
	*match = eq != 0;
	return DOCA_SUCCESS;
}

doca_error_t open_doca_device_with_pci(const char *pci_addr, tasks_check func, struct doca_dev **retval)
{
	if (pci_addr == NULL || retval == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*retval = NULL;
	return open_matching(match_pci, pci_addr, func, retval);
}

typedef doca_error_t (*name_getter)(const struct doca_devinfo *, char *, uint32_t);

struct name_query {
	const uint8_t *value;
	size_t val_size;
	name_getter get;
	char *name;
	uint32_t size;
};

static doca_error_t match_name(struct doca_devinfo *info, const void *arg, bool *match)
{
	const struct name_query *q = arg;

	*match = q->get(info, q->name, q->size) == DOCA_SUCCESS && strlen(q->name) == q->val_size &&
		 memcmp(q->name, q->value, q->val_size) == 0;
	return DOCA_SUCCESS;
}

static doca_error_t open_by_name(const uint8_t *value, size_t val_size, tasks_check func, struct doca_dev **retval,
				 name_getter get, uint32_t size)
{
	struct name_query q = {.value = value, .val_size = val_size, .get = get, .size = size};
	doca_error_t res;

	if (value == NULL || retval == NULL || val_size == 0 || val_size >= size)
		return DOCA_ERROR_INVALID_VALUE;
	*retval = NULL;
	q.name = calloc(1, size);
	if (q.name == NULL)
		return DOCA_ERROR_NO_MEMORY;
	res = open_matching(match_name, &q, func, retval);
	free(q.name);
	return res;
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
	if (retval == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*retval = NULL;
	return open_matching(NULL, NULL, func, retval);
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

/* An mmap with dev added (memory range and start are the program's); NULL
 * again on failure. */
static doca_error_t create_dev_mmap(struct doca_dev *dev, const char *which, struct doca_mmap **mmap)
{
	doca_error_t res = doca_mmap_create(mmap);

	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to create %s mmap: %s", which, doca_error_get_descr(res));
		return res;
	}
	res = doca_mmap_add_dev(*mmap, dev);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to add device to %s mmap: %s", which, doca_error_get_descr(res));
		doca_mmap_destroy(*mmap);
		*mmap = NULL;
	}
	return res;
}

doca_error_t create_core_objects(struct program_core_objects *state, uint32_t max_bufs)
{
	doca_error_t res;

	if (state == NULL || state->dev == NULL || max_bufs == 0)
		return DOCA_ERROR_INVALID_VALUE;

	res = create_dev_mmap(state->dev, "source", &state->src_mmap);
	if (res != DOCA_SUCCESS)
		return res;
	res = create_dev_mmap(state->dev, "destination", &state->dst_mmap);
	if (res != DOCA_SUCCESS)
		goto destroy_src;
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

/* Logs a failed destroy and keeps the first error; true when it succeeded
 * (the caller then forgets the object). */
static bool destroyed(doca_error_t tmp, const char *what, doca_error_t *res)
{
	if (tmp == DOCA_SUCCESS)
		return true;
	DOCA_LOG_ERR("Failed to %s: %s", what, doca_error_get_descr(tmp));
	DOCA_ERROR_PROPAGATE(*res, tmp);
	return false;
}

doca_error_t destroy_core_objects(struct program_core_objects *state)
{
	doca_error_t res = DOCA_SUCCESS;

	if (state == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (state->buf_inv != NULL &&
	    destroyed(doca_buf_inventory_destroy(state->buf_inv), "destroy buffer inventory", &res))
		state->buf_inv = NULL;
	if (state->dst_mmap != NULL && destroyed(doca_mmap_destroy(state->dst_mmap), "destroy destination mmap", &res))
		state->dst_mmap = NULL;
	if (state->src_mmap != NULL && destroyed(doca_mmap_destroy(state->src_mmap), "destroy source mmap", &res))
		state->src_mmap = NULL;
	if (state->pe != NULL && destroyed(doca_pe_destroy(state->pe), "destroy progress engine", &res))
		state->pe = NULL;
	if (state->dev != NULL && destroyed(doca_dev_close(state->dev), "close device", &res))
		state->dev = NULL;
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
