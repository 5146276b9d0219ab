/*
 * devmem_probe.c - prints what doca_devinfo_create_list returns in this
 * process (one line per device and representor); used by test_topology with
 * different SOFTDOCA_TOPOLOGY files. Exit status 0 on success, 2 on failure.
 */
#include <stdio.h>

#include <doca_dev.h>
#include <doca_mmap.h>

int main(void)
{
	struct doca_devinfo **list;
	uint32_t n;
	doca_error_t ret;

	ret = doca_devinfo_create_list(&list, &n);
	printf("ret=%s n=%u\n", doca_error_get_name(ret), ret == DOCA_SUCCESS ? n : 0);
	if (ret != DOCA_SUCCESS)
		return 2;
	for (uint32_t i = 0; i < n; i++) {
		char pci[DOCA_DEVINFO_PCI_ADDR_SIZE], ib[DOCA_DEVINFO_IBDEV_NAME_SIZE];
		char ifc[DOCA_DEVINFO_IFACE_NAME_SIZE];
		uint8_t mac[DOCA_DEVINFO_MAC_ADDR_SIZE];
		struct doca_devinfo_rep **reps;
		struct doca_dev *dev;
		uint32_t nr;

		if (doca_devinfo_get_pci_addr_str(list[i], pci) != DOCA_SUCCESS ||
		    doca_devinfo_get_ibdev_name(list[i], ib, sizeof(ib)) != DOCA_SUCCESS ||
		    doca_devinfo_get_iface_name(list[i], ifc, sizeof(ifc)) != DOCA_SUCCESS ||
		    doca_devinfo_get_mac_addr(list[i], mac, sizeof(mac)) != DOCA_SUCCESS)
			return 3;
		printf("dev %s %s %s %02x:%02x:%02x:%02x:%02x:%02x\n", pci, ib, ifc, mac[0], mac[1], mac[2], mac[3],
		       mac[4], mac[5]);
		{
			uint16_t vhca;
			uint32_t sf;
			uint64_t rate;
			uint8_t reclaim, moder;
			doca_error_t sf_ret;

			if (doca_devinfo_get_vhca_id(list[i], &vhca) != DOCA_SUCCESS ||
			    doca_devinfo_get_active_rate(list[i], &rate) != DOCA_SUCCESS ||
			    doca_devinfo_cap_is_accelerate_resource_reclaim_supported(list[i], &reclaim) !=
				    DOCA_SUCCESS ||
			    doca_devinfo_cap_is_notification_moderation_supported(list[i], &moder) != DOCA_SUCCESS)
				return 3;
			sf_ret = doca_devinfo_get_sf_index(list[i], &sf);
			if (sf_ret == DOCA_SUCCESS)
				printf("  ids vhca=%u sf=%u", vhca, sf);
			else
				printf("  ids vhca=%u sf=%s", vhca, doca_error_get_name(sf_ret));
			printf(" rate=%llu reclaim=%u moderation=%u\n", (unsigned long long)rate, reclaim, moder);
		}
		if (doca_dev_open(list[i], &dev) != DOCA_SUCCESS)
			return 3;
		printf("  reclaim_call=%s\n", doca_error_get_name(doca_dev_accelerate_resource_reclaim(dev)));
		ret = doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_ALL, &reps, &nr);
		if (ret == DOCA_SUCCESS) {
			for (uint32_t j = 0; j < nr; j++) {
				enum doca_pci_func_type ft;
				uint16_t vhca = 0;

				doca_devinfo_rep_get_pci_addr_str(reps[j], pci);
				doca_devinfo_rep_get_pci_func_type(reps[j], &ft);
				doca_devinfo_rep_get_iface_name(reps[j], ifc, sizeof(ifc));
				doca_devinfo_rep_get_vhca_id(reps[j], &vhca);
				printf("  rep %s type=%d iface=%s vhca=%u\n", pci, (int)ft, ifc, vhca);
			}
			doca_devinfo_rep_destroy_list(reps);
		}
		doca_dev_close(dev);
	}
	/* an mmap of 4 KiB on the first device: refused if its mmap_max_size is smaller */
	if (n > 0) {
		static char mem[4096];
		struct doca_mmap *mmap;
		struct doca_dev *dev;

		if (doca_dev_open(list[0], &dev) != DOCA_SUCCESS || doca_mmap_create(&mmap) != DOCA_SUCCESS)
			return 3;
		doca_mmap_add_dev(mmap, dev);
		doca_mmap_set_memrange(mmap, mem, sizeof(mem));
		printf("mmap4k=%s\n", doca_error_get_name(doca_mmap_start(mmap)));
		doca_mmap_destroy(mmap);
		doca_dev_close(dev);
	}
	doca_devinfo_destroy_list(list);
	return 0;
}
