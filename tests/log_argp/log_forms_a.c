/*
 * The logging macros where DOCA programs put them, built with -Werror:
 * DOCA_LOG_REGISTER without a trailing ';', and with trace enabled.
 */
#define DOCA_LOGGING_ALLOW_TRACE
#include <doca_log.h>

DOCA_LOG_REGISTER(TEST_LOG::FORMS_A)

int sd_test_forms_a(int n);
int sd_test_forms_a_ctor_registered(void);

static int registered_in_ctor;

/* a program's own constructor may already log: the source is registered before it */
static void __attribute__((constructor)) forms_a_ctor(void)
{
	registered_in_ctor = log_source >= 0;
}

int sd_test_forms_a_ctor_registered(void)
{
	return registered_in_ctor;
}

int sd_test_forms_a(int n)
{
	doca_error_t r;
	int i;

	if (n == 1)
		DOCA_LOG_INFO("if-branch %d", n);
	else
		DOCA_LOG_INFO("else-branch %d", n);

	if (n != 1)
		goto out;
	DOCA_LOG_DBG("before label");
again:
	DOCA_LOG_INFO("after label %d", n);
	if (n++ == 0)
		goto again;

	for (i = 0; i < 1; i++)
		DOCA_LOG_INFO("loop %d", i);
	while (0)
		DOCA_LOG_ERR("never");
out:
	switch (n) {
	case 2:
		DOCA_LOG_INFO("case %d", n);
		break;
	default:
		DOCA_LOG_TRC("trace %d", n);
	}
	r = DOCA_LOG_INFO("as expression");
	(void)DOCA_LOG(DOCA_LOG_LEVEL_WARNING, "generic DOCA_LOG");
	DOCA_LOG_TRC("trace on");
	DOCA_LOG_CRIT("crit");
	return r == DOCA_SUCCESS ? 0 : 1;
}
