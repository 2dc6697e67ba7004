/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the loaders of ebpf/'s programs (probe.c, reflect.c) share: their
 * pins in bpffs, named after a device and its namespace, per-CPU counters
 * read from a pinned map, and jobs run in a device's namespace.
 */
#ifndef MTGCTL_BPF_PIN_H
#define MTGCTL_BPF_PIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BPFFS		"/sys/fs/bpf"
#define BPF_PIN_ROOT	BPFFS "/mtg"

/* libbpf's warnings (the verifier's log among them) as mtgctl's. */
void bpf_say_init(void);

/*
 * DEV[@NETNS] into out, with '.' and '%' written %2e and %25 (bpffs
 * refuses dots in names); the end of what was written.
 */
char *pin_devname(char *out, const char *dev, const char *netns);
/*
 * s[0..len) (DEV[@NETNS], encoded) back into dev and netns (IDF_DEVNAME_MAX
 * + 1, IDF_NETNS_MAX + 1 bytes); -1 if it is not one.
 */
int pin_devname_parse(const char *s, size_t len, char *dev, char *netns);

/* bpffs at BPFFS (mounted if it is not, as tc and bpftool do), dir made. */
int pin_dir_ready(const char *dir);
/* Remove folder/files[i] and folder; what cannot be removed is said. */
int pin_remove(const char *folder, const char *const *files, int n);
/* The pinned program's id; 0 if there is none (reported unless quiet). */
uint32_t pin_prog_id(const char *path, bool quiet);
/*
 * Pin prog as folder/files[0] and maps[i] as folder/files[i + 1] (i < n);
 * 0, or -errno (reported with what: "probe", "reflect").
 */
struct bpf_program;
struct bpf_map;
int pin_all(const char *what, const char *folder, struct bpf_program *prog,
	    struct bpf_map *const *maps, const char *const *files, int n);
/* Entry 0 of the pinned array at path (a .rodata: the config) into cfg. */
int pin_read_config(const char *path, void *cfg);
/* Sum entries 0..n-1 of the pinned per-CPU array at path into c; -errno. */
int pin_read_percpu(const char *path, uint64_t *c, uint32_t n);

/*
 * fn(where, arg) in namespace netns ("": ours). A namespace that does not
 * exist is *absent and 0 if quiet, else an error (reported).
 */
int in_named_netns(const char *netns, bool quiet, bool *absent,
		   int (*fn)(const char *where, void *arg), void *arg);

#endif /* MTGCTL_BPF_PIN_H */
