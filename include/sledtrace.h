/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* sledtrace.h: the contract between the BPF programs (bpf/) and the
 * collector (user/).  It holds only what both sides must agree on: the
 * records pushed through the ring buffer, the encoding of the per-probe
 * cookie, the counters and the maps' keys.  Nothing else belongs here.
 *
 * Every record begins with a struct sled_head; its tag's top byte is the
 * record's kind, which says which struct follows and what each field
 * means (one meaning per field).  Call records are the hot path: 32
 * bytes, their tag is the probe's cookie.  Everything else is a notice. */
#ifndef SLEDTRACE_H
#define SLEDTRACE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#include "arch/sledtrace_arch.h" /* SLED_CAP_NREG */

/* ---- kinds ---- */
/* Calls (struct sled_call): ENTRY/EXIT/TAIL are XRay sleds probed with
 * uprobes, RET a uretprobe's return. */
#define SLED_KIND_ENTRY 0
#define SLED_KIND_EXIT 1
#define SLED_KIND_TAIL 2
#define SLED_KIND_RET 3
/* A thread of a traced process exited (struct sled_thread_exit): its open
 * frames end now, and its tid may be reused by a new thread. */
#define SLED_KIND_THREAD_EXIT 4
/* A traced process was stopped at a new executable mapping whose probes
 * are not live yet (struct sled_mapped); the collector probes the file and
 * resumes it (docs/DESIGN.md, "Coverage"). */
#define SLED_KIND_MAPPED 5
/* A traced process forked and the child is traced too (struct sled_fork;
 * the head names the child). */
#define SLED_KIND_FORK 6
/* A traced thread exec'd: whatever it had open ended (struct sled_head). */
#define SLED_KIND_EXEC 7
/* A thread's name and, at exec, its process's command line (struct
 * sled_ident), captured in the kernel when they change: at thread
 * creation, at rename (prctl(PR_SET_NAME), pthread_setname_np, exec) and
 * at exec. */
#define SLED_KIND_IDENT 8
/* A thread of a traced process took a CPU or left one (struct
 * sled_switch): on-CPU time per frame and the thread's states. */
#define SLED_KIND_SWITCH 9
/* A forked child was stopped at its return from fork, before it ran an
 * instruction, because its text may hold calls into a uprobe trampoline
 * it does not have (struct sled_mapped, addr 0): the collector repairs
 * its text and resumes it (user/record/fork_text.c). */
#define SLED_KIND_FORK_HOLD 10
/* A call of a function chosen with record --capture, with the values it
 * was called with or returned (struct sled_capture): ARGS replaces its
 * ENTRY record, RETVAL its EXIT or RET record (the record's `via` says
 * which).  Only those functions' probes run the capture programs: every
 * other call keeps its 32-byte record and its cost. */
#define SLED_KIND_ARGS 11
#define SLED_KIND_RETVAL 12
/* Something a traced thread did made another thread run (struct
 * sled_cause; the head names the thread made to run): it created it, or
 * woke it.  Recorded in the causing thread's context, before the other can
 * run, so its records come after this one (docs/DESIGN.md, "Causes"). */
#define SLED_KIND_CAUSE 13
/* A traced thread spent something record --costs counts (struct
 * sled_cost): an allocation, a free, a system call, a page fault.  Sent
 * in the thread's own context, among its calls, so the collector charges
 * it to the innermost frame open then (docs/DESIGN.md, "Costs"). */
#define SLED_KIND_COST 14
#define SLED_KIND_MAX 15

/* ---- the header and the tag ---- */
/* Cookie of a call probe, set at attach time: [63..56] kind, [55] gate
 * (the function opens a `record --under` gate), [54] on a tail sled: the
 * function's returns are also seen by a uretprobe, which reports a
 * chained return for each of its tail calls, [53..32] object index,
 * [31..0] function id (the object's XRay id, 1-based). */
