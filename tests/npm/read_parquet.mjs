// SPDX-License-Identifier: MIT
// read_parquet.mjs: reads a pola export (events + symtab) with one
// independent Parquet reader and prints what the tests compare, as JSON:
// each file's columns and types, row counts, and entries per function
// name (a group-by the user would run), the symtab's path per function
// name; with hyparquet also the Arrow schema (ARROW:schema) as
// apache-arrow decodes it.  Given the values file too (duckdb only), also
// every captured value as [function, frame_id, name, text], in frame
// order: the join a user would write.  With duckdb also how probe_ns
// stands against each call's duration, and every entry that has a cause
// as [function, tid, frame_id, cause_kind, causing function, its tid, its
// frame_id]: the self-join a user would write.  With either reader, when
// the events have record --costs's columns, their sums over exit rows per
// function and thread ([function, tid, allocs, ...] in COST_COLS' order)
// and how many entry rows carry a count that is not 0.
// Usage: node read_parquet.mjs duckdb|hyparquet EVENTS SYMTAB [VALUES]
import { readFileSync } from 'node:fs';

const [reader, events, symtab, values] = process.argv.slice(2);
const big = (k, v) => (typeof v === 'bigint' ? v.toString() : v);
const COST_COLS = ['allocs', 'alloc_bytes', 'frees', 'syscalls', 'page_faults',
  'voluntary_switches'];

async function withDuckdb() {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const rows = async (q) => (await c.runAndReadAll(q)).getRows();
  const lit = (p) => `'${p.replaceAll("'", "''")}'`;
  const out = { files: {} };
  for (const [key, path] of [['events', events], ['symtab', symtab]]) {
    const cols = await rows(`DESCRIBE SELECT * FROM read_parquet(${lit(path)})`);
    const [[n]] = await rows(`SELECT count(*) FROM read_parquet(${lit(path)})`);
    out.files[key] = { columns: cols.map((r) => [r[0], r[1]]), rows: Number(n) };
  }
  const g = await rows(`SELECT s.name, count(*) FROM read_parquet(${lit(events)}) e
    JOIN read_parquet(${lit(symtab)}) s USING (func_id) WHERE e.kind = 1 GROUP BY s.name`);
  out.entries = Object.fromEntries(g.map(([name, n]) => [name, Number(n)]));
  const k = await rows(`SELECT kind, count(*) FROM read_parquet(${lit(events)}) GROUP BY kind`);
  out.kinds = Object.fromEntries(k.map(([kind, n]) => [String(kind), Number(n)]));
  // probe_ns: 0 on entries, at most the call's duration on exits
  const [[entryProbe, overDur, exitsWith]] = await rows(`SELECT
      count(*) FILTER (WHERE e.kind = 1 AND e.probe_ns <> 0),
      count(*) FILTER (WHERE e.kind <> 1 AND e.probe_ns > e.time - b.time),
      count(*) FILTER (WHERE e.kind <> 1 AND e.probe_ns > 0)
    FROM read_parquet(${lit(events)}) e
    JOIN read_parquet(${lit(events)}) b ON b.frame_id = e.frame_id AND b.kind = 1`);
  out.probe = { entry_nonzero: Number(entryProbe), over_duration: Number(overDur),
    exits_with_probe: Number(exitsWith) };
  const causes = await rows(`SELECT s.name, e.tid, e.frame_id, e.cause_kind, cs.name, c.tid, c.frame_id
    FROM read_parquet(${lit(events)}) e JOIN read_parquet(${lit(symtab)}) s USING (func_id)
    LEFT JOIN read_parquet(${lit(events)}) c ON c.frame_id = e.cause AND c.kind = 1
    LEFT JOIN read_parquet(${lit(symtab)}) cs ON cs.func_id = c.func_id
    WHERE e.kind = 1 AND e.cause <> 0 ORDER BY e.time`);
  out.causes = causes.map((r) => r.map((v) => (typeof v === 'bigint' ? v.toString() : v)));
  if (out.files.events.columns.some(([name]) => name === COST_COLS[0])) {
    const sums = COST_COLS.map((c) => `sum(e.${c})`).join(', ');
    const anyCost = COST_COLS.map((c) => `e.${c} <> 0`).join(' OR ');
    const c = await rows(`SELECT s.name, e.tid, ${sums} FROM read_parquet(${lit(events)}) e
      JOIN read_parquet(${lit(symtab)}) s USING (func_id) WHERE e.kind <> 1 GROUP BY ALL`);
    const [[entries]] = await rows(`SELECT count(*) FROM read_parquet(${lit(events)}) e
      WHERE e.kind = 1 AND (${anyCost})`);
    out.costs = { sums: c.map(([name, tid, ...v]) => [name, Number(tid), ...v.map(String)]),
      entries_with_costs: Number(entries) };
  }
  const p = await rows(`SELECT name, path FROM read_parquet(${lit(symtab)})`);
  out.paths = Object.fromEntries(p);
  if (values) {
    const v = await rows(`SELECT s.name, e.frame_id, v.name, v.text
      FROM read_parquet(${lit(values)}) v
      JOIN read_parquet(${lit(events)}) e ON e.frame_id = v.frame_id AND e.kind = 1
      JOIN read_parquet(${lit(symtab)}) s ON s.func_id = e.func_id
      ORDER BY e.frame_id`);
    out.values = v.map(([fn, id, name, text]) => [fn, String(id), name, text]);
  }
  return out;
}

