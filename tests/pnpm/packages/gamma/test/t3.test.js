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