#define SLED_COOKIE(kind, obj, fn) \
	(((__u64)(kind) << 56) | (((__u64)(obj)&0x3fffff) << 32) | (__u64)(__u32)(fn))
#define SLED_COOKIE_GATE (1ull << 55)
#define SLED_COOKIE_RETPROBED (1ull << 54)
#define SLED_COOKIE_OBJ(c) ((unsigned)(((c) >> 32) & 0x3fffff))
#define SLED_COOKIE_FN(c) ((unsigned)((c)&0xffffffffu))
/* The tag of a notice: its kind alone. */
#define SLED_TAG(kind) ((__u64)(kind) << 56)
#define SLED_TAG_KIND(t) ((unsigned)((t) >> 56))

struct sled_head {
	__u64 ts; /* bpf_ktime_get_boot_ns() */
	__u32 tgid;
	__u32 tid;
	__u64 tag; /* SLED_COOKIE() of a call, SLED_TAG() of a notice */
};

/* ---- records ---- */
/* A probe fired.  slot is the address of the frame's return-address slot
 * (the stack pointer at an entry, exit or tail sled; the BPF side takes
 * the return's own offset out at RET).  The collector matches exits to
 * entries by it, so frames whose exit never comes (longjmp, exceptions,
 * the uretprobe depth cap) are closed exactly when a later event proves
 * them gone. */
struct sled_call {
	struct sled_head h;
	__u64 slot;
};

struct sled_thread_exit {
	struct sled_head h;
	__u32 process_ended; /* 1: it was the process's last thread */
	__u32 pad;
};

struct sled_mapped {
	struct sled_head h; /* the thread that mapped it */
	__u64 addr;	    /* the mapping's address; 0 at exec */
	__u64 hold;	    /* the hold's number (the `hold_seq` counter) */
};

struct sled_fork {
	struct sled_head h; /* the child (tgid == tid) */
	__u32 parent_tgid;  /* the forking thread, whose open frames */
	__u32 parent_tid;   /* the child starts with */
	__u64 parent_sp;    /* its user stack pointer: frames below it have returned */
};

/* What a thread is from a switch on (struct sled_switch.state). */
#define SLED_STATE_RUNNING 0  /* it took a CPU */
#define SLED_STATE_RUNNABLE 1 /* it left one but wants it: preempted, yielded */
#define SLED_STATE_SLEEPING 2 /* it waits for an event (S) */
#define SLED_STATE_BLOCKED 3  /* it waits and signals cannot wake it (D: I/O, locks) */
#define SLED_STATE_STOPPED 4  /* stopped or traced (T, t): a hold, a debugger */
#define SLED_STATE_MAX 5

struct sled_switch {
	struct sled_head h; /* the thread that took or left the CPU */
	__u32 state;	    /* SLED_STATE_* */
	__u32 cpu;	    /* the CPU it took or left */
};

/* What made the head's thread run (struct sled_cause.how).  Only SPAWN
 * and WAKE name a causing thread; the others are wakeups no traced code
 * asked for, reported so that an older cause is not taken for theirs. */
#define SLED_CAUSE_SPAWN 1   /* the causing thread created it (clone of a thread) */
#define SLED_CAUSE_WAKE 2    /* the causing thread woke it (futex, pipe, epoll...) */
#define SLED_CAUSE_IRQ 3     /* an interrupt woke it (a timer, I/O completion) */
#define SLED_CAUSE_OUTSIDE 4 /* a task outside the traced processes woke it */
/* It slept uninterruptibly (D: a page fault's lock, I/O): a wait of the
 * kernel's, not one the program chose; its wakeup changes no cause. */
#define SLED_CAUSE_KERNEL_WAIT 5

struct sled_cause {
	struct sled_head h; /* the thread made to run */
	__u32 from_tgid;    /* the causing thread; 0 for IRQ and OUTSIDE */
	__u32 from_tid;
	__u32 how; /* SLED_CAUSE_* */
	__u32 pad;
};

