/*
 * doca_argp: API argument checks, a table of argv cases, JSON files, -h/-v in
 * children, commands (nesting, inherited and hidden flags, usage), singular
 * flags, the logger callback and the log levels given by the user.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include <doca_argp.h>
#include <doca_log.h>

struct cfg {
	char pci[64];
	char text[64];
	int num_tasks;
	bool flag;
	int multi_count;
	int multi_sum;
	int obj_keys;
	bool want_required;
};

static doca_error_t pci_cb(void *param, void *config)
{
	struct cfg *c = config;

	snprintf(c->pci, sizeof(c->pci), "%s", (const char *)param);
	return DOCA_SUCCESS;
}

static doca_error_t text_cb(void *param, void *config)
{
	struct cfg *c = config;

	if (strcmp((const char *)param, "fail") == 0)
		return DOCA_ERROR_NOT_SUPPORTED;
	snprintf(c->text, sizeof(c->text), "%s", (const char *)param);
	return DOCA_SUCCESS;
}

static doca_error_t nt_cb(void *param, void *config)
{
	((struct cfg *)config)->num_tasks = *(int *)param;
	return DOCA_SUCCESS;
}

static doca_error_t flag_cb(void *param, void *config)
{
	((struct cfg *)config)->flag = *(bool *)param;
	return DOCA_SUCCESS;
}

static doca_error_t multi_cb(void *param, void *config)
{
	struct cfg *c = config;

	c->multi_count++;
	c->multi_sum += *(int *)param;
	return DOCA_SUCCESS;
}

static doca_error_t obj_cb(void *param, void *config)
{
	struct json_object *o = param;

	((struct cfg *)config)->obj_keys = json_object_is_type(o, json_type_object) ? json_object_object_length(o) : -1;
	return DOCA_SUCCESS;
}

static doca_error_t validate_cb(void *config)
{
	return ((struct cfg *)config)->num_tasks == 13 ? DOCA_ERROR_BAD_CONFIG : DOCA_SUCCESS;
}

static doca_error_t version_cb(void *param, void *config)
{
	printf("custom version 7.7\n");
	return DOCA_SUCCESS;
}

static void add_param(const char *s, const char *l, const char *args, enum doca_argp_type type,
		      doca_argp_param_cb_t cb, bool mandatory, bool multi, bool cli_only)
{
	struct doca_argp_param *p;

	assert_int_equal(doca_argp_param_create(&p), DOCA_SUCCESS);
	if (s != NULL)
		doca_argp_param_set_short_name(p, s);
	if (l != NULL)
		doca_argp_param_set_long_name(p, l);
	if (args != NULL)
		doca_argp_param_set_arguments(p, args);
	doca_argp_param_set_description(p, "test flag");
	doca_argp_param_set_type(p, type);
	doca_argp_param_set_callback(p, cb);
	if (mandatory)
		doca_argp_param_set_mandatory(p);
	if (multi)
		doca_argp_param_set_multiplicity(p);
	if (cli_only)
		doca_argp_param_set_cli_only(p);
	assert_int_equal(doca_argp_register_param(p), DOCA_SUCCESS);
}

/* The lesson's flag set plus one of each type. */
static void setup_parser(const char *name, struct cfg *c, bool pci_mandatory)
{
	memset(c, 0, sizeof(*c));
	assert_int_equal(doca_argp_init(name, c), DOCA_SUCCESS);
	add_param("p", "pci-addr", "<PCI-ADDRESS>", DOCA_ARGP_TYPE_STRING, pci_cb, pci_mandatory, false, false);
	add_param("t", "text", NULL, DOCA_ARGP_TYPE_STRING, text_cb, false, false, false);
	add_param("nt", "num-tasks", NULL, DOCA_ARGP_TYPE_INT, nt_cb, false, false, false);
	add_param("b", "bool", NULL, DOCA_ARGP_TYPE_BOOLEAN, flag_cb, false, false, false);
	add_param("m", "multi", NULL, DOCA_ARGP_TYPE_INT, multi_cb, false, true, false);
	add_param("o", "obj", NULL, DOCA_ARGP_TYPE_JSON_OBJ, obj_cb, false, false, true);
	assert_int_equal(doca_argp_register_validation_callback(validate_cb), DOCA_SUCCESS);
}

/* ---- capture of the SDK log (errors) and of stderr (usage) ---- */

static char log_line[1024];
static char log_all[16384];

static void capture_cb(char *buffer)
{
	size_t used = strlen(log_all);

	snprintf(log_line, sizeof(log_line), "%s", buffer);
	snprintf(log_all + used, sizeof(log_all) - used, "%s", buffer);
}

static int group_setup(void **state)
{
	static char buf[1024];
	struct doca_log_backend *be;

	if (doca_log_backend_create_with_buf_sdk(buf, sizeof(buf), capture_cb, &be) != DOCA_SUCCESS)
		return -1;
	/* at WARNING, and back there after each case that moves the SDK level */
	if (doca_log_backend_set_sdk_level(be, DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS)
		return -1;
	return 0;
}

struct capture {
	int saved;
	FILE *tmp;
};

static void capture_begin(struct capture *cap)
{
	log_line[0] = '\0';
	log_all[0] = '\0';
	fflush(stderr);
	cap->tmp = tmpfile();
	assert_non_null(cap->tmp);
	cap->saved = dup(2);
	dup2(fileno(cap->tmp), 2);
}

static char *capture_end(struct capture *cap)
{
	long len;
	char *out;

	fflush(stderr);
	dup2(cap->saved, 2);
	close(cap->saved);
	len = lseek(fileno(cap->tmp), 0, SEEK_END);
	out = calloc(1, (size_t)len + 1);
	assert_non_null(out);
	assert_int_equal(pread(fileno(cap->tmp), out, (size_t)len, 0), len);
	fclose(cap->tmp);
	return out;
}

static int count_substr(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle)) != NULL) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/* ---- API argument checks ---- */

