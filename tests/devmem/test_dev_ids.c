/*
 * test_dev_ids.c - identity and capability queries of devices and
 * representors added for DOCA 3.3 (VHCA ids, SF index, active rate,
 * resource-reclaim and notification-moderation capabilities, representor
 * interface names), against the public headers and the default topology.
 * Topology files that set them are covered by test_topology.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <doca_build_config.h>
#include <doca_dev.h>

#define OK(x) assert_int_equal((x), DOCA_SUCCESS)
#define ERR(x, e) assert_int_equal((x), (e))

static void ids_bad_args(void **s)
{
	struct doca_devinfo **list;
	uint32_t n, sf;
	uint16_t vhca;
	uint64_t rate;
	uint8_t v;

	(void)s;
	OK(doca_devinfo_create_list(&list, &n));
	ERR(doca_devinfo_get_vhca_id(NULL, &vhca), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_get_vhca_id(list[0], NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_get_sf_index(NULL, &sf), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_get_sf_index(list[0], NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_get_active_rate(NULL, &rate), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_get_active_rate(list[0], NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_cap_is_accelerate_resource_reclaim_supported(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_cap_is_accelerate_resource_reclaim_supported(list[0], NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_cap_is_notification_moderation_supported(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_cap_is_notification_moderation_supported(list[0], NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_dev_accelerate_resource_reclaim(NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_rep_get_vhca_id(NULL, &vhca), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_rep_get_iface_name(NULL, (char[DOCA_DEVINFO_IFACE_NAME_SIZE]){0},
					    DOCA_DEVINFO_IFACE_NAME_SIZE),
	    DOCA_ERROR_INVALID_VALUE);
	OK(doca_devinfo_destroy_list(list));
}

static void ids_default_functions(void **s)
{
	struct doca_devinfo **list;
	enum doca_pci_func_type ft;
	uint16_t vhca[2];
	uint64_t rate;
	uint32_t n, sf = 77;
	uint8_t v;

	(void)s;
	OK(doca_devinfo_create_list(&list, &n));
	assert_int_equal(n, 2);
	for (uint32_t i = 0; i < n; i++) {
		OK(doca_devinfo_get_vhca_id(list[i], &vhca[i]));
		OK(doca_devinfo_get_active_rate(list[i], &rate));
		assert_true(rate == 200000000000ull);
		/* a PF has no SF index; the 3.3 samples skip non-SFs before asking */
		OK(doca_devinfo_get_pci_func_type(list[i], &ft));
		assert_int_equal(ft, DOCA_PCI_FUNC_TYPE_PF);
		ERR(doca_devinfo_get_sf_index(list[i], &sf), DOCA_ERROR_NOT_SUPPORTED);
		assert_int_equal(sf, 77); /* untouched */
		v = 9;
		OK(doca_devinfo_cap_is_accelerate_resource_reclaim_supported(list[i], &v));
		assert_int_equal(v, 0);
		v = 9;
		OK(doca_devinfo_cap_is_notification_moderation_supported(list[i], &v));
		assert_int_equal(v, 0);
	}
	assert_int_not_equal(vhca[0], vhca[1]);
#ifdef DOCA_ARCH_DPU
	/* Arm-side PFs come first on the card */
	assert_int_equal(vhca[0], 0);
	assert_int_equal(vhca[1], 1);
#else
	/* host functions follow the card's two Arm-side PFs */
	assert_int_equal(vhca[0], 2);
	assert_int_equal(vhca[1], 3);
#endif
	OK(doca_devinfo_destroy_list(list));
}

static void ids_reclaim_not_supported_by_default(void **s)
{
	struct doca_devinfo **list;
	struct doca_dev *dev;
	uint32_t n;

	(void)s;
	OK(doca_devinfo_create_list(&list, &n));
	OK(doca_dev_open(list[0], &dev));
	OK(doca_devinfo_destroy_list(list));
	ERR(doca_dev_accelerate_resource_reclaim(dev), DOCA_ERROR_NOT_SUPPORTED);
	OK(doca_dev_close(dev));
}

static void ids_representors(void **s)
{
#ifdef DOCA_ARCH_DPU
	static const char *const rep_iface[] = {"pf0hpf", "pf1hpf"};
	struct doca_devinfo **list;
	uint32_t n;

	(void)s;
	OK(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n; i++) {
		char iface[DOCA_DEVINFO_IFACE_NAME_SIZE];
		struct doca_devinfo_rep **reps;
		struct doca_dev *dev;
		uint16_t vhca;
		uint32_t nr;

		OK(doca_dev_open(list[i], &dev));
		OK(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_ALL, &reps, &nr));
		assert_int_equal(nr, 1);
		ERR(doca_devinfo_rep_get_iface_name(reps[0], iface, DOCA_DEVINFO_IFACE_NAME_SIZE - 1),
		    DOCA_ERROR_INVALID_VALUE);
		ERR(doca_devinfo_rep_get_iface_name(reps[0], NULL, sizeof(iface)), DOCA_ERROR_INVALID_VALUE);
		ERR(doca_devinfo_rep_get_vhca_id(reps[0], NULL), DOCA_ERROR_INVALID_VALUE);
		OK(doca_devinfo_rep_get_iface_name(reps[0], iface, sizeof(iface)));
		assert_string_equal(iface, rep_iface[i]);
		/* a representor reports its host function's id: 3b:00.<i> is 2 + i */
		OK(doca_devinfo_rep_get_vhca_id(reps[0], &vhca));
		assert_int_equal(vhca, 2 + i);
		OK(doca_devinfo_rep_destroy_list(reps));
		OK(doca_dev_close(dev));
	}
	OK(doca_devinfo_destroy_list(list));
#else
	(void)s;
	skip(); /* no representors on the host */
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ids_bad_args),
		cmocka_unit_test(ids_default_functions),
		cmocka_unit_test(ids_reclaim_not_supported_by_default),
		cmocka_unit_test(ids_representors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
