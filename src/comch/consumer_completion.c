/*
 * consumer_completion.c - the Comch consumer completion context.
 *
 * In DOCA this object lives on the DPA: DPA consumers post their receive
 * completions into it and a DPA thread polls it. Its sizes are plain
 * configuration and are kept (and checked) for real, so a program can build
 * and query one; everything that would create or touch it on the DPA answers
 * NOT_SUPPORTED, which is why a context here never leaves the stopped state.
 */
#include <stdlib.h>

#include <doca_comch_consumer.h>

#include "fastpath_ring.h"
#include "sd_log.h"

SD_LOG_REGISTER(COMCH_CONSUMER_COMPLETION);

/* softdoca's defaults; DOCA does not document its own. */
#define SD_CC_DEF_CONSUMERS 1u
#define SD_CC_DEF_RECV 64u
/* Largest value that still rounds up to a power of two in 32 bits. */
#define SD_CC_MAX_SIZE (1u << 31)

struct doca_comch_consumer_completion {
	uint32_t max_consumers; /* powers of two */
	uint32_t max_recv;
	uint32_t imm_len;
};

static uint32_t round_pow2(uint32_t v)
{
	uint32_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

doca_error_t doca_comch_consumer_completion_create(struct doca_comch_consumer_completion **consumer_comp)
{
	struct doca_comch_consumer_completion *cc;

	if (consumer_comp == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	cc = calloc(1, sizeof(*cc));
	if (cc == NULL) {
		SD_LOG_ERR("Failed to allocate a consumer completion context");
		return DOCA_ERROR_NO_MEMORY;
	}
	cc->max_consumers = SD_CC_DEF_CONSUMERS;
	cc->max_recv = SD_CC_DEF_RECV;
	cc->imm_len = SD_FP_MAX_IMM;
	*consumer_comp = cc;
	return DOCA_SUCCESS;
}

/* No consumer can be associated (that needs a started context), so nothing
 * can still refer to it. */
doca_error_t doca_comch_consumer_completion_destroy(struct doca_comch_consumer_completion *consumer_comp)
{
	if (consumer_comp == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	free(consumer_comp);
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_completion_set_dpa_thread(struct doca_comch_consumer_completion *consumer_comp,
							   struct doca_dpa_thread *dpa_thread)
{
	if (consumer_comp == NULL || dpa_thread == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	SD_LOG_ERR("Failed to set the DPA thread of a consumer completion context: no DPA is emulated");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_comch_consumer_completion_start(struct doca_comch_consumer_completion *consumer_comp)
{
	if (consumer_comp == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	SD_LOG_ERR("Failed to start a consumer completion context: no DPA is emulated");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_comch_consumer_completion_stop(struct doca_comch_consumer_completion *consumer_comp)
{
	if (consumer_comp == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	SD_LOG_ERR("Failed to stop a consumer completion context: it was never started");
	return DOCA_ERROR_BAD_STATE;
}

doca_error_t doca_comch_consumer_completion_get_dpa_handle(
	struct doca_comch_consumer_completion *consumer_comp,
	doca_dpa_dev_comch_consumer_completion_t *consumer_comp_handle)
{
	if (consumer_comp == NULL || consumer_comp_handle == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	SD_LOG_ERR("Failed to get the DPA handle of a consumer completion context: no DPA is emulated");
	return DOCA_ERROR_NOT_SUPPORTED;
}

/* The setters need no started-state check: start never succeeds here. */
static doca_error_t set_size(uint32_t *field, uint32_t v, const char *what)
{
	if (v == 0 || v > SD_CC_MAX_SIZE) {
		SD_LOG_ERR("consumer completion context: %s %u out of range 1..%u", what, v, SD_CC_MAX_SIZE);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*field = round_pow2(v);
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_completion_set_max_num_consumers(struct doca_comch_consumer_completion *consumer_comp,
								  uint32_t max_num_consumers)
{
	if (consumer_comp == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return set_size(&consumer_comp->max_consumers, max_num_consumers, "max_num_consumers");
}

doca_error_t doca_comch_consumer_completion_get_max_num_consumers(
	const struct doca_comch_consumer_completion *consumer_comp, uint32_t *max_num_consumers)
{
	if (consumer_comp == NULL || max_num_consumers == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*max_num_consumers = consumer_comp->max_consumers;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_completion_set_max_num_recv(struct doca_comch_consumer_completion *consumer_comp,
							     uint32_t max_num_recv)
{
	if (consumer_comp == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return set_size(&consumer_comp->max_recv, max_num_recv, "max_num_recv");
}

doca_error_t doca_comch_consumer_completion_get_max_num_recv(const struct doca_comch_consumer_completion *consumer_comp,
							     uint32_t *max_num_recv)
{
	if (consumer_comp == NULL || max_num_recv == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*max_num_recv = consumer_comp->max_recv;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_completion_set_imm_data_len(struct doca_comch_consumer_completion *consumer_comp,
							     uint32_t imm_data_len)
{
	if (consumer_comp == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (imm_data_len > SD_FP_MAX_IMM) {
		SD_LOG_ERR("consumer completion context: immediate data of %u bytes exceeds the maximum of %u",
			   imm_data_len, SD_FP_MAX_IMM);
		return DOCA_ERROR_INVALID_VALUE;
	}
	consumer_comp->imm_len = imm_data_len;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_completion_get_imm_data_len(const struct doca_comch_consumer_completion *consumer_comp,
							     uint32_t *imm_data_len)
{
	if (consumer_comp == NULL || imm_data_len == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*imm_data_len = consumer_comp->imm_len;
	return DOCA_SUCCESS;
}
