/*
 * What a program built against DOCA 3.3's own doca_log.h links against: its
 * macros call doca_log() and doca_log_register_source(). This file does not
 * include our header; it declares the two functions as DOCA documents them,
 * so linking it proves the symbols exist under those names.
 */
#include <stdint.h>

typedef int sd_abi_error_t; /* doca_error_t is an int-sized enum */

sd_abi_error_t doca_log(uint32_t level, int source, const char *fname, int line, const char *func,
			const char *format, ...);
sd_abi_error_t doca_log_register_source(const char *source_name, int *source);
sd_abi_error_t doca_log_unregister_source(int source);

int sd_test_abi_log(const char *msg);

int sd_test_abi_log(const char *msg)
{
	int source = -1;

	if (doca_log_register_source("TEST_LOG::ABI", &source) != 0)
		return 1;
	if (doca_log(30, source, __FILE__, __LINE__, __func__, "%s", msg) != 0)
		return 1;
	return doca_log_unregister_source(source) != 0;
}
