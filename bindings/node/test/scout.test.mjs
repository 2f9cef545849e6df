// scout.test.mjs: the Node.js package, run by ctest (node:test) against the build tree's package
// folder (SCOUT_NODE_PACKAGE): search and scope, the shipped model, topK refused outside 1..20,
// unknown options named, close(), errors carrying the status name, `degraded` as scout.h
// defines it, and a fusion calibration file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';

const require = createRequire(import.meta.url);
const scout = require(process.env.SCOUT_NODE_PACKAGE);
const catalogFile = path.join(process.env.SCOUT_SOURCE_DIR, 'data', 'enterprise_catalog.json');
const QUERY = 'create a pull request';

const MAX_TOP_K_EXPECTED = 20;

function bm25Only() {
  const catalog = new scout.Catalog({ embedder: 'none' });
  catalog.upsertServers(catalogFile);
  catalog.commit();
  return catalog;
}

test('version is the library version', () => {
  assert.match(scout.version(), /^\d+\.\d+\.\d+$/);
});

test('search within a scope', () => {
  const catalog = bm25Only();
  const result = catalog.search(QUERY, { topK: 3, servers: ['github-enterprise'] });
  assert.equal(result.query, QUERY);
  assert.ok(result.matches.length >= 1 && result.matches.length <= 3);
  assert.ok(result.matches.every((m) => m.server === 'github-enterprise'));
  assert.equal(result.matches[0].name, 'github-enterprise_create_pull_request');
  assert.equal(typeof result.matches[0].inputSchema, 'object');
  catalog.close();
});

test('the default embedder is the shipped model: hybrid, not degraded', () => {
  const catalog = new scout.Catalog();
  catalog.upsertServers(catalogFile);
  assert.equal(catalog.commit().dense_ready, true);
  const result = catalog.search(QUERY);
  assert.equal(result.mode, 'hybrid');
  assert.equal(result.degraded, false);
  assert.ok(result.matches.some((m) => m.dense_rank > 0));
  catalog.close();
});

test('degraded only when the dense branch was wanted and absent', () => {
  const catalog = bm25Only();
  const chosen = catalog.search(QUERY);
  assert.equal(chosen.mode, 'bm25');
  assert.equal(chosen.degraded, false);
  const asked = catalog.search(QUERY, { mode: 'hybrid' });
  assert.equal(asked.degraded, true);
  assert.equal(asked.degraded_reason, 'no embedder configured');
  catalog.close();
});

test('topK outside 1..20 is refused with the range', () => {
  const catalog = bm25Only();
  for (const topK of [0, -1, 21, 2.5]) {
    assert.throws(() => catalog.search(QUERY, { topK }),
      { name: 'RangeError', message: `topK must be 1..20 (got ${topK})` });
  }
  assert.equal(catalog.search(QUERY, { topK: 20 }).matches.length, 20);
  catalog.close();
});

test('unknown options are named', () => {
  const catalog = bm25Only();
  assert.throws(() => catalog.search(QUERY, { top_k: 3 }), /unknown option 'top_k'; it takes topK/);
  assert.throws(() => new scout.Catalog({ embeder: 'none' }), /unknown option 'embeder'/);
  catalog.close();
});

test('errors carry the status name; a closed catalog refuses', () => {
  assert.throws(() => new scout.Catalog({ embedder: 'word2vec' }), { code: 'invalid_argument' });
  const catalog = bm25Only();
  assert.throws(() => catalog.search(''), { code: 'invalid_argument' });
  assert.throws(() => catalog.removeServer('nobody'), { code: 'not_found' });
  catalog.close();
  assert.throws(() => catalog.search(QUERY), /the catalog is closed/);
});

function writeCalibration(dir, name, model, weight) {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `scout-calibration 1\nmodel ${model}\nfusion.method gated\n` +
    `fusion.gated_dense_weight ${weight}\nfusion.overlap_power 0\nend\n`);
  return file;
}

function hashingScores(options) {
  const catalog = new scout.Catalog({ embedder: 'hashing:16', ...options });
  catalog.upsertServers(catalogFile);
  catalog.commit();
  const scores = catalog.search(QUERY, { topK: 10 }).matches.map((m) => [m.name, m.score]);
  catalog.close();
  return scores;
}

