/*
 * remote_bench: GB/s of sd_remote_read/sd_remote_write against memcpy in the
 * same run, for both mechanisms. Not a test; run it on an unsanitized,
 * optimised build:  remote_bench [size_MiB ...]   (default: 1 64)
 */
#include <limits.h>
#include <time.h>

#include <doca_build_config.h>
#include <doca_error.h>
#include <doca_types.h>

#include "remote_proto.h"
#include "sd_remote.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Repeat expr for ~0.1 s; GB/s (1e9 bytes). */
#define RATE(n, expr)                                                          \
	({                                                                     \
		double t0 = now(), t;                                          \
		unsigned long it = 0;                                          \
		do {                                                           \
			expr;                                                  \
			it++;                                                  \
		} while ((t = now() - t0) < 0.1);                              \
		(double)(n) * it / t / 1e9;                                    \
	})

#define ROUNDS 7

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v)
{
	qsort(v, ROUNDS, sizeof(*v), cmp_d);
	return v[ROUNDS / 2];
}

int main(int argc, char **argv)
{
	enum sd_side me =
#ifdef DOCA_ARCH_DPU
		SD_SIDE_DPU;
#else
		SD_SIDE_HOST;
#endif
	size_t max = 64u << 20;
	size_t sizes[8] = {1u << 20, 64u << 20};
	int nsizes = 2;
	char exe[PATH_MAX];
	ssize_t n;
	struct rp_peer p;
	struct rp_cmd c = {0};
	struct rp_reply r;
	uint8_t *a, *b;

	if (argc > 1) {
		nsizes = 0;
		max = 0;
		for (int i = 1; i < argc && nsizes < 8; i++) {
			sizes[nsizes] = (size_t)strtoul(argv[i], NULL, 10) << 20;
			if (sizes[nsizes] > max)
				max = sizes[nsizes];
			nsizes++;
		}
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 20);
	if (n <= 0)
		return 1;
	exe[n] = '\0';
	strcpy(strrchr(exe, '/'), "/remote_peer");
	a = malloc(max);
	b = malloc(max);
	if (a == NULL || b == NULL || rp_start(&p, exe) != 0)
		return 1;
	memset(a, 1, max);
	memset(b, 2, max);
	printf("%-10s %10s %10s %10s %8s %8s\n", "size", "memcpy", "read", "write", "read/mc", "write/mc");
	printf("(medians of %d interleaved rounds; ratios are per-round medians)\n", ROUNDS);
	for (int hp = 0; hp < 2; hp++) {
		c.op = RP_EXPORT;
		c.slot = (uint32_t)hp;
		c.a = max;
		c.access = DOCA_ACCESS_FLAG_PCI_READ_WRITE;
		c.side = me == SD_SIDE_HOST ? SD_SIDE_DPU : SD_SIDE_HOST;
		c.flags = hp ? RP_F_HUGE : 0;
		if (rp_call(&p, &c, &r) != 0 || r.status != DOCA_SUCCESS)
			return 1;
		for (int fb = 0; fb < 2; fb++) {
			struct sd_remote *rem;

			if (fb)
				setenv("SOFTDOCA_REMOTE_FORCE_FALLBACK", "1", 1);
			else
				unsetenv("SOFTDOCA_REMOTE_FORCE_FALLBACK");
			if (sd_remote_import(r.desc, r.desc_len, 0, me, &rem) != DOCA_SUCCESS)
				return 1;
			printf("mechanism: %s, exporter memory in %s pages\n", sd_remote_mechanism(rem),
			       hp ? "2 MiB (THP)" : "4 KiB");
			for (int i = 0; i < nsizes; i++) {
				size_t s = sizes[i];
				double mc[ROUNDS], rd[ROUNDS], wr[ROUNDS], rq[ROUNDS], wq[ROUNDS];

				/* Interleaved rounds, medians: the machine is shared and noisy. */
				for (int k = 0; k < ROUNDS; k++) {
					mc[k] = RATE(s, memcpy(b, a, s); __asm__ volatile("" ::: "memory"));
					rd[k] = RATE(s, sd_remote_read(rem, r.base, b, s));
					wr[k] = RATE(s, sd_remote_write(rem, r.base, a, s));
					rq[k] = rd[k] / mc[k];
					wq[k] = wr[k] / mc[k];
				}
				printf("%6zu MiB %7.2f GB/s %7.2f GB/s %7.2f GB/s %8.2f %8.2f\n", s >> 20, median(mc),
				       median(rd), median(wr), median(rq), median(wq));
			}
			sd_remote_release(rem);
		}
	}
	rp_stop(&p);
	free(a);
	free(b);
	return 0;
}
