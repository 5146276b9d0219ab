/*
 * comch_utils.c - Comch control-path setup shared by the applications.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_log.h>
#include <doca_pe.h>

#include "common.h"
#include "comch_utils.h"

DOCA_LOG_REGISTER(COMCH_UTILS);

#define COMCH_NUM_SEND_TASKS 1024
#define COMCH_SLEEP_NS 10000
/* Bound on the stop/teardown loops: a peer that vanished must not hang us. */
#define COMCH_STOP_TIMEOUT_NS (5ULL * 1000 * 1000 * 1000)

struct comch_cfg {
	void *user_data;
	struct doca_pe *pe;
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_comch_server *server;
	struct doca_comch_client *client;
	struct doca_ctx *ctx;
	struct doca_comch_connection *connection;
	uint32_t max_msg_size;
	uint32_t num_send_tasks;
	bool is_server;
	bool peer_gone;
	uint32_t send_inflight;
};

/*
 * Set by the first SIGINT/SIGTERM; later ones are only counted. The handler
 * stays installed for the whole run (no SA_RESETHAND): a second Ctrl-C that
 * killed the process in the middle of its teardown would leave its sockets
 * in the fabric directory. Every teardown loop is bounded in time, so the
 * process still ends promptly, and SIGKILL remains for the impatient.
 */
static volatile sig_atomic_t comch_interrupted;
static volatile sig_atomic_t comch_signals;

void comch_utils_interrupt(void)
{
	comch_interrupted = 1;
}

int comch_utils_interrupted(void)
{
	return comch_interrupted != 0;
}

int comch_utils_signal_count(void)
{
	return (int)comch_signals;
}

static void interrupt_signal_handler(int signum)
{
	(void)signum;
	if (comch_signals < 1000)
		comch_signals = comch_signals + 1;
	comch_utils_interrupt();
}

void comch_utils_install_signal_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = interrupt_signal_handler;
	sa.sa_flags = 0;
	/* one handler at a time: a second signal waits until the first returns */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static void comch_sleep(void)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = COMCH_SLEEP_NS};

	nanosleep(&ts, NULL);
}

static uint64_t comch_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static struct comch_cfg *cfg_from_ctx_user_data(struct doca_ctx *ctx)
{
	union doca_data ud = {0};

	if (ctx == NULL || doca_ctx_get_user_data(ctx, &ud) != DOCA_SUCCESS)
		return NULL;
	return ud.ptr;
}

static struct comch_cfg *cfg_from_connection(struct doca_comch_connection *connection)
{
	struct doca_comch_server *server;
	struct doca_comch_client *client;
	struct comch_cfg *cfg;

	if (connection == NULL)
		return NULL;
	cfg = doca_comch_connection_get_user_data(connection).ptr;
	if (cfg != NULL)
		return cfg;
	server = doca_comch_server_get_server_ctx(connection);
	if (server != NULL)
		return cfg_from_ctx_user_data(doca_comch_server_as_ctx(server));
	client = doca_comch_client_get_client_ctx(connection);
	if (client != NULL)
		return cfg_from_ctx_user_data(doca_comch_client_as_ctx(client));
	return NULL;
}

static void send_task_completed_cb(struct doca_comch_task_send *task, union doca_data task_user_data,
				   union doca_data ctx_user_data)
{
	struct comch_cfg *cfg = ctx_user_data.ptr;

	if (cfg != NULL && cfg->send_inflight > 0)
		cfg->send_inflight--;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void send_task_fail_cb(struct doca_comch_task_send *task, union doca_data task_user_data,
			      union doca_data ctx_user_data)
{
	struct comch_cfg *cfg = ctx_user_data.ptr;
	struct doca_task *t = doca_comch_task_send_as_task(task);

