/*
 * doca_caps_view.c - the two machine-readable views of doca_caps: the active
 * topology as JSON (--topology-json) and this side's PCI functions in lspci's
 * format (--lspci, behind softdoca-shell's `lspci`).
 *
 * Both read the machine through the public device API plus sd_devinfo_caps(),
 * so they show exactly what a DOCA program of this flavor sees, with the same
 * topology file (SOFTDOCA_TOPOLOGY) applied and validated.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_build_config.h>
#include <doca_dev.h>
#include <doca_version.h>

#include "doca_caps_view.h"
#include "sd_dev.h"

/* Strings as the pci.ids database names BlueField-3 functions. */
#define LSPCI_VENDOR "Mellanox Technologies"
#define LSPCI_PF "Ethernet controller: " LSPCI_VENDOR " MT43244 BlueField-3 integrated ConnectX-7 network controller"
#define LSPCI_VF "Ethernet controller: " LSPCI_VENDOR " ConnectX Family mlx5Gen Virtual Function"
#define LSPCI_MGMT "DMA controller: " LSPCI_VENDOR " MT43244 BlueField-3 SoC Management Interface"
#define LSPCI_REV " (rev 01)"

const char *caps_func_type_name(enum doca_pci_func_type t)
{
	switch (t) {
	case DOCA_PCI_FUNC_TYPE_PF:
		return "PF";
	case DOCA_PCI_FUNC_TYPE_VF:
		return "VF";
	case DOCA_PCI_FUNC_TYPE_SF:
		return "SF";
	}
	return "unknown";
}

/* Names come from a topology file, so they are escaped rather than trusted. */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s != '\0'; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static void json_kv_str(const char *indent, const char *key, const char *val, bool comma)
{
	printf("%s\"%s\": ", indent, key);
	json_str(val);
	printf("%s\n", comma ? "," : "");
}

static void json_caps(const struct sd_caps *c)
{
	const char *in = "        ";

	printf("      \"caps\": {\n");
	printf("%s\"dma_memcpy_supported\": %s,\n", in, c->dma_memcpy_supported ? "true" : "false");
	printf("%s\"dma_max_buf_list_len\": %u,\n", in, c->dma_max_buf_list_len);
	printf("%s\"dma_max_buf_size\": %llu,\n", in, (unsigned long long)c->dma_max_buf_size);
	printf("%s\"dma_max_tasks\": %u,\n", in, c->dma_max_tasks);
	printf("%s\"comch_server_supported\": %s,\n", in, c->comch_server_supported ? "true" : "false");
	printf("%s\"comch_client_supported\": %s,\n", in, c->comch_client_supported ? "true" : "false");
	printf("%s\"comch_max_msg_size\": %u,\n", in, c->comch_max_msg_size);
	printf("%s\"comch_max_name_len\": %u,\n", in, c->comch_max_name_len);
	printf("%s\"comch_max_recv_queue_size\": %u,\n", in, c->comch_max_recv_queue_size);
	printf("%s\"comch_max_clients\": %u,\n", in, c->comch_max_clients);
	printf("%s\"producer_max_buf_size\": %u,\n", in, c->producer_max_buf_size);
	printf("%s\"consumer_max_buf_size\": %u,\n", in, c->consumer_max_buf_size);
	printf("%s\"producer_max_tasks\": %u,\n", in, c->producer_max_tasks);
	printf("%s\"consumer_max_tasks\": %u,\n", in, c->consumer_max_tasks);
	printf("%s\"max_consumers_per_connection\": %u,\n", in, c->max_consumers_per_connection);
	printf("%s\"mmap_max_size\": %llu,\n", in, (unsigned long long)c->mmap_max_size);
	printf("%s\"mmap_export_pci_supported\": %s,\n", in, c->mmap_export_pci_supported ? "true" : "false");
	printf("%s\"mmap_create_from_export_pci_supported\": %s,\n", in,
	       c->mmap_create_from_export_pci_supported ? "true" : "false");
	printf("%s\"mmap_cache_invalidate_supported\": %s\n", in, c->mmap_cache_invalidate_supported ? "true" : "false");
	printf("      }");
}

