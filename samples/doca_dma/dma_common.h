/*
 * dma_common.h - what the DMA samples share: their configuration and
 * arguments, the DMA resources (device, core objects, DMA context) and the
 * memcpy/state callbacks that drive a run to completion.
 *
 * Flow: register_dma_params() before doca_argp_start(); then
 * allocate_dma_resources(), start, submit, progress until
 * resources.run_pe_progress turns false (the Idle state callback), and
 * destroy_dma_resources(). Single-threaded.
 */
#ifndef DMA_COMMON_H_
#define DMA_COMMON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>

#include "../common.h"

#define MAX_USER_TXT_SIZE 4096             /* longest -t text */
#define MAX_TXT_SIZE (MAX_USER_TXT_SIZE + 1)
#define DEFAULT_NUM_TASKS 1
#define MAX_NUM_TASKS 128
#define DEFAULT_NUM_BUFS 1
#define MAX_NUM_RANGES 128                 /* upper bound of -mnr */
#define DEFAULT_PCI_ADDR "03:00.0"
#define DEFAULT_TEXT "This is a sample piece of text"

struct dma_config {
	char pci_address[DOCA_DEVINFO_PCI_ADDR_SIZE]; /* device to open */
	char cpy_txt[MAX_TXT_SIZE];                   /* text copied by each task */
	uint32_t num_src_buf;                         /* segments per source (chain) */
	uint32_t num_dst_buf;                         /* segments per destination (chain) */
	uint32_t num_tasks;                           /* tasks of dma_local_copy */
	uint32_t max_num_ranges;                      /* range profiling, 0 = off */
};

struct dma_resources {
	struct program_core_objects state; /* device, mmaps, inventory, PE, ctx */
	struct doca_dma *dma_ctx;
	size_t num_remaining_tasks;        /* tasks whose callback has not run */
	bool run_pe_progress;              /* cleared by the Idle state callback */
};

/* Register -p, -t and, for dma_local_copy, -nt, -mnr (and -ns, -nd on the DPU). */
doca_error_t register_dma_params(bool is_remote, bool is_local_copy);

/* Open the device, check the DMA capability and buffer counts, create the
 * core objects and the configured DMA context (its user data points at
 * resources). */
doca_error_t allocate_dma_resources(const char *pci_addr, uint32_t num_src_buf, uint32_t num_dst_buf,
				    uint32_t num_tasks, struct dma_resources *resources);
doca_error_t destroy_dma_resources(struct dma_resources *resources);

/* Is the device usable for memcpy tasks? (an open_doca_device_with_pci filter) */
doca_error_t dma_task_is_supported(struct doca_devinfo *devinfo);

/* Callbacks wired by allocate_dma_resources(). Task user data points at a
 * doca_error_t that receives the task's outcome. */
void dma_memcpy_completed_callback(struct doca_dma_task_memcpy *dma_task, union doca_data task_user_data,
				   union doca_data ctx_user_data);
void dma_memcpy_error_callback(struct doca_dma_task_memcpy *dma_task, union doca_data task_user_data,
			       union doca_data ctx_user_data);
void dma_state_changed_callback(const union doca_data user_data, struct doca_ctx *ctx,
				enum doca_ctx_states prev_state, enum doca_ctx_states next_state);

#endif /* DMA_COMMON_H_ */
