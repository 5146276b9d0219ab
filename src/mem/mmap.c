/*
 * mmap.c - doca_mmap: a registered memory range, its rights and devices.
 *
 * Getting buffers only reads a started mmap, apart from the nbufs counter,
 * which is atomic; a thread-safe mmap does not even count (mem_priv.h), so
 * any number of threads may take buffers on it at once.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_dev.h>
#include <doca_mmap.h>

#include "mem_priv.h"
#include "sd_dev.h"
#include "sd_log.h"
#include "sd_remote.h"

SD_LOG_REGISTER(DOCA_MMAP);

#define ACCESS_ALL                                                                                     \
	(DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE | \
	 DOCA_ACCESS_FLAG_RDMA_ATOMIC | DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE | \
	 DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING)

/*
 * The access rule, in one place (the data-path libraries only ask, through
 * sd_mmap_can_read/sd_mmap_can_write):
 *   - a local device (one in this process; on the Arm side every device)
 *     may always read the memory, whatever the flags (DOCA documents it);
 *   - it may write it when any flag grants writing: LOCAL_READ_WRITE, and
 *     also PCI_READ_WRITE, RDMA_WRITE and RDMA_ATOMIC, because memory that
 *     a peer may write is registered writable for the device as a whole
 *     (on the card such an mmap is a valid DMA destination on its own side);
 *   - across PCIe (an export) the peer may read with PCI_READ_ONLY or
 *     PCI_READ_WRITE and write with PCI_READ_WRITE only (src/fabric checks
 *     the descriptor's copy of the flags);
 *   - PCI_READ_ONLY and PCI_READ_WRITE exclude each other.
 */
#define ACCESS_LOCAL_WRITE                                                                                   \
	(DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_PCI_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE | \
	 DOCA_ACCESS_FLAG_RDMA_ATOMIC)

/* The data path's view is the head of the object (sd_mem.h). */
_Static_assert(offsetof(struct doca_mmap, view) == 0, "sd_mmap_view must head struct doca_mmap");

/* sd_mmap_view's start_id: unique per start in this process, never 0 (a
 * 64-bit counter does not wrap). Starts may come from several threads. */
static uint64_t next_start_id(void)
{
	static _Atomic uint64_t last;

	return atomic_fetch_add_explicit(&last, 1, memory_order_relaxed) + 1;
}

