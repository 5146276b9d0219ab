/*
 * dma_copy.c - entry point of doca_dma_copy.
 *
 * The dpu flavor is the Comch server (BlueField Arm side, started first,
 * needs -r) and runs the DMA; the host flavor is the client and decides the
 * direction from whether its -f file exists.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_log.h>

#include "comch_utils.h"
#include "dma_copy_core.h"
#include "utils.h"

DOCA_LOG_REGISTER(DMA_COPY);

int main(int argc, char **argv)
{
	static struct dma_copy_state state; /* large (descriptor buffer): not on the stack */
	struct dma_copy_cfg dma_cfg;
	struct comch_cfg *comch_cfg = NULL;
	doca_error_t result;
	int exit_status = EXIT_FAILURE;

	memset(&dma_cfg, 0, sizeof(dma_cfg));
#ifdef DOCA_ARCH_DPU
	dma_cfg.mode = DMA_COPY_MODE_DPU;
#else
	dma_cfg.mode = DMA_COPY_MODE_HOST;
#endif
	state.cfg = &dma_cfg;

	if (utils_log_backends_init() != DOCA_SUCCESS)
		return EXIT_FAILURE;
	if (utils_argp_start("doca_dma_copy", &dma_cfg, register_dma_copy_params, argc, argv) != DOCA_SUCCESS)
		return EXIT_FAILURE;

	comch_utils_install_signal_handlers();
	result = comch_utils_init(DMA_COPY_SERVER_NAME, dma_cfg.cc_dev_pci_addr, dma_cfg.cc_dev_rep_pci_addr, &state,
				  dma_copy_recv_cb, dma_copy_recv_cb, &comch_cfg);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to initialize a comch: %s", doca_error_get_descr(result));
		goto destroy_argp;
	}

	if (dma_cfg.mode == DMA_COPY_MODE_HOST)
		result = host_start_dma_copy(&dma_cfg, comch_cfg, &state);
	else
		result = dpu_start_dma_copy(&dma_cfg, comch_cfg, &state);
	if (result == DOCA_ERROR_SHUTDOWN && comch_utils_interrupted())
		DOCA_LOG_ERR("DMA copy interrupted: the copy was abandoned");
	else if (result == DMA_COPY_PEER_INTERRUPTED)
		DOCA_LOG_ERR("DMA copy failed: the %s side was interrupted",
			     dma_cfg.mode == DMA_COPY_MODE_HOST ? "DPU" : "host");
	else if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("DMA copy failed: %s", doca_error_get_descr(result));
	else
		exit_status = EXIT_SUCCESS;

	result = comch_utils_destroy(comch_cfg);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to destroy DOCA Comch: %s", doca_error_get_descr(result));
		exit_status = EXIT_FAILURE;
	}

destroy_argp:
	doca_argp_destroy();
	return exit_status;
}