	DOCA_LOG_ERR("Failed to send control message: %s", doca_error_get_descr(doca_task_get_status(t)));
	if (cfg != NULL && cfg->send_inflight > 0)
		cfg->send_inflight--;
	doca_task_free(t);
}

static bool ctx_is_running(struct doca_ctx *ctx)
{
	enum doca_ctx_states state;

	return doca_ctx_get_state(ctx, &state) == DOCA_SUCCESS && state == DOCA_CTX_STATE_RUNNING;
}

/* Is the connection to the peer still there? (Interruption does not matter here.) */
static bool link_up(struct comch_cfg *cfg)
{
	if (!cfg->is_server && !cfg->peer_gone && !ctx_is_running(cfg->ctx)) {
		cfg->peer_gone = true;
		cfg->connection = NULL;
	}
	return !cfg->peer_gone && cfg->connection != NULL;
}

doca_error_t comch_utils_check_connection(struct comch_cfg *cfg)
{
	if (cfg == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!link_up(cfg))
		return DOCA_ERROR_NOT_CONNECTED;
	if (comch_interrupted)
		return DOCA_ERROR_SHUTDOWN;
	return DOCA_SUCCESS;
}

#ifdef DOCA_ARCH_DPU
static void server_connection_cb(struct doca_comch_event_connection_status_changed *event,
				 struct doca_comch_connection *connection, uint8_t change_successful)
{
	struct doca_comch_server *server = doca_comch_server_get_server_ctx(connection);
	struct comch_cfg *cfg = server != NULL ? cfg_from_ctx_user_data(doca_comch_server_as_ctx(server)) : NULL;
	union doca_data ud;

	if (cfg == NULL)
		return;
	if (!change_successful) {
		DOCA_LOG_ERR("Failed connection received");
		return;
	}
	/* The applications talk to one host function: one client at a time. */
	if (cfg->connection != NULL || cfg->peer_gone) {
		DOCA_LOG_WARN("Rejecting an additional client: only one connection is supported");
		doca_comch_server_disconnect(server, connection);
		return;
	}
	ud.ptr = cfg;
	if (doca_comch_connection_set_user_data(connection, ud) != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set connection user data");
		doca_comch_server_disconnect(server, connection);
		return;
	}
	cfg->connection = connection;
	DOCA_LOG_INFO("Client connected");
}

static void server_disconnection_cb(struct doca_comch_event_connection_status_changed *event,
				    struct doca_comch_connection *connection, uint8_t change_successful)
{
	struct doca_comch_server *server = doca_comch_server_get_server_ctx(connection);
	struct comch_cfg *cfg = server != NULL ? cfg_from_ctx_user_data(doca_comch_server_as_ctx(server)) : NULL;

