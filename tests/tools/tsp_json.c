// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * TSP messages as JSON for tests/tools/tsp_tool: what a decoded message
 * holds, printed; and a message built from the same JSON, for the
 * encoder. Binary fields are hex; D-ITG's fixed-size names are hex up to
 * their last non-zero byte (the rest zero), their text shown beside.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsp_json.h"

static void hex_out(struct jw *j, const char *key, const uint8_t *p,
		    size_t n)
{
	char s[2 * 256 + 1];
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(s + 2 * i, "%02x", p[i]);
	s[2 * n] = '\0';
	jw_kstr(j, key, s);
}

/* a fixed-size name: its text (up to NUL) and its bytes */
static void name_out(struct jw *j, const char *key, const uint8_t *p,
		     size_t n)
{
	char k[64], s[256 + 1];
	size_t last = n, i;

	while (last && !p[last - 1])
		last--;
	for (i = 0; i < n && p[i]; i++)
		s[i] = (p[i] >= 0x20 && p[i] < 0x7f) ? (char)p[i] : '?';
	s[i] = '\0';
	jw_kstr(j, key, s);
	snprintf(k, sizeof(k), "%s_hex", key);
	hex_out(j, k, p, last);
}

static void addr_out(struct jw *j, const char *key, const uint8_t *a,
		     bool v4)
{
	char s[INET6_ADDRSTRLEN];

	inet_ntop(v4 ? AF_INET : AF_INET6, a, s, sizeof(s));
	jw_kstr(j, key, s);
}

static void flow_out(struct jw *j, const struct tsp_msg *m)
{
	const struct tsp_send_flow *f = &m->u.flow;

	jw_ku64(j, "l4_proto", f->l4);
	jw_ku64(j, "l7_proto", f->l7);
	jw_ku64(j, "meter", f->meter);
	jw_ku64(j, "ds_byte", f->ds);
	jw_ku64(j, "l3_proto", f->l3);
	jw_ku64(j, "payload_type", f->pl_type);
	name_out(j, "serial", f->serial, TSP_SERIAL_LEN);
	jw_kbool(j, "passive", m->passive);
	if (m->passive) {
		jw_ku64(j, "passive_port", f->pssv_port);
		jw_ku64(j, "src_specified", f->src_specified);
	}
	jw_ku64(j, "port", f->port);
	addr_out(j, "addr", f->addr, f->l3 == TSP_L3_IPV4);
}

/* a log's records, a job's piece: any number of bytes as hex */
static void recs_out(struct jw *j, const char *key, const uint8_t *p,
		     size_t n)
{
	char *s = malloc(2 * n + 1);
	size_t i;

	if (!s)
		abort();
	for (i = 0; i < n; i++)
		sprintf(s + 2 * i, "%02x", p[i]);
	s[2 * n] = '\0';
	jw_kstr(j, key, s);
	free(s);
}

static void log_out(struct jw *j, const struct tsp_msg *m)
{
	switch (m->type) {
	case TSP_LOG_OPEN:
		jw_ku64(j, "run_id", m->u.lopen.run_id);
		jw_ku64(j, "transport", m->u.lopen.transport);
		/* "name" is the type's (msg_json()) */
		jw_kstr(j, "host", m->u.lopen.name);
		jw_kstr(j, "meta", m->u.lopen.meta ? m->u.lopen.meta : "");
		break;
	case TSP_LOG_ACK:
		jw_ku64(j, "log_id", m->u.lack.log_id);
		jw_ku64(j, "udp_port", m->u.lack.udp_port);
		break;
	case TSP_LOG_BATCH:
		jw_ku64(j, "log_id", m->u.batch.log_id);
		jw_ku64(j, "seq", m->u.batch.seq);
		jw_ku64(j, "first", m->u.batch.first);
		jw_ku64(j, "count", m->u.batch.count);
		recs_out(j, "records", m->u.batch.recs,
			 (size_t)m->u.batch.count * TSP_LOG_REC);
		break;
	case TSP_LOG_CLOSE:
		jw_ku64(j, "records", m->u.lclose.records);
		jw_ku64(j, "batches", m->u.lclose.batches);
		jw_ku64(j, "not_sent", m->u.lclose.not_sent);
		jw_ku64(j, "ring_drops", m->u.lclose.ring_drops);
		jw_ku64(j, "end_ns", m->u.lclose.end_ns);
		break;
	case TSP_LOG_DONE:
		jw_ku64(j, "records", m->u.ldone.records);
		jw_ku64(j, "lost", m->u.ldone.lost);
		jw_ku64(j, "batches_lost", m->u.ldone.batches_lost);
		jw_ku64(j, "late", m->u.ldone.late);
		jw_kstr(j, "file", m->u.ldone.file.s);
		break;
	}
}

