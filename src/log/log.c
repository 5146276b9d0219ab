#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <doca_log.h>

#include "sd_log.h"

enum backend_kind {
	BK_FILE,
	BK_FD,
	BK_BUF,
	BK_SYSLOG,
};

struct doca_log_backend {
	struct doca_log_backend *next;
	enum backend_kind kind;
	bool sdk;
	bool lower_strict; /* lower may no longer rise above lower_cap */
	bool upper_strict; /* upper may no longer fall below upper_floor */
	uint32_t lower_cap;
	uint32_t upper_floor;
	/* Fixed window of a standard backend (its share of the levels): lower
	 * never above lower_max, upper never below upper_min, whatever is set. */
	uint32_t lower_max;
	uint32_t upper_min;
	bool flush_stdout; /* the stderr half of the standard pair keeps order with stdout */
	_Atomic uint32_t lower; /* most verbose level written (for SDK backends: the SDK level) */
	_Atomic uint32_t upper; /* least verbose level written */
	FILE *file;
	int fd;
	char *buf;
	size_t capacity;
	log_flush_callback flush;
	pthread_mutex_t lock;
};

/*
 * Backends are only ever added (DOCA has no destroy), so readers walk the
 * list without the registry lock: nodes are published with release
 * semantics at the head and never unlinked.
 */
static struct doca_log_backend *_Atomic backends;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t fallback_lock = PTHREAD_MUTEX_INITIALIZER;

/* DOCA's documented defaults: application lower INFO and upper CRIT, SDK INFO. */
static _Atomic uint32_t global_lower = DOCA_LOG_LEVEL_INFO;
static _Atomic uint32_t global_upper = DOCA_LOG_LEVEL_CRIT;
static _Atomic uint32_t global_sdk = DOCA_LOG_LEVEL_INFO;
/* The stderr fallback for SDK messages (no SDK backend yet, softdoca's own
 * choice) keeps to WARNING until the SDK limit is set explicitly, so that
 * programs that never asked for SDK logs do not get its INFO chatter. */
static _Atomic bool global_sdk_set;
static _Atomic int num_app_backends;
static _Atomic int num_sdk_backends;
/* Highest SDK level any SDK backend (or the stderr fallback) would write:
 * exported so that SD_LOG_* test it inline in every library (sd_log.h). */
__attribute__((visibility("default"))) _Atomic uint32_t sd_log_sdk_max_level = DOCA_LOG_LEVEL_WARNING;

static char **source_names;
static int num_sources;

static bool level_valid(uint32_t level)
{
	return level >= DOCA_LOG_LEVEL_DISABLE && level <= DOCA_LOG_LEVEL_TRACE;
}

static char *format_line(char *stack, size_t stack_len, size_t *out_len, uint32_t level, const char *file, int line,
			 const char *func, const char *fmt, va_list ap);
static void write_file(FILE *f, const char *line, size_t len);

/*
 * Said straight to stderr in DOCA's line layout: this runs while the logger
 * itself is being set up, before any backend exists, and a refused level
 * variable must be reported whatever the (possibly just refused) levels are.
 */
static void __attribute__((format(printf, 2, 3))) init_error(const char *func, const char *fmt, ...)
{
	char stack[512];
	size_t len = 0;
	char *msg;
	va_list ap;

	va_start(ap, fmt);
	msg = format_line(stack, sizeof(stack), &len, DOCA_LOG_LEVEL_ERROR, __FILE__, __LINE__, func, fmt, ap);
	va_end(ap);
	write_file(stderr, msg, len);
	if (msg != stack)
		free(msg);
}

/*
 * A level variable holds plain decimal digits naming a level from DISABLE
 * to TRACE, the rule sd_env_u64 applies to every other SOFTDOCA_* number
 * ("-5", " 50", "55x" and "0x32" are all refused). A refused value keeps
 * the default and says so: logging must still come up.
 */
