/*
 * doca_mmap.h - DOCA memory maps.
 *
 * Model: a doca_mmap registers one contiguous memory range with one or more
 * devices and gives it access rights (enum doca_access_flag). Buffers
 * (doca_buf, from a doca_buf_inventory) describe pieces of a started mmap.
 *
 * Call order:
 *   doca_mmap_create -> doca_mmap_set_memrange (required, once),
 *   doca_mmap_set_permissions (default DOCA_ACCESS_FLAG_LOCAL_READ_WRITE),
 *   doca_mmap_add_dev, doca_mmap_set_max_num_devices, doca_mmap_set_free_cb,
 *   user data -> doca_mmap_start -> buffers ... -> (doca_mmap_stop) ->
 *   doca_mmap_destroy (implicitly stops; the free callback, if set, runs
 *   here for an mmap that was started).
 *   Setting properties of a started mmap: DOCA_ERROR_BAD_STATE; adding or
 *   removing devices of a started mmap, setting the range twice, stop or
 *   destroy while buffers of the mmap are held: DOCA_ERROR_NOT_PERMITTED.
 *   An mmap holds a reference on each added device (closing that device
 *   answers DOCA_ERROR_IN_USE).
 *
 * Access rights (doca_mmap_set_permissions):
 *   flag                 local device reads  local device writes  peer over PCIe
 *   LOCAL_READ_ONLY (0)  yes                 no                   no export
 *   LOCAL_READ_WRITE     yes                 yes                  no export
 *   PCI_READ_ONLY        yes                 no                   reads
 *   PCI_READ_WRITE       yes                 yes                  reads, writes
 *   RDMA_WRITE, _ATOMIC  yes                 yes                  (no RDMA)
 *   A local device is one opened in the same process (on the Arm side, every
 *   device); it may always read. PCI_READ_ONLY with PCI_READ_WRITE, or an
 *   unknown bit, answers DOCA_ERROR_INVALID_VALUE. RDMA_READ and
 *   PCI_RELAXED_ORDERING are accepted and grant nothing more here.
 *
 * Export to the other side of PCIe:
 *   exporter: a started mmap with DOCA_ACCESS_FLAG_PCI_READ_ONLY or
 *   DOCA_ACCESS_FLAG_PCI_READ_WRITE and the device added ->
 *   doca_mmap_export_pci -> descriptor bytes (owned by the mmap, valid until
 *   doca_mmap_destroy, which revokes them) -> carried to the other side by
 *   any means (e.g. a Comch message).
 *   importer (the other side of the same card): doca_mmap_create_from_export
 *   -> a started mmap whose range is the exporter's range (the exporter's
 *   addresses: get buffers with those addresses and use them with DMA; they
 *   are not dereferenceable here) -> doca_mmap_destroy. Such an mmap cannot
 *   be reconfigured or exported again (DOCA_ERROR_NOT_PERMITTED).
 *   Import errors: DOCA_ERROR_INVALID_VALUE (corrupted, truncated or stale
 *   descriptor), DOCA_ERROR_NOT_PERMITTED (a descriptor of this same side or
 *   of another card or user), DOCA_ERROR_NOT_FOUND (the exporter exited or
 *   destroyed its mmap). RDMA export answers DOCA_ERROR_NOT_SUPPORTED.
 *
 * Threading: an mmap is not thread-safe while being configured, and start,
 * stop and destroy must not race with its use. Once started, buffers on it
 * may be taken from one thread at a time per inventory. After
 * doca_mmap_enable_thread_safety (before start, with no buffer on it), any
 * number of threads may take and release buffers on it at once, even from a
 * shared inventory or buffer pool; the mmap then stops counting its buffers
 * (doca_mmap_get_num_bufs answers 0, and stop/destroy no longer refuse while
 * buffers exist: such buffers must not be used after the mmap is gone).
 *
 * DPA memory and DPA handles answer DOCA_ERROR_NOT_SUPPORTED (no DPA is
 * emulated), after their argument and state checks.
 */
#ifndef DOCA_MMAP_H_
#define DOCA_MMAP_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_mmap;
struct doca_dev;
struct doca_devinfo;
struct doca_dpa;

/* Handle of an mmap in the DPA's address space (identical to the
 * definition in doca_types.h, if that header carries one: C11 allows it). */
typedef uint32_t doca_dpa_dev_mmap_t;