/* the manager's and daemons' messages */
static void job_out(struct jw *j, const struct tsp_msg *m)
{
	const struct tsp_job_progress *p = &m->u.prog;
	uint16_t i;

	switch (m->type) {
	case TSP_JOB_OFFER:
		jw_ku64(j, "run_id", m->u.offer.run_id);
		jw_ku64(j, "idf_len", m->u.offer.idf_len);
		jw_kstr(j, "host", m->u.offer.host);
		jw_kstr(j, "file", m->u.offer.file.s);
		break;
	case TSP_JOB_DATA:
		jw_ku64(j, "kind", m->u.jdata.kind);
		jw_ku64(j, "piece_offset", m->u.jdata.offset);
		recs_out(j, "data", m->u.jdata.bytes, m->u.jdata.len);
		break;
	case TSP_JOB_READY:
		jw_ku64(j, "run_id", m->u.ready.run_id);
		jw_ku64(j, "tgs", m->u.ready.tgs);
		break;
	case TSP_JOB_START:
		jw_ku64(j, "run_id", m->u.jstart.run_id);
		jw_ku64(j, "start_ns", m->u.jstart.start_ns);
		break;
	case TSP_JOB_PROGRESS:
		jw_ku64(j, "run_id", p->run_id);
		jw_ku64(j, "elapsed_ns", p->elapsed_ns);
		jw_key(j, "rows");
		jw_arr_begin(j);
		for (i = 0; i < p->count; i++) {
			jw_obj_begin(j);
			jw_ku64(j, "tgid", p->rows[i].tgid);
			jw_ku64(j, "state", p->rows[i].state);
			jw_ku64(j, "sent", p->rows[i].sent);
			jw_ku64(j, "bytes", p->rows[i].bytes);
			jw_ku64(j, "late_p99_ns", p->rows[i].late_p99_ns);
			jw_obj_end(j);
		}
		jw_arr_end(j);
		break;
	case TSP_JOB_END:
		jw_ku64(j, "run_id", m->u.jend.run_id);
		jw_ku64(j, "status", m->u.jend.status);
		jw_ku64(j, "flags", m->u.jend.flags);
		jw_ku64(j, "summary_len", m->u.jend.summary_len);
		jw_kstr(j, "why", m->u.jend.why.s);
		break;
	case TSP_JOB_DROP:
		jw_ku64(j, "run_id", m->u.drop.run_id);
		jw_kstr(j, "why", m->u.drop.why.s);
		break;
	}
}

