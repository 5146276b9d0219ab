/*
 * sync_event.c - doca_sync_event: the object, its configuration, the
 * stand-alone lifecycle, the synchronous data path and export/import across
 * the emulated PCIe link. The context and its tasks are in
 * sync_event_task.c.
 *
 * The value of a local event lives in a shared cell (a sealed memfd page,
 * src/fabric/remote_cell.c) from its first start, so that an export later
 * needs no copy and both sides update the same 8 bytes atomically. A value
 * the user placed (set_addr / set_doca_buf) stays where it is and cannot be
 * exported: no emulated link can make arbitrary memory of one process
 * atomically writable by another.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>

#include "sd_cpu.h"
#include "sd_dev.h"
#include "sd_log.h"
#include "sd_mem.h"
#include "sync_event_priv.h"

SD_LOG_REGISTER(DOCA_SYNC_EVENT);

/* How often a wait on a shared event looks at the other process. */
#define PEER_CHECK_NS (20ull * 1000 * 1000)
#define SPINS_PER_CLOCK 256u

/* ---- creation ------------------------------------------------------------ */

static struct doca_sync_event *se_alloc(void)
{
	struct doca_sync_event *ev = calloc(1, sizeof(*ev));

	if (ev == NULL)
		return NULL;
	se_tasks_init(ev);
	ev->timer_fd = -1;
	return ev;
}

