/*
 * The consumer completion context through the public API alone: its sizes
 * are real configuration (defaults, power-of-two rounding, bounds), and what
 * needs a DPA answers NOT_SUPPORTED. No peer, no device needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <doca_comch_consumer.h>
#include <doca_error.h>

static void test_bad_args(void **state)
{
	struct doca_comch_consumer_completion *cc;
	doca_dpa_dev_comch_consumer_completion_t h;
	uint32_t v;

	(void)state;
	assert_int_equal(doca_comch_consumer_completion_create(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_start(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_stop(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_set_dpa_thread(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_get_dpa_handle(NULL, &h), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_set_max_num_consumers(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_get_max_num_consumers(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_set_max_num_recv(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_get_max_num_recv(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_set_imm_data_len(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_get_imm_data_len(NULL, &v), DOCA_ERROR_INVALID_VALUE);

	assert_int_equal(doca_comch_consumer_completion_create(&cc), DOCA_SUCCESS);
	assert_non_null(cc);
	assert_int_equal(doca_comch_consumer_completion_get_max_num_consumers(cc, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_get_max_num_recv(cc, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_get_imm_data_len(cc, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_get_dpa_handle(cc, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_set_max_num_consumers(cc, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_set_max_num_recv(cc, 0), DOCA_ERROR_INVALID_VALUE);
	/* no power of two above it fits in 32 bits */
	assert_int_equal(doca_comch_consumer_completion_set_max_num_recv(cc, (1u << 31) + 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_set_max_num_consumers(cc, UINT32_MAX),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_destroy(cc), DOCA_SUCCESS);
}

static void test_sizes(void **state)
{
	struct doca_comch_consumer_completion *cc;
	uint32_t v;

	(void)state;
	assert_int_equal(doca_comch_consumer_completion_create(&cc), DOCA_SUCCESS);
	/* defaults: one consumer, 64 receives, the maximum immediate data */
	assert_int_equal(doca_comch_consumer_completion_get_max_num_consumers(cc, &v), DOCA_SUCCESS);
	assert_int_equal(v, 1);
	assert_int_equal(doca_comch_consumer_completion_get_max_num_recv(cc, &v), DOCA_SUCCESS);
	assert_int_equal(v, 64);
	assert_int_equal(doca_comch_consumer_completion_get_imm_data_len(cc, &v), DOCA_SUCCESS);
	assert_int_equal(v, 32);

	/* rounded up to the next power of two */
	assert_int_equal(doca_comch_consumer_completion_set_max_num_consumers(cc, 5), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_completion_get_max_num_consumers(cc, &v), DOCA_SUCCESS);
	assert_int_equal(v, 8);
	assert_int_equal(doca_comch_consumer_completion_set_max_num_consumers(cc, 1), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_completion_get_max_num_consumers(cc, &v), DOCA_SUCCESS);
	assert_int_equal(v, 1);
	assert_int_equal(doca_comch_consumer_completion_set_max_num_recv(cc, 1000), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_completion_get_max_num_recv(cc, &v), DOCA_SUCCESS);
	assert_int_equal(v, 1024);
	assert_int_equal(doca_comch_consumer_completion_set_max_num_recv(cc, 1024), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_completion_get_max_num_recv(cc, &v), DOCA_SUCCESS);
	assert_int_equal(v, 1024);
	assert_int_equal(doca_comch_consumer_completion_set_max_num_recv(cc, 1u << 31), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_completion_get_max_num_recv(cc, &v), DOCA_SUCCESS);
	assert_int_equal(v, 1u << 31);
	/* a refused value leaves the previous one */
	assert_int_equal(doca_comch_consumer_completion_set_max_num_recv(cc, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_get_max_num_recv(cc, &v), DOCA_SUCCESS);
	assert_int_equal(v, 1u << 31);

	/* immediate data: 0..the consumer maximum, kept as given */
	assert_int_equal(doca_comch_consumer_completion_set_imm_data_len(cc, 33), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_completion_get_imm_data_len(cc, &v), DOCA_SUCCESS);
	assert_int_equal(v, 32);
	assert_int_equal(doca_comch_consumer_completion_set_imm_data_len(cc, 12), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_completion_get_imm_data_len(cc, &v), DOCA_SUCCESS);
	assert_int_equal(v, 12);
	assert_int_equal(doca_comch_consumer_completion_set_imm_data_len(cc, 0), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_completion_get_imm_data_len(cc, &v), DOCA_SUCCESS);
	assert_int_equal(v, 0);
	assert_int_equal(doca_comch_consumer_completion_destroy(cc), DOCA_SUCCESS);
}

/* Whatever needs the DPA declines; the context stays stopped and
 * configurable, and can be destroyed. */
static void test_needs_dpa(void **state)
{
	struct doca_comch_consumer_completion *cc;
	doca_dpa_dev_comch_consumer_completion_t h = 0;
	uint32_t v;

	(void)state;
	assert_int_equal(doca_comch_consumer_completion_create(&cc), DOCA_SUCCESS);
	/* no doca_dpa_thread can exist here: any non-NULL pointer stands in */
	assert_int_equal(doca_comch_consumer_completion_set_dpa_thread(cc, (struct doca_dpa_thread *)&h),
			 DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_comch_consumer_completion_stop(cc), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_consumer_completion_start(cc), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_comch_consumer_completion_get_dpa_handle(cc, &h), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_comch_consumer_completion_stop(cc), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_consumer_completion_set_max_num_recv(cc, 3), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_completion_get_max_num_recv(cc, &v), DOCA_SUCCESS);
	assert_int_equal(v, 4);
	assert_int_equal(doca_comch_consumer_completion_destroy(cc), DOCA_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_needs_dpa),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
