// SPDX-License-Identifier: GPL-2.0-or-later
/* TSP's names and texts (wire.h): types, error codes, refusals. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsp/codec.h"

static const char *const ditg_names[] = {
	[TSP_CONNECT] = "TSP_CONNECT",
	[TSP_ACK_CONNECT] = "TSP_ACK_CONNECT",
	[TSP_SEND_FLOW] = "TSP_SEND_FLOW",
	[TSP_CLOSED_FLOW] = "TSP_CLOSED_FLOW",
	[TSP_ACK_SEND_FLOW] = "TSP_ACK_SEND_FLOW",
	[TSP_ACK_CLOSED_FLOW] = "TSP_ACK_CLOSED_FLOW",
	[TSP_ACK_RELEASE] = "TSP_ACK_RELEASE",
	[TSP_DISCOVERY] = "TSP_DISCOVERY",
	[TSP_ACK_DISCOVERY] = "TSP_ACK_DISCOVERY",
	[TSP_CRYPTO_RSA] = "TSP_CRYPTO_RSA",
	[TSP_RELEASE] = "TSP_RELEASE",
	[TSP_SEND_FLOW_LOG] = "TSP_SEND_FLOW_LOG",
	[TSP_ACK_SEND_FLOW_LOG] = "TSP_ACK_SEND_FLOW_LOG",
	[TSP_ERR_MSG_1] = "TSP_ERR_MSG_1",
	[TSP_ERR_MSG_2] = "TSP_ERR_MSG_2",
	[TSP_ERR_MSG_3] = "TSP_ERR_MSG_3",
	[TSP_CLOSED_ERR] = "TSP_CLOSED_ERR",
	[TSP_ACK_SEND_NAME_LOG] = "TSP_ACK_SEND_NAME_LOG",
	[TSP_SEND_NAME_LOG] = "TSP_SEND_NAME_LOG",
	[TSP_SENDER_DOWN] = "TSP_SENDER_DOWN",
	[TSP_ERR_MSG_4] = "TSP_ERR_MSG_4",
	[TSP_ERR_MSG_5] = "TSP_ERR_MSG_5",
};

static const char *const mtg_names[] = {
	[TSP_HELLO - TSP_MTG_FIRST] = "TSP_HELLO",
	[TSP_CHALLENGE - TSP_MTG_FIRST] = "TSP_CHALLENGE",
	[TSP_AUTH - TSP_MTG_FIRST] = "TSP_AUTH",
	[TSP_AUTH_OK - TSP_MTG_FIRST] = "TSP_AUTH_OK",
	[TSP_FLOW_REQ - TSP_MTG_FIRST] = "TSP_FLOW_REQ",
	[TSP_FLOW_ACK - TSP_MTG_FIRST] = "TSP_FLOW_ACK",
	[TSP_RESULT - TSP_MTG_FIRST] = "TSP_RESULT",
	[TSP_ERROR - TSP_MTG_FIRST] = "TSP_ERROR",
	[TSP_START - TSP_MTG_FIRST] = "TSP_START",
	[TSP_TIME_REQ - TSP_MTG_FIRST] = "TSP_TIME_REQ",
	[TSP_TIME_RESP - TSP_MTG_FIRST] = "TSP_TIME_RESP",
	[TSP_LOG_OPEN - TSP_MTG_FIRST] = "TSP_LOG_OPEN",
	[TSP_LOG_ACK - TSP_MTG_FIRST] = "TSP_LOG_ACK",
	[TSP_LOG_BATCH - TSP_MTG_FIRST] = "TSP_LOG_BATCH",
	[TSP_LOG_CLOSE - TSP_MTG_FIRST] = "TSP_LOG_CLOSE",
	[TSP_LOG_DONE - TSP_MTG_FIRST] = "TSP_LOG_DONE",
	[TSP_JOB_OFFER - TSP_MTG_FIRST] = "TSP_JOB_OFFER",
	[TSP_JOB_DATA - TSP_MTG_FIRST] = "TSP_JOB_DATA",
	[TSP_JOB_READY - TSP_MTG_FIRST] = "TSP_JOB_READY",
	[TSP_JOB_START - TSP_MTG_FIRST] = "TSP_JOB_START",
	[TSP_JOB_PROGRESS - TSP_MTG_FIRST] = "TSP_JOB_PROGRESS",
	[TSP_JOB_END - TSP_MTG_FIRST] = "TSP_JOB_END",
	[TSP_JOB_DROP - TSP_MTG_FIRST] = "TSP_JOB_DROP",
};

const char *tsp_type_name(uint8_t type)
{
	if (type >= 1 && type <= TSP_DITG_LAST)
		return ditg_names[type];
	if (type >= TSP_MTG_FIRST && type <= TSP_MTG_LAST)
		return mtg_names[type - TSP_MTG_FIRST];
	return NULL;
}

unsigned int tsp_senders(uint8_t t)
{
	switch (t) {
	case TSP_CONNECT:
	case TSP_SEND_FLOW:
	case TSP_CLOSED_FLOW:
	case TSP_ACK_DISCOVERY:
	case TSP_RELEASE:
	case TSP_SEND_FLOW_LOG:
	case TSP_ERR_MSG_1:
	case TSP_CLOSED_ERR:
	case TSP_SEND_NAME_LOG:
	case TSP_AUTH:
	case TSP_FLOW_REQ:
	case TSP_START:
	case TSP_TIME_REQ:
	case TSP_LOG_OPEN:		/* a log server's client: the "sender" */
	case TSP_LOG_BATCH:
	case TSP_LOG_CLOSE:
	case TSP_JOB_OFFER:		/* a manager: the "sender" */
	case TSP_JOB_START:
	case TSP_JOB_DROP:
		return 1;
	case TSP_ACK_CONNECT:
	case TSP_ACK_CLOSED_FLOW:
	case TSP_ACK_RELEASE:
	case TSP_DISCOVERY:
	case TSP_ACK_SEND_FLOW_LOG:
	case TSP_ERR_MSG_2:
	case TSP_ERR_MSG_3:
	case TSP_ACK_SEND_NAME_LOG:
	case TSP_ERR_MSG_4:
	case TSP_ERR_MSG_5:
	case TSP_CHALLENGE:
	case TSP_AUTH_OK:
	case TSP_FLOW_ACK:
	case TSP_RESULT:
	case TSP_TIME_RESP:
	case TSP_LOG_ACK:
	case TSP_LOG_DONE:
	case TSP_JOB_READY:		/* a daemon: the "receiver" */
	case TSP_JOB_PROGRESS:
	case TSP_JOB_END:
		return 2;
	case TSP_ACK_SEND_FLOW:	/* a sender's in passive mode */
	case TSP_HELLO:
	case TSP_ERROR:
	case TSP_JOB_DATA:		/* the IDF one way, the summary back */
		return 3;
	default:
		return 0;
	}
}

