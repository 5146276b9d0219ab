#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include <doca_argp.h>
#include <doca_log.h>
#include <doca_version.h>

#include "sd_log.h"

SD_LOG_REGISTER(ARGP);

#define USAGE_COL 40

struct doca_argp_param {
	struct doca_argp_param *next_created; /* every live param, for destroy */
	char *short_name;
	char *long_name;
	char *arguments;
	char *description;
	doca_argp_param_cb_t callback;
	enum doca_argp_type type;
	bool mandatory;
	bool cli_only;
	bool multi;
	bool registered;
};

enum builtin {
	B_NONE,
	B_HELP,
	B_VERSION,
	B_LOG,
	B_SDK_LOG,
	B_JSON,
};

struct builtin_flag {
	enum builtin id;
	const char *short_name;
	const char *long_name;
	const char *arguments;
	const char *description;
};

#define LEVELS_HELP "<10=DISABLE, 20=CRITICAL, 30=ERROR, 40=WARNING, 50=INFO, 60=DEBUG, 70=TRACE>"

static const struct builtin_flag builtins[] = {
	{B_HELP, "h", "help", NULL, "Print a help synopsis"},
	{B_VERSION, "v", "version", NULL, "Print program version information"},
	{B_LOG, "l", "log-level", NULL, "Set the (numeric) log level for the program " LEVELS_HELP},
	{B_SDK_LOG, NULL, "sdk-log-level", NULL, "Set the SDK (numeric) log level for the program " LEVELS_HELP},
	{B_JSON, "j", "json", "<path>", "Parse all command flags from an input json file"},
};

/* One value to hand to a callback, from argv or the JSON file. */
struct occurrence {
	struct doca_argp_param *param;
	const char *text; /* argv string or JSON string, for STRING */
	int ival;
	bool bval;
	json_object *obj; /* JSON_OBJ value */
	bool obj_owned;
};

struct parse {
	struct occurrence *occ;
	int nocc;
	int cap;
	const char *json_path;
	json_object *json_root;
	int dpdk_argc;
	char **dpdk_argv;
};

static struct {
	bool initialized;
	bool started;
	char *prog_name;
	void *config;
	struct doca_argp_param **params;
	int nparams;
	doca_argp_param_cb_t version_cb;
	doca_argp_validation_cb_t validation_cb;
	doca_argp_dpdk_cb_t dpdk_cb;
} g;

static struct doca_argp_param *created;

static bool param_live(const struct doca_argp_param *p)
{
	const struct doca_argp_param *it;

	for (it = created; it != NULL; it = it->next_created)
		if (it == p)
			return true;
	return false;
}

static void param_free(struct doca_argp_param *p)
{
	free(p->short_name);
	free(p->long_name);
	free(p->arguments);
	free(p->description);
	free(p);
}

static void flag_name(char *out, size_t len, const char *s, const char *l)
{
	if (s != NULL && l != NULL)
		snprintf(out, len, "-%s/--%s", s, l);
	else if (s != NULL)
		snprintf(out, len, "-%s", s);
	else
		snprintf(out, len, "--%s", l != NULL ? l : "?");
}

static const char *prog_name(void)
{
	return g.prog_name != NULL ? g.prog_name : program_invocation_short_name;
}

static void print_line(FILE *f, const char *s, const char *l, const char *args, const char *descr, bool mandatory,
		       bool multi)
{
	char text[256];
	int n = 0;

	if (s != NULL)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "-%s%s", s, l != NULL ? ", " : "");
	if (l != NULL && n < (int)sizeof(text))
		n += snprintf(text + n, sizeof(text) - (size_t)n, "--%s", l);
	if (args != NULL && n < (int)sizeof(text))
		n += snprintf(text + n, sizeof(text) - (size_t)n, " %s", args);
	fprintf(f, "  %-*s%s%s%s%s\n", USAGE_COL, text, n >= USAGE_COL ? " " : "", descr != NULL ? descr : "",
		mandatory ? " (mandatory)" : "", multi ? " (may be repeated)" : "");
}