static bool env_level(const char *name, _Atomic uint32_t *dst)
{
	const char *v = getenv(name);
	const char *p;
	char *end;
	unsigned long l;

	if (v == NULL || *v == '\0')
		return false;
	for (p = v; *p != '\0'; p++)
		if (*p < '0' || *p > '9')
			goto refused;
	errno = 0;
	l = strtoul(v, &end, 10);
	if (errno != 0 || *end != '\0' || l > UINT32_MAX || !level_valid((uint32_t)l))
		goto refused;
	atomic_store(dst, (uint32_t)l);
	return true;
refused:
	init_error(__func__,
		   "environment variable %s=\"%s\" is refused: it must be a decimal integer from %d to %d"
		   " (a doca_log_level); the default level %u stays in force",
		   name, v, DOCA_LOG_LEVEL_DISABLE, DOCA_LOG_LEVEL_TRACE, (unsigned)atomic_load(dst));
	return false;
}

static uint32_t fallback_sdk_level(void)
{
	uint32_t l = atomic_load(&global_sdk);

	if (!atomic_load(&global_sdk_set) && l > DOCA_LOG_LEVEL_WARNING)
		l = DOCA_LOG_LEVEL_WARNING;
	return l;
}

/* A level as a backend's fixed window lets it be. */
static uint32_t clamp_lower(const struct doca_log_backend *b, uint32_t level)
{
	return level > b->lower_max ? b->lower_max : level;
}

static uint32_t clamp_upper(const struct doca_log_backend *b, uint32_t level)
{
	return level < b->upper_min ? b->upper_min : level;
}

static void recompute_sdk_max(void);

static void __attribute__((constructor)) sd_log_init(void)
{
	env_level("SOFTDOCA_LOG_LEVEL", &global_lower);
	if (env_level("SOFTDOCA_SDK_LOG_LEVEL", &global_sdk))
		atomic_store(&global_sdk_set, true);
	pthread_mutex_lock(&registry_lock);
	recompute_sdk_max();
	pthread_mutex_unlock(&registry_lock);
}

/* Caller holds registry_lock. */
static void recompute_sdk_max(void)
{
	uint32_t max = DOCA_LOG_LEVEL_DISABLE;
	struct doca_log_backend *b;

	if (atomic_load(&num_sdk_backends) == 0)
		max = fallback_sdk_level();
	for (b = atomic_load_explicit(&backends, memory_order_acquire); b != NULL; b = b->next) {
		uint32_t l = atomic_load(&b->lower);

		if (b->sdk && l > max)
			max = l;
	}
	atomic_store(&sd_log_sdk_max_level, max);
}

static const char *level_tag(uint32_t level)
{
	if (level <= DOCA_LOG_LEVEL_CRIT)
		return "CRT";
	if (level <= DOCA_LOG_LEVEL_ERROR)
		return "ERR";
	if (level <= DOCA_LOG_LEVEL_WARNING)
		return "WRN";
	if (level <= DOCA_LOG_LEVEL_INFO)
		return "INF";
	if (level <= DOCA_LOG_LEVEL_DEBUG)
		return "DBG";
	return "TRC";
}

static int level_to_syslog(uint32_t level)
{
	if (level <= DOCA_LOG_LEVEL_CRIT)
		return LOG_CRIT;
	if (level <= DOCA_LOG_LEVEL_ERROR)
		return LOG_ERR;
	if (level <= DOCA_LOG_LEVEL_WARNING)
		return LOG_WARNING;
	if (level <= DOCA_LOG_LEVEL_INFO)
		return LOG_INFO;
	return LOG_DEBUG;
}

static bool admits(uint32_t lower, uint32_t upper, uint32_t level)
{
	return level <= lower && level >= upper && lower > DOCA_LOG_LEVEL_DISABLE;
}

static void write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		p += n;
		len -= (size_t)n;
	}
}

static void write_file(FILE *f, const char *line, size_t len)
{
	int fd;

	flockfile(f);
	fd = fileno(f);
	if (fd >= 0) {
		/* bypass stdio buffering so one line is one write(2) */
		fflush(f);
		write_all(fd, line, len);
	} else {
		fwrite(line, 1, len, f);
		fflush(f);
	}
	funlockfile(f);
}

