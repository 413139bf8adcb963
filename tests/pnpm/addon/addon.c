// SPDX-License-Identifier: MIT
/* addon.c: a Node-API addon built with clang XRay, for the pnpm tests.  It
 * counts its own calls of every traced function (per process: calls come
 * from the main JS thread, but work_execute's, per thread of libuv's pool)
 * and returns the counts from counts(), which is itself not traced.
 *   sumSquares(n): sum_squares 1, square n
 *   fib(n): fib_rec as often as the naive recursion calls it
 *   recover(n): dive n + 1, recovered 1; returns n + 100.  The failure n
 *     frames deep comes back up frame by frame: the C counterpart of
 *     addon.rs's panic, which C cannot unwind.
 *   queueWork(n): queue_work 1, then work_execute 1 on a thread of
 *     libuv's pool (counted per thread: counts().work_execute is
 *     {tid: calls}); resolves to 0 + 1 + ... + (n - 1).  Its cause is the
 *     queue_work frame, by construction (queue_work's comment).
 *   module load: the two functions node looks up by name, which
 *     NAPI_MODULE_INIT would define uncounted: node_api_module_get_api_version_v1
 *     (if this node asks) and napi_register_module_v1, once each. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* gettid */
#endif
#include <dirent.h>
#include <node_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINST __attribute__((xray_never_instrument, noinline))
#define TRACED __attribute__((noinline))

#define NAME_(f) #f
#define NAME(f) NAME_(f)

enum { C_SUM_SQUARES, C_SQUARE, C_FIB_REC, C_DIVE, C_RECOVERED, C_API_VERSION, C_REGISTER,
       C_QUEUE_WORK, C_COUNT };
static const char *const names[] = {
	"sum_squares", "square", "fib_rec", "dive", "recovered",
	NAME(NODE_API_MODULE_GET_API_VERSION), NAME(NAPI_MODULE_INITIALIZER), "queue_work",
};
static unsigned long counts[C_COUNT];

/* work_execute's calls per pool thread: {tid, calls}, a slot claimed by
 * the first call on a thread.  More threads than slots go uncounted, and
 * the counts then differ from the trace's. */
#define POOL_SLOTS 64
static struct {
	int tid;
	unsigned long calls;
} pool_counts[POOL_SLOTS];

TRACED long square(long x)
{
	counts[C_SQUARE]++;
	return x * x;
}

TRACED long sum_squares(long n)
{
	long s = 0;

	counts[C_SUM_SQUARES]++;
	for (long i = 0; i < n; i++)
		s += square(i);
	return s;
}

/* optnone: clang would turn one of the two calls into a loop in the same
 * frame, and the counter would count iterations, not calls. */
TRACED __attribute__((optnone)) long fib_rec(long n)
{
	counts[C_FIB_REC]++;
	return n < 2 ? n : fib_rec(n - 1) + fib_rec(n - 2);
}

/* optnone: the failure must come back through every frame, not be
 * returned from the deepest one straight to the caller. */
TRACED __attribute__((optnone)) long dive(long depth, long limit)
{
	long below;

	counts[C_DIVE]++;
	if (depth == limit)
		return -1;
	below = dive(depth + 1, limit);
	return below < 0 ? below : below + 1;
}

TRACED long recovered(long limit)
{
	counts[C_RECOVERED]++;
	return limit + 100;
}

static NOINST void count_on_pool(void)
{
	int me = gettid();

	for (int i = 0; i < POOL_SLOTS; i++) {
		int tid = 0;

		if (!__atomic_compare_exchange_n(&pool_counts[i].tid, &tid, me, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE) &&
		    tid != me)
			continue;
		__atomic_add_fetch(&pool_counts[i].calls, 1, __ATOMIC_RELAXED);
		return;
	}
}

/* One queueWork(n): its promise, and the sum work_execute computes. */
struct job {
	napi_async_work work;
	napi_deferred deferred;
	long n, sum;
	int started; /* set by work_execute, which queue_work waits for */
};

/* Runs on a thread of libuv's pool. */
TRACED void work_execute(napi_env env, void *data)
{
	struct job *job = data;
	volatile long sum = 0;

	(void)env;
	__atomic_store_n(&job->started, 1, __ATOMIC_RELEASE);
	count_on_pool();
	for (long i = 0; i < job->n; i++)
		sum += i;
	job->sum = sum;
}

