/*
 * sd_trace.h - the SOFTDOCA_TRACE timeline (Chrome/Perfetto trace events).
 *
 * With SOFTDOCA_TRACE=FILE set when the process starts, softdoca writes a
 * trace-event file of what the SDK does: every task from submit to
 * completion, progress calls, context state changes, Comch messages. All
 * timestamps come from CLOCK_MONOTONIC, so the files of the two sides of
 * one machine share a clock. Without the variable every call below returns
 * at once after one predictable branch (sd_trace_enabled() is false).
 *
 * The file: Chrome's JSON object format ({"traceEvents":[...],
 * "displayTimeUnit":"ns"}), one event per line, pid = the process, tid =
 * the thread (gettid), ts in microseconds with the nanoseconds as
 * fraction; process_name metadata says the side ("softdoca arm: PROG" or
 * "softdoca host: PROG"), thread_name the thread. It is valid JSON once the
 * process exits normally (an exit handler flushes every thread's buffer and
 * closes the array). "%p" in FILE becomes the pid ("%%" a percent sign), so
 * both sides, and forked children, write files of their own; without %p a
 * forked child runs untraced. The file is created with mode 0600 and never
 * through a symbolic link; a path that cannot be opened is logged once, as
 * an SDK error naming it, and the program runs untraced.
 *
 * Perfetto (https://ui.perfetto.dev, "Open trace file") and chrome://tracing
 * load one file; scripts/softdoca-trace-merge joins the two sides' files
 * (and repairs the file of a process that died before exit):
 *     softdoca-trace-merge -o run.json /tmp/t_1234.json /tmp/t_1240.json
 *
 * Events the core records: cat "task", async b/e per task (name = the task
 * type, id = the task, args ctx / status); cat "pe", "progress" spans ("X",
 * only for calls that did something, args events/completions) and "stall"
 * instants; cat "ctx", "state" instants (args from/to/reason).
 *
 * Args: args_fmt/... print the members of the event's "args" object as
 * JSON, e.g. sd_trace_instant("comch", "send", "\"bytes\":%u", n); pass
 * NULL for no args. Strings passed in args must be JSON-safe (names we
 * generate ourselves); user strings go through sd_trace_json_str. Args
 * longer than 640 bytes are replaced by "args_truncated":true.
 *
 * Thread-safe: any thread may record (engine threads included); events are
 * buffered per thread (64 KiB, written whole when full, when the thread
 * ends and at exit). Events recorded after the exit handler ran are dropped.
 *
 * Implemented in src/core/trace.c.
 */
#ifndef SD_TRACE_H_
#define SD_TRACE_H_

#include "sd_abi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

bool sd_trace_enabled(void);
uint64_t sd_trace_now(void); /* ns, CLOCK_MONOTONIC */

/* An instant event on the calling thread, now. */
void sd_trace_instant(const char *cat, const char *name, const char *args_fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A complete span ("X") on the calling thread from start_ns to now. */
void sd_trace_span(const char *cat, const char *name, uint64_t start_ns, const char *args_fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* An async span (begin/end pair with an id, for work that overlaps, such as
 * tasks in flight): same cat, name and id on both calls. */
void sd_trace_async_begin(const char *cat, const char *name, uint64_t id, const char *args_fmt, ...)
	__attribute__((format(printf, 4, 5)));
void sd_trace_async_end(const char *cat, const char *name, uint64_t id, const char *args_fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Copy s into out as JSON string content (no quotes), escaped, truncated to cap. */
void sd_trace_json_str(char *out, size_t cap, const char *s);

#endif /* SD_TRACE_H_ */
