/*
 * argp_priv.h - what the files of libdoca_argp share.
 *
 * The parser is process-wide state (argp_g). Flags (params) and commands
 * form a tree: the program itself is the root command, argp_g.root; every
 * param belongs to one command and every command to one parent. Objects
 * are owned by argp from creation (argp_created_*), so doca_argp_destroy()
 * frees whatever was created, registered or not.
 *
 * Files: argp.c (lifecycle, registration, usage, error reporting),
 * param.c and cmd.c (the objects and their setters), parse.c (command line
 * and doca_argp_start), json.c (the -j file).
 *
 * Single-threaded, like the public API.
 */
#ifndef ARGP_PRIV_H_
#define ARGP_PRIV_H_

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include <doca_argp.h>

#include "sd_log.h"

struct doca_argp_param {
	struct doca_argp_param *next_created;
	struct doca_argp_cmd *owner; /* set when registered */
	char *short_name;
	char *long_name;
	char *arguments;
	char *description;
	doca_argp_param_cb_t callback;
	enum doca_argp_type type;
	bool mandatory;
	bool cli_only;
	bool multi;
	bool singular;
	bool inherited;
	bool hidden;
	bool registered;
};

struct doca_argp_cmd {
	struct doca_argp_cmd *next_created;
	struct doca_argp_cmd *parent; /* NULL for the root */
	char *name;
	char *description;
	doca_argp_cmd_cb_t callback;
	bool hidden;
	bool registered;
	struct doca_argp_param **params;
	int nparams;
	struct doca_argp_cmd **cmds;
	int ncmds;
};

enum argp_builtin {
	ARGP_B_NONE,
	ARGP_B_HELP,
	ARGP_B_VERSION,
	ARGP_B_LOG,
	ARGP_B_SDK_LOG,
	ARGP_B_JSON,
};

struct argp_builtin_flag {
	enum argp_builtin id;
	const char *short_name;
	const char *long_name;
	const char *arguments;
	const char *description;
};

extern const struct argp_builtin_flag argp_builtins[];
extern const size_t argp_nbuiltins;

struct argp_state {
	bool initialized;
	bool started;
	char *prog_name;
	void *config;
	struct doca_argp_cmd root; /* the program: its params and commands */
	struct doca_argp_cmd *selected; /* deepest command of the last start (usage) */
	doca_argp_param_cb_t version_cb;
	doca_argp_validation_cb_t validation_cb;
	doca_argp_dpdk_cb_t dpdk_cb;
	doca_argp_logger_cb_t logger_cb;
	int log_level; /* as given by -l / JSON, -1 if not */
	int sdk_log_level;
};

extern struct argp_state argp_g;
extern struct doca_argp_param *argp_created_params;
extern struct doca_argp_cmd *argp_created_cmds;

/* One value to hand to a callback, from argv or the JSON file. */
struct argp_occurrence {
	struct doca_argp_param *param;
	const char *text; /* argv string or JSON string, for STRING */
	int ival;
	bool bval;
	json_object *obj; /* JSON_OBJ value */
	bool obj_owned;
};

struct argp_parse {
	struct argp_occurrence *occ;
	int nocc;
	int cap;
	struct doca_argp_cmd **chain; /* root, then each command given */
	int nchain;
	const char *json_path;
	json_object *json_root;
	int dpdk_argc;
	char **dpdk_argv;
};

/* argp.c */
bool argp_param_live(const struct doca_argp_param *p);
bool argp_cmd_live(const struct doca_argp_cmd *c);
bool argp_same(const char *a, const char *b);
bool argp_name_ok(const char *name);
void argp_flag_name(char *out, size_t len, const char *s, const char *l);
const char *argp_prog_name(void);
void argp_print_usage(FILE *f, const struct doca_argp_cmd *cmd);
void argp_free_all(void);
/* A user-facing event: to the logger callback if one is registered, else the SDK log. */
void argp_report(int line, const char *func, enum doca_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* One error event, then the usage of the current command on stderr; returns err. */
doca_error_t argp_fail_at(int line, const char *func, const struct doca_argp_cmd *cmd, doca_error_t err,
			  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
doca_error_t argp_attach_param(struct doca_argp_cmd *cmd, struct doca_argp_param *p);
doca_error_t argp_attach_cmd(struct doca_argp_cmd *parent, struct doca_argp_cmd *c);
void argp_cmd_free(struct doca_argp_cmd *c);
void argp_param_free(struct doca_argp_param *p);

/* parse.c */
struct argp_occurrence *argp_occ_add(struct argp_parse *ps, struct doca_argp_param *p);
int argp_count_occ(const struct argp_parse *ps, const struct doca_argp_param *p);
doca_error_t argp_set_level(const struct argp_parse *ps, enum argp_builtin b, int level, const char *src);

/* json.c */
doca_error_t argp_load_json(struct argp_parse *ps);

#define ARGP_CUR_CMD(ps) ((ps)->nchain > 0 ? (ps)->chain[(ps)->nchain - 1] : &argp_g.root)
#define argp_fail(ps, err, ...) argp_fail_at(__LINE__, __func__, ARGP_CUR_CMD(ps), (err), __VA_ARGS__)
#define ARGP_REPORT_ERR(...) argp_report(__LINE__, __func__, DOCA_LOG_LEVEL_ERROR, __VA_ARGS__)

#endif /* ARGP_PRIV_H_ */
