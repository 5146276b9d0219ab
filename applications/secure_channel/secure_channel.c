/*
 * secure_channel.c - entry point of doca_secure_channel.
 *
 * The dpu flavor is the Comch server (BlueField Arm side, started first,
 * needs -r); the host flavor is the client. Both send -n messages of -s
 * bytes to the other side over the Comch fast path and report the timings.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_build_config.h>
#include <doca_log.h>

#include "comch_utils.h"
#include "secure_channel_core.h"

DOCA_LOG_REGISTER(SECURE_CHANNEL);

/* Ctrl-C / SIGTERM: let the wait loops end so everything is torn down; a second one kills. */
static void signal_handler(int signum)
{
	(void)signum;
	comch_utils_interrupt();
}

static void install_signal_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = signal_handler;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int main(int argc, char **argv)
{
	struct sc_config app_cfg = {0};
	struct cc_ctx ctx = {0};
	struct comch_cfg *comch_cfg = NULL;
	struct doca_log_backend *sdk_log;
	doca_error_t result;
	int exit_status = EXIT_FAILURE;

#ifdef DOCA_ARCH_DPU
	app_cfg.mode = SC_MODE_DPU;
#else
	app_cfg.mode = SC_MODE_HOST;
#endif

	result = doca_log_backend_create_standard();
	if (result != DOCA_SUCCESS)
		return EXIT_FAILURE;
	result = doca_log_backend_create_with_file_sdk(stderr, &sdk_log);
	if (result != DOCA_SUCCESS)
		return EXIT_FAILURE;
	result = doca_log_backend_set_sdk_level(sdk_log, DOCA_LOG_LEVEL_WARNING);
	if (result != DOCA_SUCCESS)
		return EXIT_FAILURE;

	result = doca_argp_init("doca_secure_channel", &app_cfg);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to init ARGP resources: %s", doca_error_get_descr(result));
		return EXIT_FAILURE;
	}
	result = register_secure_channel_params();
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to register application params: %s", doca_error_get_descr(result));
		goto destroy_argp;
	}
	result = doca_argp_start(argc, argv);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to parse application input: %s", doca_error_get_descr(result));
		goto destroy_argp;
	}

	install_signal_handlers();
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
