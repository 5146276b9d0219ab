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

/* Largest -j file read (a configuration, not a data set). */
#define ARGP_JSON_MAX_SIZE (1024 * 1024)

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

/* What a non-regular file is, for the error message. */
static const char *json_file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/*
 * Read the whole -j file into a NUL-terminated buffer. The open never
 * blocks (a FIFO without a writer would hang a blocking open), the type is
 * checked on the open descriptor (no race with a rename), and the size is
 * bounded before anything is read, and again while reading (the file may grow).
 */
static doca_error_t read_json_text(struct argp_parse *ps, char **text, size_t *len)
{
	struct stat st;
	size_t done = 0, cap;
	char *buf;
	int fd, fl;

	fd = open(ps->json_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Failed to open JSON file \"%s\": %s", ps->json_path,
				 strerror(errno));
	if (fstat(fd, &st) != 0) {
		int e = errno;

		close(fd);
		return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Failed to inspect JSON file \"%s\": %s", ps->json_path,
				 strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "JSON file \"%s\" is not a regular file (it is %s)",
				 ps->json_path, json_file_kind(st.st_mode));
	}
	if (st.st_size > ARGP_JSON_MAX_SIZE) {
		close(fd);
		return argp_fail(ps, DOCA_ERROR_INVALID_VALUE,
				 "JSON file \"%s\" is %lld bytes, over the limit of 1 MiB (%d bytes)", ps->json_path,
				 (long long)st.st_size, ARGP_JSON_MAX_SIZE);
	}
	/* A regular file never blocks, but reads stay plain blocking ones. */
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	/* Sized by fstat (+1 to see a file that grew); grown, up to just past the
	 * limit, only if it did grow. A buffer of the limit for every file would
	 * cost a megabyte of fresh pages per parse. */
	cap = (size_t)st.st_size + 1;
	buf = malloc(cap + 1);
	if (buf == NULL) {
		close(fd);
		return DOCA_ERROR_NO_MEMORY;
	}
	while (done <= ARGP_JSON_MAX_SIZE) {
		ssize_t n;

		if (done == cap) {
			size_t want = cap * 2 > ARGP_JSON_MAX_SIZE + 1 ? ARGP_JSON_MAX_SIZE + 1 : cap * 2;
			char *bigger = realloc(buf, want + 1);

			if (bigger == NULL) {
				free(buf);
				close(fd);
				return DOCA_ERROR_NO_MEMORY;
			}
			buf = bigger;
			cap = want;
		}
		n = read(fd, buf + done, cap - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(buf);
			close(fd);
			return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Failed to read JSON file \"%s\": %s",
					 ps->json_path, strerror(e));
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	close(fd);
	if (done > ARGP_JSON_MAX_SIZE) {
		free(buf);
		return argp_fail(ps, DOCA_ERROR_INVALID_VALUE,
				 "JSON file \"%s\" grew over the limit of 1 MiB (%d bytes) while being read", ps->json_path,
				 ARGP_JSON_MAX_SIZE);
	}
	buf[done] = '\0';
	*text = buf;
	*len = done;
	return DOCA_SUCCESS;
}

/*
 * Parse exactly one JSON value: json_object_from_fd() stops after the first
 * value and ignores whatever follows, so "{...} garbage" would be accepted.
 * Only white space may follow the value.
 */
static doca_error_t parse_json_text(struct argp_parse *ps, const char *text, size_t len, json_object **out)
{
	enum json_tokener_error jerr;
	struct json_tokener *tok;
	json_object *root;
	size_t end;

	if (len >= INT_MAX)
		return DOCA_ERROR_INVALID_VALUE;
	tok = json_tokener_new();
	if (tok == NULL)
		return DOCA_ERROR_NO_MEMORY;
	/* len + 1: the terminating NUL ends a top-level number or literal, as at end of file */
	root = json_tokener_parse_ex(tok, text, (int)len + 1);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (end > len)
		end = len;
	if (root == NULL) {
		if (jerr == json_tokener_continue || jerr == json_tokener_success)
			return argp_fail(ps, DOCA_ERROR_INVALID_VALUE,
					 "Failed to parse JSON file \"%s\": unexpected end of file at offset %zu",
					 ps->json_path, len);
		return argp_fail(ps, DOCA_ERROR_INVALID_VALUE, "Failed to parse JSON file \"%s\": %s at offset %zu",
				 ps->json_path, json_tokener_error_desc(jerr), end);
	}
	while (end < len && strchr(" \t\r\n", text[end]) != NULL && text[end] != '\0')
		end++;
	if (end < len) {
		json_object_put(root);
		return argp_fail(ps, DOCA_ERROR_INVALID_VALUE,
				 "Failed to parse JSON file \"%s\": unexpected data after the JSON value at offset %zu",
				 ps->json_path, end);
	}
	*out = root;
	return DOCA_SUCCESS;
}

static doca_error_t read_root(struct argp_parse *ps, json_object **general, json_object **prog)
{
	struct json_object_iterator it, end;
	json_object *root = NULL;
	doca_error_t ret;
	size_t len = 0;
	char *text = NULL;

	ret = read_json_text(ps, &text, &len);
	if (ret != DOCA_SUCCESS)
		return ret;
	ret = parse_json_text(ps, text, len, &root);
	free(text);
	if (ret != DOCA_SUCCESS)
		return ret;
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
