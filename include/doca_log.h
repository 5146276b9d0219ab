/*
 * doca_log.h - DOCA logging: sources, levels and backends.
 *
 * Model
 *   A program registers a log source per file (DOCA_LOG_REGISTER) and logs
 *   with DOCA_LOG_ERR/WARN/INFO/...; every message is offered to every
 *   backend and written by those whose level window admits it. A backend is
 *   a destination (FILE *, file descriptor, buffer+callback, syslog) with a
 *   lower limit (the most verbose level it prints, default INFO) and an
 *   upper limit (the least verbose, default CRIT): a message of level L is
 *   written when upper <= L <= lower.
 *   Application messages (DOCA_LOG_*) go only to application backends
 *   (doca_log_backend_create_standard / _with_file / _with_fd / ...). Messages
 *   of the SDK libraries go only to SDK backends (..._sdk), each filtered by
 *   its SDK level (default WARNING, doca_log_backend_set_sdk_level, or all at
 *   once with doca_log_level_set_global_sdk_limit).
 *
 * Line layout (one line per message, written with a single write):
 *   [HH:MM:SS:usec][tid][DOCA][LVL][file.c:line][function] message
 *   LVL is CRT, ERR, WRN, INF, DBG or TRC; file is the basename.
 *
 * Call order
 *   Create backends first thing in main(), then log. Backends live until the
 *   process exits (there is no destroy call, as in DOCA). Levels can be
 *   changed at any time.
 *
 * Where messages go when no backend exists (softdoca's choice)
 *   - doca_log_backend_create_standard() writes application messages to
 *     stdout.
 *   - While no application backend was created, application messages that
 *     pass the global lower limit go to stderr, so nothing is silently lost.
 *   - While no SDK backend was created, SDK messages that pass the global
 *     SDK limit (default WARNING) go to stderr.
 *
 * Rate limiting
 *   DOCA_LOG_RATE_LIMIT_<LVL>() gives each call site a bucket: at most
 *   SOFTDOCA_LOG_RATE_BURST (10) messages per SOFTDOCA_LOG_RATE_PERIOD_MS
 *   (1000 ms) window; further messages of that window are dropped.
 *
 * Environment (optional)
 *   SOFTDOCA_LOG_LEVEL=<10..70>      initial global application lower limit
 *   SOFTDOCA_SDK_LOG_LEVEL=<10..70>  initial global SDK limit
 *
 * Threading
 *   Every function is thread-safe; whole lines are written atomically per
 *   backend. DOCA_LOG_TRC compiles to nothing unless DOCA_LOGGING_ALLOW_TRACE
 *   is defined before including this header (as in DOCA).
 */
#ifndef DOCA_LOG_H_
#define DOCA_LOG_H_

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

enum doca_log_level {
	DOCA_LOG_LEVEL_DISABLE = 10,
	DOCA_LOG_LEVEL_CRIT = 20,
	DOCA_LOG_LEVEL_ERROR = 30,
	DOCA_LOG_LEVEL_WARNING = 40,
	DOCA_LOG_LEVEL_INFO = 50,
	DOCA_LOG_LEVEL_DEBUG = 60,
	DOCA_LOG_LEVEL_TRACE = 70,
};

#define SOFTDOCA_LOG_RATE_BURST 10
#define SOFTDOCA_LOG_RATE_PERIOD_MS 1000

struct doca_log_backend;

/* Called by buffer backends once per message; buffer holds the formatted line. */
typedef void (*log_flush_callback)(char *buffer);

/* ---- global limits ---- */

/* Set the lower limit of every application backend (non-strict) and the default of new ones. */
DOCA_STABLE doca_error_t doca_log_level_set_global_lower_limit(uint32_t log_level);
/* Set the upper limit of every application backend (non-strict) and the default of new ones. */
DOCA_STABLE doca_error_t doca_log_level_set_global_upper_limit(uint32_t log_level);
DOCA_STABLE uint32_t doca_log_level_get_global_lower_limit(void);
DOCA_STABLE uint32_t doca_log_level_get_global_upper_limit(void);
/* Set the level of every SDK backend and the default of new ones. */
DOCA_STABLE doca_error_t doca_log_level_set_global_sdk_limit(uint32_t log_level);
DOCA_STABLE uint32_t doca_log_level_get_global_sdk_limit(void);

/* ---- per backend ---- */

DOCA_STABLE doca_error_t doca_log_backend_set_level_lower_limit(struct doca_log_backend *logger, uint32_t log_level);
DOCA_STABLE doca_error_t doca_log_backend_set_level_upper_limit(struct doca_log_backend *logger, uint32_t log_level);
/* As above, and later global changes no longer touch this backend's limit. */
DOCA_STABLE doca_error_t doca_log_backend_set_level_lower_limit_strict(struct doca_log_backend *logger,
								      uint32_t log_level);
DOCA_STABLE doca_error_t doca_log_backend_set_level_upper_limit_strict(struct doca_log_backend *logger,
								      uint32_t log_level);
/* SDK backends only (INVALID_VALUE for an application backend). */
DOCA_STABLE doca_error_t doca_log_backend_set_sdk_level(struct doca_log_backend *logger, uint32_t log_level);
DOCA_STABLE doca_error_t doca_log_backend_get_sdk_level(struct doca_log_backend *logger, uint32_t *log_level);

/* ---- application backends ---- */

/* Standard backend: application messages to stdout. */
DOCA_STABLE doca_error_t doca_log_backend_create_standard(void);
DOCA_STABLE doca_error_t doca_log_backend_create_with_file(FILE *fptr, struct doca_log_backend **backend);
DOCA_STABLE doca_error_t doca_log_backend_create_with_fd(int fd, struct doca_log_backend **backend);
/* Each message is formatted into buf (truncated to capacity - 1 chars), then handler(buf) is called. */
DOCA_STABLE doca_error_t doca_log_backend_create_with_buf(char *buf, size_t capacity, log_flush_callback handler,
							  struct doca_log_backend **backend);
