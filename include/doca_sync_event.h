/*
 * doca_sync_event.h - DOCA Sync Event: a 64-bit counter that execution units
 * set, increment, read and wait upon to synchronise with each other.
 *
 * Model: an event is created on the CPU of one side (host or Arm) with
 * doca_sync_event_create, or from the bytes another side exported with
 * doca_sync_event_create_from_export. A locally created event is configured
 * before it starts: at least one publisher location (who updates it) and one
 * subscriber location (who waits on it), and optionally the 8 bytes that hold
 * the value (doca_sync_event_set_addr / doca_sync_event_set_doca_buf; by
 * default the library allocates them). An event created from an export is
 * already configured and refuses configuration.
 *
 * An event is then used in exactly one of two modes:
 *   - stand-alone: doca_sync_event_start ... doca_sync_event_stop, with the
 *     synchronous calls (get, update_add/update_set, wait_*);
 *   - as a DOCA context: doca_sync_event_as_ctx, configure task pools with
 *     doca_sync_event_task_*_set_conf, doca_pe_connect_ctx, doca_ctx_start;
 *     then submit get / notify_set / notify_add / wait_eq / wait_neq tasks and
 *     receive their completions from doca_pe_progress. The synchronous calls
 *     work too while the context is RUNNING.
 * Once converted with doca_sync_event_as_ctx, doca_sync_event_start is
 * refused; while started stand-alone, doca_sync_event_as_ctx answers NULL.
 *
 * Call order (exporting side, remote PCI):
 *     doca_sync_event_create -> add_publisher_location_remote_pci ->
 *     add_subscriber_location_cpu(dev) -> start (either mode) ->
 *     doca_sync_event_export_to_remote_pci(dev) -> send the bytes to the
 *     other side (Comch...) -> update / wait -> stop -> destroy
 * (importing side):
 *     doca_sync_event_create_from_export(dev, bytes) -> start (either mode)
 *     -> update / wait -> stop -> destroy
 * Both sides update the same counter atomically; the export bytes are only
 * meaningful on the other side of the same emulated card and while the
 * exporting process and its event live. They grant access to the counter:
 * pass them over a trusted channel only.
 *
 * Waits: the synchronous waits spin (wait_eq/neq/gt) or spin and yield the
 * CPU between polls (the _yield variants) until (value & mask) compares as
 * asked. A wait on an exported or imported event returns
 * DOCA_ERROR_CONNECTION_RESET when the process on the other side dies, and
 * DOCA_ERROR_NOT_FOUND when the exporter destroyed the event, instead of
 * waiting forever; a wait nobody can satisfy otherwise spins, as on the card.
 * Wait tasks take masks made of 0, 1, 2, 4 or 8 consecutive 0xff bytes,
 * aligned to their size (0, 0xff, 0xff00, 0xffff, 0xffffffff00000000,
 * UINT64_MAX...); doca_task_submit refuses other masks (INVALID_VALUE).
 * Pending wait tasks are evaluated from doca_pe_progress (and wake an
 * event-driven PE at least every millisecond while any is pending); tasks
 * still pending when the context stops are flushed (DOCA_ERROR_IO_FAILED).
 *
 * Task pools: num_tasks 0 in a *_set_conf behaves as 1. Configuring a task
 * type of a context that is not IDLE answers DOCA_ERROR_NOT_PERMITTED.
 *
 * Not emulated (DOCA_ERROR_NOT_SUPPORTED after their argument checks): DPA
 * and GPU locations and handles, and everything "remote_net" (it needs
 * RDMA).
 *
 * Threading: an event is not thread-safe; use it from one thread at a time
 * (its value may be updated concurrently from anywhere, that is the point).
 */
#ifndef DOCA_SYNC_EVENT_H_
#define DOCA_SYNC_EVENT_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_ctx;
struct doca_dev;
struct doca_devinfo;
struct doca_dpa;
struct doca_gpu;
struct doca_task;
struct doca_sync_event;
struct doca_sync_event_remote_net;
struct doca_sync_event_task_get;
struct doca_sync_event_task_notify_set;
struct doca_sync_event_task_notify_add;
struct doca_sync_event_task_wait_eq;
struct doca_sync_event_task_wait_neq;

/* Handles an event would have on a DPA or a GPU (never produced here). */
typedef uint64_t doca_dpa_dev_sync_event_t;
typedef uint64_t doca_dpa_dev_sync_event_remote_net_t;
typedef uint64_t doca_gpu_dev_sync_event_t;
typedef uint64_t doca_gpu_dev_sync_event_remote_net_t;

