/*
 * diag_stall.c - a program that stops making progress, for the stuck-program
 * warning (SOFTDOCA_STALL_WARN_MS). It runs a null context (tests/core) and
 * polls its PE for MS milliseconds while:
 *   hold     one task is in flight and never completes
 *   describe the context says what it waits for (describe_wait), no task
 *   idle     nothing is in flight (no warning expected)
 *   reset    hold MS, complete the task, hold a new one MS again
 *   notify   hold, waiting on the notification handle (epoll, 1 ms timeout)
 *   late     idle MS (a context that can describe its waits but has nothing
 *            to say), then hold one task MS/6: it is timed from about its
 *            submission, so no warning is expected
 * It prints "pe_create: <error>" and exits 3 when doca_pe_create refuses
 * the environment.
 *
 * usage: diag_stall hold|describe|idle|reset|notify|late MS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <doca_pe.h>

#include "null_ctx.h"

static void cb(struct doca_task *task, union doca_data td, union doca_data cd)
{
	(void)td;
	(void)cd;
	doca_task_free(task);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void poll_for(struct doca_pe *pe, uint64_t ms, int epfd)
{
	struct timespec pause = {0, 100000};
	uint64_t end = now_ms() + ms;
	struct epoll_event ev;

	while (now_ms() < end) {
		if (doca_pe_progress(pe) != 0)
			continue;
		if (epfd >= 0) {
			if (doca_pe_request_notification(pe) != DOCA_SUCCESS)
				exit(2);
			(void)epoll_wait(epfd, &ev, 1, 1);
			(void)doca_pe_clear_notification(pe, 0);
		} else {
			nanosleep(&pause, NULL);
		}
	}
}

static void submit_held(struct null_ctx *nc)
{
	struct null_task *t;
	union doca_data d = {.u64 = 0};

	if (null_task_alloc(nc, 1, d, &t) != DOCA_SUCCESS || doca_task_submit(&t->base) != DOCA_SUCCESS) {
		fprintf(stderr, "diag_stall: submit failed\n");
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct doca_pe *pe;
	struct null_ctx *nc;
	doca_notification_handle_t h;
	const char *mode;
	uint64_t ms;
	doca_error_t rc;
	int epfd = -1;

	if (argc != 3) {
		fprintf(stderr, "usage: diag_stall hold|describe|idle|reset|notify|late MS\n");
		return 2;
	}
	mode = argv[1];
	ms = strtoull(argv[2], NULL, 10);
	rc = doca_pe_create(&pe);
	if (rc != DOCA_SUCCESS) {
		printf("pe_create: %s\n", doca_error_get_name(rc));
		return 3;
	}
	if (null_ctx_create(&nc) != DOCA_SUCCESS || null_ctx_set_conf(nc, cb, cb, 4) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(pe, null_ctx_as_ctx(nc)) != DOCA_SUCCESS)
		return 2;
	nc->mode = NULL_MODE_HOLD;
	if (strcmp(mode, "describe") == 0)
		nc->wait_text = "null ctx waiting for its test peer";
	if (doca_ctx_start(null_ctx_as_ctx(nc)) != DOCA_SUCCESS)
		return 2;
	if (strcmp(mode, "notify") == 0) {
		if (doca_pe_get_notification_handle(pe, &h) != DOCA_SUCCESS)
			return 2;
		epfd = epoll_create1(0);
		struct epoll_event ev = {.events = EPOLLIN};
		if (epfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, h, &ev) != 0)
			return 2;
	}
	if (strcmp(mode, "hold") == 0 || strcmp(mode, "reset") == 0 || strcmp(mode, "notify") == 0)
		submit_held(nc);
	poll_for(pe, ms, epfd);
	if (strcmp(mode, "late") == 0) {
		submit_held(nc);
		poll_for(pe, ms / 6, -1);
	}
	if (strcmp(mode, "reset") == 0) {
		fprintf(stderr, "diag_stall: completing the held task\n");
		null_ctx_release(nc);
		nc->mode = NULL_MODE_HOLD;
		poll_for(pe, 10, -1);
		submit_held(nc);
		poll_for(pe, ms, -1);
	}
	(void)doca_ctx_stop(null_ctx_as_ctx(nc));
	while (doca_pe_progress(pe) != 0)
		;
	if (null_ctx_destroy(nc) != DOCA_SUCCESS || doca_pe_destroy(pe) != DOCA_SUCCESS)
		return 2;
	if (epfd >= 0)
		close(epfd);
	printf("diag_stall: %s done\n", mode);
	return 0;
}