	if (cfg == NULL || connection != cfg->connection)
		return;
	cfg->connection = NULL;
	cfg->peer_gone = true;
	DOCA_LOG_INFO("Client disconnected");
}

static doca_error_t init_server(struct comch_cfg *cfg, const char *server_name, const char *rep_pci_addr,
				doca_comch_event_msg_recv_cb_t recv_cb, doca_comch_event_consumer_cb_t new_consumer_cb,
				doca_comch_event_consumer_cb_t expired_consumer_cb)
{
	doca_error_t result;

	result = doca_comch_cap_server_is_supported(doca_dev_as_devinfo(cfg->dev));
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Doca device does not support comch server: %s", doca_error_get_descr(result));
		return result;
	}
	result = open_doca_device_rep_with_pci(cfg->dev, DOCA_DEVINFO_REP_FILTER_NET, rep_pci_addr, &cfg->rep);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to open Comm Channel DOCA device representor");
		return result;
	}
	result = doca_comch_server_create(cfg->dev, cfg->rep, server_name, &cfg->server);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create comch server: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_comch_server_set_max_msg_size(cfg->server, cfg->max_msg_size);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set max message size of server: %s", doca_error_get_descr(result));
		return result;
	}
	cfg->ctx = doca_comch_server_as_ctx(cfg->server);
	result = doca_pe_connect_ctx(cfg->pe, cfg->ctx);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to connect comch server context to progress engine: %s",
			     doca_error_get_descr(result));
		return result;
	}
	result = doca_comch_server_task_send_set_conf(cfg->server, send_task_completed_cb, send_task_fail_cb,
						      cfg->num_send_tasks);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to configure server task pool: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_comch_server_event_msg_recv_register(cfg->server, recv_cb);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to register comch server receive callback: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_comch_server_event_connection_status_changed_register(cfg->server, server_connection_cb,
									    server_disconnection_cb);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to register comch server connection callbacks: %s",
			     doca_error_get_descr(result));
		return result;
	}
	if (new_consumer_cb != NULL || expired_consumer_cb != NULL) {
		result = doca_comch_server_event_consumer_register(cfg->server, new_consumer_cb, expired_consumer_cb);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to register comch server consumer callbacks: %s",
				     doca_error_get_descr(result));
			return result;
		}
	}
	result = doca_ctx_set_user_data(cfg->ctx, (union doca_data){.ptr = cfg});
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set comch server user data: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_ctx_start(cfg->ctx);
	if (result != DOCA_SUCCESS && result != DOCA_ERROR_IN_PROGRESS) {
		DOCA_LOG_ERR("Failed to start comch server context: %s", doca_error_get_descr(result));
		return result;
	}

	DOCA_LOG_INFO("Server %s is waiting for a client connection", server_name);
	while (cfg->connection == NULL) {
		if (doca_pe_progress(cfg->pe) == 0)
			comch_sleep();
		if (cfg->peer_gone) {
			DOCA_LOG_ERR("Client disconnected before the application started");
			return DOCA_ERROR_NOT_CONNECTED;
		}
		if (comch_interrupted) {
			DOCA_LOG_ERR("Interrupted while waiting for a client connection");
			return DOCA_ERROR_SHUTDOWN;
		}
		if (!ctx_is_running(cfg->ctx)) {
			enum doca_ctx_states state = DOCA_CTX_STATE_IDLE;

			doca_ctx_get_state(cfg->ctx, &state);
			if (state != DOCA_CTX_STATE_STARTING) {
				DOCA_LOG_ERR("Comch server stopped while waiting for a client");
				return DOCA_ERROR_NOT_CONNECTED;
			}
		}
	}
	return DOCA_SUCCESS;
}

#else
static doca_error_t init_client(struct comch_cfg *cfg, const char *server_name, doca_comch_event_msg_recv_cb_t recv_cb,
				doca_comch_event_consumer_cb_t new_consumer_cb,
				doca_comch_event_consumer_cb_t expired_consumer_cb)
{
	enum doca_ctx_states state;
	doca_error_t result;

	result = doca_comch_cap_client_is_supported(doca_dev_as_devinfo(cfg->dev));
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Doca device does not support comch client: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_comch_client_create(cfg->dev, server_name, &cfg->client);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create comch client: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_comch_client_set_max_msg_size(cfg->client, cfg->max_msg_size);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set max message size of client: %s", doca_error_get_descr(result));
		return result;
	}
	cfg->ctx = doca_comch_client_as_ctx(cfg->client);
	result = doca_pe_connect_ctx(cfg->pe, cfg->ctx);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to connect comch client context to progress engine: %s",
			     doca_error_get_descr(result));
		return result;
	}
	result = doca_comch_client_task_send_set_conf(cfg->client, send_task_completed_cb, send_task_fail_cb,
						      cfg->num_send_tasks);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to configure client task pool: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_comch_client_event_msg_recv_register(cfg->client, recv_cb);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to register comch client receive callback: %s", doca_error_get_descr(result));
		return result;
	}
	if (new_consumer_cb != NULL || expired_consumer_cb != NULL) {
		result = doca_comch_client_event_consumer_register(cfg->client, new_consumer_cb, expired_consumer_cb);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to register comch client consumer callbacks: %s",
				     doca_error_get_descr(result));
			return result;
		}
	}
	result = doca_ctx_set_user_data(cfg->ctx, (union doca_data){.ptr = cfg});
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set comch client user data: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_ctx_start(cfg->ctx);
	if (result != DOCA_SUCCESS && result != DOCA_ERROR_IN_PROGRESS) {
		DOCA_LOG_ERR("Failed to start comch client context: %s", doca_error_get_descr(result));
		return result;
	}

	/* As on hardware, a client started before its server keeps waiting. */
	for (;;) {
		if (doca_ctx_get_state(cfg->ctx, &state) != DOCA_SUCCESS)
			return DOCA_ERROR_BAD_STATE;
		if (state == DOCA_CTX_STATE_RUNNING)
			break;
		if (state != DOCA_CTX_STATE_STARTING) {
			DOCA_LOG_ERR("Comch client failed to connect to server %s", server_name);
			return DOCA_ERROR_NOT_CONNECTED;
		}
		if (comch_interrupted) {
			DOCA_LOG_ERR("Interrupted while waiting for server %s", server_name);
			return DOCA_ERROR_SHUTDOWN;
		}
		if (doca_pe_progress(cfg->pe) == 0)
			comch_sleep();
	}
	result = doca_comch_client_get_connection(cfg->client, &cfg->connection);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to get connection from client: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_comch_connection_set_user_data(cfg->connection, (union doca_data){.ptr = cfg});
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set connection user data: %s", doca_error_get_descr(result));
		return result;
	}
	return DOCA_SUCCESS;
}

