/* SPDX-License-Identifier: MIT */
/* frames.h: the one streamed frame model every producer and consumer of a
 * trace shares.  Producers (the live collector, the Perfetto reader) turn
 * their input into enter/leave calls on a frame_builder; the builder keeps
 * one shadow stack per thread and hands complete frames to a frame_sink
 * (a writer, a converter, a report).  Nothing here holds a whole trace:
 * memory is the open stacks plus whatever a sink chooses to aggregate.
 *
 * Order of sink calls: function() before the first frame that names it,
 * thread() before the first frame of that thread, then enter()/leave()
 * balanced per thread (every enter gets exactly one leave, unfinished
 * frames are closed by frame_builder__finish), thread_end() once per
 * thread after its last frame, elided() for calls a writer could not
 * represent, gap() per coverage gap, stats() once, finish() once.
 *
 * Threads: the builder owns the one per-thread record of a trace.  A
 * thread is one lifetime of a (pid, tid) pair: when it ends
 * (frame_builder__end_thread) its slot is retired, and the next thread
 * with that tid gets a new slot with its own index, names and track.  A
 * process ends with its main thread (tid == pid); a later thread of that
 * pid belongs to a new process (a new process_index).
 * trace_thread.index is dense (0, 1, 2... in order of first sight), so a
 * sink keeps its per-thread state in an array indexed by it
 * (model/thread_slots.h) instead of a table of its own keyed by tid. */
#ifndef SLEDTRACE_FRAMES_H
#define SLEDTRACE_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "model/frame_costs.h"
#include "model/probe_comp.h"
#include "model/trace_stats.h"
#include "model/values.h"

/* A function's identity is (object, build_id, addr); name, mangled, file
 * and line describe it.  Any of the identity fields may be NULL/0 when the
 * producer does not know them (a trace written by another tool). */
struct trace_function {
	uint32_t id;	      /* dense, 1-based, unique within one trace */
	const char *name;     /* display name (demangled unless asked otherwise) */
	const char *file;     /* source file or NULL */
	uint32_t line;	      /* 0 when unknown */
	const char *mangled;  /* raw symbol name, NULL when unknown */
	const char *object;   /* path of the object holding it, NULL when unknown */
	const char *build_id; /* the object's GNU build-id in hex, NULL or "" when none */
	uint64_t addr;	      /* its address in the object (ELF vaddr), 0 when unknown */
	/* Optional, with file NULL: file and line are found by locate(ctx, key)
	 * when a sink first needs them.  Finding them costs a DWARF read, and
	 * a trace uses few of the functions it knows.  Returns 0 when found;
	 * *file stays valid until the producer's data is freed, after the
	 * sinks are finished. */
	int (*locate)(void *ctx, uint64_t key, const char **file, uint32_t *line);
	void *locate_ctx;
	uint64_t locate_key;
};

struct trace_thread {
	uint32_t pid;		  /* process (tgid) */
	uint32_t tid;		  /* thread id, as the kernel numbers it */
	const char *name;	  /* thread name (comm) */
	const char *process_name; /* comm of the process */
	const char *cmdline;	  /* may be NULL */
	uint32_t index;		  /* dense, 0-based, one per thread lifetime */
	uint32_t process_index;	  /* dense, 0-based, one per process lifetime */
	/* What frame ids and causes name it by (FRAME_ID): its index when
	 * recorded, the recording's index when a trace is read back. */
	uint32_t uid;
};

/* How a frame ended.  Only RETURNED and TAIL are measured exits; the rest
 * carry the time of the event that proved the frame was gone. */
enum frame_end {
	FRAME_RETURNED = 0,   /* exit sled or uretprobe */
	FRAME_TAIL = 1,	      /* tail-call sled: a sibling replaced it */
	FRAME_INFERRED = 2,   /* exit never seen; a later event proved it gone */
	FRAME_UNFINISHED = 3, /* still open when its thread or the trace ended */
};

/* A window in which process pid may have run code of an object with
 * sleds before its probes were live (record's coverage proof failed
 * there): calls in it may be missing.  Times are the trace's clock. */
struct trace_gap {
	uint32_t pid;
	const char *object; /* its path; NULL: the objects it mapped then */
	uint64_t start_ns;
	uint64_t end_ns; /* 0: until the process or the recording ended */
	const char *why;
};