static void mtg_out(struct jw *j, const struct tsp_msg *m)
{
	const struct tsp_flow_req *r = &m->u.req;
	const struct tsp_result *res = &m->u.result;

	switch (m->type) {
	case TSP_HELLO:
		jw_ku64(j, "major", m->u.hello.major);
		jw_ku64(j, "minor", m->u.hello.minor);
		break;
	case TSP_CHALLENGE:
		hex_out(j, "nonce", m->u.challenge.nonce, TSP_NONCE_LEN);
		jw_ku64(j, "lifetime_ms", m->u.challenge.lifetime_ms);
		break;
	case TSP_AUTH:
		hex_out(j, "nonce", m->u.auth.nonce, TSP_NONCE_LEN);
		hex_out(j, "mac", m->u.auth.mac, TSP_MAC_LEN);
		break;
	case TSP_AUTH_OK:
		hex_out(j, "mac", m->u.auth_ok, TSP_MAC_LEN);
		break;
	case TSP_FLOW_REQ:
		jw_ku64(j, "run_id", r->run_id);
		jw_ku64(j, "l4_proto", r->l4);
		jw_ku64(j, "l3_proto", r->l3);
		jw_ku64(j, "port", r->port);
		jw_ku64(j, "src_port", r->src_port);
		addr_out(j, "addr", r->addr, r->l3 == TSP_L3_IPV4);
		jw_ku64(j, "bit_rate", r->bit_rate);
		jw_ku64(j, "pkt_rate_milli", r->pkt_rate_milli);
		jw_ku64(j, "duration_ns", r->duration_ns);
		jw_kstr(j, "tg_json", r->tg_json ? r->tg_json : "");
		break;
	case TSP_FLOW_ACK:
		jw_ku64(j, "code", m->u.ack.code);
		jw_kstr(j, "code_name", tsp_refusal_name(m->u.ack.code));
		jw_ku64(j, "port", m->u.ack.port);
		jw_kstr(j, "reason", m->u.ack.reason.s);
		break;
	case TSP_RESULT:
		jw_ku64(j, "flags", res->flags);
		jw_ku64(j, "received", res->received);
		jw_ku64(j, "lost", res->lost);
		jw_ku64(j, "duplicates", res->duplicates);
		jw_ku64(j, "reordered", res->reordered);
		jw_ku64(j, "bytes", res->bytes);
		jw_ki64(j, "owd_min_ns", res->owd_min_ns);
		jw_ki64(j, "owd_mean_ns", res->owd_mean_ns);
		jw_ki64(j, "owd_max_ns", res->owd_max_ns);
		jw_ku64(j, "jitter_ns", res->jitter_ns);
		jw_ku64(j, "first_rx_ns", res->first_rx_ns);
		jw_ku64(j, "last_rx_ns", res->last_rx_ns);
		break;
	case TSP_START:
		jw_ku64(j, "run_id", m->u.start.run_id);
		jw_ku64(j, "start_ns", m->u.start.start_ns);
		jw_ki64(j, "offset_ns", m->u.start.offset_ns);
		jw_ku64(j, "uncertainty_ns", m->u.start.uncertainty_ns);
		break;
	case TSP_TIME_RESP:
		jw_ku64(j, "t2", m->u.time.t2);
		jw_ku64(j, "t3", m->u.time.t3);
		/* fall through */
	case TSP_TIME_REQ:
		jw_ku64(j, "t1", m->u.time.t1);
		break;
	case TSP_ERROR:
		jw_ku64(j, "code", m->u.error.code);
		jw_kstr(j, "code_name", tsp_error_name(m->u.error.code));
		jw_ku64(j, "about", m->u.error.about);
		jw_kstr(j, "text", m->u.error.text.s);
		break;
	default:
		if (m->type >= TSP_JOB_OFFER)
			job_out(j, m);
		else
			log_out(j, m);
	}
}

static bool has_flow_id(uint8_t t)
{
	switch (t) {
	case TSP_SEND_FLOW:
	case TSP_CLOSED_FLOW:
	case TSP_ACK_SEND_FLOW:
	case TSP_ACK_CLOSED_FLOW:
	case TSP_ERR_MSG_2:
	case TSP_ERR_MSG_3:
	case TSP_CLOSED_ERR:
	case TSP_ERR_MSG_5:
	case TSP_FLOW_REQ:
	case TSP_FLOW_ACK:
	case TSP_RESULT:
		return true;
	default:
		return false;
	}
}

