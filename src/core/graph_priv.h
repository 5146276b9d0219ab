/*
 * graph_priv.h - the DOCA graph objects as graph.c (graph, nodes,
 * dependencies) and graph_instance.c (instances and their runs) share them.
 * Not installed, not for other modules.
 *
 * A graph embeds a core context that is never handed out (see graph.c);
 * sd_graph_run_deferred() is the body of its progress hook.
 */
#ifndef SD_GRAPH_PRIV_H_
#define SD_GRAPH_PRIV_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_graph.h>

#include "core_priv.h"

enum node_type {
	NODE_CTX,
	NODE_USER,
	NODE_SUB,
};

struct doca_graph_node {
	struct doca_graph *graph;
	enum node_type type;
	uint32_t index;                 /* in graph->nodes */
	struct doca_ctx *ctx;           /* NODE_CTX */
	doca_graph_user_node_cb_t cb;   /* NODE_USER */
	struct doca_graph *sub;         /* NODE_SUB */
	struct doca_graph_node **succ;  /* nodes that depend on this one */
	uint32_t nsucc;
	uint32_t succ_cap;
	uint32_t npred;                 /* dependencies of this node */
};

struct doca_graph {
	struct doca_ctx ctx;            /* first; internal only (see graph.c) */
	struct doca_pe *pe;
	struct doca_graph_node **nodes;
	uint32_t nnodes;
	uint32_t nodes_cap;
	doca_graph_completion_cb_t ok_cb;
	doca_graph_completion_cb_t err_cb;
	uint32_t max_instances;
	bool configured;
	uint32_t ninstances;            /* created and not destroyed */
	uint32_t users;                 /* sub-graph nodes of other graphs that name this one */
	union doca_data user_data;
	struct doca_graph_instance *work_head; /* instances with work for the progress hook */
	struct doca_graph_instance *work_tail;
	uint32_t nwork;
	uint64_t activity;              /* nodes started or completed, instances finished */
	bool *progress_alive;           /* set while the progress hook runs: cleared by destroy */
};

enum slot_state {
	SLOT_WAITING,
	SLOT_READY,
	SLOT_RUNNING,
	SLOT_DONE,
};

/* One node of one instance: its data and its state in the current run. */
struct inst_slot {
	struct sd_task_owner owner;     /* given to the core with the task */
	struct doca_graph_instance *inst;
	uint32_t index;
	bool has_data;
	struct doca_task *task;         /* NODE_CTX */
	void *cookie;                   /* NODE_USER */
	struct doca_graph_instance *sub; /* NODE_SUB */
	uint32_t waiting;               /* dependencies not yet completed */
	uint8_t state;                  /* enum slot_state */
};

struct doca_graph_instance {
	struct doca_graph *graph;
	union doca_data user_data;
	bool submitted;                 /* from submit (or a parent node's start) until it finished */
	bool as_node;                   /* this run was started by its parent's sub-graph node */
	bool pumping;                   /* inside pump(): nested calls only queue */
	bool queued;                    /* on graph->work_* */
	doca_error_t status;            /* first failure of the run */
	uint32_t inflight;              /* nodes started and not completed */
	uint32_t remaining;             /* nodes not completed */
	uint32_t nready;
	uint32_t *ready;                /* node indices ready to start, graph->nnodes entries */
	struct inst_slot *slots;
	struct doca_graph_instance *parent; /* instance whose sub-graph node runs this one */
	uint32_t parent_index;
	struct doca_graph_instance *work_next;
};


static inline bool sd_graph_started(const struct doca_graph *graph)
{
	return graph->ctx.state != DOCA_CTX_STATE_IDLE;
}

static inline const char *sd_graph_node_type_name(enum node_type type)
{
	switch (type) {
	case NODE_CTX:
		return "context";
	case NODE_USER:
		return "user";
	case NODE_SUB:
		return "sub-graph";
	}
	return "?";
}

/* The deferred work of a graph's instances (user nodes of instances
 * submitted outside doca_pe_progress, nodes whose context said AGAIN,
 * completions of runs that ended outside it). Returns 1 if anything
 * happened. The graph may be destroyed by a callback it runs. */
int sd_graph_run_deferred(struct doca_graph *graph);

#endif /* SD_GRAPH_PRIV_H_ */
