/*
 * graph_instance.c - DOCA graph instances: their node data and their runs.
 *
 * Tasks of context nodes are submitted with sd_task_submit_owned(), so the
 * core hands their completion to slot_task_done() instead of the task's own
 * callbacks. A run keeps, per node, how many of its dependencies are still
 * to complete; a node whose count reaches zero goes on the instance's ready
 * list and pump() starts it. Program code (user nodes, completion callbacks)
 * is only called from doca_pe_progress, never from doca_graph_instance_submit:
 * what cannot run at once waits on the graph's work list for its progress
 * hook. The completion callback is the last thing that touches an instance:
 * the program may destroy or resubmit it from there.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "graph_priv.h"
#include "sd_log.h"

SD_LOG_REGISTER(GRAPH);

static void pump(struct doca_graph_instance *inst, bool in_pe);

/* ---- the work list of the progress hook ---- */

static void work_push(struct doca_graph_instance *inst)
{
	struct doca_graph *graph = inst->graph;

	if (inst->queued)
		return;
	inst->queued = true;
	inst->work_next = NULL;
	if (graph->work_tail != NULL)
		graph->work_tail->work_next = inst;
	else
		graph->work_head = inst;
	graph->work_tail = inst;
	graph->nwork++;
	/* A waiter on the notification handle must come back to progress. */
	sd_pe_wake(graph->pe);
}

static void work_remove(struct doca_graph_instance *inst)
{
	struct doca_graph *graph = inst->graph;
	struct doca_graph_instance **link, *prev = NULL;

	if (!inst->queued)
		return;
	for (link = &graph->work_head; *link != NULL; prev = *link, link = &(*link)->work_next) {
		if (*link != inst)
			continue;
		*link = inst->work_next;
		if (graph->work_tail == inst)
			graph->work_tail = prev;
		break;
	}
	inst->queued = false;
	inst->work_next = NULL;
	graph->nwork--;
}

static struct doca_graph_instance *work_pop(struct doca_graph *graph)
{
	struct doca_graph_instance *inst = graph->work_head;

	if (inst != NULL)
		work_remove(inst);
	return inst;
}

/* ---- running an instance ---- */

static void push_ready(struct doca_graph_instance *inst, uint32_t index)
{
	inst->slots[index].state = SLOT_READY;
	inst->ready[inst->nready++] = index;
}

static void run_begin(struct doca_graph_instance *inst)
{
	struct doca_graph *graph = inst->graph;
	uint32_t i;

	inst->submitted = true;
	inst->status = DOCA_SUCCESS;
	inst->inflight = 0;
	inst->remaining = graph->nnodes;
	inst->nready = 0;
	for (i = 0; i < graph->nnodes; i++) {
		inst->slots[i].waiting = graph->nodes[i]->npred;
		inst->slots[i].state = SLOT_WAITING;
		if (graph->nodes[i]->npred == 0)
			push_ready(inst, i);
	}
}

/* A started node finished with this status. */
static void node_complete(struct doca_graph_instance *inst, uint32_t index, doca_error_t status)
{
	struct doca_graph_node *node = inst->graph->nodes[index];
	uint32_t i;

	inst->slots[index].state = SLOT_DONE;
	inst->inflight--;
	inst->remaining--;
	inst->graph->activity++;
	if (status != DOCA_SUCCESS) {
		if (inst->status == DOCA_SUCCESS)
			inst->status = status;
		return;
	}
	if (inst->status != DOCA_SUCCESS)
		return;
	for (i = 0; i < node->nsucc; i++) {
		uint32_t next = node->succ[i]->index;

		if (--inst->slots[next].waiting == 0)
			push_ready(inst, next);
	}
}

/* Are the data of every node there, and every task with the program? */
static doca_error_t check_data(const struct doca_graph_instance *inst)
{
	const struct doca_graph *graph = inst->graph;
	uint32_t i;
	doca_error_t rc;

	for (i = 0; i < graph->nnodes; i++) {
		const struct inst_slot *slot = &inst->slots[i];
		enum node_type type = graph->nodes[i]->type;

		if (type == NODE_USER)
			continue;
		if (!slot->has_data) {
			SD_LOG_ERR("Graph instance %p: %s node %" PRIu32 " has no data set", (const void *)inst,
				   sd_graph_node_type_name(type), i);
			return DOCA_ERROR_INVALID_VALUE;
		}
		if (type == NODE_CTX && slot->task->state != SD_TASK_ALLOCATED) {
			SD_LOG_ERR("Graph instance %p: the task of context node %" PRIu32 " is %s", (const void *)inst,
				   i, slot->task->state == SD_TASK_FREE ? "freed" : "already submitted");
			return DOCA_ERROR_BAD_STATE;
		}
		if (type == NODE_SUB) {
			if (slot->sub->submitted) {
				SD_LOG_ERR("Graph instance %p: the instance of sub-graph node %" PRIu32 " is running",
					   (const void *)inst, i);
				return DOCA_ERROR_IN_USE;
			}
			rc = check_data(slot->sub);
			if (rc != DOCA_SUCCESS)
				return rc;
		}
	}
	return DOCA_SUCCESS;
}

