/*
 * fault.c - SOFTDOCA_FAULTS, faults injected on purpose (see sd_fault.h for
 * the grammar and what each fault looks like to a program).
 *
 * Why it is shaped like this:
 *  - The variable is parsed at the first create of a DMA or Comch context,
 *    not in a constructor: the logger is not up in a constructor, and a
 *    program (or a test) may set the variable itself before it creates
 *    anything. No task or message exists before such a create, so the hooks'
 *    flag is settled before any hook runs.
 *  - A malformed variable fails every create with INVALID_VALUE. Running
 *    unfaulted would let the user believe the error paths were tested.
 *  - Tasks and messages are counted per process and per WHERE, at
 *    submission: that is the order a program reasons in ("the 5th task I
 *    submit"), and it does not depend on how the engine batches execution.
 *  - The fault is applied where the real failure would happen: a DMA fault
 *    when the task executes (dma.c reads it back from the task), a Comch
 *    fault when the message goes on the link (connection.c asks here each
 *    time it tries), a fast-path producer fault when the send is submitted
 *    (it is published or refused right there). Comch decisions wait in a small table keyed by the task
 *    because a queued message may be tried many times (link full, held).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sd_fault.h"
#include "sd_log.h"

SD_LOG_REGISTER(FAULT);

#define FAULT_MAX_RULES 16
#define FAULT_RULE_MAX 128 /* characters of one rule */
#define FAULT_VAR_MAX 4096
#define FAULT_DELAY_MAX_NS (60ull * 1000000000ull)

#define FAULT_GRAMMAR                                                                                        \
	"grammar: SOFTDOCA_FAULTS=\"rule[;rule...]\", rule = WHERE:WHEN:WHAT, WHERE = dma|comch|producer, " \
	"WHEN = nth=N|every=N|after=N|size=N|size>=N|size<=N, WHAT = error=DOCA_ERROR_NAME (dma), "         \
	"drop|delay=N(us|ms|s)|cut (comch) or drop|error=DOCA_ERROR_NAME|cut (producer); "                  \
	"e.g. \"dma:nth=5:error=IO_FAILED;comch:every=10:delay=50ms;producer:after=100:cut\""

enum when_kind { WHEN_NTH, WHEN_EVERY, WHEN_AFTER, WHEN_SIZE_EQ, WHEN_SIZE_GE, WHEN_SIZE_LE };
enum what_kind { WHAT_ERROR, WHAT_DROP, WHAT_DELAY, WHAT_CUT };

struct rule {
	char text[FAULT_RULE_MAX];
	uint32_t where; /* SD_FAULT_DMA / SD_FAULT_COMCH */
	enum when_kind when;
	uint64_t n;
	enum what_kind what;
	doca_error_t err;
	uint64_t delay_ns;
	atomic_uint_fast64_t fired;
};

struct pending {
	const void *task;
	enum sd_fault_action action;
	uint64_t release_ns;
};

uint32_t sd_fault_where;

static struct {
	pthread_once_t once;
	bool bad;
	char bad_msg[FAULT_RULE_MAX + 200];
	struct rule rules[FAULT_MAX_RULES];
	uint32_t nrules;
	atomic_uint_fast64_t seq_dma;
	atomic_uint_fast64_t seq_comch;
	atomic_uint_fast64_t seq_producer;
	/* Comch decisions not yet applied */
	pthread_mutex_t lock;
	struct pending *pend;
	uint32_t npend, cap;
	atomic_uint npend_any; /* npend, readable without the lock */
} F = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER};

/* ---- parsing ------------------------------------------------------------ */

/* Plain decimal digits only (as sd_env.h does for numbers). */
static int parse_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (len == 0)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

static int parse_error_name(const char *s, doca_error_t *out)
{
	int code;

	if (strncasecmp(s, "DOCA_ERROR_", 11) == 0)
		s += 11;
	if (*s == '\0')
		return -1;
	for (code = 1; code < 256; code++) {
		const char *name = doca_error_get_name((doca_error_t)code);

		if (name != NULL && strncmp(name, "DOCA_ERROR_", 11) == 0 && strcasecmp(name + 11, s) == 0) {
			*out = (doca_error_t)code;
			return 0;
		}
	}
	return -1;
}