static void test_api_bad_args(void **state)
{
	struct doca_argp_param *p = NULL;
	struct cfg c;
	char *argv[] = {"prog", NULL};

	assert_int_equal(doca_argp_param_create(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_param_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_register_param(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_register_version_callback(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_register_validation_callback(NULL), DOCA_ERROR_INVALID_VALUE);
	/* before init */
	assert_int_equal(doca_argp_start(1, argv), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_destroy(), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_register_version_callback(version_cb), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_register_validation_callback(validate_cb), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_param_create(&p), DOCA_ERROR_BAD_STATE);

	/* setters ignore NULL without crashing */
	doca_argp_param_set_short_name(NULL, "x");
	doca_argp_param_set_long_name(NULL, "x");
	doca_argp_param_set_arguments(NULL, "x");
	doca_argp_param_set_description(NULL, "x");
	doca_argp_param_set_callback(NULL, nt_cb);
	doca_argp_param_set_type(NULL, DOCA_ARGP_TYPE_INT);
	doca_argp_param_set_mandatory(NULL);
	doca_argp_param_set_cli_only(NULL);
	doca_argp_param_set_multiplicity(NULL);
	doca_argp_param_set_singular(NULL);
	doca_argp_param_set_inherited(NULL);
	doca_argp_param_set_hidden(NULL);

	assert_int_equal(doca_argp_init(NULL, &c), DOCA_SUCCESS);
	assert_int_equal(doca_argp_init(NULL, &c), DOCA_ERROR_BAD_STATE);
	/* incomplete params are refused */
	assert_int_equal(doca_argp_param_create(&p), DOCA_SUCCESS);
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_INITIALIZATION); /* no name */
	doca_argp_param_set_long_name(p, "thing");
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_INITIALIZATION); /* no description */
	doca_argp_param_set_description(p, "a thing");
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_INITIALIZATION); /* no callback */
	doca_argp_param_set_callback(p, nt_cb);
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_INITIALIZATION); /* no type */
	doca_argp_param_set_type(p, (enum doca_argp_type)99);
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_INITIALIZATION); /* bad type ignored */
	doca_argp_param_set_type(p, DOCA_ARGP_TYPE_INT);
	doca_argp_param_set_short_name(p, "h");
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_INVALID_VALUE); /* reserved */
	doca_argp_param_set_short_name(p, "th");
	assert_int_equal(doca_argp_register_param(p), DOCA_SUCCESS);
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_BAD_STATE); /* twice */
	assert_int_equal(doca_argp_param_destroy(p), DOCA_ERROR_BAD_STATE);
	/* a registered param is frozen: later setters are ignored */
	doca_argp_param_set_long_name(p, "renamed");
	doca_argp_param_set_hidden(p);
	assert_int_equal(doca_argp_param_create(&p), DOCA_SUCCESS);
	doca_argp_param_set_long_name(p, "thing");
	doca_argp_param_set_description(p, "same name");
	doca_argp_param_set_callback(p, nt_cb);
	doca_argp_param_set_type(p, DOCA_ARGP_TYPE_INT);
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_INVALID_VALUE); /* duplicate name */
	/* p stays unregistered: doca_argp_destroy frees it */
	assert_int_equal(doca_argp_param_create(&p), DOCA_SUCCESS);
	doca_argp_param_set_long_name(p, "json");
	doca_argp_param_set_description(p, "reserved");
	doca_argp_param_set_callback(p, nt_cb);
	doca_argp_param_set_type(p, DOCA_ARGP_TYPE_STRING);
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_INVALID_VALUE); /* reserved */
	doca_argp_param_set_long_name(p, "v");
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_INVALID_VALUE); /* reserved as short name */
	doca_argp_param_set_long_name(p, "bad=name");
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_INVALID_VALUE);

	assert_int_equal(doca_argp_start(0, argv), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_start(1, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_start(1, argv), DOCA_SUCCESS);
	assert_int_equal(doca_argp_start(1, argv), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_param_create(&p), DOCA_SUCCESS);
	doca_argp_param_set_long_name(p, "late");
	doca_argp_param_set_callback(p, nt_cb);
	doca_argp_param_set_type(p, DOCA_ARGP_TYPE_INT);
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_register_validation_callback(validate_cb), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
	assert_int_equal(doca_argp_destroy(), DOCA_ERROR_BAD_STATE);
}

/* ---- argv table ---- */

struct argv_case {
	const char *args[12];
	doca_error_t expect;
	const char *msg; /* substring of the single error line, NULL on success */
	bool pci_mandatory;
	/* checks on success */
	const char *pci;
	int num_tasks;
	bool flag;
	int multi_count;
	int obj_keys;
};

static const struct argv_case cases[] = {
	{{"-p", "03:00.0"}, DOCA_SUCCESS, NULL, true, "03:00.0", 0, false, 0, 0},
	{{"--pci-addr=3b:00.0", "-nt", "4"}, DOCA_SUCCESS, NULL, true, "3b:00.0", 4, false, 0, 0},
	{{"-p", "x", "--num-tasks", "-5", "-b"}, DOCA_SUCCESS, NULL, true, "x", -5, true, 0, 0},
	{{"-p", "x", "-nt=12", "--bool"}, DOCA_SUCCESS, NULL, true, "x", 12, true, 0, 0},
	{{"-m", "1", "-m", "2", "--multi", "3"}, DOCA_SUCCESS, NULL, false, "", 0, false, 3, 0},
	{{"-o", "{\"a\": 1, \"b\": 2}"}, DOCA_SUCCESS, NULL, false, "", 0, false, 0, 2},
	{{"-p", "a", "-t", "-dash-value-is-a-value"}, DOCA_SUCCESS, NULL, true, "a", 0, false, 0, 0},
	{{"-l", "60", "--sdk-log-level", "20"}, DOCA_SUCCESS, NULL, false, "", 0, false, 0, 0},
	{{"-x"}, DOCA_ERROR_NOT_SUPPORTED, "Unknown flag -x", false},
	{{"--nope=3"}, DOCA_ERROR_NOT_SUPPORTED, "Unknown flag --nope", false},
	{{"-pci-addr", "x", "--nt", "3"}, DOCA_SUCCESS, NULL, true, "x", 3, false, 0, 0},
	{{"-pci", "x"}, DOCA_ERROR_NOT_SUPPORTED, "Unknown flag -pci", false},
	{{"stray"}, DOCA_ERROR_INVALID_VALUE, "Unexpected argument \"stray\"", false},
	{{"--"}, DOCA_ERROR_INVALID_VALUE, "Unexpected argument \"--\"", false},
	{{"-p"}, DOCA_ERROR_INVALID_VALUE, "Missing value for flag -p/--pci-addr", true},
	{{"-nt", "4"}, DOCA_ERROR_INVALID_VALUE, "Missing mandatory flag -p/--pci-addr", true},
	{{}, DOCA_ERROR_INVALID_VALUE, "Missing mandatory flag -p/--pci-addr", true},
	{{"-p", "x", "-nt", "abc"}, DOCA_ERROR_INVALID_VALUE, "Invalid integer value \"abc\" for flag -nt/--num-tasks",
	 true},
	{{"-nt", "4x"}, DOCA_ERROR_INVALID_VALUE, "Invalid integer value \"4x\" for flag -nt/--num-tasks", false},
	{{"-nt", ""}, DOCA_ERROR_INVALID_VALUE, "Invalid integer value \"\" for flag -nt/--num-tasks", false},
	{{"-nt", "99999999999"}, DOCA_ERROR_INVALID_VALUE, "Invalid integer value \"99999999999\"", false},
	{{"-p", "x", "-p", "y"}, DOCA_ERROR_INVALID_VALUE, "Flag -p/--pci-addr given more than once", true},
	{{"-b=1"}, DOCA_ERROR_INVALID_VALUE, "Flag -b/--bool takes no value", false},
	{{"-l", "5"}, DOCA_ERROR_INVALID_VALUE, "Invalid log level 5 for flag -l/--log-level", false},
	{{"--sdk-log-level", "80"}, DOCA_ERROR_INVALID_VALUE, "Invalid log level 80 for flag --sdk-log-level", false},
	{{"-l", "info"}, DOCA_ERROR_INVALID_VALUE, "Invalid integer value \"info\" for flag -l/--log-level", false},
	{{"-o", "{broken"}, DOCA_ERROR_INVALID_VALUE, "Invalid JSON value \"{broken\" for flag -o/--obj", false},
	{{"-t", "fail"}, DOCA_ERROR_NOT_SUPPORTED, "Failed to handle flag -t/--text", false},
	{{"-nt", "13"}, DOCA_ERROR_BAD_CONFIG, "Program validation failed", false},
	{{"-j"}, DOCA_ERROR_INVALID_VALUE, "Missing value for flag -j/--json", false},
};

