/*
 * topology.c - the emulated machine: which PCI functions a process sees.
 *
 * Without SOFTDOCA_TOPOLOGY the machine is the lesson's: one BlueField whose
 * Arm side has PFs 0000:03:00.0 (mlx5_0/p0) and 0000:03:00.1 (mlx5_1/p1),
 * holding representors of the host functions 0000:3b:00.0 and 0000:3b:00.1,
 * which the host sees as mlx5_0/ens1f0np0 and mlx5_1/ens1f1np1. The default
 * is written below in the same JSON the file override uses.
 *
 * SOFTDOCA_TOPOLOGY=<path> names a JSON file that replaces it:
 *
 *   {
 *     "caps": { <caps> },                  optional, every device
 *     "cards": [                           required, at least one card
 *       {
 *         "caps": { <caps> },              optional, every device of the card
 *         "dpu": {                         optional: the Arm side
 *           "pfs": [
 *             { "pci": "0000:03:00.0",     required, [DDDD:]BB:DD.F
 *               "ibdev": "mlx5_0",         optional (default mlx5_<n>)
 *               "iface": "p0",             optional (default p<n>)
 *               "mac": "02:5d:0c:00:03:00",optional (default derived)
 *               "ipv4": "192.168.100.2",   optional (default: none)
 *               "func_type": "pf",         optional: "pf" (default), "vf", "sf"
 *               "sf_index": 2,             SFs only (default: position in the list)
 *               "vhca_id": 0,              optional (default below)
 *               "caps": { <caps> },        optional, this device
 *               "reps": [ "0000:3b:00.0",  representors: an address, or
 *                         { "pci": "0000:3b:00.2", "type": "net" | "emulated",
 *                           "func_type": "pf" | "vf" | "sf", "iface": "pf0vf0",
 *                           "vhca_id": 2 } ] } ] },
 *         "host": {                        optional: the host side
 *           "functions": [ { "pci": ..., "ibdev": ..., "iface": ..., "mac": ...,
 *                            "func_type": ..., "sf_index": ..., "vhca_id": ...,
 *                            "caps": { <caps> } } ] }
 *       } ] }
 *
 * VHCA ids are unique among the functions of a card (both sides). By default
 * the Arm-side PFs take 0, 1, ... and the host functions follow them; a
 * representor reports the id of the host function it represents (same PCI
 * address on the same card), else 1000 + its position on the card. Default
 * representor interface names are pf<n>hpf (PF), pf<n>vf<m> (VF) and
 * pf<n>sf<m> (SF), n being the index of the Arm-side PF holding it.
 *
 * <caps> keys are the fields of struct sd_caps (sd_dev.h) and of struct
 * sd_dev_props (dev_priv.h: "active_rate" in bits/s, default 200 Gb/s;
 * "accelerate_resource_reclaim_supported" and
 * "notification_moderation_supported", default false), e.g.
 * "dma_max_buf_list_len": 16 or "comch_server_supported": true. Precedence:
 * built-in defaults < top-level caps < card caps < device caps. Unknown keys,
 * wrong types, bad or duplicate addresses are errors: doca_devinfo_create_list
 * then fails with DOCA_ERROR_INVALID_VALUE (DOCA_ERROR_NOT_FOUND for a missing
 * file) and the SDK log names the file, the JSON path and the problem.
 *
 * Both sides of every card are validated; only the process's own side is
 * kept. Loaded once per process under a lock, then read-only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <doca_build_config.h>

#include "dev_priv.h"
#include "sd_log.h"

SD_LOG_REGISTER(DOCA_DEV);

/* JSON paths in messages are bounded buffers; a cut-off path is harmless. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

static const char default_topology[] =
	"{\"cards\": [{"
	" \"dpu\": {\"pfs\": ["
	"  {\"pci\": \"0000:03:00.0\", \"ibdev\": \"mlx5_0\", \"iface\": \"p0\","
	"   \"mac\": \"02:5d:0c:00:03:00\", \"reps\": [\"0000:3b:00.0\"]},"
	"  {\"pci\": \"0000:03:00.1\", \"ibdev\": \"mlx5_1\", \"iface\": \"p1\","
	"   \"mac\": \"02:5d:0c:00:03:01\", \"reps\": [\"0000:3b:00.1\"]}]},"
	" \"host\": {\"functions\": ["
	"  {\"pci\": \"0000:3b:00.0\", \"ibdev\": \"mlx5_0\", \"iface\": \"ens1f0np0\","
	"   \"mac\": \"02:5d:0c:00:3b:00\"},"
	"  {\"pci\": \"0000:3b:00.1\", \"ibdev\": \"mlx5_1\", \"iface\": \"ens1f1np1\","
	"   \"mac\": \"02:5d:0c:00:3b:01\"}]}}]}";

enum sd_side sd_side(void)
{
#ifdef DOCA_ARCH_DPU
	return SD_SIDE_DPU;
#else
	return SD_SIDE_HOST;
#endif
}

const char *sd_side_name(enum sd_side side)
{
	return side == SD_SIDE_DPU ? "dpu" : "host";
}

void sd_caps_defaults(struct sd_caps *caps, enum sd_side side)
{
	memset(caps, 0, sizeof(*caps));
	caps->dma_memcpy_supported = true;
	caps->dma_max_buf_list_len = 32;
	caps->dma_max_buf_size = 2147483648ull;
	caps->dma_max_tasks = 65536;
	caps->comch_server_supported = side == SD_SIDE_DPU;
	caps->comch_client_supported = side == SD_SIDE_HOST;
	caps->comch_max_msg_size = 4080;
	caps->comch_max_name_len = 120;
	caps->comch_max_recv_queue_size = 8192;
	caps->comch_max_clients = 512;
	caps->producer_max_buf_size = 4194304;
	caps->consumer_max_buf_size = 4194304;
	caps->producer_max_tasks = 65536;
	caps->consumer_max_tasks = 65536;
	caps->max_consumers_per_connection = 64;
	caps->mmap_max_size = 1ull << 40;
	caps->mmap_export_pci_supported = true;
	caps->mmap_create_from_export_pci_supported = true;
	caps->mmap_cache_invalidate_supported = true;
}

void sd_props_defaults(struct sd_dev_props *props)
{
	memset(props, 0, sizeof(*props));
	props->active_rate = 200000000000ull; /* a 200 Gb/s port */
	/* an emulated device frees its resources at once: nothing to accelerate */
	props->accelerate_resource_reclaim_supported = false;
	/* notification moderation is an Ethernet queue feature; no NIC is emulated */
	props->notification_moderation_supported = false;
}

