// SPDX-License-Identifier: MIT
// validate_json.mjs: validates JSON documents against a JSON Schema with
// Ajv (an independent validator, draft-07), for tests/check_bmf.py.
// Prints {"FILE": null} for a valid document and {"FILE": [errors]} for
// an invalid one, and exits 1 when any is invalid.
// Usage: node validate_json.mjs SCHEMA FILE...
import { readFileSync } from 'node:fs';
import Ajv from 'ajv';

const [schemaPath, ...files] = process.argv.slice(2);
const ajv = new Ajv({ allErrors: true, strict: true });
const validate = ajv.compile(JSON.parse(readFileSync(schemaPath, 'utf8')));
const out = {};
let bad = 0;
for (const file of files) {
  // fatal: a byte that is not UTF-8 is an error, as in Bencher's reader
  const text = new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(file));
  const ok = validate(JSON.parse(text));
  out[file] = ok ? null : validate.errors;
  bad += ok ? 0 : 1;
}
console.log(JSON.stringify(out));
process.exit(bad ? 1 : 0);
