/*
 * Common part of the argp fuzz targets. argp.c is compiled with
 * -Dexit=sd_fuzz_exit: -h and -v end in exit(0), which here jumps back into
 * the target instead, so those paths are fuzzed too without fork().
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include <doca_argp.h>
#include <doca_error.h>
#include <doca_log.h>

#include "fuzz_common.h"

DOCA_LOG_REGISTER(FUZZ);

struct fuzz_config {
	char *pci;
	int num_tasks;
	int max_sum;
	int nmax;
	bool verbose;
	int nshort;
	int nfiles;
	size_t files_len;
	char *only_long;
	char *cli_only;
	size_t json_len;
};

bool sd_fuzz_json_bools;

static jmp_buf exit_jump;
static volatile bool in_start;

void sd_fuzz_exit(int status) __attribute__((noreturn));
void sd_fuzz_exit(int status)
{
	/* argp may only exit successfully, and only from inside doca_argp_start (-h/-v) */
	if (!in_start || status != EXIT_SUCCESS)
		abort();
	longjmp(exit_jump, 1);
}

static doca_error_t pci_cb(void *param, void *config)
{
	struct fuzz_config *c = config;
	const char *s = param;

	if (s == NULL)
		abort();
	free(c->pci);
	c->pci = strdup(s);
	if (c->pci == NULL)
		return DOCA_ERROR_NO_MEMORY;
	DOCA_LOG_INFO("pci-addr %s", c->pci);
	/* a program rejecting a value it does not like */
	return strcmp(s, "reject") == 0 ? DOCA_ERROR_NOT_PERMITTED : DOCA_SUCCESS;
}

static doca_error_t num_tasks_cb(void *param, void *config)
{
	struct fuzz_config *c = config;

	c->num_tasks = *(int *)param;
	return c->num_tasks == 666 ? DOCA_ERROR_INVALID_VALUE : DOCA_SUCCESS;
}

static doca_error_t max_cb(void *param, void *config)
{
	struct fuzz_config *c = config;

	/* unsigned: the fuzzer will happily sum INT_MAX values */
	c->max_sum = (int)((unsigned int)c->max_sum + (unsigned int)*(int *)param);
	c->nmax++;
	return DOCA_SUCCESS;
}

static doca_error_t verbose_cb(void *param, void *config)
{
	struct fuzz_config *c = config;

	c->verbose = *(bool *)param;
	if (!c->verbose && !sd_fuzz_json_bools)
		abort(); /* on the command line, a boolean flag that is present is true */
	return DOCA_SUCCESS;
}

static doca_error_t short_cb(void *param, void *config)
{
	struct fuzz_config *c = config;

	if (!*(bool *)param && !sd_fuzz_json_bools)
		abort();
	c->nshort++;
	return DOCA_SUCCESS;
}

static doca_error_t file_cb(void *param, void *config)
{
	struct fuzz_config *c = config;
	const char *s = param;

	if (s == NULL)
		abort();
	c->nfiles++;
	c->files_len += strlen(s);
	DOCA_LOG_DBG("file %s", s);
	return DOCA_SUCCESS;
}

static doca_error_t only_long_cb(void *param, void *config)
{
	struct fuzz_config *c = config;

	free(c->only_long);
	c->only_long = strdup(param);
	return c->only_long == NULL ? DOCA_ERROR_NO_MEMORY : DOCA_SUCCESS;
}

static doca_error_t cli_only_cb(void *param, void *config)
{
	struct fuzz_config *c = config;

	free(c->cli_only);
	c->cli_only = strdup(param);
	return c->cli_only == NULL ? DOCA_ERROR_NO_MEMORY : DOCA_SUCCESS;
}

static doca_error_t json_cb(void *param, void *config)
{
	struct fuzz_config *c = config;
	const char *text;

	if (param == NULL)
		abort();
	text = json_object_to_json_string_ext(param, JSON_C_TO_STRING_PLAIN);
	if (text == NULL)
		abort();
	c->json_len += strlen(text);
	return DOCA_SUCCESS;
}

static doca_error_t version_cb(void *param, void *config)
{
	printf("fuzz version\n");
	return DOCA_SUCCESS;
}

static doca_error_t validate_cb(void *config)
{
	struct fuzz_config *c = config;

	/* every successful parse went through the mandatory flag */
	if (c->pci == NULL)
		abort();
	return c->num_tasks < 0 ? DOCA_ERROR_BAD_CONFIG : DOCA_SUCCESS;
}

static doca_error_t dpdk_cb(int argc, char **argv)
{
	int i;

	if (argc < 1 || argv == NULL)
		abort();
	for (i = 0; i < argc; i++)
		if (argv[i] == NULL || strlen(argv[i]) > (size_t)1 << 20)
			abort();
	return DOCA_SUCCESS;
}