static void run_case(const struct argv_case *tc)
{
	char *argv[16] = {"/usr/bin/doca_test_prog"};
	struct capture cap;
	struct cfg c;
	char *err;
	doca_error_t ret;
	int argc = 1, i;

	for (i = 0; tc->args[i] != NULL; i++)
		argv[argc++] = (char *)tc->args[i];
	setup_parser(NULL, &c, tc->pci_mandatory);
	capture_begin(&cap);
	ret = doca_argp_start(argc, argv);
	err = capture_end(&cap);
	if (ret != tc->expect)
		fail_msg("case \"%s ...\": got %s, expected %s (log: %s)", argc > 1 ? argv[1] : "", doca_error_get_name(ret),
			 doca_error_get_name(tc->expect), log_all);
	if (tc->msg != NULL) {
		if (strstr(log_line, tc->msg) == NULL)
			fail_msg("case \"%s ...\": log line \"%s\" lacks \"%s\"", argc > 1 ? argv[1] : "", log_line,
				 tc->msg);
		assert_non_null(strstr(log_line, "[DOCA][ERR]"));
		assert_int_equal(count_substr(log_all, "[ERR]"), 1); /* exactly one error line */
		/* usage follows, with the program name from argv[0] */
		assert_non_null(strstr(err, "Usage: doca_test_prog [DOCA Flags] [Program Flags]"));
	} else {
		assert_string_equal(log_all, "");
		assert_string_equal(c.pci, tc->pci);
		assert_int_equal(c.num_tasks, tc->num_tasks);
		assert_int_equal(c.flag, tc->flag);
		assert_int_equal(c.multi_count, tc->multi_count);
		assert_int_equal(c.obj_keys, tc->obj_keys);
	}
	free(err);
	assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
	/* the -l/--sdk-log-level case changed the global levels: back to the defaults */
	assert_int_equal(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO), DOCA_SUCCESS);
}

static void test_argv_table(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
}

static void test_multi_values(void **state)
{
	char *argv[] = {"prog", "-m", "10", "-m", "20", "-m", "-3", NULL};
	struct cfg c;

	setup_parser("prog", &c, false);
	assert_int_equal(doca_argp_start(7, argv), DOCA_SUCCESS);
	assert_int_equal(c.multi_count, 3);
	assert_int_equal(c.multi_sum, 27);
	assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
}

/* ---- JSON ---- */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static char *write_tmp(const char *content)
{
	char *path = strdup("/tmp/h1_argp_json_XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
	return path;
}

struct json_case {
	const char *content; /* NULL: missing file */
	const char *extra[4];
	doca_error_t expect;
	const char *msg;
	const char *pci;
	int num_tasks;
};

static const struct json_case jcases[] = {
	{"{\"doca_general_flags\": {\"log-level\": 60}, \"doca_program_flags\": "
	 "{\"pci-addr\": \"03:00.0\", \"num-tasks\": 4, \"bool\": true, \"multi\": 5}}",
	 {NULL}, DOCA_SUCCESS, NULL, "03:00.0", 4},
	{"{\"doca_program_flags\": {\"pci-addr\": \"03:00.0\", \"num-tasks\": 4}}", {"-nt", "7"}, DOCA_SUCCESS, NULL,
	 "03:00.0", 7},
	{"{\"doca_program_flags\": {\"pci-addr\": \"03:00.0\"}}", {"-p", "3b:00.0"}, DOCA_SUCCESS, NULL, "3b:00.0", 0},
	{"{ not json", {NULL}, DOCA_ERROR_INVALID_VALUE, "Failed to parse JSON file"},
	{"[1, 2]", {NULL}, DOCA_ERROR_INVALID_VALUE, "must hold an object"},
	{"{\"doca_program_flags\": {\"pci-addr\": \"x\", \"num-tasks\": \"4\"}}", {NULL}, DOCA_ERROR_INVALID_VALUE,
	 "Wrong JSON type for flag -nt/--num-tasks: expected integer"},
	{"{\"doca_program_flags\": {\"pci-addr\": 3}}", {NULL}, DOCA_ERROR_INVALID_VALUE,
	 "Wrong JSON type for flag -p/--pci-addr: expected string"},
	{"{\"doca_program_flags\": {\"pci-addr\": \"x\", \"bool\": 1}}", {NULL}, DOCA_ERROR_INVALID_VALUE,
	 "Wrong JSON type for flag -b/--bool: expected boolean"},
	{"{\"doca_program_flags\": {\"pci-addr\": \"x\", \"zzz\": 1}}", {NULL}, DOCA_ERROR_NOT_SUPPORTED,
	 "Unknown flag --zzz in JSON file"},
	{"{\"doca_general_flags\": {\"verbose\": 1}}", {NULL}, DOCA_ERROR_NOT_SUPPORTED,
	 "Unknown flag --verbose in JSON file"},
	{"{\"doca_program_flags\": {\"pci-addr\": \"x\", \"obj\": {}}}", {NULL}, DOCA_ERROR_INVALID_VALUE,
	 "Flag -o/--obj may only be given on the command line"},
	{"{\"doca_general_flags\": {\"log-level\": \"debug\"}}", {NULL}, DOCA_ERROR_INVALID_VALUE,
	 "Wrong JSON type for flag --log-level: expected integer"},
	{"{\"doca_general_flags\": {\"log-level\": 99}}", {NULL}, DOCA_ERROR_INVALID_VALUE, "Invalid log level 99"},
	{"{\"other\": {}}", {NULL}, DOCA_ERROR_INVALID_VALUE, "Unknown key \"other\""},
	{"{\"doca_program_flags\": {\"num-tasks\": 2}}", {NULL}, DOCA_ERROR_INVALID_VALUE,
	 "Missing mandatory flag -p/--pci-addr"},
	/* exactly one JSON value: trailing white space is fine, anything else is refused with its offset */
	{"{\"doca_program_flags\": {\"pci-addr\": \"03:00.0\"}}\n \t\r\n", {NULL}, DOCA_SUCCESS, NULL, "03:00.0", 0},
	{"{\"doca_program_flags\": {\"pci-addr\": \"03:00.0\"}} garbage", {NULL}, DOCA_ERROR_INVALID_VALUE,
	 "unexpected data after the JSON value at offset 48"},
	{"{\"doca_program_flags\": {\"pci-addr\": \"03:00.0\"}}{}", {NULL}, DOCA_ERROR_INVALID_VALUE,
	 "unexpected data after the JSON value at offset 47"},
	{"{}\n}", {NULL}, DOCA_ERROR_INVALID_VALUE, "unexpected data after the JSON value at offset 3"},
	{"", {NULL}, DOCA_ERROR_INVALID_VALUE, "Failed to parse JSON file"},
	{"{\"doca_program_flags\": ", {NULL}, DOCA_ERROR_INVALID_VALUE, "unexpected end of data at offset 23"},
	{"12", {NULL}, DOCA_ERROR_INVALID_VALUE, "must hold an object"},
	{NULL, {NULL}, DOCA_ERROR_INVALID_VALUE, "Failed to open JSON file"},
};

static void test_json_cases(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(jcases) / sizeof(jcases[0]); i++) {
		const struct json_case *jc = &jcases[i];
		char *path = jc->content != NULL ? write_tmp(jc->content) : strdup("/nonexistent/h1/cfg.json");
		char *argv[12] = {"prog", "-j", path};
		struct capture cap;
		struct cfg c;
		doca_error_t ret;
		char *err;
		int argc = 3, k;

		for (k = 0; jc->extra[k] != NULL; k++)
			argv[argc++] = (char *)jc->extra[k];
		setup_parser("prog", &c, true);
		capture_begin(&cap);
		ret = doca_argp_start(argc, argv);
		err = capture_end(&cap);
		if (ret != jc->expect)
			fail_msg("json case %zu: got %s (log: %s)", i, doca_error_get_name(ret), log_all);
		if (jc->msg != NULL) {
			if (strstr(log_line, jc->msg) == NULL)
				fail_msg("json case %zu: log line \"%s\" lacks \"%s\"", i, log_line, jc->msg);
			assert_int_equal(count_substr(log_all, "[ERR]"), 1);
			assert_non_null(strstr(err, "Usage: prog"));
		} else {
			assert_string_equal(c.pci, jc->pci);
			assert_int_equal(c.num_tasks, jc->num_tasks);
		}
		if (i == 0) {
			assert_true(c.flag);
			assert_int_equal(c.multi_count, 1);
			assert_int_equal(doca_log_level_get_global_lower_limit(), 60);
			assert_int_equal(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO), DOCA_SUCCESS);
		}
		free(err);
		assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
		if (jc->content != NULL)
			unlink(path);
		free(path);
	}
}

