/*
 * dev.c - doca_devinfo / doca_dev / representors over the loaded topology.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_dev.h>

#include "dev_priv.h"
#include "sd_log.h"

SD_LOG_REGISTER(DOCA_DEV);

/* A list is one allocation: the NULL-terminated pointer array followed by
 * the devinfo objects it points to. */
doca_error_t doca_devinfo_create_list(struct doca_devinfo ***dev_list, uint32_t *nb_devs)
{
	const struct sd_topo *topo;
	struct doca_devinfo **list, *infos;
	doca_error_t ret;

	if (dev_list == NULL || nb_devs == NULL) {
		SD_LOG_ERR("failed to create devinfo list: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	ret = sd_topo_get(&topo);
	if (ret != DOCA_SUCCESS)
		return ret;
	list = calloc(1, (topo->nfns + 1) * sizeof(*list) + topo->nfns * sizeof(*infos));
	if (list == NULL)
		return DOCA_ERROR_NO_MEMORY;
	infos = (struct doca_devinfo *)(list + topo->nfns + 1);
	for (uint32_t i = 0; i < topo->nfns; i++) {
		infos[i].fn = &topo->fns[i];
		list[i] = &infos[i];
	}
	*dev_list = list;
	*nb_devs = topo->nfns;
	SD_LOG_DBG("devinfo list %p created: %u device(s)", (void *)list, topo->nfns);
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_destroy_list(struct doca_devinfo **dev_list)
{
	uint32_t n = 0;

	if (dev_list == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (sd_log_sdk_enabled(60))
		while (dev_list[n] != NULL)
			n++;
	SD_LOG_DBG("devinfo list %p destroyed: %u device(s)", (void *)dev_list, n);
	free(dev_list);
	return DOCA_SUCCESS;
}

static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct doca_dev *open_devs;

doca_error_t doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev)
{
	struct doca_dev *d;

	if (devinfo == NULL || dev == NULL || devinfo->fn == NULL) {
		SD_LOG_ERR("failed to open device: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&dev_lock);
	for (d = open_devs; d != NULL; d = d->next)
		if (d->info.fn == devinfo->fn)
			break;
	if (d == NULL) {
		d = calloc(1, sizeof(*d));
		if (d == NULL) {
			pthread_mutex_unlock(&dev_lock);
			return DOCA_ERROR_NO_MEMORY;
		}
		d->info.fn = devinfo->fn;
		atomic_init(&d->users, 0);
		d->next = open_devs;
		open_devs = d;
	}
	d->opens++;
	SD_LOG_DBG("device %s (%s) opened: %u open(s), %u user(s)", d->info.fn->pci, d->info.fn->ibdev, d->opens,
		   atomic_load(&d->users));
	pthread_mutex_unlock(&dev_lock);
	*dev = d;
	return DOCA_SUCCESS;
}

doca_error_t doca_dev_close(struct doca_dev *dev)
{
	struct doca_dev **pp;
	unsigned int users;

	/* DOCA documents only SUCCESS and IN_USE here, and NVIDIA's samples close
	 * a device their cleanup already closed and cleared: NULL is a no-op */
	if (dev == NULL)
		return DOCA_SUCCESS;
	pthread_mutex_lock(&dev_lock);
	for (pp = &open_devs; *pp != NULL && *pp != dev; pp = &(*pp)->next)
		;
	if (*pp == NULL) {
		pthread_mutex_unlock(&dev_lock);
		SD_LOG_ERR("failed to close device: not an open device");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (dev->opens > 1) {
		dev->opens--;
		SD_LOG_DBG("device %s closed once: %u open(s) left", dev->info.fn->pci, dev->opens);
		pthread_mutex_unlock(&dev_lock);
		return DOCA_SUCCESS;
	}
	users = atomic_load(&dev->users);
	if (users != 0) {
		pthread_mutex_unlock(&dev_lock);
		SD_LOG_ERR("failed to close device %s: still used by %u object(s)", dev->info.fn->pci, users);
		return DOCA_ERROR_IN_USE;
	}
	*pp = dev->next;
	pthread_mutex_unlock(&dev_lock);
	SD_LOG_DBG("device %s closed: last open, device released", dev->info.fn->pci);
	free(dev);
	return DOCA_SUCCESS;
}

struct doca_devinfo *doca_dev_as_devinfo(const struct doca_dev *dev)
{
	if (dev == NULL)
		return NULL;
	return (struct doca_devinfo *)&dev->info;
}

static bool rep_matches(const struct sd_topo_rep *rep, int filter)
{
	return filter == DOCA_DEVINFO_REP_FILTER_ALL || (filter & rep->filter) != 0;
}

doca_error_t doca_devinfo_rep_create_list(struct doca_dev *dev, int filter, struct doca_devinfo_rep ***dev_list_rep,
					  uint32_t *nb_devs_rep)
{
	const struct sd_topo_fn *fn;
	struct doca_devinfo_rep **list, *infos;
	uint32_t n = 0;

	if (dev == NULL || dev_list_rep == NULL || nb_devs_rep == NULL) {
		SD_LOG_ERR("failed to create representor list: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((filter & ~(DOCA_DEVINFO_REP_FILTER_NET | DOCA_DEVINFO_REP_FILTER_EMULATED)) != 0) {
		SD_LOG_ERR("failed to create representor list: invalid filter 0x%x", (unsigned int)filter);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_side() != SD_SIDE_DPU) {
		SD_LOG_ERR("failed to create representor list: representors exist only on the BlueField Arm side");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	fn = dev->info.fn;
	for (uint32_t i = 0; i < fn->nreps; i++)
		if (rep_matches(&fn->reps[i], filter))
			n++;
	list = calloc(1, (n + 1) * sizeof(*list) + n * sizeof(*infos));
	if (list == NULL)
		return DOCA_ERROR_NO_MEMORY;
	infos = (struct doca_devinfo_rep *)(list + n + 1);
	n = 0;
	for (uint32_t i = 0; i < fn->nreps; i++) {
		if (!rep_matches(&fn->reps[i], filter))
			continue;
		infos[n].rep = &fn->reps[i];
		infos[n].parent = fn;
		list[n] = &infos[n];
		n++;
	}
	*dev_list_rep = list;
	*nb_devs_rep = n;
	SD_LOG_DBG("representor list %p of device %s created: %u representor(s) (filter 0x%x)", (void *)list,
		   fn->pci, n, (unsigned int)filter);
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_destroy_list(struct doca_devinfo_rep **dev_list_rep)
{
	if (dev_list_rep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	SD_LOG_DBG("representor list %p destroyed", (void *)dev_list_rep);
	free(dev_list_rep);
	return DOCA_SUCCESS;
}

doca_error_t doca_dev_rep_open(struct doca_devinfo_rep *devinfo, struct doca_dev_rep **dev_rep)
{
	struct doca_dev_rep *r;

	if (devinfo == NULL || dev_rep == NULL || devinfo->rep == NULL) {
		SD_LOG_ERR("failed to open representor: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return DOCA_ERROR_NO_MEMORY;
	r->info = *devinfo;
	atomic_init(&r->users, 0);
	*dev_rep = r;
	SD_LOG_DBG("representor %s (%s, vuid %s) opened", devinfo->rep->pci, devinfo->rep->iface, devinfo->rep->vuid);
	return DOCA_SUCCESS;
}

doca_error_t doca_dev_rep_close(struct doca_dev_rep *dev)
{
	unsigned int users;

	if (dev == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	users = atomic_load(&dev->users);
	if (users != 0) {
		SD_LOG_ERR("failed to close representor %s: still used by %u object(s)", dev->info.rep->pci, users);
		return DOCA_ERROR_IN_USE;
	}
	SD_LOG_DBG("representor %s closed", dev->info.rep->pci);
	free(dev);
	return DOCA_SUCCESS;
}

struct doca_devinfo_rep *doca_dev_rep_as_devinfo(struct doca_dev_rep *dev_rep)
{
	if (dev_rep == NULL)
		return NULL;
	return &dev_rep->info;
}

/* ---- queries ---- */

static bool pci_equal(const char *canon, const char *in, uint8_t *is_equal)
{
	char c[SD_PCI_ADDR_LEN];

	if (sd_pci_canonical(in, c) != DOCA_SUCCESS)
		return false;
	*is_equal = strcmp(c, canon) == 0;
	return true;
}

doca_error_t doca_devinfo_get_pci_addr_str(const struct doca_devinfo *devinfo, char *pci_addr_str)
{
	if (devinfo == NULL || pci_addr_str == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	memcpy(pci_addr_str, devinfo->fn->pci, DOCA_DEVINFO_PCI_ADDR_SIZE);
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_is_equal_pci_addr(const struct doca_devinfo *devinfo, const char *pci_addr_str,
					    uint8_t *is_equal)
{
	if (devinfo == NULL || pci_addr_str == NULL || is_equal == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!pci_equal(devinfo->fn->pci, pci_addr_str, is_equal)) {
		SD_LOG_ERR("\"%s\" is not a PCI address", pci_addr_str);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_get_ipv4_addr(const struct doca_devinfo *devinfo, uint8_t *ipv4_addr, uint32_t size)
{
	if (devinfo == NULL || ipv4_addr == NULL || size < DOCA_DEVINFO_IPV4_ADDR_SIZE)
		return DOCA_ERROR_INVALID_VALUE;
	/* as an unconfigured port, unless the topology gives an address */
	if (!devinfo->fn->has_ipv4)
		return DOCA_ERROR_NOT_FOUND;
	memcpy(ipv4_addr, devinfo->fn->ipv4, DOCA_DEVINFO_IPV4_ADDR_SIZE);
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_get_ipv6_addr(const struct doca_devinfo *devinfo, uint8_t *ipv6_addr, uint32_t size)
{
	const uint8_t *mac;

	if (devinfo == NULL || ipv6_addr == NULL || size < DOCA_DEVINFO_IPV6_ADDR_SIZE)
		return DOCA_ERROR_INVALID_VALUE;
	/* link-local EUI-64 address derived from the MAC */
	mac = devinfo->fn->mac;
	memset(ipv6_addr, 0, DOCA_DEVINFO_IPV6_ADDR_SIZE);
	ipv6_addr[0] = 0xfe;
	ipv6_addr[1] = 0x80;
	ipv6_addr[8] = mac[0] ^ 0x02;
	ipv6_addr[9] = mac[1];
	ipv6_addr[10] = mac[2];
	ipv6_addr[11] = 0xff;
	ipv6_addr[12] = 0xfe;
	ipv6_addr[13] = mac[3];
	ipv6_addr[14] = mac[4];
	ipv6_addr[15] = mac[5];
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_get_mac_addr(const struct doca_devinfo *devinfo, uint8_t *mac_addr, uint32_t size)
{
	if (devinfo == NULL || mac_addr == NULL || size < DOCA_DEVINFO_MAC_ADDR_SIZE)
		return DOCA_ERROR_INVALID_VALUE;
	memcpy(mac_addr, devinfo->fn->mac, DOCA_DEVINFO_MAC_ADDR_SIZE);
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_get_iface_name(const struct doca_devinfo *devinfo, char *iface_name, uint32_t size)
{
	if (devinfo == NULL || iface_name == NULL || size < DOCA_DEVINFO_IFACE_NAME_SIZE)
		return DOCA_ERROR_INVALID_VALUE;
	memset(iface_name, 0, DOCA_DEVINFO_IFACE_NAME_SIZE);
	snprintf(iface_name, DOCA_DEVINFO_IFACE_NAME_SIZE, "%s", devinfo->fn->iface);
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_get_ibdev_name(const struct doca_devinfo *devinfo, char *ibdev_name, uint32_t size)
{
	if (devinfo == NULL || ibdev_name == NULL || size < DOCA_DEVINFO_IBDEV_NAME_SIZE)
		return DOCA_ERROR_INVALID_VALUE;
	memset(ibdev_name, 0, DOCA_DEVINFO_IBDEV_NAME_SIZE);
	snprintf(ibdev_name, DOCA_DEVINFO_IBDEV_NAME_SIZE, "%s", devinfo->fn->ibdev);
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_get_pci_func_type(const struct doca_devinfo *devinfo, enum doca_pci_func_type *pci_func_type)
{
	if (devinfo == NULL || pci_func_type == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*pci_func_type = devinfo->fn->func_type;
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_get_lid(const struct doca_devinfo *devinfo, uint16_t *lid)
{
	if (devinfo == NULL || lid == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_ERROR_NOT_SUPPORTED; /* Ethernet link layer: no InfiniBand LID */
}

doca_error_t doca_devinfo_get_active_rate(const struct doca_devinfo *devinfo, uint64_t *active_rate)
{
	if (devinfo == NULL || active_rate == NULL) {
		SD_LOG_ERR("failed to get active rate: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	*active_rate = devinfo->fn->props.active_rate;
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_get_vhca_id(const struct doca_devinfo *devinfo, uint16_t *vhca_id)
{
	if (devinfo == NULL || vhca_id == NULL) {
		SD_LOG_ERR("failed to get VHCA id: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	*vhca_id = devinfo->fn->vhca_id;
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_get_sf_index(const struct doca_devinfo *devinfo, uint32_t *sf_index)
{
	if (devinfo == NULL || sf_index == NULL) {
		SD_LOG_ERR("failed to get SF index: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* Programs probe every device and skip the ones that fail (DOCA's
	 * samples check the function type first), so this is not an error
	 * worth more than a debug line. */
	if (devinfo->fn->func_type != DOCA_PCI_FUNC_TYPE_SF) {
		SD_LOG_DBG("device %s is not a sub-function: it has no SF index", devinfo->fn->pci);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	*sf_index = devinfo->fn->sf_index;
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_cap_is_accelerate_resource_reclaim_supported(const struct doca_devinfo *devinfo,
								      uint8_t *is_accelerate_resource_reclaim)
{
	if (devinfo == NULL || is_accelerate_resource_reclaim == NULL) {
		SD_LOG_ERR("failed to query accelerate resource reclaim capability: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	*is_accelerate_resource_reclaim = devinfo->fn->props.accelerate_resource_reclaim_supported;
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_cap_is_notification_moderation_supported(const struct doca_devinfo *devinfo,
								  uint8_t *is_notification_moderation_supported)
{
	if (devinfo == NULL || is_notification_moderation_supported == NULL) {
		SD_LOG_ERR("failed to query notification moderation capability: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	*is_notification_moderation_supported = devinfo->fn->props.notification_moderation_supported;
	return DOCA_SUCCESS;
}

doca_error_t doca_dev_accelerate_resource_reclaim(struct doca_dev *dev)
{
	if (dev == NULL) {
		SD_LOG_ERR("failed to accelerate resource reclaim: NULL device");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!dev->info.fn->props.accelerate_resource_reclaim_supported) {
		SD_LOG_ERR("failed to accelerate resource reclaim: device %s does not support it", dev->info.fn->pci);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	/* closing an emulated device frees everything at once: nothing to keep warm */
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_cap_is_hotplug_manager_supported(const struct doca_devinfo *devinfo,
							   uint8_t *is_hotplug_manager)
{
	if (devinfo == NULL || is_hotplug_manager == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*is_hotplug_manager = 0;
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_cap_is_filter_all_supported(const struct doca_devinfo *devinfo,
							  uint8_t *filter_all_supported)
{
	if (devinfo == NULL || filter_all_supported == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (sd_side() != SD_SIDE_DPU)
		return DOCA_ERROR_NOT_SUPPORTED; /* host functions expose no representors */
	*filter_all_supported = 1;
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_cap_is_filter_net_supported(const struct doca_devinfo *devinfo,
							  uint8_t *filter_net_supported)
{
	if (devinfo == NULL || filter_net_supported == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (sd_side() != SD_SIDE_DPU)
		return DOCA_ERROR_NOT_SUPPORTED; /* host functions expose no representors */
	*filter_net_supported = 1;
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_cap_is_filter_emulated_supported(const struct doca_devinfo *devinfo,
							       uint8_t *filter_emulated_supported)
{
	if (devinfo == NULL || filter_emulated_supported == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (sd_side() != SD_SIDE_DPU)
		return DOCA_ERROR_NOT_SUPPORTED; /* host functions expose no representors */
	*filter_emulated_supported = 1;
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_get_pci_addr_str(const struct doca_devinfo_rep *devinfo_rep, char *pci_addr_str)
{
	if (devinfo_rep == NULL || pci_addr_str == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	memcpy(pci_addr_str, devinfo_rep->rep->pci, DOCA_DEVINFO_REP_PCI_ADDR_SIZE);
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_is_equal_pci_addr(const struct doca_devinfo_rep *devinfo_rep, const char *pci_addr_str,
						uint8_t *is_equal)
{
	if (devinfo_rep == NULL || pci_addr_str == NULL || is_equal == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!pci_equal(devinfo_rep->rep->pci, pci_addr_str, is_equal)) {
		SD_LOG_ERR("\"%s\" is not a PCI address", pci_addr_str);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_get_pci_func_type(const struct doca_devinfo_rep *devinfo_rep,
						enum doca_pci_func_type *pci_func_type)
{
	if (devinfo_rep == NULL || pci_func_type == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*pci_func_type = devinfo_rep->rep->func_type;
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_get_is_hotplug(const struct doca_devinfo_rep *devinfo_rep, uint8_t *is_hotplug)
{
	if (devinfo_rep == NULL || is_hotplug == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*is_hotplug = 0;
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_get_vuid(const struct doca_devinfo_rep *devinfo_rep, char *rep_vuid, uint32_t size)
{
	if (devinfo_rep == NULL || rep_vuid == NULL || size < DOCA_DEVINFO_REP_VUID_SIZE)
		return DOCA_ERROR_INVALID_VALUE;
	memset(rep_vuid, 0, DOCA_DEVINFO_REP_VUID_SIZE);
	snprintf(rep_vuid, DOCA_DEVINFO_REP_VUID_SIZE, "%s", devinfo_rep->rep->vuid);
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_get_iface_name(const struct doca_devinfo_rep *devinfo_rep, char *iface_name,
					     uint32_t size)
{
	if (devinfo_rep == NULL || iface_name == NULL || size < DOCA_DEVINFO_IFACE_NAME_SIZE) {
		SD_LOG_ERR("failed to get representor interface name: NULL argument or buffer under %d bytes",
			   DOCA_DEVINFO_IFACE_NAME_SIZE);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memset(iface_name, 0, DOCA_DEVINFO_IFACE_NAME_SIZE);
	snprintf(iface_name, DOCA_DEVINFO_IFACE_NAME_SIZE, "%s", devinfo_rep->rep->iface);
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_get_vhca_id(const struct doca_devinfo_rep *devinfo_rep, uint16_t *vhca_id)
{
	if (devinfo_rep == NULL || vhca_id == NULL) {
		SD_LOG_ERR("failed to get representor VHCA id: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	*vhca_id = devinfo_rep->rep->vhca_id;
	return DOCA_SUCCESS;
}

/* ---- sd_dev.h ---- */

const struct sd_caps *sd_devinfo_caps(const struct doca_devinfo *devinfo)
{
	return devinfo == NULL ? NULL : &devinfo->fn->caps;
}

const struct sd_caps *sd_dev_caps(const struct doca_dev *dev)
{
	return dev == NULL ? NULL : &dev->info.fn->caps;
}

const char *sd_dev_pci_addr(const struct doca_dev *dev)
{
	return dev == NULL ? NULL : dev->info.fn->pci;
}

const char *sd_dev_rep_pci_addr(const struct doca_dev_rep *rep)
{
	return rep == NULL ? NULL : rep->info.rep->pci;
}

uint32_t sd_dev_card(const struct doca_dev *dev)
{
	return dev == NULL ? 0 : dev->info.fn->card;
}

uint32_t sd_dev_rep_card(const struct doca_dev_rep *rep)
{
	return rep == NULL ? 0 : rep->info.rep->card;
}

void sd_dev_get(struct doca_dev *dev)
{
	if (dev != NULL)
		atomic_fetch_add(&dev->users, 1);
}

void sd_dev_put(struct doca_dev *dev)
{
	if (dev != NULL)
		atomic_fetch_sub(&dev->users, 1);
}

void sd_dev_rep_get(struct doca_dev_rep *rep)
{
	if (rep != NULL)
		atomic_fetch_add(&rep->users, 1);
}

void sd_dev_rep_put(struct doca_dev_rep *rep)
{
	if (rep != NULL)
		atomic_fetch_sub(&rep->users, 1);
}