doca_error_t sd_pci_canonical(const char *in, char out[SD_PCI_ADDR_LEN])
{
	unsigned int dom = 0, bus, devn, fn;
	size_t n;
	const char *p;
	int ndig;

	if (in == NULL || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	n = strlen(in);
	if (n != 7 && n != 12)
		return DOCA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < n; i++) {
		char c = in[i];
		size_t pos = n == 12 ? i : i + 5;

		if (pos == 4 || pos == 7) {
			if (c != ':')
				return DOCA_ERROR_INVALID_VALUE;
		} else if (pos == 10) {
			if (c != '.')
				return DOCA_ERROR_INVALID_VALUE;
		} else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
			return DOCA_ERROR_INVALID_VALUE;
		}
	}
	p = in;
	if (n == 12) {
		if (sscanf(p, "%4x%n", &dom, &ndig) != 1 || ndig != 4)
			return DOCA_ERROR_INVALID_VALUE;
		p += 5;
	}
	if (sscanf(p, "%2x:%2x.%1x", &bus, &devn, &fn) != 3)
		return DOCA_ERROR_INVALID_VALUE;
	if (devn > 0x1f || fn > 7)
		return DOCA_ERROR_INVALID_VALUE;
	snprintf(out, SD_PCI_ADDR_LEN, "%04x:%02x:%02x.%x", dom, bus, devn, fn);
	return DOCA_SUCCESS;
}

/* ---- parsing ---- */

/* A function's VHCA id, kept for both sides while parsing: ids must be unique
 * per card, and representors take the id of the host function they stand for. */
struct vhca_rec {
	uint32_t card;
	char side;              /* 'd' Arm-side PF, 'h' host function */
	char pci[SD_PCI_ADDR_LEN];
	uint16_t vhca_id;
};

struct parse {
	const char *src;        /* file name, or "<default>" */
	char msg[512];
	doca_error_t err;
	enum sd_side side;
	/* every address seen per kind, to refuse duplicates */
	char (*seen)[SD_PCI_ADDR_LEN + 1];
	size_t nseen, capseen;
	struct vhca_rec *vhcas;
	size_t nvhcas, capvhcas;
	struct sd_topo *topo;
};