/* Completion (success or error) callbacks, one type per task type. */
typedef void (*doca_sync_event_task_get_completion_cb_t)(struct doca_sync_event_task_get *task,
							 union doca_data task_user_data,
							 union doca_data ctx_user_data);
typedef void (*doca_sync_event_task_notify_set_completion_cb_t)(struct doca_sync_event_task_notify_set *task,
								union doca_data task_user_data,
								union doca_data ctx_user_data);
typedef void (*doca_sync_event_task_notify_add_completion_cb_t)(struct doca_sync_event_task_notify_add *task,
								union doca_data task_user_data,
								union doca_data ctx_user_data);
typedef void (*doca_sync_event_task_wait_eq_completion_cb_t)(struct doca_sync_event_task_wait_eq *task,
							     union doca_data task_user_data,
							     union doca_data ctx_user_data);
typedef void (*doca_sync_event_task_wait_neq_completion_cb_t)(struct doca_sync_event_task_wait_neq *task,
							      union doca_data task_user_data,
							      union doca_data ctx_user_data);

/* ---- creation and destruction ---------------------------------------- */

/* A new, unconfigured event on this side's CPU. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_create(struct doca_sync_event **event);

/* The other side's event, from the bytes its doca_sync_event_export_to_remote_pci
 * produced. INVALID_VALUE for bytes that are not a live export of the other
 * side of dev's card; NOT_SUPPORTED if dev cannot import. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_create_from_export(struct doca_dev *dev, const uint8_t *data,
								  size_t sz, struct doca_sync_event **event);

/* DOCA_SUCCESS if the device can create an event from an export. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_is_create_from_export_supported(const struct doca_devinfo *devinfo);

/* Remote-net (RDMA) handles: not emulated, NOT_SUPPORTED. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_remote_net_create_from_export(struct doca_dev *dev,
									     const uint8_t *data, size_t sz,
									     struct doca_sync_event_remote_net **event);
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_cap_remote_net_is_create_from_export_supported(const struct doca_devinfo *devinfo);

/* Destroy an event (a started stand-alone event is stopped first; a context
 * must be IDLE). Its export, if any, is revoked. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_destroy(struct doca_sync_event *event);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_remote_net_destroy(struct doca_sync_event_remote_net *event);

/* ---- configuration (before start; refused on an imported event) ------- */

DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_publisher_location_cpu(struct doca_sync_event *event,
									  struct doca_dev *dev);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_publisher_location_dpa(struct doca_sync_event *event,
									  struct doca_dpa *dpa);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_publisher_location_gpu(struct doca_sync_event *event,
									  struct doca_gpu *gpu);
/* The other side of the PCIe link will update the event (through an export). */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_publisher_location_remote_pci(struct doca_sync_event *event);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_publisher_location_remote_net(struct doca_sync_event *event);

DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_subscriber_location_cpu(struct doca_sync_event *event,
									   struct doca_dev *dev);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_subscriber_location_dpa(struct doca_sync_event *event,
									   struct doca_dpa *dpa);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_subscriber_location_gpu(struct doca_sync_event *event,
									   struct doca_gpu *gpu);
/* The other side of the PCIe link will wait on the event. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_subscriber_location_remote_pci(struct doca_sync_event *event);

/* Keep the value in 8 bytes of this process (8-byte aligned). Such an event
 * cannot be exported: the emulated link shares only memory the library
 * allocates (NOT_SUPPORTED at export). */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_set_addr(struct doca_sync_event *event, uint64_t *addr);

/* Keep the value in a buffer's data segment: exactly 8 bytes, one segment,
 * an mmap of this process with local read/write access (NOT_PERMITTED
 * otherwise). Same export limit as doca_sync_event_set_addr. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_set_doca_buf(struct doca_sync_event *event, struct doca_buf *buf);

/* ---- stand-alone mode -------------------------------------------------- */

/* BAD_STATE if already started, converted to a context, or (local event)
 * missing a publisher or a subscriber location. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_start(struct doca_sync_event *event);
/* BAD_STATE unless started with doca_sync_event_start. The value is kept. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_stop(struct doca_sync_event *event);

/* ---- context mode ------------------------------------------------------ */

/* The event as a DOCA context (no device is attached to it); NULL for NULL
 * or for an event started stand-alone. */
DOCA_EXPERIMENTAL struct doca_ctx *doca_sync_event_as_ctx(struct doca_sync_event *event);

DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_task_get_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_task_get_set_conf(struct doca_sync_event *event,
								 doca_sync_event_task_get_completion_cb_t completion_cb,
								 doca_sync_event_task_get_completion_cb_t error_cb,
								 uint32_t num_tasks);
/* A task that reads the value into *ret_val_ptr. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_task_get_alloc_init(struct doca_sync_event *event,
								   uint64_t *ret_val_ptr, union doca_data user_data,
								   struct doca_sync_event_task_get **task);
DOCA_EXPERIMENTAL struct doca_task *doca_sync_event_task_get_as_doca_task(struct doca_sync_event_task_get *task);
DOCA_EXPERIMENTAL void doca_sync_event_task_get_set_ret_val_ptr(struct doca_sync_event_task_get *task,
								uint64_t *ret_val_ptr);
DOCA_EXPERIMENTAL uint64_t *doca_sync_event_task_get_get_ret_val_ptr(const struct doca_sync_event_task_get *task);

DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_task_notify_set_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_task_notify_set_set_conf(struct doca_sync_event *event,
					 doca_sync_event_task_notify_set_completion_cb_t completion_cb,
					 doca_sync_event_task_notify_set_completion_cb_t error_cb, uint32_t num_tasks);
/* A task that sets the value to set_val. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_task_notify_set_alloc_init(struct doca_sync_event *event,
									  uint64_t set_val, union doca_data user_data,
									  struct doca_sync_event_task_notify_set **task);
DOCA_EXPERIMENTAL struct doca_task *
doca_sync_event_task_notify_set_as_doca_task(struct doca_sync_event_task_notify_set *task);
DOCA_EXPERIMENTAL void doca_sync_event_task_notify_set_set_set_val(struct doca_sync_event_task_notify_set *task,
								   uint64_t set_val);
DOCA_EXPERIMENTAL uint64_t
doca_sync_event_task_notify_set_get_set_val(const struct doca_sync_event_task_notify_set *task);

DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_task_notify_add_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_task_notify_add_set_conf(struct doca_sync_event *event,
					 doca_sync_event_task_notify_add_completion_cb_t completion_cb,
					 doca_sync_event_task_notify_add_completion_cb_t error_cb, uint32_t num_tasks);
/* A task that atomically adds inc_val and stores the previous value in
 * *fetched_val_ptr. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_task_notify_add_alloc_init(struct doca_sync_event *event,
									  uint64_t inc_val, uint64_t *fetched_val_ptr,
									  union doca_data user_data,
									  struct doca_sync_event_task_notify_add **task);
DOCA_EXPERIMENTAL struct doca_task *
doca_sync_event_task_notify_add_as_doca_task(struct doca_sync_event_task_notify_add *task);
DOCA_EXPERIMENTAL void doca_sync_event_task_notify_add_set_inc_val(struct doca_sync_event_task_notify_add *task,
								   uint64_t inc_val);
DOCA_EXPERIMENTAL uint64_t
doca_sync_event_task_notify_add_get_inc_val(const struct doca_sync_event_task_notify_add *task);
DOCA_EXPERIMENTAL void
doca_sync_event_task_notify_add_set_fetched_val_ptr(struct doca_sync_event_task_notify_add *task,
						    uint64_t *fetched_val_ptr);
DOCA_EXPERIMENTAL uint64_t *
doca_sync_event_task_notify_add_get_fetched_val_ptr(const struct doca_sync_event_task_notify_add *task);

DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_task_wait_eq_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_task_wait_eq_set_conf(struct doca_sync_event *event,
				      doca_sync_event_task_wait_eq_completion_cb_t completion_cb,
				      doca_sync_event_task_wait_eq_completion_cb_t error_cb, uint32_t num_tasks);
/* A task that completes once (value & mask) == wait_val. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_task_wait_eq_alloc_init(struct doca_sync_event *event,
								       uint64_t wait_val, uint64_t mask,
								       union doca_data user_data,
								       struct doca_sync_event_task_wait_eq **task);
DOCA_EXPERIMENTAL struct doca_task *
doca_sync_event_task_wait_eq_as_doca_task(struct doca_sync_event_task_wait_eq *task);
DOCA_EXPERIMENTAL void doca_sync_event_task_wait_eq_set_wait_val(struct doca_sync_event_task_wait_eq *task,
								 uint64_t wait_val);
DOCA_EXPERIMENTAL uint64_t doca_sync_event_task_wait_eq_get_wait_val(const struct doca_sync_event_task_wait_eq *task);
DOCA_EXPERIMENTAL void doca_sync_event_task_wait_eq_set_mask(struct doca_sync_event_task_wait_eq *task,
							     uint64_t mask);
DOCA_EXPERIMENTAL uint64_t doca_sync_event_task_wait_eq_get_mask(const struct doca_sync_event_task_wait_eq *task);

DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_task_wait_neq_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_task_wait_neq_set_conf(struct doca_sync_event *event,
				       doca_sync_event_task_wait_neq_completion_cb_t completion_cb,
				       doca_sync_event_task_wait_neq_completion_cb_t error_cb, uint32_t num_tasks);
/* A task that completes once (value & mask) != wait_val. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_task_wait_neq_alloc_init(struct doca_sync_event *event,
									uint64_t wait_val, uint64_t mask,
									union doca_data user_data,
									struct doca_sync_event_task_wait_neq **task);
DOCA_EXPERIMENTAL struct doca_task *
doca_sync_event_task_wait_neq_as_doca_task(struct doca_sync_event_task_wait_neq *task);
DOCA_EXPERIMENTAL void doca_sync_event_task_wait_neq_set_wait_val(struct doca_sync_event_task_wait_neq *task,
								  uint64_t wait_val);
DOCA_EXPERIMENTAL uint64_t
doca_sync_event_task_wait_neq_get_wait_val(const struct doca_sync_event_task_wait_neq *task);
DOCA_EXPERIMENTAL void doca_sync_event_task_wait_neq_set_mask(struct doca_sync_event_task_wait_neq *task,
							      uint64_t mask);
DOCA_EXPERIMENTAL uint64_t doca_sync_event_task_wait_neq_get_mask(const struct doca_sync_event_task_wait_neq *task);

/* ---- export ------------------------------------------------------------ */