/* What a cost record counts (struct sled_cost.what). */
#define SLED_COST_ALLOC 1   /* an allocation of `amount` bytes; nr: SLED_ALLOC_* */
#define SLED_COST_FREE 2    /* a block freed (free of NULL is not one) */
#define SLED_COST_SYSCALL 3 /* a system call; nr: its number */
#define SLED_COST_FAULT 4   /* a page fault of a data access in user mode; amount: the address */

/* Which allocator function a SLED_COST_ALLOC came from (and the cookie of
 * its probe: what its size is made of). */
#define SLED_ALLOC_MALLOC 1	    /* malloc(size) */
#define SLED_ALLOC_CALLOC 2	    /* calloc(n, size): n * size */
#define SLED_ALLOC_REALLOC 3	    /* realloc(p, size): a free of p too when p != NULL */
#define SLED_ALLOC_ALIGNED 4	    /* aligned_alloc(align, size), memalign(align, size) */
#define SLED_ALLOC_POSIX_MEMALIGN 5 /* posix_memalign(out, align, size) */
#define SLED_ALLOC_VALLOC 6	    /* valloc(size), pvalloc(size) */
#define SLED_ALLOC_FREE 7	    /* free(p), cfree(p) */
#define SLED_ALLOC_USER 8	    /* record --alloc-fn: its first argument is the size */
#define SLED_ALLOC_MAX 9
/* The allocators that may call another allocator's entry (glibc's
 * realloc(NULL, n) and small-aligned memalign call malloc; a program's own
 * may wrap malloc): their returns are probed too, and what they call is
 * not counted again. */
#define SLED_ALLOC_NESTS(how)                                                \
	((how) == SLED_ALLOC_REALLOC || (how) == SLED_ALLOC_ALIGNED ||       \
	 (how) == SLED_ALLOC_POSIX_MEMALIGN || (how) == SLED_ALLOC_VALLOC || \
	 (how) == SLED_ALLOC_USER)

struct sled_cost {
	struct sled_head h; /* the thread that spent it */
	__u32 what;	    /* SLED_COST_* */
	__u32 nr;	    /* the system call's number, the allocator's SLED_ALLOC_* */
	__u64 amount;	    /* bytes allocated; a fault's address; else 0 */
};

#define SLED_IDENT_ARGS 1      /* args holds the process's argv (exec) */
#define SLED_IDENT_TRUNCATED 2 /* argv was longer than SLED_ARGS_MAX */

#define SLED_COMM_LEN 16  /* TASK_COMM_LEN */
#define SLED_ARGS_MAX 512 /* power of two: the BPF side masks with it */

struct sled_ident {
	struct sled_head h;
	__u32 flags;	/* SLED_IDENT_* */
	__u32 args_len; /* bytes of NUL-separated argv in args */
	char comm[SLED_COMM_LEN];
	char args[SLED_ARGS_MAX];
};

/* What a capture probe reads from the target's memory besides the
 * registers, per register (struct sled_capture_spec.read). */
#define SLED_READ_NONE 0
#define SLED_READ_STR 1	  /* a NUL-terminated string at the register's address */
#define SLED_READ_BYTES 2 /* bytes at the register's address, their count in the next register */

/* SLED_CAP_NREG, the registers a capture record holds, is the
 * architecture's (include/arch/). */
#define SLED_CAP_STR_MAX 64 /* bytes read per value, a NUL included: power of two */

/* The value of the `capture_specs` map, keyed by the probe's cookie (so an
 * entry and a return probe of one function have one each).  any: how many
 * of read[] are not SLED_READ_NONE.  One read makes a record of
 * SLED_CAPTURE_ONE bytes (its bytes in str[0]), more the whole record
 * (value i's in str[i]), none SLED_CAPTURE_SMALL. */
struct sled_capture_spec {
	__u8 read[SLED_CAP_NREG];
	__u8 any;
	__u8 pad;
};

