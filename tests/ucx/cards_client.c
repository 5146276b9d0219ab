/* One host process with a Comch client on each of several cards, for the
 * ucx_netns case where each card's Arm side is on another machine (the
 * topology's cards[i].link): "cards_client NAME PCI..." starts a client of
 * server NAME on each host function PCI (one per card), all on one PE,
 * sends "ping" on each and prints "GOT <answer> via <PCI>" for every
 * answer, then stops them all. Exit 0 when every client answered, else the
 * step that failed. Exits after 30 s whatever happens. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../comch/comch_util.h"

#define MAX_CARDS 4

static struct card {
	const char *pci;
	struct doca_dev *dev;
	struct doca_comch_client *client;
	int answered;
} cards[MAX_CARDS];
static int ncards, answers;

static void sent(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void on_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
	struct doca_comch_client *cl = doca_comch_client_get_client_ctx(c);

	(void)ev;
	for (int i = 0; i < ncards; i++)
		if (cards[i].client == cl && !cards[i].answered) {
			printf("GOT %.*s via %s\n", (int)len, buf, cards[i].pci);
			fflush(stdout);
			cards[i].answered = 1;
			answers++;
		}
}

static bool all_running(void)
{
	for (int i = 0; i < ncards; i++)
		if (cu_state(doca_comch_client_as_ctx(cards[i].client)) != DOCA_CTX_STATE_RUNNING)
			return false;
	return true;
}

int main(int argc, char **argv)
{
	struct doca_pe *pe;
	uint64_t end;
	int rc = 0;

	if (argc < 3 || argc - 2 > MAX_CARDS)
		return 2;
	if (doca_pe_create(&pe) != DOCA_SUCCESS)
		return 3;
	for (ncards = 0; ncards < argc - 2; ncards++) {
		struct card *k = &cards[ncards];
		struct doca_ctx *ctx;

		k->pci = argv[2 + ncards];
		if (cu_open_dev_pci(k->pci, &k->dev) != DOCA_SUCCESS ||
		    doca_comch_client_create(k->dev, argv[1], &k->client) != DOCA_SUCCESS)
			return 3;
		ctx = doca_comch_client_as_ctx(k->client);
		doca_comch_client_task_send_set_conf(k->client, sent, sent, 8);
		doca_comch_client_event_msg_recv_register(k->client, on_msg);
		doca_pe_connect_ctx(pe, ctx);
		if (doca_ctx_start(ctx) != DOCA_ERROR_IN_PROGRESS)
			return 4;
	}
	end = cu_now_ms() + 15000;
	while (!all_running())
		if (!cu_progress_step(pe, end))
			return 5;
	printf("RUNNING\n");
	fflush(stdout);
	for (int i = 0; i < ncards; i++) {
		struct doca_comch_connection *conn;
		struct doca_comch_task_send *t;

		if (doca_comch_client_get_connection(cards[i].client, &conn) != DOCA_SUCCESS ||
		    doca_comch_client_task_send_alloc_init(cards[i].client, conn, "ping", 4, &t) != DOCA_SUCCESS ||
		    doca_task_submit(doca_comch_task_send_as_task(t)) != DOCA_SUCCESS)
			return 6;
	}
	if (!cu_progress_until_flag(pe, &answers, ncards, 10000))
		rc = 7;
	for (int i = 0; i < ncards; i++) {
		struct doca_ctx *ctx = doca_comch_client_as_ctx(cards[i].client);

		if (doca_ctx_stop(ctx) != DOCA_SUCCESS)
			cu_progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE, 3000);
		doca_comch_client_destroy(cards[i].client);
		doca_dev_close(cards[i].dev);
	}
	doca_pe_destroy(pe);
	printf("DONE\n");
	return rc;
}
