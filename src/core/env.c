/*
 * env.c - numeric and boolean SOFTDOCA_* variables (see sd_env.h).
 *
 * strtoull alone is the trap this file exists to avoid: it accepts "-5"
 * (wrapping it to 2^64-5), leading blanks, "12ms" up to the letters and
 * "0x10" with base 0, and a caller that ignores the end pointer turns all
 * of those into surprising settings. Here only plain digits pass.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sd_env.h"
#include "sd_log.h"

SD_LOG_REGISTER(ENV);

static int parse_digits(const char *v, uint64_t *out)
{
	const char *p;
	char *end;
	unsigned long long n;

	for (p = v; *p != '\0'; p++)
		if (*p < '0' || *p > '9')
			return -1;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	*out = n;
	return 0;
}

doca_error_t sd_env_u64(const char *name, uint64_t def, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *v;
	uint64_t n;

	if (name == NULL || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*out = def;
	v = getenv(name);
	if (v == NULL || *v == '\0')
		return DOCA_SUCCESS;
	if (parse_digits(v, &n) != 0 || n < min || n > max) {
		SD_LOG_ERR("environment variable %s=\"%s\" is refused: it must be a decimal integer from %llu to %llu",
			   name, v, (unsigned long long)min, (unsigned long long)max);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*out = n;
	return DOCA_SUCCESS;
}

doca_error_t sd_env_bool(const char *name, int *out)
{
	const char *v;

	if (name == NULL || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*out = 0;
	v = getenv(name);
	if (v == NULL || *v == '\0' || strcmp(v, "0") == 0)
		return DOCA_SUCCESS;
	if (strcmp(v, "1") == 0) {
		*out = 1;
		return DOCA_SUCCESS;
	}
	SD_LOG_ERR("environment variable %s=\"%s\" is refused: it must be 0 or 1", name, v);
	return DOCA_ERROR_INVALID_VALUE;
}
