/* The other side for the two-process Comch tests.
 * dpu flavor: a server "comch_peer NAME [greet]" that echoes messages
 *   (COMCH_PEER_REPS: one per representor named, see below); "quit"
 *   stops it cleanly, "bye-me" makes it disconnect the sender; with greet it
 *   sends "greet" from inside its connection callback, right behind the
 *   handshake.
 * host flavor: a client "comch_peer NAME stay|leave|mute" (of the host
 *   function COMCH_PEER_PCI, else the first) that sends
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
/* One server per representor: COMCH_PEER_REPS="PCI[,PCI...]" (at most
 * MAX_REPS) serves those host functions under the same name from one
 * process, and answers "ping" with "ping@<its representor>" so that a
 * client can tell which one it reached; else the representor of HOST_FN,
 * echoing. */
#define MAX_REPS 4
static struct doca_comch_server *servers[MAX_REPS];
static char rep_pci[MAX_REPS][DOCA_DEVINFO_REP_PCI_ADDR_SIZE];
static struct doca_dev_rep *reps[MAX_REPS];
static int nservers;
static bool tagged;

static void reply(struct doca_comch_server *s, struct doca_comch_connection *c, const void *msg, uint32_t len)
{
	struct doca_comch_task_send *t;

	if (doca_comch_server_task_send_alloc_init(s, c, msg, len, &t) == DOCA_SUCCESS &&
	    doca_task_submit(doca_comch_task_send_as_task(t)) != DOCA_SUCCESS)
		doca_task_free(doca_comch_task_send_as_task(t));
}

static void on_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
	struct doca_comch_server *s = doca_comch_server_get_server_ctx(c);
	char m[64];

	if (len == 4 && memcmp(buf, "quit", 4) == 0) {
		quit_flag = 1;
		return;
	}
	if (len == 6 && memcmp(buf, "bye-me", 6) == 0) {
		doca_comch_server_disconnect(s, c);
		return;
	}
	for (int i = 0; tagged && i < nservers; i++) {
		if (servers[i] == s && len == 4 && memcmp(buf, "ping", 4) == 0) {
			snprintf(m, sizeof(m), "ping@%s", rep_pci[i]);
			reply(s, c, m, (uint32_t)strlen(m));
			return;
		}
	}
	reply(s, c, buf, len);
}

static bool greet;

static void on_connect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
		       uint8_t ok)
{
	say("CONNECT");
	if (greet)
		reply(doca_comch_server_get_server_ctx(c), c, "greet", 5);
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
			  uint8_t ok)
{
	say("DISCONNECT");
}

/* The representors named in list (comma-separated), each opened with the
 * Arm-side function it belongs to (PF1's host function is a representor of
 * 03:00.1), into devs[] and reps[]. */
static struct doca_dev *devs[MAX_REPS];

static int open_reps(const char *list)
{
	struct doca_devinfo **all;
	char want[256], *tok, *save = NULL;
	uint32_t ndev;

	if (doca_devinfo_create_list(&all, &ndev) != DOCA_SUCCESS)
		return -1;
	snprintf(want, sizeof(want), "%s", list);
	for (tok = strtok_r(want, ",", &save); tok != NULL && nservers < MAX_REPS; tok = strtok_r(NULL, ",", &save)) {
		uint32_t d;

		for (d = 0; d < ndev; d++) {
			if (doca_dev_open(all[d], &devs[nservers]) != DOCA_SUCCESS)
				continue;
			if (cu_open_rep_pci(devs[nservers], tok, &reps[nservers]) == DOCA_SUCCESS)
				break;
			doca_dev_close(devs[nservers]);
		}
		if (d == ndev)
			break;
		snprintf(rep_pci[nservers], sizeof(rep_pci[nservers]), "%s", tok);
		nservers++;
	}
	doca_devinfo_destroy_list(all);
	return nservers > 0 && tok == NULL ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *list = getenv("COMCH_PEER_REPS");
	uint64_t end = cu_now_ms() + 30000;

	if (argc < 2)
		return 2;
	if (list != NULL && list[0] != '\0') {
		tagged = true;
		if (open_reps(list) != 0)
			return 2;
	} else {
		if (cu_open_dev(&devs[0]) != DOCA_SUCCESS || cu_open_rep(devs[0], &reps[0]) != DOCA_SUCCESS)
			return 2;
		nservers = 1;
	}
	greet = argc > 2 && strcmp(argv[2], "greet") == 0;
	if (doca_pe_create(&pe) != DOCA_SUCCESS)
		return 3;
	for (int i = 0; i < nservers; i++) {
		struct doca_ctx *ctx;

		if (doca_comch_server_create(devs[i], reps[i], argv[1], &servers[i]) != DOCA_SUCCESS)
			return 3;
		ctx = doca_comch_server_as_ctx(servers[i]);
		doca_comch_server_task_send_set_conf(servers[i], sent, sent, 64);
		doca_comch_server_event_msg_recv_register(servers[i], on_msg);
		doca_comch_server_event_connection_status_changed_register(servers[i], on_connect, on_disconnect);
		doca_pe_connect_ctx(pe, ctx);
		if (doca_ctx_start(ctx) != DOCA_SUCCESS)
			return 4;
	}
	say("READY");
	while (!quit_flag && cu_now_ms() < end)
		if (!doca_pe_progress(pe))
			cu_nap();
	for (int i = 0; i < nservers; i++) {
		struct doca_ctx *ctx = doca_comch_server_as_ctx(servers[i]);

		if (doca_ctx_stop(ctx) != DOCA_SUCCESS)
			cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE, 3000);
		doca_comch_server_destroy(servers[i]);
		doca_dev_rep_close(reps[i]);
		doca_dev_close(devs[i]);
	}
	doca_pe_destroy(pe);
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

	if (argc < 3 || cu_open_dev_pci(getenv("COMCH_PEER_PCI"), &dev) != DOCA_SUCCESS)
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