static void emit_to(struct doca_log_backend *b, uint32_t level, const char *line, size_t len)
{
	pthread_mutex_lock(&b->lock);
	switch (b->kind) {
	case BK_FILE:
		if (b->flush_stdout)
			fflush(stdout);
		write_file(b->file, line, len);
		break;
	case BK_FD:
		write_all(b->fd, line, len);
		break;
	case BK_BUF:
		if (b->capacity > 0) {
			size_t n = len < b->capacity - 1 ? len : b->capacity - 1;

			memcpy(b->buf, line, n);
			b->buf[n] = '\0';
			b->flush(b->buf);
		}
		break;
	case BK_SYSLOG:
		syslog(level_to_syslog(level), "%.*s", (int)(len > 0 ? len - 1 : 0), line);
		break;
	}
	pthread_mutex_unlock(&b->lock);
}

static const char *base_name(const char *path)
{
	const char *s;

	if (path == NULL)
		return "?";
	s = strrchr(path, '/');
	return s != NULL ? s + 1 : path;
}

/* Formats the whole line; returns a malloc'd string or the stack buffer. */
static char *format_line(char *stack, size_t stack_len, size_t *out_len, uint32_t level, const char *file, int line,
			 const char *func, const char *fmt, va_list ap)
{
	struct timeval tv;
	struct tm tm;
	char head[256];
	int hlen, mlen;
	va_list ap2;
	char *out = stack;

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	hlen = snprintf(head, sizeof(head), "[%02d:%02d:%02d:%06ld][%ld][DOCA][%s][%s:%d][%s] ", tm.tm_hour,
			tm.tm_min, tm.tm_sec, (long)tv.tv_usec, (long)syscall(SYS_gettid), level_tag(level),
			base_name(file), line, func != NULL ? func : "?");
	if (hlen < 0)
		hlen = 0;
	if ((size_t)hlen >= sizeof(head))
		hlen = sizeof(head) - 1;

	va_copy(ap2, ap);
	mlen = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (mlen < 0)
		mlen = 0;

	if ((size_t)hlen + (size_t)mlen + 2 > stack_len) {
		out = malloc((size_t)hlen + (size_t)mlen + 2);
		if (out == NULL) {
			out = stack;
			mlen = (int)(stack_len - (size_t)hlen - 2);
		}
	}
	memcpy(out, head, (size_t)hlen);
	vsnprintf(out + hlen, (size_t)mlen + 1, fmt, ap);
	/* a message ending in '\n' must not produce an empty line */
	while (mlen > 0 && out[hlen + mlen - 1] == '\n')
		mlen--;
	out[hlen + mlen] = '\n';
	out[hlen + mlen + 1] = '\0';
	*out_len = (size_t)hlen + (size_t)mlen + 1;
	return out;
}

/* A buffer backend's callback that logs would re-enter and self-deadlock. */
static __thread bool in_dispatch;

static void dispatch(bool sdk, uint32_t level, const char *file, int line, const char *func, const char *fmt,
		     va_list ap)
{
	struct doca_log_backend *b;
	char stack[1024];
	char *msg = NULL;
	size_t len = 0;
	bool fallback;

	if (fmt == NULL || level <= DOCA_LOG_LEVEL_DISABLE || in_dispatch)
		return;
	in_dispatch = true;
	fallback = atomic_load(sdk ? &num_sdk_backends : &num_app_backends) == 0;
	if (fallback) {
		uint32_t lim = sdk ? fallback_sdk_level() : atomic_load(&global_lower);

		if (!admits(lim, sdk ? DOCA_LOG_LEVEL_CRIT : atomic_load(&global_upper), level))
			goto out;
		msg = format_line(stack, sizeof(stack), &len, level, file, line, func, fmt, ap);
		pthread_mutex_lock(&fallback_lock);
		write_file(stderr, msg, len);
		pthread_mutex_unlock(&fallback_lock);
		goto out;
	}
	for (b = atomic_load_explicit(&backends, memory_order_acquire); b != NULL; b = b->next) {
		if (b->sdk != sdk || !admits(atomic_load(&b->lower), atomic_load(&b->upper), level))
			continue;
		if (msg == NULL)
			msg = format_line(stack, sizeof(stack), &len, level, file, line, func, fmt, ap);
		emit_to(b, level, msg, len);
	}
out:
	if (msg != NULL && msg != stack)
		free(msg);
	in_dispatch = false;
}

/* ---- SDK contract (sd_log.h) ---- */