static void print_usage(FILE *f)
{
	size_t i;
	int k;

	fprintf(f, "Usage: %s [DOCA Flags] [Program Flags]\n\nDOCA Flags:\n", prog_name());
	for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		print_line(f, builtins[i].short_name, builtins[i].long_name, builtins[i].arguments,
			   builtins[i].description, false, false);
	if (g.nparams > 0) {
		fprintf(f, "\nProgram Flags:\n");
		for (k = 0; k < g.nparams; k++) {
			struct doca_argp_param *p = g.params[k];

			print_line(f, p->short_name, p->long_name, p->arguments, p->description, p->mandatory,
				   p->multi);
		}
	}
	fflush(f);
}

/* One error line (attributed to the caller), then the usage on stderr. */
static doca_error_t fail_at(int line, const char *func, doca_error_t err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static doca_error_t fail_at(int line, const char *func, doca_error_t err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (sd_log_sdk_enabled(DOCA_LOG_LEVEL_ERROR))
		sd_log_sdk(&sd_log_src_, DOCA_LOG_LEVEL_ERROR, __FILE__, line, func, "%s", msg);
	print_usage(stderr);
	return err;
}

#define fail(err, ...) fail_at(__LINE__, __func__, (err), __VA_ARGS__)

static bool name_ok(const char *name)
{
	const char *c;

	if (name == NULL || *name == '\0' || *name == '-')
		return false;
	for (c = name; *c != '\0'; c++)
		if (*c == '=' || *c == ' ' || *c == '\t')
			return false;
	return true;
}

static bool same(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* ---- param objects ---- */

doca_error_t doca_argp_param_create(struct doca_argp_param **param)
{
	struct doca_argp_param *p;

	if (param == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return DOCA_ERROR_NO_MEMORY;
	p->next_created = created;
	created = p;
	*param = p;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_param_destroy(struct doca_argp_param *param)
{
	struct doca_argp_param **it;

	if (param == NULL || !param_live(param))
		return DOCA_ERROR_INVALID_VALUE;
	if (param->registered)
		return DOCA_ERROR_IN_USE;
	for (it = &created; *it != NULL; it = &(*it)->next_created) {
		if (*it == param) {
			*it = param->next_created;
			break;
		}
	}
	param_free(param);
	return DOCA_SUCCESS;
}

static bool settable(struct doca_argp_param *param, const char *what)
{
	if (param == NULL || !param_live(param)) {
		SD_LOG_ERR("Failed to set %s: invalid param", what);
		return false;
	}
	if (param->registered) {
		SD_LOG_ERR("Failed to set %s: param already registered", what);
		return false;
	}
	return true;
}

static void set_str(struct doca_argp_param *param, char **field, const char *value, const char *what)
{
	char *copy = NULL;

	if (!settable(param, what))
		return;
	if (value != NULL) {
		copy = strdup(value);
		if (copy == NULL) {
			SD_LOG_ERR("Failed to set %s: out of memory", what);
			return;
		}
	}
	free(*field);
	*field = copy;
}

void doca_argp_param_set_short_name(struct doca_argp_param *param, const char *name)
{
	set_str(param, param != NULL && param_live(param) ? &param->short_name : NULL, name, "short name");
}

void doca_argp_param_set_long_name(struct doca_argp_param *param, const char *name)
{
	set_str(param, param != NULL && param_live(param) ? &param->long_name : NULL, name, "long name");
}

void doca_argp_param_set_arguments(struct doca_argp_param *param, const char *arguments)
{
	set_str(param, param != NULL && param_live(param) ? &param->arguments : NULL, arguments, "arguments");
}

void doca_argp_param_set_description(struct doca_argp_param *param, const char *description)
{
	set_str(param, param != NULL && param_live(param) ? &param->description : NULL, description, "description");
}

void doca_argp_param_set_callback(struct doca_argp_param *param, doca_argp_param_cb_t callback)
{
	if (settable(param, "callback"))
		param->callback = callback;
}

void doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type)
{
	if (!settable(param, "type"))
		return;
	if (type <= DOCA_ARGP_TYPE_UNKNOWN || type > DOCA_ARGP_TYPE_JSON_OBJ) {
		SD_LOG_ERR("Failed to set type: unknown type %d", (int)type);
		return;
	}
	param->type = type;
}

void doca_argp_param_set_mandatory(struct doca_argp_param *param)
{
	if (settable(param, "mandatory"))
		param->mandatory = true;
}

void doca_argp_param_set_cli_only(struct doca_argp_param *param)
{
	if (settable(param, "cli only"))
		param->cli_only = true;
}

void doca_argp_param_set_multiplicity(struct doca_argp_param *param)
{
	if (settable(param, "multiplicity"))
		param->multi = true;
}

/* ---- parser lifecycle ---- */

doca_error_t doca_argp_init(const char *program_name, void *program_config)
{
	if (g.initialized)
		return DOCA_ERROR_BAD_STATE;
	memset(&g, 0, sizeof(g));
	if (program_name != NULL) {
		g.prog_name = strdup(program_name);
		if (g.prog_name == NULL)
			return DOCA_ERROR_NO_MEMORY;
	}
	g.config = program_config;
	g.initialized = true;
	return DOCA_SUCCESS;
}

static bool builtin_clash(const char *s, const char *l)
{
	size_t i;

	for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (same(s, builtins[i].short_name) || same(l, builtins[i].long_name) ||
		    same(s, builtins[i].long_name) || same(l, builtins[i].short_name))
			return true;
	return false;
}

doca_error_t doca_argp_register_param(struct doca_argp_param *input_param)
{
	struct doca_argp_param *p = input_param, **grown;
	char name[160];
	int i;

	if (p == NULL || !param_live(p))
		return DOCA_ERROR_INVALID_VALUE;
	if (!g.initialized || g.started)
		return DOCA_ERROR_BAD_STATE;
	flag_name(name, sizeof(name), p->short_name, p->long_name);
	if (p->registered) {
		SD_LOG_ERR("Param %s is already registered", name);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (p->short_name == NULL && p->long_name == NULL) {
		SD_LOG_ERR("Param has neither a short nor a long name");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((p->short_name != NULL && !name_ok(p->short_name)) || (p->long_name != NULL && !name_ok(p->long_name))) {
		SD_LOG_ERR("Param %s has an invalid name", name);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (p->callback == NULL) {
		SD_LOG_ERR("Param %s has no callback", name);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (p->type == DOCA_ARGP_TYPE_UNKNOWN) {
		SD_LOG_ERR("Param %s has no type", name);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (builtin_clash(p->short_name, p->long_name)) {
		SD_LOG_ERR("Param %s uses a name reserved for DOCA flags", name);
		return DOCA_ERROR_INVALID_VALUE;
	}
	for (i = 0; i < g.nparams; i++) {
		struct doca_argp_param *o = g.params[i];

		if (same(p->short_name, o->short_name) || same(p->long_name, o->long_name) ||
		    same(p->short_name, o->long_name) || same(p->long_name, o->short_name)) {
			SD_LOG_ERR("Param %s clashes with an already registered flag", name);
			return DOCA_ERROR_INVALID_VALUE;
		}
	}
	grown = realloc(g.params, sizeof(*grown) * (size_t)(g.nparams + 1));
	if (grown == NULL)
		return DOCA_ERROR_NO_MEMORY;
	g.params = grown;
	g.params[g.nparams++] = p;
	p->registered = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_version_callback(doca_argp_param_cb_t callback)
{
	if (callback == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!g.initialized || g.started)
		return DOCA_ERROR_BAD_STATE;
	g.version_cb = callback;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback)
{
	if (callback == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!g.initialized || g.started)
		return DOCA_ERROR_BAD_STATE;
	g.validation_cb = callback;
	return DOCA_SUCCESS;
}

void doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback)
{
	if (!g.initialized || g.started) {
		SD_LOG_ERR("Failed to set DPDK program callback: argp not initialized or already started");
		return;
	}
	g.dpdk_cb = callback;
}

void doca_argp_usage(void)
{
	print_usage(stdout);
}

static void free_all(void)
{
	struct doca_argp_param *p, *next;

	for (p = created; p != NULL; p = next) {
		next = p->next_created;
		param_free(p);
	}
	created = NULL;
	free(g.params);
	free(g.prog_name);
	memset(&g, 0, sizeof(g));
}

doca_error_t doca_argp_destroy(void)
{
	if (!g.initialized)
		return DOCA_ERROR_BAD_STATE;
	free_all();
	return DOCA_SUCCESS;
}

/* ---- parsing ---- */

static void parse_free(struct parse *ps)
{
	int i;

	for (i = 0; i < ps->nocc; i++)
		if (ps->occ[i].obj_owned)
			json_object_put(ps->occ[i].obj);
	free(ps->occ);
	if (ps->json_root != NULL)
		json_object_put(ps->json_root);
	memset(ps, 0, sizeof(*ps));
}

static struct occurrence *occ_add(struct parse *ps, struct doca_argp_param *p)
{
	struct occurrence *o;

	if (ps->nocc == ps->cap) {
		int cap = ps->cap ? ps->cap * 2 : 8;
		struct occurrence *grown = realloc(ps->occ, sizeof(*grown) * (size_t)cap);

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

static int count_occ(const struct parse *ps, const struct doca_argp_param *p)
{
	int i, n = 0;

	for (i = 0; i < ps->nocc; i++)
		if (ps->occ[i].param == p)
			n++;
	return n;
}

static doca_error_t set_level(enum builtin b, int level, const char *src)
{
	char name[64];

	flag_name(name, sizeof(name), b == B_LOG ? "l" : NULL, b == B_LOG ? "log-level" : "sdk-log-level");
	if (level < DOCA_LOG_LEVEL_DISABLE || level > DOCA_LOG_LEVEL_TRACE)
		return fail(DOCA_ERROR_INVALID_VALUE, "Invalid log level %d for flag %s%s (expected 10..70)", level,
			    name, src);
	if (b == B_LOG)
		return doca_log_level_set_global_lower_limit((uint32_t)level);
	return doca_log_level_set_global_sdk_limit((uint32_t)level);
}

static void cleanup_and_exit(struct parse *ps)
{
	fflush(stdout);
	parse_free(ps);
	free_all();
	exit(EXIT_SUCCESS);
}

static void print_version(void)
{
	printf("%s version %s\n", prog_name(), doca_version_runtime());
	printf("DOCA SDK version (Compilation): %s\n", doca_version());
	printf("DOCA SDK version (Runtime): %s\n", doca_version_runtime());
	printf("softdoca version: %s\n", softdoca_version_runtime());
}

static doca_error_t handle_value(struct parse *ps, struct doca_argp_param *p, const char *name, const char *value)
{
	struct occurrence *o = occ_add(ps, p);

	if (o == NULL)
		return DOCA_ERROR_NO_MEMORY;
	switch (p->type) {
	case DOCA_ARGP_TYPE_STRING:
		o->text = value;
		break;
	case DOCA_ARGP_TYPE_INT:
		if (!parse_int(value, &o->ival))
			return fail(DOCA_ERROR_INVALID_VALUE, "Invalid integer value \"%s\" for flag %s", value, name);
		break;
	case DOCA_ARGP_TYPE_BOOLEAN:
		o->bval = true;
		break;
	case DOCA_ARGP_TYPE_JSON_OBJ:
		o->obj = json_tokener_parse(value);
		if (o->obj == NULL)
			return fail(DOCA_ERROR_INVALID_VALUE, "Invalid JSON value \"%s\" for flag %s", value, name);
		o->obj_owned = true;
		break;
	default:
		return fail(DOCA_ERROR_INVALID_VALUE, "Flag %s has no valid type", name);
	}
	return DOCA_SUCCESS;
}

static doca_error_t parse_cli(struct parse *ps, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *tok = argv[i], *name, *eq, *value = NULL;
		const struct builtin_flag *bf = NULL;
		struct doca_argp_param *p = NULL;
		char shown[160];
		size_t nlen, k;
		bool is_long, needs_value;
		int j, pass;

		if (tok == NULL)
			break;
		if (strcmp(tok, "--") == 0) {
			if (g.dpdk_cb == NULL)
				return fail(DOCA_ERROR_INVALID_VALUE, "Unexpected argument \"--\"");
			ps->dpdk_argc = argc - i;
			ps->dpdk_argv = &argv[i];
			break;
		}
		if (tok[0] != '-' || tok[1] == '\0' || (tok[1] == '-' && tok[2] == '\0'))
			return fail(DOCA_ERROR_INVALID_VALUE, "Unexpected argument \"%s\"", tok);
		is_long = tok[1] == '-';
		name = tok + (is_long ? 2 : 1);
		eq = strchr(name, '=');
		nlen = eq != NULL ? (size_t)(eq - name) : strlen(name);

		/* exact form first (-short, --long), then the other one, as getopt_long_only would */
		for (pass = 0; pass < 2 && bf == NULL && p == NULL; pass++) {
			bool want_long = pass == 0 ? is_long : !is_long;

			for (k = 0; k < sizeof(builtins) / sizeof(builtins[0]) && bf == NULL; k++) {
				const char *cand = want_long ? builtins[k].long_name : builtins[k].short_name;

				if (cand != NULL && strlen(cand) == nlen && strncmp(cand, name, nlen) == 0)
					bf = &builtins[k];
			}
			for (j = 0; j < g.nparams && bf == NULL && p == NULL; j++) {
				const char *cand = want_long ? g.params[j]->long_name : g.params[j]->short_name;

				if (cand != NULL && strlen(cand) == nlen && strncmp(cand, name, nlen) == 0)
					p = g.params[j];
			}
		}
		if (bf == NULL && p == NULL)
			return fail(DOCA_ERROR_INVALID_VALUE, "Unknown flag %.*s", (int)(nlen + (is_long ? 2 : 1)), tok);

		if (bf != NULL) {
			flag_name(shown, sizeof(shown), bf->short_name, bf->long_name);
			needs_value = bf->id == B_LOG || bf->id == B_SDK_LOG || bf->id == B_JSON;
		} else {
			flag_name(shown, sizeof(shown), p->short_name, p->long_name);
			needs_value = p->type != DOCA_ARGP_TYPE_BOOLEAN;
		}
		if (needs_value) {
			if (eq != NULL)
				value = eq + 1;
			else if (i + 1 < argc && argv[i + 1] != NULL)
				value = argv[++i];
			else
				return fail(DOCA_ERROR_INVALID_VALUE, "Missing value for flag %s", shown);
		} else if (eq != NULL) {
			return fail(DOCA_ERROR_INVALID_VALUE, "Flag %s takes no value", shown);
		}

		if (bf != NULL) {
			int level;
			doca_error_t ret;

			switch (bf->id) {
			case B_HELP:
				print_usage(stdout);
				cleanup_and_exit(ps);
				break;
			case B_VERSION:
				if (g.version_cb != NULL) {
					ret = g.version_cb(NULL, g.config);
					if (ret != DOCA_SUCCESS) {
						SD_LOG_ERR("Version callback failed: %s", doca_error_get_name(ret));
						return ret;
					}
				} else {
					print_version();
				}
				cleanup_and_exit(ps);
				break;
			case B_LOG:
			case B_SDK_LOG:
				if (!parse_int(value, &level))
					return fail(DOCA_ERROR_INVALID_VALUE,
						    "Invalid integer value \"%s\" for flag %s", value, shown);
				ret = set_level(bf->id, level, "");
				if (ret != DOCA_SUCCESS)
					return ret;
				break;
			case B_JSON:
				if (ps->json_path != NULL)
					return fail(DOCA_ERROR_INVALID_VALUE, "Flag %s given more than once", shown);
				ps->json_path = value;
				break;
			default:
				break;
			}
			continue;
		}
		if (!p->multi && count_occ(ps, p) > 0)
			return fail(DOCA_ERROR_INVALID_VALUE, "Flag %s given more than once", shown);
		{
			doca_error_t ret = handle_value(ps, p, shown, value);

			if (ret != DOCA_SUCCESS)
				return ret;
		}
	}
	return DOCA_SUCCESS;
}

static const char *json_type_word(enum doca_argp_type t)
{
	switch (t) {
	case DOCA_ARGP_TYPE_STRING:
		return "string";
	case DOCA_ARGP_TYPE_INT:
		return "integer";
	case DOCA_ARGP_TYPE_BOOLEAN:
		return "boolean";
	case DOCA_ARGP_TYPE_JSON_OBJ:
		return "object";
	default:
		return "unknown";
	}
}

static doca_error_t json_general(json_object *general)
{
	struct json_object_iterator it, end;

	if (!json_object_is_type(general, json_type_object))
		return fail(DOCA_ERROR_INVALID_VALUE, "JSON key \"doca_general_flags\" must be an object");
	it = json_object_iter_begin(general);
	end = json_object_iter_end(general);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		const char *key = json_object_iter_peek_name(&it);
		json_object *val = json_object_iter_peek_value(&it);
		enum builtin b;
		int64_t v;
		doca_error_t ret;

		if (strcmp(key, "log-level") == 0)
			b = B_LOG;
		else if (strcmp(key, "sdk-log-level") == 0)
			b = B_SDK_LOG;
		else
			return fail(DOCA_ERROR_INVALID_VALUE, "Unknown flag --%s in JSON file", key);
		if (!json_object_is_type(val, json_type_int))
			return fail(DOCA_ERROR_INVALID_VALUE, "Wrong JSON type for flag --%s: expected integer", key);
		v = json_object_get_int64(val);
		if (v < INT_MIN || v > INT_MAX)
			return fail(DOCA_ERROR_INVALID_VALUE, "Invalid log level for flag --%s in JSON file", key);
		ret = set_level(b, (int)v, " in JSON file");
		if (ret != DOCA_SUCCESS)
			return ret;
	}
	return DOCA_SUCCESS;
}

static doca_error_t json_program(struct parse *ps, json_object *prog, int *njson)
{
	struct json_object_iterator it, end;

	if (!json_object_is_type(prog, json_type_object))
		return fail(DOCA_ERROR_INVALID_VALUE, "JSON key \"doca_program_flags\" must be an object");
	it = json_object_iter_begin(prog);
	end = json_object_iter_end(prog);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		const char *key = json_object_iter_peek_name(&it);
		json_object *val = json_object_iter_peek_value(&it);
		struct doca_argp_param *p = NULL;
		struct occurrence *o;
		char shown[160];
		bool ok;
		int j;

		for (j = 0; j < g.nparams && p == NULL; j++)
			if (same(g.params[j]->long_name, key))
				p = g.params[j];
		if (p == NULL)
			return fail(DOCA_ERROR_INVALID_VALUE, "Unknown flag --%s in JSON file", key);
		flag_name(shown, sizeof(shown), p->short_name, p->long_name);
		if (p->cli_only)
			return fail(DOCA_ERROR_INVALID_VALUE, "Flag %s may only be given on the command line", shown);
		switch (p->type) {
		case DOCA_ARGP_TYPE_STRING:
			ok = json_object_is_type(val, json_type_string);
			break;
		case DOCA_ARGP_TYPE_INT:
			ok = json_object_is_type(val, json_type_int) && json_object_get_int64(val) >= INT_MIN &&
			     json_object_get_int64(val) <= INT_MAX;
			break;
		case DOCA_ARGP_TYPE_BOOLEAN:
			ok = json_object_is_type(val, json_type_boolean);
			break;
		case DOCA_ARGP_TYPE_JSON_OBJ:
			ok = val != NULL && (json_object_is_type(val, json_type_object) ||
					     json_object_is_type(val, json_type_array));
			break;
		default:
			ok = false;
		}
		if (!ok)
			return fail(DOCA_ERROR_INVALID_VALUE, "Wrong JSON type for flag %s: expected %s", shown,
				    json_type_word(p->type));
		o = occ_add(ps, p);
		if (o == NULL)
			return DOCA_ERROR_NO_MEMORY;
		o->text = json_object_get_string(val);
		o->ival = json_object_get_int(val);
		o->bval = json_object_get_boolean(val);
		o->obj = val;
		(*njson)++;
	}
	return DOCA_SUCCESS;
}

static doca_error_t load_json(struct parse *ps)
{
	json_object *root, *general = NULL, *prog = NULL;
	struct occurrence *cli_occ;
	int ncli, njson = 0, i;
	doca_error_t ret;
	struct stat st;
	int fd;

	fd = open(ps->json_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return fail(DOCA_ERROR_INVALID_VALUE, "Failed to open JSON file \"%s\": %s", ps->json_path,
			    strerror(errno));
	/* a FIFO, a tty or /dev/zero would block or never end */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return fail(DOCA_ERROR_INVALID_VALUE, "JSON file \"%s\" is not a regular file", ps->json_path);
	}
	root = json_object_from_fd(fd);
	close(fd);
	if (root == NULL)
		return fail(DOCA_ERROR_INVALID_VALUE, "Failed to parse JSON file \"%s\": %s", ps->json_path,
			    json_util_get_last_err() != NULL ? json_util_get_last_err() : "invalid JSON");
	ps->json_root = root;
	if (!json_object_is_type(root, json_type_object))
		return fail(DOCA_ERROR_INVALID_VALUE, "JSON file \"%s\" must hold an object", ps->json_path);
	{
		struct json_object_iterator it = json_object_iter_begin(root), end = json_object_iter_end(root);

		for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
			const char *key = json_object_iter_peek_name(&it);

			if (strcmp(key, "doca_general_flags") == 0)
				general = json_object_iter_peek_value(&it);
			else if (strcmp(key, "doca_program_flags") == 0)
				prog = json_object_iter_peek_value(&it);
			else
				return fail(DOCA_ERROR_INVALID_VALUE, "Unknown key \"%s\" in JSON file \"%s\"", key,
					    ps->json_path);
		}
	}
	if (general != NULL) {
		ret = json_general(general);
		if (ret != DOCA_SUCCESS)
			return ret;
	}
	if (prog == NULL)
		return DOCA_SUCCESS;
	/* JSON values go first so command-line values override them */
	ncli = ps->nocc;
	ret = json_program(ps, prog, &njson);
	if (ret != DOCA_SUCCESS)
		return ret;
	if (ncli > 0 && njson > 0) {
		cli_occ = malloc(sizeof(*cli_occ) * (size_t)ncli);
		if (cli_occ == NULL)
			return DOCA_ERROR_NO_MEMORY;
		memcpy(cli_occ, ps->occ, sizeof(*cli_occ) * (size_t)ncli);
		memmove(ps->occ, ps->occ + ncli, sizeof(*cli_occ) * (size_t)njson);
		for (i = 0; i < ncli; i++)
			ps->occ[njson + i] = cli_occ[i];
		free(cli_occ);
	}
	return DOCA_SUCCESS;
}

static doca_error_t run_callbacks(struct parse *ps)
{
	int i;

	for (i = 0; i < ps->nocc; i++) {
		struct occurrence *o = &ps->occ[i];
		struct doca_argp_param *p = o->param;
		char shown[160];
		doca_error_t ret;
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
		ret = p->callback(arg, g.config);
		if (ret != DOCA_SUCCESS) {
			flag_name(shown, sizeof(shown), p->short_name, p->long_name);
			return fail(ret, "Failed to handle flag %s: %s", shown, doca_error_get_descr(ret));
		}
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_start(int argc, char **argv)
{
	struct parse ps;
	doca_error_t ret;
	int i;

	if (!g.initialized || g.started)
		return DOCA_ERROR_BAD_STATE;
	if (argc < 1 || argv == NULL || argv[0] == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	g.started = true;
	if (g.prog_name == NULL) {
		const char *slash = strrchr(argv[0], '/');

		g.prog_name = strdup(slash != NULL ? slash + 1 : argv[0]);
		if (g.prog_name == NULL)
			return DOCA_ERROR_NO_MEMORY;
	}
	memset(&ps, 0, sizeof(ps));
	ret = parse_cli(&ps, argc, argv);
	if (ret == DOCA_SUCCESS && ps.json_path != NULL)
		ret = load_json(&ps);
	for (i = 0; ret == DOCA_SUCCESS && i < g.nparams; i++) {
		if (g.params[i]->mandatory && count_occ(&ps, g.params[i]) == 0) {
			char shown[160];

			flag_name(shown, sizeof(shown), g.params[i]->short_name, g.params[i]->long_name);
			ret = fail(DOCA_ERROR_INVALID_VALUE, "Missing mandatory flag %s", shown);
		}
	}
	if (ret == DOCA_SUCCESS)
		ret = run_callbacks(&ps);
	if (ret == DOCA_SUCCESS && g.dpdk_cb != NULL) {
		char *only_prog[2] = {argv[0], NULL};
		char **dargv = only_prog;
		int dargc = 1;

		if (ps.dpdk_argv != NULL) {
			/* hand over "--" rewritten as argv[0] */
			dargv = ps.dpdk_argv;
			dargc = ps.dpdk_argc;
			dargv[0] = argv[0];
		}
		ret = g.dpdk_cb(dargc, dargv);
		if (ret != DOCA_SUCCESS)
			SD_LOG_ERR("DPDK initialization callback failed: %s", doca_error_get_descr(ret));
	}
	if (ret == DOCA_SUCCESS && g.validation_cb != NULL) {
		ret = g.validation_cb(g.config);
		if (ret != DOCA_SUCCESS)
			fail(ret, "Program validation failed: %s", doca_error_get_descr(ret));
	}
	parse_free(&ps);
	return ret;
}
