/*
 * utils.c - small helpers shared by the applications.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <doca_argp.h>
#include <doca_version.h>

#include "utils.h"

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
