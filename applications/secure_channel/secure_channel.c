/*
 * secure_channel.c - entry point of doca_secure_channel.
 *
 * The dpu flavor is the Comch server (BlueField Arm side, started first,
 * needs -r); the host flavor is the client. Both send -n messages of -s
 * bytes to the other side over the Comch fast path and report the timings.
 */
#include <stdlib.h>

#include <doca_argp.h>
#include <doca_log.h>

#include "comch_utils.h"
#include "secure_channel_core.h"
#include "utils.h"

DOCA_LOG_REGISTER(SECURE_CHANNEL);

int main(int argc, char **argv)
{
	struct sc_config app_cfg = {0};
	struct cc_ctx ctx = {0};
	struct comch_cfg *comch_cfg = NULL;
	doca_error_t result;
	int exit_status = EXIT_FAILURE;

#ifdef DOCA_ARCH_DPU
	app_cfg.mode = SC_MODE_DPU;
#else
	app_cfg.mode = SC_MODE_HOST;
#endif

	if (utils_log_backends_init() != DOCA_SUCCESS)
		return EXIT_FAILURE;
	if (utils_argp_start("doca_secure_channel", &app_cfg, register_secure_channel_params, argc, argv) !=
	    DOCA_SUCCESS)
		return EXIT_FAILURE;

	comch_utils_install_signal_handlers();
	result = comch_utils_fast_path_init(SERVER_NAME, app_cfg.cc_dev_pci_addr, app_cfg.cc_dev_rep_pci_addr, &ctx,
					    comch_recv_event_cb, comch_recv_event_cb, new_consumer_callback,
					    expired_consumer_callback, &comch_cfg);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to initialize a comch: %s", doca_error_get_descr(result));
		goto destroy_argp;
	}

	result = sc_start(comch_cfg, &app_cfg, &ctx);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to initialize endpoint: %s", doca_error_get_descr(result));
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