static doca_error_t perr(struct parse *ps, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static doca_error_t perr(struct parse *ps, const char *path, const char *fmt, ...)
{
	char what[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(ps->msg, sizeof(ps->msg), "topology %s: %s%s%s", ps->src, path, *path ? ": " : "", what);
	ps->err = DOCA_ERROR_INVALID_VALUE;
	return ps->err;
}

enum cap_kind { CAP_BOOL, CAP_U32, CAP_U64 };

static const struct cap_field {
	const char *name;
	size_t off;
	enum cap_kind kind;
	bool prop;              /* a field of struct sd_dev_props, not sd_caps */
} cap_fields[] = {
#define F(n, k) {#n, offsetof(struct sd_caps, n), k, false}
#define P(n, k) {#n, offsetof(struct sd_dev_props, n), k, true}
	F(dma_memcpy_supported, CAP_BOOL),
	F(dma_max_buf_list_len, CAP_U32),
	F(dma_max_buf_size, CAP_U64),
	F(dma_max_tasks, CAP_U32),
	F(comch_server_supported, CAP_BOOL),
	F(comch_client_supported, CAP_BOOL),
	F(comch_max_msg_size, CAP_U32),
	F(comch_max_name_len, CAP_U32),
	F(comch_max_recv_queue_size, CAP_U32),
	F(comch_max_clients, CAP_U32),
	F(producer_max_buf_size, CAP_U32),
	F(consumer_max_buf_size, CAP_U32),
	F(producer_max_tasks, CAP_U32),
	F(consumer_max_tasks, CAP_U32),
	F(max_consumers_per_connection, CAP_U32),
	F(mmap_max_size, CAP_U64),
	F(mmap_export_pci_supported, CAP_BOOL),
	F(mmap_create_from_export_pci_supported, CAP_BOOL),
	F(mmap_cache_invalidate_supported, CAP_BOOL),
	P(active_rate, CAP_U64),
	P(accelerate_resource_reclaim_supported, CAP_BOOL),
	P(notification_moderation_supported, CAP_BOOL),
#undef F
#undef P
};

static doca_error_t apply_caps(struct parse *ps, const char *path, json_object *obj, struct sd_caps *caps_out,
			       struct sd_dev_props *props)
{
	char sub[256];

	if (obj == NULL)
		return DOCA_SUCCESS;
	if (!json_object_is_type(obj, json_type_object))
		return perr(ps, path, "must be an object");
	json_object_object_foreach(obj, key, val)
	{
		const struct cap_field *f = NULL;
		char *caps;

		for (size_t i = 0; i < sizeof(cap_fields) / sizeof(cap_fields[0]); i++)
			if (strcmp(cap_fields[i].name, key) == 0)
				f = &cap_fields[i];
		snprintf(sub, sizeof(sub), "%s.%s", path, key);
		if (f == NULL)
			return perr(ps, sub, "unknown capability");
		caps = f->prop ? (char *)props : (char *)caps_out;
		if (f->kind == CAP_BOOL) {
			if (!json_object_is_type(val, json_type_boolean))
				return perr(ps, sub, "must be true or false");
			*(bool *)((char *)caps + f->off) = json_object_get_boolean(val);
			continue;
		}
		if (!json_object_is_type(val, json_type_int))
			return perr(ps, sub, "must be a non-negative integer");
		errno = 0;
		int64_t v = json_object_get_int64(val);
		if (v < 0 || errno != 0)
			return perr(ps, sub, "must be a non-negative integer");
		if (f->kind == CAP_U32) {
			if (v > UINT32_MAX)
				return perr(ps, sub, "%" PRId64 " is larger than %u", v, UINT32_MAX);
			*(uint32_t *)((char *)caps + f->off) = (uint32_t)v;
		} else {
			*(uint64_t *)((char *)caps + f->off) = (uint64_t)v;
		}
	}
	return DOCA_SUCCESS;
}

static doca_error_t check_keys(struct parse *ps, const char *path, json_object *obj, const char *const *allowed)
{
	char sub[256];

	json_object_object_foreach(obj, key, val)
	{
		bool ok = false;

		(void)val;
		for (size_t i = 0; allowed[i] != NULL; i++)
			if (strcmp(allowed[i], key) == 0)
				ok = true;
		if (!ok) {
			snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "", key);
			return perr(ps, sub, "unknown key");
		}
	}
	return DOCA_SUCCESS;
}

static doca_error_t get_string(struct parse *ps, const char *path, json_object *obj, const char *key,
			       bool required, const char **out)
{
	json_object *v;
	char sub[256];

	*out = NULL;
	snprintf(sub, sizeof(sub), "%s.%s", path, key);
	if (!json_object_object_get_ex(obj, key, &v) || v == NULL) {
		if (required)
			return perr(ps, sub, "missing");
		return DOCA_SUCCESS;
	}
	if (!json_object_is_type(v, json_type_string))
		return perr(ps, sub, "must be a string");
	*out = json_object_get_string(v);
	return DOCA_SUCCESS;
}

/* An optional integer key in [0, max]; *present says whether it was given. */
static doca_error_t get_uint(struct parse *ps, const char *path, json_object *obj, const char *key, uint64_t max,
			     uint64_t *out, bool *present)
{
	json_object *v;
	char sub[256];
	int64_t n;

	*present = false;
	if (!json_object_object_get_ex(obj, key, &v) || v == NULL)
		return DOCA_SUCCESS;
	snprintf(sub, sizeof(sub), "%s.%s", path, key);
	if (!json_object_is_type(v, json_type_int))
		return perr(ps, sub, "must be an integer 0..%" PRIu64, max);
	errno = 0;
	n = json_object_get_int64(v);
	if (n < 0 || errno != 0 || (uint64_t)n > max)
		return perr(ps, sub, "must be an integer 0..%" PRIu64, max);
	*out = (uint64_t)n;
	*present = true;
	return DOCA_SUCCESS;
}

/* Record a function's VHCA id; two functions of one card may not share one. */
static doca_error_t add_vhca(struct parse *ps, const char *path, uint32_t card, char side, const char *pci,
			     uint16_t vhca_id)
{
	for (size_t i = 0; i < ps->nvhcas; i++)
		if (ps->vhcas[i].card == card && ps->vhcas[i].vhca_id == vhca_id)
			return perr(ps, path, "vhca_id %u is already used by %s on this card", vhca_id,
				    ps->vhcas[i].pci);
	if (ps->nvhcas == ps->capvhcas) {
		size_t ncap = ps->capvhcas ? ps->capvhcas * 2 : 16;
		void *n = realloc(ps->vhcas, ncap * sizeof(*ps->vhcas));

		if (n == NULL) {
			ps->err = DOCA_ERROR_NO_MEMORY;
			snprintf(ps->msg, sizeof(ps->msg), "topology %s: out of memory", ps->src);
			return ps->err;
		}
		ps->vhcas = n;
		ps->capvhcas = ncap;
	}
	ps->vhcas[ps->nvhcas].card = card;
	ps->vhcas[ps->nvhcas].side = side;
	memcpy(ps->vhcas[ps->nvhcas].pci, pci, SD_PCI_ADDR_LEN);
	ps->vhcas[ps->nvhcas].vhca_id = vhca_id;
	ps->nvhcas++;
	return DOCA_SUCCESS;
}

/* kind: 'd' dpu pf, 'h' host function, 'r' representor */
static doca_error_t get_pci(struct parse *ps, const char *path, json_object *obj, char kind,
			    char out[SD_PCI_ADDR_LEN])
{
	const char *s;
	char sub[256];
	doca_error_t ret;

	if (json_object_is_type(obj, json_type_string)) {
		s = json_object_get_string(obj);
		snprintf(sub, sizeof(sub), "%s", path);
	} else {
		ret = get_string(ps, path, obj, "pci", true, &s);
		if (ret != DOCA_SUCCESS)
			return ret;
		snprintf(sub, sizeof(sub), "%s.pci", path);
	}
	if (sd_pci_canonical(s, out) != DOCA_SUCCESS)
		return perr(ps, sub, "\"%s\" is not a PCI address", s);
	for (size_t i = 0; i < ps->nseen; i++)
		if (ps->seen[i][0] == kind && strcmp(ps->seen[i] + 1, out) == 0)
			return perr(ps, sub, "duplicate address %s", out);
	if (ps->nseen == ps->capseen) {
		size_t ncap = ps->capseen ? ps->capseen * 2 : 16;
		void *n = realloc(ps->seen, ncap * sizeof(*ps->seen));

		if (n == NULL) {
			ps->err = DOCA_ERROR_NO_MEMORY;
			snprintf(ps->msg, sizeof(ps->msg), "topology %s: out of memory", ps->src);
			return ps->err;
		}
		ps->seen = n;
		ps->capseen = ncap;
	}
	ps->seen[ps->nseen][0] = kind;
	memcpy(ps->seen[ps->nseen] + 1, out, SD_PCI_ADDR_LEN);
	ps->nseen++;
	return DOCA_SUCCESS;
}

static doca_error_t get_func_type(struct parse *ps, const char *path, json_object *obj,
				  enum doca_pci_func_type *out)
{
	const char *s;
	char sub[256];
	doca_error_t ret;

	*out = DOCA_PCI_FUNC_TYPE_PF;
	ret = get_string(ps, path, obj, "func_type", false, &s);
	if (ret != DOCA_SUCCESS || s == NULL)
		return ret;
	if (strcasecmp(s, "pf") == 0)
		*out = DOCA_PCI_FUNC_TYPE_PF;
	else if (strcasecmp(s, "vf") == 0)
		*out = DOCA_PCI_FUNC_TYPE_VF;
	else if (strcasecmp(s, "sf") == 0)
		*out = DOCA_PCI_FUNC_TYPE_SF;
	else {
		snprintf(sub, sizeof(sub), "%s.func_type", path);
		return perr(ps, sub, "\"%s\" is not one of pf, vf, sf", s);
	}
	return DOCA_SUCCESS;
}

/* pf_idx: index of the Arm-side PF holding the representor; nvf/nsf count
 * its VF/SF representors so far (for the default interface names). */
static doca_error_t parse_rep(struct parse *ps, const char *path, json_object *obj, uint32_t card, uint32_t pf_idx,
			      uint32_t *nvf, uint32_t *nsf, struct sd_topo_rep *rep)
{
	static const char *const keys[] = {"pci", "type", "func_type", "iface", "vhca_id", NULL};
	const char *type, *iface = NULL;
	char sub[256];
	doca_error_t ret;

	memset(rep, 0, sizeof(*rep));
	rep->card = card;
	rep->filter = DOCA_DEVINFO_REP_FILTER_NET;
	rep->func_type = DOCA_PCI_FUNC_TYPE_PF;
	if (!json_object_is_type(obj, json_type_string) && !json_object_is_type(obj, json_type_object))
		return perr(ps, path, "must be a PCI address string or an object");
	if (json_object_is_type(obj, json_type_object)) {
		ret = check_keys(ps, path, obj, keys);
		if (ret != DOCA_SUCCESS)
			return ret;
		ret = get_string(ps, path, obj, "type", false, &type);
		if (ret != DOCA_SUCCESS)
			return ret;
		if (type != NULL) {
			if (strcmp(type, "net") == 0) {
				rep->filter = DOCA_DEVINFO_REP_FILTER_NET;
			} else if (strcmp(type, "emulated") == 0) {
				rep->filter = DOCA_DEVINFO_REP_FILTER_EMULATED;
			} else {
				snprintf(sub, sizeof(sub), "%s.type", path);
				return perr(ps, sub, "\"%s\" is not one of net, emulated", type);
			}
		}
		ret = get_func_type(ps, path, obj, &rep->func_type);
		if (ret != DOCA_SUCCESS)
			return ret;
		ret = get_string(ps, path, obj, "iface", false, &iface);
		if (ret != DOCA_SUCCESS)
			return ret;
		if (iface != NULL && (strlen(iface) == 0 || strlen(iface) >= SD_IFACE_MAX)) {
			snprintf(sub, sizeof(sub), "%s.iface", path);
			return perr(ps, sub, "length must be 1..%d", SD_IFACE_MAX - 1);
		}
		{
			uint64_t v = 0;

			ret = get_uint(ps, path, obj, "vhca_id", UINT16_MAX, &v, &rep->vhca_set);
			if (ret != DOCA_SUCCESS)
				return ret;
			rep->vhca_id = (uint16_t)v;
		}
	}
	if (iface != NULL)
		snprintf(rep->iface, sizeof(rep->iface), "%s", iface);
	else if (rep->func_type == DOCA_PCI_FUNC_TYPE_VF)
		snprintf(rep->iface, sizeof(rep->iface), "pf%uvf%u", pf_idx, (*nvf)++);
	else if (rep->func_type == DOCA_PCI_FUNC_TYPE_SF)
		snprintf(rep->iface, sizeof(rep->iface), "pf%usf%u", pf_idx, (*nsf)++);
	else
		snprintf(rep->iface, sizeof(rep->iface), "pf%uhpf", pf_idx);
	return get_pci(ps, path, obj, 'r', rep->pci);
}

static doca_error_t parse_mac(struct parse *ps, const char *path, const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	int n = 0;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%n", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &n) != 6 ||
	    n != 17 || s[n] != '\0')
		return perr(ps, path, "\"%s\" is not a MAC address", s);
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return DOCA_SUCCESS;
}

