// SPDX-License-Identifier: GPL-2.0-or-later
/* TSP's key files (auth.h): private, 64 hexadecimal digits. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "tsp/auth.h"

#define KEY_HINT "a key is 64 hexadecimal digits (32 bytes) and a " \
	"newline, e.g. from `openssl rand -hex 32`"

static int hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int parse(const char *path, const char *buf, size_t n,
		 struct tsp_key *k, char *err, size_t len)
{
	size_t i;
	int hi, lo;

	for (i = 0; i < 2 * TSP_KEY_LEN && i < n && buf[i] != '\n'; i++)
		if (hex((unsigned char)buf[i]) < 0) {
			snprintf(err, len, "key file %s: byte %zu is not a "
				 "hexadecimal digit: %s", path, i + 1,
				 KEY_HINT);
			return -1;
		}
	if (i < 2 * TSP_KEY_LEN) {
		snprintf(err, len, "key file %s: %zu hexadecimal digits, not "
			 "64: %s", path, i, KEY_HINT);
		return -1;
	}
	if (n > i && (buf[i] != '\n' || n > i + 1)) {
		snprintf(err, len, "key file %s: byte %zu: more than 64 "
			 "hexadecimal digits and a newline: %s", path, i + 1,
			 KEY_HINT);
		return -1;
	}
	for (i = 0; i < TSP_KEY_LEN; i++) {
		hi = hex((unsigned char)buf[2 * i]);
		lo = hex((unsigned char)buf[2 * i + 1]);
		k->k[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int tsp_key_load(const char *path, struct tsp_key *k, char *err, size_t len)
{
	char buf[2 * TSP_KEY_LEN + 8];
	struct stat st;
	size_t n = 0;
	ssize_t r;
	int fd, ret = -1;

	fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, len, "key file %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		snprintf(err, len, "key file %s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, len, "key file %s: not a regular file", path);
		goto out;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(err, len, "key file %s: mode %04o lets group or "
			 "others at it; a key must be private: chmod 600 %s",
			 path, (unsigned int)(st.st_mode & 07777), path);
		goto out;
	}
	if (st.st_uid != geteuid() && st.st_uid) {
		snprintf(err, len, "key file %s: owned by uid %u, neither "
			 "you (uid %u) nor root", path, (unsigned int)st.st_uid,
			 (unsigned int)geteuid());
		goto out;
	}
	while (n < sizeof(buf)) {
		r = read(fd, buf + n, sizeof(buf) - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, len, "key file %s: %s", path,
				 strerror(errno));
			goto out;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	ret = parse(path, buf, n, k, err, len);
out:
	OPENSSL_cleanse(buf, sizeof(buf));
	close(fd);
	return ret;
}

void tsp_key_wipe(struct tsp_key *k)
{
	OPENSSL_cleanse(k, sizeof(*k));
}
