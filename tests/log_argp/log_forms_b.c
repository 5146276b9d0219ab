/*
 * DOCA_LOG_REGISTER with a trailing ';', and without DOCA_LOGGING_ALLOW_TRACE:
 * DOCA_LOG_TRC is then an empty statement whose arguments are neither
 * evaluated nor even looked up, as with DOCA's header.
 */
#include <doca_log.h>

DOCA_LOG_REGISTER(TEST_LOG::FORMS_B);

int sd_test_forms_b(int n, int *evaluated);

int sd_test_forms_b(int n, int *evaluated)
{
	if (n > 0)
		DOCA_LOG_TRC("b-trc %d", (*evaluated)++);
	else
		DOCA_LOG_TRC("b-trc %d", name_that_exists_only_in_trace_builds);
	DOCA_LOG_INFO("b-info %d", n);
	DOCA_LOG_DBG("b-dbg %d", n);
	return 0;
}
