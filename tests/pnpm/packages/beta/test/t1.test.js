// SPDX-License-Identifier: MIT
// A test file of package beta: node --test runs it in a process of its own.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const addon = require('../../../addon/counted.js');

test('sum of squares (beta 1)', () => {
  assert.strictEqual(addon.sumSquares(30), 8555);
});

test('fibonacci (beta 1)', () => {
  assert.strictEqual(addon.fib(8), 21);
});

test('a failure 15 frames deep, recovered (beta 1)', () => {
  assert.strictEqual(addon.recover(15), 115);
});
