/*
 * sync_event_peer: the other side of the sync event tests. It runs
 * commands from fd 3 (se_proto.h) one at a time and answers each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <doca_build_config.h>
#include <doca_dev.h>
#include <doca_sync_event.h>

#include "se_proto.h"

#ifdef DOCA_ARCH_DPU
#define MY_PCI "03:00.0"
#define MY_SIDE 1
#else
#define MY_PCI "3b:00.0"
#define MY_SIDE 0
#endif

static struct doca_dev *open_dev(void)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;
	uint8_t eq;

	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		return NULL;
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_devinfo_is_equal_pci_addr(list[i], MY_PCI, &eq) == DOCA_SUCCESS && eq)
			(void)doca_dev_open(list[i], &dev);
	doca_devinfo_destroy_list(list);
	return dev;
}

static void sleep_ms(uint64_t ms)
{
	struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

int main(void)
{
	struct doca_dev *dev = open_dev();
	struct doca_sync_event *ev = NULL;
	struct se_cmd cmd;
	struct se_reply rep;

	if (dev == NULL) {
		fprintf(stderr, "sync_event_peer: cannot open %s\n", MY_PCI);
		return 2;
	}
	while (recv(3, &cmd, sizeof(cmd), 0) == (ssize_t)sizeof(cmd)) {
		const uint8_t *data;
		size_t sz;

		memset(&rep, 0, sizeof(rep));
		switch (cmd.op) {
		case SE_HELLO:
			rep.value = MY_SIDE;
			break;
		case SE_EXPORT:
			rep.status = doca_sync_event_create(&ev);
			if (rep.status == DOCA_SUCCESS)
				rep.status = doca_sync_event_add_publisher_location_remote_pci(ev);
			if (rep.status == DOCA_SUCCESS)
				rep.status = doca_sync_event_add_subscriber_location_cpu(ev, dev);
			if (rep.status == DOCA_SUCCESS)
				rep.status = doca_sync_event_start(ev);
			if (rep.status == DOCA_SUCCESS)
				rep.status = doca_sync_event_export_to_remote_pci(ev, dev, &data, &sz);
			if (rep.status == DOCA_SUCCESS && sz <= sizeof(rep.desc)) {
				memcpy(rep.desc, data, sz);
				rep.desc_len = (uint32_t)sz;
			}
			break;
		case SE_IMPORT:
			rep.status = doca_sync_event_create_from_export(dev, cmd.desc, cmd.desc_len, &ev);
			if (rep.status == DOCA_SUCCESS)
				rep.status = doca_sync_event_start(ev);
			break;
		case SE_SET:
			sleep_ms(cmd.b);
			rep.status = doca_sync_event_update_set(ev, cmd.a);
			break;
		case SE_ADD:
			rep.status = doca_sync_event_update_add(ev, cmd.a, &rep.value);
			break;
		case SE_GET:
			rep.status = doca_sync_event_get(ev, &rep.value);
			break;
		case SE_WAIT_EQ:
			rep.status = doca_sync_event_wait_eq_yield(ev, cmd.a, UINT64_MAX);
			break;
		case SE_DESTROY:
			(void)doca_sync_event_stop(ev);
			rep.status = doca_sync_event_destroy(ev);
			ev = NULL;
			break;
		case SE_CRASH:
			sleep_ms(cmd.b);
			_exit(9);
		default:
			rep.status = DOCA_ERROR_INVALID_VALUE;
		}
		if (send(3, &rep, sizeof(rep), MSG_NOSIGNAL) != (ssize_t)sizeof(rep))
			break;
	}
	if (ev != NULL) {
		(void)doca_sync_event_stop(ev);
		(void)doca_sync_event_destroy(ev);
	}
	doca_dev_close(dev);
	return 0;
}