/* A captured call.  The head's tag is the probe's cookie (kind ARGS or
 * RETVAL).  val[]: at an entry the argument registers in order, at a
 * return the return registers, the rest 0 (include/arch/ names them).  It is
 * shorter when its spec reads less (struct sled_capture_spec). */
struct sled_capture {
	struct sled_head h;
	__u64 slot;    /* as struct sled_call.slot */
	__u32 via;     /* the call kind it stands for: ENTRY, EXIT or RET */
	__u16 invalid; /* bit i: val[i]'s memory could not be read (no fault: marked) */
	__u16 pad;
	__u64 val[SLED_CAP_NREG];
	__u16 len[SLED_CAP_NREG]; /* bytes of str[i] read, no NUL */
	__u32 pad2;
	char str[SLED_CAP_NREG][SLED_CAP_STR_MAX];
};
#define SLED_CAPTURE_SMALL __builtin_offsetof(struct sled_capture, str)
#define SLED_CAPTURE_ONE (SLED_CAPTURE_SMALL + SLED_CAP_STR_MAX)

/* The layouts both sides compile: the BPF program writes them, the
 * collector reads them, and nothing else checks that they agree. */
_Static_assert(sizeof(struct sled_head) == 24, "sled_head is 24 bytes");
_Static_assert(__builtin_offsetof(struct sled_head, tgid) == 8, "sled_head.tgid at 8");
_Static_assert(__builtin_offsetof(struct sled_head, tid) == 12, "sled_head.tid at 12");
_Static_assert(__builtin_offsetof(struct sled_head, tag) == 16, "sled_head.tag at 16");
_Static_assert(sizeof(struct sled_call) == 32, "the call record stays 32 bytes");
_Static_assert(__builtin_offsetof(struct sled_call, slot) == 24, "sled_call.slot at 24");
_Static_assert(sizeof(struct sled_thread_exit) == 32, "sled_thread_exit is 32 bytes");
_Static_assert(sizeof(struct sled_mapped) == 40, "sled_mapped is 40 bytes");
_Static_assert(sizeof(struct sled_fork) == 40, "sled_fork is 40 bytes");
_Static_assert(sizeof(struct sled_switch) == 32, "sled_switch is 32 bytes");
_Static_assert(sizeof(struct sled_cause) == 40, "sled_cause is 40 bytes");
_Static_assert(sizeof(struct sled_cost) == 40, "sled_cost is 40 bytes");
_Static_assert(sizeof(struct sled_capture_spec) == SLED_CAP_NREG + 2, "sled_capture_spec unpadded");
_Static_assert(__builtin_offsetof(struct sled_capture, slot) == 24, "sled_capture.slot at 24");
_Static_assert(__builtin_offsetof(struct sled_capture, via) == 32, "sled_capture.via at 32");
_Static_assert(__builtin_offsetof(struct sled_capture, val) == 40, "sled_capture.val at 40");
_Static_assert(__builtin_offsetof(struct sled_capture, len) == 40 + 8 * SLED_CAP_NREG,
	       "sled_capture.len right after val");
_Static_assert(__builtin_offsetof(struct sled_capture, str) == 44 + 10 * SLED_CAP_NREG,
	       "sled_capture.str right after len and pad2");
_Static_assert(sizeof(struct sled_capture) == SLED_CAPTURE_SMALL + SLED_CAP_NREG * SLED_CAP_STR_MAX,
	       "sled_capture has no tail padding: SLED_CAP_NREG is 2 modulo 4");
_Static_assert(__builtin_offsetof(struct sled_ident, comm) == 32, "sled_ident.comm at 32");
_Static_assert(__builtin_offsetof(struct sled_ident, args) == 48, "sled_ident.args at 48");
_Static_assert(sizeof(struct sled_ident) == 48 + SLED_ARGS_MAX, "sled_ident size");

