/*
 * common.h - helpers the DOCA samples and applications share: open a device
 * by PCI address / ibdev name / interface name / capability, open a
 * representor, create and destroy the usual set of core objects, stop a
 * context and drain it to idle, and dump memory as hex.
 *
 * Call order: open_doca_device_*() -> create_core_objects() -> create the
 * library context (state->ctx) -> ... -> request_stop_ctx() -> destroy the
 * context -> destroy_core_objects() (which also closes state->dev).
 *
 * Threading: none of these functions is thread-safe on the same objects.
 */
#ifndef COMMON_H_
#define COMMON_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A device filter: DOCA_SUCCESS if the device is usable, an error otherwise. */
typedef doca_error_t (*tasks_check)(struct doca_devinfo *);

/* The core objects most samples need. */
struct program_core_objects {
	struct doca_dev *dev;              /* opened device */
	struct doca_mmap *src_mmap;        /* source memory map */
	struct doca_mmap *dst_mmap;        /* destination memory map */
	struct doca_buf_inventory *buf_inv;/* buffer inventory (started) */
	struct doca_ctx *ctx;              /* the library context (set by the program) */
	struct doca_pe *pe;                /* progress engine */
};

/* Open the device at pci_addr ("03:00.0" or "0000:03:00.0") that passes func (NULL: any). */
doca_error_t open_doca_device_with_pci(const char *pci_addr, tasks_check func, struct doca_dev **retval);

/* Open the device whose IB device name equals value[0..val_size). */
doca_error_t open_doca_device_with_ibdev_name(const uint8_t *value, size_t val_size, tasks_check func,
					      struct doca_dev **retval);

/* Open the device whose network interface name equals value[0..val_size). */
doca_error_t open_doca_device_with_iface_name(const uint8_t *value, size_t val_size, tasks_check func,
					      struct doca_dev **retval);

/* Open the first device that passes func. */
doca_error_t open_doca_device_with_capabilities(tasks_check func, struct doca_dev **retval);

/* Open the representor at pci_addr of local, among those matching filter. */
doca_error_t open_doca_device_rep_with_pci(struct doca_dev *local, enum doca_devinfo_rep_filter filter,
					   const char *pci_addr, struct doca_dev_rep **retval);

/* With state->dev open: create src/dst mmaps (device added), an inventory of
 * max_bufs elements (started) and a PE. On failure nothing new is left. */
doca_error_t create_core_objects(struct program_core_objects *state, uint32_t max_bufs);

/* Destroy what create_core_objects made and close state->dev (NULL fields are skipped). */
doca_error_t destroy_core_objects(struct program_core_objects *state);

/* Stop ctx and progress pe until the context is idle. */
doca_error_t request_stop_ctx(struct doca_pe *pe, struct doca_ctx *ctx);

/* "00 01 02 ... | ...." lines, 16 bytes each; a malloc'ed string to free(), NULL on error. */
char *hex_dump(const void *data, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* COMMON_H_ */
