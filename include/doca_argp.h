/*
 * doca_argp.h - DOCA Arg Parser: program flags from the command line or a
 * JSON file, with the standard DOCA flags, usage and version output.
 *
 * Model
 *   A program describes each flag with a doca_argp_param (short name, long
 *   name, type, callback, ...) and registers it. doca_argp_start() parses
 *   argv, calls each flag's callback with the parsed value and the program's
 *   config pointer (given to doca_argp_init), then the validation callback.
 *   Callback value types: STRING -> char *, INT -> int *, BOOLEAN -> bool *,
 *   JSON_OBJ -> json_object * (json-c); the value is valid during the call only.
 *
 * Call order
 *   doca_argp_init(NULL or name, &config)
 *   doca_argp_param_create / _set_* / doca_argp_register_param   (per flag)
 *   doca_argp_register_version_callback / _validation_callback  (optional)
 *   doca_argp_start(argc, argv)
 *   ... program ...
 *   doca_argp_destroy()
 *   A NULL program name is taken from basename(argv[0]) at doca_argp_start.
 *   Registering after start, or starting twice, is BAD_STATE.
 *
 * Command line
 *   Short names may have several letters (-nt); long names use --num-tasks.
 *   Like getopt_long_only, a name given with the other prefix is also
 *   accepted (-num-tasks, --nt) when nothing matches exactly.
 *   Values follow as the next argument ("-p 03:00.0") or as --long=value /
 *   -s=value. BOOLEAN flags take no value. INT must be a whole base-10
 *   number in the range of int. A flag not marked multi may appear once.
 *   DOCA flags: -h/--help, -v/--version, -l/--log-level <10..70>,
 *   --sdk-log-level <10..70>, -j/--json <path>. These names are reserved.
 *
 * JSON file (-j)
 *   { "doca_general_flags": { "log-level": 60, "sdk-log-level": 40 },
 *     "doca_program_flags": { "pci-addr": "03:00.0", "num-tasks": 4 } }
 *   Keys are long names; JSON types must match (string, int, boolean, any
 *   object for JSON_OBJ). JSON values are applied before command-line ones,
 *   so the command line wins. CLI-only params are rejected in JSON.
 *
 * Errors (softdoca never exits on an error)
 *   Unknown flag, missing value, repeated flag, bad integer, missing
 *   mandatory flag, unreadable/malformed JSON, wrong JSON type: one error
 *   line through the SDK log, then the usage text on stderr, and
 *   doca_argp_start returns DOCA_ERROR_INVALID_VALUE. A callback's (or the
 *   validation callback's) own error is logged and returned as is.
 *   -h prints the usage on stdout and exits 0; -v calls the version callback
 *   (or prints the DOCA and softdoca versions) and exits 0.
 *
 * Threading
 *   Process-wide, single instance: call from one thread (normally main).
 */
#ifndef DOCA_ARGP_H_
#define DOCA_ARGP_H_

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

enum doca_argp_type {
	DOCA_ARGP_TYPE_UNKNOWN = 0,
	DOCA_ARGP_TYPE_STRING,
	DOCA_ARGP_TYPE_INT,
	DOCA_ARGP_TYPE_BOOLEAN,
	DOCA_ARGP_TYPE_JSON_OBJ,
};

struct doca_argp_param;

/* Flag callback: param points to the parsed value, config is the program config. */
typedef doca_error_t (*doca_argp_param_cb_t)(void *param, void *config);
/* Called once after all flags were handled. */
typedef doca_error_t (*doca_argp_validation_cb_t)(void *config);
/* DPDK programs: receives the arguments after "--" (argv[0] first). */
typedef doca_error_t (*doca_argp_dpdk_cb_t)(int argc, char **argv);

DOCA_STABLE doca_error_t doca_argp_init(const char *program_name, void *program_config);
DOCA_STABLE doca_error_t doca_argp_register_param(struct doca_argp_param *input_param);
DOCA_STABLE doca_error_t doca_argp_register_version_callback(doca_argp_param_cb_t callback);
DOCA_STABLE doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback);
DOCA_STABLE doca_error_t doca_argp_start(int argc, char **argv);
/* Frees every registered param and the parser state; init may be called again. */
DOCA_STABLE doca_error_t doca_argp_destroy(void);
/* Arguments after "--" go to callback instead of being rejected. */
DOCA_STABLE void doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback);
/* Print the usage text on stdout (softdoca does not exit here). */
DOCA_STABLE void doca_argp_usage(void);

/* Params: create, describe, then register (argp owns it) or destroy. */
DOCA_STABLE doca_error_t doca_argp_param_create(struct doca_argp_param **param);
/* Only for params never registered. */
DOCA_STABLE doca_error_t doca_argp_param_destroy(struct doca_argp_param *param);
/* Setters copy the strings. A NULL param is logged and ignored. */
DOCA_STABLE void doca_argp_param_set_short_name(struct doca_argp_param *param, const char *name);
DOCA_STABLE void doca_argp_param_set_long_name(struct doca_argp_param *param, const char *name);
DOCA_STABLE void doca_argp_param_set_arguments(struct doca_argp_param *param, const char *arguments);
DOCA_STABLE void doca_argp_param_set_description(struct doca_argp_param *param, const char *description);
DOCA_STABLE void doca_argp_param_set_callback(struct doca_argp_param *param, doca_argp_param_cb_t callback);
DOCA_STABLE void doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type);
DOCA_STABLE void doca_argp_param_set_mandatory(struct doca_argp_param *param);
DOCA_STABLE void doca_argp_param_set_cli_only(struct doca_argp_param *param);
DOCA_STABLE void doca_argp_param_set_multiplicity(struct doca_argp_param *param);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_ARGP_H_ */
