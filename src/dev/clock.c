/*
 * clock.c - DOCA clock: the NIC clocks of an emulated device, the host
 * clocks, and cross timestamps between them.
 *
 * An emulated NIC has no oscillator of its own, so its clocks are host
 * clocks with the same properties: the free-running clock is
 * CLOCK_MONOTONIC_RAW (a counter in nanoseconds that never steps and is
 * never slewed, like the card's free-running counter), the real-time clock
 * is CLOCK_REALTIME (the time PTP would keep the card at). The DPA timer
 * belongs to the DPA, which is not emulated.
 *
 * A cross timestamp brackets one read of the NIC clock between two reads of
 * the primary clock and keeps the narrowest of a few tries: the primary
 * value is the middle of the bracket, the margin half its width, rounded up.
 * When both names denote the same host clock, one read serves both and the
 * margin is 0, which is exact.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_clock.h>
#include <doca_dev.h>

#include "sd_dev.h"
#include "sd_log.h"

SD_LOG_REGISTER(CLOCK);

#define CROSS_TRIES 4
#define NSEC_PER_SEC 1000000000ull

#define NIC_CLOCKS (DOCA_CLOCK_NIC_FREE_RUNNING | DOCA_CLOCK_NIC_REAL_TIME | DOCA_CLOCK_NIC_DPA_TIMER)

struct doca_clock {
	struct doca_dev *dev;
};

/* What a DOCA_CLOCK_* value is read from here. */
enum clock_src {
	SRC_MONOTONIC_RAW,
	SRC_REALTIME,
	SRC_MONOTONIC,
	SRC_CYCLES,
};

static doca_error_t clock_src_of(uint64_t type, enum clock_src *src)
{
	switch (type) {
	case DOCA_CLOCK_NIC_FREE_RUNNING:
	case DOCA_CLOCK_HOST_MONOTONIC_RAW:
		*src = SRC_MONOTONIC_RAW;
		return DOCA_SUCCESS;
	case DOCA_CLOCK_NIC_REAL_TIME:
	case DOCA_CLOCK_HOST_REAL_TIME:
		*src = SRC_REALTIME;
		return DOCA_SUCCESS;
	case DOCA_CLOCK_HOST_MONOTONIC:
		*src = SRC_MONOTONIC;
		return DOCA_SUCCESS;
	case DOCA_CLOCK_HOST_COUNTER_CYCLES:
		*src = SRC_CYCLES;
		return DOCA_SUCCESS;
	case DOCA_CLOCK_NIC_DPA_TIMER:
		SD_LOG_ERR("Failed to read the DPA timer: no DPA is emulated");
		return DOCA_ERROR_NOT_SUPPORTED;
	default:
		SD_LOG_ERR("Failed to read clock: 0x%" PRIx64 " is not a DOCA clock type", type);
		return DOCA_ERROR_INVALID_VALUE;
	}
}

static uint64_t read_cycles(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v)::"memory");
	return v;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
#endif
}