/* One function (dpu PF or host function). keep: store it in ps->topo.
 * vhca_base: the default VHCA id of the first function of this side. */
static doca_error_t parse_fn(struct parse *ps, const char *path, json_object *obj, enum sd_side side,
			     uint32_t card, uint32_t idx, uint32_t vhca_base, const struct sd_caps *base,
			     const struct sd_dev_props *base_props, bool keep)
{
	static const char *const dpu_keys[] = {"pci",	   "ibdev",   "iface", "mac",  "ipv4", "func_type",
					       "sf_index", "vhca_id", "caps",  "reps", NULL};
	static const char *const host_keys[] = {"pci",	    "ibdev",   "iface", "mac", "ipv4", "func_type",
						"sf_index", "vhca_id", "caps",	NULL};
	uint64_t num = 0;
	bool given;
	struct sd_topo_fn fn;
	const char *s;
	json_object *v;
	char sub[256];
	doca_error_t ret;

	memset(&fn, 0, sizeof(fn));
	if (!json_object_is_type(obj, json_type_object))
		return perr(ps, path, "must be an object");
	ret = check_keys(ps, path, obj, side == SD_SIDE_DPU ? dpu_keys : host_keys);
	if (ret != DOCA_SUCCESS)
		return ret;
	ret = get_pci(ps, path, obj, side == SD_SIDE_DPU ? 'd' : 'h', fn.pci);
	if (ret != DOCA_SUCCESS)
		return ret;
	fn.card = card;
	ret = get_string(ps, path, obj, "ibdev", false, &s);
	if (ret != DOCA_SUCCESS)
		return ret;
	if (s != NULL && (strlen(s) == 0 || strlen(s) >= SD_IBDEV_MAX)) {
		snprintf(sub, sizeof(sub), "%s.ibdev", path);
		return perr(ps, sub, "length must be 1..%d", SD_IBDEV_MAX - 1);
	}
	if (s != NULL)
		snprintf(fn.ibdev, sizeof(fn.ibdev), "%s", s);
	else
		snprintf(fn.ibdev, sizeof(fn.ibdev), "mlx5_%u", idx);
	ret = get_string(ps, path, obj, "iface", false, &s);
	if (ret != DOCA_SUCCESS)
		return ret;
	if (s != NULL && (strlen(s) == 0 || strlen(s) >= SD_IFACE_MAX)) {
		snprintf(sub, sizeof(sub), "%s.iface", path);
		return perr(ps, sub, "length must be 1..%d", SD_IFACE_MAX - 1);
	}
	if (s != NULL)
		snprintf(fn.iface, sizeof(fn.iface), "%s", s);
	else if (side == SD_SIDE_DPU)
		snprintf(fn.iface, sizeof(fn.iface), "p%u", idx);
	else
		snprintf(fn.iface, sizeof(fn.iface), "ens1f%unp%u", idx, idx);
	ret = get_string(ps, path, obj, "mac", false, &s);
	if (ret != DOCA_SUCCESS)
		return ret;
	if (s != NULL) {
		snprintf(sub, sizeof(sub), "%s.mac", path);
		ret = parse_mac(ps, sub, s, fn.mac);
		if (ret != DOCA_SUCCESS)
			return ret;
	} else {
		unsigned int b, d, f;

		sscanf(fn.pci + 5, "%2x:%2x.%1x", &b, &d, &f);
		fn.mac[0] = 0x02;
		fn.mac[1] = 0x5d;
		fn.mac[2] = 0x0c;
		fn.mac[3] = (uint8_t)card;
		fn.mac[4] = (uint8_t)b;
		fn.mac[5] = (uint8_t)((d << 3) | f);
	}
	ret = get_string(ps, path, obj, "ipv4", false, &s);
	if (ret != DOCA_SUCCESS)
		return ret;
	if (s != NULL) {
		unsigned int b[4];
		int n = 0;

		if (sscanf(s, "%3u.%3u.%3u.%3u%n", &b[0], &b[1], &b[2], &b[3], &n) != 4 || s[n] != '\0' ||
		    b[0] > 255 || b[1] > 255 || b[2] > 255 || b[3] > 255) {
			snprintf(sub, sizeof(sub), "%s.ipv4", path);
			return perr(ps, sub, "\"%s\" is not an IPv4 address", s);
		}
		for (int i = 0; i < 4; i++)
			fn.ipv4[i] = (uint8_t)b[i];
		fn.has_ipv4 = true;
	}
	ret = get_func_type(ps, path, obj, &fn.func_type);
	if (ret != DOCA_SUCCESS)
		return ret;
	ret = get_uint(ps, path, obj, "sf_index", UINT32_MAX, &num, &given);
	if (ret != DOCA_SUCCESS)
		return ret;
	if (given && fn.func_type != DOCA_PCI_FUNC_TYPE_SF) {
		snprintf(sub, sizeof(sub), "%s.sf_index", path);
		return perr(ps, sub, "only a function of func_type \"sf\" has an SF index");
	}
	fn.sf_index = given ? (uint32_t)num : idx;
	ret = get_uint(ps, path, obj, "vhca_id", UINT16_MAX, &num, &given);
	if (ret != DOCA_SUCCESS)
		return ret;
	fn.vhca_id = (uint16_t)(given ? num : vhca_base + idx);
	snprintf(sub, sizeof(sub), "%s%s", path, given ? ".vhca_id" : "");
	ret = add_vhca(ps, sub, card, side == SD_SIDE_DPU ? 'd' : 'h', fn.pci, fn.vhca_id);
	if (ret != DOCA_SUCCESS)
		return ret;
	fn.caps = *base;
	fn.props = *base_props;
	snprintf(sub, sizeof(sub), "%s.caps", path);
	ret = apply_caps(ps, sub, json_object_object_get_ex(obj, "caps", &v) ? v : NULL, &fn.caps, &fn.props);
	if (ret != DOCA_SUCCESS)
		return ret;

	if (side == SD_SIDE_DPU && json_object_object_get_ex(obj, "reps", &v) && v != NULL) {
		uint32_t nvf = 0, nsf = 0;
		size_t n;

		snprintf(sub, sizeof(sub), "%s.reps", path);
		if (!json_object_is_type(v, json_type_array))
			return perr(ps, sub, "must be an array");
		n = json_object_array_length(v);
		if (keep && n > 0) {
			fn.reps = calloc(n, sizeof(*fn.reps));
			if (fn.reps == NULL)
				return DOCA_ERROR_NO_MEMORY;
		}
		for (size_t i = 0; i < n; i++) {
			struct sd_topo_rep tmp;

			snprintf(sub, sizeof(sub), "%s.reps[%zu]", path, i);
			ret = parse_rep(ps, sub, json_object_array_get_idx(v, i), card, idx, &nvf, &nsf, &tmp);
			if (ret != DOCA_SUCCESS) {
				free(fn.reps);
				return ret;
			}
			if (keep)
				fn.reps[fn.nreps++] = tmp;
		}
	}
	if (keep)
		ps->topo->fns[ps->topo->nfns++] = fn;
	return DOCA_SUCCESS;
}