doca_error_t doca_sync_event_create(struct doca_sync_event **event)
{
	struct doca_sync_event *ev;

	if (event == NULL) {
		SD_LOG_ERR("failed to create sync event: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	ev = se_alloc();
	if (ev == NULL) {
		SD_LOG_ERR("failed to create sync event: out of memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	*event = ev;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_create_from_export(struct doca_dev *dev, const uint8_t *data, size_t sz,
						struct doca_sync_event **event)
{
	struct doca_sync_event *ev;
	struct sd_cell *cell;
	doca_error_t err;

	if (dev == NULL || data == NULL || sz == 0 || event == NULL) {
		SD_LOG_ERR("failed to create sync event from export: NULL or empty argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_dev_caps(dev)->mmap_create_from_export_pci_supported) {
		SD_LOG_ERR("failed to create sync event from export: device %s cannot import", sd_dev_pci_addr(dev));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	err = sd_cell_import(data, sz, sd_dev_card(dev), sd_side(), &cell);
	if (err != DOCA_SUCCESS) {
		SD_LOG_ERR("failed to create sync event from export: %s", doca_error_get_descr(err));
		return err;
	}
	ev = se_alloc();
	if (ev == NULL) {
		sd_cell_destroy(cell);
		return DOCA_ERROR_NO_MEMORY;
	}
	ev->imported = true;
	ev->cell = cell;
	ev->net = sd_cell_value(cell) == NULL;
	ev->dev = dev;
	sd_dev_get(dev);
	*event = ev;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_destroy(struct doca_sync_event *event)
{
	struct doca_sync_event *ev = event;
	doca_error_t err;

	if (ev == NULL) {
		SD_LOG_ERR("failed to destroy sync event: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = sd_ctx_fini(&ev->ctx);
	if (err != DOCA_SUCCESS) {
		SD_LOG_ERR("failed to destroy sync event: its context is not idle (stop it first)");
		return err;
	}
	sd_cell_destroy(ev->cell);
	free(ev->fallback);
	if (ev->dev != NULL)
		sd_dev_put(ev->dev);
	free(ev);
	return DOCA_SUCCESS;
}

/* ---- configuration -------------------------------------------------------- */

static doca_error_t check_configurable(const struct doca_sync_event *ev, const char *what)
{
	if (ev->imported) {
		SD_LOG_ERR("failed to %s: the sync event was created from an export and cannot be configured", what);
		return DOCA_ERROR_BAD_STATE;
	}
	if (ev->started || ev->ctx.state != DOCA_CTX_STATE_IDLE) {
		SD_LOG_ERR("failed to %s: the sync event is started", what);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t add_location(struct doca_sync_event *ev, const void *unit, bool needs_unit, bool publisher,
				 uint32_t loc, const char *what)
{
	doca_error_t err;

	if (ev == NULL || (needs_unit && unit == NULL)) {
		SD_LOG_ERR("failed to %s: NULL argument", what);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = check_configurable(ev, what);
	if (err != DOCA_SUCCESS)
		return err;
	if (loc == 0) {
		SD_LOG_ERR("failed to %s: no DPA, GPU or RDMA is emulated", what);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (publisher)
		ev->pub_locs |= loc;
	else
		ev->sub_locs |= loc;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_add_publisher_location_cpu(struct doca_sync_event *event, struct doca_dev *dev)
{
	return add_location(event, dev, true, true, SE_LOC_CPU, "add CPU publisher location");
}

doca_error_t doca_sync_event_add_publisher_location_dpa(struct doca_sync_event *event, struct doca_dpa *dpa)
{
	return add_location(event, dpa, true, true, 0, "add DPA publisher location");
}

doca_error_t doca_sync_event_add_publisher_location_gpu(struct doca_sync_event *event, struct doca_gpu *gpu)
{
	return add_location(event, gpu, true, true, 0, "add GPU publisher location");
}

doca_error_t doca_sync_event_add_publisher_location_remote_pci(struct doca_sync_event *event)
{
	return add_location(event, NULL, false, true, SE_LOC_REMOTE_PCI, "add remote PCI publisher location");
}

doca_error_t doca_sync_event_add_publisher_location_remote_net(struct doca_sync_event *event)
{
	return add_location(event, NULL, false, true, 0, "add remote net publisher location");
}

doca_error_t doca_sync_event_add_subscriber_location_cpu(struct doca_sync_event *event, struct doca_dev *dev)
{
	return add_location(event, dev, true, false, SE_LOC_CPU, "add CPU subscriber location");
}

doca_error_t doca_sync_event_add_subscriber_location_dpa(struct doca_sync_event *event, struct doca_dpa *dpa)
{
	return add_location(event, dpa, true, false, 0, "add DPA subscriber location");
}

doca_error_t doca_sync_event_add_subscriber_location_gpu(struct doca_sync_event *event, struct doca_gpu *gpu)
{
	return add_location(event, gpu, true, false, 0, "add GPU subscriber location");
}

doca_error_t doca_sync_event_add_subscriber_location_remote_pci(struct doca_sync_event *event)
{
	return add_location(event, NULL, false, false, SE_LOC_REMOTE_PCI, "add remote PCI subscriber location");
}

doca_error_t doca_sync_event_set_addr(struct doca_sync_event *event, uint64_t *addr)
{
	doca_error_t err;

	if (event == NULL || addr == NULL) {
		SD_LOG_ERR("failed to set sync event address: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = check_configurable(event, "set sync event address");
	if (err != DOCA_SUCCESS)
		return err;
	if (((uintptr_t)addr & 7u) != 0) {
		SD_LOG_ERR("failed to set sync event address: %p is not 8-byte aligned", (void *)addr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	event->user_addr = addr;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_set_doca_buf(struct doca_sync_event *event, struct doca_buf *buf)
{
	doca_error_t err;

	if (event == NULL || buf == NULL) {
		SD_LOG_ERR("failed to set sync event buffer: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = check_configurable(event, "set sync event buffer");
	if (err != DOCA_SUCCESS)
		return err;
	if (buf->mmap == NULL || !sd_mmap_is_started(buf->mmap)) {
		SD_LOG_ERR("failed to set sync event buffer: the buffer's mmap is not started");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (buf->next != NULL || buf->list_len > 1) {
		SD_LOG_ERR("failed to set sync event buffer: buffer lists are not supported");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_mmap_remote(buf->mmap) != NULL) {
		SD_LOG_ERR("failed to set sync event buffer: the buffer is the other side's memory");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (buf->data_len != sizeof(uint64_t)) {
		SD_LOG_ERR("failed to set sync event buffer: data length is %zu, must be 8", buf->data_len);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (!sd_mmap_can_write(buf->mmap)) {
		SD_LOG_ERR("failed to set sync event buffer: the mmap does not allow local writes");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (((uintptr_t)buf->data & 7u) != 0) {
		SD_LOG_ERR("failed to set sync event buffer: data %p is not 8-byte aligned", (void *)buf->data);
		return DOCA_ERROR_INVALID_VALUE;
	}
	event->user_addr = (uint64_t *)(void *)buf->data;
	return DOCA_SUCCESS;
}

/* ---- lifecycle ------------------------------------------------------------- */

doca_error_t se_prepare(struct doca_sync_event *ev, const char *what)
{
	doca_error_t err;

	if (ev->value != NULL || ev->net)
		return DOCA_SUCCESS;
	if (ev->imported) {
		ev->value = sd_cell_value(ev->cell);
		return DOCA_SUCCESS;
	}
	if (ev->pub_locs == 0 || ev->sub_locs == 0) {
		SD_LOG_ERR("failed to %s: no %s location was declared", what,
			   ev->pub_locs == 0 ? "publisher" : "subscriber");
		return DOCA_ERROR_BAD_STATE;
	}
	if (ev->user_addr != NULL) {
		ev->value = ev->user_addr;
		return DOCA_SUCCESS;
	}
	err = sd_cell_create(&ev->cell);
	if (err == DOCA_SUCCESS) {
		ev->value = sd_cell_value(ev->cell);
		return DOCA_SUCCESS;
	}
	if (err != DOCA_ERROR_OPERATING_SYSTEM)
		return err;
	/* No memfd here (seccomp...): the event works locally but cannot be exported. */
	SD_LOG_WARN("sync event: shared memory unavailable, the event will not be exportable");
	ev->fallback = aligned_alloc(64, 64);
	if (ev->fallback == NULL)
		return DOCA_ERROR_NO_MEMORY;
	*ev->fallback = 0;
	ev->value = ev->fallback;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_start(struct doca_sync_event *event)
{
	doca_error_t err;

	if (event == NULL) {
		SD_LOG_ERR("failed to start sync event: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (event->started) {
		SD_LOG_ERR("failed to start sync event: already started");
		return DOCA_ERROR_BAD_STATE;
	}
	if (event->mode == SE_MODE_CTX) {
		SD_LOG_ERR("failed to start sync event: it was converted to a context; start it with doca_ctx_start");
		return DOCA_ERROR_BAD_STATE;
	}
	err = se_prepare(event, "start sync event");
	if (err != DOCA_SUCCESS)
		return err;
	event->mode = SE_MODE_STANDALONE;
	event->started = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_stop(struct doca_sync_event *event)
{
	if (event == NULL) {
		SD_LOG_ERR("failed to stop sync event: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!event->started) {
		SD_LOG_ERR("failed to stop sync event: it was not started with doca_sync_event_start");
		return DOCA_ERROR_BAD_STATE;
	}
	event->started = false;
	return DOCA_SUCCESS;
}

struct doca_ctx *doca_sync_event_as_ctx(struct doca_sync_event *event)
{
	if (event == NULL) {
		SD_LOG_ERR("failed to convert sync event to a context: NULL argument");
		return NULL;
	}
	if (event->started) {
		SD_LOG_ERR("failed to convert sync event to a context: it was started with doca_sync_event_start");
		return NULL;
	}
	event->mode = SE_MODE_CTX;
	return &event->ctx;
}

/* ---- capabilities ------------------------------------------------------------ */

static doca_error_t cap_check(const struct doca_devinfo *devinfo, bool supported)
{
	if (devinfo == NULL || sd_devinfo_caps(devinfo) == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return supported ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_sync_event_cap_is_create_from_export_supported(const struct doca_devinfo *devinfo)
{
	if (devinfo == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return cap_check(devinfo, sd_devinfo_caps(devinfo)->mmap_create_from_export_pci_supported);
}

doca_error_t doca_sync_event_cap_is_export_to_remote_pci_supported(const struct doca_devinfo *devinfo)
{
	if (devinfo == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return cap_check(devinfo, sd_devinfo_caps(devinfo)->mmap_export_pci_supported);
}

doca_error_t doca_sync_event_cap_task_get_is_supported(const struct doca_devinfo *devinfo)
{
	return cap_check(devinfo, true);
}

doca_error_t doca_sync_event_cap_task_notify_set_is_supported(const struct doca_devinfo *devinfo)
{
	return cap_check(devinfo, true);
}

doca_error_t doca_sync_event_cap_task_notify_add_is_supported(const struct doca_devinfo *devinfo)
{
	return cap_check(devinfo, true);
}

doca_error_t doca_sync_event_cap_task_wait_eq_is_supported(const struct doca_devinfo *devinfo)
{
	return cap_check(devinfo, true);
}

doca_error_t doca_sync_event_cap_task_wait_neq_is_supported(const struct doca_devinfo *devinfo)
{
	return cap_check(devinfo, true);
}

doca_error_t doca_sync_event_cap_is_export_to_dpa_supported(const struct doca_devinfo *devinfo)
{
	return cap_check(devinfo, false);
}

doca_error_t doca_sync_event_cap_is_export_to_gpu_supported(const struct doca_devinfo *devinfo)
{
	return cap_check(devinfo, false);
}

doca_error_t doca_sync_event_cap_is_export_to_remote_net_supported(const struct doca_devinfo *devinfo)
{
	return cap_check(devinfo, false);
}

doca_error_t doca_sync_event_cap_remote_net_is_create_from_export_supported(const struct doca_devinfo *devinfo)
{
	return cap_check(devinfo, false);
}

doca_error_t doca_sync_event_cap_remote_net_is_export_to_dpa_supported(const struct doca_devinfo *devinfo)
{
	return cap_check(devinfo, false);
}

doca_error_t doca_sync_event_cap_remote_net_is_export_to_gpu_supported(const struct doca_devinfo *devinfo)
{
	return cap_check(devinfo, false);
}

/* ---- export ------------------------------------------------------------------ */

static bool se_running(const struct doca_sync_event *ev)
{
	return (ev->value != NULL || ev->net) && (ev->started || (ev->mode == SE_MODE_CTX && ev->ctx.state != DOCA_CTX_STATE_IDLE));
}

doca_error_t doca_sync_event_export_to_remote_pci(struct doca_sync_event *event, struct doca_dev *dev,
						  const uint8_t **data, size_t *sz)
{
	doca_error_t err;

	if (event == NULL || dev == NULL || data == NULL || sz == NULL) {
		SD_LOG_ERR("failed to export sync event: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_dev_caps(dev)->mmap_export_pci_supported) {
		SD_LOG_ERR("failed to export sync event: device %s does not support PCI export", sd_dev_pci_addr(dev));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (event->imported) {
		SD_LOG_ERR("failed to export sync event: it was created from an export");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (!se_running(event)) {
		SD_LOG_ERR("failed to export sync event: it is not started");
		return DOCA_ERROR_BAD_STATE;
	}
	if (!((event->pub_locs | event->sub_locs) & SE_LOC_REMOTE_PCI)) {
		SD_LOG_ERR("failed to export sync event: neither its publisher nor its subscriber is remote PCI");
		return DOCA_ERROR_BAD_STATE;
	}
	if (event->cell == NULL) {
		SD_LOG_ERR("failed to export sync event: its value lives in memory the application set (or no "
			   "shared memory was available); only library-allocated values can be shared across PCIe here");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	err = sd_cell_export(event->cell, sd_dev_card(dev), sd_side(), sd_dev_pci_addr(dev), &event->export_desc,
			     &event->export_desc_len);
	if (err != DOCA_SUCCESS) {
		SD_LOG_ERR("failed to export sync event: %s", doca_error_get_descr(err));
		return err;
	}
	event->exported = true;
	*data = (const uint8_t *)&event->export_desc;
	*sz = event->export_desc_len;
	return DOCA_SUCCESS;
}

/* ---- DPA, GPU, remote net: not emulated -------------------------------------- */

doca_error_t doca_sync_event_get_dpa_handle(struct doca_sync_event *event, struct doca_dpa *dpa,
					    doca_dpa_dev_sync_event_t *dpa_dev_se_handle)
{
	if (event == NULL || dpa == NULL || dpa_dev_se_handle == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	SD_LOG_ERR("failed to get sync event DPA handle: no DPA is emulated");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_sync_event_get_gpu_handle(struct doca_sync_event *event, struct doca_gpu *gpu,
					    doca_gpu_dev_sync_event_t **gpu_dev_se)
{
	if (event == NULL || gpu == NULL || gpu_dev_se == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	SD_LOG_ERR("failed to get sync event GPU handle: no GPU is emulated");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_sync_event_export_to_remote_net(struct doca_sync_event *event, const uint8_t **data, size_t *sz)
{
	if (event == NULL || data == NULL || sz == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	SD_LOG_ERR("failed to export sync event to remote net: RDMA is not emulated");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_sync_event_remote_net_create_from_export(struct doca_dev *dev, const uint8_t *data, size_t sz,
							   struct doca_sync_event_remote_net **event)
{
	if (dev == NULL || data == NULL || sz == 0 || event == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	SD_LOG_ERR("failed to create remote net sync event: RDMA is not emulated");
	return DOCA_ERROR_NOT_SUPPORTED;
}

/* No remote-net handle can exist here, so none can be destroyed. */
doca_error_t doca_sync_event_remote_net_destroy(struct doca_sync_event_remote_net *event)
{
	if (event == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	SD_LOG_ERR("failed to destroy remote net sync event: RDMA is not emulated");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_sync_event_remote_net_get_dpa_handle(struct doca_sync_event_remote_net *event, struct doca_dpa *dpa,
						       doca_dpa_dev_sync_event_remote_net_t *dpa_remote_event)
{
	if (event == NULL || dpa == NULL || dpa_remote_event == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	SD_LOG_ERR("failed to get remote net sync event DPA handle: no DPA is emulated");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_sync_event_remote_net_get_gpu_handle(struct doca_sync_event_remote_net *event, struct doca_gpu *gpu,
						       doca_gpu_dev_sync_event_remote_net_t *gpu_remote_event)
{
	if (event == NULL || gpu == NULL || gpu_remote_event == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	SD_LOG_ERR("failed to get remote net sync event GPU handle: no GPU is emulated");
	return DOCA_ERROR_NOT_SUPPORTED;
}

/* ---- synchronous data path ----------------------------------------------------- */

bool se_is_shared(const struct doca_sync_event *ev)
{
	return ev->cell != NULL && (ev->imported || ev->exported);
}

doca_error_t se_check_revoked(const struct doca_sync_event *ev, const char *what)
{
	if (!ev->imported || sd_cell_revoked_check(ev->cell) == DOCA_SUCCESS)
		return DOCA_SUCCESS;
	SD_LOG_ERR("failed to %s: the exporting side destroyed the sync event", what);
	return DOCA_ERROR_NOT_FOUND;
}

static doca_error_t datapath_check(const struct doca_sync_event *ev, const void *out, bool needs_out,
				   const char *what)
{
	if (ev == NULL || (needs_out && out == NULL)) {
		SD_LOG_ERR("failed to %s: NULL argument", what);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!se_running(ev)) {
		SD_LOG_ERR("failed to %s: the sync event is not started", what);
		return DOCA_ERROR_BAD_STATE;
	}
	return se_check_revoked(ev, what);
}

doca_error_t se_net_result(doca_error_t err, const char *what)
{
	if (err != DOCA_SUCCESS)
		SD_LOG_ERR("failed to %s: %s", what,
			   err == DOCA_ERROR_NOT_FOUND ? "the exporting side destroyed the sync event"
			   : err == DOCA_ERROR_CONNECTION_RESET
				   ? "the exporting side is gone (it died, or the network is down)"
				   : doca_error_get_descr(err));
	return err;
}

doca_error_t doca_sync_event_get(struct doca_sync_event *event, uint64_t *value)
{
	doca_error_t err = datapath_check(event, value, true, "get sync event value");

	if (err != DOCA_SUCCESS)
		return err;
	return se_net_result(se_load(event, value), "get sync event value");
}

doca_error_t doca_sync_event_update_add(struct doca_sync_event *event, uint64_t value, uint64_t *fetched)
{
	doca_error_t err = datapath_check(event, fetched, true, "add to sync event");

	if (err != DOCA_SUCCESS)
		return err;
	return se_net_result(se_fetch_add(event, value, fetched), "add to sync event");
}

doca_error_t doca_sync_event_update_set(struct doca_sync_event *event, uint64_t value)
{
	doca_error_t err = datapath_check(event, NULL, false, "set sync event");

	if (err != DOCA_SUCCESS)
		return err;
	return se_net_result(se_store(event, value), "set sync event");
}

bool se_cond(uint8_t kind, uint64_t value, uint64_t mask, uint64_t wait_val)
{
	uint64_t v = value & mask;

	switch (kind) {
	case SE_WAIT_EQ:
		return v == wait_val;
	case SE_WAIT_NEQ:
		return v != wait_val;
	default:
		return v > wait_val;
	}
}

/* Spin (or spin and yield) until the condition holds. A shared event also
 * watches the other process so that its death ends the wait. */
static doca_error_t se_wait(struct doca_sync_event *ev, uint8_t kind, uint64_t wait_val, uint64_t mask, bool yield,
			    const char *what)
{
	doca_error_t err = datapath_check(ev, NULL, false, what);
	bool shared;
	uint64_t next = 0;
	uint32_t spins = 0;

	if (err != DOCA_SUCCESS)
		return err;
	if (ev->net) {
		uint64_t v;

		/* each look is a round trip to the exporter: no spinning between */
		for (;;) {
			err = se_load(ev, &v);
			if (err != DOCA_SUCCESS)
				return se_net_result(err, what);
			if (se_cond(kind, v, mask, wait_val))
				return DOCA_SUCCESS;
			if (yield)
				sched_yield();
		}
	}
	shared = se_is_shared(ev);
	for (;;) {
		if (se_cond(kind, __atomic_load_n(ev->value, __ATOMIC_ACQUIRE), mask, wait_val))
			return DOCA_SUCCESS;
		if (yield)
			sched_yield();
		else
			sd_cpu_relax();
		if (!shared || ++spins % SPINS_PER_CLOCK != 0)
			continue;
		uint64_t now = sd_now_ns();

		if (now < next)
			continue;
		next = now + PEER_CHECK_NS;
		err = sd_cell_peer_check(ev->cell);
		if (err == DOCA_SUCCESS)
			continue;
		/* The peer may have updated the value just before it went away. */
		if (se_cond(kind, __atomic_load_n(ev->value, __ATOMIC_ACQUIRE), mask, wait_val))
			return DOCA_SUCCESS;
		SD_LOG_ERR("failed to %s: %s", what,
			   err == DOCA_ERROR_NOT_FOUND ? "the exporting side destroyed the sync event"
						       : "the process on the other side died");
		return err;
	}
}

doca_error_t doca_sync_event_wait_gt(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
	return se_wait(event, SE_WAIT_GT, value, mask, false, "wait on sync event (greater than)");
}

doca_error_t doca_sync_event_wait_gt_yield(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
	return se_wait(event, SE_WAIT_GT, value, mask, true, "wait on sync event (greater than)");
}

doca_error_t doca_sync_event_wait_eq(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
	return se_wait(event, SE_WAIT_EQ, value, mask, false, "wait on sync event (equal)");
}

doca_error_t doca_sync_event_wait_eq_yield(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
	return se_wait(event, SE_WAIT_EQ, value, mask, true, "wait on sync event (equal)");
}

doca_error_t doca_sync_event_wait_neq(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
	return se_wait(event, SE_WAIT_NEQ, value, mask, false, "wait on sync event (not equal)");
}

doca_error_t doca_sync_event_wait_neq_yield(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
	return se_wait(event, SE_WAIT_NEQ, value, mask, true, "wait on sync event (not equal)");
}