#endif /* DOCA_ARCH_DPU */

static doca_error_t comch_init_common(const char *server_name, const char *pci_addr, const char *rep_pci_addr,
				      void *user_data, doca_comch_event_msg_recv_cb_t client_recv_event_cb,
				      doca_comch_event_msg_recv_cb_t server_recv_event_cb,
				      doca_comch_event_consumer_cb_t new_consumer_event_cb,
				      doca_comch_event_consumer_cb_t expired_consumer_event_cb, struct comch_cfg **comch_cfg)
{
	struct comch_cfg *cfg;
	uint32_t max_tasks;
	doca_error_t result;

	if (server_name == NULL || pci_addr == NULL || comch_cfg == NULL) {
		DOCA_LOG_ERR("Invalid parameters: server name, PCI address and output are required");
		return DOCA_ERROR_INVALID_VALUE;
	}
#ifdef DOCA_ARCH_DPU
	if (rep_pci_addr == NULL || rep_pci_addr[0] == '\0' || server_recv_event_cb == NULL) {
		DOCA_LOG_ERR("Invalid parameters: the server needs a representor PCI address and a receive callback");
		return DOCA_ERROR_INVALID_VALUE;
	}
#else
	if (client_recv_event_cb == NULL) {
		DOCA_LOG_ERR("Invalid parameters: the client needs a receive callback");
		return DOCA_ERROR_INVALID_VALUE;
	}
#endif

	cfg = calloc(1, sizeof(*cfg));
	if (cfg == NULL) {
		DOCA_LOG_ERR("Failed to allocate comch configuration");
		return DOCA_ERROR_NO_MEMORY;
	}
	cfg->user_data = user_data;

	result = doca_pe_create(&cfg->pe);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create comch progress engine: %s", doca_error_get_descr(result));
		goto fail;
	}
	result = open_doca_device_with_pci(pci_addr, NULL, &cfg->dev);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to open Comm Channel DOCA device based on PCI address");
		goto fail;
	}
	result = doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(cfg->dev), &cfg->max_msg_size);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to get comch max message size: %s", doca_error_get_descr(result));
		goto fail;
	}

	cfg->num_send_tasks = COMCH_NUM_SEND_TASKS;
	if (doca_comch_cap_get_max_send_tasks(doca_dev_as_devinfo(cfg->dev), &max_tasks) == DOCA_SUCCESS &&
	    max_tasks > 0 && max_tasks < cfg->num_send_tasks)
		cfg->num_send_tasks = max_tasks;

#ifdef DOCA_ARCH_DPU
	cfg->is_server = true;
	result = init_server(cfg, server_name, rep_pci_addr, server_recv_event_cb, new_consumer_event_cb,
			     expired_consumer_event_cb);
#else
	result = init_client(cfg, server_name, client_recv_event_cb, new_consumer_event_cb,
			     expired_consumer_event_cb);
#endif
	if (result != DOCA_SUCCESS)
		goto fail;

	*comch_cfg = cfg;
	return DOCA_SUCCESS;

fail:
	comch_utils_destroy(cfg);
	return result;
}

