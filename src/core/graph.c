/*
 * graph.c - DOCA graph: the graph object, its nodes and dependencies,
 * start and stop. Instances and their runs are in graph_instance.c.
 *
 * A graph embeds a core context that is never handed out: connecting it to
 * the PE binds the graph to that PE (doca_pe_destroy answers IN_USE while the
 * graph exists), the one ctx state machine gives "started"/"stopped", and its
 * progress hook does the instances' work that must wait for
 * doca_pe_progress (sd_graph_run_deferred). Its start hook checks what
 * DOCA requires of a graph before it runs.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "graph_priv.h"
#include "sd_log.h"

SD_LOG_REGISTER(GRAPH);

/* ---- the graph's context ---- */

static doca_error_t graph_ctx_start(struct doca_ctx *ctx)
{
	struct doca_graph *graph = (struct doca_graph *)ctx;
	uint32_t i, nrun = 0;

	if (!graph->configured) {
		SD_LOG_ERR("Failed to start graph: not configured (doca_graph_set_conf)");
		return DOCA_ERROR_BAD_STATE;
	}
	for (i = 0; i < graph->nnodes; i++) {
		const struct doca_graph_node *node = graph->nodes[i];

		if (node->type == NODE_CTX) {
			if (node->ctx->state != DOCA_CTX_STATE_RUNNING) {
				SD_LOG_ERR("Failed to start graph: the %s context of node %" PRIu32 " is not running",
					   node->ctx->name != NULL ? node->ctx->name : "unnamed", i);
				return DOCA_ERROR_BAD_STATE;
			}
			if (node->ctx->pe != graph->pe) {
				SD_LOG_ERR("Failed to start graph: the context of node %" PRIu32
					   " is not connected to the graph's progress engine", i);
				return DOCA_ERROR_BAD_STATE;
			}
			nrun++;
		} else if (node->type == NODE_SUB) {
			/* A started sub-graph has a context node of its own. */
			if (!sd_graph_started(node->sub)) {
				SD_LOG_ERR("Failed to start graph: the sub-graph of node %" PRIu32 " is not started", i);
				return DOCA_ERROR_BAD_STATE;
			}
			if (node->sub->pe != graph->pe) {
				SD_LOG_ERR("Failed to start graph: the sub-graph of node %" PRIu32
					   " is bound to another progress engine", i);
				return DOCA_ERROR_BAD_STATE;
			}
			nrun++;
		}
	}
	if (nrun == 0) {
		SD_LOG_ERR("Failed to start graph: it has no context node");
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

static int graph_ctx_progress(struct doca_ctx *ctx)
{
	return sd_graph_run_deferred((struct doca_graph *)ctx);
}

static const struct sd_ctx_ops graph_ctx_ops = {
	.start = graph_ctx_start,
	.stop = NULL, /* nothing can be in flight: stop needs every instance destroyed */
	.progress = graph_ctx_progress,
};

/* ---- graph ---- */

doca_error_t doca_graph_create(struct doca_pe *pe, struct doca_graph **graph)
{
	struct doca_graph *g;
	doca_error_t rc;

	if (pe == NULL || graph == NULL) {
		SD_LOG_ERR("Failed to create graph: %s is NULL", pe == NULL ? "pe" : "graph");
		return DOCA_ERROR_INVALID_VALUE;
	}
	g = calloc(1, sizeof(*g));
	if (g == NULL) {
		SD_LOG_ERR("Failed to allocate graph");
		return DOCA_ERROR_NO_MEMORY;
	}
	sd_ctx_init(&g->ctx, &graph_ctx_ops, "graph");
	rc = doca_pe_connect_ctx(pe, &g->ctx);
	if (rc != DOCA_SUCCESS) {
		SD_LOG_ERR("Failed to create graph: cannot bind it to the progress engine: %s",
			   doca_error_get_name(rc));
		free(g);
		return rc;
	}
	g->pe = pe;
	*graph = g;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_destroy(struct doca_graph *graph)
{
	uint32_t i;

	if (graph == NULL) {
		SD_LOG_ERR("Failed to destroy graph: graph is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_graph_started(graph)) {
		SD_LOG_ERR("Failed to destroy graph: graph is not stopped");
		return DOCA_ERROR_BAD_STATE;
	}
	if (graph->users > 0) {
		SD_LOG_ERR("Failed to destroy graph: it is the sub-graph of %" PRIu32 " nodes of other graphs",
			   graph->users);
		return DOCA_ERROR_IN_USE;
	}
	(void)sd_ctx_fini(&graph->ctx);
	if (graph->progress_alive != NULL)
		*graph->progress_alive = false;
	for (i = 0; i < graph->nnodes; i++) {
		if (graph->nodes[i]->type == NODE_SUB)
			graph->nodes[i]->sub->users--;
		free(graph->nodes[i]->succ);
		free(graph->nodes[i]);
	}
	free(graph->nodes);
	free(graph);
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_set_conf(struct doca_graph *graph, doca_graph_completion_cb_t graph_completion_cb,
				 doca_graph_completion_cb_t graph_error_cb, uint32_t num_instances)
{
	if (graph == NULL || graph_completion_cb == NULL || graph_error_cb == NULL) {
		SD_LOG_ERR("Failed to configure graph: %s is NULL",
			   graph == NULL ? "graph" : graph_completion_cb == NULL ? "completion callback" : "error callback");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (num_instances == 0) {
		SD_LOG_ERR("Failed to configure graph: number of instances is 0");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_graph_started(graph)) {
		SD_LOG_ERR("Failed to configure graph: graph is not stopped");
		return DOCA_ERROR_BAD_STATE;
	}
	graph->ok_cb = graph_completion_cb;
	graph->err_cb = graph_error_cb;
	graph->max_instances = num_instances;
	graph->configured = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_set_user_data(struct doca_graph *graph, union doca_data user_data)
{
	if (graph == NULL) {
		SD_LOG_ERR("Failed to set graph user data: graph is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_graph_started(graph)) {
		SD_LOG_ERR("Failed to set graph user data: graph is started");
		return DOCA_ERROR_BAD_STATE;
	}
	graph->user_data = user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_get_user_data(const struct doca_graph *graph, union doca_data *user_data)
{
	if (graph == NULL || user_data == NULL) {
		SD_LOG_ERR("Failed to get graph user data: %s is NULL", graph == NULL ? "graph" : "user_data");
		return DOCA_ERROR_INVALID_VALUE;
	}
	*user_data = graph->user_data;
	return DOCA_SUCCESS;
}

static doca_error_t node_add(struct doca_graph *graph, enum node_type type, struct doca_graph_node **out)
{
	struct doca_graph_node *n;

	if (sd_graph_started(graph)) {
		SD_LOG_ERR("Failed to create %s node: graph is already started", sd_graph_node_type_name(type));
		return DOCA_ERROR_BAD_STATE;
	}
	if (graph->nnodes == graph->nodes_cap) {
		uint32_t cap = graph->nodes_cap == 0 ? 8 : graph->nodes_cap * 2;
		struct doca_graph_node **nodes = NULL;

		if (cap > graph->nodes_cap)
			nodes = realloc(graph->nodes, (size_t)cap * sizeof(*nodes));
		if (nodes == NULL) {
			SD_LOG_ERR("Failed to allocate %s node", sd_graph_node_type_name(type));
			return DOCA_ERROR_NO_MEMORY;
		}
		graph->nodes = nodes;
		graph->nodes_cap = cap;
	}
	n = calloc(1, sizeof(*n));
	if (n == NULL) {
		SD_LOG_ERR("Failed to allocate %s node", sd_graph_node_type_name(type));
		return DOCA_ERROR_NO_MEMORY;
	}
	n->graph = graph;
	n->type = type;
	n->index = graph->nnodes;
	graph->nodes[graph->nnodes++] = n;
	*out = n;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_node_create_from_ctx(struct doca_graph *graph, const struct doca_ctx *ctx,
					     struct doca_graph_node **node)
{
	struct doca_graph_node *n;
	doca_error_t rc;

	if (graph == NULL || ctx == NULL || node == NULL) {
		SD_LOG_ERR("Failed to create context node: %s is NULL",
			   graph == NULL ? "graph" : ctx == NULL ? "ctx" : "node");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ctx == &graph->ctx) {
		SD_LOG_ERR("Failed to create context node: invalid context");
		return DOCA_ERROR_INVALID_VALUE;
	}
	rc = node_add(graph, NODE_CTX, &n);
	if (rc != DOCA_SUCCESS)
		return rc;
	n->ctx = (struct doca_ctx *)ctx;
	*node = n;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_node_create_from_user(struct doca_graph *graph, doca_graph_user_node_cb_t cb,
					      struct doca_graph_node **node)
{
	struct doca_graph_node *n;
	doca_error_t rc;

	if (graph == NULL || cb == NULL || node == NULL) {
		SD_LOG_ERR("Failed to create user node: %s is NULL",
			   graph == NULL ? "graph" : cb == NULL ? "callback" : "node");
		return DOCA_ERROR_INVALID_VALUE;
	}
	rc = node_add(graph, NODE_USER, &n);
	if (rc != DOCA_SUCCESS)
		return rc;
	n->cb = cb;
	*node = n;
	return DOCA_SUCCESS;
}

/* Does running "from" lead, through sub-graph nodes, to running "target"? */
static bool graph_reaches(const struct doca_graph *from, const struct doca_graph *target)
{
	uint32_t i;

	if (from == target)
		return true;
	for (i = 0; i < from->nnodes; i++)
		if (from->nodes[i]->type == NODE_SUB && graph_reaches(from->nodes[i]->sub, target))
			return true;
	return false;
}

doca_error_t doca_graph_node_create_from_graph(struct doca_graph *graph, struct doca_graph *sub_graph,
					       struct doca_graph_node **node)
{
	struct doca_graph_node *n;
	doca_error_t rc;

	if (graph == NULL || sub_graph == NULL || node == NULL) {
		SD_LOG_ERR("Failed to create sub-graph node: %s is NULL",
			   graph == NULL ? "graph" : sub_graph == NULL ? "sub_graph" : "node");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_graph_started(graph)) {
		SD_LOG_ERR("Failed to create sub-graph node: graph is already started");
		return DOCA_ERROR_BAD_STATE;
	}
	if (graph_reaches(sub_graph, graph)) {
		SD_LOG_ERR("Failed to create sub-graph node: the sub-graph leads back to the graph");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (!sd_graph_started(sub_graph)) {
		SD_LOG_ERR("Failed to create sub-graph node: the sub-graph is not started");
		return DOCA_ERROR_BAD_STATE;
	}
	rc = node_add(graph, NODE_SUB, &n);
	if (rc != DOCA_SUCCESS)
		return rc;
	n->sub = sub_graph;
	sub_graph->users++;
	*node = n;
	return DOCA_SUCCESS;
}

/* Is there a path from -> ... -> to along dependencies? */
static doca_error_t path_exists(const struct doca_graph *graph, const struct doca_graph_node *from,
				const struct doca_graph_node *to, bool *found)
{
	const struct doca_graph_node **stack;
	uint8_t *seen;
	uint32_t depth = 0, i;

	*found = false;
	stack = malloc((size_t)graph->nnodes * sizeof(*stack));
	seen = calloc(graph->nnodes, 1);
	if (stack == NULL || seen == NULL) {
		free(stack);
		free(seen);
		return DOCA_ERROR_NO_MEMORY;
	}
	stack[depth++] = from;
	seen[from->index] = 1;
	while (depth > 0 && !*found) {
		const struct doca_graph_node *n = stack[--depth];

		for (i = 0; i < n->nsucc; i++) {
			const struct doca_graph_node *s = n->succ[i];

			if (s == to) {
				*found = true;
				break;
			}
			if (!seen[s->index]) {
				seen[s->index] = 1;
				stack[depth++] = s;
			}
		}
	}
	free(stack);
	free(seen);
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_add_dependency(struct doca_graph *graph, struct doca_graph_node *from,
				       struct doca_graph_node *to)
{
	bool cycle;
	uint32_t i;
	doca_error_t rc;

	if (graph == NULL || from == NULL || to == NULL) {
		SD_LOG_ERR("Failed to add graph dependency: %s is NULL",
			   graph == NULL ? "graph" : from == NULL ? "from" : "to");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (from->graph != graph || to->graph != graph) {
		SD_LOG_ERR("Failed to add graph dependency: the %s node belongs to another graph",
			   from->graph != graph ? "from" : "to");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_graph_started(graph)) {
		SD_LOG_ERR("Failed to add graph dependency: graph is already started");
		return DOCA_ERROR_BAD_STATE;
	}
	if (from == to) {
		SD_LOG_ERR("Failed to add graph dependency: a node cannot depend on itself");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	for (i = 0; i < from->nsucc; i++)
		if (from->succ[i] == to)
			return DOCA_SUCCESS;
	rc = path_exists(graph, to, from, &cycle);
	if (rc != DOCA_SUCCESS) {
		SD_LOG_ERR("Failed to add graph dependency: out of memory");
		return rc;
	}
	if (cycle) {
		SD_LOG_ERR("Failed to add graph dependency: node %" PRIu32 " -> node %" PRIu32 " closes a cycle",
			   from->index, to->index);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (from->nsucc == from->succ_cap) {
		uint32_t cap = from->succ_cap == 0 ? 4 : from->succ_cap * 2;
		struct doca_graph_node **succ = realloc(from->succ, (size_t)cap * sizeof(*succ));

		if (succ == NULL) {
			SD_LOG_ERR("Failed to allocate graph dependency");
			return DOCA_ERROR_NO_MEMORY;
		}
		from->succ = succ;
		from->succ_cap = cap;
	}
	from->succ[from->nsucc++] = to;
	to->npred++;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_start(struct doca_graph *graph)
{
	if (graph == NULL) {
		SD_LOG_ERR("Failed to start graph: graph is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_graph_started(graph)) {
		SD_LOG_ERR("Failed to start graph: graph is already started");
		return DOCA_ERROR_BAD_STATE;
	}
	return doca_ctx_start(&graph->ctx);
}

doca_error_t doca_graph_stop(struct doca_graph *graph)
{
	if (graph == NULL) {
		SD_LOG_ERR("Failed to stop graph: graph is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_graph_started(graph))
		return DOCA_SUCCESS;
	if (graph->ninstances > 0) {
		SD_LOG_ERR("Failed to stop graph: %" PRIu32 " of its instances are not destroyed", graph->ninstances);
		return DOCA_ERROR_IN_USE;
	}
	/* No instance, so nothing in flight: the context reaches IDLE at once. */
	return doca_ctx_stop(&graph->ctx);
}
