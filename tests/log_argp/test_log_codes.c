/*
 * test_log_codes.c - the return codes of doca_log_*, one table row per
 * (function, situation).
 *
 * DOCA's reference gives every doca_log_* call only as "DOCA error code"
 * (and the level getters as a level), with no code named for any situation,
 * so every failure code below is softdoca's choice: INVALID_VALUE for a bad
 * argument, BAD_STATE for a direct change that a strict limit forbids,
 * NO_MEMORY when an allocation fails (not provoked here). Rows restore the
 * global levels; backends cannot be destroyed (as in DOCA), so the ones a
 * row creates are silenced before it returns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <doca_log.h>

DOCA_LOG_REGISTER(TEST_LOG_CODES);

#define OK(x) assert_int_equal((x), DOCA_SUCCESS)
#define S DOCA_SUCCESS
#define INV DOCA_ERROR_INVALID_VALUE
#define BAD DOCA_ERROR_BAD_STATE

#define BAD_LEVEL 99u

struct row {
	const char *name;
	doca_error_t (*fn)(void);
	doca_error_t expect;
};

static char sink_buf[512];

static void sink_flush(char *buf)
{
	(void)buf;
}

/* A backend nobody reads: never more verbose than "nothing". */
static void silence(struct doca_log_backend *be)
{
	OK(doca_log_backend_set_level_lower_limit(be, DOCA_LOG_LEVEL_DISABLE));
}

static struct doca_log_backend *app_backend(void)
{
	struct doca_log_backend *be = NULL;

	OK(doca_log_backend_create_with_buf(sink_buf, sizeof(sink_buf), sink_flush, &be));
	return be;
}

static struct doca_log_backend *sdk_backend(void)
{
	struct doca_log_backend *be = NULL;

	OK(doca_log_backend_create_with_buf_sdk(sink_buf, sizeof(sink_buf), sink_flush, &be));
	return be;
}

/* ---- sources ---- */

static doca_error_t reg_ok(void)
{
	int src = -1;
	doca_error_t r = doca_log_register_source("TEST_CODES::A", &src);

	if (r == DOCA_SUCCESS)
		OK(doca_log_unregister_source(src));
	return r;
}

static doca_error_t reg_null_name(void)
{
	int src;

	return doca_log_register_source(NULL, &src);
}

static doca_error_t reg_null_out(void)
{
	return doca_log_register_source("TEST_CODES::B", NULL);
}

static doca_error_t unreg_ok(void)
{
	int src = -1;

	OK(doca_log_register_source("TEST_CODES::C", &src));
	return doca_log_unregister_source(src);
}

static doca_error_t unreg_twice(void)
{
	int src = -1;

	OK(doca_log_register_source("TEST_CODES::D", &src));
	OK(doca_log_unregister_source(src));
	return doca_log_unregister_source(src);
}

static doca_error_t unreg_negative(void)
{
	return doca_log_unregister_source(-1);
}

/* ---- doca_log ---- */

static doca_error_t log_ok(void)
{
	return doca_log(DOCA_LOG_LEVEL_DEBUG, 0, __FILE__, __LINE__, __func__, "row %d", 1);
}

static doca_error_t log_null_format(void)
{
	return doca_log(DOCA_LOG_LEVEL_INFO, 0, __FILE__, __LINE__, __func__, NULL);
}

static doca_error_t log_bad_level(void)
{
	return doca_log(BAD_LEVEL, 0, __FILE__, __LINE__, __func__, "x");
}

/* ---- global levels ---- */

#define GLOBAL_ROWS(fn_name, setter, getter)                                                                          \
	static doca_error_t fn_name##_ok(void)                                                                         \
	{                                                                                                              \
		doca_error_t r = setter(DOCA_LOG_LEVEL_WARNING);                                                       \
		if (r == DOCA_SUCCESS)                                                                                 \
			assert_int_equal(getter(), DOCA_LOG_LEVEL_WARNING);                                            \
		return r;                                                                                              \
	}                                                                                                              \
	static doca_error_t fn_name##_bad(void)                                                                        \
	{                                                                                                              \
		uint32_t before = getter();                                                                            \
		doca_error_t r = setter(BAD_LEVEL);                                                                    \
		assert_int_equal(getter(), before); /* a refused level changes nothing */                              \
		return r;                                                                                              \
	}

