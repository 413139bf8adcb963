// SPDX-License-Identifier: MIT
// A test file of package beta: node --test runs it in a process of its own.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const addon = require('../../../addon/counted.js');

test('sum of squares (beta 2)', () => {
  assert.strictEqual(addon.sumSquares(40), 20540);
});

test('fibonacci (beta 2)', () => {
  assert.strictEqual(addon.fib(9), 34);
});

test('a failure 21 frames deep, recovered (beta 2)', () => {
  assert.strictEqual(addon.recover(21), 121);
});
