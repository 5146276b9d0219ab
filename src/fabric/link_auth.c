/* Mutual challenge-response of the UCX link (protocol in sd_link_ucx.h).
 * Each side proves it knows the secret by a MAC over both fresh nonces, so
 * a recorded exchange cannot be replayed and a proof of one role is never a
 * valid proof of the other. Everything here is pure: the transport feeds it
 * bytes and sends what it fills. Messages are checked as hostile input:
 * exact size, magic, version, and the steps in order. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "sd_link_ucx.h"

enum { STEP_NONE, STEP_WAIT_CHALLENGE, STEP_WAIT_PROOF, STEP_DONE, STEP_FAILED };

void sd_auth_mac(const uint8_t *secret, size_t secret_len, char role, const uint8_t *own, const uint8_t *peer,
		 uint32_t card, uint8_t out[SD_AUTH_MAC])
{
	uint8_t msg[1 + 2 * SD_AUTH_NONCE + 4];
	unsigned int outlen = SD_AUTH_MAC;

	msg[0] = (uint8_t)role;
	memcpy(msg + 1, own, SD_AUTH_NONCE);
	memcpy(msg + 1 + SD_AUTH_NONCE, peer, SD_AUTH_NONCE);
	msg[1 + 2 * SD_AUTH_NONCE + 0] = (uint8_t)card;
	msg[1 + 2 * SD_AUTH_NONCE + 1] = (uint8_t)(card >> 8);
	msg[1 + 2 * SD_AUTH_NONCE + 2] = (uint8_t)(card >> 16);
	msg[1 + 2 * SD_AUTH_NONCE + 3] = (uint8_t)(card >> 24);
	if (HMAC(EVP_sha256(), secret, (int)secret_len, msg, sizeof(msg), out, &outlen) == NULL ||
	    outlen != SD_AUTH_MAC)
		memset(out, 0, SD_AUTH_MAC); /* never matches a real proof: see mac_ok */
}

/* A zero MAC means HMAC itself failed: never accept it. */
static bool mac_ok(const uint8_t *expect, const uint8_t *got)
{
	static const uint8_t zero[SD_AUTH_MAC];

	if (CRYPTO_memcmp(expect, zero, SD_AUTH_MAC) == 0)
		return false;
	return CRYPTO_memcmp(expect, got, SD_AUTH_MAC) == 0;
}

static doca_error_t fill_nonce(uint8_t *nonce)
{
	size_t got = 0;
	ssize_t n;

	while (got < SD_AUTH_NONCE) {
		n = getrandom(nonce + got, SD_AUTH_NONCE - got, 0);
		if (n <= 0)
			return DOCA_ERROR_OPERATING_SYSTEM;
		got += (size_t)n;
	}
	return DOCA_SUCCESS;
}

/* What every handshake message starts with (sd_link_ucx.h). */
struct auth_head {
	uint32_t magic;
	uint16_t version;
	uint16_t reserved;
};

/* The checks every handshake message passes first: exactly `size` bytes (a
 * `name`, for the explanation), copied to out, then magic and version. */
_Static_assert(offsetof(struct sd_auth_hello, version) == offsetof(struct auth_head, version) &&
		       offsetof(struct sd_auth_challenge, version) == offsetof(struct auth_head, version) &&
		       offsetof(struct sd_auth_proof, version) == offsetof(struct auth_head, version),
	       "every handshake message starts with magic and version");

