#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_log.h>

#include "argp_priv.h"

SD_LOG_REGISTER(ARGP);

#define USAGE_COL 40
#define LEVELS_HELP "<10=DISABLE, 20=CRITICAL, 30=ERROR, 40=WARNING, 50=INFO, 60=DEBUG, 70=TRACE>"

const struct argp_builtin_flag argp_builtins[] = {
	{ARGP_B_HELP, "h", "help", NULL, "Print a help synopsis"},
	{ARGP_B_VERSION, "v", "version", NULL, "Print program version information"},
	{ARGP_B_LOG, "l", "log-level", NULL, "Set the (numeric) log level for the program " LEVELS_HELP},
	{ARGP_B_SDK_LOG, NULL, "sdk-log-level", NULL, "Set the SDK (numeric) log level for the program " LEVELS_HELP},
	{ARGP_B_JSON, "j", "json", "<path>", "Parse all command flags from an input json file"},
};
const size_t argp_nbuiltins = sizeof(argp_builtins) / sizeof(argp_builtins[0]);

struct argp_state argp_g = {.log_level = -1, .sdk_log_level = -1};
struct doca_argp_param *argp_created_params;
struct doca_argp_cmd *argp_created_cmds;

/* ---- small helpers ---- */

bool argp_param_live(const struct doca_argp_param *p)
{
	const struct doca_argp_param *it;

	for (it = argp_created_params; it != NULL; it = it->next_created)
		if (it == p)
			return true;
	return false;
}

bool argp_cmd_live(const struct doca_argp_cmd *c)
{
	const struct doca_argp_cmd *it;

	for (it = argp_created_cmds; it != NULL; it = it->next_created)
		if (it == c)
			return true;
	return false;
}