test('calibration: a scout calibrate file sets the fusion; bad files are refused by name', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scout-node-calibration-'));
  try {
    const good = writeCalibration(dir, 'good.txt', 'scout-hashing-v1-16', 3);
    const plain = hashingScores({});
    // The dense branch weighs in: the fused scores move.
    assert.notDeepEqual(hashingScores({ calibration: good }), plain);
    // Settings given in "options" win over the file's (here, back to the defaults).
    const back = { fusion: { gated_dense_weight: 0, overlap_power: 2 } };
    assert.deepEqual(hashingScores({ calibration: good, options: back }), plain);

    const other = writeCalibration(dir, 'other.txt', 'scout-hashing-v1-32', 3);
    assert.throws(() => new scout.Catalog({ embedder: 'hashing:16', calibration: other }),
      (error) => error.code === 'embedder_mismatch' && error.message.includes(other));
    const truncated = path.join(dir, 'truncated.txt');
    fs.writeFileSync(truncated, 'scout-calibration 1\nmodel scout-hashing-v1-16\n');
    assert.throws(() => new scout.Catalog({ embedder: 'hashing:16', calibration: truncated }),
      { code: 'invalid_argument', message: /truncated/ });
    assert.throws(() => new scout.Catalog({ embedder: 'hashing:16',
      calibration: path.join(dir, 'missing.txt') }), { code: 'not_found', message: /missing\.txt/ });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('alternatives: other phrasings of the query, searched and fused', () => {
  const catalog = bm25Only();
  assert.equal(catalog.search('zzqx').matches.length, 0);
  const result = catalog.search('zzqx', { alternatives: ['create a pull request'], topK: 3 });
  assert.ok(result.matches.some((m) => m.name === 'github-enterprise_create_pull_request'));
  // Only the alternative matches anything, so it is every match's best phrasing.
  assert.deepEqual(result.matches.map((m) => m.best_phrasing), result.matches.map(() => 1));
  assert.ok(catalog.search('create a pull request').matches.every((m) => !('best_phrasing' in m)));
  assert.throws(() => catalog.search('q', { alternatives: 'x' }),
    { code: 'invalid_argument', message: /'alternatives' must be an array of strings/ });
  assert.throws(() => catalog.search('q', { alternatives: Array(9).fill('x') }),
    { code: 'invalid_argument', message: /at most 8/ });
  catalog.close();
});

test('maxTokens: the matches fitted to a token budget', () => {
  const catalog = bm25Only();
  assert.throws(() => catalog.search(QUERY, { maxTokens: -5 }),
    { code: 'invalid_argument', message: /'max_tokens' must be a whole number in 1\.\..*got -5/ });
  assert.throws(() => catalog.search(QUERY, { maxTokens: 2.5 }), { code: 'invalid_argument' });
  assert.throws(() => catalog.search(QUERY, { maxTokens: '100' }), { code: 'invalid_argument' });
  let all;
  try {
    all = catalog.search(QUERY, { maxTokens: 1e6 });
  } catch (error) {
    // Without rank files the error names what is missing; the run must not require them.
    assert.equal(error.code, 'not_found');
    assert.match(error.message, /cl100k_base/);
    assert.ok(!process.env.SCOUT_REQUIRE_FIXTURES, 'rank files required');
    catalog.close();
    return;
  }
  assert.equal(all.matches.length, MAX_TOP_K_EXPECTED);  // without topK the budget decides
  assert.equal(all.omitted, 0);
  assert.equal(all.tokens, all.matches.reduce((sum, m) => sum + m.tokens, 0));
  const first = all.matches[0];
  // Below one match: the first is kept whole, the rest omitted.
  const one = catalog.search(QUERY, { maxTokens: 1 });
  assert.equal(one.matches.length, 1);
  assert.deepEqual(one.matches[0].trimmed, []);
  assert.equal(one.matches[0].name, first.name);
  assert.equal(one.tokens, first.tokens);
  assert.equal(one.omitted, all.matches.length - 1);
  // Room for a few matches: the later ones are omitted and the total fits.
  const budget = first.tokens + all.matches[1].tokens + 10;
  const some = catalog.search(QUERY, { maxTokens: budget });
  assert.ok(some.omitted > 0);
  assert.ok(some.matches.length >= 2);
  assert.ok(some.tokens <= budget);
  assert.equal(some.matches.length + some.omitted, all.matches.length);
  // topK still bounds what is considered.
  assert.equal(catalog.search(QUERY, { maxTokens: 1e6, topK: 3 }).matches.length, 3);
  catalog.close();
});

test('doctor: the report of scout doctor --json', () => {
  const servers = [{ name: 'files', tools: [{ name: 'read' },
    { name: 'write', description: 'Write a file to the disk, replacing what it held' }] }];
  const report = scout.doctor(servers, { embedder: 'none' });
  assert.equal(report.summary.tools, 2);
  assert.ok(report.findings.some((f) => f.tool === 'read' && f.severity === 'error'));
  assert.equal(scout.doctor(catalogFile, { embedder: 'none' }).summary.tools, 650);
  assert.throws(() => scout.doctor({ servers: 1 }), { code: 'invalid_argument' });
  assert.throws(() => scout.doctor(servers, { embeder: 'none' }), /unknown option 'embeder'/);
});

test('save and open an index file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scout-node-'));
  try {
    const catalog = bm25Only();
    const file = path.join(dir, 'enterprise.scoutidx');
    catalog.save(file);
    catalog.close();
    const opened = scout.Catalog.open(file, { embedder: 'none' });
    assert.equal(opened.search(QUERY, { topK: 1 }).matches[0].tool, 'create_pull_request');
    opened.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
