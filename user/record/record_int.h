/* SPDX-License-Identifier: MIT */
/* record_int.h: the recording's state, shared by the files that implement
 * record.h.  They call each other in one direction only: record.c (open,
 * load, start, free) uses record_hooks.c (the process-scope hooks),
 * record_spawn.c (the held command), record_run.c (the event loop,
 * detaching) and record_finish.c (the end of the trace); all of them use
 * record_base.c.  Not for use outside record/. */
#ifndef SLEDTRACE_RECORD_INT_H
#define SLEDTRACE_RECORD_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "format/codec/gzout.h"
#include "format/perfetto/perfetto_writer.h"
#include "model/frame_filter.h"
#include "model/frames.h"
#include "probes/attach.h"
#include "probes/attach_warm.h"
#include "process/launch.h"
#include "probes/exit_policy.h"
#include "probes/probe_plan.h"
#include "record/collect/collector.h"
#include "record/hold/coverage.h"
#include "record/hold/keeper.h"
#include "record/hold/mappings.h"
#include "record/hold/objects.h"
#include "record/probe_calib.h"
#include "record/progress.h"
#include "record/record.h"
#include "record/hold/targets.h"
#include "object/xray_runtime.h"
#include "util/output_file.h"

struct record {
	const struct record_opts *opts;
	char path[4096];
	struct object_set *objs;
	struct capture_set *capture; /* --capture; NULL: none */
	struct targets targets;	     /* -p */
	struct sledtrace_bpf *skel;
	struct attacher *att;
	struct attach_warm *warm;    /* from open until the first attach is done */
	struct alloc_probes *allocs; /* --costs: allocators probed per process */
	/* What record_hooks.c attaches besides the probes. */
	struct record_hooks {
		/* exec, fork, rename and the holds (mappings.h): gone at detach */
		struct bpf_link *exec, *syscall_exit, *fork, *rename, *sigcont;
		/* sys_exit_mmap's and sys_enter_mmap's links (syscall_tp.h), or -1:
		 * closed with the probes (record__detach) */
		int mmap_fds[2];
		/* thread exits, and their switches (on-CPU time): kept until the
		 * last drain */
		struct bpf_link *exit, *sched, *waking;
		struct bpf_link *sys_enter, *fault; /* --costs */
	} hooks;
	struct mapping_watch watch;
	struct copies copies;	/* rewritten copies bound in the command's namespace */
	struct trace_gaps gaps; /* where probes may not have been live (coverage.h) */
	struct keeper keeper;
	struct run_as run_as;	   /* the command's user under sudo */
	enum xray_runtime runtime; /* the command's own XRay runtime */
	struct object_plan plan;   /* summed over objects */
	struct output_file out;
	struct gzout *gz; /* -o NAME.gz: the stream between pw and out */
	struct perfetto_writer *pw;
	struct frame_filter *ff;
	struct frame_builder *fb;
	struct collector *col;
	struct ring_buffer *rb;
	struct launch child;
	struct sled_rewrite *rw; /* the copy the command runs, when rewritten */
	struct progress prog;
	int epfd;
	int status;
	uint64_t attach_ns, start_ns;
	uint64_t targets_cpu_ns; /* -p: the targets' CPU time when attached */
	uint64_t events, cpu_ns_started, cpu_ns_finished; /* sledtrace's own, for -v */
	int cb_err;
	bool child_done;
	struct exit_policy exits; /* --exit, resolved at start (exit_policy.h) */
	struct probe_calib calib; /* one probe hit, measured before the target runs */
};

uint64_t record__now_ns(void);
/* CPU time (user + system) of sledtrace itself. */
uint64_t record__self_cpu_ns(void);
/* One `sledtrace: ` line on stderr; returns err (or -EINVAL). */
int record__fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* SIGTERM/SIGHUP (and with -p SIGINT) end the recording. */
void record__catch_signals(bool attached);
/* Sums the probe plans of every object into r->plan. */
void record__sum_plans(struct record *r);
/* Starts the held command (record_spawn.c): its rewritten copies, or the
 * original, and the copies of what it links.  Returns 0 or the error
 * record__fail reported. */
int record__spawn(struct record *r);
/* The call programs: one for every sled kind (the cookie tells them
 * apart), one for uretprobe returns (record_hooks.c). */
struct object_probes record__call_programs(const struct record *r);
/* Thread exits close what a thread left open (record_hooks.c). */
int record__watch_exits(struct record *r);
/* Exec, fork and rename of the traced processes, and the holds at their
 * new executable mappings (record_hooks.c). */
int record__hook_processes(struct record *r);
/* A process that ended or exec'd loses its allocator probes (--costs):
 * the new image's are placed at its next hold. */
void record__allocs_event(struct record *r, const void *rec, unsigned kind);
/* Removes exec, fork, rename and the holds' links (not hooks.mmap_fds). */
void record__unhook_processes(struct record *r);
/* Removes the thread-exit and switch links. */
void record__unwatch_exits(struct record *r);
/* Removes every probe and the mapping hook. */
void record__detach(struct record *r);
/* Where the trace writer writes (record_finish.c): r->out, through a gzip
 * stream (r->gz) when -o names a .gz file.  0 or a negative errno. */
int record__trace_sink(struct record *r, struct byte_sink *out);

#endif
