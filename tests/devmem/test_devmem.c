/*
 * test_devmem.c - conformance of devices, mmaps, inventories and buffers
 * against the public headers only (default topology of this flavor).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_build_config.h>
#include <doca_dev.h>
#include <doca_mmap.h>

#define OK(x) assert_int_equal((x), DOCA_SUCCESS)
#define ERR(x, e) assert_int_equal((x), (e))

#ifdef DOCA_ARCH_DPU
static const char *const my_pci[] = {"0000:03:00.0", "0000:03:00.1"};
static const char *const my_iface[] = {"p0", "p1"};
#else
static const char *const my_pci[] = {"0000:3b:00.0", "0000:3b:00.1"};
static const char *const my_iface[] = {"ens1f0np0", "ens1f1np1"};
#endif

static struct doca_dev *open_first(void)
{
	struct doca_devinfo **list;
	struct doca_dev *dev;
	uint32_t n;

	OK(doca_devinfo_create_list(&list, &n));
	assert_true(n >= 1);
	OK(doca_dev_open(list[0], &dev));
	OK(doca_devinfo_destroy_list(list));
	return dev;
}

/* ---------------- devices ---------------- */

static void *lister(void *arg)
{
	struct doca_devinfo **list;
	uint32_t n;

	for (int i = 0; i < 200; i++) {
		if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS || n != 2)
			return arg;
		doca_devinfo_destroy_list(list);
	}
	return NULL;
}

/* Runs first: the topology is loaded by whichever thread gets there first. */
static void dev_concurrent_first_load(void **s)
{
	pthread_t t[8];
	void *r;

	(void)s;
	for (int i = 0; i < 8; i++)
		assert_int_equal(pthread_create(&t[i], NULL, lister, (void *)1), 0);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(pthread_join(t[i], &r), 0);
		assert_null(r);
	}
}

