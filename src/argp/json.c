/*
 * The -j file: { "doca_general_flags": {...}, "doca_program_flags": {...} }.
 * Program keys are long names of the flags in scope after the command line
 * (the commands given there select the scope; JSON cannot select one).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doca_argp.h>
#include <doca_log.h>

#include "argp_priv.h"

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

static doca_error_t json_general(struct argp_parse *ps, json_object *general)
{
	struct json_object_iterator it, end;

	if (!json_object_is_type(general, json_type_object))
		return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "JSON key \"doca_general_flags\" must be an object");
	it = json_object_iter_begin(general);
	end = json_object_iter_end(general);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		const char *key = json_object_iter_peek_name(&it);
		json_object *val = json_object_iter_peek_value(&it);
		enum argp_builtin b;
		int64_t v;
		doca_error_t ret;

		if (strcmp(key, "log-level") == 0)
			b = ARGP_B_LOG;
		else if (strcmp(key, "sdk-log-level") == 0)
			b = ARGP_B_SDK_LOG;
		else
			return argp_fail(ps, DOCA_ERROR_NOT_SUPPORTED, "Unknown flag --%s in JSON file", key);
		if (!json_object_is_type(val, json_type_int))
			return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Wrong JSON type for flag --%s: expected integer",
					 key);
		v = json_object_get_int64(val);
		if (v < INT_MIN || v > INT_MAX)
			return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Invalid log level for flag --%s in JSON file",
					 key);
		ret = argp_set_level(ps, b, (int)v, " in JSON file");
		if (ret != DOCA_SUCCESS)
			return ret;
	}
	return DOCA_SUCCESS;
}

/* The deepest command's flags first, then every flag of the commands above it. */
static struct doca_argp_param *json_find(const struct argp_parse *ps, const char *key)
{
	int d, j;

	for (d = ps->nchain - 1; d >= 0; d--)
		for (j = 0; j < ps->chain[d]->nparams; j++)
			if (argp_same(ps->chain[d]->params[j]->long_name, key))
				return ps->chain[d]->params[j];
	return NULL;
}

static doca_error_t json_program(struct argp_parse *ps, json_object *prog, int *njson)
{
	struct json_object_iterator it, end;

	if (!json_object_is_type(prog, json_type_object))
		return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "JSON key \"doca_program_flags\" must be an object");
	it = json_object_iter_begin(prog);
	end = json_object_iter_end(prog);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		const char *key = json_object_iter_peek_name(&it);
		json_object *val = json_object_iter_peek_value(&it);
		struct doca_argp_param *p = json_find(ps, key);
		struct argp_occurrence *o;
		char shown[160];
		bool ok;

		if (p == NULL)
			return argp_fail(ps, DOCA_ERROR_NOT_SUPPORTED, "Unknown flag --%s in JSON file", key);
		argp_flag_name(shown, sizeof(shown), p->short_name, p->long_name);
		if (p->cli_only)
			return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Flag %s may only be given on the command line",
					 shown);
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
			return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Wrong JSON type for flag %s: expected %s", shown,
					 json_type_word(p->type));
		o = argp_occ_add(ps, p);
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

static doca_error_t read_root(struct argp_parse *ps, json_object **general, json_object **prog)
{
	struct json_object_iterator it, end;
	json_object *root;
	struct stat st;
	int fd;

	fd = open(ps->json_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Failed to open JSON file \"%s\": %s", ps->json_path,
				 strerror(errno));
	/* a FIFO, a tty or /dev/zero would block or never end */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "JSON file \"%s\" is not a regular file", ps->json_path);
	}
	root = json_object_from_fd(fd);
	close(fd);
	if (root == NULL)
		return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Failed to parse JSON file \"%s\": %s", ps->json_path,
				 json_util_get_last_err() != NULL ? json_util_get_last_err() : "invalid JSON");
	ps->json_root = root;
	if (!json_object_is_type(root, json_type_object))
		return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "JSON file \"%s\" must hold an object", ps->json_path);
	it = json_object_iter_begin(root);
	end = json_object_iter_end(root);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		const char *key = json_object_iter_peek_name(&it);

		if (strcmp(key, "doca_general_flags") == 0)
			*general = json_object_iter_peek_value(&it);
		else if (strcmp(key, "doca_program_flags") == 0)
			*prog = json_object_iter_peek_value(&it);
		else
			return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Unknown key \"%s\" in JSON file \"%s\"", key,
					 ps->json_path);
	}
	return DOCA_SUCCESS;
}

doca_error_t argp_load_json(struct argp_parse *ps)
{
	json_object *general = NULL, *prog = NULL;
	struct argp_occurrence *cli_occ;
	int ncli, njson = 0, i;
	doca_error_t ret;

	ret = read_root(ps, &general, &prog);
	if (ret != DOCA_SUCCESS)
		return ret;
	if (general != NULL) {
		ret = json_general(ps, general);
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
