/*
 * doca_argp_start: the command line first (DOCA flags act at once, program
 * flags are collected), then the -j file, then the checks that need the
 * whole picture (mandatory, singular), and only then the callbacks: the
 * commands' in the order given, then every flag's, JSON values before
 * command-line ones so that the command line wins.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_log.h>
#include <doca_version.h>

#include "argp_priv.h"

SD_LOG_REGISTER(ARGP);

static void parse_free(struct argp_parse *ps)
{
	int i;

	for (i = 0; i < ps->nocc; i++)
		if (ps->occ[i].obj_owned)
			json_object_put(ps->occ[i].obj);
	free(ps->occ);
	free(ps->chain);
	if (ps->json_root != NULL)
		json_object_put(ps->json_root);
	memset(ps, 0, sizeof(*ps));
}

struct argp_occurrence *argp_occ_add(struct argp_parse *ps, struct doca_argp_param *p)
{
	struct argp_occurrence *o;

	if (ps->nocc == ps->cap) {
		int cap = ps->cap ? ps->cap * 2 : 8;
		struct argp_occurrence *grown = realloc(ps->occ, sizeof(*grown) * (size_t)cap);

		if (grown == NULL)
			return NULL;
		ps->occ = grown;
		ps->cap = cap;
	}
	o = &ps->occ[ps->nocc++];
	memset(o, 0, sizeof(*o));
	o->param = p;
	return o;
}

int argp_count_occ(const struct argp_parse *ps, const struct doca_argp_param *p)
{
	int i, n = 0;

	for (i = 0; i < ps->nocc; i++)
		if (ps->occ[i].param == p)
			n++;
	return n;
}

static bool parse_int(const char *s, int *out)
{
	char *end;
	long v;

	if (s == NULL || *s == '\0')
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < INT_MIN || v > INT_MAX)
		return false;
	*out = (int)v;
	return true;
}

doca_error_t argp_set_level(const struct argp_parse *ps, enum argp_builtin b, int level, const char *src)
{
	char name[64];

	argp_flag_name(name, sizeof(name), b == ARGP_B_LOG ? "l" : NULL,
		       b == ARGP_B_LOG ? "log-level" : "sdk-log-level");
	if (level < DOCA_LOG_LEVEL_DISABLE || level > DOCA_LOG_LEVEL_TRACE)
		return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Invalid log level %d for flag %s%s (expected 10..70)",
				 level, name, src);
	if (b == ARGP_B_LOG) {
		argp_g.log_level = level;
		return doca_log_level_set_global_lower_limit((uint32_t)level);
	}
	argp_g.sdk_log_level = level;
	return doca_log_level_set_global_sdk_limit((uint32_t)level);
}

static void cleanup_and_exit(struct argp_parse *ps)
{
	fflush(stdout);
	parse_free(ps);
	argp_free_all();
	exit(EXIT_SUCCESS);
}

static void print_version(void)
{
	printf("%s version %s\n", argp_prog_name(), doca_version_runtime());
	printf("DOCA SDK version (Compilation): %s\n", doca_version());
	printf("DOCA SDK version (Runtime): %s\n", doca_version_runtime());
	printf("softdoca version: %s\n", softdoca_version_runtime());
}

static doca_error_t handle_value(struct argp_parse *ps, struct doca_argp_param *p, const char *name,
				 const char *value)
{
	struct argp_occurrence *o = argp_occ_add(ps, p);

	if (o == NULL)
		return DOCA_ERROR_NO_MEMORY;
	switch (p->type) {
	case DOCA_ARGP_TYPE_STRING:
		o->text = value;
		break;
	case DOCA_ARGP_TYPE_INT:
		if (!parse_int(value, &o->ival))
			return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Invalid integer value \"%s\" for flag %s",
					 value, name);
		break;
	case DOCA_ARGP_TYPE_BOOLEAN:
		o->bval = true;
		break;
	case DOCA_ARGP_TYPE_JSON_OBJ:
		o->obj = json_tokener_parse(value);
		if (o->obj == NULL)
			return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Invalid JSON value \"%s\" for flag %s", value,
					 name);
		o->obj_owned = true;
		break;
	default:
		return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Flag %s has no valid type", name);
	}
	return DOCA_SUCCESS;
}

static bool name_matches(const char *cand, const char *name, size_t nlen)
{
	return cand != NULL && strlen(cand) == nlen && strncmp(cand, name, nlen) == 0;
}

/*
 * The program flag the token names, in the current command's scope: its own
 * flags, then the inherited flags of each ancestor, nearest first.
 */
static struct doca_argp_param *scope_find(const struct argp_parse *ps, bool want_long, const char *name,
					  size_t nlen)
{
	int d, j;

	for (d = ps->nchain - 1; d >= 0; d--) {
		const struct doca_argp_cmd *c = ps->chain[d];

		for (j = 0; j < c->nparams; j++) {
			struct doca_argp_param *p = c->params[j];

			if (d != ps->nchain - 1 && !p->inherited)
				continue;
			if (name_matches(want_long ? p->long_name : p->short_name, name, nlen))
				return p;
		}
	}
	return NULL;
}

