/*
 * topology_parse.c - a topology from its JSON text (the format, defaults and
 * every rule are in docs/topology.md), validated field by field.
 *
 * Both sides of every card are checked, so a file is refused the same way
 * on either side; only the calling process's side is kept in the result.
 * Errors are sentences naming the source, the JSON path and the rule broken
 * ("topology t.json: cards[0].dpu.pfs[1].pci: ..."), for topology.c to log.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dev_priv.h"
#include "sd_fabric.h"

/* JSON paths in messages are bounded buffers; a cut-off path is harmless. */
#pragma GCC diagnostic ignored "-Wformat-truncation"


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
	char serial[SD_SERIAL_MAX + 1];     /* the card being parsed */
	char (*vuids)[SD_VUID_MAX];         /* every representor VUID so far */
	size_t nvuids, capvuids;
	char (*serials)[SD_SERIAL_MAX + 1]; /* one per card parsed so far */
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

/*
 * Every numeric capability has the range the libraries honour end to end: a
 * value that loads is one doca_caps may show and a program may use. Where a
 * 0 would make the libraries quietly substitute another limit (or none), 0
 * is refused; where 0 is how DOCA says "not supported", it is allowed.
 */
static const struct cap_field {
	const char *name;
	size_t off;
	enum cap_kind kind;
	bool prop;              /* a field of struct sd_dev_props, not sd_caps */
	uint64_t min, max;
	const char *why;        /* where the bound comes from, for the error message */
} cap_fields[] = {
#define B(n) {#n, offsetof(struct sd_caps, n), CAP_BOOL, false, 0, 1, NULL}
#define F(n, k, lo, hi, w) {#n, offsetof(struct sd_caps, n), k, false, lo, hi, w}
#define PB(n) {#n, offsetof(struct sd_dev_props, n), CAP_BOOL, true, 0, 1, NULL}
#define P(n, k, lo, hi, w) {#n, offsetof(struct sd_dev_props, n), k, true, lo, hi, w}
	B(dma_memcpy_supported),
	F(dma_max_buf_list_len, CAP_U32, 1, UINT32_MAX, "a task needs at least one buffer"),
	F(dma_max_buf_size, CAP_U64, 1, UINT64_MAX, "a copy moves at least one byte"),
	F(dma_max_tasks, CAP_U32, 1, UINT32_MAX, "a DMA context needs at least one task"),
	B(comch_server_supported),
	B(comch_client_supported),
	F(comch_max_msg_size, CAP_U32, 1, SD_FRAME_MAX_MSG, "the largest message a Comch frame carries"),
	F(comch_max_name_len, CAP_U32, 2, SD_FABRIC_NAME_MAX,
	  "a server name of 1 character at least, with its NUL; the fabric carries 128 bytes"),
	F(comch_max_recv_queue_size, CAP_U32, 1, UINT32_MAX, "a receive queue holds at least one message"),
	F(comch_max_clients, CAP_U32, 1, UINT32_MAX, "a server accepts at least one client"),
	F(producer_max_buf_size, CAP_U32, 0, UINT32_MAX, "0: producers not supported"),
	F(consumer_max_buf_size, CAP_U32, 0, UINT32_MAX, "0: consumers not supported"),
	F(producer_max_tasks, CAP_U32, 1, UINT32_MAX, "a producer needs at least one task"),
	F(consumer_max_tasks, CAP_U32, 1, UINT32_MAX, "a consumer needs at least one task"),
	F(max_consumers_per_connection, CAP_U32, 1, UINT32_MAX, "a connection carries at least one consumer"),
	F(mmap_max_size, CAP_U64, 1, UINT64_MAX, "an mmap holds at least one byte"),
	B(mmap_export_pci_supported),
	B(mmap_create_from_export_pci_supported),
	B(mmap_cache_invalidate_supported),
	P(active_rate, CAP_U64, 0, UINT64_MAX, "bits/s; 0: link down"),
	PB(accelerate_resource_reclaim_supported),
	PB(notification_moderation_supported),
#undef B
#undef F
#undef PB
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
		uint64_t v;

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
			return perr(ps, sub, "must be a non-negative integer from %" PRIu64 " to %" PRIu64 " (%s)",
				    f->min, f->max, f->why);
		/* json-c keeps integers above INT64_MAX as unsigned */
		errno = 0;
		if (json_object_get_int64(val) < 0)
			return perr(ps, sub, "must be a non-negative integer from %" PRIu64 " to %" PRIu64 " (%s)",
				    f->min, f->max, f->why);
		v = json_object_get_uint64(val);
		if (errno != 0 || v < f->min || v > f->max)
			return perr(ps, sub, "%" PRIu64 " is out of range: it must be an integer from %" PRIu64
				    " to %" PRIu64 " (%s)", v, f->min, f->max, f->why);
		if (f->kind == CAP_U32)
			*(uint32_t *)((char *)caps + f->off) = (uint32_t)v;
		else
			*(uint64_t *)((char *)caps + f->off) = v;
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

/* min..max characters, uppercase letters and digits (lower case too if lower). */
static bool ident_ok(const char *s, size_t min, size_t max, bool lower)
{
	size_t n = strlen(s);

	if (n < min || n > max)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (lower && c >= 'a' && c <= 'z')))
			return false;
	}
	return true;
}

