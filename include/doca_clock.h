/*
 * doca_clock.h - DOCA clock: read the clocks of a device and of the host, one
 * at a time or as a cross timestamp (two clocks read at, as nearly as
 * possible, the same instant).
 *
 * Model: a struct doca_clock is opened on a device (doca_clock_create) and
 * reads any of the clocks named by the DOCA_CLOCK_* values, one value at a
 * time. NIC clocks and the host's time clocks are returned as seconds and
 * nanoseconds (the ts member of union doca_clock_timespec_t); the host cycle
 * counter as a raw count (the counter member). Check the NIC clocks a device
 * has with the doca_clock_cap_nic_*_is_supported queries first.
 *
 * A cross timestamp reads a NIC clock between two reads of the primary
 * clock; the primary value returned is the middle of the two, and the error
 * margin is half the distance between them, in the primary clock's units
 * (nanoseconds, or cycles for DOCA_CLOCK_HOST_COUNTER_CYCLES). Two names
 * for one clock read exactly: margin 0.
 *
 * In softdoca the NIC's free-running clock is the host's CLOCK_MONOTONIC_RAW
 * (counts from an arbitrary epoch, never steps, never slewed), the NIC's
 * real-time clock is the host's CLOCK_REALTIME (what PTP would have set the
 * card to), and the DPA timer is not emulated (NOT_SUPPORTED).
 *
 * Call order: doca_dev_open -> doca_clock_create -> doca_clock_get_timestamp /
 * doca_clock_get_crosstimestamp ... -> doca_clock_destroy -> doca_dev_close.
 *
 * Threading: reading a clock changes nothing; a doca_clock may be read from
 * any number of threads at once. Destroy it once no thread reads it.
 */
#ifndef DOCA_CLOCK_H_
#define DOCA_CLOCK_H_

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_clock;
struct doca_dev;
struct doca_devinfo;

/* The clocks (one bit each). */
#define DOCA_CLOCK_NIC_FREE_RUNNING 0x1            /* NIC free-running clock (seconds/nanoseconds) */
#define DOCA_CLOCK_NIC_REAL_TIME (0x1 << 1)        /* NIC real-time clock (seconds/nanoseconds) */
#define DOCA_CLOCK_NIC_DPA_TIMER (0x1 << 8)        /* NIC DPA timer (seconds/nanoseconds) */
#define DOCA_CLOCK_HOST_COUNTER_CYCLES (0x1 << 16) /* host cycle counter (raw count) */
#define DOCA_CLOCK_HOST_REAL_TIME (0x1 << 17)      /* host CLOCK_REALTIME (seconds/nanoseconds) */
#define DOCA_CLOCK_HOST_MONOTONIC (0x1 << 18)      /* host CLOCK_MONOTONIC (seconds/nanoseconds) */
#define DOCA_CLOCK_HOST_MONOTONIC_RAW (0x1 << 19)  /* host CLOCK_MONOTONIC_RAW (seconds/nanoseconds) */

/* One clock reading: ts for time clocks, counter for the cycle counter. */
union doca_clock_timespec_t {
	struct timespec ts;
	uint64_t counter;
};

/* DOCA_SUCCESS if the device has the clock, NOT_SUPPORTED if not. */
DOCA_EXPERIMENTAL
doca_error_t doca_clock_cap_nic_free_running_is_supported(const struct doca_devinfo *devinfo);

DOCA_EXPERIMENTAL
doca_error_t doca_clock_cap_nic_real_time_is_supported(const struct doca_devinfo *devinfo);

DOCA_EXPERIMENTAL
doca_error_t doca_clock_cap_nic_dpa_timer_is_supported(const struct doca_devinfo *devinfo);

/* Open the clocks of an opened device (the device stays in use until
 * doca_clock_destroy). */
DOCA_EXPERIMENTAL
doca_error_t doca_clock_create(const struct doca_dev *dev, struct doca_clock **clock);

DOCA_EXPERIMENTAL
doca_error_t doca_clock_destroy(struct doca_clock *clock);

/* Read one clock. INVALID_VALUE for a value that is not one DOCA_CLOCK_*,
 * NOT_SUPPORTED for a clock the device does not have. */
DOCA_EXPERIMENTAL
doca_error_t doca_clock_get_timestamp(const struct doca_clock *clock,
				      uint64_t clock_type,
				      union doca_clock_timespec_t *clock_ts);

/* Read a NIC clock (nic_clock_type: a DOCA_CLOCK_NIC_* value) together with
 * a primary clock (any DOCA_CLOCK_* value); see the top for the margin. */
DOCA_EXPERIMENTAL
doca_error_t doca_clock_get_crosstimestamp(const struct doca_clock *clock,
					   uint64_t primary_clock_type,
					   uint64_t nic_clock_type,
					   union doca_clock_timespec_t *primary_clock_ts,
					   union doca_clock_timespec_t *nic_clock_ts,
					   uint64_t *error_margin_nsecs);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_CLOCK_H_ */