static doca_error_t enter_cmd(struct argp_parse *ps, const char *tok)
{
	const struct doca_argp_cmd *cur = ARGP_CUR_CMD(ps);
	struct doca_argp_cmd **grown;
	int k;

	for (k = 0; k < cur->ncmds; k++) {
		if (!argp_same(cur->cmds[k]->name, tok))
			continue;
		grown = realloc(ps->chain, sizeof(*grown) * (size_t)(ps->nchain + 1));
		if (grown == NULL)
			return DOCA_ERROR_NO_MEMORY;
		ps->chain = grown;
		ps->chain[ps->nchain++] = cur->cmds[k];
		return DOCA_SUCCESS;
	}
	if (cur->ncmds > 0)
		return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Unknown command \"%s\"", tok);
	return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Unexpected argument \"%s\"", tok);
}

static doca_error_t run_builtin(struct argp_parse *ps, const struct argp_builtin_flag *bf, const char *shown,
				const char *value)
{
	doca_error_t ret;
	int level;

	switch (bf->id) {
	case ARGP_B_HELP:
		argp_print_usage(stdout, ARGP_CUR_CMD(ps));
		cleanup_and_exit(ps);
		break;
	case ARGP_B_VERSION:
		if (argp_g.version_cb != NULL) {
			ret = argp_g.version_cb(NULL, argp_g.config);
			if (ret != DOCA_SUCCESS) {
				ARGP_REPORT_ERR("Version callback failed: %s", doca_error_get_name(ret));
				return ret;
			}
		} else {
			print_version();
		}
		cleanup_and_exit(ps);
		break;
	case ARGP_B_LOG:
	case ARGP_B_SDK_LOG:
		if (!parse_int(value, &level))
			return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Invalid integer value \"%s\" for flag %s",
					 value, shown);
		return argp_set_level(ps, bf->id, level, "");
	case ARGP_B_JSON:
		if (ps->json_path != NULL)
			return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Flag %s given more than once", shown);
		ps->json_path = value;
		break;
	default:
		break;
	}
	return DOCA_SUCCESS;
}

static doca_error_t parse_cli(struct argp_parse *ps, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *tok = argv[i], *name, *eq, *value = NULL;
		const struct argp_builtin_flag *bf = NULL;
		struct doca_argp_param *p = NULL;
		char shown[160];
		size_t nlen, k;
		bool is_long, needs_value;
		doca_error_t ret;
		int pass;

		if (tok == NULL)
			break;
		if (strcmp(tok, "--") == 0) {
			if (argp_g.dpdk_cb == NULL)
				return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Unexpected argument \"--\"");
			ps->dpdk_argc = argc - i;
			ps->dpdk_argv = &argv[i];
			break;
		}
		if (tok[0] != '-' || tok[1] == '\0' || (tok[1] == '-' && tok[2] == '\0')) {
			ret = enter_cmd(ps, tok);
			if (ret != DOCA_SUCCESS)
				return ret;
			continue;
		}
		is_long = tok[1] == '-';
		name = tok + (is_long ? 2 : 1);
		eq = strchr(name, '=');
		nlen = eq != NULL ? (size_t)(eq - name) : strlen(name);

		/* exact form first (-short, --long), then the other one, as getopt_long_only would */
		for (pass = 0; pass < 2 && bf == NULL && p == NULL; pass++) {
			bool want_long = pass == 0 ? is_long : !is_long;

			for (k = 0; k < argp_nbuiltins && bf == NULL; k++)
				if (name_matches(want_long ? argp_builtins[k].long_name : argp_builtins[k].short_name,
						 name, nlen))
					bf = &argp_builtins[k];
			if (bf == NULL)
				p = scope_find(ps, want_long, name, nlen);
		}
		/* DOCA answers an unsupported program flag with NOT_SUPPORTED */
		if (bf == NULL && p == NULL)
			return argp_fail(ps, DOCA_ERROR_NOT_SUPPORTED, "Unknown flag %.*s",
					 (int)(nlen + (is_long ? 2 : 1)), tok);

		if (bf != NULL) {
			argp_flag_name(shown, sizeof(shown), bf->short_name, bf->long_name);
			needs_value = bf->id == ARGP_B_LOG || bf->id == ARGP_B_SDK_LOG || bf->id == ARGP_B_JSON;
		} else {
			argp_flag_name(shown, sizeof(shown), p->short_name, p->long_name);
			needs_value = p->type != DOCA_ARGP_TYPE_BOOLEAN;
		}
		if (needs_value) {
			if (eq != NULL)
				value = eq + 1;
			else if (i + 1 < argc && argv[i + 1] != NULL)
				value = argv[++i];
			else
				return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Missing value for flag %s", shown);
		} else if (eq != NULL) {
			return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Flag %s takes no value", shown);
		}

		if (bf != NULL) {
			ret = run_builtin(ps, bf, shown, value);
			if (ret != DOCA_SUCCESS)
				return ret;
			continue;
		}
		if (!p->multi && argp_count_occ(ps, p) > 0)
			return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Flag %s given more than once", shown);
		ret = handle_value(ps, p, shown, value);
		if (ret != DOCA_SUCCESS)
			return ret;
	}
	return DOCA_SUCCESS;
}