void sd_log_sdk(struct sd_log_source *src, uint32_t level, const char *file, int line, const char *func,
		const char *fmt, ...)
{
	va_list ap;

	if (src != NULL && __atomic_load_n(&src->id, __ATOMIC_ACQUIRE) < 0) {
		int id;

		if (doca_log_register_source(src->name != NULL ? src->name : "SDK", &id) == DOCA_SUCCESS) {
			int expected = -1;

			if (!__atomic_compare_exchange_n(&src->id, &expected, id, false, __ATOMIC_ACQ_REL,
							 __ATOMIC_ACQUIRE))
				doca_log_unregister_source(id);
		}
	}
	va_start(ap, fmt);
	dispatch(true, level, file, line, func, fmt, ap);
	va_end(ap);
}

/* ---- sources ---- */

doca_error_t doca_log_register_source(const char *source_name, int *source)
{
	char **grown;
	char *copy;
	int i;

	if (source_name == NULL || source == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	copy = strdup(source_name);
	if (copy == NULL)
		return DOCA_ERROR_NO_MEMORY;
	pthread_mutex_lock(&registry_lock);
	for (i = 0; i < num_sources; i++) {
		if (source_names[i] == NULL) {
			source_names[i] = copy;
			goto done;
		}
	}
	grown = realloc(source_names, sizeof(*grown) * (size_t)(num_sources + 1));
	if (grown == NULL) {
		pthread_mutex_unlock(&registry_lock);
		free(copy);
		return DOCA_ERROR_NO_MEMORY;
	}
	source_names = grown;
	i = num_sources++;
	source_names[i] = copy;
done:
	pthread_mutex_unlock(&registry_lock);
	*source = i;
	return DOCA_SUCCESS;
}

doca_error_t doca_log_unregister_source(int source)
{
	doca_error_t ret = DOCA_ERROR_INVALID_VALUE;
	bool empty = true;
	int i;

	pthread_mutex_lock(&registry_lock);
	if (source >= 0 && source < num_sources && source_names[source] != NULL) {
		free(source_names[source]);
		source_names[source] = NULL;
		ret = DOCA_SUCCESS;
	}
	for (i = 0; i < num_sources; i++)
		if (source_names[i] != NULL)
			empty = false;
	/* last one out frees the table so leak checkers stay quiet */
	if (empty) {
		free(source_names);
		source_names = NULL;
		num_sources = 0;
	}
	pthread_mutex_unlock(&registry_lock);
	return ret;
}

/* ---- application logging ---- */

doca_error_t doca_log(uint32_t level, int source, const char *fname, int line, const char *func, const char *format,
		      ...)
{
	va_list ap;

	/* the source is not part of DOCA's line layout; an unknown one is harmless */
	(void)source;
	if (format == NULL || level < DOCA_LOG_LEVEL_CRIT || level > DOCA_LOG_LEVEL_TRACE)
		return DOCA_ERROR_INVALID_VALUE;
	va_start(ap, format);
	dispatch(false, level, fname, line, func, format, ap);
	va_end(ap);
	return DOCA_SUCCESS;
}

/* ---- global limits ---- */

/* Caller holds registry_lock. A strict limit only lets the window narrow. */
static bool lower_allowed(const struct doca_log_backend *b, uint32_t level)
{
	return !b->lower_strict || level <= b->lower_cap;
}

static bool upper_allowed(const struct doca_log_backend *b, uint32_t level)
{
	return !b->upper_strict || level >= b->upper_floor;
}

doca_error_t doca_log_level_set_global_lower_limit(uint32_t log_level)
{
	struct doca_log_backend *b;

	if (!level_valid(log_level))
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&registry_lock);
	atomic_store(&global_lower, log_level);
	for (b = atomic_load_explicit(&backends, memory_order_acquire); b != NULL; b = b->next)
		if (!b->sdk && lower_allowed(b, log_level))
			atomic_store(&b->lower, clamp_lower(b, log_level));
	pthread_mutex_unlock(&registry_lock);
	return DOCA_SUCCESS;
}

doca_error_t doca_log_level_set_global_upper_limit(uint32_t log_level)
{
	struct doca_log_backend *b;

	if (!level_valid(log_level))
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&registry_lock);
	atomic_store(&global_upper, log_level);
	for (b = atomic_load_explicit(&backends, memory_order_acquire); b != NULL; b = b->next)
		if (!b->sdk && upper_allowed(b, log_level))
			atomic_store(&b->upper, clamp_upper(b, log_level));
	pthread_mutex_unlock(&registry_lock);
	return DOCA_SUCCESS;
}