static int parse_delay(const char *s, uint64_t *ns)
{
	size_t len = strlen(s), digits = 0;
	uint64_t v, unit;

	while (digits < len && s[digits] >= '0' && s[digits] <= '9')
		digits++;
	if (strcmp(s + digits, "us") == 0)
		unit = 1000ull;
	else if (strcmp(s + digits, "ms") == 0)
		unit = 1000000ull;
	else if (strcmp(s + digits, "s") == 0)
		unit = 1000000000ull;
	else
		return -1;
	if (parse_u64(s, digits, &v) != 0 || v == 0 || v > FAULT_DELAY_MAX_NS / unit)
		return -1;
	*ns = v * unit;
	return 0;
}

/* One rule, NUL-terminated in a scratch copy; NULL or why it is refused. */
static const char *parse_rule(char *s, struct rule *r)
{
	char *where = s, *when, *what;
	const char *op;
	size_t oplen;

	when = strchr(where, ':');
	if (when == NULL)
		return "it has no ':' (a rule is WHERE:WHEN:WHAT)";
	*when++ = '\0';
	what = strchr(when, ':');
	if (what == NULL)
		return "it has only two parts (a rule is WHERE:WHEN:WHAT)";
	*what++ = '\0';
	if (strchr(what, ':') != NULL)
		return "it has more than three parts (a rule is WHERE:WHEN:WHAT)";

	if (strcmp(where, "dma") == 0)
		r->where = SD_FAULT_DMA;
	else if (strcmp(where, "comch") == 0)
		r->where = SD_FAULT_COMCH;
	else if (strcmp(where, "producer") == 0)
		r->where = SD_FAULT_PRODUCER;
	else
		return "WHERE must be dma or comch (or producer: the Comch fast path)";

	if (strncmp(when, "nth=", 4) == 0) {
		r->when = WHEN_NTH, op = when + 4;
	} else if (strncmp(when, "every=", 6) == 0) {
		r->when = WHEN_EVERY, op = when + 6;
	} else if (strncmp(when, "after=", 6) == 0) {
		r->when = WHEN_AFTER, op = when + 6;
	} else if (strncmp(when, "size>=", 6) == 0) {
		r->when = WHEN_SIZE_GE, op = when + 6;
	} else if (strncmp(when, "size<=", 6) == 0) {
		r->when = WHEN_SIZE_LE, op = when + 6;
	} else if (strncmp(when, "size=", 5) == 0) {
		r->when = WHEN_SIZE_EQ, op = when + 5;
	} else {
		return "WHEN must be nth=N, every=N, after=N, size=N, size>=N or size<=N";
	}
	oplen = strlen(op);
	if (parse_u64(op, oplen, &r->n) != 0)
		return "the number in WHEN must be plain decimal digits";
	if ((r->when == WHEN_NTH || r->when == WHEN_EVERY) && r->n == 0)
		return "nth and every count from 1";

	if (strncmp(what, "error=", 6) == 0) {
		if (r->where == SD_FAULT_COMCH)
			return "comch rules take drop, delay=D or cut (error= is for dma and producer)";
		if (parse_error_name(what + 6, &r->err) != 0)
			return "error= must name a DOCA error, such as IO_FAILED or DOCA_ERROR_INVALID_VALUE";
		r->what = WHAT_ERROR;
	} else if (strcmp(what, "drop") == 0 || strcmp(what, "cut") == 0 || strncmp(what, "delay=", 6) == 0) {
		if (r->where == SD_FAULT_DMA)
			return "dma rules take error=NAME (drop, delay and cut are for comch)";
		if (r->where == SD_FAULT_PRODUCER && what[0] == 'd' && what[1] == 'e')
			return "producer rules take drop, error=NAME or cut (delay= is for comch)";
		if (what[0] == 'd' && what[1] == 'r') {
			r->what = WHAT_DROP;
		} else if (what[0] == 'c') {
			r->what = WHAT_CUT;
		} else {
			if (parse_delay(what + 6, &r->delay_ns) != 0)
				return "delay= must be a number of us, ms or s, from 1 us to 60 s (e.g. delay=50ms)";
			r->what = WHAT_DELAY;
		}
	} else {
		return "WHAT must be error=NAME (dma), drop, delay=D or cut (comch), or drop, error=NAME or cut "
		       "(producer)";
	}
	return NULL;
}

static void refuse(unsigned idx, const char *rule, const char *why)
{
	F.bad = true;
	snprintf(F.bad_msg, sizeof(F.bad_msg), "rule %u '%.*s' is refused: %s", idx, FAULT_RULE_MAX - 1, rule, why);
}

