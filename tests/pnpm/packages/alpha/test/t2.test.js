// SPDX-License-Identifier: MIT
// A test file of package alpha: node --test runs it in a process of its own.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const addon = require('../../../addon/counted.js');

test('sum of squares (alpha 2)', () => {
  assert.strictEqual(addon.sumSquares(20), 2470);
});

test('fibonacci (alpha 2)', () => {
  assert.strictEqual(addon.fib(7), 13);
});

test('a failure 9 frames deep, recovered (alpha 2)', () => {
  assert.strictEqual(addon.recover(9), 109);
});

// addon.c's async work (addon.rs has none: its processes run one test
// less).  Each work is awaited before the next is queued: queue_work
// queues only while every pool thread sleeps, so each run is caused by
// the queue_work call that queued it (tests/check_pnpm.py --expect-causes).
if (addon.queueWork) {
  test('async work on libuv\'s pool (alpha 2)', async () => {
    for (const n of [10, 200, 3000, 7]) {
      assert.strictEqual(await addon.queueWork(n), (n * (n - 1)) / 2);
    }
  });
}
