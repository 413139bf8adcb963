// SPDX-License-Identifier: MIT
// counted.js: loads the XRay-built addon (path in SLEDTRACE_ADDON) and, when
// the process exits, writes the addon's own call counters into
// $SLEDTRACE_COUNTS/<pid>.txt as `COUNT <pid> <function> <n>` lines (the
// main JS thread's tid is the pid), for tests/check_pnpm.py to compare.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const addon = require(process.env.SLEDTRACE_ADDON);

process.on('exit', () => {
  const lines = Object.entries(addon.counts())
    .filter(([, n]) => n > 0)
    .map(([f, n]) => `COUNT ${process.pid} ${f} ${n}\n`);
  fs.writeFileSync(path.join(process.env.SLEDTRACE_COUNTS, `${process.pid}.txt`), lines.join(''));
});

module.exports = addon;