/* A FIFO, a device or a directory as -j must be refused (saying what it is), not read forever. */
static void test_json_not_regular(void **state)
{
	char dir[] = "/tmp/h1_argp_fifo_XXXXXX", fifo[64];
	const char *paths[] = {"/dev/zero", dir, fifo};
	const char *kinds[] = {"(it is a character device)", "(it is a directory)", "(it is a FIFO)"};
	size_t i;

	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/cfg.json", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* a watchdog: a blocking open or read of the FIFO would hang here */
	alarm(20);
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		char *argv[] = {"prog", "-j", (char *)paths[i], NULL};
		struct capture cap;
		struct cfg c;
		doca_error_t ret;

		setup_parser("prog", &c, true);
		capture_begin(&cap);
		ret = doca_argp_start(3, argv);
		free(capture_end(&cap));
		if (ret != DOCA_ERROR_INVALID_VALUE || strstr(log_line, "is not a regular file") == NULL ||
		    strstr(log_line, paths[i]) == NULL || strstr(log_line, kinds[i]) == NULL)
			fail_msg("%s: got %s, log \"%s\"", paths[i], doca_error_get_name(ret), log_line);
		assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
	}
	alarm(0);
	unlink(fifo);
	rmdir(dir);
}

/* A -j file over 1 MiB is refused by its size, before a byte of it is read. */
static void test_json_too_big(void **state)
{
	char *path = write_tmp("{\"doca_program_flags\": {\"pci-addr\": \"03:00.0\"}}");
	const off_t sizes[] = {300ll * 1024 * 1024, 1024 * 1024 + 1};
	char want[128];
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char *argv[] = {"prog", "-j", path, NULL};
		struct capture cap;
		struct cfg c;
		doca_error_t ret;
		uint64_t t0;

		/* sparse: the JSON object, then holes (NUL bytes) up to the size */
		assert_int_equal(truncate(path, sizes[i]), 0);
		snprintf(want, sizeof(want), "is %lld bytes, over the limit of 1 MiB (1048576 bytes)",
			 (long long)sizes[i]);
		setup_parser("prog", &c, true);
		t0 = now_ms();
		capture_begin(&cap);
		ret = doca_argp_start(3, argv);
		free(capture_end(&cap));
		if (ret != DOCA_ERROR_INVALID_VALUE || strstr(log_line, want) == NULL || strstr(log_line, path) == NULL)
			fail_msg("%lld bytes: got %s, log \"%s\"", (long long)sizes[i], doca_error_get_name(ret), log_line);
		/* refused by size: reading and parsing 300 MiB would take far longer */
		assert_true(now_ms() - t0 < 1000);
		assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
	}
	/* exactly at the limit it is read, and the NUL padding after the object is refused */
	assert_int_equal(truncate(path, 1024 * 1024), 0);
	{
		char *argv[] = {"prog", "-j", path, NULL};
		struct capture cap;
		struct cfg c;

		setup_parser("prog", &c, true);
		capture_begin(&cap);
		assert_int_equal(doca_argp_start(3, argv), DOCA_ERROR_INVALID_VALUE);
		free(capture_end(&cap));
		if (strstr(log_line, "unexpected data after the JSON value at offset 47") == NULL)
			fail_msg("1 MiB file: log \"%s\"", log_line);
		assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
	}
	unlink(path);
	free(path);
}

/* ---- -h / -v exit 0 in a child ---- */