enum tsp_peer tsp_peer_kind(uint8_t first)
{
	if (first == TSP_CONNECT)
		return TSP_PEER_DITG;
	if (first == TSP_HELLO)
		return TSP_PEER_MTG;
	return TSP_PEER_UNKNOWN;
}

const char *tsp_ecode_name(enum tsp_ecode code)
{
	switch (code) {
	case TSP_E_TRUNCATED:
		return "truncated";
	case TSP_E_LENGTH:
		return "bad length";
	case TSP_E_TYPE:
		return "bad type";
	case TSP_E_RANGE:
		return "out of range";
	default:
		return "no error";
	}
}

const char *tsp_refusal_name(uint16_t code)
{
	static const char *const names[] = {
		"accepted", "address", "port", "rate", "protocol", "busy",
		"flow-id", "auth", "bind", "tg",
	};

	return code <= TSP_REFUSE_LAST ? names[code] : NULL;
}

const char *tsp_error_name(uint16_t code)
{
	static const char *const names[] = {
		NULL, "version", "auth-failed", "auth-replay", "auth-expired",
		"auth-required", "malformed", "unexpected", "internal",
		"refused",
	};

	return code <= TSP_ERR_LAST ? names[code] : NULL;
}

static const char *const job_states[] = {
	[TSP_JOB_WAITING] = "waiting", [TSP_JOB_RUNNING] = "running",
	[TSP_JOB_SUSPENDED] = "suspended", [TSP_JOB_DONE] = "done",
	[TSP_JOB_STOPPED] = "killed", [TSP_JOB_ERROR] = "error",
};

const char *tsp_job_state_name(uint8_t state)
{
	return state <= TSP_JOB_STATE_LAST ? job_states[state] : "?";
}

int tsp_job_state_code(const char *name)
{
	int i;

	for (i = 0; i <= TSP_JOB_STATE_LAST; i++)
		if (!strcmp(job_states[i], name))
			return i;
	return -1;
}

void tsp_err_str(const struct tsp_err *e, char *buf, size_t size)
{
	const char *name = e->have_type ? tsp_type_name(e->type) : NULL;
	char t[48];

	if (name)
		snprintf(t, sizeof(t), "%s (%u)", name, e->type);
	else
		snprintf(t, sizeof(t), "a message");
	snprintf(buf, size, "%s: %s at byte %" PRIu64 ", field %s at byte %"
		 PRIu64 ": %s", tsp_ecode_name(e->code), t, e->msg_offset,
		 e->field ? e->field : "?", e->offset, e->what);
}

void tsp_msg_free(struct tsp_msg *m)
{
	if (m->type == TSP_FLOW_REQ) {
		free(m->u.req.tg_json);
		m->u.req.tg_json = NULL;
	} else if (m->type == TSP_LOG_OPEN) {
		free(m->u.lopen.meta);
		m->u.lopen.meta = NULL;
	} else if (m->type == TSP_LOG_BATCH) {
		free(m->u.batch.recs);
		m->u.batch.recs = NULL;
	} else if (m->type == TSP_JOB_DATA) {
		free(m->u.jdata.bytes);
		m->u.jdata.bytes = NULL;
	} else if (m->type == TSP_JOB_PROGRESS) {
		free(m->u.prog.rows);
		m->u.prog.rows = NULL;
	}
}

void tsp_text_set(struct tsp_text *t, const char *s)
{
	size_t n = strlen(s);

	if (n > TSP_MAX_TEXT) {
		n = TSP_MAX_TEXT;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;		/* cut at a character */
	}
	memcpy(t->s, s, n);
	t->s[n] = '\0';
	t->len = (uint16_t)n;
}
