// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pins in bpffs and namespaces for the loaders of ebpf/'s programs
 * (bpf/pin.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/pin.h"
#include "idf/idf.h"
#include "module/iface.h"
#include "util/log.h"

static int libbpf_say(enum libbpf_print_level level, const char *fmt,
		      va_list ap)
{
	if (level != LIBBPF_WARN)
		return 0;
	fprintf(stderr, "mtgctl: libbpf: ");
	return vfprintf(stderr, fmt, ap);
}

void bpf_say_init(void)
{
	libbpf_set_print(libbpf_say);
}

static char *encode(char *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '.' || *s == '%')
			out += sprintf(out, "%%%02x", (unsigned char)*s);
		else
			*out++ = *s;
	}
	*out = '\0';
	return out;
}

char *pin_devname(char *out, const char *dev, const char *netns)
{
	out = encode(out, dev);
	if (netns[0]) {
		*out++ = '@';
		out = encode(out, netns);
	}
	return out;
}

/* Decode s[0..len) into out (size bytes); -1 if it is not an encoding. */
static int decode(const char *s, size_t len, char *out, size_t size)
{
	size_t i, k = 0;
	unsigned int c;

	for (i = 0; i < len; i++) {
		if (k + 1 >= size)
			return -1;
		if (s[i] != '%') {
			out[k++] = s[i];
			continue;
		}
		if (i + 2 >= len || sscanf(s + i + 1, "%2x", &c) != 1 ||
		    (c != '.' && c != '%'))
			return -1;
		out[k++] = (char)c;
		i += 2;
	}
	out[k] = '\0';
	return 0;
}

int pin_devname_parse(const char *s, size_t len, char *dev, char *netns)
{
	const char *at = memchr(s, '@', len);
	size_t devlen = at ? (size_t)(at - s) : len;

	netns[0] = '\0';
	if (decode(s, devlen, dev, IDF_DEVNAME_MAX + 1))
		return -1;
	if (at && decode(at + 1, len - devlen - 1, netns, IDF_NETNS_MAX + 1))
		return -1;
	return dev[0] ? 0 : -1;
}

int pin_dir_ready(const char *dir)
{
	const char *dirs[] = { BPF_PIN_ROOT, dir };
	struct statfs st;
	size_t i;

	if (statfs(BPFFS, &st)) {
		pr_err("cannot find %s: %s\n", BPFFS, strerror(errno));
		return -errno;
	}
	if (st.f_type != BPF_FS_MAGIC &&
	    mount("bpf", BPFFS, "bpf", 0, "mode=0700")) {
		pr_err("%s is not a bpffs and cannot be made one (mount -t bpf bpf %s): %s\n",
		       BPFFS, BPFFS, strerror(errno));
		return -errno;
	}
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (mkdir(dirs[i], 0700) && errno != EEXIST) {
			pr_err("cannot make %s: %s\n", dirs[i], strerror(errno));
			return -errno;
		}
	}
	return 0;
}

int pin_remove(const char *folder, const char *const *files, int n)
{
	char path[PATH_MAX];
	int i, err = 0;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", folder, files[i]);
		if (unlink(path) && errno != ENOENT) {
			err = -errno;
			pr_err("cannot remove %s: %s\n", path, strerror(errno));
		}
	}
	if (rmdir(folder) && errno != ENOENT) {
		err = -errno;
		pr_err("cannot remove %s: %s\n", folder, strerror(errno));
	}
	return err;
}

uint32_t pin_prog_id(const char *path, bool quiet)
{
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info);
	int fd;

	fd = bpf_obj_get(path);
	if (fd < 0) {
		if (!quiet)
			pr_warn("cannot open %s: %s\n", path, strerror(errno));
		return 0;
	}
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		info.id = 0;
	close(fd);
	return info.id;
}

int pin_all(const char *what, const char *folder, struct bpf_program *prog,
	    struct bpf_map *const *maps, const char *const *files, int n)
{
	char path[PATH_MAX];
	int i, err;

	snprintf(path, sizeof(path), "%s/%s", folder, files[0]);
	err = bpf_program__pin(prog, path);
	for (i = 0; !err && i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", folder, files[i + 1]);
		err = bpf_map__pin(maps[i], path);
	}
	if (err)
		pr_err("%s: cannot pin %s: %s\n", what, path, strerror(-err));
	return err;
}

int pin_read_config(const char *path, void *cfg)
{
	uint32_t zero = 0;
	int fd, err = 0;

	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	if (bpf_map_lookup_elem(fd, &zero, cfg))
		err = -errno;
	close(fd);
	return err;
}

int pin_read_percpu(const char *path, uint64_t *c, uint32_t n)
{
	int ncpu = libbpf_num_possible_cpus(), fd, err = 0;
	uint64_t *v;
	uint32_t k;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	fd = bpf_obj_get(path);
	if (fd < 0)
		err = -errno;
	for (k = 0; !err && k < n; k++) {
		int cpu;

		if (bpf_map_lookup_elem(fd, &k, v)) {
			err = -errno;
			break;
		}
		for (c[k] = 0, cpu = 0; cpu < ncpu; cpu++)
			c[k] += v[cpu];
	}
	if (fd >= 0)
		close(fd);
	free(v);
	return err;
}

int in_named_netns(const char *netns, bool quiet, bool *absent,
		   int (*fn)(const char *where, void *arg), void *arg)
{
	char path[PATH_MAX];
	int fd, err;

	*absent = false;
	if (!netns[0])
		return in_netns(-1, "", fn, arg);
	if (quiet) {
		snprintf(path, sizeof(path), "%s/%s", NETNS_DIR, netns);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT) {
			*absent = true;
			return 0;
		}
		if (fd < 0) {
			pr_err("cannot open namespace %s: %s\n", path,
			       strerror(errno));
			return -errno;
		}
	} else {
		fd = netns_open(netns);
		if (fd < 0)
			return fd;
	}
	err = in_netns(fd, netns, fn, arg);
	close(fd);
	return err;
}