/* Start one ready node. AGAIN: the node's context is full, try later. */
static doca_error_t start_node(struct doca_graph_instance *inst, uint32_t index, bool in_pe)
{
	struct doca_graph_node *node = inst->graph->nodes[index];
	struct inst_slot *slot = &inst->slots[index];
	doca_error_t rc;

	switch (node->type) {
	case NODE_CTX:
		rc = sd_task_submit_owned(slot->task, &slot->owner);
		if (rc == DOCA_ERROR_AGAIN)
			return rc;
		slot->state = SLOT_RUNNING;
		inst->inflight++;
		inst->graph->activity++;
		if (rc != DOCA_SUCCESS) {
			SD_LOG_ERR("Graph instance %p: failed to submit the task of node %" PRIu32 ": %s",
				   (void *)inst, index, doca_error_get_name(rc));
			node_complete(inst, index, rc);
		}
		return rc;
	case NODE_USER:
		slot->state = SLOT_RUNNING;
		inst->inflight++;
		rc = node->cb(slot->cookie);
		if (rc != DOCA_SUCCESS)
			SD_LOG_DBG("Graph instance %p: user node %" PRIu32 " failed: %s", (void *)inst, index,
				   doca_error_get_name(rc));
		node_complete(inst, index, rc);
		return rc;
	case NODE_SUB:
		slot->state = SLOT_RUNNING;
		inst->inflight++;
		inst->graph->activity++;
		rc = check_data(slot->sub);
		if (rc != DOCA_SUCCESS) {
			node_complete(inst, index, rc);
			return rc;
		}
		slot->sub->as_node = true;
		run_begin(slot->sub);
		pump(slot->sub, in_pe);
		return DOCA_SUCCESS;
	}
	return DOCA_ERROR_UNEXPECTED;
}

/* The run is over: report to the parent node, or to the program. */
static void finish(struct doca_graph_instance *inst, bool in_pe)
{
	struct doca_graph *graph = inst->graph;
	doca_graph_completion_cb_t cb;

	inst->nready = 0;
	if (inst->as_node) {
		struct doca_graph_instance *parent = inst->parent;

		work_remove(inst);
		inst->as_node = false;
		inst->submitted = false;
		node_complete(parent, inst->parent_index, inst->status);
		pump(parent, in_pe);
		return;
	}
	if (!in_pe) {
		/* Only possible when it failed before anything ran; submit undoes it. */
		work_push(inst);
		return;
	}
	work_remove(inst);
	inst->submitted = false;
	graph->activity++;
	cb = inst->status == DOCA_SUCCESS ? graph->ok_cb : graph->err_cb;
	/* Last: the callback may destroy or resubmit the instance. */
	cb(inst, inst->user_data, graph->user_data);
}

/* Start what is ready; finish the run when nothing is left. in_pe: called
 * from doca_pe_progress, so program code may run. */
static void pump(struct doca_graph_instance *inst, bool in_pe)
{
	uint32_t i, keep = 0;
	bool blocked = false;

	if (inst->pumping)
		return; /* the outer call sees what was added to the ready list */
	inst->pumping = true;
	/* start_node may append to the list: the bound is read every turn. */
	for (i = 0; i < inst->nready; i++) {
		uint32_t index = inst->ready[i];

		if (inst->status != DOCA_SUCCESS) {
			inst->slots[index].state = SLOT_WAITING; /* a failed run starts nothing more */
			continue;
		}
		if (blocked || (inst->graph->nodes[index]->type == NODE_USER && !in_pe)) {
			inst->ready[keep++] = index;
			continue;
		}
		if (start_node(inst, index, in_pe) == DOCA_ERROR_AGAIN) {
			blocked = true;
			inst->ready[keep++] = index;
		}
	}
	inst->nready = inst->status == DOCA_SUCCESS ? keep : 0;
	inst->pumping = false;
	if (inst->nready > 0)
		work_push(inst);
	if (inst->inflight == 0 && (inst->remaining == 0 || inst->status != DOCA_SUCCESS))
		finish(inst, in_pe);
}