static doca_error_t parse_side(struct parse *ps, const char *path, json_object *card_obj, enum sd_side side,
			       uint32_t card, const struct sd_caps *card_caps_json_base, json_object *top_caps,
			       json_object *card_caps)
{
	static const char *const dpu_keys[] = {"pfs", NULL};
	static const char *const host_keys[] = {"functions", NULL};
	const char *key = side == SD_SIDE_DPU ? "dpu" : "host";
	const char *list = side == SD_SIDE_DPU ? "pfs" : "functions";
	struct sd_caps base;
	struct sd_dev_props base_props;
	json_object *sobj, *arr, *dpu, *pfs;
	char sub[256], sub2[256];
	doca_error_t ret;
	bool keep = side == ps->side;
	uint32_t vhca_base = 0;
	size_t n;

	(void)card_caps_json_base;
	if (!json_object_object_get_ex(card_obj, key, &sobj) || sobj == NULL)
		return DOCA_SUCCESS;
	snprintf(sub, sizeof(sub), "%s.%s", path, key);
	if (!json_object_is_type(sobj, json_type_object))
		return perr(ps, sub, "must be an object");
	ret = check_keys(ps, sub, sobj, side == SD_SIDE_DPU ? dpu_keys : host_keys);
	if (ret != DOCA_SUCCESS)
		return ret;
	sd_caps_defaults(&base, side);
	sd_props_defaults(&base_props);
	ret = apply_caps(ps, "caps", top_caps, &base, &base_props);
	if (ret != DOCA_SUCCESS)
		return ret;
	snprintf(sub2, sizeof(sub2), "%s.caps", path);
	ret = apply_caps(ps, sub2, card_caps, &base, &base_props);
	if (ret != DOCA_SUCCESS)
		return ret;
	snprintf(sub2, sizeof(sub2), "%s.%s", sub, list);
	if (!json_object_object_get_ex(sobj, list, &arr) || arr == NULL)
		return perr(ps, sub2, "missing");
	if (!json_object_is_type(arr, json_type_array))
		return perr(ps, sub2, "must be an array");
	n = json_object_array_length(arr);
	/* host functions are numbered after the card's Arm-side PFs */
	if (side == SD_SIDE_HOST && json_object_object_get_ex(card_obj, "dpu", &dpu) &&
	    json_object_is_type(dpu, json_type_object) && json_object_object_get_ex(dpu, "pfs", &pfs) &&
	    json_object_is_type(pfs, json_type_array))
		vhca_base = (uint32_t)json_object_array_length(pfs);
	if (keep && n > 0) {
		void *p = realloc(ps->topo->fns, (ps->topo->nfns + n) * sizeof(*ps->topo->fns));

		if (p == NULL)
			return DOCA_ERROR_NO_MEMORY;
		ps->topo->fns = p;
	}
	for (size_t i = 0; i < n; i++) {
		char fpath[256];

		snprintf(fpath, sizeof(fpath), "%s[%zu]", sub2, i);
		ret = parse_fn(ps, fpath, json_object_array_get_idx(arr, i), side, card, (uint32_t)i, vhca_base, &base,
			       &base_props, keep);
		if (ret != DOCA_SUCCESS)
			return ret;
	}
	return DOCA_SUCCESS;
}