static void fault_exit(void)
{
	for (uint32_t i = 0; i < F.nrules; i++)
		SD_LOG_INFO("SOFTDOCA_FAULTS rule '%s': %" PRIu64 " fault%s injected", F.rules[i].text,
			    (uint64_t)atomic_load(&F.rules[i].fired), atomic_load(&F.rules[i].fired) == 1 ? "" : "s");
	pthread_mutex_lock(&F.lock);
	free(F.pend);
	F.pend = NULL;
	F.npend = F.cap = 0;
	pthread_mutex_unlock(&F.lock);
}

static void fault_parse(void)
{
	const char *v = getenv("SOFTDOCA_FAULTS");
	char *copy, *s, *next;
	unsigned idx = 0;
	uint32_t where = 0;

	if (v == NULL || *v == '\0')
		return;
	if (strlen(v) >= FAULT_VAR_MAX) {
		F.bad = true;
		snprintf(F.bad_msg, sizeof(F.bad_msg), "the value is longer than %u characters", FAULT_VAR_MAX - 1);
		return;
	}
	copy = strdup(v);
	if (copy == NULL) {
		F.bad = true;
		snprintf(F.bad_msg, sizeof(F.bad_msg), "out of memory reading it");
		return;
	}
	for (s = copy; s != NULL; s = next) {
		struct rule *r;
		char scratch[FAULT_RULE_MAX];
		const char *why;

		next = strchr(s, ';');
		if (next != NULL)
			*next++ = '\0';
		if (*s == '\0')
			continue; /* "a;;b" and a trailing ';' are harmless */
		idx++;
		if (strlen(s) >= FAULT_RULE_MAX) {
			refuse(idx, s, "a rule is at most 127 characters");
			break;
		}
		if (F.nrules == FAULT_MAX_RULES) {
			refuse(idx, s, "at most 16 rules");
			break;
		}
		r = &F.rules[F.nrules];
		memset(r, 0, sizeof(*r));
		strcpy(r->text, s);
		strcpy(scratch, s);
		why = parse_rule(scratch, r);
		if (why != NULL) {
			refuse(idx, s, why);
			break;
		}
		where |= r->where;
		F.nrules++;
	}
	free(copy);
	if (F.bad) {
		F.nrules = 0;
		return;
	}
	if (F.nrules == 0)
		return;
	atexit(fault_exit);
	sd_fault_where = where;
}

doca_error_t sd_fault_setup(void)
{
	pthread_once(&F.once, fault_parse);
	if (!F.bad)
		return DOCA_SUCCESS;
	SD_LOG_ERR("SOFTDOCA_FAULTS=\"%.300s\": %s; %s", getenv("SOFTDOCA_FAULTS") ? getenv("SOFTDOCA_FAULTS") : "",
		   F.bad_msg, FAULT_GRAMMAR);
	return DOCA_ERROR_INVALID_VALUE;
}

/* ---- matching ----------------------------------------------------------- */

static bool rule_matches(const struct rule *r, uint64_t seq, uint64_t bytes)
{
	switch (r->when) {
	case WHEN_NTH:
		return seq == r->n;
	case WHEN_EVERY:
		return seq % r->n == 0;
	case WHEN_AFTER:
		return seq > r->n;
	case WHEN_SIZE_EQ:
		return bytes == r->n;
	case WHEN_SIZE_GE:
		return bytes >= r->n;
	case WHEN_SIZE_LE:
		return bytes <= r->n;
	}
	return false;
}

static struct rule *match(uint32_t where, uint64_t seq, uint64_t bytes)
{
	for (uint32_t i = 0; i < F.nrules; i++) {
		struct rule *r = &F.rules[i];

		if (r->where == where && rule_matches(r, seq, bytes))
			return r;
	}
	return NULL;
}

/* Counted always; the WARNING only for a rule's first fault. */
static bool first_fire(struct rule *r)
{
	return atomic_fetch_add(&r->fired, 1) == 0;
}

doca_error_t sd_fault_dma_submit(const void *task, uint64_t bytes)
{
	uint64_t seq = atomic_fetch_add(&F.seq_dma, 1) + 1;
	struct rule *r = match(SD_FAULT_DMA, seq, bytes);

	if (r == NULL)
		return DOCA_SUCCESS;
	if (first_fire(r))
		SD_LOG_WARN("fault injected (SOFTDOCA_FAULTS rule '%s'): DMA memcpy task %p (number %" PRIu64
			    " of this process, %" PRIu64 " bytes) fails with %s when it executes",
			    r->text, task, seq, bytes, doca_error_get_name(r->err));
	return r->err;
}

