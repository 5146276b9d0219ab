/* doca_log: argument checks, line layout, filtering, strict limits, app/SDK split, macro forms, threads. */
#define _GNU_SOURCE
#include <pthread.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define DOCA_LOGGING_ALLOW_TRACE
#include <doca_log.h>

#include "sd_log.h"

DOCA_LOG_REGISTER(TEST_LOG::MAIN);
SD_LOG_REGISTER(TEST_SDK);

#define LINE_RE \
	"^\\[[0-9]{2}:[0-9]{2}:[0-9]{2}:[0-9]{6}\\]\\[[0-9]+\\]\\[DOCA\\]\\[(CRT|ERR|WRN|INF|DBG|TRC)\\]" \
	"\\[[A-Za-z0-9_.]+:[0-9]+\\]\\[[A-Za-z0-9_]+\\] "

/* A backend writing to an anonymous temp file, silenced when done. */
struct sink {
	FILE *f;
	struct doca_log_backend *be;
};

static void sink_open(struct sink *s, bool sdk)
{
	s->f = tmpfile();
	assert_non_null(s->f);
	if (sdk)
		assert_int_equal(doca_log_backend_create_with_fd_sdk(fileno(s->f), &s->be), DOCA_SUCCESS);
	else
		assert_int_equal(doca_log_backend_create_with_fd(fileno(s->f), &s->be), DOCA_SUCCESS);
	assert_non_null(s->be);
}

/* Returns the whole content (caller frees). */
static char *sink_read(struct sink *s)
{
	long len;
	char *buf;

	fflush(s->f);
	len = lseek(fileno(s->f), 0, SEEK_END);
	assert_true(len >= 0);
	buf = calloc(1, (size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(pread(fileno(s->f), buf, (size_t)len, 0), len);
	return buf;
}

/* Backends cannot be destroyed: silence one for good (a strict DISABLE never rises again). */
static void silence(struct doca_log_backend *be)
{
	assert_int_equal(doca_log_backend_set_level_lower_limit(be, DOCA_LOG_LEVEL_DISABLE), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_level_lower_limit_strict(be), DOCA_SUCCESS);
}

static void sink_close(struct sink *s)
{
	silence(s->be);
	fclose(s->f);
}

static int count_lines(const char *text, const char *needle)
{
	int n = 0;
	const char *line = text;

	while (line != NULL && *line != '\0') {
		const char *nl = strchr(line, '\n');
		size_t len = nl != NULL ? (size_t)(nl - line) : strlen(line);
		char *copy = strndup(line, len);

		if (needle == NULL || strstr(copy, needle) != NULL)
			n++;
		free(copy);
		line = nl != NULL ? nl + 1 : NULL;
	}
	return n;
}

/* Forks a child whose fd `target` is a pipe; returns 0 in the child, its pid in the parent. */
static pid_t child_fork(int fds[2], int target)
{
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], target);
		close(fds[0]);
	}
	return pid;
}