doca_error_t comch_utils_init(const char *server_name, const char *pci_addr, const char *rep_pci_addr, void *user_data,
			      doca_comch_event_msg_recv_cb_t client_recv_event_cb,
			      doca_comch_event_msg_recv_cb_t server_recv_event_cb, struct comch_cfg **comch_cfg)
{
	return comch_init_common(server_name, pci_addr, rep_pci_addr, user_data, client_recv_event_cb,
				 server_recv_event_cb, NULL, NULL, comch_cfg);
}

doca_error_t comch_utils_fast_path_init(const char *server_name, const char *pci_addr, const char *rep_pci_addr,
					void *user_data, doca_comch_event_msg_recv_cb_t client_recv_event_cb,
					doca_comch_event_msg_recv_cb_t server_recv_event_cb,
					doca_comch_event_consumer_cb_t new_consumer_event_cb,
					doca_comch_event_consumer_cb_t expired_consumer_event_cb,
					struct comch_cfg **comch_cfg)
{
	if (new_consumer_event_cb == NULL || expired_consumer_event_cb == NULL) {
		DOCA_LOG_ERR("Invalid parameters: fast path needs consumer event callbacks");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return comch_init_common(server_name, pci_addr, rep_pci_addr, user_data, client_recv_event_cb,
				 server_recv_event_cb, new_consumer_event_cb, expired_consumer_event_cb, comch_cfg);
}

doca_error_t comch_utils_send(struct doca_comch_connection *connection, const void *msg, uint32_t len)
{
	struct comch_cfg *cfg = cfg_from_connection(connection);
	struct doca_comch_task_send *task;
	doca_error_t result;

	if (cfg == NULL || msg == NULL || len == 0)
		return DOCA_ERROR_INVALID_VALUE;
	if (len > cfg->max_msg_size) {
		DOCA_LOG_ERR("Message of %u bytes is over the maximum of %u", len, cfg->max_msg_size);
		return DOCA_ERROR_INVALID_VALUE;
	}

	/*
	 * An interrupted program may still send (that is how it tells its peer
	 * it gives up); only the waits for a free task or queue slot, which
	 * depend on the peer, end on an interruption.
	 */
	for (;;) {
		if (!link_up(cfg))
			return DOCA_ERROR_NOT_CONNECTED;
		if (cfg->is_server)
			result = doca_comch_server_task_send_alloc_init(cfg->server, cfg->connection, msg, len, &task);
		else
			result = doca_comch_client_task_send_alloc_init(cfg->client, cfg->connection, msg, len, &task);
		if (result == DOCA_ERROR_NO_MEMORY) {
			if (comch_interrupted)
				return DOCA_ERROR_SHUTDOWN;
			/* Pool empty: let completions hand tasks back. */
			if (doca_pe_progress(cfg->pe) == 0)
				comch_sleep();
			continue;
		}
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to allocate control message task: %s", doca_error_get_descr(result));
			return result;
		}
		break;
	}

	for (;;) {
		result = doca_task_submit(doca_comch_task_send_as_task(task));
		if (result == DOCA_SUCCESS) {
			cfg->send_inflight++;
			return DOCA_SUCCESS;
		}
		if (result != DOCA_ERROR_AGAIN)
			break;
		if (doca_pe_progress(cfg->pe) == 0)
			comch_sleep();
		if (!link_up(cfg)) {
			result = DOCA_ERROR_NOT_CONNECTED;
			break;
		}
		if (comch_interrupted) {
			result = DOCA_ERROR_SHUTDOWN;
			break;
		}
	}
	DOCA_LOG_ERR("Failed to submit control message: %s", doca_error_get_descr(result));
	doca_task_free(doca_comch_task_send_as_task(task));
	return result;
}

