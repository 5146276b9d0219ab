/*
 * sd_log.h - how softdoca's own libraries log (the "SDK" log).
 *
 * Library code never uses DOCA_LOG_*: those belong to programs and go to the
 * application backends. SDK messages go to the backends created with
 * doca_log_backend_create_with_file_sdk()/..._sdk(), each filtered by its own
 * level (doca_log_backend_set_sdk_level), and never to application backends.
 *
 * Usage in a library .c file:
 *     SD_LOG_REGISTER(DMA);               // once, at file scope
 *     SD_LOG_ERR("bad buffer: %p", buf);  // same line layout as DOCA_LOG_*
 *
 * Thread-safe. Implemented in src/log/.
 */
#ifndef SD_LOG_H_
#define SD_LOG_H_

#include "sd_abi.h"

#include <stdatomic.h>
#include <stdint.h>

/* Register a source name for the SDK logger (lazily resolved, thread-safe). */
struct sd_log_source {
	const char *name;
	int id; /* -1 until first use */
};

#define SD_LOG_REGISTER(NAME) static struct sd_log_source sd_log_src_ __attribute__((unused)) = {#NAME, -1}

void sd_log_sdk(struct sd_log_source *src, uint32_t level, const char *file, int line, const char *func,
		const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/*
 * The most verbose SDK level any SDK backend (or, while there is none, the
 * stderr fallback) would write; 10 (DOCA_LOG_LEVEL_DISABLE) when none would.
 * src/log/log.c keeps it up to date under its registry lock every time an SDK
 * level changes or an SDK backend is created, so that a disabled SD_LOG_DBG
 * or SD_LOG_TRC costs one relaxed load and a branch, inline in the caller's
 * library, instead of a call across libraries. It is only a pre-filter: each
 * backend still applies its own window when the message is dispatched.
 * Read only through sd_log_sdk_enabled(); written only by log.c.
 */
extern _Atomic uint32_t sd_log_sdk_max_level;

/* Would a message of this level reach any SDK backend? (cheap, avoids formatting) */
static inline int sd_log_sdk_enabled(uint32_t level)
{
	return level > 10 && level <= atomic_load_explicit(&sd_log_sdk_max_level, memory_order_relaxed);
}

#define SD_LOG_AT_(lvl, ...) \
	do { \
		if (sd_log_sdk_enabled(lvl)) \
			sd_log_sdk(&sd_log_src_, (lvl), __FILE__, __LINE__, __func__, __VA_ARGS__); \
	} while (0)

/* Levels are the documented doca_log_level values (see doca_log.h). */
#define SD_LOG_CRIT(...) SD_LOG_AT_(20, __VA_ARGS__)
#define SD_LOG_ERR(...) SD_LOG_AT_(30, __VA_ARGS__)
#define SD_LOG_WARN(...) SD_LOG_AT_(40, __VA_ARGS__)
#define SD_LOG_INFO(...) SD_LOG_AT_(50, __VA_ARGS__)
#define SD_LOG_DBG(...) SD_LOG_AT_(60, __VA_ARGS__)
#define SD_LOG_TRC(...) SD_LOG_AT_(70, __VA_ARGS__)

#endif /* SD_LOG_H_ */