/* What made a thread run a frame (docs/DESIGN.md, "Causes"): the frame of
 * another thread that created it, woke it, or handed it work. */
enum frame_cause {
	CAUSE_NONE = 0,
	CAUSE_SPAWN = 1,
	CAUSE_WAKEUP = 2,
	CAUSE_HANDOFF = 3,
	CAUSE_NKINDS = 4,
};

/* Their names: "", "spawn", "wakeup", "hand-off". */
extern const char *const frame_cause_names[CAUSE_NKINDS];
/* The kind named name, or CAUSE_NONE. */
enum frame_cause frame_cause__parse(const char *name);

/* A frame's id: its thread's uid (frame_builder__set_uid; the thread's
 * index unless a reader knows the writer's) and its ordinal among that
 * thread's frames, from 1.  It depends on nothing of another thread, so a
 * trace read back in any order of threads gives every frame the id the
 * recording gave it, and a cause can name a frame before it is read. */
#define FRAME_ORDINAL_BITS 40
#define FRAME_ID(uid, ordinal) ((((uint64_t)(uid) + 1) << FRAME_ORDINAL_BITS) | (ordinal))

struct frame {
	uint32_t fid;
	enum frame_cause cause_kind; /* CAUSE_NONE: cause and flow are 0 */
	uint64_t id;		     /* FRAME_ID() */
	uint64_t cause;		     /* the id of the frame that made this one run */
	uint64_t flow;		     /* the link's id in the trace (Perfetto's flow id) */
	uint64_t begin_ns;
	uint64_t sp; /* return-address slot at entry; 0 when unknown */
	/* On-CPU time: the thread's running total at entry, and (set when the
	 * frame ends, before leave()) the frame's own, children included. */
	uint64_t cpu_begin_ns;
	uint64_t cpu_ns;
	/* Captured arguments and return value (record --capture), or NULL.
	 * The builder owns them; they go when the frame ends, after leave(). */
	struct frame_values *values;
	/* record --costs: what the frame spent, set when it ends (valid
	 * during leave()); NULL when its thread spent nothing so far. */
	const struct frame_costs *costs;
};

/* What a thread is doing, from a scheduler switch on: on-CPU time is the
 * time spent RUNNING.  A thread is RUNNING from its first event until a
 * switch says otherwise (it fires probes, so it is on a CPU); a trace
 * without switches is all RUNNING, and on-CPU time equals wall time. */
enum thread_state {
	THREAD_RUNNING = 0,
	THREAD_RUNNABLE = 1, /* off the CPU but wanting it: preempted, yielded */
	THREAD_SLEEPING = 2, /* waiting for an event */
	THREAD_BLOCKED = 3,  /* waiting, unwakeable by signals (I/O, locks) */
	THREAD_STOPPED = 4,  /* stopped or traced */
	THREAD_NSTATES = 5,
};

/* Their names, as Perfetto's own thread states are named. */
extern const char *const thread_state_names[THREAD_NSTATES];
/* The state named name, or -1. */
int thread_state__parse(const char *name);

/* Where a cause happened (frame_sink_ops.cause). */
struct cause_point {
	uint64_t ts;
	uint64_t flow; /* the caused frame's flow, unique in the trace */
	enum frame_cause kind;
	/* the thread made to run, by its uid (trace_thread), when known: a
	 * spawn or wakeup; not a hand-off */
	bool to_known;
	uint32_t to_uid;
	/* the causing frame's depth on its thread (1: the outermost); 0: the
	 * innermost open frame, as for spawns and wakeups */
	uint32_t at_depth;
};

