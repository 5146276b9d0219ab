/*
 * trace.c - the SOFTDOCA_TRACE timeline (see sd_trace.h).
 *
 * The file is Chrome's trace-event JSON object format, one event per line:
 *
 *     {"traceEvents":[
 *     {"name":"process_name","ph":"M",...}
 *     ,{"name":"DMA memcpy","ph":"b",...}
 *     ...
 *     ],"displayTimeUnit":"ns"}
 *
 * Every event after the first starts with its comma, so the lines of the
 * per-thread buffers can reach the file in any order and the file stays
 * valid JSON whatever order they were flushed in; the closing line is
 * written at exit. A process that dies before exit leaves an unterminated
 * file: scripts/softdoca-trace-merge reads such files line by line and
 * repairs them.
 *
 * Cost when off: sd_trace_on is decided once by the constructor and never
 * changes afterwards (except in a forked child, before it runs anything),
 * so the core's hooks are one load and a predicted branch. Other libraries
 * ask sd_trace_enabled(), which returns the same flag.
 *
 * Buffers: each recording thread owns a buffer (registered in a list so
 * the exit handler can flush all of them). A buffer has a mutex only for
 * that exit flush against a thread still recording; the owner always
 * finds it free. A full buffer, a thread that ends and the exit handler
 * write whole lines under the file lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doca_build_config.h>

#include "core_priv.h"
#include "sd_log.h"
#include "sd_trace.h"

SD_LOG_REGISTER(TRACE);

#define TRACE_BUF_BYTES (64u * 1024u)
#define TRACE_EVENT_MAX 1024u /* one event line, args included */
#define TRACE_ARGS_MAX 640u
#define TRACE_PATH_MAX 4096u

#ifdef DOCA_ARCH_DPU
#define TRACE_SIDE "arm"
#else
#define TRACE_SIDE "host"
#endif

bool sd_trace_on;
uint64_t sd_trace_id_tag;

struct trace_buf {
	pthread_mutex_t lock;
	struct trace_buf *next;
	pid_t tid;            /* 0: thread metadata not written yet */
	bool retired;         /* its thread ended: free for the next new thread (tr.lock) */
	size_t len;
	char data[TRACE_BUF_BYTES];
};

static struct {
	pthread_mutex_t lock; /* the file, the buffer list, closed */
	int fd;
	pid_t pid;
	bool closed;          /* exit handler ran: nothing more is written */
	bool open_failed;
	int open_errno;
	bool error_reported;
	char pattern[TRACE_PATH_MAX]; /* SOFTDOCA_TRACE as given */
	char path[TRACE_PATH_MAX];    /* with %p expanded */
	struct trace_buf *bufs;
	pthread_key_t key;
} tr = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

static __thread struct trace_buf *tls_buf;

bool sd_trace_enabled(void)
{
	return sd_trace_on;
}

uint64_t sd_trace_now(void)
{
	return sd_now_ns();
}

