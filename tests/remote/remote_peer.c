/* The exporter side of the remote-memory tests (see remote_proto.h). Built
 * in each flavor; a test of one flavor runs the other flavor's copy when a
 * peer build is configured. */
#include <malloc.h>
#include <sys/mman.h>

#include <doca_build_config.h>
#include <doca_error.h>

#include "remote_proto.h"
#include "sd_remote.h"

struct slot {
	uint8_t *map;
	size_t map_len;
	uint8_t *heap;
	uint8_t *base;
	size_t len;
	uint32_t access, card;
	int32_t side;
	void *desc;
	void *desc2;
};

static struct slot slots[RP_SLOTS];

static void slot_clear(struct slot *s)
{
	sd_remote_export_free(s->desc);
	sd_remote_export_free(s->desc2);
	if (s->map != NULL)
		munmap(s->map, s->map_len);
	free(s->heap);
	memset(s, 0, sizeof(*s));
}

static void do_export(const struct rp_cmd *c, struct rp_reply *r)
{
	struct slot *s = &slots[c->slot];
	size_t desc_len = 0;
	doca_error_t err;
	const size_t huge = 2u << 20;
	uint8_t *start;

	slot_clear(s);

	if (c->flags & RP_F_HEAP) {
		s->heap = malloc((size_t)(c->a + c->b));
		if (s->heap == NULL) {
			r->status = DOCA_ERROR_NO_MEMORY;
			return;
		}
		start = s->heap;
		goto fill;
	}
	s->map_len = (size_t)(c->a + c->b + 4095) & ~(size_t)4095;
	if (c->flags & RP_F_HUGE)
		s->map_len += huge;
	s->map = mmap(NULL, s->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->map == MAP_FAILED) {
		s->map = NULL;
		r->status = DOCA_ERROR_NO_MEMORY;
		return;
	}
	start = s->map;
	if (c->flags & RP_F_HUGE) {
		start = (uint8_t *)(((uintptr_t)s->map + huge - 1) & ~(uintptr_t)(huge - 1));
		madvise(start, s->map_len - huge, MADV_HUGEPAGE);
	}
fill:
	s->base = start + c->b;
	s->len = (size_t)c->a;
	s->access = c->access;
	s->card = c->card;
	s->side = c->side;
	rp_pattern(s->base, 0, s->len, c->seed);
	if ((c->flags & RP_F_LOCKED) && mlock(s->base, s->len) != 0) {
		r->status = DOCA_ERROR_OPERATING_SYSTEM;
		return;
	}
	err = sd_remote_export(s->base, s->len, c->access, c->card,
			       (enum sd_side)(c->side < 0 ? (int32_t)rp_native_side() : c->side), "0000:3b:00.0", &s->desc,
			       &desc_len);
	r->status = err;
	if (err != DOCA_SUCCESS || desc_len > sizeof(r->desc))
		return;
	memcpy(r->desc, s->desc, desc_len);
	r->desc_len = (uint32_t)desc_len;
	r->base = (uint64_t)(uintptr_t)s->base;
}

static void do_reexport(struct slot *s, struct rp_reply *r)
{
	size_t desc_len = 0;

	if (s->base == NULL || s->desc2 != NULL) {
		r->status = DOCA_ERROR_BAD_STATE;
		return;
	}
	r->status = sd_remote_export(s->base, s->len, s->access, s->card,
				     (enum sd_side)(s->side < 0 ? (int32_t)rp_native_side() : s->side), "0000:3b:00.0",
				     &s->desc2, &desc_len);
	if (r->status != DOCA_SUCCESS || desc_len > sizeof(r->desc))
		return;
	memcpy(r->desc, s->desc2, desc_len);
	r->desc_len = (uint32_t)desc_len;
	r->base = (uint64_t)(uintptr_t)s->base;
}

/* Are the pages of [p, p+n) mapped from a softdoca export memfd? */
static uint64_t pages_moved(const uint8_t *p, size_t n)
{
	uintptr_t a = (uintptr_t)p, e = (uintptr_t)p + n, cursor = a;
	char line[512];
	bool ok = n > 0;
	FILE *f = fopen("/proc/self/maps", "re");

	if (f == NULL)
		return 0;
	while (ok && fgets(line, sizeof(line), f) != NULL) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx", &lo, &hi) != 2 || hi <= a)
			continue;
		if (lo >= e)
			break;
		ok = lo <= cursor && strstr(line, " rw-s ") != NULL && strstr(line, "/memfd:softdoca-export") != NULL;
		cursor = hi;
	}
	fclose(f);
	return ok && cursor >= e;
}

int main(int argc, char **argv)
{
	int fd = argc > 1 ? atoi(argv[1]) : 3;
	struct rp_cmd c;
	struct rp_reply r;

	mallopt(M_MMAP_THRESHOLD, 64 << 20); /* RP_F_HEAP: buffers from the brk heap */

	for (;;) {
		ssize_t n = recv(fd, &c, sizeof(c), 0);

		if (n != (ssize_t)sizeof(c))
			break;
		memset(&r, 0, sizeof(r));
		r.side = (uint32_t)rp_native_side();
		if (c.slot >= RP_SLOTS) {
			r.status = DOCA_ERROR_INVALID_VALUE;
		} else {
			struct slot *s = &slots[c.slot];

			switch (c.op) {
			case RP_HELLO:
				break;
			case RP_EXPORT:
				do_export(&c, &r);
				break;
			case RP_SUM:
				if (s->base == NULL || c.a > s->len || c.b > s->len - c.a)
					r.status = DOCA_ERROR_INVALID_VALUE;
				else
					r.value = rp_fnv(s->base + c.a, (size_t)c.b);
				break;
			case RP_FILL:
				if (s->base == NULL)
					r.status = DOCA_ERROR_INVALID_VALUE;
				else
					rp_pattern(s->base, 0, s->len, c.seed);
				break;
			case RP_UNEXPORT:
				sd_remote_export_free(s->desc);
				s->desc = NULL;
				break;
			case RP_UNMAP:
				if (s->map != NULL)
					munmap(s->map, s->map_len);
				s->map = NULL;
				s->base = NULL;
				break;
			case RP_MOVED:
				if (s->base == NULL || c.a > s->len || c.b > s->len - c.a)
					r.status = DOCA_ERROR_INVALID_VALUE;
				else
					r.value = pages_moved(s->base + c.a, (size_t)c.b);
				r.base = (uint64_t)(uintptr_t)s->base;
				break;
			case RP_REEXPORT:
				do_reexport(s, &r);
				break;
			case RP_UNEXPORT2:
				sd_remote_export_free(s->desc2);
				s->desc2 = NULL;
				break;
			case RP_CRASH:
				_exit(3);
			default:
				r.status = DOCA_ERROR_INVALID_VALUE;
			}
		}
		if (send(fd, &r, sizeof(r), MSG_NOSIGNAL) != (ssize_t)sizeof(r))
			break;
	}
	for (int i = 0; i < RP_SLOTS; i++)
		slot_clear(&slots[i]);
	return 0;
}
