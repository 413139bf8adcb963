// SPDX-License-Identifier: MIT
// A test file of package gamma: node --test runs it in a process of its own.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const addon = require('../../../addon/counted.js');

test('sum of squares (gamma 2)', () => {
  assert.strictEqual(addon.sumSquares(25), 4900);
});

test('fibonacci (gamma 2)', () => {
  assert.strictEqual(addon.fib(5), 5);
});

test('a failure 30 frames deep, recovered (gamma 2)', () => {
  assert.strictEqual(addon.recover(30), 130);
});