GLOBAL_ROWS(glob_lower, doca_log_level_set_global_lower_limit, doca_log_level_get_global_lower_limit)
GLOBAL_ROWS(glob_upper, doca_log_level_set_global_upper_limit, doca_log_level_get_global_upper_limit)
GLOBAL_ROWS(glob_sdk, doca_log_level_set_global_sdk_limit, doca_log_level_get_global_sdk_limit)

/* ---- backend creation ---- */

static doca_error_t std_ok(void)
{
	return doca_log_backend_create_standard();
}

#define CREATE_ROWS(fn_name, create, good, bad)                                                                       \
	static doca_error_t fn_name##_ok(void)                                                                         \
	{                                                                                                              \
		struct doca_log_backend *be = NULL;                                                                    \
		doca_error_t r = create(good, &be);                                                                    \
		if (r == DOCA_SUCCESS) {                                                                               \
			assert_non_null(be);                                                                           \
			silence(be);                                                                                   \
		}                                                                                                      \
		return r;                                                                                              \
	}                                                                                                              \
	static doca_error_t fn_name##_bad(void)                                                                        \
	{                                                                                                              \
		struct doca_log_backend *be = NULL;                                                                    \
		return create(bad, &be);                                                                               \
	}                                                                                                              \
	static doca_error_t fn_name##_null_out(void)                                                                   \
	{                                                                                                              \
		return create(good, NULL);                                                                             \
	}

static FILE *sink_file(void)
{
	static FILE *f;

	if (f == NULL)
		f = tmpfile(); /* stays open: backends live until exit */
	assert_non_null(f);
	return f;
}

CREATE_ROWS(file, doca_log_backend_create_with_file, sink_file(), NULL)
CREATE_ROWS(file_sdk, doca_log_backend_create_with_file_sdk, sink_file(), NULL)
CREATE_ROWS(fd, doca_log_backend_create_with_fd, fileno(sink_file()), -1)
CREATE_ROWS(fd_sdk, doca_log_backend_create_with_fd_sdk, fileno(sink_file()), -1)
CREATE_ROWS(syslog, doca_log_backend_create_with_syslog, "test_log_codes", NULL)
CREATE_ROWS(syslog_sdk, doca_log_backend_create_with_syslog_sdk, "test_log_codes", NULL)

#define BUF_ROWS(fn_name, create)                                                                                     \
	static doca_error_t fn_name##_ok(void)                                                                         \
	{                                                                                                              \
		struct doca_log_backend *be = NULL;                                                                    \
		doca_error_t r = create(sink_buf, sizeof(sink_buf), sink_flush, &be);                                  \
		if (r == DOCA_SUCCESS)                                                                                 \
			silence(be);                                                                                   \
		return r;                                                                                              \
	}                                                                                                              \
	static doca_error_t fn_name##_null_buf(void)                                                                   \
	{                                                                                                              \
		struct doca_log_backend *be = NULL;                                                                    \
		return create(NULL, sizeof(sink_buf), sink_flush, &be);                                                \
	}                                                                                                              \
	static doca_error_t fn_name##_zero(void)                                                                       \
	{                                                                                                              \
		struct doca_log_backend *be = NULL;                                                                    \
		return create(sink_buf, 0, sink_flush, &be);                                                           \
	}                                                                                                              \
	static doca_error_t fn_name##_null_handler(void)                                                               \
	{                                                                                                              \
		struct doca_log_backend *be = NULL;                                                                    \
		return create(sink_buf, sizeof(sink_buf), NULL, &be);                                                  \
	}                                                                                                              \
	static doca_error_t fn_name##_null_out(void)                                                                   \
	{                                                                                                              \
		return create(sink_buf, sizeof(sink_buf), sink_flush, NULL);                                           \
	}

BUF_ROWS(buf, doca_log_backend_create_with_buf)
BUF_ROWS(buf_sdk, doca_log_backend_create_with_buf_sdk)

/* ---- per-backend levels ---- */

static doca_error_t lower_ok(void)
{
	struct doca_log_backend *be = app_backend();
	doca_error_t r = doca_log_backend_set_level_lower_limit(be, DOCA_LOG_LEVEL_DEBUG);

	silence(be);
	return r;
}

static doca_error_t lower_null(void)
{
	return doca_log_backend_set_level_lower_limit(NULL, DOCA_LOG_LEVEL_DEBUG);
}

static doca_error_t lower_bad_level(void)
{
	struct doca_log_backend *be = app_backend();
	doca_error_t r = doca_log_backend_set_level_lower_limit(be, BAD_LEVEL);

	silence(be);
	return r;
}

