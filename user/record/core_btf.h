/* SPDX-License-Identifier: MIT */
/* core_btf.h: which kernel BTF libbpf relocates the BPF object's CO-RE
 * field reads against: the minimal BTF embedded at build time when the
 * running kernel is the one it was cut from, else the kernel's own. */
#ifndef SLEDTRACE_RECORD_CORE_BTF_H
#define SLEDTRACE_RECORD_CORE_BTF_H

struct core_btf;

/* Never fails for want of an embedded BTF: then path() is NULL. */
int core_btf__new(struct core_btf **out);
/* For bpf_object_open_opts.btf_custom_path: valid until free; NULL means
 * libbpf's default, the running kernel's full BTF. */
const char *core_btf__path(const struct core_btf *cb);
/* One phrase for -v: which BTF, and why. */
const char *core_btf__describe(const struct core_btf *cb);
void core_btf__free(struct core_btf *cb);

#endif