/*
 * Bytes that let the other side of dev's card create this event
 * (doca_sync_event_create_from_export). The event must be started (either
 * mode), declare a remote PCI publisher or subscriber location (BAD_STATE
 * otherwise) and keep its value in memory the library allocated
 * (NOT_SUPPORTED otherwise). *data stays valid until the event is destroyed.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_export_to_remote_pci(struct doca_sync_event *event,
								    struct doca_dev *dev, const uint8_t **data,
								    size_t *sz);
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_cap_is_export_to_remote_pci_supported(const struct doca_devinfo *devinfo);

/* DPA, GPU and remote-net handles: not emulated, NOT_SUPPORTED. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_get_dpa_handle(struct doca_sync_event *event, struct doca_dpa *dpa,
							      doca_dpa_dev_sync_event_t *dpa_dev_se_handle);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_is_export_to_dpa_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_get_gpu_handle(struct doca_sync_event *event, struct doca_gpu *gpu,
							      doca_gpu_dev_sync_event_t **gpu_dev_se);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_is_export_to_gpu_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_export_to_remote_net(struct doca_sync_event *event,
								    const uint8_t **data, size_t *sz);
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_cap_is_export_to_remote_net_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_remote_net_get_dpa_handle(struct doca_sync_event_remote_net *event, struct doca_dpa *dpa,
					  doca_dpa_dev_sync_event_remote_net_t *dpa_remote_event);
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_cap_remote_net_is_export_to_dpa_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_remote_net_get_gpu_handle(struct doca_sync_event_remote_net *event, struct doca_gpu *gpu,
					  doca_gpu_dev_sync_event_remote_net_t *gpu_remote_event);
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_cap_remote_net_is_export_to_gpu_supported(const struct doca_devinfo *devinfo);

/* ---- synchronous data path (started event, or RUNNING context) --------- */

DOCA_EXPERIMENTAL doca_error_t doca_sync_event_get(struct doca_sync_event *event, uint64_t *value);
/* Atomically add value; *fetched gets the value before the addition. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_update_add(struct doca_sync_event *event, uint64_t value,
							  uint64_t *fetched);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_update_set(struct doca_sync_event *event, uint64_t value);

/* Return once (event value & mask) > value / == value / != value. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_wait_gt(struct doca_sync_event *event, uint64_t value, uint64_t mask);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_wait_gt_yield(struct doca_sync_event *event, uint64_t value,
							     uint64_t mask);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_wait_eq(struct doca_sync_event *event, uint64_t value, uint64_t mask);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_wait_eq_yield(struct doca_sync_event *event, uint64_t value,
							     uint64_t mask);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_wait_neq(struct doca_sync_event *event, uint64_t value, uint64_t mask);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_wait_neq_yield(struct doca_sync_event *event, uint64_t value,
							      uint64_t mask);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_SYNC_EVENT_H_ */