/* VUIDs name one function of the whole machine (programs open a representor
 * by its VUID), so no two representors may share one. */
static doca_error_t add_vuid(struct parse *ps, const char *path, const char *vuid)
{
	for (size_t i = 0; i < ps->nvuids; i++)
		if (strcmp(ps->vuids[i], vuid) == 0)
			return perr(ps, path, "duplicate VUID %s (a default VUID is the card serial, \"MLNX\" and the"
				    " function's S0D<device>F<function>: give one of them a \"vuid\")", vuid);
	if (ps->nvuids == ps->capvuids) {
		size_t ncap = ps->capvuids ? ps->capvuids * 2 : 16;
		void *n = realloc(ps->vuids, ncap * sizeof(*ps->vuids));

		if (n == NULL) {
			ps->err = DOCA_ERROR_NO_MEMORY;
			snprintf(ps->msg, sizeof(ps->msg), "topology %s: out of memory", ps->src);
			return ps->err;
		}
		ps->vuids = n;
		ps->capvuids = ncap;
	}
	snprintf(ps->vuids[ps->nvuids++], SD_VUID_MAX, "%s", vuid);
	return DOCA_SUCCESS;
}

/* The card's board serial: given ("serial"), else MT2334SD + the card index
 * in 4 hex digits. Unique per machine: representor VUIDs derive from it. */
static doca_error_t card_serial(struct parse *ps, const char *path, json_object *card, uint32_t idx)
{
	const char *s;
	char sub[256];
	doca_error_t ret;
	void *n;

	ret = get_string(ps, path, card, "serial", false, &s);
	if (ret != DOCA_SUCCESS)
		return ret;
	snprintf(sub, sizeof(sub), "%s.serial", path);
	if (s != NULL && !ident_ok(s, SD_SERIAL_MIN, SD_SERIAL_MAX, false))
		return perr(ps, sub, "\"%.64s\" is not a board serial number: %d..%d upper-case letters and digits"
			    " (e.g. MT2334SD0000)", s, SD_SERIAL_MIN, SD_SERIAL_MAX);
	if (s != NULL)
		snprintf(ps->serial, sizeof(ps->serial), "%s", s);
	else
		snprintf(ps->serial, sizeof(ps->serial), "MT2334SD%04X", idx & 0xffffu);
	for (uint32_t i = 0; i < idx; i++)
		if (strcmp(ps->serials[i], ps->serial) == 0)
			return perr(ps, s != NULL ? sub : path, "serial %s is already the serial of cards[%u]",
				    ps->serial, i);
	n = realloc(ps->serials, (idx + 1) * sizeof(*ps->serials));
	if (n == NULL)
		return DOCA_ERROR_NO_MEMORY;
	ps->serials = n;
	memcpy(ps->serials[idx], ps->serial, sizeof(ps->serial));
	return DOCA_SUCCESS;
}