/* Representors without a vhca_id in the file report the one of the host
 * function they represent, once both sides of the card are known. */
static void rep_vhca_fixup(struct parse *ps, uint32_t card)
{
	uint16_t orphan = 1000;

	for (uint32_t f = 0; f < ps->topo->nfns; f++) {
		struct sd_topo_fn *fn = &ps->topo->fns[f];

		if (fn->card != card)
			continue;
		for (uint32_t r = 0; r < fn->nreps; r++) {
			struct sd_topo_rep *rep = &fn->reps[r];
			bool found = false;

			if (rep->vhca_set)
				continue;
			for (size_t i = 0; i < ps->nvhcas && !found; i++) {
				if (ps->vhcas[i].card == card && ps->vhcas[i].side == 'h' &&
				    strcmp(ps->vhcas[i].pci, rep->pci) == 0) {
					rep->vhca_id = ps->vhcas[i].vhca_id;
					found = true;
				}
			}
			if (!found)
				rep->vhca_id = orphan++;
		}
	}
}

static void topo_free(struct sd_topo *topo)
{
	if (topo == NULL)
		return;
	for (uint32_t i = 0; i < topo->nfns; i++)
		free(topo->fns[i].reps);
	free(topo->fns);
	free(topo);
}

static doca_error_t parse_topology(struct parse *ps, const char *text)
{
	static const char *const top_keys[] = {"caps", "cards", NULL};
	static const char *const card_keys[] = {"caps", "dpu", "host", NULL};
	json_tokener *tok;
	json_object *root, *cards, *top_caps = NULL;
	enum json_tokener_error jerr;
	doca_error_t ret;
	size_t n;

	tok = json_tokener_new();
	if (tok == NULL)
		return DOCA_ERROR_NO_MEMORY;
	root = json_tokener_parse_ex(tok, text, (int)strlen(text));
	jerr = json_tokener_get_error(tok);
	if (root == NULL || jerr != json_tokener_success) {
		/* json-c reports "continue" for truncated input */
		ret = perr(ps, "", "malformed JSON near offset %zu: %s", json_tokener_get_parse_end(tok),
			   jerr == json_tokener_continue ? "unexpected end of input" : json_tokener_error_desc(jerr));
		json_object_put(root);
		json_tokener_free(tok);
		return ret;
	}
	{
		size_t end = json_tokener_get_parse_end(tok), len = strlen(text);

		while (end < len && strchr(" \t\r\n", text[end]) != NULL)
			end++;
		if (end < len) {
			ret = perr(ps, "", "unexpected text after the JSON value at offset %zu", end);
			json_object_put(root);
			json_tokener_free(tok);
			return ret;
		}
	}
	json_tokener_free(tok);

	ps->topo = calloc(1, sizeof(*ps->topo));
	if (ps->topo == NULL) {
		json_object_put(root);
		return DOCA_ERROR_NO_MEMORY;
	}
	if (!json_object_is_type(root, json_type_object)) {
		ret = perr(ps, "", "top level must be an object");
		goto out;
	}
	ret = check_keys(ps, "", root, top_keys);
	if (ret != DOCA_SUCCESS)
		goto out;
	if (json_object_object_get_ex(root, "caps", &top_caps)) {
		struct sd_caps scratch;
		struct sd_dev_props scratch_props;

		sd_caps_defaults(&scratch, ps->side);
		sd_props_defaults(&scratch_props);
		ret = apply_caps(ps, "caps", top_caps, &scratch, &scratch_props);
		if (ret != DOCA_SUCCESS)
			goto out;
	}
	if (!json_object_object_get_ex(root, "cards", &cards) || cards == NULL) {
		ret = perr(ps, "cards", "missing");
		goto out;
	}
	if (!json_object_is_type(cards, json_type_array)) {
		ret = perr(ps, "cards", "must be an array");
		goto out;
	}
	n = json_object_array_length(cards);
	if (n == 0) {
		ret = perr(ps, "cards", "must hold at least one card");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *card = json_object_array_get_idx(cards, i), *card_caps = NULL;
		char path[64];

		snprintf(path, sizeof(path), "cards[%zu]", i);
		if (!json_object_is_type(card, json_type_object)) {
			ret = perr(ps, path, "must be an object");
			goto out;
		}
		ret = check_keys(ps, path, card, card_keys);
		if (ret != DOCA_SUCCESS)
			goto out;
		json_object_object_get_ex(card, "caps", &card_caps);
		ret = parse_side(ps, path, card, SD_SIDE_DPU, (uint32_t)i, NULL, top_caps, card_caps);
		if (ret != DOCA_SUCCESS)
			goto out;
		ret = parse_side(ps, path, card, SD_SIDE_HOST, (uint32_t)i, NULL, top_caps, card_caps);
		if (ret != DOCA_SUCCESS)
			goto out;
		rep_vhca_fixup(ps, (uint32_t)i);
	}
	ps->topo->ncards = (uint32_t)n;
out:
	json_object_put(root);
	/* the VHCA records only serve the checks of this parse */
	free(ps->vhcas);
	ps->vhcas = NULL;
	ps->nvhcas = ps->capvhcas = 0;
	if (ret != DOCA_SUCCESS) {
		topo_free(ps->topo);
		ps->topo = NULL;
	}
	return ret;
}

