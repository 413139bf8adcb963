/* placeholder */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
char LICENSE[] SEC("license") = "Dual BSD/GPL";
SEC("uprobe") int on_entry(void *ctx) { return 0; }
