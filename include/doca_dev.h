/*
 * doca_dev.h - DOCA devices and representors.
 *
 * Model: a doca_devinfo describes one PCI function the process can use (on
 * the BlueField Arm side: the card's physical functions; on the host: the
 * card's host functions). Opening it gives a doca_dev, which mmaps and
 * contexts are built on. On the Arm side a device also exposes representors
 * (doca_devinfo_rep / doca_dev_rep) of the host functions it serves.
 *
 * Call order:
 *   doca_devinfo_create_list -> pick one (get_pci_addr_str, is_equal_pci_addr,
 *   capability queries) -> doca_dev_open -> doca_devinfo_destroy_list ->
 *   ... use the device ... -> doca_dev_close (after every mmap/context that
 *   uses it is destroyed, otherwise DOCA_ERROR_IN_USE).
 *   Representors: doca_devinfo_rep_create_list(dev, filter) -> pick ->
 *   doca_dev_rep_open -> doca_devinfo_rep_destroy_list -> ... ->
 *   doca_dev_rep_close.
 *
 * Lists are snapshots owned by the caller until destroyed; opened devices
 * stay valid after their list is destroyed.
 *
 * Identity of a function: besides its PCI address, a function has a VHCA id
 * (unique among the functions of one card; a representor reports the id of
 * the host function it stands for) and, for a sub-function (SF), an SF
 * index: the number of its auxiliary device (mlx5_core.sf.<index>).
 *
 * Threading: list creation and queries are thread-safe; a doca_dev and a
 * doca_dev_rep may be shared between threads, but open/close of one object
 * must not race with its use.
 */
#ifndef DOCA_DEV_H_
#define DOCA_DEV_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_devinfo;
struct doca_devinfo_rep;
struct doca_dev;
struct doca_dev_rep;

/* Buffer sizes for the query functions below (each includes the NUL). */
#define DOCA_DEVINFO_IPV4_ADDR_SIZE 4
#define DOCA_DEVINFO_IPV6_ADDR_SIZE 16
#define DOCA_DEVINFO_PCI_ADDR_SIZE 13
#define DOCA_DEVINFO_PCI_BDF_SIZE 8
#define DOCA_DEVINFO_IFACE_NAME_SIZE 256
#define DOCA_DEVINFO_IBDEV_NAME_SIZE 64
#define DOCA_DEVINFO_MAC_ADDR_SIZE 6
#define DOCA_DEVINFO_VUID_SIZE 128
#define DOCA_DEVINFO_REP_VUID_SIZE 128
#define DOCA_DEVINFO_REP_PCI_ADDR_SIZE 13
#define DOCA_DEVINFO_REP_PCI_BDF_SIZE 8

/* Which representors doca_devinfo_rep_create_list returns. */
enum doca_devinfo_rep_filter {
	DOCA_DEVINFO_REP_FILTER_ALL = 0,
	DOCA_DEVINFO_REP_FILTER_NET = 1 << 1,
	DOCA_DEVINFO_REP_FILTER_EMULATED = 1 << 2,
};

/* Local devices. *dev_list is NULL-terminated; free with doca_devinfo_destroy_list. */
DOCA_STABLE doca_error_t doca_devinfo_create_list(struct doca_devinfo ***dev_list, uint32_t *nb_devs);
DOCA_STABLE doca_error_t doca_devinfo_destroy_list(struct doca_devinfo **dev_list);

/* Representors of a local device (Arm side only; DOCA_ERROR_NOT_SUPPORTED on the host). */
DOCA_STABLE doca_error_t doca_devinfo_rep_create_list(struct doca_dev *dev, int filter,
						      struct doca_devinfo_rep ***dev_list_rep,
						      uint32_t *nb_devs_rep);
DOCA_STABLE doca_error_t doca_devinfo_rep_destroy_list(struct doca_devinfo_rep **dev_list_rep);

/* Opening a device that is already open returns the same handle; every
 * doca_dev_open needs its doca_dev_close, and only the last close releases
 * the device (DOCA_ERROR_IN_USE while mmaps/contexts still use it).
 * doca_dev_close(NULL) does nothing and returns DOCA_SUCCESS (DOCA documents
 * no other answer than SUCCESS and IN_USE); doca_dev_rep_close(NULL) is
 * DOCA_ERROR_INVALID_VALUE. */
DOCA_STABLE doca_error_t doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev);
DOCA_STABLE doca_error_t doca_dev_close(struct doca_dev *dev);
DOCA_STABLE doca_error_t doca_dev_rep_open(struct doca_devinfo_rep *devinfo, struct doca_dev_rep **dev_rep);
DOCA_STABLE doca_error_t doca_dev_rep_close(struct doca_dev_rep *dev);

/* The device info of an opened device / representor (valid while it is open; NULL on NULL). */
DOCA_STABLE struct doca_devinfo *doca_dev_as_devinfo(const struct doca_dev *dev);
DOCA_STABLE struct doca_devinfo_rep *doca_dev_rep_as_devinfo(struct doca_dev_rep *dev_rep);

/*
 * Ask the device to keep what it needs for a fast restart when it is closed
 * (meant to be called before tearing down, or periodically so that even a
 * crash leaves the device ready). DOCA_ERROR_NOT_SUPPORTED unless
 * doca_devinfo_cap_is_accelerate_resource_reclaim_supported says 1; the
 * emulated device releases everything at once when closed, so where the
 * topology enables the capability there is nothing more to do.
 */
