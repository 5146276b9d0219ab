/*
 * doca_argp.h - DOCA Arg Parser: program flags and commands from the command
 * line or a JSON file, with the standard DOCA flags, usage and version output.
 *
 * Model
 *   A program describes each flag with a doca_argp_param (short name, long
 *   name, type, callback, ...) and registers it. doca_argp_start() parses
 *   argv, calls each flag's callback with the parsed value and the program's
 *   config pointer (given to doca_argp_init), then the validation callback.
 *   Callback value types: STRING -> char *, INT -> int *, BOOLEAN -> bool *,
 *   JSON_OBJ -> json_object * (json-c); the value is valid during the call only.
 *
 * Commands
 *   A program may also have commands ("prog get -d 03:00.0"), each with its
 *   own flags and sub-commands, described with a doca_argp_cmd. A word on
 *   the command line that names a command of the current one enters it;
 *   from there on only that command's flags are known, plus the flags of the
 *   commands above it that were marked inherited (the DOCA flags are known
 *   everywhere). Each command given has its callback called with the config
 *   pointer, in order, before any flag callback. -h prints the usage of the
 *   command entered so far; doca_argp_usage() after start, that of the
 *   deepest command given. Fill a command in (flags, sub-commands) before
 *   registering it: a registered command is frozen.
 *
 * Flag properties
 *   mandatory: must be given (for a command's flag: when that command is).
 *   multiplicity: may be given more than once (once otherwise).
 *   singular: must be given alone, with no other program flag.
 *   inherited: also known inside the sub-commands of its command.
 *   hidden: accepted, but left out of the usage text (hidden commands too).
 *   cli_only: not accepted in the JSON file (so is a flag without long name).
 *
 * Call order
 *   doca_argp_init(NULL or name, &config)
 *   doca_argp_param_create / _set_* / doca_argp_register_param   (per flag)
 *   doca_argp_cmd_create / _set_* / doca_argp_cmd_register_param /
 *     doca_argp_cmd_register_cmd / doca_argp_register_cmd       (optional)
 *   doca_argp_register_version_callback / _validation_callback /
 *     _logger_callback                                          (optional)
 *   doca_argp_start(argc, argv)
 *   ... program ...
 *   doca_argp_destroy()
 *   Creating params or commands before init is BAD_STATE. Registering hands
 *   the object to argp, which frees it at doca_argp_destroy whether the
 *   registration succeeded or not; destroying a registered one is BAD_STATE.
 *   A param without name, description, callback or type (a command without
 *   name or description) is refused with DOCA_ERROR_INITIALIZATION.
 *   A NULL program name is taken from basename(argv[0]) at doca_argp_start.
 *   Registering after start, or starting twice, is BAD_STATE.
 *
 * Command line
 *   Short names may have several letters (-nt); long names use --num-tasks.
 *   Like getopt_long_only, a name given with the other prefix is also
 *   accepted (-num-tasks, --nt) when nothing matches exactly.
 *   Values follow as the next argument ("-p 03:00.0") or as --long=value /
 *   -s=value. BOOLEAN flags take no value. INT must be a whole base-10
 *   number in the range of int.
 *   DOCA flags: -h/--help, -v/--version, -l/--log-level <10..70>,
 *   --sdk-log-level <10..70>, -j/--json <path>. These names are reserved.
 *   doca_argp_get_log_level / _get_sdk_log_level give the level set by -l /
 *   --sdk-log-level (or the JSON file), else the current global level.
 *
 * JSON file (-j)
 *   { "doca_general_flags": { "log-level": 60, "sdk-log-level": 40 },
 *     "doca_program_flags": { "pci-addr": "03:00.0", "num-tasks": 4 } }
 *   Keys are long names of the flags of the program and of the commands
 *   given on the command line (commands cannot be chosen in the file); JSON
 *   types must match (string, int, boolean, any object for JSON_OBJ). JSON
 *   values are applied before command-line ones, so the command line wins.
 *
 * Errors (softdoca never exits on an error)
 *   A flag the program did not register (on the command line or as a key
 *   of the JSON file's flag objects): one error event, the usage text on
 *   stderr, and doca_argp_start returns DOCA_ERROR_NOT_SUPPORTED, as DOCA
 *   documents for an unsupported program flag. Unknown command or stray
 *   argument, missing value, repeated flag, bad integer, missing mandatory
 *   flag, singular flag not alone, unreadable/malformed JSON, wrong JSON
 *   type: the same, with DOCA_ERROR_INVALID_VALUE. A callback's (or the
 *   validation callback's) own error is reported and returned as is.
 *   Error events go through the SDK log, or to the logger callback while
 *   one is registered (doca_argp_register_logger_callback).
 *   -h prints the usage on stdout and exits 0; -v calls the version callback
 *   (or prints the DOCA and softdoca versions) and exits 0.
 *
 * Threading
 *   Process-wide, single instance: call from one thread (normally main).
 */
#ifndef DOCA_ARGP_H_
#define DOCA_ARGP_H_

#include <stdarg.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_dev.h>
#include <doca_log.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Flag callback: the parsed value (see above) and the program config. */
typedef doca_error_t (*doca_argp_param_cb_t)(void *, void *);
/* Command callback: the program config. */
typedef doca_error_t (*doca_argp_cmd_cb_t)(void *);
/* DPDK programs: receives the arguments after "--" (argv[0] first). */
typedef doca_error_t (*doca_argp_dpdk_cb_t)(int argc, char **argv);
/* Called once after all flags were handled, with the program config. */
typedef doca_error_t (*doca_argp_validation_cb_t)(void *);
/* Receives argp's user-facing messages (vprintf-style) instead of the SDK log. */
typedef doca_error_t (*doca_argp_logger_cb_t)(enum doca_log_level level, const char *format, va_list args);

