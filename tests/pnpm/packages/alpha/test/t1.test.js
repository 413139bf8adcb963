// SPDX-License-Identifier: MIT
// A test file of package alpha: node --test runs it in a process of its own.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const addon = require('../../../addon/counted.js');

test('sum of squares (alpha 1)', () => {
  assert.strictEqual(addon.sumSquares(10), 285);
});

test('fibonacci (alpha 1)', () => {
  assert.strictEqual(addon.fib(6), 8);
});

test('a failure 3 frames deep, recovered (alpha 1)', () => {
  assert.strictEqual(addon.recover(3), 103);
});
