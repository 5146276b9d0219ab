/* The fabric layer is tested on its own: SDK log lines go to stderr. */
#include <stdarg.h>
#include <stdio.h>

#include "sd_log.h"

/* every level is enabled (sd_log.h tests this inline) */
_Atomic uint32_t sd_log_sdk_max_level = 70;

void sd_log_sdk(struct sd_log_source *src, uint32_t level, const char *file, int line, const char *func,
		const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "[test-log %s %u] ", src->name, level);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
