/*
 * doca_types.h - types shared by every DOCA library.
 */
#ifndef DOCA_TYPES_H_
#define DOCA_TYPES_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Handle a program can wait on (epoll/poll/select): a file descriptor here. */
typedef int doca_event_handle_t;
typedef int doca_notification_handle_t;

/* Opaque user data carried by contexts, tasks, connections. */
union doca_data {
	void *ptr;
	uint64_t u64;
};

/* Access rights of an mmap, to the local process and to its peers. */
enum doca_access_flag {
	DOCA_ACCESS_FLAG_LOCAL_READ_ONLY = 0,
	DOCA_ACCESS_FLAG_LOCAL_READ_WRITE = (1 << 0),
	DOCA_ACCESS_FLAG_RDMA_READ = (1 << 1),
	DOCA_ACCESS_FLAG_RDMA_WRITE = (1 << 2),
	DOCA_ACCESS_FLAG_RDMA_ATOMIC = (1 << 3),
	DOCA_ACCESS_FLAG_PCI_READ_ONLY = (1 << 4),
	DOCA_ACCESS_FLAG_PCI_READ_WRITE = (1 << 5),
	DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING = (1 << 6),
};

/* Which kind of PCI function a device or representor is. */
enum doca_pci_func_type {
	DOCA_PCI_FUNC_TYPE_PF = 0,
	DOCA_PCI_FUNC_TYPE_VF,
	DOCA_PCI_FUNC_TYPE_SF,
};

/* GPU memory kinds (no GPU is emulated; kept for source compatibility). */
enum doca_gpu_mem_type {
	DOCA_GPU_MEM_TYPE_GPU = 0,
	DOCA_GPU_MEM_TYPE_GPU_CPU = 1,
	DOCA_GPU_MEM_TYPE_CPU_GPU = 2,
};

#ifdef __cplusplus
}
#endif

#endif /* DOCA_TYPES_H_ */