/* Write all of it (a regular file: short writes only on errors). */
static void write_all(const char *p, size_t n)
{
	while (n > 0 && tr.fd >= 0) {
		ssize_t w = write(tr.fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

/* Caller holds b->lock. */
static void buf_flush(struct trace_buf *b)
{
	if (b->len == 0)
		return;
	pthread_mutex_lock(&tr.lock);
	if (!tr.closed)
		write_all(b->data, b->len);
	pthread_mutex_unlock(&tr.lock);
	b->len = 0;
}

/* %p is the pid, %% a percent sign; anything else is kept as written. */
static int expand_path(const char *pattern, char *out, size_t cap)
{
	size_t o = 0;
	const char *s;
	char pid[24];

	snprintf(pid, sizeof(pid), "%d", (int)tr.pid);
	for (s = pattern; *s != '\0'; s++) {
		const char *add = NULL;
		char one[2] = {*s, '\0'};

		if (s[0] == '%' && s[1] == 'p') {
			add = pid;
			s++;
		} else if (s[0] == '%' && s[1] == '%') {
			add = "%";
			s++;
		} else {
			add = one;
		}
		if (o + strlen(add) >= cap)
			return -1;
		memcpy(out + o, add, strlen(add));
		o += strlen(add);
	}
	out[o] = '\0';
	return 0;
}

static void json_name(char *out, size_t cap, const char *s)
{
	sd_trace_json_str(out, cap, s != NULL ? s : "?");
}

/* Opens the file and writes its head (the process metadata event). */
static void trace_open(void)
{
	char prog[256], head[512];
	int n;

	tr.fd = -1;
	tr.pid = getpid();
	sd_trace_id_tag = (uint64_t)((unsigned)tr.pid & 0xffffu) << 48;
	if (expand_path(tr.pattern, tr.path, sizeof(tr.path)) != 0) {
		tr.open_failed = true;
		tr.open_errno = ENAMETOOLONG;
		return;
	}
	tr.fd = open(tr.path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (tr.fd < 0) {
		tr.open_failed = true;
		tr.open_errno = errno;
		return;
	}
	json_name(prog, sizeof(prog), program_invocation_short_name);
	n = snprintf(head, sizeof(head),
		     "{\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
		     "\"args\":{\"name\":\"softdoca " TRACE_SIDE ": %s\"}}\n",
		     (int)tr.pid, (int)gettid(), prog);
	write_all(head, (size_t)n);
	sd_trace_on = true;
}

static void trace_close(void)
{
	static const char tail[] = "],\"displayTimeUnit\":\"ns\"}\n";

	if (tr.fd < 0)
		return;
	write_all(tail, sizeof(tail) - 1);
	close(tr.fd);
	tr.fd = -1;
}

/* At exit: flush every thread's buffer, close the array. Events recorded
 * afterwards (other exit handlers, threads still running) are dropped. */
static void trace_exit(void)
{
	struct trace_buf *b;

	pthread_mutex_lock(&tr.lock);
	b = tr.bufs;
	pthread_mutex_unlock(&tr.lock);
	for (; b != NULL; b = b->next) {
		pthread_mutex_lock(&b->lock);
		buf_flush(b);
		pthread_mutex_unlock(&b->lock);
	}
	pthread_mutex_lock(&tr.lock);
	tr.closed = true;
	trace_close();
	pthread_mutex_unlock(&tr.lock);
}

/* A thread ends: its lines go out now (the buffer stays listed, empty,
 * since the exit handler may be walking the list). */
static void thread_end(void *arg)
{
	struct trace_buf *b = arg;

	pthread_mutex_lock(&b->lock);
	buf_flush(b);
	pthread_mutex_unlock(&b->lock);
	pthread_mutex_lock(&tr.lock);
	b->retired = true;
	pthread_mutex_unlock(&tr.lock);
}

static void atfork_prepare(void)
{
	pthread_mutex_lock(&tr.lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&tr.lock);
}

/* The child must not write the parent's events again nor close the parent's
 * array. With %p it gets a file of its own; without, it runs untraced. */
static void atfork_child(void)
{
	struct trace_buf *b;

	for (b = tr.bufs; b != NULL; b = b->next) {
		pthread_mutex_init(&b->lock, NULL);
		b->len = 0;
		b->tid = 0;
		b->retired = b != tls_buf; /* the other threads do not exist here */
	}
	pthread_mutex_unlock(&tr.lock);
	if (tr.fd >= 0)
		close(tr.fd);
	tr.fd = -1;
	sd_trace_on = false;
	if (strstr(tr.pattern, "%p") != NULL && !tr.closed)
		trace_open();
}

static void __attribute__((constructor)) trace_init(void)
{
	const char *v = getenv("SOFTDOCA_TRACE");

	if (v == NULL || *v == '\0')
		return;
	if (strlen(v) >= sizeof(tr.pattern)) {
		tr.open_failed = true;
		tr.open_errno = ENAMETOOLONG;
		snprintf(tr.path, sizeof(tr.path), "%.200s...", v);
		return;
	}
	strcpy(tr.pattern, v);
	if (pthread_key_create(&tr.key, thread_end) != 0) {
		tr.open_failed = true;
		tr.open_errno = EAGAIN;
		return;
	}
	trace_open();
	if (!sd_trace_on)
		return;
	atexit(trace_exit);
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

/* The constructor runs before the logger's: a file that could not be
 * opened is reported here, from the first doca_pe_create. */
void sd_trace_report_setup(void)
{
	bool report;

	if (!tr.open_failed)
		return;
	pthread_mutex_lock(&tr.lock);
	report = !tr.error_reported;
	tr.error_reported = true;
	pthread_mutex_unlock(&tr.lock);
	if (report)
		SD_LOG_ERR("SOFTDOCA_TRACE: cannot open trace file %s: %s%s; running without a trace", tr.path,
			   strerror(tr.open_errno),
			   tr.open_errno == ELOOP ? " (the path is a symbolic link: refused)" : "");
}

/* The calling thread's buffer, NULL when tracing stopped (or no memory). */
static struct trace_buf *thread_buf(void)
{
	struct trace_buf *b = tls_buf;
	char name[17] = {0}, jname[40];

	if (b == NULL) {
		/* A buffer whose thread ended is empty and taken over first, so
		 * a program that makes many short threads keeps a few buffers. */
		pthread_mutex_lock(&tr.lock);
		if (tr.closed) {
			pthread_mutex_unlock(&tr.lock);
			return NULL;
		}
		for (b = tr.bufs; b != NULL && !b->retired; b = b->next)
			;
		if (b != NULL) {
			b->retired = false;
		} else {
			b = malloc(sizeof(*b));
			if (b == NULL) {
				pthread_mutex_unlock(&tr.lock);
				return NULL;
			}
			pthread_mutex_init(&b->lock, NULL);
			b->len = 0;
			b->retired = false;
			b->next = tr.bufs;
			tr.bufs = b;
		}
		pthread_mutex_unlock(&tr.lock);
		pthread_mutex_lock(&b->lock);
		b->tid = 0;
		pthread_mutex_unlock(&b->lock);
		pthread_setspecific(tr.key, b);
		tls_buf = b;
	}
	pthread_mutex_lock(&b->lock);
	if (b->tid == 0) {
		b->tid = gettid();
		if (prctl(PR_GET_NAME, name) != 0)
			strcpy(name, "thread");
		json_name(jname, sizeof(jname), name);
		b->len += (size_t)snprintf(b->data + b->len, TRACE_BUF_BYTES - b->len,
					   ",{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
					   "\"args\":{\"name\":\"%s\"}}\n",
					   (int)tr.pid, (int)b->tid, jname);
	}
	return b;
}

/* One event line into the thread's buffer. ph is the phase; extra is
 * inserted after "ts" (dur, id, scope), already JSON. */
static void emit(const char *ph, const char *cat, const char *name, uint64_t ts_ns, const char *extra,
		 const char *args_fmt, va_list ap)
{
	struct trace_buf *b;
	char args[TRACE_ARGS_MAX];
	int n;

	args[0] = '\0';
	if (args_fmt != NULL) {
		n = vsnprintf(args, sizeof(args), args_fmt, ap);
		/* A cut object would break the file: keep it whole or drop it. */
		if (n < 0 || (size_t)n >= sizeof(args))
			strcpy(args, "\"args_truncated\":true");
	}
	b = thread_buf();
	if (b == NULL)
		return;
	if (TRACE_BUF_BYTES - b->len < TRACE_EVENT_MAX)
		buf_flush(b);
	n = snprintf(b->data + b->len, TRACE_EVENT_MAX,
		     ",{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"%s\",\"ts\":%" PRIu64 ".%03u,\"pid\":%d,\"tid\":%d%s,"
		     "\"args\":{%s}}\n",
		     name, cat, ph, ts_ns / 1000u, (unsigned)(ts_ns % 1000u), (int)tr.pid, (int)b->tid,
		     extra, args);
	if (n > 0 && (size_t)n < TRACE_EVENT_MAX)
		b->len += (size_t)n;
	pthread_mutex_unlock(&b->lock);
}

void sd_trace_instant(const char *cat, const char *name, const char *args_fmt, ...)
{
	va_list ap;

	if (!sd_trace_on || cat == NULL || name == NULL)
		return;
	va_start(ap, args_fmt);
	emit("i", cat, name, sd_now_ns(), ",\"s\":\"t\"", args_fmt, ap);
	va_end(ap);
}

void sd_trace_span(const char *cat, const char *name, uint64_t start_ns, const char *args_fmt, ...)
{
	uint64_t now, dur;
	char extra[48];
	va_list ap;

	if (!sd_trace_on || cat == NULL || name == NULL)
		return;
	now = sd_now_ns();
	dur = now > start_ns ? now - start_ns : 0;
	snprintf(extra, sizeof(extra), ",\"dur\":%" PRIu64 ".%03u", dur / 1000u, (unsigned)(dur % 1000u));
	va_start(ap, args_fmt);
	emit("X", cat, name, now > start_ns ? start_ns : now, extra, args_fmt, ap);
	va_end(ap);
}

static void async(const char *ph, const char *cat, const char *name, uint64_t id, const char *args_fmt,
		  va_list ap)
{
	char extra[48];

	snprintf(extra, sizeof(extra), ",\"id\":\"0x%" PRIx64 "\"", id);
	emit(ph, cat, name, sd_now_ns(), extra, args_fmt, ap);
}

void sd_trace_async_begin(const char *cat, const char *name, uint64_t id, const char *args_fmt, ...)
{
	va_list ap;

	if (!sd_trace_on || cat == NULL || name == NULL)
		return;
	va_start(ap, args_fmt);
	async("b", cat, name, id, args_fmt, ap);
	va_end(ap);
}

void sd_trace_async_end(const char *cat, const char *name, uint64_t id, const char *args_fmt, ...)
{
	va_list ap;

	if (!sd_trace_on || cat == NULL || name == NULL)
		return;
	va_start(ap, args_fmt);
	async("e", cat, name, id, args_fmt, ap);
	va_end(ap);
}

void sd_trace_json_str(char *out, size_t cap, const char *s)
{
	size_t o = 0;

	if (out == NULL || cap == 0)
		return;
	for (; s != NULL && *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[8];
		size_t n;

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			n = 2;
		} else if (c < 0x20 || c == 0x7f) {
			n = (size_t)snprintf(esc, sizeof(esc), "\\u%04x", c);
		} else {
			esc[0] = (char)c;
			n = 1;
		}
		if (o + n >= cap)
			break;
		memcpy(out + o, esc, n);
		o += n;
	}
	out[o] = '\0';
}
