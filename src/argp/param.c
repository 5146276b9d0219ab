/*
 * Flag objects. Setters follow DOCA: they return nothing, so a bad call is
 * logged and ignored; a registered param is frozen.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>

#include "argp_priv.h"

SD_LOG_REGISTER(ARGP);

void argp_param_free(struct doca_argp_param *p)
{
	free(p->short_name);
	free(p->long_name);
	free(p->arguments);
	free(p->description);
	free(p);
}

doca_error_t doca_argp_param_create(struct doca_argp_param **param)
{
	struct doca_argp_param *p;

	if (param == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!argp_g.initialized)
		return DOCA_ERROR_BAD_STATE;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return DOCA_ERROR_NO_MEMORY;
	p->next_created = argp_created_params;
	argp_created_params = p;
	*param = p;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_param_destroy(struct doca_argp_param *param)
{
	struct doca_argp_param **it;

	if (param == NULL || !argp_param_live(param))
		return DOCA_ERROR_INVALID_VALUE;
	if (param->registered)
		return DOCA_ERROR_BAD_STATE;
	for (it = &argp_created_params; *it != NULL; it = &(*it)->next_created) {
		if (*it == param) {
			*it = param->next_created;
			break;
		}
	}
	argp_param_free(param);
	return DOCA_SUCCESS;
}

static bool settable(struct doca_argp_param *param, const char *what)
{
	if (param == NULL || !argp_param_live(param)) {
		SD_LOG_ERR("Failed to set %s: invalid param", what);
		return false;
	}
	if (param->registered) {
		SD_LOG_ERR("Failed to set %s: param already registered", what);
		return false;
	}
	return true;
}

static void set_str(struct doca_argp_param *param, size_t field, const char *value, const char *what)
{
	char *copy = NULL, **dst;

	if (!settable(param, what))
		return;
	dst = (char **)((char *)param + field);
	if (value != NULL) {
		copy = strdup(value);
		if (copy == NULL) {
			SD_LOG_ERR("Failed to set %s: out of memory", what);
			return;
		}
	}
	free(*dst);
	*dst = copy;
}

void doca_argp_param_set_short_name(struct doca_argp_param *param, const char *name)
{
	set_str(param, offsetof(struct doca_argp_param, short_name), name, "short name");
}

void doca_argp_param_set_long_name(struct doca_argp_param *param, const char *name)
{
	set_str(param, offsetof(struct doca_argp_param, long_name), name, "long name");
}

void doca_argp_param_set_arguments(struct doca_argp_param *param, const char *arguments)
{
	set_str(param, offsetof(struct doca_argp_param, arguments), arguments, "arguments");
}

void doca_argp_param_set_description(struct doca_argp_param *param, const char *description)
{
	set_str(param, offsetof(struct doca_argp_param, description), description, "description");
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

void doca_argp_param_set_singular(struct doca_argp_param *param)
{
	if (settable(param, "singular"))
		param->singular = true;
}

void doca_argp_param_set_inherited(struct doca_argp_param *param)
{
	if (settable(param, "inherited"))
		param->inherited = true;
}

void doca_argp_param_set_hidden(struct doca_argp_param *param)
{
	if (settable(param, "hidden"))
		param->hidden = true;
}