void msg_json(struct jw *j, const struct tsp_msg *m, uint64_t offset,
	      size_t len)
{
	jw_obj_begin(j);
	jw_ku64(j, "type", m->type);
	jw_kstr(j, "name", tsp_type_name(m->type));
	jw_ku64(j, "offset", offset);
	jw_ku64(j, "len", len);
	if (has_flow_id(m->type))
		jw_ku64(j, "flow_id", m->flow_id);
	switch (m->type) {
	case TSP_SEND_FLOW:
		flow_out(j, m);
		break;
	case TSP_ACK_SEND_FLOW:
		jw_kbool(j, "passive", m->passive);
		if (!m->passive)
			jw_ku64(j, "port", m->port);
		break;
	case TSP_SEND_FLOW_LOG:
		jw_ku64(j, "family", m->u.log.family);
		addr_out(j, "addr", m->u.log.addr,
			 m->u.log.family == TSP_AF_INET);
		jw_ku64(j, "port", m->u.log.port);
		jw_ku64(j, "log_proto", m->u.log.proto);
		name_out(j, "log_name", m->u.log.name, TSP_LOG_NAME_LEN);
		break;
	case TSP_SEND_NAME_LOG:
		name_out(j, "log_name", m->u.log_name, TSP_LOG_NAME_LEN);
		break;
	default:
		mtg_out(j, m);
	}
	jw_obj_end(j);
}

void err_json(struct jw *j, const struct tsp_err *e)
{
	char line[512];

	tsp_err_str(e, line, sizeof(line));
	jw_obj_begin(j);
	jw_key(j, "error");
	jw_obj_begin(j);
	jw_kstr(j, "code", tsp_ecode_name(e->code));
	if (e->have_type)
		jw_ku64(j, "type", e->type);
	else
		jw_knull(j, "type");
	jw_kstr(j, "field", e->field);
	jw_ku64(j, "msg_offset", e->msg_offset);
	jw_ku64(j, "offset", e->offset);
	jw_kstr(j, "what", e->what);
	jw_kstr(j, "text", line);
	jw_obj_end(j);
	jw_obj_end(j);
}

/* the JSON back into a message */

static int need(json_t *o, const char *key, json_t **v, char *err,
		size_t len)
{
	*v = json_object_get(o, key);
	if (!*v) {
		snprintf(err, len, "field %s missing", key);
		return -1;
	}
	return 0;
}

static int get_u(json_t *o, const char *key, uint64_t max, uint64_t *out,
		 char *err, size_t len)
{
	json_t *v;

	if (need(o, key, &v, err, len))
		return -1;
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (uint64_t)json_integer_value(v) > max) {
		snprintf(err, len, "field %s: not an integer 0..%llu", key,
			 (unsigned long long)max);
		return -1;
	}
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

#define GET(o, key, dst) ({						\
	uint64_t _v;							\
	int _r = get_u(o, key, (__typeof__(dst))~0ULL, &_v, err, len);	\
	if (!_r)							\
		dst = (__typeof__(dst))_v;				\
	_r; })

static int get_i(json_t *o, const char *key, int64_t *out, char *err,
		 size_t len)
{
	json_t *v;

	if (need(o, key, &v, err, len))
		return -1;
	if (!json_is_integer(v)) {
		snprintf(err, len, "field %s: not an integer", key);
		return -1;
	}
	*out = json_integer_value(v);
	return 0;
}

static int get_hex(json_t *o, const char *key, uint8_t *p, size_t n,
		   bool exact, char *err, size_t len)
{
	const char *s;
	unsigned int b;
	json_t *v;
	size_t i, l;

	if (need(o, key, &v, err, len))
		return -1;
	s = json_string_value(v);
	l = s ? strlen(s) : 1;
	if (!s || l % 2 || l / 2 > n || (exact && l / 2 != n)) {
		snprintf(err, len, "field %s: not %s%zu bytes of hex", key,
			 exact ? "" : "up to ", n);
		return -1;
	}
	memset(p, 0, n);
	for (i = 0; i < l / 2; i++) {
		if (sscanf(s + 2 * i, "%2x", &b) != 1) {
			snprintf(err, len, "field %s: not hex", key);
			return -1;
		}
		p[i] = (uint8_t)b;
	}
	return 0;
}