/* The core's callback for a task this file submitted (from doca_pe_progress). */
static void slot_task_done(struct sd_task_owner *owner, struct doca_task *task)
{
	struct inst_slot *slot = (struct inst_slot *)owner;
	struct doca_graph_instance *inst = slot->inst;

	node_complete(inst, slot->index, task->status);
	pump(inst, true);
}

/* ---- the graph's deferred work ---- */

int sd_graph_run_deferred(struct doca_graph *graph)
{
	uint64_t before = graph->activity;
	uint32_t budget = graph->nwork;
	struct doca_graph_instance *inst;
	bool alive = true;

	/* A completion callback may destroy its instance and then the graph
	 * itself: the walk stops touching it then. Instances put back on the
	 * list by this walk wait for the next one. */
	graph->progress_alive = &alive;
	while (budget-- > 0 && (inst = work_pop(graph)) != NULL) {
		pump(inst, true);
		if (!alive)
			return 1;
	}
	graph->progress_alive = NULL;
	if (graph->work_head != NULL)
		sd_pe_wake(graph->pe);
	return graph->activity != before ? 1 : 0;
}

/* ---- instances ---- */

doca_error_t doca_graph_instance_create(const struct doca_graph *graph, struct doca_graph_instance **graph_instance)
{
	struct doca_graph *g = (struct doca_graph *)graph;
	struct doca_graph_instance *inst;
	uint32_t i;

	if (graph == NULL || graph_instance == NULL) {
		SD_LOG_ERR("Failed to create graph instance: %s is NULL", graph == NULL ? "graph" : "graph_instance");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_graph_started(graph)) {
		SD_LOG_ERR("Failed to create graph instance: graph is not started");
		return DOCA_ERROR_BAD_STATE;
	}
	if (g->ninstances >= g->max_instances) {
		SD_LOG_ERR("Failed to create graph instance: the graph's %" PRIu32 " instances are all in use",
			   g->max_instances);
		return DOCA_ERROR_NO_MEMORY;
	}
	inst = calloc(1, sizeof(*inst));
	if (inst != NULL) {
		inst->slots = calloc(g->nnodes, sizeof(*inst->slots));
		inst->ready = calloc(g->nnodes, sizeof(*inst->ready));
	}
	if (inst == NULL || inst->slots == NULL || inst->ready == NULL) {
		if (inst != NULL) {
			free(inst->slots);
			free(inst->ready);
			free(inst);
		}
		SD_LOG_ERR("Failed to allocate graph instance");
		return DOCA_ERROR_NO_MEMORY;
	}
	inst->graph = g;
	for (i = 0; i < g->nnodes; i++) {
		inst->slots[i].owner.done = slot_task_done;
		inst->slots[i].inst = inst;
		inst->slots[i].index = i;
	}
	g->ninstances++;
	*graph_instance = inst;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_destroy(struct doca_graph_instance *graph_instance)
{
	struct doca_graph_instance *inst = graph_instance;
	uint32_t i;

	if (inst == NULL) {
		SD_LOG_ERR("Failed to destroy graph instance: graph_instance is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (inst->submitted || inst->queued) {
		SD_LOG_ERR("Failed to destroy graph instance %p: it is submitted", (void *)inst);
		return DOCA_ERROR_IN_USE;
	}
	if (inst->parent != NULL) {
		SD_LOG_ERR("Failed to destroy graph instance %p: it is the data of a sub-graph node", (void *)inst);
		return DOCA_ERROR_IN_USE;
	}
	for (i = 0; i < inst->graph->nnodes; i++)
		if (inst->slots[i].sub != NULL)
			inst->slots[i].sub->parent = NULL;
	inst->graph->ninstances--;
	free(inst->slots);
	free(inst->ready);
	free(inst);
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_set_user_data(struct doca_graph_instance *graph_instance, union doca_data user_data)
{
	if (graph_instance == NULL) {
		SD_LOG_ERR("Failed to set graph instance user data: graph_instance is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (graph_instance->submitted) {
		SD_LOG_ERR("Failed to set graph instance user data: instance is submitted");
		return DOCA_ERROR_IN_USE;
	}
	graph_instance->user_data = user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_get_user_data(const struct doca_graph_instance *graph_instance,
					       union doca_data *user_data)
{
	if (graph_instance == NULL || user_data == NULL) {
		SD_LOG_ERR("Failed to get graph instance user data: %s is NULL",
			   graph_instance == NULL ? "graph_instance" : "user_data");
		return DOCA_ERROR_INVALID_VALUE;
	}
	*user_data = graph_instance->user_data;
	return DOCA_SUCCESS;
}

/* The checks every set_*_node_data call shares. */
static doca_error_t node_slot(struct doca_graph_instance *inst, const struct doca_graph_node *node,
			      enum node_type type, struct inst_slot **slot)
{
	if (inst == NULL || node == NULL) {
		SD_LOG_ERR("Failed to set %s node data: %s is NULL", sd_graph_node_type_name(type),
			   inst == NULL ? "graph_instance" : "node");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (inst->submitted) {
		SD_LOG_ERR("Failed to set %s node data: instance is submitted", sd_graph_node_type_name(type));
		return DOCA_ERROR_BAD_STATE;
	}
	if (node->graph != inst->graph) {
		SD_LOG_ERR("Failed to set %s node data: the node belongs to another graph", sd_graph_node_type_name(type));
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (node->type != type) {
		SD_LOG_ERR("Failed to set %s node data: node %" PRIu32 " is a %s node", sd_graph_node_type_name(type),
			   node->index, sd_graph_node_type_name(node->type));
		return DOCA_ERROR_NOT_PERMITTED;
	}
	*slot = &inst->slots[node->index];
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_set_ctx_node_data(struct doca_graph_instance *graph_instance,
						   struct doca_graph_node *node, struct doca_task *task)
{
	struct inst_slot *slot;
	doca_error_t rc;

	if (task == NULL) {
		SD_LOG_ERR("Failed to set context node data: task is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	rc = node_slot(graph_instance, node, NODE_CTX, &slot);
	if (rc != DOCA_SUCCESS)
		return rc;
	if (task->cls == NULL || task->cls->ctx != node->ctx) {
		SD_LOG_ERR("Failed to set context node data: the task is not a task of the node's context");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	slot->task = task;
	slot->has_data = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_set_user_node_data(struct doca_graph_instance *graph_instance,
						    struct doca_graph_node *node, void *cookie)
{
	struct inst_slot *slot;
	doca_error_t rc;

	rc = node_slot(graph_instance, node, NODE_USER, &slot);
	if (rc != DOCA_SUCCESS)
		return rc;
	slot->cookie = cookie;
	slot->has_data = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_set_sub_graph_node_data(struct doca_graph_instance *graph_instance,
							 struct doca_graph_node *node,
							 struct doca_graph_instance *sub_graph_instance)
{
	struct doca_graph_instance *sub = sub_graph_instance;
	struct inst_slot *slot;
	doca_error_t rc;

	if (sub == NULL) {
		SD_LOG_ERR("Failed to set sub-graph node data: sub_graph_instance is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	rc = node_slot(graph_instance, node, NODE_SUB, &slot);
	if (rc != DOCA_SUCCESS)
		return rc;
	if (sub->graph != node->sub) {
		SD_LOG_ERR("Failed to set sub-graph node data: the instance is not one of the node's sub-graph");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (sub->submitted) {
		SD_LOG_ERR("Failed to set sub-graph node data: the instance is submitted");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (sub->parent != NULL && (sub->parent != graph_instance || sub->parent_index != node->index)) {
		SD_LOG_ERR("Failed to set sub-graph node data: the instance is the data of another node");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (slot->sub != NULL && slot->sub != sub)
		slot->sub->parent = NULL;
	sub->parent = graph_instance;
	sub->parent_index = node->index;
	slot->sub = sub;
	slot->has_data = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_submit(struct doca_graph_instance *graph_instance)
{
	struct doca_graph_instance *inst = graph_instance;
	doca_error_t rc;

	if (inst == NULL) {
		SD_LOG_ERR("Failed to submit graph instance: graph_instance is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (inst->submitted) {
		SD_LOG_ERR("Failed to submit graph instance %p: it is already submitted", (void *)inst);
		return DOCA_ERROR_IN_USE;
	}
	if (inst->parent != NULL) {
		SD_LOG_ERR("Failed to submit graph instance %p: it runs as the data of a sub-graph node",
			   (void *)inst);
		return DOCA_ERROR_IN_USE;
	}
	rc = check_data(inst);
	if (rc != DOCA_SUCCESS)
		return rc;
	inst->as_node = false;
	run_begin(inst);
	pump(inst, false);
	if (inst->status != DOCA_SUCCESS && inst->inflight == 0) {
		/* Nothing runs: refuse the submission instead of calling back. */
		rc = inst->status;
		work_remove(inst);
		inst->submitted = false;
		inst->nready = 0;
		return rc;
	}
	return DOCA_SUCCESS;
}
