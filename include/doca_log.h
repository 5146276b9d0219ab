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
 *   written when upper <= L <= lower (levels are numbers, 20 = CRIT ...
 *   70 = TRACE; DOCA calls CRIT the "highest" level).
 *   Application messages (DOCA_LOG_*) go only to application backends
 *   (doca_log_backend_create_standard / _with_file / _with_fd / ...). Messages
 *   of the SDK libraries go only to SDK backends (..._sdk), each filtered by
 *   its SDK level (default INFO, doca_log_backend_set_sdk_level, or all at
 *   once with doca_log_level_set_global_sdk_limit).
 *   Defaults, as DOCA documents them: global lower limit INFO, global upper
 *   limit CRIT, global SDK limit INFO (NVIDIA's programs lower their SDK
 *   backend to WARNING themselves).
 *
 * Strict limits
 *   doca_log_backend_set_level_lower_limit_strict() pins a backend's lower
 *   limit: later changes, global or on that backend, may make it less
 *   verbose but never more verbose than it was when pinned. The _upper_
 *   variant likewise keeps more severe levels from being let in again.
 *   A direct change that a strict limit forbids is BAD_STATE; a global one
 *   leaves that backend as it is.
 *
 * Line layout (one line per message, written with a single write):
 *   [HH:MM:SS:usec][tid][DOCA][LVL][file.c:line][function] message
 *   LVL is CRT, ERR, WRN, INF, DBG or TRC; file is the basename.
 *
 * Macros
 *   DOCA_LOG_REGISTER(NAME) once per file at file scope, with or without a
 *   trailing ';'. DOCA_LOG(level, ...) takes a doca_log_level value;
 *   DOCA_LOG_CRIT/ERR/WARN/INFO/DBG are expressions (calls to doca_log(),
 *   which is what a program built with these macros links against), so
 *   they fit wherever a function call does. DOCA_LOG_TRC logs only when
 *   DOCA_LOGGING_ALLOW_TRACE is defined before this header is included;
 *   otherwise it is an empty statement and its arguments are not evaluated.
 *
 * Call order
 *   Create backends first thing in main(), then log. Backends live until the
 *   process exits (there is no destroy call, as in DOCA). Levels can be
 *   changed at any time.
 *
 * The standard backend
 *   doca_log_backend_create_standard() creates two application backends, as
 *   DOCA does: stdout prints from the global lower limit up to INFO (INFO,
 *   DEBUG, TRACE), stderr from WARNING up to the global upper limit (WARNING,
 *   ERROR, CRIT). Both follow later global changes within their share: with
 *   a lower limit of ERROR stdout prints nothing; with DEBUG, debug lines go
 *   to stdout and never to stderr. Lines keep their order when both streams
 *   go to the same file (stdout is flushed before each stderr line).
 *
 * Where messages go when no backend exists (softdoca's choice)
 *   - While no application backend was created, application messages that
 *     pass the global lower limit go to stderr, so nothing is silently lost.
 *   - While no SDK backend was created, SDK messages go to stderr up to
 *     WARNING, or up to the global SDK limit once it was set (by
 *     doca_log_level_set_global_sdk_limit, --sdk-log-level or the
 *     environment).
 *
 * Environment (optional)
 *   SOFTDOCA_LOG_LEVEL=<10..70>      initial global application lower limit
 *   SOFTDOCA_SDK_LOG_LEVEL=<10..70>  initial global SDK limit
 *
 * Threading
 *   Every function is thread-safe; whole lines are written atomically per
 *   backend.
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

/* Message levels; a smaller number is more severe. */
enum doca_log_level {
	DOCA_LOG_LEVEL_DISABLE = 10, /* as a limit: nothing is written */
	DOCA_LOG_LEVEL_CRIT = 20,
	DOCA_LOG_LEVEL_ERROR = 30,
	DOCA_LOG_LEVEL_WARNING = 40,
	DOCA_LOG_LEVEL_INFO = 50,
	DOCA_LOG_LEVEL_DEBUG = 60,
	DOCA_LOG_LEVEL_TRACE = 70,
};

struct doca_log_backend;

/* Called by buffer backends once per message; buf holds the formatted line. */
typedef void (*log_flush_callback)(char *buf);

/* ---- per backend limits (application messages) ---- */

DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_set_level_lower_limit(struct doca_log_backend *backend, uint32_t level);
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_set_level_upper_limit(struct doca_log_backend *backend, uint32_t upper_limit);
/* Pin the current limit (see "Strict limits" above). */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_set_level_lower_limit_strict(struct doca_log_backend *backend);
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_set_level_upper_limit_strict(struct doca_log_backend *backend);

/* ---- global limits ---- */

/* Every application backend (except where strict) and the default of new ones. Default INFO. */
DOCA_EXPERIMENTAL
doca_error_t doca_log_level_set_global_lower_limit(uint32_t level);
/* Likewise for the upper limit. Default CRIT. */
DOCA_EXPERIMENTAL
doca_error_t doca_log_level_set_global_upper_limit(uint32_t upper_limit);
DOCA_EXPERIMENTAL
uint32_t doca_log_level_get_global_lower_limit(void);
DOCA_EXPERIMENTAL
uint32_t doca_log_level_get_global_upper_limit(void);

/* ---- sources ---- */

/* Register a named source (e.g. "DMA::SAMPLE"); *source receives its id. */
DOCA_EXPERIMENTAL
doca_error_t doca_log_register_source(const char *source_name, int *source);
DOCA_EXPERIMENTAL
doca_error_t doca_log_unregister_source(int source);

/* ---- application backends ---- */

DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_with_file(FILE *fptr, struct doca_log_backend **backend);
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_with_fd(int fd, struct doca_log_backend **backend);
/* Each message is formatted into buf (cut to capacity - 1 chars), then handler(buf) is called. */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_with_buf(char *buf,
					      size_t capacity,
					      log_flush_callback handler,
					      struct doca_log_backend **backend);
/* syslog(3) with the given ident. */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_with_syslog(const char *name, struct doca_log_backend **backend);

/* ---- SDK backends ---- */

/* SDK backends only (INVALID_VALUE for an application backend). */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_set_sdk_level(struct doca_log_backend *backend, uint32_t level);
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_with_file_sdk(FILE *fptr, struct doca_log_backend **backend);
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_with_fd_sdk(int fd, struct doca_log_backend **backend);
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_with_buf_sdk(char *buf,
						  size_t capacity,
						  log_flush_callback handler,
						  struct doca_log_backend **backend);
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_with_syslog_sdk(const char *name, struct doca_log_backend **backend);
/* Every SDK backend and the default of new ones. Default INFO. */
DOCA_EXPERIMENTAL
doca_error_t doca_log_level_set_global_sdk_limit(uint32_t level);
DOCA_EXPERIMENTAL
uint32_t doca_log_level_get_global_sdk_limit(void);

/* Standard backends: INFO and more verbose to stdout, WARNING and more severe to stderr. */
DOCA_EXPERIMENTAL
doca_error_t doca_log_backend_create_standard(void);

/*
 * One application message. The macros below call it; programs normally do
 * not. INVALID_VALUE for a NULL format or a level outside CRIT..TRACE.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_log(uint32_t level, int source, const char *fname, int line, const char *func, const char *format, ...)
	__attribute__((format(printf, 6, 7)));

/* ---- macros ---- */

#define DOCA_LOG(level, format, ...) doca_log(level, log_source, __FILE__, __LINE__, __func__, format, ##__VA_ARGS__)

#define DOCA_LOG_CRIT(format, ...) DOCA_LOG(DOCA_LOG_LEVEL_CRIT, format, ##__VA_ARGS__)
#define DOCA_LOG_ERR(format, ...) DOCA_LOG(DOCA_LOG_LEVEL_ERROR, format, ##__VA_ARGS__)
#define DOCA_LOG_WARN(format, ...) DOCA_LOG(DOCA_LOG_LEVEL_WARNING, format, ##__VA_ARGS__)
#define DOCA_LOG_INFO(format, ...) DOCA_LOG(DOCA_LOG_LEVEL_INFO, format, ##__VA_ARGS__)
#define DOCA_LOG_DBG(format, ...) DOCA_LOG(DOCA_LOG_LEVEL_DEBUG, format, ##__VA_ARGS__)

#ifdef DOCA_LOGGING_ALLOW_TRACE
#define DOCA_LOG_TRC(format, ...) DOCA_LOG(DOCA_LOG_LEVEL_TRACE, format, ##__VA_ARGS__)
#else
#define DOCA_LOG_TRC(format, ...) \
	do { \
	} while (0)
#endif

/*
 * Once per file, at file scope. Defines the file's log_source and registers
 * it before other constructors run (priority 101), so they may log too; the
 * source is released at exit. Ends with a function body, so a trailing ';'
 * is optional.
 */
#define DOCA_LOG_REGISTER(source) \
	static int log_source = -1; \
	static void __attribute__((destructor(101), used)) sd_log_source_release_(void) \
	{ \
		if (log_source >= 0) \
			(void)doca_log_unregister_source(log_source); \
	} \
	static void __attribute__((constructor(101), used)) sd_log_source_register_(void) \
	{ \
		(void)doca_log_register_source(#source, &log_source); \
	}

#ifdef __cplusplus
}
#endif

#endif /* DOCA_LOG_H_ */