/* NAME_hex if there is one, else NAME's text */
static int get_name(json_t *o, const char *key, uint8_t *p, size_t n,
		    char *err, size_t len)
{
	char k[64];
	const char *s;

	snprintf(k, sizeof(k), "%s_hex", key);
	if (json_object_get(o, k))
		return get_hex(o, k, p, n, false, err, len);
	s = json_string_value(json_object_get(o, key));
	if (!s || strlen(s) > n) {
		snprintf(err, len, "field %s: not a name of up to %zu bytes",
			 key, n);
		return -1;
	}
	memset(p, 0, n);
	memcpy(p, s, strlen(s));
	return 0;
}

static int get_addr(json_t *o, const char *key, uint8_t *a, bool v4,
		    char *err, size_t len)
{
	const char *s = json_string_value(json_object_get(o, key));

	memset(a, 0, 16);
	if (!s || inet_pton(v4 ? AF_INET : AF_INET6, s, a) != 1) {
		snprintf(err, len, "field %s: not an IPv%c address", key,
			 v4 ? '4' : '6');
		return -1;
	}
	return 0;
}

static int get_text(json_t *o, const char *key, struct tsp_text *t,
		    char *err, size_t len)
{
	const char *s = json_string_value(json_object_get(o, key));

	if (!s) {
		snprintf(err, len, "field %s: not a string", key);
		return -1;
	}
	if (strlen(s) > TSP_MAX_TEXT) {		/* the encoder's to refuse */
		t->len = (uint16_t)strlen(s);
		memcpy(t->s, s, TSP_MAX_TEXT);
		return 0;
	}
	tsp_text_set(t, s);
	return 0;
}

static int flow_in(json_t *o, struct tsp_msg *m, char *err, size_t len)
{
	struct tsp_send_flow *f = &m->u.flow;

	m->passive = json_is_true(json_object_get(o, "passive"));
	if (GET(o, "l4_proto", f->l4) || GET(o, "l7_proto", f->l7) ||
	    GET(o, "meter", f->meter) || GET(o, "ds_byte", f->ds) ||
	    GET(o, "l3_proto", f->l3) || GET(o, "payload_type", f->pl_type) ||
	    get_name(o, "serial", f->serial, TSP_SERIAL_LEN, err, len) ||
	    GET(o, "port", f->port))
		return -1;
	if (m->passive && (GET(o, "passive_port", f->pssv_port) ||
			   GET(o, "src_specified", f->src_specified)))
		return -1;
	return get_addr(o, "addr", f->addr, f->l3 != TSP_L3_IPV6, err, len);
}

static int req_in(json_t *o, struct tsp_msg *m, char *err, size_t len)
{
	struct tsp_flow_req *r = &m->u.req;
	const char *s;

	if (GET(o, "run_id", r->run_id) || GET(o, "l4_proto", r->l4) ||
	    GET(o, "l3_proto", r->l3) || GET(o, "port", r->port) ||
	    GET(o, "src_port", r->src_port) ||
	    get_addr(o, "addr", r->addr, r->l3 != TSP_L3_IPV6, err, len) ||
	    GET(o, "bit_rate", r->bit_rate) ||
	    GET(o, "pkt_rate_milli", r->pkt_rate_milli) ||
	    GET(o, "duration_ns", r->duration_ns))
		return -1;
	s = json_string_value(json_object_get(o, "tg_json"));
	if (!s) {
		snprintf(err, len, "field tg_json: not a string");
		return -1;
	}
	r->tg_json = strdup(s);
	r->tg_json_len = (uint32_t)strlen(s);
	return r->tg_json ? 0 : -1;
}