/* Reads what the child wrote (at most cap - 1 bytes) and checks it exited 0. */
static void child_collect(int fds[2], pid_t pid, char *buf, size_t cap)
{
	ssize_t n, total = 0;
	int status;

	close(fds[1]);
	while ((n = read(fds[0], buf + total, cap - 1 - (size_t)total)) > 0)
		total += n;
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Must run first: no backend exists yet, so messages fall back to stderr. */
static void test_fallback_stderr(void **state)
{
	int fds[2];
	char buf[4096] = {0};
	pid_t pid = child_fork(fds, 2);

	if (pid == 0) {
		DOCA_LOG_INFO("fallback app %d", 1);
		DOCA_LOG_DBG("filtered app");
		SD_LOG_WARN("fallback sdk %d", 2);
		SD_LOG_INFO("filtered sdk");
		_exit(0);
	}
	child_collect(fds, pid, buf, sizeof(buf));
	assert_non_null(strstr(buf, "[INF][test_log.c:"));
	assert_non_null(strstr(buf, "fallback app 1"));
	assert_non_null(strstr(buf, "[WRN][test_log.c:"));
	assert_non_null(strstr(buf, "fallback sdk 2"));
	assert_null(strstr(buf, "filtered"));
}

/* Must run before anything changes a global level: DOCA's documented defaults. */
static void test_documented_defaults(void **state)
{
	struct sink sdk;

	(void)state;
	assert_int_equal(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_INFO);
	assert_int_equal(doca_log_level_get_global_upper_limit(), DOCA_LOG_LEVEL_CRIT);
	assert_int_equal(doca_log_level_get_global_sdk_limit(), DOCA_LOG_LEVEL_INFO);
	/* ...and a new SDK backend starts at the global SDK limit (checked in a
	 * child: creating an SDK backend changes where SDK messages go) */
	int fds[2];
	char buf[256] = {0};
	pid_t pid = child_fork(fds, 1);

	if (pid == 0) {
		sink_open(&sdk, true);
		SD_LOG_INFO("sdk info shown");
		SD_LOG_DBG("sdk debug hidden");
		char *out = sink_read(&sdk);

		printf("%s", strstr(out, "sdk info shown") != NULL && strstr(out, "hidden") == NULL ? "PASS" : "FAIL");
		fflush(stdout);
		_exit(0);
	}
	child_collect(fds, pid, buf, sizeof(buf));
	assert_string_equal(buf, "PASS");
}

/*
 * The standard backend is DOCA's pair: stdout from the global lower limit
 * up to INFO, stderr from WARNING up to the global upper limit. Each case
 * runs in a child with stdout and stderr on two pipes.
 */
struct std_run {
	char out[4096];
	char err[4096];
};

static void read_all(int fd, char *buf, size_t cap)
{
	ssize_t n, total = 0;

	while ((n = read(fd, buf + total, cap - 1 - (size_t)total)) > 0)
		total += n;
	buf[total] = '\0';
	close(fd);
}

static void std_child(struct std_run *r, void (*body)(void))
{
	int o[2], e[2], status;
	pid_t pid;

	assert_int_equal(pipe(o), 0);
	assert_int_equal(pipe(e), 0);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(o[1], 1);
		dup2(e[1], 2);
		close(o[0]);
		close(e[0]);
		if (doca_log_backend_create_standard() != DOCA_SUCCESS)
			_exit(2);
		body();
		_exit(0);
	}
	close(o[1]);
	close(e[1]);
	read_all(o[0], r->out, sizeof(r->out)); /* small outputs: no pipe deadlock */
	read_all(e[0], r->err, sizeof(r->err));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void std_every_level(void)
{
	DOCA_LOG_CRIT("lvl-crit");
	DOCA_LOG_ERR("lvl-err");
	DOCA_LOG_WARN("lvl-warn");
	DOCA_LOG_INFO("lvl-info");
	DOCA_LOG_DBG("lvl-dbg");
	SD_LOG_ERR("sdk-err");
}

static void std_debug(void)
{
	(void)doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_DEBUG);
	std_every_level();
}

static void std_error(void)
{
	(void)doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_ERROR);
	std_every_level();
}

static void std_upper_err(void)
{
	(void)doca_log_level_set_global_upper_limit(DOCA_LOG_LEVEL_ERROR);
	(void)doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_TRACE);
	std_every_level();
}

