/*
 * dev_priv.h - the loaded topology and the device objects (src/dev only).
 *
 * The topology is built once per process and then read-only; devinfo and dev
 * objects point into it, so it is never freed while the process runs.
 */
#ifndef SD_DEV_PRIV_H_
#define SD_DEV_PRIV_H_

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <doca_dev.h>

#include "sd_dev.h"

#define SD_IBDEV_MAX 64
#define SD_IFACE_MAX 64
/* A card's board serial, as the VPD [SN] field: "MT2314XZ00YA" (12 chars) */
#define SD_SERIAL_MIN 8
#define SD_SERIAL_MAX 24
/* A representor VUID, with its NUL: DOCA_DEVINFO_REP_VUID_SIZE */
#define SD_VUID_MAX 128

/* Device properties only src/dev reads (the other libraries see struct
 * sd_caps). They are set from the same "caps" objects of the topology. */
struct sd_dev_props {
	uint64_t active_rate;                         /* bits/s */
	bool accelerate_resource_reclaim_supported;
	bool notification_moderation_supported;
};

struct sd_topo_rep {
	char pci[SD_PCI_ADDR_LEN];
	char iface[SD_IFACE_MAX];       /* netdev name of the representor */
	enum doca_pci_func_type func_type;
	int filter;                     /* DOCA_DEVINFO_REP_FILTER_NET or _EMULATED */
	uint32_t card;
	uint16_t vhca_id;               /* the represented function's */
	bool vhca_set;                  /* given in the file (else derived after parsing) */
	char vuid[SD_VUID_MAX];         /* DOCA's representor VUID (see topology.c) */
};

struct sd_topo_fn {
	char pci[SD_PCI_ADDR_LEN];
	char ibdev[SD_IBDEV_MAX];
	char iface[SD_IFACE_MAX];
	uint8_t mac[6];
	bool has_ipv4;
	uint8_t ipv4[4];
	enum doca_pci_func_type func_type;
	uint32_t card;
	uint16_t vhca_id;     /* distinct per function of a card */
	uint32_t sf_index;    /* SFs only: the auxiliary device index */
	struct sd_caps caps;
	struct sd_dev_props props;
	uint32_t nreps;
	struct sd_topo_rep *reps;
};

/* The functions this process sees (its own side only). */
struct sd_topo {
	uint32_t nfns;
	struct sd_topo_fn *fns;
	uint32_t ncards;
	/* "link" and "link_secret_file" (sd_topo_link): "" when not given */
	char link[SD_TOPO_LINK_MAX];
	/* cards[i].link (sd_topo_card_link), ncards of them: "" when not given */
	char (*card_link)[SD_TOPO_LINK_MAX];
	char link_secret_file[PATH_MAX];
};

struct doca_devinfo {
	const struct sd_topo_fn *fn;
};

/* One object per opened function: opening it again returns the same handle
 * with its open count raised (doca_dev_close undoes one open). */
struct doca_dev {
	struct doca_devinfo info;
	atomic_uint users;       /* mmaps/contexts built on it (sd_dev_get/put) */
	unsigned int opens;      /* doca_dev_open calls not yet closed, under the dev lock */
	struct doca_dev *next;   /* list of open devices, under the dev lock */
};

struct doca_devinfo_rep {
	const struct sd_topo_rep *rep;
	const struct sd_topo_fn *parent;
};

struct doca_dev_rep {
	struct doca_devinfo_rep info;
	atomic_uint users;
};

/* Loaded topology for this process, or an error (already logged). */
doca_error_t sd_topo_get(const struct sd_topo **topo);

/* topology_parse.c: a topology from JSON text, keeping the functions of
 * side; src names the text in messages. On failure *out is NULL and msg
 * holds the sentence to log (source, JSON path, rule). */
doca_error_t sd_topo_parse(const char *text, const char *src, enum sd_side side, struct sd_topo **out, char *msg,
			   size_t cap);
void sd_topo_free(struct sd_topo *topo);

/* Built-in defaults for one function of the given side. */
void sd_caps_defaults(struct sd_caps *caps, enum sd_side side);
void sd_props_defaults(struct sd_dev_props *props);

#endif /* SD_DEV_PRIV_H_ */