static doca_error_t read_file(struct parse *ps, const char *path, char **text)
{
	FILE *f;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	f = fopen(path, "re");
	if (f == NULL) {
		int e = errno;

		snprintf(ps->msg, sizeof(ps->msg), "topology %s: cannot open: %s", path, strerror(e));
		ps->err = e == ENOENT ? DOCA_ERROR_NOT_FOUND : DOCA_ERROR_INVALID_VALUE;
		return ps->err;
	}
	for (;;) {
		if (cap - len < 4096) {
			char *nb;

			if (cap > (16u << 20)) {
				free(buf);
				fclose(f);
				return perr(ps, "", "file too large");
			}
			nb = realloc(buf, cap + 65536);
			if (nb == NULL) {
				free(buf);
				fclose(f);
				return DOCA_ERROR_NO_MEMORY;
			}
			buf = nb;
			cap += 65536;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return perr(ps, "", "read error");
	}
	fclose(f);
	buf[len] = '\0';
	if (strlen(buf) != len) {
		free(buf);
		return perr(ps, "", "file contains NUL bytes");
	}
	*text = buf;
	return DOCA_SUCCESS;
}

/* ---- the process-wide topology ---- */

static pthread_mutex_t topo_lock = PTHREAD_MUTEX_INITIALIZER;
static bool topo_loaded;
static doca_error_t topo_err;
static char topo_msg[512];
static struct sd_topo *topo_cur;

static void topo_load_locked(void)
{
	struct parse ps;
	const char *path = getenv("SOFTDOCA_TOPOLOGY");
	char *text = NULL;
	doca_error_t ret;

	memset(&ps, 0, sizeof(ps));
	ps.side = sd_side();
	if (path != NULL && *path != '\0') {
		ps.src = path;
		ret = read_file(&ps, path, &text);
		if (ret == DOCA_SUCCESS)
			ret = parse_topology(&ps, text);
		free(text);
	} else {
		ps.src = "<built-in>";
		ret = parse_topology(&ps, default_topology);
	}
	free(ps.seen);
	free(ps.vhcas);
	if (ret != DOCA_SUCCESS && ps.msg[0] == '\0')
		snprintf(ps.msg, sizeof(ps.msg), "topology %s: %s", ps.src, doca_error_get_descr(ret));
	topo_err = ret;
	snprintf(topo_msg, sizeof(topo_msg), "%s", ps.msg);
	topo_cur = ps.topo;
	topo_loaded = true;
}

doca_error_t sd_topo_get(const struct sd_topo **topo)
{
	doca_error_t ret;

	pthread_mutex_lock(&topo_lock);
	if (!topo_loaded)
		topo_load_locked();
	ret = topo_err;
	*topo = topo_cur;
	pthread_mutex_unlock(&topo_lock);
	if (ret != DOCA_SUCCESS)
		SD_LOG_ERR("%s", topo_msg);
	return ret;
}
