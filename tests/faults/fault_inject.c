/*
 * fault_inject - the programs the SOFTDOCA_FAULTS tests run (suite 'faults',
 * driven by fault_inject.sh). Public API only: what a DOCA developer's own
 * program would see under the variable.
 *
 *   dma N SIZE [SIZE...]   local DMA memcpy of N tasks (sizes used in turn),
 *                          submitted one at a time; prints one line per task
 *                          ("task I SIZE STATUS") and every context state
 *                          change ("state FROM TO"); stops submitting once
 *                          the context is no longer running
 *   dmabatch N SIZE        N tasks submitted at once, then progressed: the
 *                          same lines
 *   create                 doca_pe_create + doca_dma_create, prints the result
 *   server NAME            Comch server (dpu flavor): prints "recv SEQ MS" per
 *                          message (MS since the first), "disconnected" when the
 *                          client goes; exits on message "end" or a disconnect
 *   client NAME N GAP_US   Comch client: sends "SEQ" for SEQ = 1..N, one every
 *                          GAP_US, then "end"; prints "sent SEQ STATUS" per send
 *                          completion and "state FROM TO" per change; exits
 *                          when all are done or its context is idle
 */
#define _GNU_SOURCE
#include "fp_util.h"

#include <doca_dma.h>

static const char *st_name(enum doca_ctx_states s)
{
	switch (s) {
	case DOCA_CTX_STATE_IDLE:
		return "IDLE";
	case DOCA_CTX_STATE_STARTING:
		return "STARTING";
	case DOCA_CTX_STATE_RUNNING:
		return "RUNNING";
	case DOCA_CTX_STATE_STOPPING:
		return "STOPPING";
	}
	return "?";
}

static void on_state(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev,
		     enum doca_ctx_states next)
{
	printf("state %s %s\n", st_name(prev), st_name(next));
	fflush(stdout);
}

static enum doca_ctx_states state_of(struct doca_ctx *ctx)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	doca_ctx_get_state(ctx, &st);
	return st;
}

/* ---- DMA ------------------------------------------------------------------ */

#define DMA_MAX_TASKS 16
#define DMA_MAX_BYTES ((1u << 20) + 4096u)

static uint32_t dma_done;

static void dma_cb(struct doca_dma_task_memcpy *t, union doca_data tu, union doca_data cu)
{
	struct doca_task *task = doca_dma_task_memcpy_as_task(t);
	const struct doca_buf *src = doca_dma_task_memcpy_get_src(t);
	size_t len = 0;

	doca_buf_get_data_len(src, &len);
	printf("task %llu %zu %s\n", (unsigned long long)tu.u64, len, doca_error_get_name(doca_task_get_status(task)));
	fflush(stdout);
	dma_done++;
	doca_task_free(task);
}

static struct doca_dev *open_dma_dev(void)
{
	struct doca_devinfo **list = NULL;
	struct doca_dev *dev = NULL;
	uint32_t n = 0;

	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		return NULL;
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS &&
		    doca_dev_open(list[i], &dev) != DOCA_SUCCESS)
			dev = NULL;
	doca_devinfo_destroy_list(list);
	return dev;
}