static NOINST void work_complete(napi_env env, napi_status status, void *data)
{
	struct job *job = data;
	napi_value v;

	napi_create_int64(env, job->sum, &v);
	if (status == napi_ok)
		napi_resolve_deferred(env, job->deferred, v);
	else
		napi_reject_deferred(env, job->deferred, v);
	napi_delete_async_work(env, job->work);
	free(job);
}

/* Until work_execute has begun (up to 30 s: if it never does, the trace
 * and the counts say so). */
static NOINST void wait_started(struct job *job)
{
	for (int tries = 0; tries < 300000; tries++) {
		if (__atomic_load_n(&job->started, __ATOMIC_ACQUIRE))
			return;
		nanosleep(&(struct timespec){ .tv_nsec = 100000 }, NULL);
	}
}

/* Queues the job on libuv's pool.  The caller has made sure every other
 * thread of the process sleeps (every_other_thread_asleep), so no pool
 * thread is busy and none can come back for more work by itself: the
 * job waits until uv_queue_work, inside napi_queue_async_work, signals
 * the pool's condition variable from this frame.  Then this frame stays
 * open until work_execute has begun, the main thread doing nothing else
 * meanwhile: whatever wakes the pool thread again on its way there (the
 * pool's mutex the signal left locked, the process's memory map lock)
 * is this frame too, and no other thread of the process is awake to.
 * (Returning at once, a pool thread was seen to block on its way, in
 * uninterruptible sleep, while V8 on the main thread went on: woken last
 * by the main thread outside any traced frame, it ran work_execute
 * without a cause.)  So work_execute's cause is this frame, a wakeup. */
TRACED napi_status queue_work(napi_env env, struct job *job)
{
	napi_value name;
	napi_status st;

	counts[C_QUEUE_WORK]++;
	if ((st = napi_create_string_utf8(env, "sledtrace_work", NAPI_AUTO_LENGTH, &name)) ||
	    (st = napi_create_async_work(env, NULL, name, work_execute, work_complete, job,
					 &job->work)))
		return st;
	if ((st = napi_queue_async_work(env, job->work))) {
		napi_delete_async_work(env, job->work);
		return st;
	}
	wait_started(job);
	return napi_ok;
}