struct frame_sink_ops {
	int (*function)(void *ctx, const struct trace_function *fn);
	int (*thread)(void *ctx, const struct trace_thread *th);
	/* stack[depth - 1] has just begun.  Optional, as leave is: a sink
	 * that only counts (the stats, the summary) leaves both out. */
	int (*enter)(void *ctx, const struct trace_thread *th, const struct frame *stack,
		     uint32_t depth);
	/* stack[depth - 1] ends at end_ns; the rest of stack is its callers. */
	int (*leave)(void *ctx, const struct trace_thread *th, const struct frame *stack,
		     uint32_t depth, uint64_t end_ns, enum frame_end how);
	/* Calls of fid on th that a writer dropped (e.g. beyond its depth cap):
	 * still counted, so call counts stay exact.  Optional. */
	int (*elided)(void *ctx, const struct trace_thread *th, uint32_t fid, uint64_t calls,
		      uint64_t total_ns);
	int (*stats)(void *ctx, const struct trace_stats *st);
	int (*finish)(void *ctx);
	/* th ended (its frames are all closed): its index is never used
	 * again, so per-thread state can go.  Optional. */
	int (*thread_end)(void *ctx, const struct trace_thread *th);
	/* A coverage gap, before stats().  Optional. */
	int (*gap)(void *ctx, const struct trace_gap *g);
	/* th is in state from ts on (a scheduler switch), between its enter
	 * and leave calls in time order.  Optional: frames carry the on-CPU
	 * time it adds up to (struct frame.cpu_ns). */
	int (*sched)(void *ctx, const struct trace_thread *th, uint64_t ts,
		     enum thread_state state);
	/* Set by a sink that takes the probe cost out of each call as it ends
	 * (model/probe_comp.h): a trace reader calls it before anything else
	 * with the costs of the stats() it will hand over at the end
	 * (comp__costs of their probe_cost_ns, probe_entry_ns and
	 * probe_exit_ns).  A sink without it is handed nothing early.
	 * Optional. */
	int (*probe_cost)(void *ctx, const struct comp_cost *cost);
	/* Inside stack[depth - 1] (the cause) on th, something made another
	 * thread run (struct cause_point): that thread's next frame will
	 * carry the cause's id and flow (struct frame).  Between th's enter
	 * and leave calls in time order.  Optional. */
	int (*cause)(void *ctx, const struct trace_thread *th, const struct frame *stack,
		     uint32_t depth, const struct cause_point *cp);
};

struct frame_sink {
	const struct frame_sink_ops *ops;
	void *ctx;
};

struct frame_builder;
struct fb_thread;

struct frame_builder *frame_builder__new(const struct frame_sink *sink);
void frame_builder__free(struct frame_builder *fb);
int frame_builder__function(struct frame_builder *fb, const struct trace_function *fn);
/* Finds the live thread (pid, tid), creating it (and calling sink->thread)
 * on first sight or after the last one with that tid ended.  Names are
 * copied. */
int frame_builder__thread(struct frame_builder *fb, uint32_t pid, uint32_t tid, const char *name,
			  const char *process_name, const char *cmdline, struct fb_thread **out);
/* Always a new thread, even when (pid, tid) has a live one: that one stays
 * valid for whoever holds it, but is no longer found (a reader whose input
 * has two tracks for one tid). */
int frame_builder__add_thread(struct frame_builder *fb, uint32_t pid, uint32_t tid,
			      const char *name, const char *process_name, const char *cmdline,
			      struct fb_thread **out);
/* The live thread (pid, tid), or NULL. */
struct fb_thread *frame_builder__find(struct frame_builder *fb, uint32_t pid, uint32_t tid);
const struct trace_thread *frame_builder__info(const struct fb_thread *t);
/* Threads so far: every index is below this. */
uint32_t frame_builder__nthreads(const struct frame_builder *fb);
int frame_builder__enter(struct frame_builder *fb, struct fb_thread *t, uint32_t fid, uint64_t ts,
			 uint64_t sp);
int frame_builder__leave(struct frame_builder *fb, struct fb_thread *t, uint64_t ts,
			 enum frame_end how);
/* Attaches a captured value to t's open top frame (to be seen at its
 * leave); nothing happens when t has no open frame. */
int frame_builder__value(struct fb_thread *t, const char *name, enum value_kind kind, uint64_t raw,
			 const char *text);
/* t spent n of kind now (a system call of number nr for COST_SYSCALLS):
 * its open frames count it, the innermost as its own. */
int frame_builder__cost(struct fb_thread *t, enum cost_kind kind, uint64_t n, uint32_t nr);
uint32_t frame_builder__depth(const struct fb_thread *t);
/* The depth (1: outermost) of t's open frame with that id, 0 when none. */
uint32_t frame_builder__depth_of(const struct fb_thread *t, uint64_t id);
const struct frame *frame_builder__top(const struct fb_thread *t); /* NULL if empty */
/* The i-th open frame from the bottom (0 is the outermost), or NULL. */
const struct frame *frame_builder__frame(const struct fb_thread *t, uint32_t i);
/* t is in state from ts on; a switch older than t's latest event is
 * taken as of that event (the clocks of two CPUs may disagree a little). */
