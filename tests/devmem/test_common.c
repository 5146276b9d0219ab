/*
 * test_common.c - samples/common.c (device opening helpers, core objects,
 * hex dump) on the default topology of this flavor.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <doca_build_config.h>

#include "common.h"

#define OK(x) assert_int_equal((x), DOCA_SUCCESS)
#define ERR(x, e) assert_int_equal((x), (e))

#ifdef DOCA_ARCH_DPU
#define PCI0 "03:00.0"
#define PCI1 "0000:03:00.1"
#define IFACE1 "p1"
#else
#define PCI0 "3b:00.0"
#define PCI1 "0000:3b:00.1"
#define IFACE1 "ens1f1np1"
#endif

static doca_error_t reject_all(struct doca_devinfo *di)
{
	(void)di;
	return DOCA_ERROR_NOT_SUPPORTED;
}

static doca_error_t only_pci1(struct doca_devinfo *di)
{
	uint8_t eq = 0;

	if (doca_devinfo_is_equal_pci_addr(di, PCI1, &eq) != DOCA_SUCCESS || !eq)
		return DOCA_ERROR_NOT_SUPPORTED;
	return DOCA_SUCCESS;
}

static void expect_pci(struct doca_dev *dev, const char *pci)
{
	uint8_t eq = 0;

	OK(doca_devinfo_is_equal_pci_addr(doca_dev_as_devinfo(dev), pci, &eq));
	assert_int_equal(eq, 1);
}

static void open_helpers(void **s)
{
	struct doca_dev *dev;

	(void)s;
	ERR(open_doca_device_with_pci(NULL, NULL, &dev), DOCA_ERROR_INVALID_VALUE);
	ERR(open_doca_device_with_pci(PCI0, NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(open_doca_device_with_pci("zz", NULL, &dev), DOCA_ERROR_INVALID_VALUE);
	ERR(open_doca_device_with_pci("99:00.0", NULL, &dev), DOCA_ERROR_NOT_FOUND);
	ERR(open_doca_device_with_pci(PCI0, reject_all, &dev), DOCA_ERROR_NOT_FOUND);
	OK(open_doca_device_with_pci(PCI0, NULL, &dev));
	expect_pci(dev, PCI0);
	OK(doca_dev_close(dev));

	ERR(open_doca_device_with_ibdev_name(NULL, 6, NULL, &dev), DOCA_ERROR_INVALID_VALUE);
	ERR(open_doca_device_with_ibdev_name((const uint8_t *)"mlx5_1", 0, NULL, &dev), DOCA_ERROR_INVALID_VALUE);
	ERR(open_doca_device_with_ibdev_name((const uint8_t *)"mlx5_9", 6, NULL, &dev), DOCA_ERROR_NOT_FOUND);
	/* a prefix is not a match */
	ERR(open_doca_device_with_ibdev_name((const uint8_t *)"mlx5_", 5, NULL, &dev), DOCA_ERROR_NOT_FOUND);
	OK(open_doca_device_with_ibdev_name((const uint8_t *)"mlx5_1", 6, NULL, &dev));
	expect_pci(dev, PCI1);
	OK(doca_dev_close(dev));

	OK(open_doca_device_with_iface_name((const uint8_t *)IFACE1, strlen(IFACE1), NULL, &dev));
	expect_pci(dev, PCI1);
	OK(doca_dev_close(dev));

	ERR(open_doca_device_with_capabilities(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(open_doca_device_with_capabilities(reject_all, &dev), DOCA_ERROR_NOT_FOUND);
	OK(open_doca_device_with_capabilities(only_pci1, &dev));
	expect_pci(dev, PCI1);
	OK(doca_dev_close(dev));
}

static void open_rep_helper(void **s)
{
	struct doca_dev *dev;
	struct doca_dev_rep *rep;

	(void)s;
	OK(open_doca_device_with_pci(PCI0, NULL, &dev));
	ERR(open_doca_device_rep_with_pci(NULL, DOCA_DEVINFO_REP_FILTER_NET, "3b:00.0", &rep),
	    DOCA_ERROR_INVALID_VALUE);
	ERR(open_doca_device_rep_with_pci(dev, DOCA_DEVINFO_REP_FILTER_NET, NULL, &rep), DOCA_ERROR_INVALID_VALUE);
#ifdef DOCA_ARCH_DPU
	char pci[DOCA_DEVINFO_REP_PCI_ADDR_SIZE];

	ERR(open_doca_device_rep_with_pci(dev, DOCA_DEVINFO_REP_FILTER_NET, "3b:00.1", &rep), DOCA_ERROR_NOT_FOUND);
	ERR(open_doca_device_rep_with_pci(dev, DOCA_DEVINFO_REP_FILTER_NET, "bad", &rep), DOCA_ERROR_INVALID_VALUE);
	OK(open_doca_device_rep_with_pci(dev, DOCA_DEVINFO_REP_FILTER_NET, "3b:00.0", &rep));
	OK(doca_devinfo_rep_get_pci_addr_str(doca_dev_rep_as_devinfo(rep), pci));
	assert_string_equal(pci, "0000:3b:00.0");
	OK(doca_dev_rep_close(rep));
#else
	ERR(open_doca_device_rep_with_pci(dev, DOCA_DEVINFO_REP_FILTER_NET, "3b:00.0", &rep),
	    DOCA_ERROR_NOT_SUPPORTED);
#endif
	OK(doca_dev_close(dev));
}

static void core_objects(void **s)
{
	struct program_core_objects st;
	uint32_t n;

	(void)s;
	memset(&st, 0, sizeof(st));
	ERR(create_core_objects(NULL, 4), DOCA_ERROR_INVALID_VALUE);
	ERR(create_core_objects(&st, 4), DOCA_ERROR_INVALID_VALUE); /* no device */
	OK(open_doca_device_with_pci(PCI0, NULL, &st.dev));
	ERR(create_core_objects(&st, 0), DOCA_ERROR_INVALID_VALUE);
	OK(create_core_objects(&st, 8));
	assert_non_null(st.src_mmap);
	assert_non_null(st.dst_mmap);
	assert_non_null(st.buf_inv);
	assert_non_null(st.pe);
	OK(doca_buf_inventory_get_num_elements(st.buf_inv, &n));
	assert_int_equal(n, 8);
	/* the device is held by both mmaps */
	ERR(doca_dev_close(st.dev), DOCA_ERROR_IN_USE);
	OK(destroy_core_objects(&st));
	assert_null(st.src_mmap);
	assert_null(st.dst_mmap);
	assert_null(st.buf_inv);
	assert_null(st.pe);
	assert_null(st.dev);
	ERR(destroy_core_objects(NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(request_stop_ctx(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
}

static void hex(void **s)
{
	char *d;

	(void)s;
	d = hex_dump("ABC\x01", 4);
	assert_non_null(d);
	assert_non_null(strstr(d, "00000000  41 42 43 01 "));
	assert_non_null(strstr(d, "|ABC.|\n"));
	free(d);
	d = hex_dump("0123456789abcdefX", 17);
	assert_non_null(d);
	assert_non_null(strstr(d, "\n00000010  58 "));
	free(d);
	assert_null(hex_dump(NULL, 3));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(open_helpers),
		cmocka_unit_test(open_rep_helper),
		cmocka_unit_test(core_objects),
		cmocka_unit_test(hex),
	};

	unsetenv("SOFTDOCA_TOPOLOGY");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