enum doca_argp_type {
	DOCA_ARGP_TYPE_UNKNOWN = 0,
	DOCA_ARGP_TYPE_STRING,
	DOCA_ARGP_TYPE_INT,
	DOCA_ARGP_TYPE_BOOLEAN,
	DOCA_ARGP_TYPE_JSON_OBJ, /* JSON file only */
};

struct doca_argp_param;
struct doca_argp_cmd;

/* Print the usage text on stdout (softdoca does not exit here). */
DOCA_EXPERIMENTAL
void doca_argp_usage(void);

DOCA_EXPERIMENTAL
doca_error_t doca_argp_init(const char *program_name, void *program_config);
DOCA_EXPERIMENTAL
doca_error_t doca_argp_register_param(struct doca_argp_param *input_param);
DOCA_EXPERIMENTAL
doca_error_t doca_argp_register_cmd(struct doca_argp_cmd *input_cmd);
DOCA_EXPERIMENTAL
doca_error_t doca_argp_register_version_callback(doca_argp_param_cb_t callback);
DOCA_EXPERIMENTAL
doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback);
/* ALREADY_EXIST if one is registered already. */
DOCA_EXPERIMENTAL
doca_error_t doca_argp_register_logger_callback(doca_argp_logger_cb_t callback);
/* Back to the SDK log; BAD_STATE if no callback is registered. */
DOCA_EXPERIMENTAL
doca_error_t doca_argp_disable_logger_callback(void);
DOCA_EXPERIMENTAL
doca_error_t doca_argp_start(int argc, char **argv);
/* Frees every param and command and the parser state; init may be called again. */
DOCA_EXPERIMENTAL
doca_error_t doca_argp_destroy(void);
/* Arguments after "--" go to callback instead of being rejected. */
DOCA_EXPERIMENTAL
void doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback);

/* Params: create, describe, then register (argp owns it) or destroy. */
DOCA_EXPERIMENTAL
doca_error_t doca_argp_param_create(struct doca_argp_param **param);
/* Setters copy the strings. A NULL or registered param is logged and ignored. */
DOCA_EXPERIMENTAL
void doca_argp_param_set_short_name(struct doca_argp_param *param, const char *name);
DOCA_EXPERIMENTAL
void doca_argp_param_set_long_name(struct doca_argp_param *param, const char *name);
DOCA_EXPERIMENTAL
void doca_argp_param_set_arguments(struct doca_argp_param *param, const char *arguments);
DOCA_EXPERIMENTAL
void doca_argp_param_set_description(struct doca_argp_param *param, const char *description);
DOCA_EXPERIMENTAL
void doca_argp_param_set_callback(struct doca_argp_param *param, doca_argp_param_cb_t callback);
DOCA_EXPERIMENTAL
void doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type);
DOCA_EXPERIMENTAL
void doca_argp_param_set_mandatory(struct doca_argp_param *param);
DOCA_EXPERIMENTAL
void doca_argp_param_set_cli_only(struct doca_argp_param *param);
DOCA_EXPERIMENTAL
void doca_argp_param_set_multiplicity(struct doca_argp_param *param);
DOCA_EXPERIMENTAL
void doca_argp_param_set_singular(struct doca_argp_param *param);
DOCA_EXPERIMENTAL
void doca_argp_param_set_inherited(struct doca_argp_param *param);
DOCA_EXPERIMENTAL
void doca_argp_param_set_hidden(struct doca_argp_param *param);
/* Only for params never registered (BAD_STATE otherwise). */
DOCA_EXPERIMENTAL
doca_error_t doca_argp_param_destroy(struct doca_argp_param *param);

/* Commands: create, describe, fill in, then register (argp owns it) or destroy. */
DOCA_EXPERIMENTAL
doca_error_t doca_argp_cmd_create(struct doca_argp_cmd **cmd);
/* Setters copy the strings. A NULL or registered command is logged and ignored. */
DOCA_EXPERIMENTAL
void doca_argp_cmd_set_name(struct doca_argp_cmd *cmd, const char *name);
DOCA_EXPERIMENTAL
void doca_argp_cmd_set_description(struct doca_argp_cmd *cmd, const char *description);
DOCA_EXPERIMENTAL
void doca_argp_cmd_set_callback(struct doca_argp_cmd *cmd, doca_argp_cmd_cb_t callback);
DOCA_EXPERIMENTAL
void doca_argp_cmd_set_hidden(struct doca_argp_cmd *cmd);
/* Into a command not yet registered (BAD_STATE otherwise). */
DOCA_EXPERIMENTAL
doca_error_t doca_argp_cmd_register_param(struct doca_argp_cmd *cmd, struct doca_argp_param *input_param);
DOCA_EXPERIMENTAL
doca_error_t doca_argp_cmd_register_cmd(struct doca_argp_cmd *cmd, struct doca_argp_cmd *input_cmd);
/* Only for commands never registered; takes what was registered into it along. */
DOCA_EXPERIMENTAL
doca_error_t doca_argp_cmd_destroy(struct doca_argp_cmd *cmd);

DOCA_EXPERIMENTAL
doca_error_t doca_argp_get_log_level(int *log_level);
DOCA_EXPERIMENTAL
doca_error_t doca_argp_get_sdk_log_level(int *log_level);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_ARGP_H_ */