/* pinned at WARNING: DEBUG would be more verbose than pinned */
static doca_error_t lower_strict(void)
{
	struct doca_log_backend *be = app_backend();
	doca_error_t r;

	OK(doca_log_backend_set_level_lower_limit(be, DOCA_LOG_LEVEL_WARNING));
	OK(doca_log_backend_set_level_lower_limit_strict(be));
	r = doca_log_backend_set_level_lower_limit(be, DOCA_LOG_LEVEL_DEBUG);
	silence(be); /* less verbose is still allowed */
	return r;
}

static doca_error_t upper_ok(void)
{
	struct doca_log_backend *be = app_backend();
	doca_error_t r = doca_log_backend_set_level_upper_limit(be, DOCA_LOG_LEVEL_ERROR);

	silence(be);
	return r;
}

static doca_error_t upper_null(void)
{
	return doca_log_backend_set_level_upper_limit(NULL, DOCA_LOG_LEVEL_ERROR);
}

static doca_error_t upper_bad_level(void)
{
	struct doca_log_backend *be = app_backend();
	doca_error_t r = doca_log_backend_set_level_upper_limit(be, BAD_LEVEL);

	silence(be);
	return r;
}

/* pinned at ERROR: letting CRIT in again is refused */
static doca_error_t upper_strict(void)
{
	struct doca_log_backend *be = app_backend();
	doca_error_t r;

	OK(doca_log_backend_set_level_upper_limit(be, DOCA_LOG_LEVEL_ERROR));
	OK(doca_log_backend_set_level_upper_limit_strict(be));
	r = doca_log_backend_set_level_upper_limit(be, DOCA_LOG_LEVEL_CRIT);
	silence(be);
	return r;
}

static doca_error_t lower_strict_ok(void)
{
	struct doca_log_backend *be = app_backend();

	silence(be);
	return doca_log_backend_set_level_lower_limit_strict(be);
}

static doca_error_t lower_strict_null(void)
{
	return doca_log_backend_set_level_lower_limit_strict(NULL);
}

static doca_error_t upper_strict_ok(void)
{
	struct doca_log_backend *be = app_backend();

	silence(be);
	return doca_log_backend_set_level_upper_limit_strict(be);
}

static doca_error_t upper_strict_null(void)
{
	return doca_log_backend_set_level_upper_limit_strict(NULL);
}

static doca_error_t sdk_level_ok(void)
{
	struct doca_log_backend *be = sdk_backend();
	doca_error_t r = doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_WARNING);

	silence(be);
	return r;
}

static doca_error_t sdk_level_null(void)
{
	return doca_log_backend_set_sdk_level(NULL, DOCA_LOG_LEVEL_WARNING);
}

static doca_error_t sdk_level_bad_level(void)
{
	struct doca_log_backend *be = sdk_backend();
	doca_error_t r = doca_log_backend_set_sdk_level(be, BAD_LEVEL);

	silence(be);
	return r;
}

/* an application backend has no SDK level */
static doca_error_t sdk_level_app_backend(void)
{
	struct doca_log_backend *be = app_backend();
	doca_error_t r = doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_WARNING);

	silence(be);
	return r;
}