doca_error_t doca_mmap_create(struct doca_mmap **mmap)
{
	struct doca_mmap *m;

	if (mmap == NULL) {
		SD_LOG_ERR("failed to create mmap: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return DOCA_ERROR_NO_MEMORY;
	m->kind = SD_MMAP_LOCAL;
	m->access = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE;
	m->max_devs = SD_MMAP_DEFAULT_MAX_DEVS;
	atomic_init(&m->nbufs, 0);
	*mmap = m;
	SD_LOG_DBG("mmap %p created", (void *)m);
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_destroy(struct doca_mmap *mmap)
{
	unsigned int nbufs;

	if (mmap == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	nbufs = atomic_load(&mmap->nbufs);
	if (nbufs != 0) {
		SD_LOG_ERR("failed to destroy mmap: %u buffer(s) still reference it", nbufs);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	/* revoke the exports before the memory can go away (free callback) */
	for (uint32_t i = 0; i < mmap->nexports; i++)
		sd_remote_export_free(mmap->exports[i]);
	free(mmap->exports);
	sd_remote_release(mmap->remote);
	for (uint32_t i = 0; i < mmap->ndevs; i++)
		sd_dev_put(mmap->devs[i]);
	free(mmap->devs);
	SD_LOG_DBG("mmap %p destroyed: %s range %p+%zu", (void *)mmap, mmap->kind == SD_MMAP_LOCAL ? "local" : "imported",
		   (void *)mmap->addr, mmap->len);
	if (mmap->free_cb != NULL && mmap->ever_started)
		mmap->free_cb(mmap->addr, mmap->len, mmap->free_opaque);
	free(mmap);
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_start(struct doca_mmap *mmap)
{
	if (mmap == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (mmap->kind != SD_MMAP_LOCAL || (mmap->started && mmap->nexports != 0)) {
		SD_LOG_ERR("failed to start mmap: it was %s", mmap->kind != SD_MMAP_LOCAL ? "created from an export" :
											  "exported");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (mmap->started) {
		SD_LOG_ERR("failed to start mmap: already started");
		return DOCA_ERROR_BAD_STATE;
	}
	if (!mmap->range_set) {
		SD_LOG_ERR("failed to start mmap: no memory range set");
		return DOCA_ERROR_INVALID_VALUE;
	}
	for (uint32_t i = 0; i < mmap->ndevs; i++) {
		const struct sd_caps *caps = sd_dev_caps(mmap->devs[i]);

		if ((uint64_t)mmap->len > caps->mmap_max_size) {
			SD_LOG_ERR("failed to start mmap: range of %zu bytes exceeds the maximum %llu of device %s",
				   mmap->len, (unsigned long long)caps->mmap_max_size, sd_dev_pci_addr(mmap->devs[i]));
			return DOCA_ERROR_INVALID_VALUE;
		}
	}
	mmap->started = true;
	mmap->ever_started = true;
	mmap->start_id = next_start_id();
	if (sd_log_sdk_enabled(60)) {
		char devs[256] = "";
		size_t off = 0;

		for (uint32_t i = 0; i < mmap->ndevs && off < sizeof(devs); i++) {
			int w = snprintf(devs + off, sizeof(devs) - off, "%s%s", i ? "," : "",
					 sd_dev_pci_addr(mmap->devs[i]));

			if (w < 0)
				break;
			off += (size_t)w;
		}
		SD_LOG_DBG("mmap %p started: range %p+%zu, access 0x%x, device(s) %s", (void *)mmap,
			   (void *)mmap->addr, mmap->len, mmap->access, mmap->ndevs ? devs : "none");
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_stop(struct doca_mmap *mmap)
{
	unsigned int nbufs;

	if (mmap == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (mmap->kind != SD_MMAP_LOCAL) {
		SD_LOG_ERR("failed to stop mmap: it was created from an export (destroy it instead)");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (!mmap->started)
		return DOCA_ERROR_BAD_STATE;
	nbufs = atomic_load(&mmap->nbufs);
	if (nbufs != 0) {
		SD_LOG_ERR("failed to stop mmap: %u buffer(s) still reference it", nbufs);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	/* as documented: stop destroys the export descriptors and so
	 * invalidates the mmaps the other side created from them */
	for (uint32_t i = 0; i < mmap->nexports; i++)
		sd_remote_export_free(mmap->exports[i]);
	free(mmap->exports);
	mmap->exports = NULL;
	mmap->nexports = 0;
	mmap->started = false;
	mmap->start_id = 0;
	SD_LOG_DBG("mmap %p stopped: range %p+%zu", (void *)mmap, (void *)mmap->addr, mmap->len);
	return DOCA_SUCCESS;
}

/* Properties of a started mmap answer BAD_STATE, its device set NOT_PERMITTED (as documented). */
static doca_error_t check_config_as(struct doca_mmap *mmap, const char *what, doca_error_t started_err)
{
	if (mmap == NULL) {
		SD_LOG_ERR("failed to %s: NULL mmap", what);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (mmap->started) {
		SD_LOG_ERR("failed to %s: mmap is started", what);
		return started_err;
	}
	if (mmap->kind != SD_MMAP_LOCAL) {
		SD_LOG_ERR("failed to %s: mmap was created from an export", what);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return DOCA_SUCCESS;
}

static doca_error_t check_config(struct doca_mmap *mmap, const char *what)
{
	return check_config_as(mmap, what, DOCA_ERROR_BAD_STATE);
}

doca_error_t doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len)
{
	doca_error_t ret = check_config(mmap, "set memory range");

	if (ret != DOCA_SUCCESS)
		return ret;
	if (addr == NULL || len == 0 || (uintptr_t)addr + len < (uintptr_t)addr) {
		SD_LOG_ERR("failed to set memory range: invalid range %p + %zu", addr, len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (mmap->range_set) {
		SD_LOG_ERR("failed to set memory range: the range can be set only once");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	mmap->addr = addr;
	mmap->len = len;
	mmap->range_set = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_get_memrange(const struct doca_mmap *mmap, void **addr, size_t *len)
{
	if (mmap == NULL || addr == NULL || len == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!mmap->range_set)
		return DOCA_ERROR_BAD_STATE;
	*addr = mmap->addr;
	*len = mmap->len;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_dmabuf_memrange(struct doca_mmap *mmap, int dmabuf_fd, void *addr, size_t dmabuf_offset,
					   size_t len)
{
	doca_error_t ret = check_config(mmap, "set dmabuf memory range");

	if (ret != DOCA_SUCCESS)
		return ret;
	if (dmabuf_fd < 0 || addr == NULL || len == 0 || (uintptr_t)addr + len < (uintptr_t)addr ||
	    dmabuf_offset + len < dmabuf_offset) {
		SD_LOG_ERR("failed to set dmabuf memory range: invalid range (fd %d, %p + %zu, offset %zu)", dmabuf_fd,
			   addr, len, dmabuf_offset);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (mmap->range_set) {
		SD_LOG_ERR("failed to set dmabuf memory range: the range can be set only once");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	SD_LOG_ERR("failed to set dmabuf memory range: dmabuf is not supported by the emulated device");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask)
{
	doca_error_t ret = check_config(mmap, "set permissions");

	if (ret != DOCA_SUCCESS)
		return ret;
	if ((access_mask & ~(uint32_t)ACCESS_ALL) != 0) {
		SD_LOG_ERR("failed to set permissions: unknown access bits 0x%x", access_mask & ~(uint32_t)ACCESS_ALL);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((access_mask & DOCA_ACCESS_FLAG_PCI_READ_ONLY) != 0 && (access_mask & DOCA_ACCESS_FLAG_PCI_READ_WRITE) != 0) {
		SD_LOG_ERR("failed to set permissions: DOCA_ACCESS_FLAG_PCI_READ_ONLY and DOCA_ACCESS_FLAG_PCI_READ_WRITE "
			   "are mutually exclusive");
		return DOCA_ERROR_INVALID_VALUE;
	}
	mmap->access = access_mask;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_max_num_devices(struct doca_mmap *mmap, uint32_t max_num_devices)
{
	doca_error_t ret;

	if (mmap != NULL && mmap->ever_started) {
		SD_LOG_ERR("failed to set max number of devices: mmap was started before");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	ret = check_config(mmap, "set max number of devices");
	if (ret != DOCA_SUCCESS)
		return ret;
	if (max_num_devices == 0 || max_num_devices < mmap->ndevs) {
		SD_LOG_ERR("failed to set max number of devices: %u (%u already added)", max_num_devices,
			   mmap->ndevs);
		return DOCA_ERROR_INVALID_VALUE;
	}
	mmap->max_devs = max_num_devices;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_get_max_num_devices(const struct doca_mmap *mmap, uint32_t *max_num_devices)
{
	if (mmap == NULL || max_num_devices == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*max_num_devices = mmap->max_devs;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_user_data(struct doca_mmap *mmap, union doca_data user_data)
{
	if (mmap == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (mmap->started)
		return DOCA_ERROR_BAD_STATE;
	mmap->user_data = user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_get_user_data(const struct doca_mmap *mmap, union doca_data *user_data)
{
	if (mmap == NULL || user_data == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*user_data = mmap->user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_free_cb(struct doca_mmap *mmap, doca_mmap_memrange_free_cb_t *free_cb, void *opaque)
{
	doca_error_t ret = check_config(mmap, "set free callback");

	if (ret != DOCA_SUCCESS)
		return ret;
	if (free_cb == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	mmap->free_cb = free_cb;
	mmap->free_opaque = opaque;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_get_num_bufs(const struct doca_mmap *mmap, uint32_t *num_bufs)
{
	if (mmap == NULL || num_bufs == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*num_bufs = atomic_load(&((struct doca_mmap *)mmap)->nbufs);
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_get_exported(const struct doca_mmap *mmap, uint8_t *exported)
{
	if (mmap == NULL || exported == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*exported = mmap->nexports != 0;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_get_from_export(const struct doca_mmap *mmap, uint8_t *from_export)
{
	if (mmap == NULL || from_export == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*from_export = mmap->kind == SD_MMAP_REMOTE;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_add_dev(struct doca_mmap *mmap, struct doca_dev *dev)
{
	doca_error_t ret = check_config_as(mmap, "add device", DOCA_ERROR_NOT_PERMITTED);
	struct doca_dev **devs;

	if (ret != DOCA_SUCCESS)
		return ret;
	if (dev == NULL) {
		SD_LOG_ERR("failed to add device: NULL device");
		return DOCA_ERROR_INVALID_VALUE;
	}
	for (uint32_t i = 0; i < mmap->ndevs; i++) {
		if (mmap->devs[i] == dev) {
			SD_LOG_ERR("failed to add device %s: already added", sd_dev_pci_addr(dev));
			return DOCA_ERROR_ALREADY_EXIST;
		}
	}
	if (mmap->ndevs >= mmap->max_devs) {
		SD_LOG_ERR("failed to add device %s: mmap already holds its maximum of %u devices",
			   sd_dev_pci_addr(dev), mmap->max_devs);
		return DOCA_ERROR_NO_MEMORY;
	}
	devs = realloc(mmap->devs, (mmap->ndevs + 1) * sizeof(*devs));
	if (devs == NULL)
		return DOCA_ERROR_NO_MEMORY;
	mmap->devs = devs;
	devs[mmap->ndevs++] = dev;
	sd_dev_get(dev);
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_rm_dev(struct doca_mmap *mmap, struct doca_dev *dev)
{
	doca_error_t ret = check_config_as(mmap, "remove device", DOCA_ERROR_NOT_PERMITTED);

	if (ret != DOCA_SUCCESS)
		return ret;
	if (dev == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	for (uint32_t i = 0; i < mmap->ndevs; i++) {
		if (mmap->devs[i] != dev)
			continue;
		memmove(&mmap->devs[i], &mmap->devs[i + 1], (mmap->ndevs - i - 1) * sizeof(*mmap->devs));
		mmap->ndevs--;
		sd_dev_put(dev);
		return DOCA_SUCCESS;
	}
	SD_LOG_ERR("failed to remove device %s: not added to this mmap", sd_dev_pci_addr(dev));
	return DOCA_ERROR_NOT_FOUND;
}

doca_error_t doca_mmap_enable_thread_safety(struct doca_mmap *mmap)
{
	unsigned int nbufs;

	if (mmap == NULL) {
		SD_LOG_ERR("failed to enable thread safety: NULL mmap");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (mmap->started) {
		SD_LOG_ERR("failed to enable thread safety: mmap is started");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	nbufs = atomic_load(&mmap->nbufs);
	if (nbufs != 0) {
		SD_LOG_ERR("failed to enable thread safety: %u buffer(s) reference the mmap", nbufs);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	mmap->thread_safe = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_dpa_memrange(struct doca_mmap *mmap, struct doca_dpa *dpa, uint64_t dpa_addr, size_t len)
{
	doca_error_t ret = check_config(mmap, "set DPA memory range");

	if (ret != DOCA_SUCCESS)
		return ret;
	if (dpa == NULL || len == 0 || dpa_addr + len < dpa_addr) {
		SD_LOG_ERR("failed to set DPA memory range: invalid argument (dpa %p, range 0x%llx + %zu)",
			   (void *)dpa, (unsigned long long)dpa_addr, len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (mmap->range_set) {
		SD_LOG_ERR("failed to set DPA memory range: the range can be set only once");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (mmap->nexports != 0) {
		SD_LOG_ERR("failed to set DPA memory range: mmap was exported");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	SD_LOG_ERR("failed to set DPA memory range: no DPA is emulated");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_mmap_dev_get_dpa_handle(struct doca_mmap *mmap, const struct doca_dev *dev,
					  doca_dpa_dev_mmap_t *dpa_mmap_handle)
{
	if (mmap == NULL || dev == NULL || dpa_mmap_handle == NULL) {
		SD_LOG_ERR("failed to get DPA handle of mmap: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_mmap_has_dev(mmap, dev)) {
		SD_LOG_ERR("failed to get DPA handle of mmap: device %s was not added to it", sd_dev_pci_addr(dev));
		return DOCA_ERROR_NOT_FOUND;
	}
	if (!mmap->started) {
		SD_LOG_ERR("failed to get DPA handle of mmap: it is not started");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	SD_LOG_ERR("failed to get DPA handle of mmap: no DPA is emulated");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_mmap_export_pci(struct doca_mmap *mmap, const struct doca_dev *dev, const void **export_desc,
				  size_t *export_desc_len)
{
	void **exports, *desc;
	size_t len;
	doca_error_t ret;

	if (mmap == NULL || dev == NULL || export_desc == NULL || export_desc_len == NULL) {
		SD_LOG_ERR("failed to export mmap: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_mmap_has_dev(mmap, dev)) {
		SD_LOG_ERR("failed to export mmap: device %s was not added to it", sd_dev_pci_addr(dev));
		return DOCA_ERROR_NOT_FOUND;
	}
	if (!sd_dev_caps(dev)->mmap_export_pci_supported) {
		SD_LOG_ERR("failed to export mmap: device %s does not support PCI export", sd_dev_pci_addr(dev));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (mmap->kind != SD_MMAP_LOCAL) {
		SD_LOG_ERR("failed to export mmap: it was created from an export");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (!mmap->started) {
		SD_LOG_ERR("failed to export mmap: it is not started");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if ((mmap->access & (DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE)) == 0) {
		SD_LOG_ERR("failed to export mmap: its permissions (0x%x) grant no PCI access", mmap->access);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	exports = realloc(mmap->exports, (mmap->nexports + 1) * sizeof(*exports));
	if (exports == NULL)
		return DOCA_ERROR_NO_MEMORY;
	mmap->exports = exports;
	ret = sd_remote_export(mmap->addr, mmap->len, mmap->access, sd_dev_card(dev), sd_side(), sd_dev_pci_addr(dev),
			       &desc, &len);
	if (ret != DOCA_SUCCESS) {
		SD_LOG_ERR("failed to export mmap: %s", doca_error_get_descr(ret));
		return ret;
	}
	exports[mmap->nexports++] = desc;
	*export_desc = desc;
	*export_desc_len = len;
	SD_LOG_DBG("mmap %p exported over PCI by device %s: range %p+%zu, access 0x%x, descriptor of %zu bytes",
		   (void *)mmap, sd_dev_pci_addr(dev), (void *)mmap->addr, mmap->len, mmap->access, len);
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_export_rdma(struct doca_mmap *mmap, const struct doca_dev *dev, const void **export_desc,
				   size_t *export_desc_len)
{
	if (mmap == NULL || dev == NULL || export_desc == NULL || export_desc_len == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!sd_mmap_has_dev(mmap, dev)) {
		SD_LOG_ERR("failed to export mmap for RDMA: device %s was not added to it", sd_dev_pci_addr(dev));
		return DOCA_ERROR_NOT_FOUND;
	}
	if (!mmap->started) {
		SD_LOG_ERR("failed to export mmap for RDMA: it is not started");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if ((mmap->access & (DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC)) == 0) {
		SD_LOG_ERR("failed to export mmap for RDMA: its permissions (0x%x) grant no RDMA access", mmap->access);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	SD_LOG_ERR("failed to export mmap: RDMA is not supported by the emulated device");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_mmap_create_from_export(const union doca_data *user_data, const void *export_desc,
					  size_t export_desc_len, struct doca_dev *dev, struct doca_mmap **mmap)
{
	struct sd_remote *r;
	struct doca_mmap *m;
	doca_error_t ret;

	if (export_desc == NULL || export_desc_len == 0 || dev == NULL || mmap == NULL) {
		SD_LOG_ERR("failed to create mmap from export: NULL or empty argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_dev_caps(dev)->mmap_create_from_export_pci_supported) {
		SD_LOG_ERR("failed to create mmap from export: device %s does not support it", sd_dev_pci_addr(dev));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	ret = sd_remote_import(export_desc, export_desc_len, sd_dev_card(dev), sd_side(), &r);
	if (ret != DOCA_SUCCESS) {
		SD_LOG_ERR("failed to create mmap from export on device %s: %s", sd_dev_pci_addr(dev),
			   doca_error_get_descr(ret));
		return ret;
	}
	m = calloc(1, sizeof(*m));
	if (m != NULL)
		m->devs = calloc(1, sizeof(*m->devs));
	if (m == NULL || m->devs == NULL) {
		free(m);
		sd_remote_release(r);
		return DOCA_ERROR_NO_MEMORY;
	}
	m->kind = SD_MMAP_REMOTE;
	m->remote = r;
	m->addr = (uint8_t *)(uintptr_t)sd_remote_addr(r);
	m->len = sd_remote_len(r);
	m->access = sd_remote_access(r);
	m->range_set = true;
	m->started = true;
	m->start_id = next_start_id();
	m->max_devs = 1;
	m->devs[0] = dev;
	m->ndevs = 1;
	sd_dev_get(dev);
	if (user_data != NULL)
		m->user_data = *user_data;
	atomic_init(&m->nbufs, 0);
	*mmap = m;
	SD_LOG_DBG("mmap %p created from export on device %s: peer pid %d, peer range 0x%llx+%zu, access 0x%x",
		   (void *)m, sd_dev_pci_addr(dev), (int)sd_remote_pid(r), (unsigned long long)(uintptr_t)m->addr,
		   m->len, m->access);
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_cap_is_export_pci_supported(const struct doca_devinfo *devinfo, uint8_t *mmap_export)
{
	if (devinfo == NULL || mmap_export == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*mmap_export = sd_devinfo_caps(devinfo)->mmap_export_pci_supported;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_cap_is_create_from_export_pci_supported(const struct doca_devinfo *devinfo,
							       uint8_t *from_export)
{
	if (devinfo == NULL || from_export == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*from_export = sd_devinfo_caps(devinfo)->mmap_create_from_export_pci_supported;
	return DOCA_SUCCESS;
}

/* ---- sd_mem.h ---- */

bool sd_mmap_is_started(const struct doca_mmap *mmap)
{
	return mmap != NULL && mmap->started;
}

uint32_t sd_mmap_access(const struct doca_mmap *mmap)
{
	return mmap == NULL ? 0 : mmap->access;
}

bool sd_mmap_has_dev(const struct doca_mmap *mmap, const struct doca_dev *dev)
{
	if (mmap == NULL || dev == NULL)
		return false;
	for (uint32_t i = 0; i < mmap->ndevs; i++)
		if (mmap->devs[i] == dev)
			return true;
	return false;
}

uint8_t *sd_mmap_base(const struct doca_mmap *mmap)
{
	return mmap == NULL ? NULL : mmap->addr;
}

size_t sd_mmap_len(const struct doca_mmap *mmap)
{
	return mmap == NULL ? 0 : mmap->len;
}

bool sd_mmap_contains(const struct doca_mmap *mmap, const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p, base;

	if (mmap == NULL || !mmap->range_set || p == NULL)
		return false;
	base = (uintptr_t)mmap->addr;
	return a >= base && a - base <= mmap->len && n <= mmap->len - (a - base);
}

bool sd_mmap_can_read(const struct doca_mmap *mmap)
{
	if (mmap == NULL)
		return false;
	if (mmap->kind == SD_MMAP_REMOTE)
		return sd_remote_can_read(mmap->remote);
	return true; /* readable by a local device whatever the flags */
}

bool sd_mmap_can_write(const struct doca_mmap *mmap)
{
	if (mmap == NULL)
		return false;
	if (mmap->kind == SD_MMAP_REMOTE)
		return sd_remote_can_write(mmap->remote);
	return (mmap->access & ACCESS_LOCAL_WRITE) != 0;
}

struct sd_remote *sd_mmap_remote(const struct doca_mmap *mmap)
{
	return mmap == NULL ? NULL : mmap->remote;
}