static int run_dma(int argc, char **argv, bool batch)
{
	uint32_t n = (uint32_t)atoi(argv[0]), nsizes = (uint32_t)(argc - 1), submitted = 0;
	struct doca_dev *dev = open_dma_dev();
	struct doca_pe *pe = NULL;
	struct doca_dma *dma = NULL;
	struct fp_mem src, dst;
	double end;
	doca_error_t e;

	if (n == 0 || n > DMA_MAX_TASKS || nsizes == 0 || dev == NULL) {
		fprintf(stderr, "fault_inject: bad arguments or no DMA device\n");
		return 2;
	}
	if ((e = doca_pe_create(&pe)) != DOCA_SUCCESS || (e = doca_dma_create(dev, &dma)) != DOCA_SUCCESS)
		goto fail;
	if ((e = fp_mem_init(&src, dev, DMA_MAX_BYTES, n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE)) != DOCA_SUCCESS ||
	    (e = fp_mem_init(&dst, dev, DMA_MAX_BYTES, n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE)) != DOCA_SUCCESS)
		goto fail;
	if ((e = doca_dma_task_memcpy_set_conf(dma, dma_cb, dma_cb, n)) != DOCA_SUCCESS ||
	    (e = doca_ctx_set_state_changed_cb(doca_dma_as_ctx(dma), on_state)) != DOCA_SUCCESS ||
	    (e = doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma))) != DOCA_SUCCESS ||
	    (e = doca_ctx_start(doca_dma_as_ctx(dma))) != DOCA_SUCCESS)
		goto fail;
	end = fp_now() + 10;
	for (uint32_t i = 0; i < n; i++) {
		struct doca_dma_task_memcpy *t;
		size_t len = (size_t)strtoull(argv[1 + i % nsizes], NULL, 10);
		uint32_t want = dma_done + 1;

		if (state_of(doca_dma_as_ctx(dma)) != DOCA_CTX_STATE_RUNNING)
			break;
		memset(src.addr + (size_t)i * DMA_MAX_BYTES, 'a' + (int)(i % 26), len);
		doca_buf_set_data(src.bufs[i], src.addr + (size_t)i * DMA_MAX_BYTES, len);
		if ((e = doca_dma_task_memcpy_alloc_init(dma, src.bufs[i], dst.bufs[i], (union doca_data){.u64 = i + 1},
							 &t)) != DOCA_SUCCESS ||
		    (e = doca_task_submit(doca_dma_task_memcpy_as_task(t))) != DOCA_SUCCESS)
			goto fail;
		submitted++;
		while (!batch && dma_done < want && fp_now() < end)
			doca_pe_progress(pe);
	}
	while (dma_done < submitted && fp_now() < end)
		doca_pe_progress(pe);
	/* Destinations: a failed task must leave its destination empty. */
	for (uint32_t i = 0; i < submitted; i++) {
		size_t len = 0;

		doca_buf_get_data_len(dst.bufs[i], &len);
		printf("dst %u %zu\n", i + 1, len);
	}
	if (state_of(doca_dma_as_ctx(dma)) == DOCA_CTX_STATE_RUNNING)
		doca_ctx_stop(doca_dma_as_ctx(dma));
	while (state_of(doca_dma_as_ctx(dma)) != DOCA_CTX_STATE_IDLE && fp_now() < end)
		doca_pe_progress(pe);
	printf("final %s submitted %u completed %u\n", st_name(state_of(doca_dma_as_ctx(dma))), submitted, dma_done);
	doca_dma_destroy(dma);
	fp_mem_fini(&src);
	fp_mem_fini(&dst);
	doca_pe_destroy(pe);
	doca_dev_close(dev);
	return 0;
fail:
	printf("error %s\n", doca_error_get_name(e));
	return 1;
}

static int run_create(void)
{
	struct doca_dev *dev = open_dma_dev();
	struct doca_pe *pe = NULL;
	struct doca_dma *dma = NULL;
	doca_error_t e;

	if (dev == NULL)
		return 2;
	e = doca_pe_create(&pe);
	if (e == DOCA_SUCCESS)
		e = doca_dma_create(dev, &dma);
	printf("create %s\n", doca_error_get_name(e));
	if (dma != NULL)
		doca_dma_destroy(dma);
	if (pe != NULL)
		doca_pe_destroy(pe);
	doca_dev_close(dev);
	return 0;
}

/* ---- Comch ---------------------------------------------------------------- */

static struct {
	struct doca_comch_connection *conn;
	bool gone, end;
	double t0;
	uint32_t done, sent_ok;
} C;

