/* DOCA clock conformance tests: public API only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <doca_clock.h>
#include <doca_dev.h>
#include <doca_error.h>

#define OK(x) assert_int_equal((x), DOCA_SUCCESS)
#define NS 1000000000ull

static struct doca_dev *open_dev(void)
{
	struct doca_devinfo **list = NULL;
	struct doca_dev *dev = NULL;
	uint32_t n = 0;

	OK(doca_devinfo_create_list(&list, &n));
	assert_true(n > 0);
	OK(doca_dev_open(list[0], &dev));
	doca_devinfo_destroy_list(list);
	return dev;
}

static uint64_t ts_ns(const union doca_clock_timespec_t *t)
{
	return (uint64_t)t->ts.tv_sec * NS + (uint64_t)t->ts.tv_nsec;
}

static uint64_t host_ns(clockid_t id)
{
	struct timespec ts;

	assert_int_equal(clock_gettime(id, &ts), 0);
	return (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
}

static void test_bad_args(void **state)
{
	struct doca_dev *dev = open_dev();
	struct doca_devinfo *info = doca_dev_as_devinfo(dev);
	struct doca_clock *clock;
	union doca_clock_timespec_t a, b;
	uint64_t m;

	(void)state;
	assert_int_equal(doca_clock_cap_nic_free_running_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_clock_cap_nic_real_time_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_clock_cap_nic_dpa_timer_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	OK(doca_clock_cap_nic_free_running_is_supported(info));
	OK(doca_clock_cap_nic_real_time_is_supported(info));
	assert_int_equal(doca_clock_cap_nic_dpa_timer_is_supported(info), DOCA_ERROR_NOT_SUPPORTED);

	assert_int_equal(doca_clock_create(NULL, &clock), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_clock_create(dev, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_clock_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	OK(doca_clock_create(dev, &clock));
	/* The device is in use by the clock. */
	assert_int_equal(doca_dev_close(dev), DOCA_ERROR_IN_USE);

	assert_int_equal(doca_clock_get_timestamp(NULL, DOCA_CLOCK_NIC_REAL_TIME, &a), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_clock_get_timestamp(clock, DOCA_CLOCK_NIC_REAL_TIME, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_clock_get_timestamp(clock, 0, &a), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_clock_get_timestamp(clock, 1u << 5, &a), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_clock_get_timestamp(clock, DOCA_CLOCK_NIC_FREE_RUNNING | DOCA_CLOCK_NIC_REAL_TIME, &a),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_clock_get_timestamp(clock, DOCA_CLOCK_NIC_DPA_TIMER, &a), DOCA_ERROR_NOT_SUPPORTED);

	assert_int_equal(doca_clock_get_crosstimestamp(NULL, DOCA_CLOCK_HOST_REAL_TIME, DOCA_CLOCK_NIC_REAL_TIME, &a,
						       &b, &m),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_HOST_REAL_TIME, DOCA_CLOCK_NIC_REAL_TIME,
						       NULL, &b, &m),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_HOST_REAL_TIME, DOCA_CLOCK_NIC_REAL_TIME, &a,
						       NULL, &m),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_HOST_REAL_TIME, DOCA_CLOCK_NIC_REAL_TIME, &a,
						       &b, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	/* The second clock must be a NIC clock. */
	assert_int_equal(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_NIC_REAL_TIME, DOCA_CLOCK_HOST_MONOTONIC, &a,
						       &b, &m),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_clock_get_crosstimestamp(clock, 1u << 30, DOCA_CLOCK_NIC_REAL_TIME, &a, &b, &m),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_HOST_REAL_TIME, DOCA_CLOCK_NIC_DPA_TIMER, &a,
						       &b, &m),
			 DOCA_ERROR_NOT_SUPPORTED);
	OK(doca_clock_destroy(clock));
	OK(doca_dev_close(dev));
}

