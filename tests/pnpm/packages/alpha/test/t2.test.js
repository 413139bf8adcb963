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