DOCA_EXPERIMENTAL doca_error_t doca_dev_accelerate_resource_reclaim(struct doca_dev *dev);

/* Queries of a device. Output buffers must hold at least the matching *_SIZE. */
DOCA_STABLE doca_error_t doca_devinfo_get_pci_addr_str(const struct doca_devinfo *devinfo, char *pci_addr_str);
/* pci_addr_str: "BB:DD.F" or "DDDD:BB:DD.F", case-insensitive. */
DOCA_STABLE doca_error_t doca_devinfo_is_equal_pci_addr(const struct doca_devinfo *devinfo,
							const char *pci_addr_str, uint8_t *is_equal);
/* DOCA_ERROR_NOT_FOUND when the port has no IPv4 address (the default). */
DOCA_STABLE doca_error_t doca_devinfo_get_ipv4_addr(const struct doca_devinfo *devinfo, uint8_t *ipv4_addr,
						    uint32_t size);
DOCA_STABLE doca_error_t doca_devinfo_get_ipv6_addr(const struct doca_devinfo *devinfo, uint8_t *ipv6_addr,
						    uint32_t size);
DOCA_STABLE doca_error_t doca_devinfo_get_mac_addr(const struct doca_devinfo *devinfo, uint8_t *mac_addr,
						   uint32_t size);
DOCA_STABLE doca_error_t doca_devinfo_get_iface_name(const struct doca_devinfo *devinfo, char *iface_name,
						     uint32_t size);
DOCA_STABLE doca_error_t doca_devinfo_get_ibdev_name(const struct doca_devinfo *devinfo, char *ibdev_name,
						     uint32_t size);
DOCA_STABLE doca_error_t doca_devinfo_get_pci_func_type(const struct doca_devinfo *devinfo,
							enum doca_pci_func_type *pci_func_type);
/* Ethernet ports: DOCA_ERROR_NOT_SUPPORTED. */
DOCA_STABLE doca_error_t doca_devinfo_get_lid(const struct doca_devinfo *devinfo, uint16_t *lid);
/* Port rate in bits per second (topology "active_rate"; default 200 Gb/s). */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_active_rate(const struct doca_devinfo *devinfo,
							    uint64_t *active_rate);
/* VHCA id of the function (see the top of this file). */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_vhca_id(const struct doca_devinfo *devinfo, uint16_t *vhca_id);
/* SF index of a sub-function; a PF or VF has none: DOCA_ERROR_NOT_SUPPORTED
 * (check doca_devinfo_get_pci_func_type first, as DOCA's samples do). */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_sf_index(const struct doca_devinfo *devinfo, uint32_t *sf_index);
DOCA_STABLE doca_error_t doca_devinfo_cap_is_hotplug_manager_supported(const struct doca_devinfo *devinfo,
								       uint8_t *is_hotplug_manager);
/* Capabilities from the topology (default 0 for both: the emulated device
 * needs no reclaim acceleration and has no Ethernet queues to moderate). */
DOCA_EXPERIMENTAL doca_error_t
doca_devinfo_cap_is_accelerate_resource_reclaim_supported(const struct doca_devinfo *devinfo,
							  uint8_t *is_accelerate_resource_reclaim);
DOCA_EXPERIMENTAL doca_error_t
doca_devinfo_cap_is_notification_moderation_supported(const struct doca_devinfo *devinfo,
						      uint8_t *is_notification_moderation_supported);

/* Which representor filters doca_devinfo_rep_create_list supports on this device
 * (DOCA_ERROR_NOT_SUPPORTED on the host, whose functions expose no representors). */
DOCA_STABLE doca_error_t doca_devinfo_rep_cap_is_filter_all_supported(const struct doca_devinfo *devinfo,
								      uint8_t *filter_all_supported);
DOCA_STABLE doca_error_t doca_devinfo_rep_cap_is_filter_net_supported(const struct doca_devinfo *devinfo,
								      uint8_t *filter_net_supported);
DOCA_STABLE doca_error_t doca_devinfo_rep_cap_is_filter_emulated_supported(const struct doca_devinfo *devinfo,
									   uint8_t *filter_emulated_supported);

/* Queries of a representor. */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_pci_addr_str(const struct doca_devinfo_rep *devinfo_rep,
							   char *pci_addr_str);
DOCA_STABLE doca_error_t doca_devinfo_rep_is_equal_pci_addr(const struct doca_devinfo_rep *devinfo_rep,
							    const char *pci_addr_str, uint8_t *is_equal);
DOCA_STABLE doca_error_t doca_devinfo_rep_get_pci_func_type(const struct doca_devinfo_rep *devinfo_rep,
							    enum doca_pci_func_type *pci_func_type);
DOCA_STABLE doca_error_t doca_devinfo_rep_get_is_hotplug(const struct doca_devinfo_rep *devinfo_rep,
							 uint8_t *is_hotplug);
DOCA_STABLE doca_error_t doca_devinfo_rep_get_vuid(const struct doca_devinfo_rep *devinfo_rep, char *rep_vuid,
						   uint32_t size);
/* Netdev name of the representor on the Arm side (pf0hpf, pf0vf1...);
 * size at least DOCA_DEVINFO_IFACE_NAME_SIZE. */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_get_iface_name(const struct doca_devinfo_rep *devinfo_rep,
							       char *iface_name, uint32_t size);
/* VHCA id of the function the representor stands for. */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_get_vhca_id(const struct doca_devinfo_rep *devinfo_rep,
							    uint16_t *vhca_id);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DEV_H_ */