/* pf_idx: index of the Arm-side PF holding the representor; nvf/nsf count
 * its VF/SF representors so far (for the default interface names). */
static doca_error_t parse_rep(struct parse *ps, const char *path, json_object *obj, uint32_t card, uint32_t pf_idx,
			      uint32_t *nvf, uint32_t *nsf, struct sd_topo_rep *rep)
{
	static const char *const keys[] = {"pci", "type", "func_type", "iface", "vhca_id", "vuid", NULL};
	const char *type, *iface = NULL, *vuid = NULL;
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
		ret = get_string(ps, path, obj, "vuid", false, &vuid);
		if (ret != DOCA_SUCCESS)
			return ret;
		if (vuid != NULL) {
			snprintf(sub, sizeof(sub), "%s.vuid", path);
			if (!ident_ok(vuid, 1, SD_VUID_MAX - 1, true))
				return perr(ps, sub, "\"%.64s\" is not a VUID: 1..%d letters and digits",
					    vuid, SD_VUID_MAX - 1);
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
	ret = get_pci(ps, path, obj, 'r', rep->pci);
	if (ret != DOCA_SUCCESS)
		return ret;
	if (vuid == NULL) {
		unsigned int b, d, f;

		/* the card's serial, then the function's place: "MT2314XZ00YAMLNXS0D0F1" */
		sscanf(rep->pci + 5, "%2x:%2x.%1x", &b, &d, &f);
		snprintf(rep->vuid, sizeof(rep->vuid), "%sMLNXS0D%uF%u", ps->serial, d, f);
	} else {
		snprintf(rep->vuid, sizeof(rep->vuid), "%s", vuid);
	}
	snprintf(sub, sizeof(sub), "%s%s", path, vuid != NULL ? ".vuid" : "");
	return add_vuid(ps, sub, rep->vuid);
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

void sd_topo_free(struct sd_topo *topo)
{
	if (topo == NULL)
		return;
	for (uint32_t i = 0; i < topo->nfns; i++)
		free(topo->fns[i].reps);
	free(topo->fns);
	free(topo->card_link);
	free(topo);
}

/* An optional string member of obj of 1..cap-1 characters; path names it
 * in messages. */
static doca_error_t opt_string(struct parse *ps, json_object *obj, const char *key, const char *path, size_t cap,
			       const char **out)
{
	json_object *v;

	*out = NULL;
	if (!json_object_object_get_ex(obj, key, &v) || v == NULL)
		return DOCA_SUCCESS;
	if (!json_object_is_type(v, json_type_string))
		return perr(ps, path, "must be a string");
	*out = json_object_get_string(v);
	if ((*out)[0] == '\0' || strlen(*out) >= cap)
		return perr(ps, path, "must be 1 to %zu characters", cap - 1);
	return DOCA_SUCCESS;
}

/* A link's URL: only its shape (the address is resolved when the link
 * starts, which also keeps name lookups out of a parse). */
static doca_error_t link_url(struct parse *ps, json_object *obj, const char *path, char *out)
{
	const char *url;
	doca_error_t ret;

	ret = opt_string(ps, obj, "link", path, SD_TOPO_LINK_MAX, &url);
	if (ret != DOCA_SUCCESS || url == NULL)
		return ret;
	if (strncmp(url, "ucx://", 6) != 0)
		return perr(ps, path, "must be ucx://ADDR:PORT");
	snprintf(out, SD_TOPO_LINK_MAX, "%s", url);
	return DOCA_SUCCESS;
}

/*
 * The link across machines, as SOFTDOCA_LINK / SOFTDOCA_LINK_SECRET_FILE
 * would give it (the environment wins: link_select.c); the cards' own
 * links are read with the cards (link_url). A relative secret path names
 * a file beside the topology file, wherever the program runs.
 */
static doca_error_t parse_link(struct parse *ps, json_object *root)
{
	const char *secret, *slash;
	doca_error_t ret;
	int n;

	ret = link_url(ps, root, "link", ps->topo->link);
	if (ret == DOCA_SUCCESS)
		ret = opt_string(ps, root, "link_secret_file", "link_secret_file", sizeof(ps->topo->link_secret_file),
				 &secret);
	if (ret != DOCA_SUCCESS || secret == NULL)
		return ret;
	slash = strrchr(ps->src, '/');
	if (secret[0] == '/' || slash == NULL)
		n = snprintf(ps->topo->link_secret_file, sizeof(ps->topo->link_secret_file), "%s", secret);
	else
		n = snprintf(ps->topo->link_secret_file, sizeof(ps->topo->link_secret_file), "%.*s/%s",
			     (int)(slash - ps->src), ps->src, secret);
	if (n < 0 || (size_t)n >= sizeof(ps->topo->link_secret_file))
		return perr(ps, "link_secret_file", "the path is too long");
	return DOCA_SUCCESS;
}

static doca_error_t parse_topology(struct parse *ps, const char *text)
{
	static const char *const top_keys[] = {"caps", "cards", "link", "link_secret_file", NULL};
	static const char *const card_keys[] = {"caps", "serial", "dpu", "host", "link", NULL};
	json_tokener *tok;
	json_object *root, *cards, *top_caps = NULL;
	enum json_tokener_error jerr;
	doca_error_t ret;
	bool any_link;
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
	if (ret == DOCA_SUCCESS)
		ret = parse_link(ps, root);
	any_link = ps->topo->link[0] != '\0';
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
	ps->topo->card_link = calloc(n, sizeof(*ps->topo->card_link));
	if (ps->topo->card_link == NULL) {
		ret = DOCA_ERROR_NO_MEMORY;
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
		ret = card_serial(ps, path, card, (uint32_t)i);
		if (ret != DOCA_SUCCESS)
			goto out;
		snprintf(path, sizeof(path), "cards[%zu].link", i);
		ret = link_url(ps, card, path, ps->topo->card_link[i]);
		if (ret != DOCA_SUCCESS)
			goto out;
		if (ps->topo->card_link[i][0] != '\0')
			any_link = true;
		snprintf(path, sizeof(path), "cards[%zu]", i);
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
	if (!any_link && ps->topo->link_secret_file[0] != '\0')
		ret = perr(ps, "link_secret_file", "given without \"link\" (top-level or a card's)");
out:
	json_object_put(root);
	/* the VHCA records only serve the checks of this parse */
	free(ps->vhcas);
	ps->vhcas = NULL;
	ps->nvhcas = ps->capvhcas = 0;
	free(ps->vuids);
	ps->vuids = NULL;
	ps->nvuids = ps->capvuids = 0;
	free(ps->serials);
	ps->serials = NULL;
	if (ret != DOCA_SUCCESS) {
		sd_topo_free(ps->topo);
		ps->topo = NULL;
	}
	return ret;
}

doca_error_t sd_topo_parse(const char *text, const char *src, enum sd_side side, struct sd_topo **out, char *msg,
			   size_t cap)
{
	struct parse ps;
	doca_error_t ret;

	memset(&ps, 0, sizeof(ps));
	ps.src = src;
	ps.side = side;
	ret = parse_topology(&ps, text);
	free(ps.seen);
	free(ps.vhcas);
	if (ret != DOCA_SUCCESS && ps.msg[0] == '\0')
		snprintf(ps.msg, sizeof(ps.msg), "topology %s: %s", src, doca_error_get_descr(ret));
	snprintf(msg, cap, "%s", ret == DOCA_SUCCESS ? "" : ps.msg);
	*out = ret == DOCA_SUCCESS ? ps.topo : NULL;
	return ret;
}