static void json_reps(struct doca_dev *dev)
{
	struct doca_devinfo_rep **reps = NULL;
	uint32_t n = 0;
	uint8_t can = 0;

	printf("      \"representors\": [");
	/* only Arm-side devices hold representors; asking a host device would log an error */
	if (dev == NULL || doca_devinfo_rep_cap_is_filter_all_supported(doca_dev_as_devinfo(dev), &can) != DOCA_SUCCESS ||
	    !can || doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_ALL, &reps, &n) != DOCA_SUCCESS) {
		printf("],\n");
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		char pci[DOCA_DEVINFO_REP_PCI_ADDR_SIZE] = "", vuid[DOCA_DEVINFO_REP_VUID_SIZE] = "";
		char iface[DOCA_DEVINFO_IFACE_NAME_SIZE] = "";
		enum doca_pci_func_type ft = DOCA_PCI_FUNC_TYPE_PF;
		uint16_t vhca = 0;

		doca_devinfo_rep_get_pci_addr_str(reps[i], pci);
		doca_devinfo_rep_get_pci_func_type(reps[i], &ft);
		doca_devinfo_rep_get_vuid(reps[i], vuid, sizeof(vuid));
		doca_devinfo_rep_get_iface_name(reps[i], iface, sizeof(iface));
		doca_devinfo_rep_get_vhca_id(reps[i], &vhca);
		printf("%s\n        {\"pci\": ", i ? "," : "");
		json_str(pci);
		printf(", \"pci_func_type\": \"%s\", \"iface_name\": ", caps_func_type_name(ft));
		json_str(iface);
		printf(", \"vuid\": ");
		json_str(vuid);
		printf(", \"vhca_id\": %u}", vhca);
	}
	printf("%s],\n", n ? "\n      " : "");
	doca_devinfo_rep_destroy_list(reps);
}

int caps_print_topology_json(void)
{
	struct doca_devinfo **list;
	const char *src = getenv("SOFTDOCA_TOPOLOGY");
	uint32_t n;
	doca_error_t ret;

	ret = doca_devinfo_create_list(&list, &n);
	if (ret != DOCA_SUCCESS) {
		fprintf(stderr, "doca_caps: failed to list devices: %s\n", doca_error_get_descr(ret));
		return 1;
	}
	printf("{\n");
	json_kv_str("  ", "flavor", SOFTDOCA_FLAVOR, true);
	json_kv_str("  ", "side", strcmp(SOFTDOCA_FLAVOR, "dpu") == 0 ? "arm" : "host", true);
	json_kv_str("  ", "doca_version", doca_version_runtime(), true);
	json_kv_str("  ", "softdoca_version", softdoca_version_runtime(), true);
	json_kv_str("  ", "topology", src != NULL && *src != '\0' ? src : "default", true);
	printf("  \"devices\": [");
	for (uint32_t i = 0; i < n; i++) {
		char pci[DOCA_DEVINFO_PCI_ADDR_SIZE] = "", ibdev[DOCA_DEVINFO_IBDEV_NAME_SIZE] = "";
		char iface[DOCA_DEVINFO_IFACE_NAME_SIZE] = "", mac_s[18] = "";
		uint8_t mac[DOCA_DEVINFO_MAC_ADDR_SIZE] = {0}, v4[DOCA_DEVINFO_IPV4_ADDR_SIZE] = {0};
		enum doca_pci_func_type ft = DOCA_PCI_FUNC_TYPE_PF;
		struct doca_dev *dev = NULL;
		uint16_t vhca = 0;
		char v4_s[16];

		doca_devinfo_get_pci_addr_str(list[i], pci);
		doca_devinfo_get_ibdev_name(list[i], ibdev, sizeof(ibdev));
		doca_devinfo_get_iface_name(list[i], iface, sizeof(iface));
		doca_devinfo_get_pci_func_type(list[i], &ft);
		doca_devinfo_get_vhca_id(list[i], &vhca);
		if (doca_devinfo_get_mac_addr(list[i], mac, sizeof(mac)) == DOCA_SUCCESS)
			snprintf(mac_s, sizeof(mac_s), "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3],
				 mac[4], mac[5]);
		if (doca_devinfo_get_ipv4_addr(list[i], v4, sizeof(v4)) != DOCA_SUCCESS)
			memset(v4, 0, sizeof(v4));
		snprintf(v4_s, sizeof(v4_s), "%u.%u.%u.%u", v4[0], v4[1], v4[2], v4[3]);
		if (doca_dev_open(list[i], &dev) != DOCA_SUCCESS)
			dev = NULL;

		printf("%s\n    {\n", i ? "," : "");
		json_kv_str("      ", "pci", pci, true);
		printf("      \"card\": %u,\n", dev != NULL ? sd_dev_card(dev) : 0);
		json_kv_str("      ", "pci_func_type", caps_func_type_name(ft), true);
		json_kv_str("      ", "ibdev_name", ibdev, true);
		json_kv_str("      ", "iface_name", iface, true);
		json_kv_str("      ", "mac_addr", mac_s, true);
		json_kv_str("      ", "ipv4_addr", v4_s, true);
		printf("      \"vhca_id\": %u,\n", vhca);
		json_reps(dev);
		json_caps(sd_devinfo_caps(list[i]));
		printf("\n    }");
		if (dev != NULL)
			doca_dev_close(dev);
	}
	printf("%s]\n}\n", n ? "\n  " : "");
	doca_devinfo_destroy_list(list);
	return 0;
}

