// SPDX-License-Identifier: GPL-2.0-or-later
/* A keyword's arguments: lengths, rates, times, endpoints, names, choices. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "idf/idf.h"
#include "idf/parser.h"
#include "idf/units.h"

int arg_uint(struct parser *p, const struct tok *t, uint64_t min,
	     uint64_t max, const char *what, uint64_t *v)
{
	if (parse_uint(t->s, max, v) || *v < min)
		return expected(p, t, what, negative(t->s));
	return 0;
}

int arg_time(struct parser *p, const struct tok *t, int bare_exp,
	     const char *what, uint64_t *ns)
{
	const char *why;

	if (idf_parse_time(t->s, bare_exp, ns, &why))
		return expected(p, t, what, why);
	return 0;
}

int arg_len(struct parser *p, const struct tok *t, uint32_t *len)
{
	uint64_t v;

	if (!parse_uint(t->s, IDF_LEN_MAX, &v)) {
		*len = (uint32_t)v;
		return 0;
	}
	/* a number above the largest, or with more digits than a uint64_t */
	if (!parse_uint(t->s, UINT64_MAX, &v) ||
	    !t->s[strspn(t->s, "0123456789")]) {
		error_at(p->f, p->line, t->col,
			 "'%s' %s is above the largest frame, %u bytes (%s)",
			 kw(p), t->s, IDF_LEN_MAX, WHY_LEN_MAX);
		return -1;
	}
	return expected(p, t, WHAT_LEN, negative(t->s));
}

int arg_thro(struct parser *p, const struct tok *t, uint64_t *v)
{
	const char *why = NULL;

	if (idf_parse_count(t->s, v, &why) || !*v)
		return expected(p, t, WHAT_THRO, why);
	return 0;
}

int arg_byte(struct parser *p, const struct tok *t, uint8_t *b)
{
	uint64_t v;

	if (arg_uint(p, t, 0, 255, WHAT_BYTE, &v))
		return -1;
	*b = (uint8_t)v;
	return 0;
}

/* ADDR[:PORT]: 192.0.2.1, 192.0.2.1:5000, [2001:db8::1]:5000, :5000 */
const char *idf_parse_endpoint(const char *s, bool need_port,
			       struct idf_addr *a)
{
	char buf[INET6_ADDRSTRLEN + 8];
	const char *port = NULL;
	char *host = buf, *c;
	uint64_t v;

	memset(a, 0, sizeof(*a));
	if (strlen(s) >= sizeof(buf))
		return "";
	strcpy(buf, s);
	if (buf[0] == '[') {
		c = strchr(buf, ']');
		if (!c)
			return "no ']'";
		*c = '\0';
		host = buf + 1;
		if (c[1] == ':')
			port = c + 2;
		else if (c[1])
			return "";
		if (inet_pton(AF_INET6, host, a->addr) != 1)
			return "not an IPv6 address";
		a->family = AF_INET6;
	} else if (strchr(buf, ':') != strrchr(buf, ':')) {
		if (need_port)
			return "an IPv6 address with a port goes in brackets";
		if (inet_pton(AF_INET6, buf, a->addr) != 1)
			return "not an IPv6 address";
		a->family = AF_INET6;
	} else {
		c = strchr(buf, ':');
		if (c) {
			*c = '\0';
			port = c + 1;
		}
		if (*host) {
			if (inet_pton(AF_INET, host, a->addr) != 1)
				return "not an IPv4 address";
			a->family = AF_INET;
		} else if (need_port) {
			return "no address";
		}
	}
	if (!port && need_port)
		return "no port";
	if (port) {
		if (parse_uint(port, 65535, &v) || !v)
			return "port must be 1..65535";
		a->port = (uint16_t)v;
	}
	return NULL;
}

int arg_endpoint(struct parser *p, const struct tok *t, bool need_port,
		 struct idf_addr *a)
{
	const char *what = need_port ?
		"ADDR:PORT (IPv6 in brackets: [2001:db8::1]:5000)" :
		"ADDR[:PORT] (IPv6 in brackets: [2001:db8::1]:5000)";
	const char *why = idf_parse_endpoint(t->s, need_port, a);

	if (!why)
		return 0;
	return expected(p, t, what, *why ? why : NULL);
}

