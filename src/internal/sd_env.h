/*
 * sd_env.h - softdoca's environment variables, read one way.
 *
 * Every SOFTDOCA_* variable that holds a number goes through sd_env_u64, so
 * junk is refused the same way everywhere: a value is a decimal integer
 * (digits only: no sign, no trailing letters, no hex) inside the range the
 * caller states. A refused value is logged once per call as an SDK error
 * that names the variable, what it holds and the allowed range; the caller
 * then fails the operation that needed it (a silently ignored setting is a
 * setting the user believes is in force).
 *
 * Thread-safe (getenv is, as long as nobody calls setenv concurrently).
 */
#ifndef SD_ENV_H_
#define SD_ENV_H_

#include <stdint.h>

#include <doca_error.h>

#include "sd_abi.h"

/* NAME unset or empty: *out = def, DOCA_SUCCESS. Else the value must be in
 * [min, max]: *out = value, DOCA_SUCCESS; otherwise *out = def and
 * DOCA_ERROR_INVALID_VALUE, with the error logged. */
doca_error_t sd_env_u64(const char *name, uint64_t def, uint64_t min, uint64_t max, uint64_t *out);

/* NAME is a boolean switch: unset/empty/"0" -> 0, "1" -> 1; anything else is
 * refused as above (*out = 0). */
doca_error_t sd_env_bool(const char *name, int *out);

#endif /* SD_ENV_H_ */
