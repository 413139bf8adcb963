// SPDX-License-Identifier: MIT
// addon.rs: the Rust twin of addon.c, a Node-API addon built by rustc alone
// (no crates, -Zinstrument-xray=always: every function of this crate has
// sleds) for the pnpm tests.  It declares the few Node-API functions it
// calls itself; node's executable exports them, so they stay undefined in
// the cdylib.  Every function with a frame counts its own calls (per
// process: node calls addons from its main JS thread only), and counts()
// returns them under their display names, its own call included.
//
// recover(n) is a panic deep inside n + 1 traced frames of `dive`, caught
// by catch_unwind in the exported callback: a panic never reaches node's C
// frames.  The panic hook is a counted function of its own, so nothing is
// printed.  Generic code of core, alloc and std instantiated here gets
// sleds too; the tests leave it out with -N.
//
//   sumSquares(n): js_sum_squares 1, sum_squares 1, square n
//   fib(n): js_fib 1, fib_rec as often as the naive recursion calls it
//   recover(n): js_recover 1, dive n + 1, quiet_panic 1, recovered 1;
//               returns n + 100, like addon.c's
//   module load: napi_register_module_v1 1
#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_int, c_void, CStr};
use std::hint::black_box;
use std::panic;
use std::ptr;
use std::sync::atomic::{AtomicU64, Ordering};

type napi_env = *mut c_void;
type napi_value = *mut c_void;
type napi_callback_info = *mut c_void;
type napi_status = c_int;
type napi_callback = unsafe extern "C" fn(napi_env, napi_callback_info) -> napi_value;

const NAPI_AUTO_LENGTH: usize = usize::MAX;

extern "C" {
    fn napi_create_function(env: napi_env, name: *const c_char, len: usize, cb: napi_callback,
                            data: *mut c_void, result: *mut napi_value) -> napi_status;
    fn napi_create_object(env: napi_env, result: *mut napi_value) -> napi_status;
    fn napi_set_named_property(env: napi_env, object: napi_value, name: *const c_char,
                               value: napi_value) -> napi_status;
    fn napi_get_cb_info(env: napi_env, info: napi_callback_info, argc: *mut usize,
                        argv: *mut napi_value, this_arg: *mut napi_value,
                        data: *mut *mut c_void) -> napi_status;
    fn napi_get_value_int64(env: napi_env, value: napi_value, result: *mut i64) -> napi_status;
    fn napi_create_int64(env: napi_env, value: i64, result: *mut napi_value) -> napi_status;
}

// The counted functions: index into COUNTS, and the display name.
const REGISTER: usize = 0;
const JS_SUM_SQUARES: usize = 1;
const JS_FIB: usize = 2;
const JS_RECOVER: usize = 3;
const JS_COUNTS: usize = 4;
const SUM_SQUARES: usize = 5;
const SQUARE: usize = 6;
const FIB_REC: usize = 7;
const DIVE: usize = 8;
const RECOVERED: usize = 9;
const QUIET_PANIC: usize = 10;
const NFUNCS: usize = 11;

const NAMES: [&CStr; NFUNCS] = [
    c"napi_register_module_v1",
    c"sledtrace_addon_rs::js_sum_squares",
    c"sledtrace_addon_rs::js_fib",
    c"sledtrace_addon_rs::js_recover",
    c"sledtrace_addon_rs::js_counts",
    c"sledtrace_addon_rs::sum_squares",
    c"sledtrace_addon_rs::square",
    c"sledtrace_addon_rs::fib_rec",
    c"sledtrace_addon_rs::dive",
    c"sledtrace_addon_rs::recovered",
    c"sledtrace_addon_rs::quiet_panic",
];

static COUNTS: [AtomicU64; NFUNCS] = [const { AtomicU64::new(0) }; NFUNCS];

// Inlined into every caller, so it never gets sleds of its own.
#[inline(always)]
fn hit(f: usize) {
    COUNTS[f].fetch_add(1, Ordering::Relaxed);
}

#[inline(never)]
fn square(x: i64) -> i64 {
    hit(SQUARE);
    black_box(x) * x
}

