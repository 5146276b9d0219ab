/* Helpers shared by the Comch control-path tests and their peer program. */
#ifndef COMCH_UTIL_H_
#define COMCH_UTIL_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <doca_build_config.h>
#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>

#define HOST_FN "0000:3b:00.0"

static inline uint64_t cu_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static inline void cu_nap(void)
{
	struct timespec ts = {0, 200000};

	nanosleep(&ts, NULL);
}

/* The device of this side at PCI address want (NULL or "": the first one). */
static inline doca_error_t cu_open_dev_pci(const char *want, struct doca_dev **dev)
{
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
	struct doca_devinfo **list;
	uint32_t n, i;
	doca_error_t err = doca_devinfo_create_list(&list, &n);

	if (err != DOCA_SUCCESS)
		return err;
	err = DOCA_ERROR_NOT_FOUND;
	for (i = 0; i < n; i++) {
		if (want == NULL || want[0] == '\0' ||
		    (doca_devinfo_get_pci_addr_str(list[i], pci) == DOCA_SUCCESS && strcmp(pci, want) == 0)) {
			err = doca_dev_open(list[i], dev);
			break;
		}
	}
	doca_devinfo_destroy_list(list);
	return err;
}

/* The first device of this side (03:00.0 on the Arm side, 3b:00.0 on the host). */
static inline doca_error_t cu_open_dev(struct doca_dev **dev)
{
	return cu_open_dev_pci(NULL, dev);
}

/* dev's representor of the host function at PCI address want. */
static inline doca_error_t cu_open_rep_pci(struct doca_dev *dev, const char *want, struct doca_dev_rep **rep)
{
	struct doca_devinfo_rep **list;
	char pci[DOCA_DEVINFO_REP_PCI_ADDR_SIZE];
	uint32_t n, i;
	doca_error_t err = doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &list, &n);

	if (err != DOCA_SUCCESS)
		return err;
	err = DOCA_ERROR_NOT_FOUND;
	for (i = 0; i < n; i++) {
		if (doca_devinfo_rep_get_pci_addr_str(list[i], pci) == DOCA_SUCCESS && strcmp(pci, want) == 0) {
			err = doca_dev_rep_open(list[i], rep);
			break;
		}
	}
	doca_devinfo_rep_destroy_list(list);
	return err;
}

/* The representor of host function HOST_FN. */
static inline doca_error_t cu_open_rep(struct doca_dev *dev, struct doca_dev_rep **rep)
{
	return cu_open_rep_pci(dev, HOST_FN, rep);
}

static inline enum doca_ctx_states cu_state(struct doca_ctx *ctx)
{
	enum doca_ctx_states s = DOCA_CTX_STATE_IDLE;

	doca_ctx_get_state(ctx, &s);
	return s;
}

/* One turn of a bounded progress loop: false once the deadline end has
 * passed, else progress (napping when there was nothing to do). */
static inline bool cu_progress_step(struct doca_pe *pe, uint64_t end)
{
	if (cu_now_ms() > end)
		return false;
	if (!doca_pe_progress(pe))
		cu_nap();
	return true;
}

/* Progress until ctx reaches state or ms pass; true if reached. */
static inline bool cu_progress_until_state(struct doca_pe *pe, struct doca_ctx *ctx, enum doca_ctx_states want,
					   uint64_t ms)
{
	uint64_t end = cu_now_ms() + ms;

	while (cu_state(ctx) != want)
		if (!cu_progress_step(pe, end))
			return false;
	return true;
}

/* Progress until *flag reaches want or ms pass; true if reached. */
static inline bool cu_progress_until_flag(struct doca_pe *pe, volatile int *flag, int want, uint64_t ms)
{
	uint64_t end = cu_now_ms() + ms;

	while (*flag < want)
		if (!cu_progress_step(pe, end))
			return false;
	return true;
}

#endif
