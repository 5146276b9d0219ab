/*
 * dma_copy_core.h - the DMA Copy application: copy one file between the host
 * and the BlueField Arm side.
 *
 * Model: the Arm side (dpu flavor) is the Comch server and is started first
 * (-p its PF, -r the representor of the host function); the host is the
 * client (-p its function). Comch carries the negotiation, DOCA DMA the
 * data; only the Arm side runs DMA, against host memory the host exports
 * with doca_mmap_export_pci().
 *
 * Direction: decided by the host. If the host's -f file exists it is copied
 * host -> Arm side into the Arm side's -f path; otherwise the Arm side's -f
 * file is copied Arm side -> host into the host's -f path. Files up to
 * DMA_COPY_MAX_FILE_SIZE bytes (empty ones included) are copied, in chunks
 * no larger than doca_dma_cap_task_memcpy_get_max_buf_size().
 *
 * Protocol (one request at a time, every integer big-endian):
 *   host -> Arm   REQUEST   direction, file size (host -> Arm only)
 *   Arm  -> host  RESPONSE  status, file size (Arm -> host only)
 *   host -> Arm   EXPORT    host buffer address and length, export descriptor
 *   Arm  -> host  DONE      status of the DMA copy (and of the file write
 *                           when the Arm side receives)
 * Either side may send DONE with an error status instead of its next message
 * to abort; the peer then fails with that status. A side stopped by SIGINT or
 * SIGTERM sends INTERRUPTED instead (at any point, also while the Arm side
 * runs the DMA, which watches for it between chunks); the peer then stops,
 * says that the other side was interrupted and fails with
 * DMA_COPY_PEER_INTERRUPTED.
 *
 * Files: every path is opened without blocking and must be a regular file
 * (a FIFO, a device or a directory is refused, naming what it is). The
 * receiving side writes into an unnamed file in the destination's directory
 * and gives it the destination's name only after every byte is written and
 * synced and neither side was interrupted, so a failed, interrupted or
 * killed copy never leaves a partial file under that name.
 *
 * Threading: single-threaded (the Comch PE and the DMA PE are progressed
 * from the calling thread).
 */
#ifndef DMA_COPY_CORE_H_
#define DMA_COPY_CORE_H_

#include <stdint.h>

#include <doca_comch.h>
#include <doca_dev.h>
#include <doca_error.h>

#include "comch_utils.h"

#define DMA_COPY_SERVER_NAME "dma_copy_server"
#define DMA_COPY_MAX_PATH 4096
#define DMA_COPY_MAX_FILE_SIZE (1024ull * 1024 * 1024) /* 1 GiB */
#define DMA_COPY_MAX_DESC_SIZE 2048

enum dma_copy_mode {
	DMA_COPY_MODE_HOST,
	DMA_COPY_MODE_DPU,
};

enum dma_copy_direction {
	DMA_COPY_HOST_TO_DPU = 1,
	DMA_COPY_DPU_TO_HOST = 2,
};

enum dma_copy_msg_type {
	DMA_COPY_MSG_REQUEST = 1,
	DMA_COPY_MSG_RESPONSE = 2,
	DMA_COPY_MSG_EXPORT = 3,
	DMA_COPY_MSG_DONE = 4,
	DMA_COPY_MSG_INTERRUPTED = 5, /* the sender was stopped by a signal and gives up */
};

/* What a side fails with when its peer told it that it was interrupted. */
#define DMA_COPY_PEER_INTERRUPTED DOCA_ERROR_CONNECTION_ABORTED

/* Every message: this header, then (EXPORT only) desc_len descriptor bytes. */
struct dma_copy_msg {
	uint32_t type;      /* enum dma_copy_msg_type */
	uint32_t status;    /* doca_error_t, DOCA_SUCCESS = 0 */
	uint32_t direction; /* enum dma_copy_direction (REQUEST) */
	uint32_t desc_len;  /* EXPORT: descriptor bytes that follow */
	uint64_t file_size; /* REQUEST (host -> Arm), RESPONSE (Arm -> host) */
	uint64_t addr;      /* EXPORT: host buffer address */
	uint64_t len;       /* EXPORT: host buffer length */
} __attribute__((packed));

_Static_assert(sizeof(struct dma_copy_msg) == 40, "dma_copy_msg is 40 bytes on the wire");

struct dma_copy_cfg {
	enum dma_copy_mode mode;
	char file_path[DMA_COPY_MAX_PATH];
	char cc_dev_pci_addr[DOCA_DEVINFO_PCI_ADDR_SIZE];
	char cc_dev_rep_pci_addr[DOCA_DEVINFO_REP_PCI_ADDR_SIZE];
};

/* Filled by dma_copy_recv_cb (one message at a time), consumed by the wait loops. */
struct dma_copy_state {
	struct dma_copy_cfg *cfg;
	int msg_pending;    /* a message waits in msg/desc */
	int protocol_error; /* a second message arrived before the first was consumed, or a malformed one */
	int peer_stopped;   /* the peer sent INTERRUPTED or an error DONE: it hangs up, do not wait for it */
	struct dma_copy_msg msg;
	uint8_t desc[DMA_COPY_MAX_DESC_SIZE];
};

/* Register -f, -p and (Arm side) -r, the validation and version callbacks. */
doca_error_t register_dma_copy_params(void);

/* Comch receive callback (both sides): stores the message for the wait loops. */
void dma_copy_recv_cb(struct doca_comch_event_msg_recv *event, uint8_t *recv_buffer, uint32_t msg_len,
		      struct doca_comch_connection *comch_connection);

/* Run the copy: host side (decides the direction) or Arm side (runs the DMA). */
doca_error_t host_start_dma_copy(struct dma_copy_cfg *cfg, struct comch_cfg *comch_cfg,
				 struct dma_copy_state *state);
doca_error_t dpu_start_dma_copy(struct dma_copy_cfg *cfg, struct comch_cfg *comch_cfg,
				struct dma_copy_state *state);

#endif /* DMA_COPY_CORE_H_ */
