// SPDX-License-Identifier: MIT
// A test file of package gamma: node --test runs it in a process of its own.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const addon = require('../../../addon/counted.js');

test('sum of squares (gamma 3)', () => {
  assert.strictEqual(addon.sumSquares(35), 13685);
});

test('fibonacci (gamma 3)', () => {
  assert.strictEqual(addon.fib(11), 89);
});

test('a failure 40 frames deep, recovered (gamma 3)', () => {
  assert.strictEqual(addon.recover(40), 140);
});

// addon.c's async work (addon.rs has none: its processes run one test
// less).  Each work is awaited before the next is queued: queue_work
// queues only while every pool thread sleeps, so each run is caused by
// the queue_work call that queued it (tests/check_pnpm.py --expect-causes).
if (addon.queueWork) {
  test('async work on libuv\'s pool (gamma 3)', async () => {
    for (const n of [50, 4000, 1, 600, 25]) {
      assert.strictEqual(await addon.queueWork(n), (n * (n - 1)) / 2);
    }
  });
}
