/* The other side for the two-process Comch tests.
 * dpu flavor: a server "comch_peer NAME [greet]" that echoes messages; "quit"
 *   stops it cleanly, "bye-me" makes it disconnect the sender; with greet it
 *   sends "greet" from inside its connection callback, right behind the
 *   handshake.
 * host flavor: a client "comch_peer NAME stay|leave|mute" that sends
 *   "ping", waits for the answer, then stays (until killed or disconnected),
 *   stops cleanly, or stops progressing (mute).
 * Prints progress words on stdout for the test to follow. Exits after 30 s
 * whatever happens, so a broken test never leaves it behind. */
#include <stdlib.h>
#include <unistd.h>

#include "comch_util.h"

static volatile int quit_flag, got_reply;
static struct doca_pe *pe;

static void say(const char *w)
{
	printf("%s\n", w);
	fflush(stdout);
}

static void sent(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	doca_task_free(doca_comch_task_send_as_task(task));
}

#ifdef DOCA_ARCH_DPU
static struct doca_comch_server *server;

static void on_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
	struct doca_comch_task_send *t;

	if (len == 4 && memcmp(buf, "quit", 4) == 0) {
		quit_flag = 1;
		return;
	}
	if (len == 6 && memcmp(buf, "bye-me", 6) == 0) {
		doca_comch_server_disconnect(server, c);
		return;
	}
	if (doca_comch_server_task_send_alloc_init(server, c, buf, len, &t) == DOCA_SUCCESS &&
	    doca_task_submit(doca_comch_task_send_as_task(t)) != DOCA_SUCCESS)
		doca_task_free(doca_comch_task_send_as_task(t));
}

static bool greet;

static void on_connect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
		       uint8_t ok)
{
	struct doca_comch_task_send *t;

	say("CONNECT");
	if (greet && doca_comch_server_task_send_alloc_init(server, c, "greet", 5, &t) == DOCA_SUCCESS &&
	    doca_task_submit(doca_comch_task_send_as_task(t)) != DOCA_SUCCESS)
		doca_task_free(doca_comch_task_send_as_task(t));
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
			  uint8_t ok)
{
	say("DISCONNECT");
}

int main(int argc, char **argv)
{
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_ctx *ctx;
	uint64_t end = cu_now_ms() + 30000;

	if (argc < 2 || cu_open_dev(&dev) != DOCA_SUCCESS || cu_open_rep(dev, &rep) != DOCA_SUCCESS)
		return 2;
	greet = argc > 2 && strcmp(argv[2], "greet") == 0;
	if (doca_pe_create(&pe) != DOCA_SUCCESS || doca_comch_server_create(dev, rep, argv[1], &server) != DOCA_SUCCESS)
		return 3;
	ctx = doca_comch_server_as_ctx(server);
	doca_comch_server_task_send_set_conf(server, sent, sent, 64);
	doca_comch_server_event_msg_recv_register(server, on_msg);
	doca_comch_server_event_connection_status_changed_register(server, on_connect, on_disconnect);
	doca_pe_connect_ctx(pe, ctx);
	if (doca_ctx_start(ctx) != DOCA_SUCCESS)
		return 4;
	say("READY");
	while (!quit_flag && cu_now_ms() < end)
		if (!doca_pe_progress(pe))
			cu_nap();
	if (doca_ctx_stop(ctx) != DOCA_SUCCESS)
		cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE, 3000);
	doca_comch_server_destroy(server);
	doca_pe_destroy(pe);
	doca_dev_rep_close(rep);
	doca_dev_close(dev);
	say("DONE");
	return 0;
}
#else
static void on_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
	printf("GOT %.*s\n", (int)len, buf);
	fflush(stdout);
	got_reply = 1;
}

int main(int argc, char **argv)
{
	struct doca_comch_client *client;
	struct doca_comch_connection *conn;
	struct doca_comch_task_send *t;
	struct doca_dev *dev;
	struct doca_ctx *ctx;
	bool stay;

	if (argc < 3 || cu_open_dev(&dev) != DOCA_SUCCESS)
		return 2;
	stay = strcmp(argv[2], "stay") == 0;
	if (doca_pe_create(&pe) != DOCA_SUCCESS || doca_comch_client_create(dev, argv[1], &client) != DOCA_SUCCESS)
		return 3;
	ctx = doca_comch_client_as_ctx(client);
	doca_comch_client_task_send_set_conf(client, sent, sent, 64);
	doca_comch_client_event_msg_recv_register(client, on_msg);
	doca_pe_connect_ctx(pe, ctx);
	if (doca_ctx_start(ctx) != DOCA_ERROR_IN_PROGRESS)
		return 4;
	{
		uint64_t end = cu_now_ms() + 10000;

		while (cu_state(ctx) == DOCA_CTX_STATE_STARTING && cu_now_ms() < end)
			if (!doca_pe_progress(pe))
				cu_nap();
		cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE, 500);
	}
	if (cu_state(ctx) == DOCA_CTX_STATE_IDLE) {
		say("REFUSED");
		doca_comch_client_destroy(client);
		doca_pe_destroy(pe);
		doca_dev_close(dev);
		return 8;
	}
	if (cu_state(ctx) != DOCA_CTX_STATE_RUNNING)
		return 5;
	say("RUNNING");
	if (doca_comch_client_get_connection(client, &conn) != DOCA_SUCCESS ||
	    doca_comch_client_task_send_alloc_init(client, conn, "ping", 4, &t) != DOCA_SUCCESS ||
	    doca_task_submit(doca_comch_task_send_as_task(t)) != DOCA_SUCCESS)
		return 6;
	if (!cu_progress_until_flag(pe, &got_reply, 1, 5000))
		return 7;
	if (strcmp(argv[2], "mute") == 0) {
		/* connected but never reads again: the server's sends back up */
		say("MUTE");
		sleep(30);
		return 0;
	}
	if (stay) {
		/* until the server drops us (or we are killed) */
		cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE, 30000);
		say("LOST");
	} else if (doca_ctx_stop(ctx) != DOCA_SUCCESS) {
		cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE, 3000);
	}
	doca_comch_client_destroy(client);
	doca_pe_destroy(pe);
	doca_dev_close(dev);
	say("DONE");
	return 0;
}
#endif