struct param_spec {
	const char *short_name;
	const char *long_name;
	const char *arguments;
	enum doca_argp_type type;
	doca_argp_param_cb_t cb;
	bool mandatory;
	bool multi;
	bool cli_only;
};

static const struct param_spec specs[] = {
	{"p", "pci-addr", "<PCI-ADDRESS>", DOCA_ARGP_TYPE_STRING, pci_cb, true, false, false},
	{"nt", "num-tasks", "<num>", DOCA_ARGP_TYPE_INT, num_tasks_cb, false, false, false},
	{"mnr", "max-num-reqs", NULL, DOCA_ARGP_TYPE_INT, max_cb, false, true, false},
	{"b", "verbose", NULL, DOCA_ARGP_TYPE_BOOLEAN, verbose_cb, false, false, false},
	{"s", NULL, NULL, DOCA_ARGP_TYPE_BOOLEAN, short_cb, false, true, false},
	{"f", "file", "<path>", DOCA_ARGP_TYPE_STRING, file_cb, false, true, false},
	{NULL, "only-long", NULL, DOCA_ARGP_TYPE_STRING, only_long_cb, false, false, false},
	{"c", "cli-only", NULL, DOCA_ARGP_TYPE_STRING, cli_only_cb, false, false, true},
	{"x", "extra", "<json>", DOCA_ARGP_TYPE_JSON_OBJ, json_cb, false, false, false},
};

static void must(doca_error_t r)
{
	if (r != DOCA_SUCCESS)
		abort();
}

void sd_fuzz_init(void)
{
	struct doca_log_backend *app, *sdk;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		abort();
	must(doca_log_backend_create_with_fd(fd, &app));
	must(doca_log_backend_set_level_lower_limit(app, DOCA_LOG_LEVEL_TRACE));
	must(doca_log_backend_create_with_fd_sdk(fd, &sdk));
	must(doca_log_backend_set_sdk_level(sdk, DOCA_LOG_LEVEL_TRACE));
}

void sd_fuzz_argp_run(unsigned int variant, int argc, char **argv)
{
	static struct fuzz_config cfg;
	doca_error_t r;
	size_t i;

	memset(&cfg, 0, sizeof(cfg));
	/* -l / --sdk-log-level of the previous input must not leak into this one */
	must(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_TRACE));
	must(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_TRACE));

	must(doca_argp_init((variant & 1) ? NULL : "fuzz_prog", &cfg));
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct doca_argp_param *p;

		must(doca_argp_param_create(&p));
		if (specs[i].short_name != NULL)
			doca_argp_param_set_short_name(p, specs[i].short_name);
		if (specs[i].long_name != NULL)
			doca_argp_param_set_long_name(p, specs[i].long_name);
		if (specs[i].arguments != NULL)
			doca_argp_param_set_arguments(p, specs[i].arguments);
		doca_argp_param_set_description(p, "fuzzed flag");
		doca_argp_param_set_type(p, specs[i].type);
		doca_argp_param_set_callback(p, specs[i].cb);
		if (specs[i].mandatory)
			doca_argp_param_set_mandatory(p);
		if (specs[i].multi)
			doca_argp_param_set_multiplicity(p);
		if (specs[i].cli_only)
			doca_argp_param_set_cli_only(p);
		must(doca_argp_register_param(p));
	}
	if (variant & 2)
		must(doca_argp_register_version_callback(version_cb));
	if (variant & 4)
		doca_argp_set_dpdk_program(dpdk_cb);
	must(doca_argp_register_validation_callback(validate_cb));

	if (setjmp(exit_jump) == 0) {
		in_start = true;
		r = doca_argp_start(argc, argv);
		in_start = false;
		switch (r) {
		case DOCA_SUCCESS:
			if (cfg.pci == NULL)
				abort();
			break;
		case DOCA_ERROR_INVALID_VALUE: /* bad input, or num_tasks_cb */
		case DOCA_ERROR_NOT_SUPPORTED: /* a flag nobody registered (DOCA's answer) */
		case DOCA_ERROR_NOT_PERMITTED: /* pci_cb */
		case DOCA_ERROR_BAD_CONFIG: /* validate_cb */
			break;
		default:
			abort();
		}
		/* a second start is always refused */
		if (doca_argp_start(argc, argv) != DOCA_ERROR_BAD_STATE)
			abort();
		must(doca_argp_destroy());
	} else {
		/* -h / -v: argp already freed everything before exiting */
		in_start = false;
		if (doca_argp_destroy() != DOCA_ERROR_BAD_STATE)
			abort();
	}
	free(cfg.pci);
	free(cfg.only_long);
	free(cfg.cli_only);
}