static int run_child(const char *const *args, bool with_version_cb, char *out, size_t outlen)
{
	char *argv[8] = {"/opt/x/doca_dma_local_copy"};
	int fds[2], status, argc = 1;
	size_t total = 0;
	ssize_t n;
	pid_t pid;

	while (args[argc - 1] != NULL)
		argv[argc] = (char *)args[argc - 1], argc++;
	assert_int_equal(pipe(fds), 0);
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct cfg c;

		dup2(fds[1], 1);
		close(fds[0]);
		memset(&c, 0, sizeof(c));
		if (doca_argp_init(NULL, &c) != DOCA_SUCCESS)
			_exit(90);
		{
			struct doca_argp_param *p;

			doca_argp_param_create(&p);
			doca_argp_param_set_short_name(p, "p");
			doca_argp_param_set_long_name(p, "pci-addr");
			doca_argp_param_set_description(p, "DOCA DMA device PCI address");
			doca_argp_param_set_type(p, DOCA_ARGP_TYPE_STRING);
			doca_argp_param_set_callback(p, pci_cb);
			doca_argp_param_set_mandatory(p);
			if (doca_argp_register_param(p) != DOCA_SUCCESS)
				_exit(91);
			if (with_version_cb && doca_argp_register_version_callback(version_cb) != DOCA_SUCCESS)
				_exit(92);
		}
		doca_argp_start(argc, argv);
		_exit(93); /* -h and -v must have exited already */
	}
	close(fds[1]);
	while (total < outlen - 1 && (n = read(fds[0], out + total, outlen - 1 - total)) > 0)
		total += (size_t)n;
	out[total] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void test_help_version(void **state)
{
	static const char *help[] = {"-h", NULL};
	static const char *help_long[] = {"-p", "x", "--help", NULL};
	static const char *version[] = {"-v", NULL};
	static const char *version_long[] = {"--version", NULL};
	char out[8192];

	assert_int_equal(run_child(help, false, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "Usage: doca_dma_local_copy [DOCA Flags] [Program Flags]\n\nDOCA Flags:\n"));
	assert_non_null(strstr(out, "  -h, --help                              Print a help synopsis\n"));
	assert_non_null(strstr(out, "  -v, --version                           Print program version information\n"));
	assert_non_null(strstr(out, "  -l, --log-level                         Set the (numeric) log level for the "
				    "program <10=DISABLE, 20=CRITICAL, 30=ERROR, 40=WARNING, 50=INFO, 60=DEBUG, "
				    "70=TRACE>\n"));
	assert_non_null(strstr(out, "  --sdk-log-level                         Set the SDK (numeric) log level"));
	assert_non_null(strstr(out, "  -j, --json <path>                       Parse all command flags from an input "
				    "json file\n"));
	assert_non_null(strstr(out, "\nProgram Flags:\n  -p, --pci-addr                          DOCA DMA device "
				    "PCI address (mandatory)\n"));
	assert_int_equal(run_child(help_long, false, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "Usage: doca_dma_local_copy"));

	assert_int_equal(run_child(version, false, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "doca_dma_local_copy version 3.3.0"));
	assert_non_null(strstr(out, "DOCA SDK version (Runtime): 3.3.0"));
	assert_non_null(strstr(out, "softdoca version: "));
	assert_int_equal(run_child(version_long, true, out, sizeof(out)), 0);
	assert_string_equal(out, "custom version 7.7\n");
}

/* ---- commands ---- */

struct ccfg {
	char trail[128]; /* order of the callbacks: g=get q=quota s=set d=-d l=--limit m=--max p=-p r=-r */
	char dev[32];
	int max;
	int fail_cmd;
};

static void trail(void *config, char c)
{
	struct ccfg *k = config;
	size_t n = strlen(k->trail);

	if (n + 1 < sizeof(k->trail))
		k->trail[n] = c;
}

static doca_error_t c_get(void *config)
{
	trail(config, 'g');
	return ((struct ccfg *)config)->fail_cmd ? DOCA_ERROR_NOT_PERMITTED : DOCA_SUCCESS;
}

static doca_error_t c_quota(void *config)
{
	trail(config, 'q');
	return DOCA_SUCCESS;
}

static doca_error_t c_set(void *config)
{
	trail(config, 's');
	return DOCA_SUCCESS;
}

static doca_error_t c_secret(void *config)
{
	trail(config, 'x');
	return DOCA_SUCCESS;
}

static doca_error_t f_dev(void *param, void *config)
{
	snprintf(((struct ccfg *)config)->dev, sizeof(((struct ccfg *)config)->dev), "%s", (char *)param);
	trail(config, 'd');
	return DOCA_SUCCESS;
}

static doca_error_t f_limit(void *param, void *config)
{
	trail(config, 'l');
	return DOCA_SUCCESS;
}

static doca_error_t f_max(void *param, void *config)
{
	((struct ccfg *)config)->max = *(int *)param;
	trail(config, 'm');
	return DOCA_SUCCESS;
}

static doca_error_t f_p(void *param, void *config)
{
	trail(config, 'p');
	return DOCA_SUCCESS;
}

static doca_error_t f_r(void *param, void *config)
{
	trail(config, 'r');
	return DOCA_SUCCESS;
}

static doca_error_t f_hid(void *param, void *config)
{
	trail(config, 'h');
	return DOCA_SUCCESS;
}

static struct doca_argp_param *mk_param(const char *s, const char *l, enum doca_argp_type type,
					doca_argp_param_cb_t cb, const char *descr)
{
	struct doca_argp_param *p;

	assert_int_equal(doca_argp_param_create(&p), DOCA_SUCCESS);
	if (s != NULL)
		doca_argp_param_set_short_name(p, s);
	if (l != NULL)
		doca_argp_param_set_long_name(p, l);
	doca_argp_param_set_description(p, descr);
	doca_argp_param_set_type(p, type);
	doca_argp_param_set_callback(p, cb);
	return p;
}

static struct doca_argp_cmd *mk_cmd(const char *name, const char *descr, doca_argp_cmd_cb_t cb)
{
	struct doca_argp_cmd *c;

	assert_int_equal(doca_argp_cmd_create(&c), DOCA_SUCCESS);
	doca_argp_cmd_set_name(c, name);
	doca_argp_cmd_set_description(c, descr);
	if (cb != NULL)
		doca_argp_cmd_set_callback(c, cb);
	return c;
}

/*
 * prog [-p (inherited)] [-r] [--hid (hidden)]
 *   get -d <dev> (mandatory) [--limit]
 *     quota [--max <n>]
 *   set
 *   secret (hidden)
 */