static void srv_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
	char m[32];

	if (len == 0 || len >= sizeof(m))
		return;
	memcpy(m, buf, len);
	m[len] = '\0';
	if (strcmp(m, "end") == 0) {
		C.end = true;
		return;
	}
	if (C.t0 == 0)
		C.t0 = fp_now();
	printf("recv %s %.1f\n", m, (fp_now() - C.t0) * 1000);
	fflush(stdout);
}

static void srv_conn(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
		     uint8_t ok)
{
	if (ok)
		C.conn = c;
}

static void srv_disconn(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *c,
			uint8_t ok)
{
	printf("disconnected\n");
	fflush(stdout);
	C.gone = true;
}

static void send_cb(struct doca_comch_task_send *t, union doca_data tu, union doca_data cu)
{
	struct doca_task *task = doca_comch_task_send_as_task(t);
	doca_error_t st = doca_task_get_status(task);

	if (tu.u64 != 0)
		printf("sent %llu %s\n", (unsigned long long)tu.u64, doca_error_get_name(st));
	fflush(stdout);
	if (st == DOCA_SUCCESS)
		C.sent_ok++;
	C.done++;
	doca_task_free(task);
}

static void no_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *c)
{
}

static int run_server(const char *name)
{
	struct doca_dev *dev = fp_open_dev(FP_DPU_PCI);
	struct doca_dev_rep *rep = dev != NULL ? fp_open_rep(dev, FP_HOST_PCI) : NULL;
	struct doca_comch_server *srv = NULL;
	struct doca_pe *pe = NULL;
	double end = fp_now() + 20, stop;
	doca_error_t e;

	if (rep == NULL) {
		fprintf(stderr, "fault_inject: no device\n");
		return 2;
	}
	if ((e = doca_pe_create(&pe)) != DOCA_SUCCESS || (e = doca_comch_server_create(dev, rep, name, &srv)) != DOCA_SUCCESS ||
	    (e = doca_comch_server_task_send_set_conf(srv, send_cb, send_cb, 16)) != DOCA_SUCCESS ||
	    (e = doca_comch_server_event_msg_recv_register(srv, srv_msg)) != DOCA_SUCCESS ||
	    (e = doca_comch_server_event_connection_status_changed_register(srv, srv_conn, srv_disconn)) != DOCA_SUCCESS ||
	    (e = doca_pe_connect_ctx(pe, doca_comch_server_as_ctx(srv))) != DOCA_SUCCESS ||
	    (e = doca_ctx_start(doca_comch_server_as_ctx(srv))) != DOCA_SUCCESS) {
		printf("error %s\n", doca_error_get_name(e));
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	while (!C.end && !C.gone && fp_now() < end)
		doca_pe_progress(pe);
	printf("server %s\n", C.end ? "end" : C.gone ? "gone" : "timeout");
	doca_ctx_stop(doca_comch_server_as_ctx(srv));
	stop = fp_now() + 5;
	while (state_of(doca_comch_server_as_ctx(srv)) != DOCA_CTX_STATE_IDLE && fp_now() < stop)
		doca_pe_progress(pe);
	doca_comch_server_destroy(srv);
	doca_pe_destroy(pe);
	doca_dev_rep_close(rep);
	doca_dev_close(dev);
	return 0;
}

static doca_error_t client_send(struct doca_comch_client *cli, const char *m, uint64_t tag)
{
	struct doca_comch_task_send *t;
	doca_error_t e;

	e = doca_comch_client_task_send_alloc_init(cli, C.conn, m, (uint32_t)strlen(m), &t);
	if (e != DOCA_SUCCESS)
		return e;
	doca_task_set_user_data(doca_comch_task_send_as_task(t), (union doca_data){.u64 = tag});
	e = doca_task_submit(doca_comch_task_send_as_task(t));
	if (e != DOCA_SUCCESS)
		doca_task_free(doca_comch_task_send_as_task(t));
	return e;
}

static int run_client(const char *name, uint32_t n, uint32_t gap_us)
{
	struct doca_dev *dev = fp_open_dev(FP_HOST_PCI);
	struct doca_comch_client *cli = NULL;
	struct doca_pe *pe = NULL;
	struct doca_ctx *ctx;
	double end = fp_now() + 20, next = 0;
	uint32_t submitted = 0;
	doca_error_t e;

	if (dev == NULL)
		return 2;
	if ((e = doca_pe_create(&pe)) != DOCA_SUCCESS || (e = doca_comch_client_create(dev, name, &cli)) != DOCA_SUCCESS ||
	    (e = doca_comch_client_task_send_set_conf(cli, send_cb, send_cb, 64)) != DOCA_SUCCESS ||
	    (e = doca_comch_client_event_msg_recv_register(cli, no_msg)) != DOCA_SUCCESS ||
	    (e = doca_ctx_set_state_changed_cb(doca_comch_client_as_ctx(cli), on_state)) != DOCA_SUCCESS ||
	    (e = doca_pe_connect_ctx(pe, doca_comch_client_as_ctx(cli))) != DOCA_SUCCESS) {
		printf("error %s\n", doca_error_get_name(e));
		return 1;
	}
	ctx = doca_comch_client_as_ctx(cli);
	e = doca_ctx_start(ctx);
	if (e != DOCA_SUCCESS && e != DOCA_ERROR_IN_PROGRESS) {
		printf("error %s\n", doca_error_get_name(e));
		return 1;
	}
	while (state_of(ctx) != DOCA_CTX_STATE_RUNNING && fp_now() < end)
		doca_pe_progress(pe);
	if (doca_comch_client_get_connection(cli, &C.conn) != DOCA_SUCCESS)
		return 1;
	/* Sends paced by GAP_US; completions and the link's events in between. */
	while (state_of(ctx) == DOCA_CTX_STATE_RUNNING && C.done < n + 1 && fp_now() < end) {
		if (submitted <= n && fp_now() >= next) {
			char m[24];

			if (submitted < n)
				snprintf(m, sizeof(m), "%u", submitted + 1);
			else
				strcpy(m, "end");
			e = client_send(cli, m, submitted < n ? submitted + 1 : 0);
			if (e == DOCA_SUCCESS) {
				submitted++;
				next = fp_now() + gap_us / 1e6;
			} else if (e != DOCA_ERROR_NO_MEMORY) {
				printf("submit %u %s\n", submitted + 1, doca_error_get_name(e));
				break;
			}
		}
		doca_pe_progress(pe);
	}
	/* Let the client's own stop (a dead peer) run to IDLE, or stop it. */
	if (state_of(ctx) == DOCA_CTX_STATE_RUNNING)
		doca_ctx_stop(ctx);
	while (state_of(ctx) != DOCA_CTX_STATE_IDLE && fp_now() < end + 5)
		doca_pe_progress(pe);
	printf("final %s done %u ok %u\n", st_name(state_of(ctx)), C.done, C.sent_ok);
	doca_comch_client_destroy(cli);
	doca_pe_destroy(pe);
	doca_dev_close(dev);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 4 && strcmp(argv[1], "dma") == 0)
		return run_dma(argc - 2, argv + 2, false);
	if (argc == 4 && strcmp(argv[1], "dmabatch") == 0)
		return run_dma(argc - 2, argv + 2, true);
	if (argc == 2 && strcmp(argv[1], "create") == 0)
		return run_create();
	if (argc == 3 && strcmp(argv[1], "server") == 0)
		return run_server(argv[2]);
	if (argc == 5 && strcmp(argv[1], "client") == 0)
		return run_client(argv[2], (uint32_t)atoi(argv[3]), (uint32_t)atoi(argv[4]));
	fprintf(stderr, "usage: fault_inject dma N SIZE... | dmabatch N SIZE | create | server NAME | "
			"client NAME N GAP_US\n");
	return 2;
}
