/*
 * utils.h - small helpers shared by the applications.
 *
 * sdk_version_callback is registered with doca_argp_register_version_callback
 * and prints the DOCA version the program was compiled with and the one of
 * the library it runs with, then exits successfully. Single-threaded use
 * (argument parsing time).
 */
#ifndef APPLICATIONS_COMMON_UTILS_H_
#define APPLICATIONS_COMMON_UTILS_H_

#include <stdint.h>

#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ARGP version callback: prints the versions and exits with EXIT_SUCCESS. */
doca_error_t sdk_version_callback(void *param, void *doca_config);

/* Monotonic clock in nanoseconds, for the applications' timings. */
uint64_t utils_monotonic_ns(void);

#ifdef __cplusplus
}
#endif

#endif /* APPLICATIONS_COMMON_UTILS_H_ */
