/*
 * The sync event tests' peer (sync_event_peer, the other flavor's build when
 * there is one) and how the test drives it: fixed-size commands and replies
 * over a SOCK_SEQPACKET socketpair (the peer's fd 3). The peer opens its
 * side's first function of card 0 and holds at most one event.
 */
#ifndef SE_PROTO_H_
#define SE_PROTO_H_

#include <stdint.h>

enum se_op {
	SE_HELLO = 1, /* reply.value = the peer's side (0 host, 1 dpu) */
	SE_EXPORT,    /* create, locations, start, export: reply.desc */
	SE_IMPORT,    /* create_from_export(cmd.desc), start */
	SE_SET,       /* update_set(a) after b milliseconds */
	SE_ADD,       /* update_add(a): reply.value = fetched */
	SE_GET,       /* reply.value */
	SE_WAIT_EQ,   /* wait_eq_yield(a, UINT64_MAX): reply.status */
	SE_DESTROY,   /* stop + destroy */
	SE_CRASH,     /* _exit at once (after b milliseconds), no reply */
};

struct se_cmd {
	uint32_t op;
	uint32_t desc_len;
	uint64_t a;
	uint64_t b;
	uint8_t desc[128];
};

struct se_reply {
	int32_t status; /* doca_error_t */
	uint32_t desc_len;
	uint64_t value;
	uint8_t desc[128];
};

#endif /* SE_PROTO_H_ */