uint32_t doca_log_level_get_global_lower_limit(void)
{
	return atomic_load(&global_lower);
}

uint32_t doca_log_level_get_global_upper_limit(void)
{
	return atomic_load(&global_upper);
}

doca_error_t doca_log_level_set_global_sdk_limit(uint32_t log_level)
{
	struct doca_log_backend *b;

	if (!level_valid(log_level))
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&registry_lock);
	atomic_store(&global_sdk, log_level);
	atomic_store(&global_sdk_set, true);
	for (b = atomic_load_explicit(&backends, memory_order_acquire); b != NULL; b = b->next)
		if (b->sdk && lower_allowed(b, log_level))
			atomic_store(&b->lower, log_level);
	recompute_sdk_max();
	pthread_mutex_unlock(&registry_lock);
	return DOCA_SUCCESS;
}

uint32_t doca_log_level_get_global_sdk_limit(void)
{
	return atomic_load(&global_sdk);
}

/* ---- per backend limits ---- */

static doca_error_t set_lower(struct doca_log_backend *b, uint32_t level)
{
	doca_error_t ret = DOCA_SUCCESS;

	if (b == NULL || !level_valid(level))
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&registry_lock);
	if (lower_allowed(b, level)) {
		atomic_store(&b->lower, clamp_lower(b, level));
		if (b->sdk)
			recompute_sdk_max();
	} else {
		ret = DOCA_ERROR_BAD_STATE;
	}
	pthread_mutex_unlock(&registry_lock);
	return ret;
}

static doca_error_t set_upper(struct doca_log_backend *b, uint32_t level)
{
	doca_error_t ret = DOCA_SUCCESS;

	if (b == NULL || !level_valid(level))
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&registry_lock);
	if (upper_allowed(b, level))
		atomic_store(&b->upper, clamp_upper(b, level));
	else
		ret = DOCA_ERROR_BAD_STATE;
	pthread_mutex_unlock(&registry_lock);
	return ret;
}

doca_error_t doca_log_backend_set_level_lower_limit(struct doca_log_backend *backend, uint32_t level)
{
	return set_lower(backend, level);
}

doca_error_t doca_log_backend_set_level_upper_limit(struct doca_log_backend *backend, uint32_t upper_limit)
{
	return set_upper(backend, upper_limit);
}

doca_error_t doca_log_backend_set_level_lower_limit_strict(struct doca_log_backend *backend)
{
	if (backend == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&registry_lock);
	backend->lower_strict = true;
	backend->lower_cap = atomic_load(&backend->lower);
	pthread_mutex_unlock(&registry_lock);
	return DOCA_SUCCESS;
}

doca_error_t doca_log_backend_set_level_upper_limit_strict(struct doca_log_backend *backend)
{
	if (backend == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&registry_lock);
	backend->upper_strict = true;
	backend->upper_floor = atomic_load(&backend->upper);
	pthread_mutex_unlock(&registry_lock);
	return DOCA_SUCCESS;
}

doca_error_t doca_log_backend_set_sdk_level(struct doca_log_backend *backend, uint32_t level)
{
	if (backend == NULL || !backend->sdk)
		return DOCA_ERROR_INVALID_VALUE;
	return set_lower(backend, level);
}

/* ---- backend creation ---- */

static doca_error_t add_backend(struct doca_log_backend *proto, bool sdk, struct doca_log_backend **out)
{
	struct doca_log_backend *b = calloc(1, sizeof(*b));

	if (b == NULL)
		return DOCA_ERROR_NO_MEMORY;
	b->kind = proto->kind;
	b->file = proto->file;
	b->fd = proto->fd;
	b->buf = proto->buf;
	b->capacity = proto->capacity;
	b->flush = proto->flush;
	b->sdk = sdk;
	b->lower_max = proto->lower_max != 0 ? proto->lower_max : (uint32_t)DOCA_LOG_LEVEL_TRACE;
	b->upper_min = proto->upper_min;
	b->flush_stdout = proto->flush_stdout;
	pthread_mutex_init(&b->lock, NULL);

	pthread_mutex_lock(&registry_lock);
	atomic_store(&b->lower, clamp_lower(b, sdk ? atomic_load(&global_sdk) : atomic_load(&global_lower)));
	atomic_store(&b->upper, clamp_upper(b, sdk ? (uint32_t)DOCA_LOG_LEVEL_CRIT : atomic_load(&global_upper)));
	b->next = atomic_load(&backends);
	atomic_store_explicit(&backends, b, memory_order_release);
	if (sdk)
		atomic_fetch_add(&num_sdk_backends, 1);
	else
		atomic_fetch_add(&num_app_backends, 1);
	if (sdk)
		recompute_sdk_max();
	pthread_mutex_unlock(&registry_lock);
	if (out != NULL)
		*out = b;
	return DOCA_SUCCESS;
}