/* Caller holds F.lock. */
static struct pending *pend_find(const void *task)
{
	for (uint32_t i = 0; i < F.npend; i++)
		if (F.pend[i].task == task)
			return &F.pend[i];
	return NULL;
}

/* Caller holds F.lock. */
static void pend_remove(struct pending *p)
{
	*p = F.pend[--F.npend];
	atomic_store(&F.npend_any, F.npend);
}

void sd_fault_comch_submit(const void *task, uint32_t len, uint64_t submit_ns)
{
	uint64_t seq = atomic_fetch_add(&F.seq_comch, 1) + 1;
	struct rule *r = match(SD_FAULT_COMCH, seq, len);
	enum sd_fault_action action = SD_FAULT_PASS;
	struct pending *p;

	if (r != NULL) {
		const char *what = r->what == WHAT_DROP ? "dropped" : r->what == WHAT_DELAY ? "delayed" :
			"not sent: the link is cut (the send fails with DOCA_ERROR_CONNECTION_RESET, the peer sees "
			"its connection die)";

		action = r->what == WHAT_DROP ? SD_FAULT_DROP : r->what == WHAT_DELAY ? SD_FAULT_HOLD : SD_FAULT_CUT;
		if (first_fire(r))
			SD_LOG_WARN("fault injected (SOFTDOCA_FAULTS rule '%s'): Comch message number %" PRIu64
				    " of this process (%u bytes) %s",
				    r->text, seq, len, what);
	} else if (atomic_load(&F.npend_any) == 0) {
		return;
	}
	pthread_mutex_lock(&F.lock);
	/* A task resubmitted after a connection died with it still held. */
	p = pend_find(task);
	if (p != NULL)
		pend_remove(p);
	if (action != SD_FAULT_PASS) {
		if (F.npend == F.cap) {
			uint32_t cap = F.cap == 0 ? 64 : F.cap * 2;
			struct pending *n = realloc(F.pend, cap * sizeof(*n));

			if (n == NULL) {
				pthread_mutex_unlock(&F.lock);
				SD_LOG_ERR("SOFTDOCA_FAULTS: out of memory: Comch message %" PRIu64 " sent unfaulted",
					   seq);
				return;
			}
			F.pend = n;
			F.cap = cap;
		}
		F.pend[F.npend].task = task;
		F.pend[F.npend].action = action;
		F.pend[F.npend].release_ns = submit_ns + r->delay_ns;
		F.npend++;
		atomic_store(&F.npend_any, F.npend);
	}
	pthread_mutex_unlock(&F.lock);
}

enum sd_fault_action sd_fault_comch_send(const void *task, uint64_t now_ns)
{
	enum sd_fault_action action = SD_FAULT_PASS;
	struct pending *p;

	if (atomic_load(&F.npend_any) == 0)
		return SD_FAULT_PASS;
	pthread_mutex_lock(&F.lock);
	p = pend_find(task);
	if (p != NULL) {
		action = p->action;
		if (action == SD_FAULT_HOLD && now_ns >= p->release_ns)
			action = SD_FAULT_PASS;
		if (action != SD_FAULT_HOLD)
			pend_remove(p);
	}
	pthread_mutex_unlock(&F.lock);
	return action;
}

enum sd_fault_action sd_fault_producer_send(uint32_t len, doca_error_t *err)
{
	uint64_t seq = atomic_fetch_add(&F.seq_producer, 1) + 1;
	struct rule *r = match(SD_FAULT_PRODUCER, seq, len);

	if (r == NULL)
		return SD_FAULT_PASS;
	if (first_fire(r))
		SD_LOG_WARN("fault injected (SOFTDOCA_FAULTS rule '%s'): Comch producer send number %" PRIu64
			    " of this process (%u bytes) %s%s",
			    r->text, seq, len,
			    r->what == WHAT_DROP ? "dropped (it completes successfully, nothing arrives)" :
			    r->what == WHAT_CUT ? "not sent: the fast path is cut (the send fails with "
						  "DOCA_ERROR_CONNECTION_RESET, the producer stops)" :
						  "fails with ",
			    r->what == WHAT_ERROR ? doca_error_get_name(r->err) : "");
	if (r->what == WHAT_ERROR) {
		*err = r->err;
		return SD_FAULT_FAIL;
	}
	return r->what == WHAT_DROP ? SD_FAULT_DROP : SD_FAULT_CUT;
}