static doca_error_t take_msg(const char *name, const void *msg, size_t len, void *out, size_t size, char *why,
			     size_t cap)
{
	struct auth_head h;

	if (msg == NULL || len != size) {
		snprintf(why, cap, "malformed handshake (%s of %zu bytes)", name, len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(out, msg, size);
	memcpy(&h, out, sizeof(h));
	if (h.magic != SD_AUTH_MAGIC || h.version != SD_AUTH_VERSION) {
		snprintf(why, cap, "not a softdoca link (bad magic or version %u)", (unsigned)h.version);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

/* Is this the message the side expects now? Either way the step becomes
 * FAILED until the caller finishes the step successfully. */
static bool expect_step(struct sd_auth *a, bool server, int step, char *why, size_t cap)
{
	bool ok = a->server == server && a->step == step;

	a->step = STEP_FAILED;
	if (!ok)
		snprintf(why, cap, "handshake message out of order");
	return ok;
}

doca_error_t sd_auth_client_hello(struct sd_auth *a, const uint8_t *secret, size_t len, uint32_t card,
				  struct sd_auth_hello *out)
{
	if (a == NULL || secret == NULL || len == 0 || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	memset(a, 0, sizeof(*a));
	a->server = false;
	a->card = card;
	a->secret = secret;
	a->secret_len = len;
	if (fill_nonce(a->own) != DOCA_SUCCESS)
		return DOCA_ERROR_OPERATING_SYSTEM;
	memset(out, 0, sizeof(*out));
	out->magic = SD_AUTH_MAGIC;
	out->version = SD_AUTH_VERSION;
	out->card = card;
	out->pid = (uint32_t)getpid();
	memcpy(out->nonce, a->own, SD_AUTH_NONCE);
	a->step = STEP_WAIT_CHALLENGE;
	return DOCA_SUCCESS;
}

doca_error_t sd_auth_server_challenge(struct sd_auth *a, const uint8_t *secret, size_t secret_len, uint32_t card,
				      const void *msg, size_t len, struct sd_auth_challenge *out, char *why,
				      size_t cap)
{
	struct sd_auth_hello h;
	doca_error_t err;

	if (a == NULL || secret == NULL || secret_len == 0 || out == NULL || why == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	memset(a, 0, sizeof(*a));
	a->server = true;
	a->secret = secret;
	a->secret_len = secret_len;
	a->card = card;
	a->step = STEP_FAILED;
	err = take_msg("HELLO", msg, len, &h, sizeof(h), why, cap);
	if (err != DOCA_SUCCESS)
		return err;
	a->peer_pid = h.pid;
	if (h.card != card) {
		snprintf(why, cap, "wrong card: the client asks for card %u, this side is card %u", (unsigned)h.card,
			 (unsigned)card);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	memcpy(a->peer, h.nonce, SD_AUTH_NONCE);
	if (fill_nonce(a->own) != DOCA_SUCCESS) {
		snprintf(why, cap, "getrandom failed");
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	memset(out, 0, sizeof(*out));
	out->magic = SD_AUTH_MAGIC;
	out->version = SD_AUTH_VERSION;
	out->card = card;
	out->pid = (uint32_t)getpid();
	memcpy(out->nonce, a->own, SD_AUTH_NONCE);
	sd_auth_mac(secret, secret_len, 'S', a->own, a->peer, card, out->mac);
	a->step = STEP_WAIT_PROOF;
	return DOCA_SUCCESS;
}

doca_error_t sd_auth_client_proof(struct sd_auth *a, const void *msg, size_t len, const struct sd_fabric_addr *addr,
				  struct sd_auth_proof *out, char *why, size_t cap)
{
	struct sd_auth_challenge c;
	uint8_t expect[SD_AUTH_MAC];
	doca_error_t err;

	if (a == NULL || addr == NULL || out == NULL || why == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!expect_step(a, false, STEP_WAIT_CHALLENGE, why, cap))
		return DOCA_ERROR_INVALID_VALUE;
	err = take_msg("CHALLENGE", msg, len, &c, sizeof(c), why, cap);
	if (err != DOCA_SUCCESS)
		return err;
	a->peer_pid = c.pid;
	if (c.card != a->card) {
		snprintf(why, cap, "wrong card: the server is card %u, we are card %u", (unsigned)c.card,
			 (unsigned)a->card);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	memcpy(a->peer, c.nonce, SD_AUTH_NONCE);
	/* A server echoing our own nonce could reflect our proof back at us. */
	if (CRYPTO_memcmp(a->peer, a->own, SD_AUTH_NONCE) == 0) {
		snprintf(why, cap, "the server echoed our nonce");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	sd_auth_mac(a->secret, a->secret_len, 'S', a->peer, a->own, a->card, expect);
	if (!mac_ok(expect, c.mac)) {
		snprintf(why, cap, "the server did not prove it knows the secret (different secret files?)");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	memset(out, 0, sizeof(*out));
	out->magic = SD_AUTH_MAGIC;
	out->version = SD_AUTH_VERSION;
	sd_auth_mac(a->secret, a->secret_len, 'C', a->own, a->peer, a->card, out->mac);
	out->addr = *addr;
	a->step = STEP_DONE;
	return DOCA_SUCCESS;
}

doca_error_t sd_auth_server_verify(struct sd_auth *a, const void *msg, size_t len, struct sd_fabric_addr *addr,
				   char *why, size_t cap)
{
	struct sd_auth_proof p;
	uint8_t expect[SD_AUTH_MAC];
	doca_error_t err;

	if (a == NULL || addr == NULL || why == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!expect_step(a, true, STEP_WAIT_PROOF, why, cap))
		return DOCA_ERROR_INVALID_VALUE;
	err = take_msg("PROOF", msg, len, &p, sizeof(p), why, cap);
	if (err != DOCA_SUCCESS)
		return err;
	sd_auth_mac(a->secret, a->secret_len, 'C', a->peer, a->own, a->card, expect);
	if (!mac_ok(expect, p.mac)) {
		snprintf(why, cap, "the client did not prove it knows the secret (different secret files?)");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	p.addr.pci[sizeof(p.addr.pci) - 1] = '\0';
	p.addr.name[sizeof(p.addr.name) - 1] = '\0';
	if (p.addr.card != a->card) {
		snprintf(why, cap, "wrong card: the client opens card %u, this side is card %u",
			 (unsigned)p.addr.card, (unsigned)a->card);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	*addr = p.addr;
	a->step = STEP_DONE;
	return DOCA_SUCCESS;
}