/* True when thread tid of this process sleeps (state S in /proc). */
static NOINST int sleeping(const char *tid)
{
	char path[300], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%s/stat", tid);
	if (!(f = fopen(path, "r")))
		return 1; /* gone */
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

/* Waits (up to 30 s) until every thread of the process but the caller
 * sleeps.  node 20's libuv does not name its pool threads, so all are
 * waited for: the pool's among them, and a sleeping pool thread is one
 * waiting for work, as nothing else of this process queues any while a
 * test awaits queueWork. */
static NOINST int every_other_thread_asleep(void)
{
	char me[16];

	snprintf(me, sizeof(me), "%d", (int)gettid());
	for (int tries = 0; tries < 30000; tries++) {
		DIR *d = opendir("/proc/self/task");
		struct dirent *e;
		int awake = 0;

		if (!d)
			return 0;
		while (!awake && (e = readdir(d)))
			awake = e->d_name[0] != '.' && strcmp(e->d_name, me) &&
				!sleeping(e->d_name);
		closedir(d);
		if (!awake)
			return 1;
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	}
	return 0;
}

static NOINST void noop_execute(napi_env env, void *data)
{
	(void)env;
	(void)data;
}

static napi_async_work start_work;

static NOINST void noop_complete(napi_env env, napi_status status, void *data)
{
	(void)status;
	(void)data;
	napi_delete_async_work(env, start_work);
}

/* libuv starts its pool at the first work queued.  Were that queue_work's,
 * the pool threads would be created inside its frame, and a new thread's
 * first frame is caused by its spawn (DESIGN.md, "Causes"): so a job that
 * does nothing starts the pool first, from untraced code. */
static NOINST napi_status start_pool(napi_env env)
{
	napi_value name;
	napi_status st;

	if (start_work)
		return napi_ok;
	if ((st = napi_create_string_utf8(env, "sledtrace_start", NAPI_AUTO_LENGTH, &name)) ||
	    (st = napi_create_async_work(env, NULL, name, noop_execute, noop_complete, NULL,
					 &start_work)))
		return st;
	return napi_queue_async_work(env, start_work);
}

static NOINST long arg_long(napi_env env, napi_callback_info info)
{
	size_t argc = 1;
	napi_value argv[1];
	int64_t v = 0;

	napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
	if (argc == 1)
		napi_get_value_int64(env, argv[0], &v);
	return (long)v;
}

static NOINST napi_value to_js(napi_env env, long v)
{
	napi_value out;

	napi_create_int64(env, v, &out);
	return out;
}

static NOINST napi_value js_sum_squares(napi_env env, napi_callback_info info)
{
	return to_js(env, sum_squares(arg_long(env, info)));
}

static NOINST napi_value js_fib(napi_env env, napi_callback_info info)
{
	return to_js(env, fib_rec(arg_long(env, info)));
}

static NOINST napi_value js_recover(napi_env env, napi_callback_info info)
{
	long limit = arg_long(env, info);
	long v = dive(0, limit);

	return to_js(env, v < 0 ? recovered(limit) : v);
}

static NOINST napi_value js_queue_work(napi_env env, napi_callback_info info)
{
	long n = arg_long(env, info);
	struct job *job = calloc(1, sizeof(*job));
	napi_value promise, err;
	const char *fail = NULL;

	if (!job || napi_create_promise(env, &job->deferred, &promise)) {
		free(job);
		napi_throw_error(env, NULL, "queueWork: no promise");
		return NULL;
	}
	job->n = n;
	if (start_pool(env))
		fail = "could not start libuv's pool";
	else if (!every_other_thread_asleep())
		fail = "threads of this process still running after 30 s";
	else if (queue_work(env, job))
		fail = "queue_work failed";
	if (fail) {
		napi_create_string_utf8(env, fail, NAPI_AUTO_LENGTH, &err);
		napi_reject_deferred(env, job->deferred, err);
		free(job);
	}
	return promise;
}

/* {function: calls} of the JS thread's functions, and work_execute's
 * {tid: calls} per pool thread. */
static NOINST napi_value js_counts(napi_env env, napi_callback_info info)
{
	napi_value obj, pool;
	char tid[16];

	(void)info;
	napi_create_object(env, &obj);
	for (int i = 0; i < C_COUNT; i++)
		napi_set_named_property(env, obj, names[i], to_js(env, (long)counts[i]));
	napi_create_object(env, &pool);
	for (int i = 0; i < POOL_SLOTS && __atomic_load_n(&pool_counts[i].tid, __ATOMIC_ACQUIRE);
	     i++) {
		snprintf(tid, sizeof(tid), "%d", pool_counts[i].tid);
		napi_set_named_property(
			env, pool, tid,
			to_js(env, (long)__atomic_load_n(&pool_counts[i].calls, __ATOMIC_RELAXED)));
	}
	napi_set_named_property(env, obj, "work_execute", pool);
	return obj;
}

static NOINST napi_value init(napi_env env, napi_value exports)
{
	const napi_property_descriptor props[] = {
		{ "sumSquares", NULL, js_sum_squares, NULL, NULL, NULL, napi_default, NULL },
		{ "fib", NULL, js_fib, NULL, NULL, NULL, napi_default, NULL },
		{ "recover", NULL, js_recover, NULL, NULL, NULL, napi_default, NULL },
		{ "queueWork", NULL, js_queue_work, NULL, NULL, NULL, napi_default, NULL },
		{ "counts", NULL, js_counts, NULL, NULL, NULL, napi_default, NULL },
	};

	napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
	return exports;
}

NAPI_MODULE_EXPORT int32_t NODE_API_MODULE_GET_API_VERSION(void)
{
	counts[C_API_VERSION]++;
	return NAPI_VERSION;
}

NAPI_MODULE_EXPORT napi_value NAPI_MODULE_INITIALIZER(napi_env env, napi_value exports)
{
	counts[C_REGISTER]++;
	return init(env, exports);
}