/* syslog(3) with the given ident. */
DOCA_STABLE doca_error_t doca_log_backend_create_with_syslog(const char *name, struct doca_log_backend **backend);

/* ---- SDK backends ---- */

DOCA_STABLE doca_error_t doca_log_backend_create_with_file_sdk(FILE *fptr, struct doca_log_backend **backend);
DOCA_STABLE doca_error_t doca_log_backend_create_with_fd_sdk(int fd, struct doca_log_backend **backend);
DOCA_STABLE doca_error_t doca_log_backend_create_with_buf_sdk(char *buf, size_t capacity, log_flush_callback handler,
							      struct doca_log_backend **backend);
DOCA_STABLE doca_error_t doca_log_backend_create_with_syslog_sdk(const char *name,
								 struct doca_log_backend **backend);

/* ---- sources ---- */

/* Register a named source; *source receives its id. */
DOCA_STABLE doca_error_t doca_log_register_source(const char *source_name, int *source);
DOCA_STABLE doca_error_t doca_log_unregister_source(int source);

/* Used by the macros only (exported because macros expand in program code). */
DOCA_STABLE void priv_doca_log_developer(uint32_t level, int source, const char *fname, int line, const char *func,
					 const char *format, ...) __attribute__((format(printf, 6, 7)));
DOCA_STABLE doca_error_t priv_doca_log_rate_bucket_register(int source, int *bucket);
DOCA_STABLE void priv_doca_log_rate_limit(uint32_t level, int source, const char *fname, int line, const char *func,
					  int bucket, const char *format, ...) __attribute__((format(printf, 7, 8)));

/* ---- macros ---- */

/*
 * Once per file, at file scope: DOCA_LOG_REGISTER(DMA_LOCAL_COPY); names
 * such as DMA::SAMPLE are accepted too (the name is only stringified).
 */
#define DOCA_LOG_REGISTER(SOURCE) \
	static int log_source = -1; \
	static void __attribute__((constructor)) priv_doca_log_source_ctor_(void) \
	{ \
		(void)doca_log_register_source(#SOURCE, &log_source); \
	} \
	static void __attribute__((destructor)) priv_doca_log_source_dtor_(void) \
	{ \
		(void)doca_log_unregister_source(log_source); \
	} \
	extern int priv_doca_log_register_end_ /* takes the caller's ';' */

#define DOCA_LOG(level, format, ...) \
	priv_doca_log_developer(DOCA_LOG_LEVEL_##level, log_source, __FILE__, __LINE__, __func__, format, \
				##__VA_ARGS__)

#define DOCA_LOG_CRIT(format, ...) DOCA_LOG(CRIT, format, ##__VA_ARGS__)
#define DOCA_LOG_ERR(format, ...) DOCA_LOG(ERROR, format, ##__VA_ARGS__)
#define DOCA_LOG_WARN(format, ...) DOCA_LOG(WARNING, format, ##__VA_ARGS__)
#define DOCA_LOG_INFO(format, ...) DOCA_LOG(INFO, format, ##__VA_ARGS__)
#define DOCA_LOG_DBG(format, ...) DOCA_LOG(DEBUG, format, ##__VA_ARGS__)
#ifdef DOCA_LOGGING_ALLOW_TRACE
#define DOCA_LOG_TRC(format, ...) DOCA_LOG(TRACE, format, ##__VA_ARGS__)
#else
/* never emitted, but arguments stay type-checked and "used" */
#define DOCA_LOG_TRC(format, ...) \
	do { \
		if (0) \
			DOCA_LOG(TRACE, format, ##__VA_ARGS__); \
	} while (0)
#endif

#define DOCA_LOG_RATE_LIMIT(level, format, ...) \
	do { \
		static int log_bucket_ = -1; \
		if (log_bucket_ == -1) \
			(void)priv_doca_log_rate_bucket_register(log_source, &log_bucket_); \
		priv_doca_log_rate_limit(DOCA_LOG_LEVEL_##level, log_source, __FILE__, __LINE__, __func__, \
					 log_bucket_, format, ##__VA_ARGS__); \
	} while (0)

#define DOCA_LOG_RATE_LIMIT_CRIT(format, ...) DOCA_LOG_RATE_LIMIT(CRIT, format, ##__VA_ARGS__)
#define DOCA_LOG_RATE_LIMIT_ERR(format, ...) DOCA_LOG_RATE_LIMIT(ERROR, format, ##__VA_ARGS__)
#define DOCA_LOG_RATE_LIMIT_WARN(format, ...) DOCA_LOG_RATE_LIMIT(WARNING, format, ##__VA_ARGS__)
#define DOCA_LOG_RATE_LIMIT_INFO(format, ...) DOCA_LOG_RATE_LIMIT(INFO, format, ##__VA_ARGS__)
#define DOCA_LOG_RATE_LIMIT_DBG(format, ...) DOCA_LOG_RATE_LIMIT(DEBUG, format, ##__VA_ARGS__)
#ifdef DOCA_LOGGING_ALLOW_TRACE
#define DOCA_LOG_RATE_LIMIT_TRC(format, ...) DOCA_LOG_RATE_LIMIT(TRACE, format, ##__VA_ARGS__)
#else
#define DOCA_LOG_RATE_LIMIT_TRC(format, ...) DOCA_LOG_TRC(format, ##__VA_ARGS__)
#endif

#ifdef __cplusplus
}
#endif

#endif /* DOCA_LOG_H_ */
