/*
 * sd_dev.h - the emulated machine as the other libraries see it.
 *
 * The topology (default: the lesson's BlueField, or the JSON file named by
 * SOFTDOCA_TOPOLOGY) describes cards. Each card has an Arm side (dpu) with
 * physical functions and representors of the host functions, and a host side
 * with those host functions. A process sees only its own side, fixed by the
 * flavor it was built for (sd_side()).
 *
 * Capabilities live on the device info; libraries read them through
 * sd_devinfo_caps()/sd_dev_caps() and never hard-code limits.
 *
 * Implemented in src/dev/. Thread-safe after the first call (the topology is
 * loaded once, under a lock, and then read-only).
 */
#ifndef SD_DEV_H_
#define SD_DEV_H_

#include "sd_abi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

struct doca_devinfo;
struct doca_dev;
struct doca_devinfo_rep;
struct doca_dev_rep;

enum sd_side {
	SD_SIDE_HOST = 0,
	SD_SIDE_DPU = 1,
};

/* The link across machines the topology file names: its "link" key
 * ("ucx://ADDR:PORT", at most SD_TOPO_LINK_MAX - 1 characters) and
 * "link_secret_file" (a relative path is taken from the topology file's
 * folder). SOFTDOCA_LINK and SOFTDOCA_LINK_SECRET_FILE take precedence
 * (link_select.c). true when it names either (the other NULL: the secret
 * may serve the cards' own links alone); false without, or when the
 * topology does not load (the device calls report why). */
#define SD_TOPO_LINK_MAX 320
bool sd_topo_link(const char **url, const char **secret_file);
/* A card's own link (cards[i].link: where that card's Arm side listens,
 * for a host with cards whose Arm sides are on different machines): true
 * with *url set when card names one. *ncards (may be NULL) is set to the
 * topology's card count either way (0 when it does not load). */
bool sd_topo_card_link(uint32_t card, const char **url, uint32_t *ncards);

/* The side this library build is (host flavor or dpu flavor). */
enum sd_side sd_side(void);
const char *sd_side_name(enum sd_side side); /* "host" / "dpu" */

/* Capabilities of one emulated device (one PCI function). */
struct sd_caps {
	/* DMA */
	bool dma_memcpy_supported;
	uint32_t dma_max_buf_list_len;
	uint64_t dma_max_buf_size;
	uint32_t dma_max_tasks;
	/* Comch control path */
	bool comch_server_supported;
	bool comch_client_supported;
	uint32_t comch_max_msg_size;
	uint32_t comch_max_name_len;
	uint32_t comch_max_recv_queue_size;
	uint32_t comch_max_clients;
	/* Comch fast path */
	uint32_t producer_max_buf_size;
	uint32_t consumer_max_buf_size;
	uint32_t producer_max_tasks;
	uint32_t consumer_max_tasks;
	uint32_t max_consumers_per_connection;
	/* mmap */
	uint64_t mmap_max_size;
	bool mmap_export_pci_supported;
	bool mmap_create_from_export_pci_supported;
	/* mmap advise: the cache-invalidation task (doca_mmap_advise.h) */
	bool mmap_cache_invalidate_supported;
};

/* Canonical PCI address length "XXXX:BB:DD.F" (12 chars + NUL). */
#define SD_PCI_ADDR_LEN 13

const struct sd_caps *sd_devinfo_caps(const struct doca_devinfo *devinfo);
const struct sd_caps *sd_dev_caps(const struct doca_dev *dev);

/* Canonical "0000:03:00.0" of an opened device / representor. */
const char *sd_dev_pci_addr(const struct doca_dev *dev);
const char *sd_dev_rep_pci_addr(const struct doca_dev_rep *rep);

/* Index of the emulated card a device or representor belongs to. The fabric
 * uses it so that only the two sides of the same card meet. */
uint32_t sd_dev_card(const struct doca_dev *dev);
uint32_t sd_dev_rep_card(const struct doca_dev_rep *rep);

/* Parse "03:00.0", "0000:03:00.0" (case-insensitive) into canonical form.
 * INVALID_VALUE if it is not a PCI address. */
doca_error_t sd_pci_canonical(const char *in, char out[SD_PCI_ADDR_LEN]);

/* Objects built on a device (mmaps, contexts) hold a reference so that
 * doca_dev_close() on a device still in use answers IN_USE. */
void sd_dev_get(struct doca_dev *dev);
void sd_dev_put(struct doca_dev *dev);
void sd_dev_rep_get(struct doca_dev_rep *rep);
void sd_dev_rep_put(struct doca_dev_rep *rep);

#endif /* SD_DEV_H_ */
