/*
 * utils.h - small helpers shared by the applications.
 *
 * sdk_version_callback is registered with doca_argp_register_version_callback
 * and prints the DOCA version the program was compiled with and the one of
 * the library it runs with, then exits successfully. The log and argp helpers
 * are the applications' common start-up. Single-threaded use (start-up and
 * argument parsing time).
 */
#ifndef APPLICATIONS_COMMON_UTILS_H_
#define APPLICATIONS_COMMON_UTILS_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_argp.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ARGP version callback: prints the versions and exits with EXIT_SUCCESS. */
doca_error_t sdk_version_callback(void *param, void *doca_config);

/* The applications' two log backends: the standard one and the SDK one on
 * stderr at WARNING. */
doca_error_t utils_log_backends_init(void);

/* doca_argp_init(program, config), register_params(), doca_argp_start():
 * each failure is logged and leaves argp destroyed; on success the caller
 * calls doca_argp_destroy() at the end. */
doca_error_t utils_argp_start(const char *program, void *config, doca_error_t (*register_params)(void), int argc,
			      char **argv);

/* Create and register one program parameter (arguments may be NULL). */
doca_error_t utils_register_param(const char *short_name, const char *long_name, const char *arguments,
				  const char *description, enum doca_argp_type type, bool mandatory,
				  doca_argp_param_cb_t callback);

/* Monotonic clock in nanoseconds, for the applications' timings. */
uint64_t utils_monotonic_ns(void);

#ifdef __cplusplus
}
#endif

#endif /* APPLICATIONS_COMMON_UTILS_H_ */