static int result_in(json_t *o, struct tsp_msg *m, char *err, size_t len)
{
	struct tsp_result *r = &m->u.result;

	return GET(o, "flags", r->flags) || GET(o, "received", r->received) ||
		GET(o, "lost", r->lost) ||
		GET(o, "duplicates", r->duplicates) ||
		GET(o, "reordered", r->reordered) ||
		GET(o, "bytes", r->bytes) ||
		get_i(o, "owd_min_ns", &r->owd_min_ns, err, len) ||
		get_i(o, "owd_mean_ns", &r->owd_mean_ns, err, len) ||
		get_i(o, "owd_max_ns", &r->owd_max_ns, err, len) ||
		GET(o, "jitter_ns", r->jitter_ns) ||
		GET(o, "first_rx_ns", r->first_rx_ns) ||
		GET(o, "last_rx_ns", r->last_rx_ns) ? -1 : 0;
}

static int log_open_in(json_t *o, struct tsp_msg *m, char *err, size_t len)
{
	struct tsp_log_open *l = &m->u.lopen;
	const char *name = json_string_value(json_object_get(o, "host"));
	const char *meta = json_string_value(json_object_get(o, "meta"));

	if (GET(o, "run_id", l->run_id) || GET(o, "transport", l->transport))
		return -1;
	if (!name || strlen(name) > TSP_LOG_NAME_MAX || !meta) {
		snprintf(err, len, "fields host, meta: not strings (a host name of up to %d bytes)",
			 TSP_LOG_NAME_MAX);
		return -1;
	}
	l->name_len = (uint16_t)strlen(name);
	memcpy(l->name, name, l->name_len + 1);
	l->meta = strdup(meta);
	l->meta_len = (uint32_t)strlen(meta);
	return l->meta ? 0 : -1;
}

static int batch_in(json_t *o, struct tsp_msg *m, char *err, size_t len)
{
	struct tsp_log_batch *b = &m->u.batch;
	const char *s = json_string_value(json_object_get(o, "records"));
	unsigned int x;
	size_t i, n;

	if (GET(o, "log_id", b->log_id) || GET(o, "seq", b->seq) ||
	    GET(o, "first", b->first) || GET(o, "count", b->count))
		return -1;
	n = s ? strlen(s) / 2 : 0;
	if (!s || strlen(s) % 2) {
		snprintf(err, len, "field records: not hex");
		return -1;
	}
	b->recs = malloc(n ? n : 1);
	if (!b->recs)
		return -1;
	for (i = 0; i < n; i++) {
		if (sscanf(s + 2 * i, "%2x", &x) != 1) {
			snprintf(err, len, "field records: not hex");
			return -1;
		}
		b->recs[i] = (uint8_t)x;
	}
	if (n != (size_t)b->count * TSP_LOG_REC) {	/* the encoder's to refuse */
		free(b->recs);
		b->recs = NULL;
	}
	return 0;
}

static int log_in(json_t *o, struct tsp_msg *m, char *err, size_t len)
{
	switch (m->type) {
	case TSP_LOG_OPEN:
		return log_open_in(o, m, err, len);
	case TSP_LOG_ACK:
		return GET(o, "log_id", m->u.lack.log_id) ||
			GET(o, "udp_port", m->u.lack.udp_port) ? -1 : 0;
	case TSP_LOG_BATCH:
		return batch_in(o, m, err, len);
	case TSP_LOG_CLOSE:
		return GET(o, "records", m->u.lclose.records) ||
			GET(o, "batches", m->u.lclose.batches) ||
			GET(o, "not_sent", m->u.lclose.not_sent) ||
			GET(o, "ring_drops", m->u.lclose.ring_drops) ||
			GET(o, "end_ns", m->u.lclose.end_ns) ? -1 : 0;
	case TSP_LOG_DONE:
		return GET(o, "records", m->u.ldone.records) ||
			GET(o, "lost", m->u.ldone.lost) ||
			GET(o, "batches_lost", m->u.ldone.batches_lost) ||
			GET(o, "late", m->u.ldone.late) ||
			get_text(o, "file", &m->u.ldone.file, err, len) ?
			-1 : 0;
	}
	return 0;
}