int frame_builder__sched(struct frame_builder *fb, struct fb_thread *t, uint64_t ts,
			 enum thread_state state);
/* t made a call at ts, so it was on a CPU: a thread off one since before
 * ts is taken back at ts (counted in the stats' switches_inferred).  For
 * producers that see calls as they happen; a call timed before the switch
 * out (held back) proves nothing and changes nothing.  The kernel has been
 * seen to leave a woken thread's switch in unreported; the call's time
 * can only make on-CPU time short, by the gap before the call. */
int frame_builder__resume(struct frame_builder *fb, struct fb_thread *t, uint64_t ts);
/* Frames of t get ids with uid in them from now on (struct frame.id). */
void frame_builder__set_uid(struct fb_thread *t, uint32_t uid);
/* from made to run at ts, by kind: when from has a frame open, to's next
 * frame gets it as its cause, with a new flow id, and the sink is told
 * (cause()); returns 1 then, 0 when from had nothing open (and to's next
 * frame gets no cause).  For producers that see causes as they happen. */
int frame_builder__cause(struct frame_builder *fb, struct fb_thread *from, struct fb_thread *to,
			 uint64_t ts, enum frame_cause kind);
/* A new flow id, unique in the trace, for a producer that links frames
 * itself (a hand-off: frame_builder__cause_point, then __caused). */
uint64_t frame_builder__new_flow(struct frame_builder *fb);
/* A reader's halves of it: the point where a cause happened on from
 * (told to the sink), and the cause t's next frame has. */
int frame_builder__cause_point(struct frame_builder *fb, struct fb_thread *from,
			       const struct cause_point *cp);
void frame_builder__caused(struct fb_thread *t, uint64_t cause, uint64_t flow,
			   enum frame_cause kind);
/* The kind of cause t's next frame has now (CAUSE_NONE: none). */
enum frame_cause frame_builder__pending(const struct fb_thread *t);
/* ... and the cause and flow with it. */
void frame_builder__pending_cause(const struct fb_thread *t, uint64_t *cause, uint64_t *flow);
/* t was made to run by nothing the trace holds: its next frame has no
 * cause, whatever made it run before. */
void frame_builder__uncaused(struct fb_thread *t);
/* Closes every open frame of t as FRAME_UNFINISHED at ts and retires t:
 * the thread is gone (or the trace ends).  Calls thread_end() once. */
int frame_builder__end_thread(struct frame_builder *fb, struct fb_thread *t, uint64_t ts);
/* A leaf call of ns measured before the builder (a filter in the kernel
 * left it out): it calibrates the probe cost as one the builder saw. */
void frame_builder__leaf(struct frame_builder *fb, uint64_t ns);
/* t's latest event was at ts (one the builder did not get): what it has
 * open lasts that long at least. */
void frame_builder__seen(struct fb_thread *t, uint64_t ts);
/* Calls thread-level counters through to the sink. */
/* Passes a coverage gap through to the sink. */
int frame_builder__gap(struct frame_builder *fb, const struct trace_gap *g);
int frame_builder__elided(struct frame_builder *fb, struct fb_thread *t, uint32_t fid,
			  uint64_t calls, uint64_t total_ns);
/* Closes every open frame as FRAME_UNFINISHED at its thread's last
 * timestamp, adds the builder's own counts (inferred_exits, unfinished,
 * leaves on an empty stack as unmatched_exits) to *st - producers must not
 * count those themselves - then calls stats() and finish(). */
int frame_builder__finish(struct frame_builder *fb, struct trace_stats *st);
/* From now on, count per function id the calls that end and the direct
 * children they had (what a function's self time holds of probes:
 * model/probe_comp.h): two increments a call.  For record's word on times
 * that are mostly probe cost. */
void frame_builder__tally(struct frame_builder *fb);
/* The counts, indexed by function id; returns their length (0: none). */
size_t frame_builder__tallies(const struct frame_builder *fb, const uint64_t **calls,
			      const uint64_t **children);

#endif