/* Mandatory flags of every command given (and of the program), and singular flags alone. */
static doca_error_t check_presence(struct argp_parse *ps)
{
	char shown[160];
	int d, j, i;

	for (d = 0; d < ps->nchain; d++) {
		const struct doca_argp_cmd *c = ps->chain[d];

		for (j = 0; j < c->nparams; j++) {
			const struct doca_argp_param *p = c->params[j];

			if (p->mandatory && argp_count_occ(ps, p) == 0) {
				argp_flag_name(shown, sizeof(shown), p->short_name, p->long_name);
				return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Missing mandatory flag %s", shown);
			}
		}
	}
	for (i = 0; i < ps->nocc; i++) {
		const struct doca_argp_param *p = ps->occ[i].param;

		if (p->singular && argp_count_occ(ps, p) != ps->nocc) {
			argp_flag_name(shown, sizeof(shown), p->short_name, p->long_name);
			return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Flag %s must be given alone", shown);
		}
	}
	return DOCA_SUCCESS;
}

static doca_error_t run_callbacks(struct argp_parse *ps)
{
	char shown[160];
	doca_error_t ret;
	int i;

	for (i = 1; i < ps->nchain; i++) {
		const struct doca_argp_cmd *c = ps->chain[i];

		if (c->callback == NULL)
			continue;
		ret = c->callback(argp_g.config);
		if (ret != DOCA_SUCCESS)
			return argp_fail(ps, ret, "Failed to handle command %s: %s", c->name,
					 doca_error_get_descr(ret));
	}
	for (i = 0; i < ps->nocc; i++) {
		struct argp_occurrence *o = &ps->occ[i];
		struct doca_argp_param *p = o->param;
		void *arg;

		switch (p->type) {
		case DOCA_ARGP_TYPE_STRING:
			arg = (void *)o->text;
			break;
		case DOCA_ARGP_TYPE_INT:
			arg = &o->ival;
			break;
		case DOCA_ARGP_TYPE_BOOLEAN:
			arg = &o->bval;
			break;
		default:
			arg = o->obj;
			break;
		}
		ret = p->callback(arg, argp_g.config);
		if (ret != DOCA_SUCCESS) {
			argp_flag_name(shown, sizeof(shown), p->short_name, p->long_name);
			return argp_fail(ps, ret, "Failed to handle flag %s: %s", shown, doca_error_get_descr(ret));
		}
	}
	return DOCA_SUCCESS;
}

static doca_error_t run_dpdk(struct argp_parse *ps, char **argv)
{
	char *only_prog[2] = {argv[0], NULL};
	char **dargv = only_prog;
	int dargc = 1;
	doca_error_t ret;

	if (ps->dpdk_argv != NULL) {
		/* hand over "--" rewritten as argv[0] */
		dargv = ps->dpdk_argv;
		dargc = ps->dpdk_argc;
		dargv[0] = argv[0];
	}
	ret = argp_g.dpdk_cb(dargc, dargv);
	if (ret != DOCA_SUCCESS)
		ARGP_REPORT_ERR("DPDK initialization callback failed: %s", doca_error_get_descr(ret));
	return ret;
}

doca_error_t doca_argp_start(int argc, char **argv)
{
	struct argp_parse ps;
	doca_error_t ret;

	if (!argp_g.initialized || argp_g.started)
		return DOCA_ERROR_BAD_STATE;
	if (argc < 1 || argv == NULL || argv[0] == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	argp_g.started = true;
	if (argp_g.prog_name == NULL) {
		const char *slash = strrchr(argv[0], '/');

		argp_g.prog_name = strdup(slash != NULL ? slash + 1 : argv[0]);
		if (argp_g.prog_name == NULL)
			return DOCA_ERROR_NO_MEMORY;
	}
	memset(&ps, 0, sizeof(ps));
	ps.chain = malloc(sizeof(*ps.chain));
	if (ps.chain == NULL)
		return DOCA_ERROR_NO_MEMORY;
	ps.chain[ps.nchain++] = &argp_g.root;
	ret = parse_cli(&ps, argc, argv);
	argp_g.selected = ARGP_CUR_CMD(&ps);
	if (ret == DOCA_SUCCESS && ps.json_path != NULL)
		ret = argp_load_json(&ps);
	if (ret == DOCA_SUCCESS)
		ret = check_presence(&ps);
	if (ret == DOCA_SUCCESS)
		ret = run_callbacks(&ps);
	if (ret == DOCA_SUCCESS && argp_g.dpdk_cb != NULL)
		ret = run_dpdk(&ps, argv);
	if (ret == DOCA_SUCCESS && argp_g.validation_cb != NULL) {
		ret = argp_g.validation_cb(argp_g.config);
		if (ret != DOCA_SUCCESS)
			argp_fail(&ps, ret, "Program validation failed: %s", doca_error_get_descr(ret));
	}
	parse_free(&ps);
	return ret;
}
