// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctl/tsp's wire format, key files and handshake, driven from the tests
 * (tests/host/test_tsp_wire.py): no re-implementation, only the library.
 *
 *   tsp_tool decode [--from sender|receiver] [--passive] [--split N] HEX|-
 *	the bytes through the stream decoder, N at a time: a JSON line per
 *	message; the error's JSON line and exit 1 if they are wrong
 *   tsp_tool encode [--from sender|receiver]
 *	a message's JSON (decode's) a line on stdin: its bytes in hex
 *   tsp_tool key FILE
 *   tsp_tool auth SENDER_KEY RECEIVER_KEY STEP...
 *	both ends of a handshake, every message through the encoder and
 *	decoder; steps: challenge@MS, answer, verify@MS, confirm (each end
 *	acting on the other's last message), replay-auth and
 *	replay-challenge (the first such message sent again), tamper (the
 *	receiver's last message's last byte flipped). A JSON line a step.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsp/auth.h"
#include "tsp_json.h"

static int usage(void)
{
	fprintf(stderr, "usage: tsp_tool decode [--from sender|receiver] "
		"[--passive] [--split N] HEX|-\n"
		"       tsp_tool encode [--from sender|receiver]\n"
		"       tsp_tool key FILE\n"
		"       tsp_tool auth SENDER_KEY RECEIVER_KEY STEP...\n");
	return 2;
}

static size_t unhex(const char *s, uint8_t *out, size_t cap)
{
	unsigned int b;
	size_t n = 0;

	for (; *s; s++) {
		if (*s == ' ' || *s == '\n' || *s == '\t')
			continue;
		if (n == cap || sscanf(s, "%2x", &b) != 1 || !s[1]) {
			fprintf(stderr, "tsp_tool: bad hex input\n");
			exit(2);
		}
		out[n++] = (uint8_t)b;
		s++;
	}
	return n;
}

static char *slurp(FILE *f)
{
	size_t n = 0, cap = 4096;
	char *s = malloc(cap);

	while (s && !feof(f)) {
		if (n + 1024 > cap)
			s = realloc(s, cap *= 2);
		if (s)
			n += fread(s + n, 1, cap - n - 1, f);
	}
	if (!s)
		exit(2);
	s[n] = '\0';
	return s;
}

static int decode(struct tsp_cfg *c, size_t split, const char *hex)
{
	size_t n, at = 0, k, piece, used;
	struct tsp_stream s;
	struct tsp_msg m;
	struct tsp_err e;
	enum tsp_res res;
	uint64_t start = 0;
	struct jw j;
	char *text = NULL;
	uint8_t *buf;
	int ret = 0;

	if (!strcmp(hex, "-"))
		hex = text = slurp(stdin);
	buf = malloc(strlen(hex) / 2 + 1);
	if (!buf)
		return 2;
	n = unhex(hex, buf, strlen(hex) / 2 + 1);
	jw_init_compact(&j, stdout);
	tsp_stream_init(&s, c);
	while (at < n) {
		piece = split && split < n - at ? split : n - at;
		for (k = 0; k < piece; k += used) {
			start = s.len ? start : s.pos;
			used = tsp_stream_feed(&s, buf + at + k, piece - k, &m,
					       &res, &e);
			if (res == TSP_BAD)
				goto bad;
			if (res == TSP_MSG) {
				msg_json(&j, &m, start,
					 (size_t)(s.pos - start));
				tsp_msg_free(&m);
			}
		}
		at += piece;
	}
	if (!tsp_stream_end(&s, &e))
		goto out;
bad:
	err_json(&j, &e);
	ret = 1;
out:
	tsp_stream_free(&s);
	free(buf);
	free(text);
	return ret;
}

static int encode(enum tsp_dir from)
{
	static uint8_t out[TSP_MAX_MSG];
	char line[1 << 18], err[256];
	struct tsp_msg m;
	struct tsp_err e;
	json_error_t je;
	struct jw j;
	json_t *o;
	size_t n, i;

	jw_init_compact(&j, stdout);
	while (fgets(line, sizeof(line), stdin)) {
		o = json_loads(line, 0, &je);
		if (!o) {
			fprintf(stderr, "tsp_tool: %s\n", je.text);
			return 2;
		}
		if (msg_from_json(o, &m, err, sizeof(err))) {
			fprintf(stderr, "tsp_tool: %s\n", err);
			return 2;
		}
		json_decref(o);
		n = tsp_encode(&m, from, out, sizeof(out), &e);
		tsp_msg_free(&m);
		if (!n) {
			err_json(&j, &e);
			return 1;
		}
		for (i = 0; i < n; i++)
			printf("%02x", out[i]);
		printf("\n");
	}
	return 0;
}

static int key(const char *path)
{
	struct tsp_key k;
	char err[512];

	struct jw j;
	int r;

	jw_init_compact(&j, stdout);
	r = tsp_key_load(path, &k, err, sizeof(err));
	jw_obj_begin(&j);
	jw_kbool(&j, "ok", !r);
	if (r)
		jw_kstr(&j, "error", err);
	jw_obj_end(&j);
	tsp_key_wipe(&k);
	return r ? 1 : 0;
}

struct wire {
	uint8_t b[TSP_MAX_MSG];
	size_t n;
};

/* m from one end into w, and back out of w as the other end reads it */
static void send_msg(const struct tsp_msg *m, enum tsp_dir from,
		     struct wire *w)
{
	struct tsp_err e;

	w->n = tsp_encode(m, from, w->b, sizeof(w->b), &e);
	if (!w->n) {
		fprintf(stderr, "tsp_tool: encode: %s\n", e.what);
		exit(2);
	}
}

static void recv_msg(const struct wire *w, enum tsp_dir from, uint8_t type,
		     struct tsp_msg *m)
{
	struct tsp_cfg c = { .from = from };
	struct tsp_err e;
	char line[512];
	size_t used;

	if (tsp_decode(&c, w->b, w->n, 0, true, m, &used, &e) != TSP_MSG) {
		tsp_err_str(&e, line, sizeof(line));
		fprintf(stderr, "tsp_tool: decode: %s\n", line);
		exit(2);
	}
	if (m->type != type) {
		fprintf(stderr, "tsp_tool: step expects %s, the wire has %s\n",
			tsp_type_name(type), tsp_type_name(m->type));
		exit(2);
	}
}

static int auth(int argc, char **argv)
{
	struct tsp_hello v = { TSP_VERSION_MAJOR, TSP_VERSION_MINOR };
	static struct wire to_r, to_s, first_auth, first_challenge;
	bool have_auth = false, have_challenge = false;
	struct tsp_handshake snd, rcv;
	struct tsp_key ks, kr;
	struct tsp_msg in, out;
	char err[512], why[256];
	unsigned long long t;
	struct jw j;
	int i, r;

	if (argc < 2)
		return usage();
	if (tsp_key_load(argv[0], &ks, err, sizeof(err)) ||
	    tsp_key_load(argv[1], &kr, err, sizeof(err))) {
		fprintf(stderr, "tsp_tool: %s\n", err);
		return 1;
	}
	tsp_hs_init(&snd, TSP_FROM_SENDER, &ks, &v, &v);
	tsp_hs_init(&rcv, TSP_FROM_RECEIVER, &kr, &v, &v);
	jw_init_compact(&j, stdout);
	for (i = 2; i < argc; i++) {
		why[0] = '\0';
		r = 0;
		if (sscanf(argv[i], "challenge@%llu", &t) == 1) {
			r = tsp_hs_challenge(&rcv, t * 1000000, &out, why,
					     sizeof(why));
			if (!r)
				send_msg(&out, TSP_FROM_RECEIVER, &to_s);
			if (!r && !have_challenge) {
				first_challenge = to_s;
				have_challenge = true;
			}
		} else if (!strcmp(argv[i], "answer")) {
			recv_msg(&to_s, TSP_FROM_RECEIVER, TSP_CHALLENGE, &in);
			r = tsp_hs_answer(&snd, &in, &out, why, sizeof(why));
			if (!r)
				send_msg(&out, TSP_FROM_SENDER, &to_r);
			if (!r && !have_auth) {
				first_auth = to_r;
				have_auth = true;
			}
		} else if (sscanf(argv[i], "verify@%llu", &t) == 1) {
			recv_msg(&to_r, TSP_FROM_SENDER, TSP_AUTH, &in);
			r = tsp_hs_verify(&rcv, t * 1000000, &in, &out, why,
					  sizeof(why));
			if (!r)
				send_msg(&out, TSP_FROM_RECEIVER, &to_s);
		} else if (!strcmp(argv[i], "confirm")) {
			recv_msg(&to_s, TSP_FROM_RECEIVER, TSP_AUTH_OK, &in);
			r = tsp_hs_confirm(&snd, &in, why, sizeof(why));
		} else if (!strcmp(argv[i], "replay-auth") && have_auth) {
			to_r = first_auth;
		} else if (!strcmp(argv[i], "replay-challenge") &&
			   have_challenge) {
			to_s = first_challenge;
		} else if (!strcmp(argv[i], "tamper") && to_s.n) {
			to_s.b[to_s.n - 1] ^= 1;
		} else {
			fprintf(stderr, "tsp_tool: step %s?\n", argv[i]);
			return 2;
		}
		jw_obj_begin(&j);
		jw_kstr(&j, "step", argv[i]);
		jw_kbool(&j, "ok", !r);
		jw_ku64(&j, "code", (uint64_t)r);
		jw_kstr(&j, "code_name", r ? tsp_error_name((uint16_t)r) : NULL);
		jw_kstr(&j, "why", why);
		jw_kbool(&j, "sender_authenticated", snd.authenticated);
		jw_kbool(&j, "receiver_authenticated", rcv.authenticated);
		jw_obj_end(&j);
	}
	tsp_hs_wipe(&snd);
	tsp_hs_wipe(&rcv);
	tsp_key_wipe(&ks);
	tsp_key_wipe(&kr);
	return 0;
}

int main(int argc, char **argv)
{
	struct tsp_cfg c = { .from = TSP_FROM_SENDER };
	size_t split = 0;
	int i;

	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "key"))
		return argc == 3 ? key(argv[2]) : usage();
	if (!strcmp(argv[1], "auth"))
		return auth(argc - 2, argv + 2);
	for (i = 2; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--from") && i + 1 < argc)
			c.from = !strcmp(argv[++i], "receiver") ?
				TSP_FROM_RECEIVER : TSP_FROM_SENDER;
		else if (!strcmp(argv[i], "--passive"))
			c.passive = true;
		else if (!strcmp(argv[i], "--split") && i + 1 < argc)
			split = strtoul(argv[++i], NULL, 10);
		else
			return usage();
	}
	if (!strcmp(argv[1], "decode"))
		return i + 1 == argc ? decode(&c, split, argv[i]) : usage();
	if (!strcmp(argv[1], "encode"))
		return i == argc ? encode(c.from) : usage();
	return usage();
}
