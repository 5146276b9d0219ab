/*
 * dma_common.h - what the DMA samples share: their configuration and
 * arguments, the DMA resources (device, core objects, DMA context) and the
 * memcpy/state callbacks that drive a run to completion.
 *
 * Flow: dma_sample_log_init(), dma_sample_parse_args() with
 * register_dma_params() (dma_copy_files_main() does it all for the dma_copy
 * samples); then
 * allocate_dma_resources(), start, submit, progress until
 * resources.run_pe_progress turns false (the Idle state callback), and
 * destroy_dma_resources(). Single-threaded.
 */
#ifndef DMA_COMMON_H_
#define DMA_COMMON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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
#define MAX_ARG_SIZE 256                   /* longest -d / -b path, with its NUL */
#define DEFAULT_EXPORT_DESC_PATH "/tmp/export_desc.txt"
#define DEFAULT_BUF_INFO_PATH "/tmp/buffer_info.txt"
#define DMA_COPY_HOST_DEFAULT_PCI_ADDR "3b:00.0"

struct dma_config {
	char pci_address[DOCA_DEVINFO_PCI_ADDR_SIZE]; /* device to open */
	char cpy_txt[MAX_TXT_SIZE];                   /* text copied by each task */
	uint32_t num_src_buf;                         /* segments per source (chain) */
	uint32_t num_dst_buf;                         /* segments per destination (chain) */
	uint32_t num_tasks;                           /* tasks of dma_local_copy */
	uint32_t max_num_ranges;                      /* range profiling, 0 = off */
};

/* The dma_copy_host / dma_copy_dpu samples: the files that carry the export
 * descriptor and the buffer's address and length from one side to the other. */
struct dma_copy_files_cfg {
	struct dma_config dma; /* first: the -p/-t/-ns/-nd callbacks see a struct dma_config */
	char export_desc_path[MAX_ARG_SIZE];
	char buf_info_path[MAX_ARG_SIZE];
};

struct dma_resources {
	struct program_core_objects state; /* device, mmaps, inventory, PE, ctx */
	struct doca_dma *dma_ctx;
	size_t num_remaining_tasks;        /* tasks whose callback has not run */
	bool run_pe_progress;              /* cleared by the Idle state callback */
};

/* Register -p, -t and, for dma_local_copy, -nt, -mnr (and -ns, -nd on the DPU). */
doca_error_t register_dma_params(bool is_remote, bool is_local_copy);

/* Defaults: pci_addr, DEFAULT_TEXT, one buffer per side, one task, no profiling. */
void dma_config_set_defaults(struct dma_config *conf, const char *pci_addr);

/* The samples' frame: the standard log backend and the SDK one (stderr,
 * WARNING); then doca_argp_init(config), register_params() and parsing, each
 * failure logged. On failure argp is left destroyed; on success the caller
 * calls doca_argp_destroy() at the end. */
doca_error_t dma_sample_log_init(void);

/* Open a file the user named (flags as for open(2), O_TRUNC honoured) without
 * ever blocking on a FIFO or a device: anything but a regular file is refused
 * with an error that says what it is. Returns the descriptor, or -1 with *err
 * set (NOT_FOUND when it does not exist, INVALID_VALUE when it is not a
 * regular file, IO_FAILED otherwise) and the reason logged. */
int dma_open_regular_file(const char *path, int flags, mode_t mode, doca_error_t *err);
doca_error_t dma_sample_parse_args(int argc, char **argv, void *config, doca_error_t (*register_params)(void));

/* The whole main() of doca_dma_copy_dpu (is_dpu_side) and doca_dma_copy_host:
 * defaults, logging, arguments (those of register_dma_params(true, false),
 * -d and -b: files to read on the Arm side, to save on the host; on the Arm
 * side -ns and -nd), the flavor guard, run(), the closing line. Returns the
 * exit status. */
int dma_copy_files_main(int argc, char **argv, bool is_dpu_side, doca_error_t (*run)(struct dma_copy_files_cfg *cfg));

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
