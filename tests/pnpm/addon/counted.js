// SPDX-License-Identifier: MIT
// counted.js: loads the XRay-built addon (path in SLEDTRACE_ADDON) and, when
// the process exits, writes the addon's own call counters into
// $SLEDTRACE_COUNTS/<pid>.txt as `COUNT <tid> <function> <n>` lines, for
// tests/check_pnpm.py to compare: the main JS thread's functions under its
// tid, the pid; a function counted per thread ({tid: n}, work_execute on
// libuv's pool) under each thread's.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const addon = require(process.env.SLEDTRACE_ADDON);

process.on('exit', () => {
  const lines = Object.entries(addon.counts())
    .flatMap(([f, n]) => (typeof n === 'object' ? Object.entries(n).map(([tid, m]) => [tid, f, m])
      : [[process.pid, f, n]]))
    .filter(([, , n]) => n > 0)
    .map(([tid, f, n]) => `COUNT ${tid} ${f} ${n}\n`);
  fs.writeFileSync(path.join(process.env.SLEDTRACE_COUNTS, `${process.pid}.txt`), lines.join(''));
});

module.exports = addon;