doca_error_t comch_utils_progress_connection(struct doca_comch_connection *connection)
{
	struct comch_cfg *cfg = cfg_from_connection(connection);

	if (cfg == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	doca_pe_progress(cfg->pe);
	return comch_utils_check_connection(cfg);
}

void *comch_utils_get_user_data(struct doca_comch_connection *connection)
{
	struct comch_cfg *cfg = cfg_from_connection(connection);

	if (cfg == NULL)
		return NULL;
	/* A server answers only for the client it accepted. */
	if (cfg->is_server && connection != cfg->connection)
		return NULL;
	return cfg->user_data;
}

struct doca_comch_connection *comch_util_get_connection(struct comch_cfg *comch_cfg)
{
	if (comch_cfg == NULL || !link_up(comch_cfg))
		return NULL;
	return comch_cfg->connection;
}

struct doca_dev *comch_utils_get_device(struct comch_cfg *comch_cfg)
{
	return comch_cfg != NULL ? comch_cfg->dev : NULL;
}

uint32_t comch_utils_get_max_buffer_size(struct comch_cfg *comch_cfg)
{
	return comch_cfg != NULL ? comch_cfg->max_msg_size : 0;
}

/* Drain pending sends (while the peer is there), then stop to IDLE, bounded in time. */
static void stop_ctx(struct comch_cfg *cfg)
{
	enum doca_ctx_states state;
	uint64_t deadline = comch_now_ns() + COMCH_STOP_TIMEOUT_NS;
	doca_error_t result;

	/* Interrupted programs drain too: their last message tells the peer why they stop. */
	while (cfg->send_inflight > 0 && link_up(cfg) && comch_now_ns() < deadline) {
		if (doca_pe_progress(cfg->pe) == 0)
			comch_sleep();
	}

	if (cfg->is_server && cfg->connection != NULL && !cfg->peer_gone) {
		if (doca_comch_server_disconnect(cfg->server, cfg->connection) == DOCA_SUCCESS) {
			while (cfg->connection != NULL && comch_now_ns() < deadline) {
				if (doca_pe_progress(cfg->pe) == 0)
					comch_sleep();
			}
		}
	}

	if (doca_ctx_get_state(cfg->ctx, &state) != DOCA_SUCCESS || state == DOCA_CTX_STATE_IDLE)
		return;
	result = doca_ctx_stop(cfg->ctx);
	if (result != DOCA_SUCCESS && result != DOCA_ERROR_IN_PROGRESS && result != DOCA_ERROR_BAD_STATE)
		DOCA_LOG_ERR("Failed to stop comch context: %s", doca_error_get_descr(result));
	while (doca_ctx_get_state(cfg->ctx, &state) == DOCA_SUCCESS && state != DOCA_CTX_STATE_IDLE) {
		if (comch_now_ns() > deadline) {
			DOCA_LOG_ERR("Comch context did not reach idle state in time");
			return;
		}
		if (doca_pe_progress(cfg->pe) == 0)
			comch_sleep();
	}
}

doca_error_t comch_utils_destroy(struct comch_cfg *comch_cfg)
{
	doca_error_t result, ret = DOCA_SUCCESS;

	if (comch_cfg == NULL)
		return DOCA_ERROR_INVALID_VALUE;

	if (comch_cfg->ctx != NULL)
		stop_ctx(comch_cfg);
	comch_cfg->connection = NULL;

	if (comch_cfg->server != NULL) {
		result = doca_comch_server_destroy(comch_cfg->server);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to destroy comch server: %s", doca_error_get_descr(result));
			ret = result;
		}
	}
	if (comch_cfg->client != NULL) {
		result = doca_comch_client_destroy(comch_cfg->client);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to destroy comch client: %s", doca_error_get_descr(result));
			ret = result;
		}
	}
	if (comch_cfg->rep != NULL) {
		result = doca_dev_rep_close(comch_cfg->rep);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to close comch representor: %s", doca_error_get_descr(result));
			ret = result;
		}
	}
	if (comch_cfg->dev != NULL) {
		result = doca_dev_close(comch_cfg->dev);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to close comch device: %s", doca_error_get_descr(result));
			ret = result;
		}
	}
	if (comch_cfg->pe != NULL) {
		result = doca_pe_destroy(comch_cfg->pe);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to destroy comch progress engine: %s", doca_error_get_descr(result));
			ret = result;
		}
	}
	free(comch_cfg);
	return ret;
}