#[inline(never)]
fn sum_squares(n: i64) -> i64 {
    hit(SUM_SQUARES);
    (0..n).map(square).sum()
}

// black_box on both results: LLVM would otherwise turn one of the two
// calls into a loop in the same frame, and the counter would count
// iterations, not calls.
#[inline(never)]
fn fib_rec(n: i64) -> i64 {
    hit(FIB_REC);
    if n < 2 {
        return n;
    }
    black_box(fib_rec(n - 1)) + black_box(fib_rec(n - 2))
}

#[inline(never)]
fn dive(depth: i64, limit: i64) -> i64 {
    hit(DIVE);
    if black_box(depth) == limit {
        panic!("failed {} frames deep", depth);
    }
    black_box(dive(depth + 1, limit)) + 1
}

#[inline(never)]
fn recovered(limit: i64) -> i64 {
    hit(RECOVERED);
    black_box(limit) + 100
}

#[inline(never)]
fn quiet_panic(_: &panic::PanicHookInfo<'_>) {
    hit(QUIET_PANIC);
}

// The callbacks' first argument as an integer (0 when there is none).
#[inline(always)]
unsafe fn arg_i64(env: napi_env, info: napi_callback_info) -> i64 {
    let mut argc: usize = 1;
    let mut argv: [napi_value; 1] = [ptr::null_mut()];
    let mut v: i64 = 0;
    napi_get_cb_info(env, info, &mut argc, argv.as_mut_ptr(), ptr::null_mut(), ptr::null_mut());
    if argc == 1 {
        napi_get_value_int64(env, argv[0], &mut v);
    }
    v
}

#[inline(always)]
unsafe fn to_js(env: napi_env, v: i64) -> napi_value {
    let mut out: napi_value = ptr::null_mut();
    napi_create_int64(env, v, &mut out);
    out
}

unsafe extern "C" fn js_sum_squares(env: napi_env, info: napi_callback_info) -> napi_value {
    hit(JS_SUM_SQUARES);
    to_js(env, sum_squares(arg_i64(env, info)))
}

unsafe extern "C" fn js_fib(env: napi_env, info: napi_callback_info) -> napi_value {
    hit(JS_FIB);
    to_js(env, fib_rec(arg_i64(env, info)))
}

// The panic unwinds through every dive frame and stops here, never in
// node's C++ frames.
unsafe extern "C" fn js_recover(env: napi_env, info: napi_callback_info) -> napi_value {
    hit(JS_RECOVER);
    let limit = arg_i64(env, info);
    let v = match panic::catch_unwind(|| dive(0, limit)) {
        Ok(v) => v,
        Err(_) => recovered(limit),
    };
    to_js(env, v)
}

unsafe extern "C" fn js_counts(env: napi_env, _info: napi_callback_info) -> napi_value {
    hit(JS_COUNTS);
    let mut obj: napi_value = ptr::null_mut();
    napi_create_object(env, &mut obj);
    for (name, n) in NAMES.iter().zip(COUNTS.iter()) {
        let n = n.load(Ordering::Relaxed) as i64;
        napi_set_named_property(env, obj, name.as_ptr(), to_js(env, n));
    }
    obj
}

#[inline(always)]
unsafe fn export(env: napi_env, exports: napi_value, name: &CStr, cb: napi_callback) {
    let mut f: napi_value = ptr::null_mut();
    napi_create_function(env, name.as_ptr(), NAPI_AUTO_LENGTH, cb, ptr::null_mut(), &mut f);
    napi_set_named_property(env, exports, name.as_ptr(), f);
}

/// # Safety
/// Called by node once, with the environment and exports object of the
/// module being loaded.
#[no_mangle]
pub unsafe extern "C" fn napi_register_module_v1(env: napi_env, exports: napi_value) -> napi_value {
    hit(REGISTER);
    panic::set_hook(Box::new(quiet_panic));
    export(env, exports, c"sumSquares", js_sum_squares);
    export(env, exports, c"fib", js_fib);
    export(env, exports, c"recover", js_recover);
    export(env, exports, c"counts", js_counts);
    exports
}
