// SPDX-License-Identifier: MIT
// A test file of package gamma: node --test runs it in a process of its own.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const addon = require('../../../addon/counted.js');

test('sum of squares (gamma 1)', () => {
  assert.strictEqual(addon.sumSquares(15), 1015);
});

test('fibonacci (gamma 1)', () => {
  assert.strictEqual(addon.fib(10), 55);
});

test('a failure 12 frames deep, recovered (gamma 1)', () => {
  assert.strictEqual(addon.recover(12), 112);
});