static doca_error_t create_file(FILE *f, bool sdk, struct doca_log_backend **out)
{
	struct doca_log_backend proto = {.kind = BK_FILE, .file = f, .fd = -1};

	if (f == NULL || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return add_backend(&proto, sdk, out);
}

static doca_error_t create_fd(int fd, bool sdk, struct doca_log_backend **out)
{
	struct doca_log_backend proto = {.kind = BK_FD, .fd = fd};

	if (fd < 0 || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return add_backend(&proto, sdk, out);
}

static doca_error_t create_buf(char *buf, size_t capacity, log_flush_callback handler, bool sdk,
			       struct doca_log_backend **out)
{
	struct doca_log_backend proto = {.kind = BK_BUF, .buf = buf, .capacity = capacity, .flush = handler, .fd = -1};

	if (buf == NULL || capacity == 0 || handler == NULL || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return add_backend(&proto, sdk, out);
}

static doca_error_t create_syslog(const char *name, bool sdk, struct doca_log_backend **out)
{
	struct doca_log_backend proto = {.kind = BK_SYSLOG, .fd = -1};

	if (name == NULL || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	/* openlog keeps the pointer: the name must outlive the process' logging */
	openlog(name, LOG_PID, LOG_USER);
	return add_backend(&proto, sdk, out);
}

/*
 * DOCA's standard pair: stdout takes the global lower limit up to INFO,
 * stderr WARNING up to the global upper limit. Each follows the global
 * limits inside its own share, so -l 60 adds DEBUG to stdout only and -l 30
 * leaves stdout silent.
 */
doca_error_t doca_log_backend_create_standard(void)
{
	struct doca_log_backend out = {.kind = BK_FILE, .file = stdout, .fd = -1, .upper_min = DOCA_LOG_LEVEL_INFO};
	struct doca_log_backend err = {.kind = BK_FILE, .file = stderr, .fd = -1,
				       .lower_max = DOCA_LOG_LEVEL_WARNING, .flush_stdout = true};
	doca_error_t ret = add_backend(&out, false, NULL);

	return ret != DOCA_SUCCESS ? ret : add_backend(&err, false, NULL);
}

doca_error_t doca_log_backend_create_with_file(FILE *fptr, struct doca_log_backend **backend)
{
	return create_file(fptr, false, backend);
}

doca_error_t doca_log_backend_create_with_fd(int fd, struct doca_log_backend **backend)
{
	return create_fd(fd, false, backend);
}

doca_error_t doca_log_backend_create_with_buf(char *buf, size_t capacity, log_flush_callback handler,
					      struct doca_log_backend **backend)
{
	return create_buf(buf, capacity, handler, false, backend);
}

doca_error_t doca_log_backend_create_with_syslog(const char *name, struct doca_log_backend **backend)
{
	return create_syslog(name, false, backend);
}

doca_error_t doca_log_backend_create_with_file_sdk(FILE *fptr, struct doca_log_backend **backend)
{
	return create_file(fptr, true, backend);
}

doca_error_t doca_log_backend_create_with_fd_sdk(int fd, struct doca_log_backend **backend)
{
	return create_fd(fd, true, backend);
}

doca_error_t doca_log_backend_create_with_buf_sdk(char *buf, size_t capacity, log_flush_callback handler,
						  struct doca_log_backend **backend)
{
	return create_buf(buf, capacity, handler, true, backend);
}

doca_error_t doca_log_backend_create_with_syslog_sdk(const char *name, struct doca_log_backend **backend)
{
	return create_syslog(name, true, backend);
}