/* Nanoseconds (or cycles for SRC_CYCLES). */
static doca_error_t read_src(enum clock_src src, uint64_t *v)
{
	struct timespec ts;
	clockid_t id;

	switch (src) {
	case SRC_CYCLES:
		*v = read_cycles();
		return DOCA_SUCCESS;
	case SRC_REALTIME:
		id = CLOCK_REALTIME;
		break;
	case SRC_MONOTONIC:
		id = CLOCK_MONOTONIC;
		break;
	case SRC_MONOTONIC_RAW:
	default:
		id = CLOCK_MONOTONIC_RAW;
		break;
	}
	if (clock_gettime(id, &ts) != 0) {
		SD_LOG_ERR("Failed to read clock: clock_gettime: %s", strerror(errno));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	*v = (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
	return DOCA_SUCCESS;
}

static void to_timespec(enum clock_src src, uint64_t v, union doca_clock_timespec_t *out)
{
	memset(out, 0, sizeof(*out));
	if (src == SRC_CYCLES) {
		out->counter = v;
		return;
	}
	out->ts.tv_sec = (time_t)(v / NSEC_PER_SEC);
	out->ts.tv_nsec = (long)(v % NSEC_PER_SEC);
}

/* ---- capabilities ---- */

static doca_error_t devinfo_ok(const struct doca_devinfo *devinfo)
{
	if (devinfo == NULL || sd_devinfo_caps(devinfo) == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_SUCCESS;
}

doca_error_t doca_clock_cap_nic_free_running_is_supported(const struct doca_devinfo *devinfo)
{
	return devinfo_ok(devinfo);
}

doca_error_t doca_clock_cap_nic_real_time_is_supported(const struct doca_devinfo *devinfo)
{
	return devinfo_ok(devinfo);
}

doca_error_t doca_clock_cap_nic_dpa_timer_is_supported(const struct doca_devinfo *devinfo)
{
	doca_error_t rc = devinfo_ok(devinfo);

	return rc != DOCA_SUCCESS ? rc : DOCA_ERROR_NOT_SUPPORTED;
}

/* ---- object ---- */

doca_error_t doca_clock_create(const struct doca_dev *dev, struct doca_clock **clock)
{
	struct doca_clock *c;

	if (dev == NULL || clock == NULL) {
		SD_LOG_ERR("Failed to create clock: %s is NULL", dev == NULL ? "dev" : "clock");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_dev_caps(dev) == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		SD_LOG_ERR("Failed to allocate clock");
		return DOCA_ERROR_NO_MEMORY;
	}
	/* The device stays open under the clock (doca_dev_close: IN_USE). */
	c->dev = (struct doca_dev *)dev;
	sd_dev_get(c->dev);
	*clock = c;
	return DOCA_SUCCESS;
}

doca_error_t doca_clock_destroy(struct doca_clock *clock)
{
	if (clock == NULL) {
		SD_LOG_ERR("Failed to destroy clock: clock is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	sd_dev_put(clock->dev);
	free(clock);
	return DOCA_SUCCESS;
}

doca_error_t doca_clock_get_timestamp(const struct doca_clock *clock, uint64_t clock_type,
				      union doca_clock_timespec_t *clock_ts)
{
	enum clock_src src;
	uint64_t v;
	doca_error_t rc;

	if (clock == NULL || clock_ts == NULL) {
		SD_LOG_ERR("Failed to read clock: %s is NULL", clock == NULL ? "clock" : "clock_ts");
		return DOCA_ERROR_INVALID_VALUE;
	}
	rc = clock_src_of(clock_type, &src);
	if (rc != DOCA_SUCCESS)
		return rc;
	rc = read_src(src, &v);
	if (rc != DOCA_SUCCESS)
		return rc;
	to_timespec(src, v, clock_ts);
	return DOCA_SUCCESS;
}

doca_error_t doca_clock_get_crosstimestamp(const struct doca_clock *clock, uint64_t primary_clock_type,
					   uint64_t nic_clock_type, union doca_clock_timespec_t *primary_clock_ts,
					   union doca_clock_timespec_t *nic_clock_ts, uint64_t *error_margin_nsecs)
{
	enum clock_src psrc, nsrc;
	uint64_t best_w = UINT64_MAX, best_p = 0, best_n = 0;
	doca_error_t rc;
	int i;

	if (clock == NULL || primary_clock_ts == NULL || nic_clock_ts == NULL || error_margin_nsecs == NULL) {
		SD_LOG_ERR("Failed to read cross timestamp: %s is NULL",
			   clock == NULL ? "clock" :
			   primary_clock_ts == NULL ? "primary_clock_ts" :
			   nic_clock_ts == NULL ? "nic_clock_ts" : "error_margin_nsecs");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((nic_clock_type & NIC_CLOCKS) == 0 || (nic_clock_type & (nic_clock_type - 1)) != 0) {
		SD_LOG_ERR("Failed to read cross timestamp: 0x%" PRIx64 " is not a NIC clock", nic_clock_type);
		return DOCA_ERROR_INVALID_VALUE;
	}
	rc = clock_src_of(primary_clock_type, &psrc);
	if (rc != DOCA_SUCCESS)
		return rc;
	rc = clock_src_of(nic_clock_type, &nsrc);
	if (rc != DOCA_SUCCESS)
		return rc;

	if (psrc == nsrc) {
		rc = read_src(psrc, &best_p);
		if (rc != DOCA_SUCCESS)
			return rc;
		to_timespec(psrc, best_p, primary_clock_ts);
		to_timespec(nsrc, best_p, nic_clock_ts);
		*error_margin_nsecs = 0;
		return DOCA_SUCCESS;
	}
	for (i = 0; i < CROSS_TRIES; i++) {
		uint64_t t1, n, t2;

		rc = read_src(psrc, &t1);
		if (rc == DOCA_SUCCESS)
			rc = read_src(nsrc, &n);
		if (rc == DOCA_SUCCESS)
			rc = read_src(psrc, &t2);
		if (rc != DOCA_SUCCESS)
			return rc;
		if (t2 < t1)
			continue; /* the primary clock stepped back (realtime set): try again */
		if (t2 - t1 < best_w) {
			best_w = t2 - t1;
			best_p = t1 + best_w / 2;
			best_n = n;
		}
	}
	if (best_w == UINT64_MAX) {
		SD_LOG_ERR("Failed to read cross timestamp: the primary clock kept stepping back");
		return DOCA_ERROR_DRIVER;
	}
	to_timespec(psrc, best_p, primary_clock_ts);
	to_timespec(nsrc, best_n, nic_clock_ts);
	*error_margin_nsecs = (best_w + 1) / 2;
	return DOCA_SUCCESS;
}