#define CREATE_TABLE(fn_name, name, bad_what)                                                                         \
	{name ": success", fn_name##_ok, S}, {name ": " bad_what, fn_name##_bad, INV},                                \
		{name ": NULL output", fn_name##_null_out, INV}
#define BUF_TABLE(fn_name, name)                                                                                      \
	{name ": success", fn_name##_ok, S}, {name ": NULL buffer", fn_name##_null_buf, INV},                         \
		{name ": capacity 0", fn_name##_zero, INV}, {name ": NULL handler", fn_name##_null_handler, INV},     \
		{name ": NULL output", fn_name##_null_out, INV}

static const struct row rows[] = {
	{"doca_log_register_source: success", reg_ok, S},
	{"doca_log_register_source: NULL name", reg_null_name, INV},
	{"doca_log_register_source: NULL output", reg_null_out, INV},
	{"doca_log_unregister_source: success", unreg_ok, S},
	{"doca_log_unregister_source: already unregistered", unreg_twice, INV},
	{"doca_log_unregister_source: negative", unreg_negative, INV},
	{"doca_log: success", log_ok, S},
	{"doca_log: NULL format", log_null_format, INV},
	{"doca_log: unknown level", log_bad_level, INV},
	{"doca_log_level_set_global_lower_limit: success", glob_lower_ok, S},
	{"doca_log_level_set_global_lower_limit: unknown level", glob_lower_bad, INV},
	{"doca_log_level_set_global_upper_limit: success", glob_upper_ok, S},
	{"doca_log_level_set_global_upper_limit: unknown level", glob_upper_bad, INV},
	{"doca_log_level_set_global_sdk_limit: success", glob_sdk_ok, S},
	{"doca_log_level_set_global_sdk_limit: unknown level", glob_sdk_bad, INV},
	{"doca_log_backend_create_standard: success", std_ok, S},
	CREATE_TABLE(file, "doca_log_backend_create_with_file", "NULL FILE"),
	CREATE_TABLE(file_sdk, "doca_log_backend_create_with_file_sdk", "NULL FILE"),
	CREATE_TABLE(fd, "doca_log_backend_create_with_fd", "fd -1"),
	CREATE_TABLE(fd_sdk, "doca_log_backend_create_with_fd_sdk", "fd -1"),
	CREATE_TABLE(syslog, "doca_log_backend_create_with_syslog", "NULL name"),
	CREATE_TABLE(syslog_sdk, "doca_log_backend_create_with_syslog_sdk", "NULL name"),
	BUF_TABLE(buf, "doca_log_backend_create_with_buf"),
	BUF_TABLE(buf_sdk, "doca_log_backend_create_with_buf_sdk"),
	{"doca_log_backend_set_level_lower_limit: success", lower_ok, S},
	{"doca_log_backend_set_level_lower_limit: NULL", lower_null, INV},
	{"doca_log_backend_set_level_lower_limit: unknown level", lower_bad_level, INV},
	{"doca_log_backend_set_level_lower_limit: forbidden by strict", lower_strict, BAD},
	{"doca_log_backend_set_level_upper_limit: success", upper_ok, S},
	{"doca_log_backend_set_level_upper_limit: NULL", upper_null, INV},
	{"doca_log_backend_set_level_upper_limit: unknown level", upper_bad_level, INV},
	{"doca_log_backend_set_level_upper_limit: forbidden by strict", upper_strict, BAD},
	{"doca_log_backend_set_level_lower_limit_strict: success", lower_strict_ok, S},
	{"doca_log_backend_set_level_lower_limit_strict: NULL", lower_strict_null, INV},
	{"doca_log_backend_set_level_upper_limit_strict: success", upper_strict_ok, S},
	{"doca_log_backend_set_level_upper_limit_strict: NULL", upper_strict_null, INV},
	{"doca_log_backend_set_sdk_level: success", sdk_level_ok, S},
	{"doca_log_backend_set_sdk_level: NULL", sdk_level_null, INV},
	{"doca_log_backend_set_sdk_level: unknown level", sdk_level_bad_level, INV},
	{"doca_log_backend_set_sdk_level: application backend", sdk_level_app_backend, INV},
};

struct saved {
	const struct row *row;
	uint32_t lower, upper, sdk;
};

static int setup(void **state)
{
	struct saved *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return -1;
	s->row = *state;
	s->lower = doca_log_level_get_global_lower_limit();
	s->upper = doca_log_level_get_global_upper_limit();
	s->sdk = doca_log_level_get_global_sdk_limit();
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct saved *s = *state;

	OK(doca_log_level_set_global_lower_limit(s->lower));
	OK(doca_log_level_set_global_upper_limit(s->upper));
	OK(doca_log_level_set_global_sdk_limit(s->sdk));
	free(s);
	return 0;
}

static void run_row(void **state)
{
	const struct saved *s = *state;
	doca_error_t got = s->row->fn();

	if (got != s->row->expect)
		fail_msg("%s: expected %d, got %d", s->row->name, s->row->expect, got);
}

int main(void)
{
	size_t n = sizeof(rows) / sizeof(rows[0]);
	struct CMUnitTest *tests = calloc(n, sizeof(*tests));
	int ret;

	if (tests == NULL)
		return 1;
	for (size_t i = 0; i < n; i++) {
		tests[i].name = rows[i].name;
		tests[i].test_func = run_row;
		tests[i].setup_func = setup;
		tests[i].teardown_func = teardown;
		tests[i].initial_state = (void *)&rows[i];
	}
	ret = _cmocka_run_group_tests("log_return_codes", tests, n, NULL, NULL);
	free(tests);
	return ret;
}