/* ---- counters and map keys ---- */
/* Indexes of the per-CPU counters in the `counters` map. */
#define SLED_CTR_DROPS 0	/* a call record could not be queued */
#define SLED_CTR_UNHELD 1	/* a new executable mapping could not be reported */
#define SLED_CTR_LOST_CONTROL 2 /* a fork or exec notice could not be queued */
#define SLED_CTR_LOST_IDENT 3	/* an identity record could not be queued */
#define SLED_CTR_UNTRACED 4	/* a child could not join the traced set */
#define SLED_CTR_GAPS_LOST 5	/* a coverage gap could not be noted (map full) */
#define SLED_CTR_GATED 6	/* a call outside every --under gate: not recorded */
#define SLED_CTR_GATES_LOST 7	/* a gate could not open (map full): its calls lost */
#define SLED_CTR_UNREPAIRED 8	/* a forked child could not be marked for repair */
#define SLED_CTR_SWITCH_DROPS 9 /* a switch record could not be queued */
#define SLED_CTR_SHORT 10	/* a call shorter than --min-duration: not recorded */
#define SLED_CTR_DEEP 11	/* a call deeper than --max-depth: not recorded */
#define SLED_CTR_CAUSE_DROPS 12 /* a cause record could not be queued */
#define SLED_CTR_COST_DROPS 13	/* a cost record could not be queued */
#define SLED_CTR_MAX 14

/* A thread's open `record --under` gate (the `gates` map, by tid): the
 * return-address slot of the outermost gate frame on its stack. */
struct sled_gate {
	__u64 slot;
	__u32 tail; /* the frame at slot took the gate over by a tail call */
	__u32 pad;
};

/* A thread's state under `record --min-duration` / `--max-depth` (the
 * `kf_threads` map, by tid; bpf/kfilter.h): the frames it has open as the
 * collector has them, the bottom `emitted` written, the rest pending.  The
 * collector reads what is still pending when it detaches from a running
 * process. */
#define SLED_KF_FRAMES 64 /* a power of two: the BPF side masks with it */

struct sled_kf_frame {
	__u64 ts;
	__u64 tag; /* the entry's cookie */
	__u64 slot;
};

#define SLED_KF_TAILS 4 /* a power of two: the BPF side masks with it */

/* Returns still owed at a slot to frames that ended by a tail call and
 * were left out: a uretprobe fires for each after the chain's last
 * callee returns, and must be left out too. */
struct sled_kf_tail {
	__u64 slot;
	__u64 owed;
};

struct sled_kf_thread {
	__u32 n;	/* frames open (the collector's depth, up to SLED_KF_FRAMES) */
	__u32 emitted;	/* the bottom frames whose entry is written */
	__u32 over;	/* frames open above f[SLED_KF_FRAMES - 1]: written, not kept */
	__u32 leaf;	/* nothing has ended since the last entry */
	__u32 tgid;	/* the thread's process */
	__u32 ntails;	/* tails[] in use */
	__u64 last_ts;	/* its latest call event, written or not */
	__u64 entry_ts; /* its latest entry, written or not */
	__u64 entry_slot;
	struct sled_kf_frame f[SLED_KF_FRAMES];
	struct sled_kf_tail tails[SLED_KF_TAILS];
};

/* Key of the `known_files` map: a file whose probes are live (or that has
 * none to place), as the kernel names it (super_block s_dev, MKDEV
 * encoding, and inode number). */
struct sled_file_id {
	__u64 dev;
	__u64 ino;
};

/* Why a traced process may have run code of a file before its probes were
 * live: the key of the `gaps` map is one (process, file, reason). */
#define SLED_GAP_UNHELD 1    /* the hold could not be taken (ring full) */
#define SLED_GAP_FORK 2	     /* forked while its parent's new mapping was unprobed */
#define SLED_GAP_CONTINUED 3 /* a held process was resumed by another SIGCONT */

struct sled_gap_key {
	__u32 tgid;
	__u32 reason;
	__u64 dev; /* as struct sled_file_id; 0 when the file is unknown */
	__u64 ino;
};

#endif