/* Called at destroy with the registered range (e.g. to free the memory). */
typedef void (doca_mmap_memrange_free_cb_t)(void *addr, size_t len, void *cookie);

DOCA_STABLE doca_error_t doca_mmap_create(struct doca_mmap **mmap);
DOCA_STABLE doca_error_t doca_mmap_destroy(struct doca_mmap *mmap);
DOCA_STABLE doca_error_t doca_mmap_start(struct doca_mmap *mmap);
DOCA_STABLE doca_error_t doca_mmap_stop(struct doca_mmap *mmap);

DOCA_STABLE doca_error_t doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len);
DOCA_STABLE doca_error_t doca_mmap_get_memrange(const struct doca_mmap *mmap, void **addr, size_t *len);
DOCA_STABLE doca_error_t doca_mmap_set_dmabuf_memrange(struct doca_mmap *mmap, int dmabuf_fd, void *addr,
						       size_t dmabuf_offset, size_t len);
DOCA_STABLE doca_error_t doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask);
DOCA_STABLE doca_error_t doca_mmap_set_max_num_devices(struct doca_mmap *mmap, uint32_t max_num_devices);
DOCA_STABLE doca_error_t doca_mmap_get_max_num_devices(const struct doca_mmap *mmap, uint32_t *max_num_devices);
DOCA_STABLE doca_error_t doca_mmap_set_user_data(struct doca_mmap *mmap, union doca_data user_data);
DOCA_STABLE doca_error_t doca_mmap_get_user_data(const struct doca_mmap *mmap, union doca_data *user_data);
DOCA_STABLE doca_error_t doca_mmap_set_free_cb(struct doca_mmap *mmap, doca_mmap_memrange_free_cb_t *free_cb,
					       void *opaque);
/* Number of buffers currently describing memory of this mmap. */
DOCA_STABLE doca_error_t doca_mmap_get_num_bufs(const struct doca_mmap *mmap, uint32_t *num_bufs);
/* Has the mmap been exported / was it created from an export. */
DOCA_STABLE doca_error_t doca_mmap_get_exported(const struct doca_mmap *mmap, uint8_t *exported);
DOCA_STABLE doca_error_t doca_mmap_get_from_export(const struct doca_mmap *mmap, uint8_t *from_export);

/* Before start, with no buffer on the mmap (DOCA_ERROR_NOT_PERMITTED otherwise). */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_enable_thread_safety(struct doca_mmap *mmap);

/* DPA heap memory as the range: DOCA_ERROR_NOT_SUPPORTED after the checks
 * (INVALID_VALUE, BAD_STATE when started, NOT_PERMITTED when a range is set). */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_set_dpa_memrange(struct doca_mmap *mmap, struct doca_dpa *dpa,
							  uint64_t dpa_addr, size_t len);
/* DOCA_ERROR_NOT_SUPPORTED after the checks (INVALID_VALUE, NOT_FOUND for a
 * device not added, NOT_PERMITTED when not started). */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_dev_get_dpa_handle(struct doca_mmap *mmap, const struct doca_dev *dev,
							    doca_dpa_dev_mmap_t *dpa_mmap_handle);

DOCA_STABLE doca_error_t doca_mmap_add_dev(struct doca_mmap *mmap, struct doca_dev *dev);
DOCA_STABLE doca_error_t doca_mmap_rm_dev(struct doca_mmap *mmap, struct doca_dev *dev);

/* Export / import across PCIe (RDMA export: DOCA_ERROR_NOT_SUPPORTED). */
DOCA_STABLE doca_error_t doca_mmap_export_pci(struct doca_mmap *mmap, const struct doca_dev *dev,
					      const void **export_desc, size_t *export_desc_len);
DOCA_STABLE doca_error_t doca_mmap_export_rdma(struct doca_mmap *mmap, const struct doca_dev *dev,
					       const void **export_desc, size_t *export_desc_len);
DOCA_STABLE doca_error_t doca_mmap_create_from_export(const union doca_data *user_data, const void *export_desc,
						      size_t export_desc_len, struct doca_dev *dev,
						      struct doca_mmap **mmap);

/* Capabilities. */
DOCA_STABLE doca_error_t doca_mmap_cap_is_export_pci_supported(const struct doca_devinfo *devinfo,
							       uint8_t *mmap_export);
DOCA_STABLE doca_error_t doca_mmap_cap_is_create_from_export_pci_supported(const struct doca_devinfo *devinfo,
									   uint8_t *from_export);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_MMAP_H_ */