bool argp_same(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

bool argp_name_ok(const char *name)
{
	const char *c;

	if (name == NULL || *name == '\0' || *name == '-')
		return false;
	for (c = name; *c != '\0'; c++)
		if (*c == '=' || *c == ' ' || *c == '\t')
			return false;
	return true;
}

void argp_flag_name(char *out, size_t len, const char *s, const char *l)
{
	if (s != NULL && l != NULL)
		snprintf(out, len, "-%s/--%s", s, l);
	else if (s != NULL)
		snprintf(out, len, "-%s", s);
	else
		snprintf(out, len, "--%s", l != NULL ? l : "?");
}

const char *argp_prog_name(void)
{
	return argp_g.prog_name != NULL ? argp_g.prog_name : program_invocation_short_name;
}

/* ---- usage ---- */

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

static void print_params(FILE *f, const struct doca_argp_cmd *cmd, bool inherited_only, bool *header)
{
	int k;

	for (k = 0; k < cmd->nparams; k++) {
		const struct doca_argp_param *p = cmd->params[k];

		if (p->hidden || (inherited_only && !p->inherited))
			continue;
		if (!*header) {
			fprintf(f, "\nProgram Flags:\n");
			*header = true;
		}
		print_line(f, p->short_name, p->long_name, p->arguments, p->description, p->mandatory, p->multi);
	}
}

static void print_cmd_path(FILE *f, const struct doca_argp_cmd *cmd)
{
	if (cmd == NULL || cmd->parent == NULL)
		return;
	print_cmd_path(f, cmd->parent);
	fprintf(f, " %s", cmd->name);
}

static bool has_visible_cmds(const struct doca_argp_cmd *cmd)
{
	int k;

	for (k = 0; k < cmd->ncmds; k++)
		if (!cmd->cmds[k]->hidden)
			return true;
	return false;
}

/*
 * The usage of one command: the DOCA flags, its own flags, the inherited
 * flags of its ancestors, then its sub-commands. Hidden ones are left out.
 */
void argp_print_usage(FILE *f, const struct doca_argp_cmd *cmd)
{
	const struct doca_argp_cmd *anc;
	bool header = false;
	size_t i;
	int k;

	if (cmd == NULL)
		cmd = &argp_g.root;
	fprintf(f, "Usage: %s", argp_prog_name());
	print_cmd_path(f, cmd);
	fprintf(f, " [DOCA Flags] [Program Flags]%s\n\nDOCA Flags:\n", has_visible_cmds(cmd) ? " <command>" : "");
	for (i = 0; i < argp_nbuiltins; i++)
		print_line(f, argp_builtins[i].short_name, argp_builtins[i].long_name, argp_builtins[i].arguments,
			   argp_builtins[i].description, false, false);
	print_params(f, cmd, false, &header);
	for (anc = cmd->parent; anc != NULL; anc = anc->parent)
		print_params(f, anc, true, &header);
	if (has_visible_cmds(cmd)) {
		fprintf(f, "\nCommands:\n");
		for (k = 0; k < cmd->ncmds; k++)
			if (!cmd->cmds[k]->hidden)
				fprintf(f, "  %-*s%s%s\n", USAGE_COL, cmd->cmds[k]->name,
					strlen(cmd->cmds[k]->name) >= USAGE_COL ? " " : "",
					cmd->cmds[k]->description != NULL ? cmd->cmds[k]->description : "");
	}
	fflush(f);
}

void doca_argp_usage(void)
{
	argp_print_usage(stdout, argp_g.selected);
}

/* ---- user-facing events ---- */

static void vreport(int line, const char *func, enum doca_log_level level, const char *fmt, va_list ap)
{
	char msg[512];
	va_list ap2;

	if (argp_g.logger_cb != NULL) {
		va_copy(ap2, ap);
		(void)argp_g.logger_cb(level, fmt, ap2);
		va_end(ap2);
		return;
	}
	if (!sd_log_sdk_enabled((uint32_t)level))
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	sd_log_sdk(&sd_log_src_, (uint32_t)level, __FILE__, line, func, "%s", msg);
}

void argp_report(int line, const char *func, enum doca_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(line, func, level, fmt, ap);
	va_end(ap);
}

doca_error_t argp_fail_at(int line, const char *func, const struct doca_argp_cmd *cmd, doca_error_t err,
			  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(line, func, DOCA_LOG_LEVEL_ERROR, fmt, ap);
	va_end(ap);
	argp_print_usage(stderr, cmd);
	return err;
}

doca_error_t doca_argp_register_logger_callback(doca_argp_logger_cb_t callback)
{
	if (callback == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!argp_g.initialized)
		return DOCA_ERROR_BAD_STATE;
	if (argp_g.logger_cb != NULL)
		return DOCA_ERROR_ALREADY_EXIST;
	argp_g.logger_cb = callback;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_disable_logger_callback(void)
{
	if (!argp_g.initialized || argp_g.logger_cb == NULL)
		return DOCA_ERROR_BAD_STATE;
	argp_g.logger_cb = NULL;
	return DOCA_SUCCESS;
}

/* ---- log levels given by the user ---- */

doca_error_t doca_argp_get_log_level(int *log_level)
{
	if (log_level == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*log_level = argp_g.log_level >= 0 ? argp_g.log_level : (int)doca_log_level_get_global_lower_limit();
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_get_sdk_log_level(int *log_level)
{
	if (log_level == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*log_level = argp_g.sdk_log_level >= 0 ? argp_g.sdk_log_level : (int)doca_log_level_get_global_sdk_limit();
	return DOCA_SUCCESS;
}

/* ---- lifecycle ---- */

doca_error_t doca_argp_init(const char *program_name, void *program_config)
{
	if (argp_g.initialized)
		return DOCA_ERROR_BAD_STATE;
	memset(&argp_g, 0, sizeof(argp_g));
	argp_g.log_level = -1;
	argp_g.sdk_log_level = -1;
	if (program_name != NULL) {
		argp_g.prog_name = strdup(program_name);
		if (argp_g.prog_name == NULL)
			return DOCA_ERROR_NO_MEMORY;
	}
	argp_g.config = program_config;
	argp_g.initialized = true;
	return DOCA_SUCCESS;
}

void argp_free_all(void)
{
	struct doca_argp_param *p, *pnext;
	struct doca_argp_cmd *c, *cnext;

	for (p = argp_created_params; p != NULL; p = pnext) {
		pnext = p->next_created;
		argp_param_free(p);
	}
	argp_created_params = NULL;
	for (c = argp_created_cmds; c != NULL; c = cnext) {
		cnext = c->next_created;
		argp_cmd_free(c);
	}
	argp_created_cmds = NULL;
	free(argp_g.root.params);
	free(argp_g.root.cmds);
	free(argp_g.prog_name);
	memset(&argp_g, 0, sizeof(argp_g));
	argp_g.log_level = -1;
	argp_g.sdk_log_level = -1;
}

doca_error_t doca_argp_destroy(void)
{
	if (!argp_g.initialized)
		return DOCA_ERROR_BAD_STATE;
	argp_free_all();
	return DOCA_SUCCESS;
}

/* ---- registration ---- */

static bool builtin_clash(const char *s, const char *l)
{
	size_t i;

	for (i = 0; i < argp_nbuiltins; i++)
		if (argp_same(s, argp_builtins[i].short_name) || argp_same(l, argp_builtins[i].long_name) ||
		    argp_same(s, argp_builtins[i].long_name) || argp_same(l, argp_builtins[i].short_name))
			return true;
	return false;
}

/* Checks p and appends it to cmd's flags. Ownership stays with argp either way. */
doca_error_t argp_attach_param(struct doca_argp_cmd *cmd, struct doca_argp_param *p)
{
	struct doca_argp_param **grown;
	char name[160];
	int i;

	argp_flag_name(name, sizeof(name), p->short_name, p->long_name);
	if (p->registered) {
		SD_LOG_ERR("Param %s is already registered", name);
		return DOCA_ERROR_BAD_STATE;
	}
	if (p->short_name == NULL && p->long_name == NULL) {
		SD_LOG_ERR("Param has neither a short nor a long name");
		return DOCA_ERROR_INITIALIZATION;
	}
	if (p->description == NULL) {
		SD_LOG_ERR("Param %s has no description", name);
		return DOCA_ERROR_INITIALIZATION;
	}
	if (p->callback == NULL) {
		SD_LOG_ERR("Param %s has no callback", name);
		return DOCA_ERROR_INITIALIZATION;
	}
	if (p->type == DOCA_ARGP_TYPE_UNKNOWN) {
		SD_LOG_ERR("Param %s has no type", name);
		return DOCA_ERROR_INITIALIZATION;
	}
	if ((p->short_name != NULL && !argp_name_ok(p->short_name)) ||
	    (p->long_name != NULL && !argp_name_ok(p->long_name))) {
		SD_LOG_ERR("Param %s has an invalid name", name);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (builtin_clash(p->short_name, p->long_name)) {
		SD_LOG_ERR("Param %s uses a name reserved for DOCA flags", name);
		return DOCA_ERROR_INVALID_VALUE;
	}
	for (i = 0; i < cmd->nparams; i++) {
		struct doca_argp_param *o = cmd->params[i];

		if (argp_same(p->short_name, o->short_name) || argp_same(p->long_name, o->long_name) ||
		    argp_same(p->short_name, o->long_name) || argp_same(p->long_name, o->short_name)) {
			SD_LOG_ERR("Param %s clashes with an already registered flag", name);
			return DOCA_ERROR_INVALID_VALUE;
		}
	}
	grown = realloc(cmd->params, sizeof(*grown) * (size_t)(cmd->nparams + 1));
	if (grown == NULL)
		return DOCA_ERROR_NO_MEMORY;
	cmd->params = grown;
	cmd->params[cmd->nparams++] = p;
	/* a flag without a long name has no JSON key */
	if (p->long_name == NULL)
		p->cli_only = true;
	p->owner = cmd;
	p->registered = true;
	return DOCA_SUCCESS;
}

doca_error_t argp_attach_cmd(struct doca_argp_cmd *parent, struct doca_argp_cmd *c)
{
	struct doca_argp_cmd **grown;
	int i;

	if (c->registered || (parent != &argp_g.root && parent->registered)) {
		SD_LOG_ERR("Command %s is already registered", c->name != NULL ? c->name : "?");
		return DOCA_ERROR_BAD_STATE;
	}
	if (c->name == NULL || c->description == NULL) {
		SD_LOG_ERR("Command %s has no %s", c->name != NULL ? c->name : "?",
			   c->name == NULL ? "name" : "description");
		return DOCA_ERROR_INITIALIZATION;
	}
	if (!argp_name_ok(c->name)) {
		SD_LOG_ERR("Command %s has an invalid name", c->name);
		return DOCA_ERROR_INVALID_VALUE;
	}
	for (i = 0; i < parent->ncmds; i++) {
		if (argp_same(parent->cmds[i]->name, c->name)) {
			SD_LOG_ERR("Command %s is registered twice at the same level", c->name);
			return DOCA_ERROR_INVALID_VALUE;
		}
	}
	grown = realloc(parent->cmds, sizeof(*grown) * (size_t)(parent->ncmds + 1));
	if (grown == NULL)
		return DOCA_ERROR_NO_MEMORY;
	parent->cmds = grown;
	parent->cmds[parent->ncmds++] = c;
	c->parent = parent;
	c->registered = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_param(struct doca_argp_param *input_param)
{
	if (input_param == NULL || !argp_param_live(input_param))
		return DOCA_ERROR_INVALID_VALUE;
	if (!argp_g.initialized || argp_g.started)
		return DOCA_ERROR_BAD_STATE;
	return argp_attach_param(&argp_g.root, input_param);
}

doca_error_t doca_argp_register_cmd(struct doca_argp_cmd *input_cmd)
{
	if (input_cmd == NULL || !argp_cmd_live(input_cmd))
		return DOCA_ERROR_INVALID_VALUE;
	if (!argp_g.initialized || argp_g.started)
		return DOCA_ERROR_BAD_STATE;
	return argp_attach_cmd(&argp_g.root, input_cmd);
}

doca_error_t doca_argp_register_version_callback(doca_argp_param_cb_t callback)
{
	if (callback == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!argp_g.initialized || argp_g.started)
		return DOCA_ERROR_BAD_STATE;
	argp_g.version_cb = callback;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback)
{
	if (callback == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!argp_g.initialized || argp_g.started)
		return DOCA_ERROR_BAD_STATE;
	argp_g.validation_cb = callback;
	return DOCA_SUCCESS;
}

void doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback)
{
	if (!argp_g.initialized || argp_g.started) {
		SD_LOG_ERR("Failed to set DPDK program callback: argp not initialized or already started");
		return;
	}
	argp_g.dpdk_cb = callback;
}
