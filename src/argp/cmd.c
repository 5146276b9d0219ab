/*
 * Command objects (sub-commands such as "prog get ..."). A command is
 * filled in (name, description, callback, its flags and sub-commands) and
 * then registered under the program or another command; from then on it
 * is frozen, which is why its flags and sub-commands must be registered
 * into it first.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>

#include "argp_priv.h"

SD_LOG_REGISTER(ARGP);

void argp_cmd_free(struct doca_argp_cmd *c)
{
	free(c->name);
	free(c->description);
	free(c->params);
	free(c->cmds);
	free(c);
}

doca_error_t doca_argp_cmd_create(struct doca_argp_cmd **cmd)
{
	struct doca_argp_cmd *c;

	if (cmd == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!argp_g.initialized)
		return DOCA_ERROR_BAD_STATE;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return DOCA_ERROR_NO_MEMORY;
	c->next_created = argp_created_cmds;
	argp_created_cmds = c;
	*cmd = c;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_cmd_destroy(struct doca_argp_cmd *cmd)
{
	struct doca_argp_cmd **it;
	int i;

	if (cmd == NULL || !argp_cmd_live(cmd))
		return DOCA_ERROR_INVALID_VALUE;
	if (cmd->registered)
		return DOCA_ERROR_BAD_STATE;
	/* what was registered into it goes with it; argp owns those */
	for (i = 0; i < cmd->nparams; i++) {
		cmd->params[i]->registered = false;
		(void)doca_argp_param_destroy(cmd->params[i]);
	}
	for (i = 0; i < cmd->ncmds; i++) {
		cmd->cmds[i]->registered = false;
		(void)doca_argp_cmd_destroy(cmd->cmds[i]);
	}
	for (it = &argp_created_cmds; *it != NULL; it = &(*it)->next_created) {
		if (*it == cmd) {
			*it = cmd->next_created;
			break;
		}
	}
	argp_cmd_free(cmd);
	return DOCA_SUCCESS;
}

static bool settable(struct doca_argp_cmd *cmd, const char *what)
{
	if (cmd == NULL || !argp_cmd_live(cmd)) {
		SD_LOG_ERR("Failed to set command %s: invalid command", what);
		return false;
	}
	if (cmd->registered) {
		SD_LOG_ERR("Failed to set command %s: command already registered", what);
		return false;
	}
	return true;
}

static void set_str(char **dst, const char *value, const char *what)
{
	char *copy = NULL;

	if (value != NULL) {
		copy = strdup(value);
		if (copy == NULL) {
			SD_LOG_ERR("Failed to set command %s: out of memory", what);
			return;
		}
	}
	free(*dst);
	*dst = copy;
}

void doca_argp_cmd_set_name(struct doca_argp_cmd *cmd, const char *name)
{
	if (settable(cmd, "name"))
		set_str(&cmd->name, name, "name");
}

void doca_argp_cmd_set_description(struct doca_argp_cmd *cmd, const char *description)
{
	if (settable(cmd, "description"))
		set_str(&cmd->description, description, "description");
}

void doca_argp_cmd_set_callback(struct doca_argp_cmd *cmd, doca_argp_cmd_cb_t callback)
{
	if (settable(cmd, "callback"))
		cmd->callback = callback;
}

void doca_argp_cmd_set_hidden(struct doca_argp_cmd *cmd)
{
	if (settable(cmd, "hidden"))
		cmd->hidden = true;
}

doca_error_t doca_argp_cmd_register_param(struct doca_argp_cmd *cmd, struct doca_argp_param *input_param)
{
	if (cmd == NULL || !argp_cmd_live(cmd) || input_param == NULL || !argp_param_live(input_param))
		return DOCA_ERROR_INVALID_VALUE;
	if (!argp_g.initialized || argp_g.started)
		return DOCA_ERROR_BAD_STATE;
	if (cmd->registered) {
		SD_LOG_ERR("Failed to register a param into command %s: command already registered",
			   cmd->name != NULL ? cmd->name : "?");
		return DOCA_ERROR_BAD_STATE;
	}
	return argp_attach_param(cmd, input_param);
}

doca_error_t doca_argp_cmd_register_cmd(struct doca_argp_cmd *cmd, struct doca_argp_cmd *input_cmd)
{
	const struct doca_argp_cmd *anc;

	if (cmd == NULL || !argp_cmd_live(cmd) || input_cmd == NULL || !argp_cmd_live(input_cmd))
		return DOCA_ERROR_INVALID_VALUE;
	if (!argp_g.initialized || argp_g.started)
		return DOCA_ERROR_BAD_STATE;
	/* a command cannot be its own ancestor */
	for (anc = cmd; anc != NULL; anc = anc->parent)
		if (anc == input_cmd)
			return DOCA_ERROR_INVALID_VALUE;
	return argp_attach_cmd(cmd, input_cmd);
}