struct lspci_row {
	char addr[SD_PCI_ADDR_LEN]; /* canonical DDDD:BB:DD.F */
	const char *desc;
	bool pf;                    /* a physical function (the management row follows them) */
};

static int row_cmp(const void *a, const void *b)
{
	return strcmp(((const struct lspci_row *)a)->addr, ((const struct lspci_row *)b)->addr);
}

static bool row_taken(const struct lspci_row *rows, size_t n, const char *addr)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].addr, addr) == 0)
			return true;
	return false;
}

/*
 * A BlueField host also sees the card's SoC management function (the RShim
 * DMA controller) on the function after its PFs, e.g. 3b:00.2 next to 3b:00.0
 * and 3b:00.1. It is derived here per card rather than described in the
 * topology because no DOCA device stands behind it.
 */
static size_t add_mgmt_rows(struct lspci_row *rows, size_t n, const uint32_t *cards, size_t nfn, size_t cap)
{
	size_t out = n;

	for (size_t i = 0; i < nfn; i++) {
		char addr[SD_PCI_ADDR_LEN];
		int fn_max = -1;
		bool first = true;

		for (size_t j = 0; j < i; j++)
			if (cards[j] == cards[i])
				first = false;
		if (!first || !rows[i].pf)
			continue;
		for (size_t j = 0; j < nfn; j++) {
			if (cards[j] != cards[i] || !rows[j].pf ||
			    strncmp(rows[j].addr, rows[i].addr, 10) != 0)
				continue;
			if (rows[j].addr[11] - '0' > fn_max)
				fn_max = rows[j].addr[11] - '0';
		}
		if (fn_max < 0 || fn_max >= 7 || out >= cap)
			continue;
		snprintf(addr, sizeof(addr), "%.10s.%d", rows[i].addr, fn_max + 1);
		if (row_taken(rows, out, addr))
			continue;
		memcpy(rows[out].addr, addr, sizeof(addr));
		rows[out].desc = LSPCI_MGMT;
		rows[out].pf = false;
		out++;
	}
	return out;
}

int caps_print_lspci(void)
{
	struct doca_devinfo **list;
	struct lspci_row *rows;
	uint32_t *cards;
	size_t nrows = 0, nfn;
	bool show_domain = false;
	uint32_t n;
	doca_error_t ret;

	ret = doca_devinfo_create_list(&list, &n);
	if (ret != DOCA_SUCCESS) {
		fprintf(stderr, "doca_caps: failed to list devices: %s\n", doca_error_get_descr(ret));
		return 1;
	}
	/* room for one management row per function, which bounds the card count */
	rows = calloc(2 * (size_t)n + 1, sizeof(*rows));
	cards = calloc((size_t)n + 1, sizeof(*cards));
	if (rows == NULL || cards == NULL) {
		fprintf(stderr, "doca_caps: out of memory\n");
		free(rows);
		free(cards);
		doca_devinfo_destroy_list(list);
		return 1;
	}
	for (uint32_t i = 0; i < n; i++) {
		char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
		enum doca_pci_func_type ft;
		struct doca_dev *dev;

		if (doca_devinfo_get_pci_func_type(list[i], &ft) != DOCA_SUCCESS || ft == DOCA_PCI_FUNC_TYPE_SF)
			continue; /* an SF is an auxiliary device, not a PCI function */
		if (doca_devinfo_get_pci_addr_str(list[i], pci) != DOCA_SUCCESS ||
		    sd_pci_canonical(pci, rows[nrows].addr) != DOCA_SUCCESS)
			continue;
		rows[nrows].pf = ft == DOCA_PCI_FUNC_TYPE_PF;
		rows[nrows].desc = rows[nrows].pf ? LSPCI_PF : LSPCI_VF;
		cards[nrows] = 0;
		if (doca_dev_open(list[i], &dev) == DOCA_SUCCESS) {
			cards[nrows] = sd_dev_card(dev);
			doca_dev_close(dev);
		}
		nrows++;
	}
	doca_devinfo_destroy_list(list);
	nfn = nrows;
	if (strcmp(SOFTDOCA_FLAVOR, "host") == 0)
		nrows = add_mgmt_rows(rows, nrows, cards, nfn, 2 * (size_t)n + 1);
	qsort(rows, nrows, sizeof(*rows), row_cmp);
	/* like lspci: the domain is printed only when some device is outside 0000 */
	for (size_t i = 0; i < nrows; i++)
		if (strncmp(rows[i].addr, "0000:", 5) != 0)
			show_domain = true;
	for (size_t i = 0; i < nrows; i++)
		printf("%s %s" LSPCI_REV "\n", show_domain ? rows[i].addr : rows[i].addr + 5, rows[i].desc);
	free(rows);
	free(cards);
	return 0;
}