static void test_standard_backend(void **state)
{
	struct std_run r;

	(void)state;
	/* default: INFO on stdout; WARNING, ERROR, CRIT on stderr; SDK on neither */
	std_child(&r, std_every_level);
	assert_non_null(strstr(r.out, "[DOCA][INF][test_log.c:"));
	assert_non_null(strstr(r.out, "][std_every_level] lvl-info\n"));
	assert_int_equal(count_lines(r.out, NULL), 1);
	assert_non_null(strstr(r.err, "[DOCA][CRT][test_log.c:"));
	assert_non_null(strstr(r.err, "lvl-crit\n"));
	assert_non_null(strstr(r.err, "[DOCA][ERR][test_log.c:"));
	assert_non_null(strstr(r.err, "lvl-err\n"));
	assert_non_null(strstr(r.err, "[DOCA][WRN][test_log.c:"));
	assert_non_null(strstr(r.err, "lvl-warn\n"));
	assert_int_equal(count_lines(r.err, "lvl-"), 3);
	assert_null(strstr(r.out, "lvl-dbg"));
	assert_null(strstr(r.err, "lvl-dbg"));
	assert_null(strstr(r.out, "sdk-err"));

	/* -l 60: DEBUG joins stdout, never stderr */
	std_child(&r, std_debug);
	assert_int_equal(count_lines(r.out, "lvl-"), 2);
	assert_non_null(strstr(r.out, "lvl-dbg"));
	assert_int_equal(count_lines(r.err, "lvl-"), 3);
	assert_null(strstr(r.err, "lvl-info"));

	/* -l 30: stdout silent, stderr ERROR and CRIT */
	std_child(&r, std_error);
	assert_int_equal(count_lines(r.out, "lvl-"), 0);
	assert_int_equal(count_lines(r.err, "lvl-"), 2);
	assert_null(strstr(r.err, "lvl-warn"));

	/* upper limit ERROR: CRIT nowhere; stdout still stops at INFO */
	std_child(&r, std_upper_err);
	assert_null(strstr(r.err, "lvl-crit"));
	assert_int_equal(count_lines(r.err, "lvl-"), 2);
	assert_int_equal(count_lines(r.out, "lvl-"), 2);
	assert_null(strstr(r.out, "lvl-warn"));
}