static void setup_cmds(struct ccfg *k)
{
	struct doca_argp_cmd *get, *quota, *set, *secret;
	struct doca_argp_param *p;

	memset(k, 0, sizeof(*k));
	assert_int_equal(doca_argp_init("prog", k), DOCA_SUCCESS);
	p = mk_param("p", "port", DOCA_ARGP_TYPE_INT, f_p, "Port, known in every command");
	doca_argp_param_set_inherited(p);
	assert_int_equal(doca_argp_register_param(p), DOCA_SUCCESS);
	assert_int_equal(doca_argp_register_param(mk_param("r", "root-only", DOCA_ARGP_TYPE_BOOLEAN, f_r,
							   "Known at the top only")),
			 DOCA_SUCCESS);
	p = mk_param(NULL, "hid", DOCA_ARGP_TYPE_BOOLEAN, f_hid, "Never shown in the usage");
	doca_argp_param_set_hidden(p);
	assert_int_equal(doca_argp_register_param(p), DOCA_SUCCESS);

	quota = mk_cmd("quota", "Show the quota", c_quota);
	assert_int_equal(doca_argp_cmd_register_param(quota, mk_param(NULL, "max", DOCA_ARGP_TYPE_INT, f_max,
								       "Largest value")),
			 DOCA_SUCCESS);
	get = mk_cmd("get", "Get the configuration", c_get);
	p = mk_param("d", "device", DOCA_ARGP_TYPE_STRING, f_dev, "Device to query");
	doca_argp_param_set_mandatory(p);
	assert_int_equal(doca_argp_cmd_register_param(get, p), DOCA_SUCCESS);
	assert_int_equal(doca_argp_cmd_register_param(get, mk_param(NULL, "limit", DOCA_ARGP_TYPE_BOOLEAN, f_limit,
								     "Show the limit")),
			 DOCA_SUCCESS);
	assert_int_equal(doca_argp_cmd_register_cmd(get, quota), DOCA_SUCCESS);
	assert_int_equal(doca_argp_register_cmd(get), DOCA_SUCCESS);
	set = mk_cmd("set", "Set the configuration", c_set);
	assert_int_equal(doca_argp_register_cmd(set), DOCA_SUCCESS);
	secret = mk_cmd("secret", "A command nobody sees", c_secret);
	doca_argp_cmd_set_hidden(secret);
	assert_int_equal(doca_argp_register_cmd(secret), DOCA_SUCCESS);
}