/* hex into a malloc'd buffer: its length, or -1 */
static long hex_in(json_t *o, const char *key, uint8_t **out, char *err,
		   size_t len)
{
	const char *s = json_string_value(json_object_get(o, key));
	unsigned int x;
	size_t i, n;

	if (!s || strlen(s) % 2) {
		snprintf(err, len, "field %s: not hex", key);
		return -1;
	}
	n = strlen(s) / 2;
	*out = malloc(n ? n : 1);
	if (!*out)
		return -1;
	for (i = 0; i < n; i++) {
		if (sscanf(s + 2 * i, "%2x", &x) != 1) {
			snprintf(err, len, "field %s: not hex", key);
			return -1;
		}
		(*out)[i] = (uint8_t)x;
	}
	return (long)n;
}

static int progress_in(json_t *o, struct tsp_msg *m, char *err, size_t len)
{
	struct tsp_job_progress *p = &m->u.prog;
	json_t *rows = json_object_get(o, "rows"), *r;
	size_t i;

	if (GET(o, "run_id", p->run_id) || GET(o, "elapsed_ns", p->elapsed_ns))
		return -1;
	if (!json_is_array(rows)) {
		snprintf(err, len, "field rows: not an array");
		return -1;
	}
	p->count = (uint16_t)json_array_size(rows);
	p->rows = calloc(p->count ? p->count : 1, sizeof(*p->rows));
	if (!p->rows)
		return -1;
	json_array_foreach(rows, i, r)
		if (GET(r, "tgid", p->rows[i].tgid) ||
		    GET(r, "state", p->rows[i].state) ||
		    GET(r, "sent", p->rows[i].sent) ||
		    GET(r, "bytes", p->rows[i].bytes) ||
		    GET(r, "late_p99_ns", p->rows[i].late_p99_ns))
			return -1;
	return 0;
}

static int job_in(json_t *o, struct tsp_msg *m, char *err, size_t len)
{
	struct tsp_job_offer *of = &m->u.offer;
	const char *host;
	long n;

	switch (m->type) {
	case TSP_JOB_OFFER:
		host = json_string_value(json_object_get(o, "host"));
		if (GET(o, "run_id", of->run_id) ||
		    GET(o, "idf_len", of->idf_len) ||
		    get_text(o, "file", &of->file, err, len))
			return -1;
		if (!host || strlen(host) > TSP_LOG_NAME_MAX) {
			snprintf(err, len, "field host: not a string of up to %d bytes",
				 TSP_LOG_NAME_MAX);
			return -1;
		}
		of->host_len = (uint16_t)strlen(host);
		memcpy(of->host, host, of->host_len + 1);
		return 0;
	case TSP_JOB_DATA:
		if (GET(o, "kind", m->u.jdata.kind) ||
		    GET(o, "piece_offset", m->u.jdata.offset))
			return -1;
		n = hex_in(o, "data", &m->u.jdata.bytes, err, len);
		m->u.jdata.len = (uint16_t)(n > 0xffff ? 0xffff : n);
		return n < 0 ? -1 : 0;
	case TSP_JOB_READY:
		return GET(o, "run_id", m->u.ready.run_id) ||
			GET(o, "tgs", m->u.ready.tgs) ? -1 : 0;
	case TSP_JOB_START:
		return GET(o, "run_id", m->u.jstart.run_id) ||
			GET(o, "start_ns", m->u.jstart.start_ns) ? -1 : 0;
	case TSP_JOB_PROGRESS:
		return progress_in(o, m, err, len);
	case TSP_JOB_END:
		return GET(o, "run_id", m->u.jend.run_id) ||
			GET(o, "status", m->u.jend.status) ||
			GET(o, "flags", m->u.jend.flags) ||
			GET(o, "summary_len", m->u.jend.summary_len) ||
			get_text(o, "why", &m->u.jend.why, err, len) ? -1 : 0;
	default:
		return GET(o, "run_id", m->u.drop.run_id) ||
			get_text(o, "why", &m->u.drop.why, err, len) ? -1 : 0;
	}
}

