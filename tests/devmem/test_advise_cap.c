/*
 * test_advise_cap.c - the mmap-advise cache-invalidation capability comes
 * from the topology (mmap_cache_invalidate_supported, default true): on a
 * device without it the capability calls answer NOT_SUPPORTED and the task
 * cannot be configured; on one with it the task runs. The topology is read
 * once per process, so main() names the file before the first call.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_build_config.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap_advise.h>

#define OK(x) assert_int_equal((x), DOCA_SUCCESS)
#define ERR(x, e) assert_int_equal((x), (e))

#ifdef DOCA_ARCH_DPU
#define PCI_OFF "0000:03:00.0"
#define PCI_ON "0000:03:00.1"
#else
#define PCI_OFF "0000:3b:00.0"
#define PCI_ON "0000:3b:00.1"
#endif

static const char topo_text[] =
	"{\"cards\": [{"
	"\"dpu\": {\"pfs\": ["
	" {\"pci\": \"03:00.0\", \"caps\": {\"mmap_cache_invalidate_supported\": false}, \"reps\": [\"3b:00.0\"]},"
	" {\"pci\": \"03:00.1\", \"reps\": [\"3b:00.1\"]}]},"
	"\"host\": {\"functions\": ["
	" {\"pci\": \"3b:00.0\", \"caps\": {\"mmap_cache_invalidate_supported\": false}},"
	" {\"pci\": \"3b:00.1\"}]}}]}";

static void ok_cb(struct doca_mmap_advise_task_invalidate_cache *t, union doca_data tud, union doca_data cud)
{
	(void)t;
	(void)tud;
	(void)cud;
}

static struct doca_dev *open_pci(const char *pci)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint8_t is;
	uint32_t n;

	OK(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_devinfo_is_equal_pci_addr(list[i], pci, &is) == DOCA_SUCCESS && is)
			OK(doca_dev_open(list[i], &dev));
	OK(doca_devinfo_destroy_list(list));
	assert_non_null(dev);
	return dev;
}

static void bad_args(void **s)
{
	uint64_t size;

	(void)s;
	ERR(doca_mmap_advise_cap_task_cache_invalidate_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_advise_task_cache_invalidate_get_max_buf_size(NULL, &size), DOCA_ERROR_INVALID_VALUE);
}

static void device_without_cap(void **s)
{
	struct doca_dev *dev = open_pci(PCI_OFF);
	struct doca_mmap_advise *adv;
	uint64_t size = 7;

	(void)s;
	ERR(doca_mmap_advise_cap_task_cache_invalidate_is_supported(doca_dev_as_devinfo(dev)),
	    DOCA_ERROR_NOT_SUPPORTED);
	ERR(doca_mmap_advise_task_cache_invalidate_get_max_buf_size(doca_dev_as_devinfo(dev), &size),
	    DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(size, 7);
	OK(doca_mmap_advise_create(dev, &adv));
	ERR(doca_mmap_advise_task_invalidate_cache_set_conf(adv, ok_cb, ok_cb, 4), DOCA_ERROR_NOT_SUPPORTED);
	/* nothing configured: the context cannot start */
	assert_int_not_equal(doca_ctx_start(doca_mmap_advise_as_ctx(adv)), DOCA_SUCCESS);
	OK(doca_mmap_advise_destroy(adv));
	OK(doca_dev_close(dev));
}

static void device_with_cap(void **s)
{
	struct doca_dev *dev = open_pci(PCI_ON);
	struct doca_mmap_advise *adv;
	uint64_t size = 0;

	(void)s;
	OK(doca_mmap_advise_cap_task_cache_invalidate_is_supported(doca_dev_as_devinfo(dev)));
	OK(doca_mmap_advise_task_cache_invalidate_get_max_buf_size(doca_dev_as_devinfo(dev), &size));
	assert_true(size > 0);
	OK(doca_mmap_advise_create(dev, &adv));
	OK(doca_mmap_advise_task_invalidate_cache_set_conf(adv, ok_cb, ok_cb, 4));
	OK(doca_mmap_advise_destroy(adv));
	OK(doca_dev_close(dev));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bad_args),
		cmocka_unit_test(device_without_cap),
		cmocka_unit_test(device_with_cap),
	};
	char path[] = "/tmp/sd-advise-cap-XXXXXX";
	int fd = mkstemp(path), rc;

	if (fd < 0 || write(fd, topo_text, sizeof(topo_text) - 1) != (ssize_t)(sizeof(topo_text) - 1))
		return 1;
	close(fd);
	setenv("SOFTDOCA_TOPOLOGY", path, 1);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(path);
	return rc;
}