static void test_cmd_bad_args(void **state)
{
	struct doca_argp_cmd *c, *d;
	struct doca_argp_param *p;
	struct ccfg k;
	int lvl;

	assert_int_equal(doca_argp_cmd_create(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_cmd_create(&c), DOCA_ERROR_BAD_STATE); /* before init */
	assert_int_equal(doca_argp_register_cmd(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_cmd_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_cmd_register_param(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_cmd_register_cmd(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_register_logger_callback(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_disable_logger_callback(), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_get_log_level(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_get_sdk_log_level(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_get_log_level(&lvl), DOCA_SUCCESS);
	assert_int_equal(lvl, (int)doca_log_level_get_global_lower_limit());
	doca_argp_cmd_set_name(NULL, "x");
	doca_argp_cmd_set_description(NULL, "x");
	doca_argp_cmd_set_callback(NULL, c_get);
	doca_argp_cmd_set_hidden(NULL);

	memset(&k, 0, sizeof(k));
	assert_int_equal(doca_argp_init("prog", &k), DOCA_SUCCESS);
	assert_int_equal(doca_argp_cmd_create(&c), DOCA_SUCCESS);
	assert_int_equal(doca_argp_register_cmd(c), DOCA_ERROR_INITIALIZATION); /* no name */
	doca_argp_cmd_set_name(c, "get");
	assert_int_equal(doca_argp_register_cmd(c), DOCA_ERROR_INITIALIZATION); /* no description */
	doca_argp_cmd_set_description(c, "Get");
	assert_int_equal(doca_argp_cmd_register_cmd(c, c), DOCA_ERROR_INVALID_VALUE); /* itself */
	assert_int_equal(doca_argp_register_cmd(c), DOCA_SUCCESS);
	assert_int_equal(doca_argp_register_cmd(c), DOCA_ERROR_BAD_STATE); /* twice */
	assert_int_equal(doca_argp_cmd_destroy(c), DOCA_ERROR_BAD_STATE);
	/* a registered command is frozen */
	assert_int_equal(doca_argp_cmd_register_param(c, mk_param(NULL, "late", DOCA_ARGP_TYPE_INT, f_max, "x")),
			 DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_cmd_create(&d), DOCA_SUCCESS);
	doca_argp_cmd_set_name(d, "sub");
	doca_argp_cmd_set_description(d, "Sub");
	assert_int_equal(doca_argp_cmd_register_cmd(c, d), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_cmd_create(&d), DOCA_SUCCESS);
	doca_argp_cmd_set_name(d, "get");
	doca_argp_cmd_set_description(d, "Another get");
	assert_int_equal(doca_argp_register_cmd(d), DOCA_ERROR_INVALID_VALUE); /* same name at the same level */
	assert_int_equal(doca_argp_cmd_create(&d), DOCA_SUCCESS);
	doca_argp_cmd_set_name(d, "-bad");
	doca_argp_cmd_set_description(d, "Bad name");
	assert_int_equal(doca_argp_register_cmd(d), DOCA_ERROR_INVALID_VALUE);
	/* an unregistered command is destroyed with what was registered into it */
	assert_int_equal(doca_argp_cmd_create(&d), DOCA_SUCCESS);
	p = mk_param("z", "zed", DOCA_ARGP_TYPE_INT, f_max, "Zed");
	assert_int_equal(doca_argp_cmd_register_param(d, p), DOCA_SUCCESS);
	assert_int_equal(doca_argp_cmd_register_param(d, p), DOCA_ERROR_BAD_STATE); /* param twice */
	assert_int_equal(doca_argp_cmd_create(&c), DOCA_SUCCESS);
	doca_argp_cmd_set_name(c, "inner");
	doca_argp_cmd_set_description(c, "Inner");
	assert_int_equal(doca_argp_cmd_register_cmd(d, c), DOCA_SUCCESS);
	assert_int_equal(doca_argp_cmd_destroy(d), DOCA_SUCCESS);
	assert_int_equal(doca_argp_param_destroy(p), DOCA_ERROR_INVALID_VALUE); /* went with d */

	assert_int_equal(doca_argp_register_logger_callback(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_disable_logger_callback(), DOCA_ERROR_BAD_STATE); /* none registered */
	assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
}

struct cmd_case {
	const char *args[10];
	doca_error_t expect;
	const char *msg;   /* error line substring */
	const char *trail; /* callback order on success */
};

static const struct cmd_case ccases[] = {
	{{"-r", "get", "-d", "mlx5_0", "--limit"}, DOCA_SUCCESS, NULL, "grdl"},
	{{"get", "-d", "mlx5_0", "-p", "3"}, DOCA_SUCCESS, NULL, "gdp"},      /* inherited flag inside get */
	{{"-p", "1", "get", "-d", "x"}, DOCA_SUCCESS, NULL, "gpd"},           /* or before it */
	{{"get", "-d", "x", "quota", "--max", "5", "-p", "2"}, DOCA_SUCCESS, NULL, "gqdmp"},
	{{"set"}, DOCA_SUCCESS, NULL, "s"},
	{{}, DOCA_SUCCESS, NULL, ""}, /* no command: the program decides */
	{{"secret", "--hid"}, DOCA_ERROR_NOT_SUPPORTED, "Unknown flag --hid", NULL}, /* --hid is the top's */
	{{"--hid", "secret"}, DOCA_SUCCESS, NULL, "xh"},                   /* hidden ones still work */
	{{"get", "-d", "x", "-r"}, DOCA_ERROR_NOT_SUPPORTED, "Unknown flag -r", NULL},
	{{"--limit"}, DOCA_ERROR_NOT_SUPPORTED, "Unknown flag --limit", NULL},
	{{"get"}, DOCA_ERROR_INVALID_VALUE, "Missing mandatory flag -d/--device", NULL},
	{{"set", "-d", "x"}, DOCA_ERROR_NOT_SUPPORTED, "Unknown flag -d", NULL},
	{{"quota"}, DOCA_ERROR_INVALID_VALUE, "Unknown command \"quota\"", NULL},
	{{"bogus"}, DOCA_ERROR_INVALID_VALUE, "Unknown command \"bogus\"", NULL},
	{{"set", "extra"}, DOCA_ERROR_INVALID_VALUE, "Unexpected argument \"extra\"", NULL},
	{{"get", "-d", "x", "-l", "50"}, DOCA_SUCCESS, NULL, "gd"}, /* DOCA flags everywhere */
};

static void test_commands(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(ccases) / sizeof(ccases[0]); i++) {
		const struct cmd_case *tc = &ccases[i];
		char *argv[12] = {"prog"};
		struct capture cap;
		struct ccfg k;
		doca_error_t ret;
		char *err;
		int argc = 1, n;

		for (n = 0; tc->args[n] != NULL; n++)
			argv[argc++] = (char *)tc->args[n];
		setup_cmds(&k);
		capture_begin(&cap);
		ret = doca_argp_start(argc, argv);
		err = capture_end(&cap);
		if (ret != tc->expect)
			fail_msg("cmd case %zu: got %s (log: %s)", i, doca_error_get_name(ret), log_all);
		if (tc->msg != NULL) {
			if (strstr(log_line, tc->msg) == NULL)
				fail_msg("cmd case %zu: log line \"%s\" lacks \"%s\"", i, log_line, tc->msg);
			assert_int_equal(count_substr(log_all, "[ERR]"), 1);
			assert_non_null(strstr(err, "Usage: prog"));
		} else if (strcmp(k.trail, tc->trail) != 0) {
			fail_msg("cmd case %zu: callbacks \"%s\", expected \"%s\"", i, k.trail, tc->trail);
		}
		free(err);
		assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
	}
	assert_int_equal(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO), DOCA_SUCCESS);
}

static void test_cmd_callback_error(void **state)
{
	char *argv[] = {"prog", "get", "-d", "x", NULL};
	struct capture cap;
	struct ccfg k;

	setup_cmds(&k);
	k.fail_cmd = 1;
	capture_begin(&cap);
	assert_int_equal(doca_argp_start(4, argv), DOCA_ERROR_NOT_PERMITTED);
	free(capture_end(&cap));
	assert_non_null(strstr(log_line, "Failed to handle command get"));
	assert_string_equal(k.trail, "g"); /* the flags of a refused command are not handled */
	assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
}

/* Runs doca_argp_usage() (stdout) after a start with argv; returns the text (caller frees). */
static char *usage_after(int argc, char **argv)
{
	struct ccfg k;
	FILE *tmp = tmpfile();
	int saved;
	long len;
	char *out;

	assert_non_null(tmp);
	setup_cmds(&k);
	assert_int_equal(doca_argp_start(argc, argv), DOCA_SUCCESS);
	fflush(stdout);
	saved = dup(1);
	dup2(fileno(tmp), 1);
	doca_argp_usage();
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	len = lseek(fileno(tmp), 0, SEEK_END);
	out = calloc(1, (size_t)len + 1);
	assert_non_null(out);
	assert_int_equal(pread(fileno(tmp), out, (size_t)len, 0), len);
	fclose(tmp);
	assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
	return out;
}

static void test_cmd_usage(void **state)
{
	char *top[] = {"prog", NULL};
	char *get[] = {"prog", "get", "-d", "x", NULL};
	char *quota[] = {"prog", "get", "-d", "x", "quota", NULL};
	char *out;

	out = usage_after(1, top);
	assert_non_null(strstr(out, "Usage: prog [DOCA Flags] [Program Flags] <command>\n"));
	assert_non_null(strstr(out, "  -p, --port                              Port, known in every command\n"));
	assert_non_null(strstr(out, "  -r, --root-only"));
	assert_null(strstr(out, "--hid"));
	assert_non_null(strstr(out, "\nCommands:\n  get                                     Get the configuration\n"
				    "  set                                     Set the configuration\n"));
	assert_null(strstr(out, "secret"));
	assert_null(strstr(out, "quota"));
	assert_null(strstr(out, "--device"));
	free(out);

	out = usage_after(4, get);
	assert_non_null(strstr(out, "Usage: prog get [DOCA Flags] [Program Flags] <command>\n"));
	assert_non_null(strstr(out, "  -d, --device                            Device to query (mandatory)\n"));
	assert_non_null(strstr(out, "  --limit"));
	assert_non_null(strstr(out, "  -p, --port")); /* inherited */
	assert_null(strstr(out, "--root-only"));
	assert_non_null(strstr(out, "  quota                                   Show the quota\n"));
	assert_non_null(strstr(out, "  -h, --help")); /* the DOCA flags too */
	free(out);

	out = usage_after(5, quota);
	assert_non_null(strstr(out, "Usage: prog get quota [DOCA Flags] [Program Flags]\n"));
	assert_non_null(strstr(out, "  --max"));
	assert_non_null(strstr(out, "  -p, --port"));
	assert_null(strstr(out, "--device")); /* get's own flag is not inherited */
	assert_null(strstr(out, "Commands:"));
	free(out);
}

/* -h inside a command prints that command's usage, then exits 0. */
static void test_cmd_help_child(void **state)
{
	int fds[2], status;
	char out[8192];
	ssize_t n, total = 0;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *argv[] = {"prog", "get", "--help", NULL};
		struct ccfg k;

		dup2(fds[1], 1);
		close(fds[0]);
		setup_cmds(&k);
		doca_argp_start(3, argv);
		_exit(93);
	}
	close(fds[1]);
	while (total < (ssize_t)sizeof(out) - 1 && (n = read(fds[0], out + total, sizeof(out) - 1 - total)) > 0)
		total += n;
	out[total] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_non_null(strstr(out, "Usage: prog get [DOCA Flags] [Program Flags] <command>\n"));
	assert_non_null(strstr(out, "--device"));
}

/* ---- singular and hidden flags ---- */

static doca_error_t count_cb(void *param, void *config)
{
	(*(int *)config)++;
	return DOCA_SUCCESS;
}

static void test_singular_hidden(void **state)
{
	static const struct {
		const char *args[4];
		doca_error_t expect;
		const char *msg;
	} sc[] = {
		{{"--list"}, DOCA_SUCCESS, NULL},
		{{"--list", "-l", "50"}, DOCA_SUCCESS, NULL}, /* DOCA flags do not count */
		{{"--list", "-n", "3"}, DOCA_ERROR_INVALID_VALUE, "Flag --list must be given alone"},
		{{"-n", "3", "--list"}, DOCA_ERROR_INVALID_VALUE, "Flag --list must be given alone"},
		{{"--list", "--list"}, DOCA_ERROR_INVALID_VALUE, "Flag --list given more than once"},
		{{"-n", "3", "--secret-knob"}, DOCA_SUCCESS, NULL},
		{{"-x"}, DOCA_ERROR_NOT_SUPPORTED, "Unknown flag -x"},
	};
	size_t i;

	for (i = 0; i < sizeof(sc) / sizeof(sc[0]); i++) {
		char *argv[8] = {"prog"};
		struct doca_argp_param *p;
		struct capture cap;
		doca_error_t ret;
		int count = 0, argc = 1, n;
		char *err;

		for (n = 0; sc[i].args[n] != NULL; n++)
			argv[argc++] = (char *)sc[i].args[n];
		assert_int_equal(doca_argp_init("prog", &count), DOCA_SUCCESS);
		p = mk_param(NULL, "list", DOCA_ARGP_TYPE_BOOLEAN, count_cb, "List and exit");
		doca_argp_param_set_singular(p);
		assert_int_equal(doca_argp_register_param(p), DOCA_SUCCESS);
		assert_int_equal(doca_argp_register_param(mk_param("n", "num", DOCA_ARGP_TYPE_INT, count_cb, "A number")),
				 DOCA_SUCCESS);
		p = mk_param(NULL, "secret-knob", DOCA_ARGP_TYPE_BOOLEAN, count_cb, "For developers");
		doca_argp_param_set_hidden(p);
		assert_int_equal(doca_argp_register_param(p), DOCA_SUCCESS);
		capture_begin(&cap);
		ret = doca_argp_start(argc, argv);
		err = capture_end(&cap);
		if (ret != sc[i].expect)
			fail_msg("singular case %zu: got %s (log: %s)", i, doca_error_get_name(ret), log_all);
		if (sc[i].msg != NULL) {
			if (strstr(log_line, sc[i].msg) == NULL)
				fail_msg("singular case %zu: log line \"%s\" lacks \"%s\"", i, log_line, sc[i].msg);
			assert_non_null(strstr(err, "  --list"));
			assert_null(strstr(err, "secret-knob")); /* hidden from the usage */
		} else {
			assert_int_equal(count, argc == 2 ? 1 : 2 - (strcmp(argv[2], "-l") == 0));
		}
		free(err);
		assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
	}
	assert_int_equal(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO), DOCA_SUCCESS);
}

/* ---- logger callback ---- */

static char logger_seen[512];
static int logger_calls;
static enum doca_log_level logger_level;

static doca_error_t logger_cb(enum doca_log_level level, const char *format, va_list args)
{
	logger_calls++;
	logger_level = level;
	vsnprintf(logger_seen, sizeof(logger_seen), format, args);
	return DOCA_SUCCESS;
}

static void test_logger_callback(void **state)
{
	char *argv[] = {"prog", "--nope", NULL};
	struct capture cap;
	struct cfg c;

	assert_int_equal(doca_argp_register_logger_callback(logger_cb), DOCA_ERROR_BAD_STATE); /* before init */
	setup_parser("prog", &c, false);
	assert_int_equal(doca_argp_register_logger_callback(logger_cb), DOCA_SUCCESS);
	assert_int_equal(doca_argp_register_logger_callback(logger_cb), DOCA_ERROR_ALREADY_EXIST);
	capture_begin(&cap);
	assert_int_equal(doca_argp_start(2, argv), DOCA_ERROR_NOT_SUPPORTED);
	free(capture_end(&cap));
	assert_int_equal(logger_calls, 1);
	assert_int_equal(logger_level, DOCA_LOG_LEVEL_ERROR);
	assert_string_equal(logger_seen, "Unknown flag --nope");
	assert_string_equal(log_all, ""); /* not in the SDK log */
	assert_int_equal(doca_argp_disable_logger_callback(), DOCA_SUCCESS);
	assert_int_equal(doca_argp_disable_logger_callback(), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);

	/* disabled: back to the SDK log */
	setup_parser("prog", &c, false);
	capture_begin(&cap);
	assert_int_equal(doca_argp_start(2, argv), DOCA_ERROR_NOT_SUPPORTED);
	free(capture_end(&cap));
	assert_int_equal(logger_calls, 1);
	assert_non_null(strstr(log_line, "Unknown flag --nope"));
	assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
}

/* ---- log levels given by the user ---- */

static void test_get_log_levels(void **state)
{
	char *plain[] = {"prog", NULL};
	char *given[] = {"prog", "-l", "60", "--sdk-log-level", "30", NULL};
	struct cfg c;
	int lvl;

	setup_parser("prog", &c, false);
	assert_int_equal(doca_argp_start(1, plain), DOCA_SUCCESS);
	assert_int_equal(doca_argp_get_log_level(&lvl), DOCA_SUCCESS);
	assert_int_equal(lvl, (int)doca_log_level_get_global_lower_limit());
	assert_int_equal(doca_argp_get_sdk_log_level(&lvl), DOCA_SUCCESS);
	assert_int_equal(lvl, (int)doca_log_level_get_global_sdk_limit());
	assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);

	setup_parser("prog", &c, false);
	assert_int_equal(doca_argp_start(5, given), DOCA_SUCCESS);
	assert_int_equal(doca_argp_get_log_level(&lvl), DOCA_SUCCESS);
	assert_int_equal(lvl, 60);
	assert_int_equal(doca_argp_get_sdk_log_level(&lvl), DOCA_SUCCESS);
	assert_int_equal(lvl, 30);
	assert_int_equal(doca_log_level_get_global_lower_limit(), 60);
	assert_int_equal(doca_log_level_get_global_sdk_limit(), 30);
	assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_api_bad_args),
		cmocka_unit_test(test_argv_table),
		cmocka_unit_test(test_multi_values),
		cmocka_unit_test(test_json_cases),
		cmocka_unit_test(test_json_not_regular),
		cmocka_unit_test(test_json_too_big),
		cmocka_unit_test(test_help_version),
		cmocka_unit_test(test_cmd_bad_args),
		cmocka_unit_test(test_commands),
		cmocka_unit_test(test_cmd_callback_error),
		cmocka_unit_test(test_cmd_usage),
		cmocka_unit_test(test_cmd_help_child),
		cmocka_unit_test(test_singular_hidden),
		cmocka_unit_test(test_logger_callback),
		cmocka_unit_test(test_get_log_levels),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