static int mtg_in(json_t *o, struct tsp_msg *m, char *err, size_t len)
{
	switch (m->type) {
	case TSP_HELLO:
		return GET(o, "major", m->u.hello.major) ||
			GET(o, "minor", m->u.hello.minor) ? -1 : 0;
	case TSP_CHALLENGE:
		return get_hex(o, "nonce", m->u.challenge.nonce,
			       TSP_NONCE_LEN, true, err, len) ||
			GET(o, "lifetime_ms", m->u.challenge.lifetime_ms) ?
			-1 : 0;
	case TSP_AUTH:
		return get_hex(o, "nonce", m->u.auth.nonce, TSP_NONCE_LEN,
			       true, err, len) ||
			get_hex(o, "mac", m->u.auth.mac, TSP_MAC_LEN, true,
				err, len) ? -1 : 0;
	case TSP_AUTH_OK:
		return get_hex(o, "mac", m->u.auth_ok, TSP_MAC_LEN, true, err,
			       len);
	case TSP_FLOW_REQ:
		return req_in(o, m, err, len);
	case TSP_FLOW_ACK:
		return GET(o, "code", m->u.ack.code) ||
			GET(o, "port", m->u.ack.port) ||
			get_text(o, "reason", &m->u.ack.reason, err, len) ?
			-1 : 0;
	case TSP_RESULT:
		return result_in(o, m, err, len);
	case TSP_START:
		return GET(o, "run_id", m->u.start.run_id) ||
			GET(o, "start_ns", m->u.start.start_ns) ||
			get_i(o, "offset_ns", &m->u.start.offset_ns, err, len) ||
			GET(o, "uncertainty_ns", m->u.start.uncertainty_ns) ?
			-1 : 0;
	case TSP_TIME_RESP:
		return GET(o, "t1", m->u.time.t1) ||
			GET(o, "t2", m->u.time.t2) ||
			GET(o, "t3", m->u.time.t3) ? -1 : 0;
	case TSP_TIME_REQ:
		return GET(o, "t1", m->u.time.t1);
	case TSP_ERROR:
		return GET(o, "code", m->u.error.code) ||
			GET(o, "about", m->u.error.about) ||
			get_text(o, "text", &m->u.error.text, err, len) ?
			-1 : 0;
	}
	if (m->type >= TSP_JOB_OFFER)
		return job_in(o, m, err, len);
	return log_in(o, m, err, len);
}

int msg_from_json(json_t *o, struct tsp_msg *m, char *err, size_t len)
{
	memset(m, 0, sizeof(*m));
	if (GET(o, "type", m->type))
		return -1;
	if (has_flow_id(m->type) && GET(o, "flow_id", m->flow_id))
		return -1;
	switch (m->type) {
	case TSP_SEND_FLOW:
		return flow_in(o, m, err, len);
	case TSP_ACK_SEND_FLOW:
		m->passive = json_is_true(json_object_get(o, "passive"));
		return m->passive ? 0 : GET(o, "port", m->port);
	case TSP_SEND_FLOW_LOG:
		return GET(o, "family", m->u.log.family) ||
			get_addr(o, "addr", m->u.log.addr,
				 m->u.log.family != TSP_AF_INET6, err, len) ||
			GET(o, "port", m->u.log.port) ||
			GET(o, "log_proto", m->u.log.proto) ||
			get_name(o, "log_name", m->u.log.name,
				 TSP_LOG_NAME_LEN, err, len) ? -1 : 0;
	case TSP_SEND_NAME_LOG:
		return get_name(o, "log_name", m->u.log_name,
				TSP_LOG_NAME_LEN, err, len);
	default:
		return mtg_in(o, m, err, len);
	}
}
