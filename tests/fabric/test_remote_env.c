/* SOFTDOCA_REMOTE_FORCE_FALLBACK is a switch read through sd_env_bool: "1"
 * selects /proc/<pid>/mem, unset/""/"0" the primary mechanism, and anything
 * else fails the import with an error naming the variable. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_types.h>

#include "sd_remote.h"

static uint8_t mem[8192];

/* Import this process's own export (as the other side), stderr captured. */
static doca_error_t import_self(const void *desc, size_t len, struct sd_remote **r, char *log, size_t cap)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	doca_error_t err;
	size_t n;

	assert_non_null(tmp);
	assert_true(saved >= 0);
	fflush(stderr);
	assert_true(dup2(fileno(tmp), 2) == 2);
	*r = NULL;
	err = sd_remote_import(desc, len, 0, SD_SIDE_DPU, r);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(log, 1, cap - 1, tmp);
	log[n] = '\0';
	fclose(tmp);
	return err;
}

static void test_force_fallback_switch(void **state)
{
	static const char *junk[] = {"yes", "2", " 1", "1 ", "true", "01"};
	struct sd_remote *r;
	char log[4096], want[128];
	void *desc;
	size_t len, i;
	uint8_t b;

	memset(mem, 0x5a, sizeof(mem));
	assert_int_equal(sd_remote_export(mem, sizeof(mem), DOCA_ACCESS_FLAG_PCI_READ_WRITE, 0, SD_SIDE_HOST,
					  "0000:3b:00.0", &desc, &len),
			 DOCA_SUCCESS);
	unsetenv("SOFTDOCA_REMOTE_FORCE_FALLBACK");
	assert_int_equal(import_self(desc, len, &r, log, sizeof(log)), DOCA_SUCCESS);
	assert_string_not_equal(sd_remote_mechanism(r), "proc_mem");
	sd_remote_release(r);
	setenv("SOFTDOCA_REMOTE_FORCE_FALLBACK", "0", 1);
	assert_int_equal(import_self(desc, len, &r, log, sizeof(log)), DOCA_SUCCESS);
	assert_string_not_equal(sd_remote_mechanism(r), "proc_mem");
	sd_remote_release(r);
	setenv("SOFTDOCA_REMOTE_FORCE_FALLBACK", "1", 1);
	assert_int_equal(import_self(desc, len, &r, log, sizeof(log)), DOCA_SUCCESS);
	assert_string_equal(sd_remote_mechanism(r), "proc_mem");
	assert_int_equal(sd_remote_read(r, (uint64_t)(uintptr_t)mem + 100, &b, 1), DOCA_SUCCESS);
	assert_int_equal(b, 0x5a);
	sd_remote_release(r);
	for (i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		setenv("SOFTDOCA_REMOTE_FORCE_FALLBACK", junk[i], 1);
		assert_int_equal(import_self(desc, len, &r, log, sizeof(log)), DOCA_ERROR_INVALID_VALUE);
		assert_null(r);
		snprintf(want, sizeof(want), "SOFTDOCA_REMOTE_FORCE_FALLBACK=\"%s\" is refused", junk[i]);
		if (strstr(log, want) == NULL)
			fail_msg("value \"%s\": the error does not name the variable; log:\n%s", junk[i], log);
	}
	unsetenv("SOFTDOCA_REMOTE_FORCE_FALLBACK");
	sd_remote_export_free(desc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_force_fallback_switch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
