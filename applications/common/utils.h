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
#include <sys/stat.h>

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

/* What a file of this st_mode is ("a directory", "a FIFO", ...), for messages. */
const char *utils_file_kind(mode_t mode);

/*
 * Open a path the user gave, read-only, without ever blocking: the open is
 * non-blocking (a FIFO without a writer, a tty or a device would hang a
 * plain one), the type is checked on the open descriptor, and anything but
 * a regular file is refused with an error naming `what`, the path and what
 * it is (DOCA_ERROR_INVALID_VALUE). A regular file's descriptor is returned
 * in blocking mode with its fstat() in *st. Missing: DOCA_ERROR_NOT_FOUND.
 */
doca_error_t utils_open_regular_file(const char *path, const char *what, int *fd, struct stat *st);

#ifdef __cplusplus
}
#endif

#endif /* APPLICATIONS_COMMON_UTILS_H_ */
