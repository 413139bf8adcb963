// SPDX-License-Identifier: MIT
/* addon.c: a Node-API addon built with clang XRay, for the pnpm tests.  It
 * counts its own calls of every traced function (per process: calls come
 * from the main JS thread) and returns the counts from counts(), which is
 * itself not traced.
 *   sumSquares(n): sum_squares 1, square n
 *   fib(n): fib_rec as often as the naive recursion calls it
 *   recover(n): dive n + 1, recovered 1; returns n + 100.  The failure n
 *     frames deep comes back up frame by frame: the C counterpart of
 *     addon.rs's panic, which C cannot unwind.
 *   module load: the two functions node looks up by name, which
 *     NAPI_MODULE_INIT would define uncounted: node_api_module_get_api_version_v1
 *     (if this node asks) and napi_register_module_v1, once each. */
#include <node_api.h>

#define NOINST __attribute__((xray_never_instrument, noinline))
#define TRACED __attribute__((noinline))

#define NAME_(f) #f
#define NAME(f) NAME_(f)

enum { C_SUM_SQUARES, C_SQUARE, C_FIB_REC, C_DIVE, C_RECOVERED, C_API_VERSION, C_REGISTER,
       C_COUNT };
static const char *const names[] = {
	"sum_squares", "square", "fib_rec", "dive", "recovered",
	NAME(NODE_API_MODULE_GET_API_VERSION), NAME(NAPI_MODULE_INITIALIZER),
};
static unsigned long counts[C_COUNT];

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

static NOINST napi_value js_counts(napi_env env, napi_callback_info info)
{
	napi_value obj;

	(void)info;
	napi_create_object(env, &obj);
	for (int i = 0; i < C_COUNT; i++)
		napi_set_named_property(env, obj, names[i], to_js(env, (long)counts[i]));
	return obj;
}

static NOINST napi_value init(napi_env env, napi_value exports)
{
	const napi_property_descriptor props[] = {
		{ "sumSquares", NULL, js_sum_squares, NULL, NULL, NULL, napi_default, NULL },
		{ "fib", NULL, js_fib, NULL, NULL, NULL, napi_default, NULL },
		{ "recover", NULL, js_recover, NULL, NULL, NULL, napi_default, NULL },
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
