// SPDX-License-Identifier: MIT
// launcher.js: a running node process for `sledtrace record -p PID --follow`
// to attach to.  It loads an addon (path in SLEDTRACE_PARENT_ADDON), so it
// maps an object with sleds as -p requires, prints READY and waits for
// SIGUSR2.  Then it starts the command it was given (e.g. `pnpm test`)
// with its own stdio, calls the addon while the command runs and exits
// with the command's status.  Everything it counts from READY on happened
// after the attach, so it writes only that: the counts at exit less those
// at READY, as counted.js writes them.
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const addon = require(process.env.SLEDTRACE_PARENT_ADDON);
// counts() as [`<tid> <function>`, n], a {tid: n} count per thread.
const counted = () => Object.entries(addon.counts()).flatMap(([f, n]) => (typeof n === 'object'
  ? Object.entries(n).map(([tid, m]) => [`${tid} ${f}`, m]) : [[`${process.pid} ${f}`, n]]));
const before = Object.fromEntries(counted());

process.on('exit', () => {
  const lines = counted()
    .map(([k, n]) => [k, n - (before[k] || 0)])
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `COUNT ${k} ${n}\n`);
  fs.writeFileSync(path.join(process.env.SLEDTRACE_COUNTS, `${process.pid}.txt`), lines.join(''));
});

// Keeps the event loop alive until the signal; the child keeps it after.
const wait = setInterval(() => {}, 1 << 30);

process.once('SIGUSR2', () => {
  clearInterval(wait);
  const [cmd, ...args] = process.argv.slice(2);
  const child = spawn(cmd, args, { stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    process.exitCode = signal ? 128 + os.constants.signals[signal] : code;
  });
  // After the spawn, not before: sledtrace gives a forked child the frames
  // its parent's thread has open at the fork, and where exits are inferred
  // (a Rust object under -p) the last call's frame stays open until the
  // thread's next traced event, so the child would inherit a call.
  addon.sumSquares(12);
  addon.fib(5);
  addon.recover(4);
});
process.stdout.write('READY\n');