/* Every clock reads; the monotonic ones never go back. */
static void test_monotonic(void **state)
{
	static const uint64_t types[] = {DOCA_CLOCK_NIC_FREE_RUNNING, DOCA_CLOCK_HOST_MONOTONIC,
					 DOCA_CLOCK_HOST_MONOTONIC_RAW};
	struct doca_dev *dev = open_dev();
	struct doca_clock *clock;
	union doca_clock_timespec_t t;
	uint64_t prev, now, c0, c1, r0, r1;
	size_t k;
	int i;

	(void)state;
	OK(doca_clock_create(dev, &clock));
	for (k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
		OK(doca_clock_get_timestamp(clock, types[k], &t));
		assert_true(t.ts.tv_nsec >= 0 && t.ts.tv_nsec < (long)NS);
		prev = ts_ns(&t);
		for (i = 0; i < 10000; i++) {
			OK(doca_clock_get_timestamp(clock, types[k], &t));
			now = ts_ns(&t);
			assert_true(now >= prev);
			prev = now;
		}
	}
	OK(doca_clock_get_timestamp(clock, DOCA_CLOCK_HOST_COUNTER_CYCLES, &t));
	c0 = t.counter;
	OK(doca_clock_get_timestamp(clock, DOCA_CLOCK_HOST_COUNTER_CYCLES, &t));
	c1 = t.counter;
	assert_true(c1 >= c0);

	/* The NIC's real-time clock is the wall clock (seconds/nanoseconds since the epoch). */
	r0 = host_ns(CLOCK_REALTIME);
	OK(doca_clock_get_timestamp(clock, DOCA_CLOCK_NIC_REAL_TIME, &t));
	r1 = host_ns(CLOCK_REALTIME);
	assert_true(ts_ns(&t) >= r0 && ts_ns(&t) <= r1);
	OK(doca_clock_get_timestamp(clock, DOCA_CLOCK_HOST_REAL_TIME, &t));
	assert_true(ts_ns(&t) >= r0);
	OK(doca_clock_destroy(clock));
	OK(doca_dev_close(dev));
}

/* A cross timestamp lies between reads taken before and after it, and its
 * margin is no wider than that window. */
static void test_cross_bracketing(void **state)
{
	struct doca_dev *dev = open_dev();
	struct doca_clock *clock;
	union doca_clock_timespec_t p, n, t0, t1;
	uint64_t m, r0, r1;
	int i;

	(void)state;
	OK(doca_clock_create(dev, &clock));
	for (i = 0; i < 100; i++) {
		/* Primary host monotonic raw, NIC real time. */
		OK(doca_clock_get_timestamp(clock, DOCA_CLOCK_HOST_MONOTONIC_RAW, &t0));
		r0 = host_ns(CLOCK_REALTIME);
		OK(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_HOST_MONOTONIC_RAW, DOCA_CLOCK_NIC_REAL_TIME, &p, &n,
						 &m));
		r1 = host_ns(CLOCK_REALTIME);
		OK(doca_clock_get_timestamp(clock, DOCA_CLOCK_HOST_MONOTONIC_RAW, &t1));
		assert_true(ts_ns(&p) >= ts_ns(&t0) && ts_ns(&p) <= ts_ns(&t1));
		assert_true(ts_ns(&n) >= r0 && ts_ns(&n) <= r1);
		assert_true(m <= ts_ns(&t1) - ts_ns(&t0));

		/* Primary host cycles: the margin is in cycles. */
		OK(doca_clock_get_timestamp(clock, DOCA_CLOCK_HOST_COUNTER_CYCLES, &t0));
		OK(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_HOST_COUNTER_CYCLES, DOCA_CLOCK_NIC_FREE_RUNNING, &p,
						 &n, &m));
		OK(doca_clock_get_timestamp(clock, DOCA_CLOCK_HOST_COUNTER_CYCLES, &t1));
		assert_true(p.counter >= t0.counter && p.counter <= t1.counter);
		assert_true(m <= t1.counter - t0.counter);
	}
	/* The same clock under two names reads exactly. */
	OK(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_NIC_FREE_RUNNING, DOCA_CLOCK_NIC_FREE_RUNNING, &p, &n, &m));
	assert_int_equal(m, 0);
	assert_int_equal(ts_ns(&p), ts_ns(&n));
	OK(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_HOST_REAL_TIME, DOCA_CLOCK_NIC_REAL_TIME, &p, &n, &m));
	assert_int_equal(m, 0);
	OK(doca_clock_destroy(clock));
	OK(doca_dev_close(dev));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_monotonic),
		cmocka_unit_test(test_cross_bracketing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
