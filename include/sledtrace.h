/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* sledtrace.h: the contract between the BPF programs (bpf/) and the
 * collector (user/).  It holds only what both sides must agree on: the
 * event record pushed through the ring buffer and the encoding of the
 * per-probe cookie.  Nothing else belongs here. */
#ifndef SLEDTRACE_H
#define SLEDTRACE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* What fired.  ENTRY/EXIT/TAIL are XRay sled kinds probed with uprobes;
 * RET is a uretprobe return (stack pointer is one slot above the entry's). */
#define SLED_KIND_ENTRY 0
#define SLED_KIND_EXIT 1
#define SLED_KIND_TAIL 2
#define SLED_KIND_RET 3
/* A thread of the traced process exited (raw_tp/sched_process_exit): its
 * open frames end now, and its tid may be reused by a new thread. */
/* sp is 1 when it was the process's last thread. */
#define SLED_KIND_THREAD_EXIT 4
/* A traced process mapped a file executable that the collector has not
 * probed yet (mmap's syscall exit: the loader, dlopen; exec; a fork whose
 * parent had such a mapping in flight).  The thread was sent SIGSTOP; the
 * collector attaches whatever sleds the file has and resumes the process
 * with SIGCONT.  sp is the mapping's address (0 at exec and fork); the
 * cookie's function field is the hold's sequence number in its process
 * (the `hold_seq` map), which tells the collector whether a resume it
 * already made covered this hold (docs/DESIGN.md, "Coverage"). */
#define SLED_KIND_MAPPED 5
/* A traced process forked (fork, vfork, clone without CLONE_THREAD) and
 * the child is traced too: tgid/tid are the child's, sp is the forking
 * thread (tgid << 32 | tid), whose open frames the child starts with. */
#define SLED_KIND_FORK 6
/* A traced thread exec'd: whatever it had open ended. */
#define SLED_KIND_EXEC 7

/* Identity: a thread's name (comm) and, at exec, its process's command
 * line, captured in the kernel when they change, so that threads and
 * processes gone before the collector reads /proc keep their own.  The
 * record is a struct sled_ident (larger than sled_event, which it begins
 * with): sent at thread creation (fork/clone, the child's comm), at rename
 * (task_rename: prctl(PR_SET_NAME), pthread_setname_np, exec) and at exec
 * (with the new argv).  sp holds SLED_IDENT_* flags. */
#define SLED_KIND_IDENT 8

/* Cookie: [63..56] kind, [55..32] object index, [31..0] function id.
 * Function ids are the XRay ids (1-based) of the object. */
#define SLED_COOKIE(kind, obj, fn) \
	(((__u64)(kind) << 56) | (((__u64)(obj)&0xffffff) << 32) | (__u64)(__u32)(fn))
#define SLED_COOKIE_KIND(c) ((unsigned)((c) >> 56))
#define SLED_COOKIE_OBJ(c) ((unsigned)(((c) >> 32) & 0xffffff))
#define SLED_COOKIE_FN(c) ((unsigned)((c)&0xffffffffu))

/* One event: 32 bytes.  sp is the user stack pointer when the probe hit;
 * at ENTRY/EXIT/TAIL it addresses the frame's return-address slot, at RET
 * it is that slot + 8.  The collector matches exits to entries by it, so
 * frames whose exit never comes (longjmp, exceptions, uretprobe depth cap)
 * are closed exactly when a later event proves they are gone. */
struct sled_event {
	__u64 ts; /* bpf_ktime_get_boot_ns() */
	__u32 tgid;
	__u32 tid;
	__u64 cookie; /* SLED_COOKIE() set at attach time */
	__u64 sp;
};

/* The layout both sides compile: the BPF program writes it, the collector
 * reads it, and nothing else checks that they agree. */
_Static_assert(sizeof(struct sled_event) == 32, "sled_event is 32 bytes");
_Static_assert(__builtin_offsetof(struct sled_event, ts) == 0, "sled_event.ts at 0");
_Static_assert(__builtin_offsetof(struct sled_event, tgid) == 8, "sled_event.tgid at 8");
_Static_assert(__builtin_offsetof(struct sled_event, tid) == 12, "sled_event.tid at 12");
_Static_assert(__builtin_offsetof(struct sled_event, cookie) == 16, "sled_event.cookie at 16");
_Static_assert(__builtin_offsetof(struct sled_event, sp) == 24, "sled_event.sp at 24");

/* struct sled_ident.e.sp flags. */
#define SLED_IDENT_ARGS 1      /* args holds the process's argv (exec) */
#define SLED_IDENT_TRUNCATED 2 /* argv was longer than SLED_ARGS_MAX */

#define SLED_COMM_LEN 16  /* TASK_COMM_LEN */
#define SLED_ARGS_MAX 512 /* power of two: the BPF side masks with it */

/* An identity record: the event header, then the thread's comm and, with
 * SLED_IDENT_ARGS, args_len bytes of NUL-separated argv. */
struct sled_ident {
	struct sled_event e;
	char comm[SLED_COMM_LEN];
	__u32 args_len;
	__u32 pad;
	char args[SLED_ARGS_MAX];
};

_Static_assert(__builtin_offsetof(struct sled_ident, comm) == 32, "sled_ident.comm at 32");
_Static_assert(__builtin_offsetof(struct sled_ident, args_len) == 48, "sled_ident.args_len at 48");
_Static_assert(__builtin_offsetof(struct sled_ident, args) == 56, "sled_ident.args at 56");
_Static_assert(sizeof(struct sled_ident) == 56 + SLED_ARGS_MAX, "sled_ident size");

/* Indexes of the per-CPU counters in the `counters` map. */
#define SLED_CTR_DROPS 0	/* bpf_ringbuf_reserve failed */
#define SLED_CTR_UNHELD 1	/* a new executable mapping could not be reported */
#define SLED_CTR_LOST_CONTROL 2 /* a fork or exec notice could not be queued */
#define SLED_CTR_LOST_IDENT 3	/* an identity record could not be queued */
#define SLED_CTR_UNTRACED 4	/* a child could not join the traced set */
#define SLED_CTR_GAPS_LOST 5	/* a coverage gap could not be noted (map full) */
#define SLED_CTR_MAX 6

/* Why a traced process may have run code of a file before its probes were
 * live: the key of the `gaps` map is one (process, file, reason). */
#define SLED_GAP_UNHELD 1 /* the hold could not be taken (ring or map full) */
#define SLED_GAP_FORK \
	2		     /* forked while its parent's new mapping was unprobed,
			     * on a kernel that cannot stop the child */
#define SLED_GAP_CONTINUED 3 /* a held process was resumed by another SIGCONT */

struct sled_gap_key {
	__u32 tgid;
	__u32 reason;
	__u64 dev; /* as struct sled_file_id; 0 for SLED_GAP_CONTINUED */
	__u64 ino;
};

/* Key of the `known_files` map: a file whose probes are live (or that has
 * none to place), as the kernel names it (super_block s_dev, MKDEV
 * encoding, and inode number). */
struct sled_file_id {
	__u64 dev;
	__u64 ino;
};

#endif