static void dev_bad_args(void **s)
{
	struct doca_devinfo **list;
	struct doca_dev *dev;
	uint32_t n;
	uint8_t eq;
	char buf[DOCA_DEVINFO_IFACE_NAME_SIZE];
	uint8_t mac[DOCA_DEVINFO_MAC_ADDR_SIZE];

	(void)s;
	ERR(doca_devinfo_create_list(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_create_list(&list, NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_destroy_list(NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_dev_open(NULL, &dev), DOCA_ERROR_INVALID_VALUE);
	OK(doca_dev_close(NULL)); /* documented: SUCCESS or IN_USE only; NVIDIA's cleanup relies on it */
	assert_null(doca_dev_as_devinfo(NULL));
	assert_null(doca_dev_rep_as_devinfo(NULL));
	ERR(doca_dev_rep_open(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_dev_rep_close(NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_rep_destroy_list(NULL), DOCA_ERROR_INVALID_VALUE);

	OK(doca_devinfo_create_list(&list, &n));
	ERR(doca_dev_open(list[0], NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_get_pci_addr_str(NULL, buf), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_get_pci_addr_str(list[0], NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_is_equal_pci_addr(NULL, "03:00.0", &eq), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_is_equal_pci_addr(list[0], NULL, &eq), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_is_equal_pci_addr(list[0], "03:00.0", NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_is_equal_pci_addr(list[0], "zz", &eq), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_is_equal_pci_addr(list[0], "03:00.8", &eq), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_is_equal_pci_addr(list[0], "0000:03:00.0x", &eq), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_get_iface_name(list[0], buf, DOCA_DEVINFO_IFACE_NAME_SIZE - 1), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_get_iface_name(list[0], NULL, sizeof(buf)), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_get_ibdev_name(list[0], buf, DOCA_DEVINFO_IBDEV_NAME_SIZE - 1), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_get_mac_addr(list[0], mac, 5), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_get_ipv4_addr(list[0], mac, 3), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_get_ipv6_addr(list[0], mac, 6), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_get_pci_func_type(list[0], NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_rep_cap_is_filter_net_supported(NULL, &eq), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_rep_cap_is_filter_all_supported(list[0], NULL), DOCA_ERROR_INVALID_VALUE);
	OK(doca_devinfo_destroy_list(list));
}

static void dev_default_topology(void **s)
{
	struct doca_devinfo **list;
	uint32_t n;
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE], iface[DOCA_DEVINFO_IFACE_NAME_SIZE];
	char ibdev[DOCA_DEVINFO_IBDEV_NAME_SIZE];
	uint8_t mac0[6], mac1[6], eq, v4[4], v6[16];
	enum doca_pci_func_type ft;

	(void)s;
	OK(doca_devinfo_create_list(&list, &n));
	assert_int_equal(n, 2);
	assert_null(list[2]);
	for (uint32_t i = 0; i < 2; i++) {
		char want_ib[16];

		OK(doca_devinfo_get_pci_addr_str(list[i], pci));
		assert_string_equal(pci, my_pci[i]);
		OK(doca_devinfo_get_iface_name(list[i], iface, sizeof(iface)));
		assert_string_equal(iface, my_iface[i]);
		OK(doca_devinfo_get_ibdev_name(list[i], ibdev, sizeof(ibdev)));
		snprintf(want_ib, sizeof(want_ib), "mlx5_%u", i);
		assert_string_equal(ibdev, want_ib);
		OK(doca_devinfo_get_pci_func_type(list[i], &ft));
		assert_int_equal(ft, DOCA_PCI_FUNC_TYPE_PF);
		/* both spellings, any case */
		OK(doca_devinfo_is_equal_pci_addr(list[i], my_pci[i], &eq));
		assert_int_equal(eq, 1);
		OK(doca_devinfo_is_equal_pci_addr(list[i], my_pci[i] + 5, &eq));
		assert_int_equal(eq, 1);
		OK(doca_devinfo_is_equal_pci_addr(list[i], my_pci[1 - i] + 5, &eq));
		assert_int_equal(eq, 0);
	}
	OK(doca_devinfo_is_equal_pci_addr(list[0], "0000:3B:00.0", &eq));
#ifdef DOCA_ARCH_DPU
	assert_int_equal(eq, 0);
#else
	assert_int_equal(eq, 1);
#endif
	OK(doca_devinfo_get_mac_addr(list[0], mac0, sizeof(mac0)));
	OK(doca_devinfo_get_mac_addr(list[1], mac1, sizeof(mac1)));
	assert_memory_not_equal(mac0, mac1, 6);
	ERR(doca_devinfo_get_ipv4_addr(list[0], v4, sizeof(v4)), DOCA_ERROR_NOT_FOUND); /* unconfigured */
	uint16_t lid;
	uint64_t rate;
	ERR(doca_devinfo_get_lid(list[0], &lid), DOCA_ERROR_NOT_SUPPORTED);
	OK(doca_devinfo_get_active_rate(list[0], &rate));
	assert_true(rate == 200000000000ull); /* bits/s */
	OK(doca_devinfo_cap_is_hotplug_manager_supported(list[0], &eq));
	assert_int_equal(eq, 0);
	OK(doca_devinfo_get_ipv6_addr(list[0], v6, sizeof(v6)));
	assert_int_equal(v6[0], 0xfe);
	assert_int_equal(v6[1], 0x80);
	OK(doca_devinfo_destroy_list(list));
}

static void dev_open_close_refs(void **s)
{
	struct doca_devinfo **list;
	struct doca_dev *dev, *dev2;
	struct doca_mmap *mmap;
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
	uint32_t n;

	(void)s;
	OK(doca_devinfo_create_list(&list, &n));
	OK(doca_dev_open(list[1], &dev));
	OK(doca_dev_open(list[1], &dev2));
	assert_ptr_equal(dev, dev2); /* opening again raises the open count */
	OK(doca_devinfo_destroy_list(list));
	/* opened devices outlive the list */
	OK(doca_devinfo_get_pci_addr_str(doca_dev_as_devinfo(dev), pci));
	assert_string_equal(pci, my_pci[1]);

	OK(doca_mmap_create(&mmap));
	OK(doca_mmap_add_dev(mmap, dev));
	ERR(doca_mmap_add_dev(mmap, dev), DOCA_ERROR_ALREADY_EXIST);
	OK(doca_dev_close(dev2));                   /* not the last close */
	ERR(doca_dev_close(dev), DOCA_ERROR_IN_USE); /* the last one, still used */
	OK(doca_mmap_rm_dev(mmap, dev));
	ERR(doca_mmap_rm_dev(mmap, dev), DOCA_ERROR_NOT_FOUND);
	OK(doca_mmap_add_dev(mmap, dev));
	OK(doca_mmap_destroy(mmap)); /* drops the reference */
	OK(doca_dev_close(dev));
	ERR(doca_dev_close(dev), DOCA_ERROR_INVALID_VALUE); /* already closed */
}

static void dev_representors(void **s)
{
	struct doca_dev *dev = open_first();
	struct doca_devinfo_rep **reps;
	uint32_t n = 99;
	uint8_t sup = 9;

	(void)s;
	ERR(doca_devinfo_rep_create_list(NULL, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, NULL, &n), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_rep_create_list(dev, 1 << 7, &reps, &n), DOCA_ERROR_INVALID_VALUE);
#ifdef DOCA_ARCH_DPU
	OK(doca_devinfo_rep_cap_is_filter_net_supported(doca_dev_as_devinfo(dev), &sup));
	struct doca_dev_rep *rep;
	char pci[DOCA_DEVINFO_REP_PCI_ADDR_SIZE];
	uint8_t eq;

	assert_int_equal(sup, 1);
	OK(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n));
	assert_int_equal(n, 1);
	OK(doca_devinfo_rep_get_pci_addr_str(reps[0], pci));
	assert_string_equal(pci, "0000:3b:00.0");
	OK(doca_devinfo_rep_is_equal_pci_addr(reps[0], "3b:00.0", &eq));
	assert_int_equal(eq, 1);
	OK(doca_devinfo_rep_get_is_hotplug(reps[0], &eq));
	assert_int_equal(eq, 0);
	OK(doca_devinfo_rep_is_equal_pci_addr(reps[0], "3b:00.1", &eq));
	assert_int_equal(eq, 0);
	ERR(doca_devinfo_rep_is_equal_pci_addr(reps[0], "nope", &eq), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_devinfo_rep_get_pci_addr_str(NULL, pci), DOCA_ERROR_INVALID_VALUE);
	OK(doca_dev_rep_open(reps[0], &rep));
	OK(doca_devinfo_rep_destroy_list(reps));
	OK(doca_devinfo_rep_get_pci_addr_str(doca_dev_rep_as_devinfo(rep), pci));
	assert_string_equal(pci, "0000:3b:00.0");
	OK(doca_dev_rep_close(rep));

	OK(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_ALL, &reps, &n));
	assert_int_equal(n, 1);
	OK(doca_devinfo_rep_destroy_list(reps));
	OK(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_EMULATED, &reps, &n));
	assert_int_equal(n, 0);
	assert_null(reps[0]);
	OK(doca_devinfo_rep_destroy_list(reps));
#else
	ERR(doca_devinfo_rep_cap_is_filter_net_supported(doca_dev_as_devinfo(dev), &sup), DOCA_ERROR_NOT_SUPPORTED);
	ERR(doca_devinfo_rep_cap_is_filter_all_supported(doca_dev_as_devinfo(dev), &sup), DOCA_ERROR_NOT_SUPPORTED);
	ERR(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n), DOCA_ERROR_NOT_SUPPORTED);
#endif
	OK(doca_dev_close(dev));
}

/* ---------------- mmap ---------------- */

static int free_cb_calls;
static void *free_cb_addr;

static void free_cb(void *addr, size_t len, void *opaque)
{
	free_cb_calls++;
	free_cb_addr = addr;
	assert_int_equal(len, 64);
	assert_ptr_equal(opaque, &free_cb_calls);
}

static void mmap_bad_args_and_states(void **s)
{
	struct doca_mmap *mmap;
	char mem[64];
	void *addr;
	size_t len;
	union doca_data ud = {.u64 = 42}, ud2;
	uint32_t v;

	(void)s;
	ERR(doca_mmap_create(NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_start(NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_stop(NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_set_memrange(NULL, mem, sizeof(mem)), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_set_permissions(NULL, 0), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_add_dev(NULL, NULL), DOCA_ERROR_INVALID_VALUE);

	OK(doca_mmap_create(&mmap));
	ERR(doca_mmap_add_dev(mmap, NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_set_memrange(mmap, NULL, 10), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_set_memrange(mmap, mem, 0), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_set_memrange(mmap, (void *)UINTPTR_MAX, 2), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_set_permissions(mmap, 1u << 20), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_get_memrange(mmap, &addr, &len), DOCA_ERROR_BAD_STATE);
	ERR(doca_mmap_start(mmap), DOCA_ERROR_INVALID_VALUE); /* no memrange */
	ERR(doca_mmap_stop(mmap), DOCA_ERROR_BAD_STATE);  /* not started */
	ERR(doca_mmap_set_max_num_devices(mmap, 0), DOCA_ERROR_INVALID_VALUE);
	OK(doca_mmap_set_max_num_devices(mmap, 4));
	OK(doca_mmap_get_max_num_devices(mmap, &v));
	assert_int_equal(v, 4);
	OK(doca_mmap_set_user_data(mmap, ud));
	OK(doca_mmap_get_user_data(mmap, &ud2));
	assert_int_equal(ud2.u64, 42);
	ERR(doca_mmap_set_free_cb(mmap, NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	OK(doca_mmap_set_free_cb(mmap, free_cb, &free_cb_calls));
	OK(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	OK(doca_mmap_set_memrange(mmap, mem, sizeof(mem)));
	OK(doca_mmap_get_memrange(mmap, &addr, &len));
	assert_ptr_equal(addr, mem);
	assert_int_equal(len, sizeof(mem));
	OK(doca_mmap_start(mmap));
	/* configuration after start */
	ERR(doca_mmap_start(mmap), DOCA_ERROR_BAD_STATE);
	ERR(doca_mmap_set_memrange(mmap, mem, 8), DOCA_ERROR_BAD_STATE);
	ERR(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY), DOCA_ERROR_BAD_STATE);
	ERR(doca_mmap_set_max_num_devices(mmap, 8), DOCA_ERROR_NOT_PERMITTED);
	ERR(doca_mmap_set_user_data(mmap, ud), DOCA_ERROR_BAD_STATE);
	ERR(doca_mmap_set_free_cb(mmap, free_cb, NULL), DOCA_ERROR_BAD_STATE);
	OK(doca_mmap_get_num_bufs(mmap, &v));
	assert_int_equal(v, 0);
	OK(doca_mmap_stop(mmap));
	ERR(doca_mmap_set_memrange(mmap, mem, sizeof(mem)), DOCA_ERROR_NOT_PERMITTED); /* only once */
	ERR(doca_mmap_set_max_num_devices(mmap, 8), DOCA_ERROR_NOT_PERMITTED);        /* after first start */
	OK(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY));          /* properties again */
	/* the two PCI flags exclude each other; RDMA write alone is valid (it implies local write) */
	ERR(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE),
	    DOCA_ERROR_INVALID_VALUE);
	OK(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_RDMA_WRITE));
	free_cb_calls = 0;
	OK(doca_mmap_destroy(mmap));
	assert_int_equal(free_cb_calls, 1);
	assert_ptr_equal(free_cb_addr, mem);

	/* never started: the free callback does not run */
	OK(doca_mmap_create(&mmap));
	OK(doca_mmap_set_memrange(mmap, mem, sizeof(mem)));
	OK(doca_mmap_set_free_cb(mmap, free_cb, &free_cb_calls));
	free_cb_calls = 0;
	OK(doca_mmap_destroy(mmap));
	assert_int_equal(free_cb_calls, 0);
}

static void mmap_max_devices_and_caps(void **s)
{
	struct doca_dev *dev = open_first();
	struct doca_mmap *mmap;
	const void *desc;
	size_t desc_len;
	uint8_t sup;

	(void)s;
	OK(doca_mmap_create(&mmap));
	OK(doca_mmap_set_max_num_devices(mmap, 1));
	OK(doca_mmap_add_dev(mmap, dev));
	ERR(doca_mmap_set_max_num_devices(mmap, 0), DOCA_ERROR_INVALID_VALUE);
	OK(doca_mmap_cap_is_export_pci_supported(doca_dev_as_devinfo(dev), &sup));
	assert_int_equal(sup, 1);
	OK(doca_mmap_cap_is_create_from_export_pci_supported(doca_dev_as_devinfo(dev), &sup));
	assert_int_equal(sup, 1);
	ERR(doca_mmap_cap_is_export_pci_supported(NULL, &sup), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_export_pci(mmap, dev, NULL, &desc_len), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_export_pci(mmap, dev, &desc, &desc_len), DOCA_ERROR_NOT_PERMITTED); /* not started */
	static char mem[64];
	OK(doca_mmap_set_memrange(mmap, mem, sizeof(mem)));
	OK(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	OK(doca_mmap_start(mmap));
	ERR(doca_mmap_add_dev(mmap, dev), DOCA_ERROR_NOT_PERMITTED);
	ERR(doca_mmap_rm_dev(mmap, dev), DOCA_ERROR_NOT_PERMITTED);
	OK(doca_mmap_get_exported(mmap, &sup));
	assert_int_equal(sup, 0);
	OK(doca_mmap_export_pci(mmap, dev, &desc, &desc_len)); /* more in test_export.c */
	OK(doca_mmap_get_exported(mmap, &sup));
	assert_int_equal(sup, 1);
	OK(doca_mmap_get_from_export(mmap, &sup));
	assert_int_equal(sup, 0);
	/* RDMA export: the documented checks first, then no RDMA emulated */
	ERR(doca_mmap_export_rdma(mmap, dev, &desc, &desc_len), DOCA_ERROR_NOT_PERMITTED); /* no RDMA flag */
	ERR(doca_mmap_start(mmap), DOCA_ERROR_NOT_PERMITTED);                            /* exported */
	ERR(doca_mmap_create_from_export(NULL, "x", 1, dev, &mmap), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_mmap_create_from_export(NULL, NULL, 1, dev, &mmap), DOCA_ERROR_INVALID_VALUE);
	OK(doca_mmap_destroy(mmap));
	OK(doca_dev_close(dev));
}

/* ---------------- inventory and buffers ---------------- */

struct fixture {
	struct doca_dev *dev;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	uint8_t mem[1024];
};

static int setup(void **s)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return -1;
	f->dev = open_first();
	OK(doca_mmap_create(&f->mmap));
	OK(doca_mmap_add_dev(f->mmap, f->dev));
	OK(doca_mmap_set_memrange(f->mmap, f->mem, sizeof(f->mem)));
	OK(doca_mmap_start(f->mmap));
	OK(doca_buf_inventory_create(4, &f->inv));
	OK(doca_buf_inventory_start(f->inv));
	*s = f;
	return 0;
}

static int teardown(void **s)
{
	struct fixture *f = *s;

	OK(doca_buf_inventory_stop(f->inv));
	OK(doca_buf_inventory_destroy(f->inv));
	OK(doca_mmap_stop(f->mmap));
	OK(doca_mmap_destroy(f->mmap));
	OK(doca_dev_close(f->dev));
	free(f);
	return 0;
}

static void inv_bad_args_and_states(void **s)
{
	struct fixture *f = *s;
	struct doca_buf_inventory *inv;
	struct doca_mmap *m2;
	struct doca_buf *b;
	union doca_data ud = {.u64 = 7};
	uint32_t v;

	ERR(doca_buf_inventory_create(4, NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_inventory_create(0, &inv), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_inventory_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_inventory_start(NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_inventory_stop(NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_inventory_get_num_elements(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_inventory_get_num_free_elements(f->inv, NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_inventory_buf_get_by_addr(NULL, f->mmap, f->mem, 8, &b), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_inventory_buf_get_by_addr(f->inv, NULL, f->mem, 8, &b), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, NULL, 8, &b), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem, 8, NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_inventory_buf_dup(f->inv, NULL, &b), DOCA_ERROR_INVALID_VALUE);

	/* not started inventory, then not started mmap */
	OK(doca_buf_inventory_create(2, &inv));
	ERR(doca_buf_inventory_set_user_data(inv, ud), DOCA_ERROR_BAD_STATE); /* only while started */
	ERR(doca_buf_inventory_buf_get_by_addr(inv, f->mmap, f->mem, 8, &b), DOCA_ERROR_BAD_STATE);
	OK(doca_buf_inventory_start(inv));
	OK(doca_buf_inventory_start(inv)); /* again: DOCA lists no state error */
	OK(doca_buf_inventory_set_user_data(inv, ud));
	union doca_data ud2;
	OK(doca_buf_inventory_get_user_data(inv, &ud2));
	assert_int_equal(ud2.u64, 7);
	OK(doca_mmap_create(&m2));
	OK(doca_mmap_set_memrange(m2, f->mem, 16));
	ERR(doca_buf_inventory_buf_get_by_addr(inv, m2, f->mem, 8, &b), DOCA_ERROR_BAD_STATE);
	OK(doca_mmap_destroy(m2));
	OK(doca_buf_inventory_get_num_elements(inv, &v));
	assert_int_equal(v, 2);
	OK(doca_buf_inventory_destroy(inv)); /* started, nothing out */
}

static void inv_get_by_addr_data_args(void **s)
{
	struct fixture *f = *s;
	struct doca_buf *a, *d, *g;
	void *p;
	size_t n;
	uint16_t rc;

	OK(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem + 16, 100, &a));
	OK(doca_buf_get_head(a, &p));
	assert_ptr_equal(p, f->mem + 16);
	OK(doca_buf_get_len(a, &n));
	assert_int_equal(n, 100);
	OK(doca_buf_get_data(a, &p));
	assert_ptr_equal(p, f->mem + 16);
	OK(doca_buf_get_data_len(a, &n));
	assert_int_equal(n, 0);
	OK(doca_buf_get_refcount(a, &rc));
	assert_int_equal(rc, 1);

	OK(doca_buf_inventory_buf_get_by_data(f->inv, f->mmap, f->mem + 200, 50, &d));
	OK(doca_buf_get_head(d, &p));
	assert_ptr_equal(p, f->mem + 200);
	OK(doca_buf_get_len(d, &n));
	assert_int_equal(n, 50);
	OK(doca_buf_get_data_len(d, &n));
	assert_int_equal(n, 50);

	OK(doca_buf_inventory_buf_get_by_args(f->inv, f->mmap, f->mem, 64, f->mem + 8, 16, &g));
	OK(doca_buf_get_data(g, &p));
	assert_ptr_equal(p, f->mem + 8);
	OK(doca_buf_get_data_len(g, &n));
	assert_int_equal(n, 16);

	/* out of the mmap range, and data outside the buffer */
	struct doca_buf *x;
	ERR(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem + 1000, 100, &x), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem - 1, 10, &x), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem, 1025, &x), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem, 0, &x), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_inventory_buf_get_by_args(f->inv, f->mmap, f->mem, 64, f->mem + 60, 8, &x),
	    DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_inventory_buf_get_by_args(f->inv, f->mmap, f->mem + 8, 64, f->mem, 1, &x),
	    DOCA_ERROR_INVALID_VALUE);

	uint32_t nfree, nbufs;
	OK(doca_buf_inventory_get_num_free_elements(f->inv, &nfree));
	assert_int_equal(nfree, 1);
	OK(doca_mmap_get_num_bufs(f->mmap, &nbufs));
	assert_int_equal(nbufs, 3);
	/* busy objects refuse to go */
	ERR(doca_buf_inventory_destroy(f->inv), DOCA_ERROR_IN_USE);
	ERR(doca_mmap_stop(f->mmap), DOCA_ERROR_NOT_PERMITTED);
	ERR(doca_mmap_destroy(f->mmap), DOCA_ERROR_NOT_PERMITTED);
	ERR(doca_dev_close(f->dev), DOCA_ERROR_IN_USE);
	/* a stopped inventory refuses new buffers; those out stay valid */
	OK(doca_buf_inventory_stop(f->inv));
	ERR(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem, 8, &x), DOCA_ERROR_BAD_STATE);
	OK(doca_buf_get_len(a, &n));
	assert_int_equal(n, 100);
	OK(doca_buf_inventory_start(f->inv));

	OK(doca_buf_dec_refcount(a, &rc));
	assert_int_equal(rc, 1);
	OK(doca_buf_dec_refcount(d, NULL));
	OK(doca_buf_dec_refcount(g, NULL));
	OK(doca_buf_inventory_get_num_free_elements(f->inv, &nfree));
	assert_int_equal(nfree, 4);
	OK(doca_mmap_get_num_bufs(f->mmap, &nbufs));
	assert_int_equal(nbufs, 0);
}

static void inv_exhaustion(void **s)
{
	struct fixture *f = *s;
	struct doca_buf *b[5];

	for (int i = 0; i < 4; i++)
		OK(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem + i * 8, 8, &b[i]));
	ERR(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem, 8, &b[4]), DOCA_ERROR_NO_MEMORY);
	OK(doca_buf_dec_refcount(b[2], NULL));
	OK(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem, 8, &b[4]));
	OK(doca_buf_dec_refcount(b[0], NULL));
	OK(doca_buf_dec_refcount(b[1], NULL));
	OK(doca_buf_dec_refcount(b[3], NULL));
	OK(doca_buf_dec_refcount(b[4], NULL));
}

static void buf_data_and_refcount(void **s)
{
	struct fixture *f = *s;
	struct doca_buf *b;
	uint16_t rc;
	size_t n;
	void *p;

	ERR(doca_buf_get_len(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_get_head(NULL, &p), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_get_data(NULL, &p), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_get_data_len(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_get_refcount(NULL, &rc), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_inc_refcount(NULL, &rc), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_dec_refcount(NULL, &rc), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_set_data(NULL, f->mem, 1), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_set_data_len(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_reset_data_len(NULL), DOCA_ERROR_INVALID_VALUE);

	OK(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem + 100, 50, &b));
	ERR(doca_buf_get_len(b, NULL), DOCA_ERROR_INVALID_VALUE);
	OK(doca_buf_set_data(b, f->mem + 110, 40));
	ERR(doca_buf_set_data(b, f->mem + 110, 41), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_set_data(b, f->mem + 99, 1), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_set_data(b, NULL, 0), DOCA_ERROR_INVALID_VALUE);
	OK(doca_buf_set_data(b, f->mem + 150, 0));
	OK(doca_buf_set_data(b, f->mem + 120, 10));
	OK(doca_buf_set_data_len(b, 30));
	ERR(doca_buf_set_data_len(b, 31), DOCA_ERROR_INVALID_VALUE);
	OK(doca_buf_get_data_len(b, &n));
	assert_int_equal(n, 30);
	OK(doca_buf_reset_data_len(b));
	OK(doca_buf_get_data_len(b, &n));
	assert_int_equal(n, 0);
	OK(doca_buf_get_data(b, &p));
	assert_ptr_equal(p, f->mem + 120);

	OK(doca_buf_inc_refcount(b, &rc));
	assert_int_equal(rc, 1);
	OK(doca_buf_get_refcount(b, &rc));
	assert_int_equal(rc, 2);
	OK(doca_buf_dec_refcount(b, &rc));
	assert_int_equal(rc, 2);
	uint32_t nfree;
	OK(doca_buf_inventory_get_num_free_elements(f->inv, &nfree));
	assert_int_equal(nfree, 3); /* still held */
	OK(doca_buf_dec_refcount(b, &rc));
	assert_int_equal(rc, 1);
	OK(doca_buf_inventory_get_num_free_elements(f->inv, &nfree));
	assert_int_equal(nfree, 4);
	/* a released descriptor is refused, not corrupted */
	ERR(doca_buf_dec_refcount(b, &rc), DOCA_ERROR_BAD_STATE);
	ERR(doca_buf_set_data_len(b, 1), DOCA_ERROR_BAD_STATE);
}

static void buf_chains(void **s)
{
	struct fixture *f = *s;
	struct doca_buf *b[4], *x;
	uint32_t len, nfree;
	uint8_t v;
	uint16_t rc;

	for (int i = 0; i < 4; i++)
		OK(doca_buf_inventory_buf_get_by_data(f->inv, f->mmap, f->mem + i * 100, 10 + i, &b[i]));

	ERR(doca_buf_chain_list(NULL, b[1]), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_chain_list(b[0], NULL), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_chain_list(b[0], b[0]), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_get_list_len(NULL, &len), DOCA_ERROR_INVALID_VALUE);
	ERR(doca_buf_is_in_list(b[0], NULL), DOCA_ERROR_INVALID_VALUE);

	OK(doca_buf_is_in_list(b[0], &v));
	assert_int_equal(v, 0);
	OK(doca_buf_chain_list(b[0], b[1]));
	/* b[1] is no longer a head */
	ERR(doca_buf_chain_list(b[1], b[2]), DOCA_ERROR_NOT_PERMITTED);
	ERR(doca_buf_chain_list(b[2], b[1]), DOCA_ERROR_NOT_PERMITTED);
	ERR(doca_buf_inc_refcount(b[1], NULL), DOCA_ERROR_NOT_PERMITTED);
	ERR(doca_buf_dec_refcount(b[1], NULL), DOCA_ERROR_NOT_PERMITTED);
	ERR(doca_buf_get_list_len(b[1], &len), DOCA_ERROR_NOT_PERMITTED);
	/* list2 with refcount > 1 refuses chaining; list1's refcount does not matter */
	OK(doca_buf_inc_refcount(b[2], NULL));
	ERR(doca_buf_chain_list(b[0], b[2]), DOCA_ERROR_NOT_PERMITTED);
	OK(doca_buf_dec_refcount(b[2], NULL));
	OK(doca_buf_inc_refcount(b[0], NULL));
	/* wrong tail */
	ERR(doca_buf_chain_list_tail(b[0], b[0], b[2]), DOCA_ERROR_INVALID_VALUE);
	OK(doca_buf_chain_list_tail(b[0], b[1], b[2]));
	OK(doca_buf_chain_list(b[0], b[3]));
	OK(doca_buf_dec_refcount(b[0], &rc));
	assert_int_equal(rc, 2);

	OK(doca_buf_get_list_len(b[0], &len));
	assert_int_equal(len, 4);
	OK(doca_buf_get_last_in_list(b[0], &x));
	assert_ptr_equal(x, b[3]);
	OK(doca_buf_get_last_in_list(b[1], &x));
	assert_ptr_equal(x, b[3]);
	OK(doca_buf_get_next_in_list(b[0], &x));
	assert_ptr_equal(x, b[1]);
	OK(doca_buf_get_next_in_list(b[3], &x));
	assert_null(x);
	OK(doca_buf_is_first_in_list(b[0], &v));
	assert_int_equal(v, 1);
	OK(doca_buf_is_first_in_list(b[2], &v));
	assert_int_equal(v, 0);
	OK(doca_buf_is_last_in_list(b[3], &v));
	assert_int_equal(v, 1);
	OK(doca_buf_is_last_in_list(b[2], &v));
	assert_int_equal(v, 0);
	OK(doca_buf_is_in_list(b[2], &v));
	assert_int_equal(v, 1);

	/* duplicate the list: same shape, new descriptors (inventory has none left) */
	ERR(doca_buf_inventory_buf_dup(f->inv, b[0], &x), DOCA_ERROR_NO_MEMORY);

	/* unchain before b[2]: [0,1] and [2,3] */
	ERR(doca_buf_unchain_list(b[1], b[2]), DOCA_ERROR_NOT_PERMITTED);
	ERR(doca_buf_unchain_list(b[0], b[0]), DOCA_ERROR_INVALID_VALUE);
	OK(doca_buf_unchain_list(b[0], b[2]));
	OK(doca_buf_get_list_len(b[0], &len));
	assert_int_equal(len, 2);
	OK(doca_buf_get_list_len(b[2], &len));
	assert_int_equal(len, 2);
	OK(doca_buf_get_last_in_list(b[0], &x));
	assert_ptr_equal(x, b[1]);
	OK(doca_buf_get_last_in_list(b[2], &x));
	assert_ptr_equal(x, b[3]);
	ERR(doca_buf_unchain_list(b[0], b[3]), DOCA_ERROR_INVALID_VALUE);

	/* releasing a head releases its whole list */
	OK(doca_buf_dec_refcount(b[2], &rc));
	assert_int_equal(rc, 1);
	OK(doca_buf_inventory_get_num_free_elements(f->inv, &nfree));
	assert_int_equal(nfree, 2);

	/* dup of a 2-element list */
	OK(doca_buf_inventory_buf_dup(f->inv, b[0], &x));
	OK(doca_buf_get_list_len(x, &len));
	assert_int_equal(len, 2);
	struct doca_buf *y;
	void *p;
	size_t n;
	OK(doca_buf_get_next_in_list(x, &y));
	OK(doca_buf_get_data(y, &p));
	assert_ptr_equal(p, f->mem + 100);
	OK(doca_buf_get_data_len(y, &n));
	assert_int_equal(n, 11);
	ERR(doca_buf_inventory_buf_dup(f->inv, y, &x), DOCA_ERROR_NOT_PERMITTED); /* not a head */
	OK(doca_buf_dec_refcount(x, NULL));
	OK(doca_buf_dec_refcount(b[0], NULL));
	OK(doca_buf_inventory_get_num_free_elements(f->inv, &nfree));
	assert_int_equal(nfree, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dev_concurrent_first_load),
		cmocka_unit_test(dev_bad_args),
		cmocka_unit_test(dev_default_topology),
		cmocka_unit_test(dev_open_close_refs),
		cmocka_unit_test(dev_representors),
		cmocka_unit_test(mmap_bad_args_and_states),
		cmocka_unit_test(mmap_max_devices_and_caps),
		cmocka_unit_test_setup_teardown(inv_bad_args_and_states, setup, teardown),
		cmocka_unit_test_setup_teardown(inv_get_by_addr_data_args, setup, teardown),
		cmocka_unit_test_setup_teardown(inv_exhaustion, setup, teardown),
		cmocka_unit_test_setup_teardown(buf_data_and_refcount, setup, teardown),
		cmocka_unit_test_setup_teardown(buf_chains, setup, teardown),
	};

	/* the default topology is what these tests check */
	unsetenv("SOFTDOCA_TOPOLOGY");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