/* A name for the kernel: no '/', not "." or "..", not too long. */
int arg_name(struct parser *p, const struct tok *t, size_t max,
	     const char *reject, char *out, const char *what)
{
	if (strlen(t->s) > max || strpbrk(t->s, reject) ||
	    !strcmp(t->s, ".") || !strcmp(t->s, ".."))
		return expected(p, t, what, NULL);
	strcpy(out, t->s);
	return 0;
}

const char *idf_parse_listen(const char *s, struct idf_listen *l)
{
	const char *at = strchr(s, '@');
	size_t dev_len = at ? (size_t)(at - s) : strlen(s);

	memset(l, 0, sizeof(*l));
	if (!dev_len || dev_len > IDF_DEVNAME_MAX || memchr(s, '/', dev_len) ||
	    memchr(s, ':', dev_len))
		return "an interface name (at most 15 bytes, no '/' or ':')";
	memcpy(l->dev, s, dev_len);
	if (!at)
		return NULL;
	at++;
	if (!*at || strlen(at) > IDF_NETNS_MAX || strpbrk(at, "/@") ||
	    !strcmp(at, ".") || !strcmp(at, ".."))
		return "a namespace name after '@' (a file in /run/netns)";
	strcpy(l->netns, at);
	return NULL;
}

/* One of two words: 0 for the first, 1 for the second. */
int parse_choice(struct parser *p, const char *a, const char *b,
		 int *out)
{
	char what[64];
	struct tok *t;

	snprintf(what, sizeof(what), "'%s' or '%s'", a, b);
	t = need(p, what);
	if (!t)
		return -1;
	if (!strcmp(t->s, a))
		*out = 0;
	else if (!strcmp(t->s, b))
		*out = 1;
	else
		return expected(p, t, what, NULL);
	return 0;
}

int model_lookup(const char *s)
{
	int i;

	for (i = 0; i < IDF_DIST_COUNT; i++)
		if (!strcmp(s, models[i].name) ||
		    (models[i].alias && !strcmp(s, models[i].alias)))
			return i;
	return -1;
}

/* What the errors call the i-th parameter of the model m. */
void param_desc(const struct model *m, unsigned int i, char *desc,
		size_t size)
{
	static const char *const what[] = {
		[P_TIME] = "a time (ms, or a unit: ns, us, ms, s)",
		[P_TIME_POS] = "a time above 0 (ms, or a unit: ns, us, ms, s)",
		[P_POS] = "a number above 0",
		[P_RATIO] = "a number, 1 or more",
		[P_HURST] = "a number between 0 and 1 (exclusive)",
		[P_BYTES] = "a number of bytes, 0 or more",
		[P_BYTES_POS] = "a number of bytes above 0",
	};

	snprintf(desc, size, "%s's %s, %s", m->name, m->pname[i],
		 what[m->kind[i]]);
}

/* One parameter of the model m into *v. */
int arg_param(struct parser *p, const struct tok *t,
	      const struct model *m, unsigned int i, double *v)
{
	enum param_kind k = m->kind[i];
	char desc[128];
	const char *why = NULL;
	uint64_t ns;
	char *end;
	bool ok;

	param_desc(m, i, desc, sizeof(desc));
	if (k == P_TIME || k == P_TIME_POS) {
		ok = !idf_parse_time(t->s, 6, &ns, &why) &&
			(k == P_TIME || ns > 0);
		*v = (double)ns;
	} else {
		errno = 0;
		*v = strtod(t->s, &end);
		ok = !errno && !*end && end != t->s && isfinite(*v) &&
			(isdigit((unsigned char)t->s[0]) || t->s[0] == '.');
		ok = ok && (k == P_POS || k == P_BYTES_POS ? *v > 0 :
			    k == P_BYTES ? *v >= 0 : k == P_RATIO ? *v >= 1 :
			    *v > 0 && *v < 1);
	}
	return ok ? 0 : expected(p, t, desc, why ? why : negative(t->s));
}

/* FILE, relative to the IDF's directory unless absolute. */
int dist_path(struct parser *p, const struct tok *t, char *out)
{
	const char *name = p->f->name ? p->f->name : "";
	const char *slash = strrchr(name, '/');
	int dir = slash && t->s[0] != '/' ? (int)(slash - name) + 1 : 0;

	if ((size_t)dir + strlen(t->s) > IDF_PATH_MAX)
		return expected(p, t, "a file name", "too long");
	snprintf(out, IDF_PATH_MAX + 1, "%.*s%s", dir, name, t->s);
	return 0;
}
