/*
 * utils.c - small helpers shared by the applications.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <doca_argp.h>
#include <doca_log.h>
#include <doca_version.h>

#include "utils.h"

DOCA_LOG_REGISTER(UTILS);

doca_error_t sdk_version_callback(void *param, void *doca_config)
{
	(void)param;
	(void)doca_config;

	printf("DOCA SDK     Version (Compilation): %s\n", doca_version());
	printf("DOCA Runtime Version (Runtime):     %s\n", doca_version_runtime());
	/* Like --help, asking for the version ends the program. */
	doca_argp_destroy();
	exit(EXIT_SUCCESS);
}

uint64_t utils_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

doca_error_t utils_log_backends_init(void)
{
	struct doca_log_backend *sdk_log;
	doca_error_t result;

	result = doca_log_backend_create_standard();
	if (result != DOCA_SUCCESS)
		return result;
	result = doca_log_backend_create_with_file_sdk(stderr, &sdk_log);
	if (result != DOCA_SUCCESS)
		return result;
	return doca_log_backend_set_sdk_level(sdk_log, DOCA_LOG_LEVEL_WARNING);
}

doca_error_t utils_argp_start(const char *program, void *config, doca_error_t (*register_params)(void), int argc,
			      char **argv)
{
	doca_error_t result;

	result = doca_argp_init(program, config);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to init ARGP resources: %s", doca_error_get_descr(result));
		return result;
	}
	result = register_params();
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to register application params: %s", doca_error_get_descr(result));
		goto destroy_argp;
	}
	result = doca_argp_start(argc, argv);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to parse application input: %s", doca_error_get_descr(result));
		goto destroy_argp;
	}
	return DOCA_SUCCESS;

destroy_argp:
	doca_argp_destroy();
	return result;
}

doca_error_t utils_register_param(const char *short_name, const char *long_name, const char *arguments,
				  const char *description, enum doca_argp_type type, bool mandatory,
				  doca_argp_param_cb_t callback)
{
	struct doca_argp_param *param;
	doca_error_t result;

	result = doca_argp_param_create(&param);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create ARGP param: %s", doca_error_get_descr(result));
		return result;
	}
	doca_argp_param_set_short_name(param, short_name);
	doca_argp_param_set_long_name(param, long_name);
	if (arguments != NULL)
		doca_argp_param_set_arguments(param, arguments);
	doca_argp_param_set_description(param, description);
	doca_argp_param_set_callback(param, callback);
	doca_argp_param_set_type(param, type);
	if (mandatory)
		doca_argp_param_set_mandatory(param);
	result = doca_argp_register_param(param);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to register program param %s: %s", long_name, doca_error_get_descr(result));
	return result;
}

const char *utils_file_kind(mode_t mode)
{
	if (S_ISREG(mode))
		return "a regular file";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

doca_error_t utils_open_regular_file(const char *path, const char *what, int *fd, struct stat *st)
{
	int f, fl, e;

	if (path == NULL || what == NULL || fd == NULL || st == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (f < 0) {
		e = errno;
		DOCA_LOG_ERR("Failed to open %s %s: %s", what, path, strerror(e));
		return e == ENOENT ? DOCA_ERROR_NOT_FOUND : DOCA_ERROR_IO_FAILED;
	}
	if (fstat(f, st) != 0) {
		e = errno;
		DOCA_LOG_ERR("Failed to inspect %s %s: %s", what, path, strerror(e));
		close(f);
		return DOCA_ERROR_IO_FAILED;
	}
	if (!S_ISREG(st->st_mode)) {
		DOCA_LOG_ERR("The %s %s is not a regular file (it is %s)", what, path, utils_file_kind(st->st_mode));
		close(f);
		return DOCA_ERROR_INVALID_VALUE;
	}
	fl = fcntl(f, F_GETFL);
	if (fl < 0 || fcntl(f, F_SETFL, fl & ~O_NONBLOCK) != 0) {
		e = errno;
		DOCA_LOG_ERR("Failed to prepare %s %s for reading: %s", what, path, strerror(e));
		close(f);
		return DOCA_ERROR_IO_FAILED;
	}
	*fd = f;
	return DOCA_SUCCESS;
}