// The Arrow schema stored beside the Parquet one (polars reads its types
// from it: Duration(ns)), decoded by Arrow's own IPC reader.
async function arrowFields(b64) {
  if (!b64) return null;
  const { tableFromIPC } = await import('apache-arrow');
  const eos = Buffer.from([255, 255, 255, 255, 0, 0, 0, 0]);
  const t = tableFromIPC(Buffer.concat([Buffer.from(b64, 'base64'), eos]));
  return t.schema.fields.map((f) => [f.name, String(f.type)]);
}

async function withHyparquet() {
  const { parquetMetadata, parquetReadObjects } = await import('hyparquet');
  const { compressors } = await import('hyparquet-compressors');
  const out = { files: {} };
  const data = {};
  for (const [key, path] of [['events', events], ['symtab', symtab]]) {
    const buf = readFileSync(path);
    const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    const md = parquetMetadata(file);
    const kv = Object.fromEntries((md.key_value_metadata || []).map((e) => [e.key, e.value]));
    out.files[key] = {
      columns: md.schema.slice(1).map((s) => [s.name, s.type, s.logical_type?.type ?? null,
        s.logical_type?.bitWidth ?? null, s.logical_type?.isSigned ?? null]),
      rows: Number(md.num_rows),
      row_groups: md.row_groups.length,
      arrow_schema: await arrowFields(kv['ARROW:schema']),
    };
    data[key] = await parquetReadObjects({ file, compressors });
    if (data[key].length !== out.files[key].rows) throw new Error(`${key}: read ${data[key].length} rows`);
  }
  const names = new Map(data.symtab.map((r) => [String(r.func_id), r.name]));
  out.paths = Object.fromEntries(data.symtab.map((r) => [r.name, r.path]));
  out.entries = {};
  out.kinds = {};
  for (const r of data.events) {
    out.kinds[String(r.kind)] = (out.kinds[String(r.kind)] || 0) + 1;
    if (Number(r.kind) !== 1) continue;
    const name = names.get(String(r.func_id));
    out.entries[name] = (out.entries[name] || 0) + 1;
  }
  if (out.files.events.columns.some(([name]) => name === COST_COLS[0])) {
    const sums = new Map();
    let entries = 0;
    for (const r of data.events) {
      if (Number(r.kind) === 1) {
        if (COST_COLS.some((c) => BigInt(r[c]) !== 0n)) entries++;
        continue;
      }
      const key = `${names.get(String(r.func_id))}\t${r.tid}`;
      const v = sums.get(key) || COST_COLS.map(() => 0n);
      COST_COLS.forEach((c, i) => { v[i] += BigInt(r[c]); });
      sums.set(key, v);
    }
    out.costs = { sums: [...sums].map(([k, v]) => {
      const [name, tid] = k.split('\t');
      return [name, Number(tid), ...v.map(String)];
    }), entries_with_costs: entries };
  }
  return out;
}

const result = reader === 'duckdb' ? await withDuckdb() : await withHyparquet();
console.log(JSON.stringify(result, big));