static void test_bad_args(void **state)
{
	struct doca_log_backend *be = NULL;
	char *out;
	int src;
	char b[16];
	struct sink s;

	assert_int_equal(doca_log_backend_create_with_file(NULL, &be), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_file(stderr, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_file_sdk(NULL, &be), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_file_sdk(stderr, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_fd(-1, &be), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_fd(2, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_fd_sdk(-1, &be), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_buf(NULL, 10, NULL, &be), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_buf(b, 0, NULL, &be), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_buf_sdk(b, sizeof(b), NULL, &be), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_syslog(NULL, &be), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_syslog_sdk("x", NULL), DOCA_ERROR_INVALID_VALUE);
	assert_null(be);

	assert_int_equal(doca_log_backend_set_level_lower_limit(NULL, 50), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_set_level_upper_limit(NULL, 50), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_set_level_lower_limit_strict(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_set_level_upper_limit_strict(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_set_sdk_level(NULL, 50), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_level_set_global_lower_limit(5), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_level_set_global_lower_limit(71), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_level_set_global_upper_limit(0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_level_set_global_sdk_limit(1000), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_register_source(NULL, &src), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_register_source("X", NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_unregister_source(-1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_unregister_source(100000), DOCA_ERROR_INVALID_VALUE);

	/* levels on a real backend; SDK-only calls refuse an application backend */
	sink_open(&s, false);
	assert_int_equal(doca_log_backend_set_level_lower_limit(s.be, 9), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_set_level_upper_limit(s.be, 80), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_set_sdk_level(s.be, 50), DOCA_ERROR_INVALID_VALUE);
	sink_close(&s);
	sink_open(&s, true);
	assert_int_equal(doca_log_backend_set_sdk_level(s.be, 71), DOCA_ERROR_INVALID_VALUE);
	sink_close(&s);

	/* doca_log itself: odd input is refused or tolerated, never a crash */
	sink_open(&s, false);
	assert_int_equal(doca_log(DOCA_LOG_LEVEL_ERROR, -5, NULL, 0, NULL, "no file"), DOCA_SUCCESS);
	assert_int_equal(doca_log(DOCA_LOG_LEVEL_ERROR, 0, "x.c", 1, "f", NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log(12345, 0, "x.c", 1, "f", "odd level"), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log(DOCA_LOG_LEVEL_DISABLE, 0, "x.c", 1, "f", "not a message level"),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log(DOCA_LOG_LEVEL_WARNING, log_source, "dir/y.c", 7, "g", "direct %d", 3), DOCA_SUCCESS);
	out = sink_read(&s);
	assert_non_null(strstr(out, "[DOCA][ERR][?:0][?] no file\n"));
	assert_non_null(strstr(out, "[DOCA][WRN][y.c:7][g] direct 3\n"));
	assert_null(strstr(out, "odd level"));
	assert_null(strstr(out, "not a message level"));
	assert_int_equal(count_lines(out, NULL), 2);
	free(out);
	sink_close(&s);
}

static void test_line_format(void **state)
{
	struct sink s;
	regex_t re;
	char *out;
	char expect[128];
	int line;

	sink_open(&s, false);
	line = __LINE__ + 1;
	DOCA_LOG_INFO("Starting the sample %d", 42);
	out = sink_read(&s);
	assert_int_equal(regcomp(&re, LINE_RE "Starting the sample 42\n$", REG_EXTENDED | REG_NEWLINE), 0);
	assert_int_equal(regexec(&re, out, 0, NULL, 0), 0);
	regfree(&re);
	snprintf(expect, sizeof(expect), "[DOCA][INF][test_log.c:%d][test_line_format] Starting the sample 42\n", line);
	assert_non_null(strstr(out, expect));
	assert_int_equal(count_lines(out, NULL), 1);
	free(out);

	/* trailing newlines are not doubled; long messages are kept whole */
	{
		char big[3000];

		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		DOCA_LOG_WARN("ends with newline\n");
		DOCA_LOG_ERR("%s", big);
	}
	out = sink_read(&s);
	assert_int_equal(count_lines(out, NULL), 3);
	assert_non_null(strstr(out, "[WRN]"));
	assert_non_null(strstr(out, "[ERR]"));
	assert_non_null(strstr(out, "xxxxxxxxxx\n"));
	assert_true(strlen(out) > 3000);
	free(out);
	sink_close(&s);
}

static void test_level_filtering(void **state)
{
	struct sink a, b;
	char *out;

	sink_open(&a, false);
	sink_open(&b, false);
	assert_int_equal(doca_log_backend_set_level_lower_limit(a.be, DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_level_upper_limit(b.be, DOCA_LOG_LEVEL_ERROR), DOCA_SUCCESS);
	DOCA_LOG_CRIT("m-crit");
	DOCA_LOG_ERR("m-err");
	DOCA_LOG_WARN("m-warn");
	DOCA_LOG_INFO("m-info");
	DOCA_LOG_DBG("m-dbg");
	DOCA_LOG_TRC("m-trc");
	out = sink_read(&a);
	assert_int_equal(count_lines(out, NULL), 3);
	assert_non_null(strstr(out, "[CRT]"));
	assert_null(strstr(out, "m-info"));
	free(out);
	out = sink_read(&b);
	assert_int_equal(count_lines(out, NULL), 3); /* err, warn, info: crit is above the upper limit */
	assert_null(strstr(out, "m-crit"));
	assert_null(strstr(out, "m-dbg"));
	free(out);

	/* the global lower limit moves non-strict backends; a strict one may not get more verbose */
	assert_int_equal(doca_log_backend_set_level_lower_limit_strict(a.be), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_TRACE), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_TRACE);
	DOCA_LOG_TRC("n-trc");
	out = sink_read(&a);
	assert_null(strstr(out, "n-trc"));
	free(out);
	out = sink_read(&b);
	assert_non_null(strstr(out, "[TRC]"));
	assert_non_null(strstr(out, "n-trc"));
	free(out);
	assert_int_equal(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_set_global_upper_limit(DOCA_LOG_LEVEL_CRIT), DOCA_SUCCESS);
	DOCA_LOG_INFO("p-info");
	out = sink_read(&a);
	assert_null(strstr(out, "p-info")); /* the global INFO did not reach it either */
	free(out);
	assert_int_equal(doca_log_level_get_global_upper_limit(), DOCA_LOG_LEVEL_CRIT);

	/* DISABLE silences everything */
	assert_int_equal(doca_log_backend_set_level_lower_limit(b.be, DOCA_LOG_LEVEL_DISABLE), DOCA_SUCCESS);
	DOCA_LOG_CRIT("o-crit");
	out = sink_read(&b);
	assert_null(strstr(out, "o-crit"));
	free(out);
	sink_close(&a);
	sink_close(&b);
}

static void test_app_sdk_separation(void **state)
{
	struct sink app, sdk;
	char *out;

	sink_open(&app, false);
	sink_open(&sdk, true);
	assert_true(sd_log_sdk_enabled(DOCA_LOG_LEVEL_ERROR));
	assert_false(sd_log_sdk_enabled(DOCA_LOG_LEVEL_DEBUG));
	DOCA_LOG_ERR("app-only");
	SD_LOG_ERR("sdk-only %s", "err");
	SD_LOG_INFO("sdk-info-shown"); /* a new SDK backend starts at INFO, DOCA's default */
	SD_LOG_DBG("sdk-debug-hidden");
	out = sink_read(&app);
	assert_non_null(strstr(out, "app-only"));
	assert_null(strstr(out, "sdk-only"));
	free(out);
	out = sink_read(&sdk);
	assert_non_null(strstr(out, "sdk-only err"));
	assert_null(strstr(out, "app-only"));
	assert_non_null(strstr(out, "sdk-info-shown"));
	assert_null(strstr(out, "sdk-debug-hidden"));
	free(out);

	assert_int_equal(doca_log_backend_set_sdk_level(sdk.be, DOCA_LOG_LEVEL_DEBUG), DOCA_SUCCESS);
	assert_true(sd_log_sdk_enabled(DOCA_LOG_LEVEL_DEBUG));
	SD_LOG_DBG("sdk-debug-shown");
	out = sink_read(&sdk);
	assert_non_null(strstr(out, "[DBG][test_log.c:"));
	assert_non_null(strstr(out, "sdk-debug-shown"));
	free(out);

	/* the global SDK limit moves every SDK backend */
	assert_int_equal(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_ERROR), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_get_global_sdk_limit(), DOCA_LOG_LEVEL_ERROR);
	assert_false(sd_log_sdk_enabled(DOCA_LOG_LEVEL_WARNING));
	assert_int_equal(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
	sink_close(&app);
	sink_close(&sdk);
}

#define NTHREADS 4
#define NLINES 400

static void *log_thread(void *arg)
{
	char payload[301];
	int i;

	memset(payload, 'a' + (int)(intptr_t)arg, sizeof(payload) - 1);
	payload[sizeof(payload) - 1] = '\0';
	for (i = 0; i < NLINES; i++)
		DOCA_LOG_INFO("T%d %s", (int)(intptr_t)arg, payload);
	return NULL;
}

static void test_threads_whole_lines(void **state)
{
	pthread_t th[NTHREADS];
	struct sink s;
	regex_t re;
	char *out, *line, *save = NULL;
	int i, n = 0;

	sink_open(&s, false);
	for (i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, log_thread, (void *)(intptr_t)i), 0);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	out = sink_read(&s);
	assert_int_equal(regcomp(&re, LINE_RE "T([0-9]) ([a-z]{300})$", REG_EXTENDED), 0);
	for (line = strtok_r(out, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		regmatch_t m[4]; /* m[1] is the level group of LINE_RE */
		int t, k;

		if (regexec(&re, line, 4, m, 0) != 0)
			fail_msg("torn or malformed line: %s", line);
		t = line[m[2].rm_so] - '0';
		for (k = m[3].rm_so; k < m[3].rm_eo; k++)
			assert_int_equal(line[k], 'a' + t);
		n++;
	}
	regfree(&re);
	assert_int_equal(n, NTHREADS * NLINES);
	free(out);
	sink_close(&s);
}

static char buf_seen[512];
static int buf_calls;

static void buf_cb(char *buffer)
{
	buf_calls++;
	snprintf(buf_seen, sizeof(buf_seen), "%s", buffer);
}

static void test_buf_backend(void **state)
{
	static char small[64];
	struct doca_log_backend *be;

	assert_int_equal(doca_log_backend_create_with_buf(small, sizeof(small), buf_cb, &be), DOCA_SUCCESS);
	DOCA_LOG_INFO("to buffer %d", 7);
	assert_int_equal(buf_calls, 1);
	assert_int_equal(strlen(buf_seen), sizeof(small) - 1); /* truncated to capacity */
	assert_non_null(strstr(buf_seen, "[DOCA][INF]"));
	silence(be);
	DOCA_LOG_INFO("not to buffer");
	assert_int_equal(buf_calls, 1);
}

static int reentrant_calls;

static void reentrant_cb(char *buffer)
{
	reentrant_calls++;
	DOCA_LOG_ERR("logged from inside a backend callback");
}

static void test_reentrant_callback(void **state)
{
	static char small[256];
	struct doca_log_backend *be;

	assert_int_equal(doca_log_backend_create_with_buf(small, sizeof(small), reentrant_cb, &be), DOCA_SUCCESS);
	DOCA_LOG_WARN("outer");
	assert_int_equal(reentrant_calls, 1); /* the inner message is dropped, no deadlock */
	assert_non_null(strstr(small, "outer"));
	silence(be);
}

static void test_sources(void **state)
{
	int a, b;

	assert_int_equal(doca_log_register_source("S1", &a), DOCA_SUCCESS);
	assert_int_equal(doca_log_register_source("S2", &b), DOCA_SUCCESS);
	assert_int_not_equal(a, b);
	assert_int_equal(doca_log_unregister_source(a), DOCA_SUCCESS);
	assert_int_equal(doca_log_unregister_source(a), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_unregister_source(b), DOCA_SUCCESS);
}

static void test_strict_limits(void **state)
{
	struct sink s, sdk;
	char *out;

	/* lower: pinned at DEBUG, may narrow and come back, never beyond DEBUG */
	sink_open(&s, false);
	assert_int_equal(doca_log_backend_set_level_lower_limit(s.be, DOCA_LOG_LEVEL_DEBUG), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_level_lower_limit_strict(s.be), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_level_lower_limit(s.be, DOCA_LOG_LEVEL_TRACE), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_TRACE), DOCA_SUCCESS);
	DOCA_LOG_TRC("s-trc");
	DOCA_LOG_DBG("s-dbg");
	out = sink_read(&s);
	assert_null(strstr(out, "s-trc"));
	assert_non_null(strstr(out, "s-dbg"));
	free(out);
	assert_int_equal(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO), DOCA_SUCCESS);
	DOCA_LOG_DBG("t-dbg"); /* the global narrowing did apply */
	assert_int_equal(doca_log_backend_set_level_lower_limit(s.be, DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
	DOCA_LOG_INFO("t-info");
	assert_int_equal(doca_log_backend_set_level_lower_limit(s.be, DOCA_LOG_LEVEL_DEBUG), DOCA_SUCCESS);
	DOCA_LOG_DBG("u-dbg");
	out = sink_read(&s);
	assert_null(strstr(out, "t-dbg"));
	assert_null(strstr(out, "t-info"));
	assert_non_null(strstr(out, "u-dbg"));
	free(out);

	/* upper: pinned at ERROR, CRIT stays out whatever is asked */
	assert_int_equal(doca_log_backend_set_level_upper_limit(s.be, DOCA_LOG_LEVEL_ERROR), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_level_upper_limit_strict(s.be), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_level_upper_limit(s.be, DOCA_LOG_LEVEL_CRIT), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_log_level_set_global_upper_limit(DOCA_LOG_LEVEL_CRIT), DOCA_SUCCESS);
	DOCA_LOG_CRIT("v-crit");
	DOCA_LOG_ERR("v-err");
	assert_int_equal(doca_log_backend_set_level_upper_limit(s.be, DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
	DOCA_LOG_ERR("w-err");
	DOCA_LOG_WARN("w-warn");
	out = sink_read(&s);
	assert_null(strstr(out, "v-crit"));
	assert_non_null(strstr(out, "v-err"));
	assert_null(strstr(out, "w-err"));
	assert_non_null(strstr(out, "w-warn"));
	free(out);
	sink_close(&s);

	/* an SDK backend's level is its lower limit: strict holds it against the global SDK limit */
	sink_open(&sdk, true);
	assert_int_equal(doca_log_backend_set_sdk_level(sdk.be, DOCA_LOG_LEVEL_ERROR), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_level_lower_limit_strict(sdk.be), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_sdk_level(sdk.be, DOCA_LOG_LEVEL_DEBUG), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_DEBUG), DOCA_SUCCESS);
	assert_false(sd_log_sdk_enabled(DOCA_LOG_LEVEL_WARNING));
	SD_LOG_WARN("sdk-warn-kept-out");
	SD_LOG_ERR("sdk-err-in");
	out = sink_read(&sdk);
	assert_null(strstr(out, "sdk-warn-kept-out"));
	assert_non_null(strstr(out, "sdk-err-in"));
	free(out);
	assert_int_equal(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
	sink_close(&sdk);
}

/* log_forms_*.c: the macros where programs put them (see there). */
int sd_test_forms_a(int n);
int sd_test_forms_b(int n, int *evaluated);
int sd_test_forms_a_ctor_registered(void);
int sd_test_abi_log(const char *msg);

static void test_macro_forms(void **state)
{
	struct sink s;
	char *out;

	sink_open(&s, false);
	assert_int_equal(doca_log_backend_set_level_lower_limit(s.be, DOCA_LOG_LEVEL_TRACE), DOCA_SUCCESS);
	assert_true(sd_test_forms_a_ctor_registered());
	assert_int_equal(sd_test_forms_a(1), 0);
	assert_int_equal(sd_test_forms_a(2), 0);
	out = sink_read(&s);
	assert_non_null(strstr(out, "][log_forms_a.c:"));
	assert_non_null(strstr(out, "[sd_test_forms_a] if-branch 1\n"));
	assert_non_null(strstr(out, "[sd_test_forms_a] else-branch 2\n"));
	assert_non_null(strstr(out, "[sd_test_forms_a] after label 1\n"));
	assert_non_null(strstr(out, "[sd_test_forms_a] loop 0\n"));
	assert_non_null(strstr(out, "[sd_test_forms_a] case 2\n"));
	assert_non_null(strstr(out, "[sd_test_forms_a] as expression\n"));
	assert_non_null(strstr(out, "[WRN][log_forms_a.c:"));
	assert_non_null(strstr(out, "[sd_test_forms_a] generic DOCA_LOG\n"));
	assert_non_null(strstr(out, "[TRC][log_forms_a.c:"));
	assert_non_null(strstr(out, "[CRT][log_forms_a.c:"));
	assert_non_null(strstr(out, "[DBG][log_forms_a.c:"));
	free(out);
	sink_close(&s);
}

static void test_trace_disabled(void **state)
{
	struct sink s;
	char *out;
	int evaluated = 0;

	sink_open(&s, false);
	assert_int_equal(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_TRACE), DOCA_SUCCESS);
	assert_int_equal(sd_test_forms_b(3, &evaluated), 0);
	assert_int_equal(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO), DOCA_SUCCESS);
	assert_int_equal(evaluated, 0); /* DOCA_LOG_TRC's arguments are not evaluated without ALLOW_TRACE */
	out = sink_read(&s);
	assert_null(strstr(out, "[TRC]"));
	assert_non_null(strstr(out, "][log_forms_b.c:"));
	assert_non_null(strstr(out, "[sd_test_forms_b] b-info 3\n"));
	assert_non_null(strstr(out, "[sd_test_forms_b] b-dbg 3\n"));
	free(out);
	sink_close(&s);
}

/* DOCA 3.x macros expand to doca_log() and doca_log_register_source(): those symbols exist, with that type. */
_Static_assert(__builtin_types_compatible_p(__typeof__(doca_log),
					    doca_error_t(uint32_t, int, const char *, int, const char *, const char *, ...)),
	       "doca_log has DOCA's signature");
_Static_assert(__builtin_types_compatible_p(__typeof__(doca_log_register_source), doca_error_t(const char *, int *)),
	       "doca_log_register_source has DOCA's signature");

static void test_doca_abi(void **state)
{
	struct sink s;
	char *out;

	sink_open(&s, false);
	assert_int_equal(sd_test_abi_log("through the bare symbols"), 0);
	out = sink_read(&s);
	assert_non_null(strstr(out, "[DOCA][ERR][log_abi.c:"));
	assert_non_null(strstr(out, "through the bare symbols\n"));
	free(out);
	sink_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_documented_defaults),
		cmocka_unit_test(test_fallback_stderr),
		cmocka_unit_test(test_standard_backend),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_line_format),
		cmocka_unit_test(test_level_filtering),
		cmocka_unit_test(test_app_sdk_separation),
		cmocka_unit_test(test_strict_limits),
		cmocka_unit_test(test_macro_forms),
		cmocka_unit_test(test_trace_disabled),
		cmocka_unit_test(test_doca_abi),
		cmocka_unit_test(test_threads_whole_lines),
		cmocka_unit_test(test_buf_backend),
		cmocka_unit_test(test_reentrant_callback),
		cmocka_unit_test(test_sources),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
