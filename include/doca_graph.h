/*
 * doca_graph.h - DOCA graph: run a set of tasks and user callbacks in
 * dependency order, as one unit of work.
 *
 * Model: a graph is a directed acyclic set of nodes bound to one progress
 * engine. A node is one of
 *   - a context node: runs one task of a started context (e.g. a DMA memcpy);
 *   - a user node: calls a function of the program with a cookie;
 *   - a sub-graph node: runs an instance of another (started) graph.
 * An edge "from -> to" (doca_graph_add_dependency) means "to" starts only
 * once "from" has completed successfully. Nodes without dependencies are the
 * roots. A graph needs at least one context node.
 *
 * The graph is only the shape. A graph instance carries the data of one run:
 * the task of every context node, the cookie of every user node, the
 * sub-graph instance of every sub-graph node. An instance can be submitted
 * again once it has completed (change the tasks' contents in between if
 * needed; the node data stays set).
 *
 * Call order:
 *     doca_graph_create(pe, &graph)
 *     doca_graph_node_create_from_ctx / _from_user / _from_graph (graph stopped)
 *     doca_graph_add_dependency(graph, from, to)          (graph stopped)
 *     doca_graph_set_conf(graph, ok_cb, err_cb, num_instances)
 *     doca_graph_start(graph)          (every context of a context node running)
 *     doca_graph_instance_create(graph, &inst)
 *     doca_graph_instance_set_ctx_node_data / _user_node_data / _sub_graph_node_data
 *     doca_graph_instance_submit(inst)
 *     ... doca_pe_progress(pe) runs the nodes and then calls ok_cb or err_cb ...
 *     doca_graph_instance_destroy(inst); doca_graph_stop(graph); doca_graph_destroy(graph)
 *
 * Running: submitting an instance submits the tasks of its root context
 * nodes; everything else (user nodes, dependent nodes, the completion
 * callback) happens from doca_pe_progress. The callbacks of a task run by a
 * graph are not called: the graph takes its completion. If a node fails (its
 * task fails, its user callback returns an error, its sub-graph instance
 * fails), no further node of the instance is started; once the nodes already
 * running have completed, the graph's error callback is called. A context
 * that answers DOCA_ERROR_AGAIN (queue full) does not fail the instance: the
 * node is submitted again from a later doca_pe_progress. A sub-graph instance
 * that runs as a node reports to its parent node only, not to its own
 * graph's callbacks.
 *
 * In softdoca the contexts of the context nodes and the graphs of the
 * sub-graph nodes must be bound to the graph's progress engine.
 *
 * Threading: a graph, its instances and its progress engine are used from one
 * thread at a time; the callbacks run on the thread that calls
 * doca_pe_progress.
 */
#ifndef DOCA_GRAPH_H_
#define DOCA_GRAPH_H_

#include <stdint.h>
#include <stddef.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;
struct doca_pe;
struct doca_task;

struct doca_graph;
struct doca_graph_node;
struct doca_graph_instance;

/* Called from doca_pe_progress when a submitted instance has finished: the
 * success callback if every node succeeded, the error callback otherwise.
 * The instance may be submitted again or destroyed from the callback. */
typedef void (*doca_graph_completion_cb_t)(struct doca_graph_instance *instance,
					   union doca_data instance_user_data,
					   union doca_data graph_user_data);

/* Create an empty graph bound to a progress engine. */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_create(struct doca_pe *pe, struct doca_graph **graph);

/* Destroy a stopped graph (BAD_STATE while started). */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_destroy(struct doca_graph *graph);

/* Completion callbacks and how many instances may exist at once (graph
 * stopped; BAD_STATE otherwise). Required before doca_graph_start. */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_set_conf(struct doca_graph *graph,
				 doca_graph_completion_cb_t graph_completion_cb,
				 doca_graph_completion_cb_t graph_error_cb,
				 uint32_t num_instances);

/* User data passed to the completion callbacks (graph stopped). */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_set_user_data(struct doca_graph *graph, union doca_data user_data);

DOCA_EXPERIMENTAL
doca_error_t doca_graph_get_user_data(const struct doca_graph *graph, union doca_data *user_data);

/* Add a context node (a root until something is made its dependency). The
 * node belongs to the graph and is freed with it. Graph stopped only. */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_node_create_from_ctx(struct doca_graph *graph,
					     const struct doca_ctx *ctx,
					     struct doca_graph_node **node);

/* Function of a user node; a return other than DOCA_SUCCESS fails the
 * instance. The cookie is the one set on the instance. */
typedef doca_error_t (*doca_graph_user_node_cb_t)(void *cookie);

/* Add a user node. Graph stopped only. */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_node_create_from_user(struct doca_graph *graph,
					      doca_graph_user_node_cb_t cb,
					      struct doca_graph_node **node);

/* Add a node that runs an instance of sub_graph, which must be started and
 * must not lead back to graph (NOT_PERMITTED). Graph stopped only. */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_node_create_from_graph(struct doca_graph *graph,
					       struct doca_graph *sub_graph,
					       struct doca_graph_node **node);

/* "to" runs after "from". NOT_PERMITTED if the edge would close a cycle.
 * Graph stopped only. */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_add_dependency(struct doca_graph *graph,
				       struct doca_graph_node *from,
				       struct doca_graph_node *to);

/* Freeze the graph so that instances can be created. BAD_STATE if it is
 * already started, has no context node, is not configured, or a context of
 * a context node is not running. */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_start(struct doca_graph *graph);

/* Unfreeze the graph. IN_USE while instances of it exist; DOCA_SUCCESS if it
 * is already stopped. */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_stop(struct doca_graph *graph);

/* Create an instance of a started graph (NO_MEMORY beyond num_instances). */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_create(const struct doca_graph *graph, struct doca_graph_instance **graph_instance);

/* Destroy an instance. IN_USE while it is submitted or set as the data of a
 * sub-graph node. The tasks it names stay the program's. */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_destroy(struct doca_graph_instance *graph_instance);

/* User data passed to the completion callbacks (IN_USE while submitted). */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_set_user_data(struct doca_graph_instance *graph_instance, union doca_data user_data);

DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_get_user_data(const struct doca_graph_instance *graph_instance,
					       union doca_data *user_data);

/* The task a context node runs in this instance: a task of the node's
 * context, allocated and not submitted, that outlives the instance.
 * BAD_STATE while the instance is submitted; NOT_PERMITTED for a node of
 * another graph, a node of another type or a task of another context. */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_set_ctx_node_data(struct doca_graph_instance *graph_instance,
						   struct doca_graph_node *node,
						   struct doca_task *task);

/* The cookie a user node's function receives in this instance (errors as
 * for the context node data). */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_set_user_node_data(struct doca_graph_instance *graph_instance,
						    struct doca_graph_node *node,
						    void *cookie);

/* The instance a sub-graph node runs: an instance of the node's sub-graph,
 * not submitted and not used by another node (NOT_PERMITTED otherwise). */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_set_sub_graph_node_data(struct doca_graph_instance *graph_instance,
							 struct doca_graph_node *node,
							 struct doca_graph_instance *sub_graph_instance);

/* Run the instance: submits the tasks of its root context nodes. IN_USE if
 * it is already submitted; INVALID_VALUE if a context or sub-graph node has
 * no data; an error of a root task's submission is returned when no node is
 * running yet (the instance is then not submitted). A submitted instance
 * cannot be aborted: it completes through the graph's callbacks. */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_submit(struct doca_graph_instance *graph_instance);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_GRAPH_H_ */
