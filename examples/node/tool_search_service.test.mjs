// tool_search_service.test.mjs: runs tool_search_service.js on 127.0.0.1 (a free port) with the
// bundled catalog, sends it real HTTP requests, and stops it. ctest (example:node_service) runs
// it with node --test, NODE_PATH leading to the build tree's package. Every wait is bounded.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const source = process.env.SCOUT_SOURCE_DIR || path.join(here, '..', '..');
let service;
let url;

before(async () => {
  service = spawn(process.execPath, [path.join(here, 'tool_search_service.js'),
    path.join(source, 'data', 'enterprise_catalog.json'), '0', 'none'],
  { stdio: ['ignore', 'pipe', 'inherit'] });
  url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the service did not start in 60 s')), 60000);
    let out = '';
    service.stdout.on('data', (chunk) => {
      out += chunk;
      const found = /^listening on (http:\/\/127\.0\.0\.1:\d+) \(650 tools\)$/m.exec(out);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    service.on('exit', (code) => reject(new Error(`the service exited (${code}): ${out}`)));
  });
});

after(() => service.kill());

async function post(route, body) {
  const res = await fetch(url + route, { method: 'POST', body, signal: AbortSignal.timeout(30000) });
  return { status: res.status, json: await res.json() };
}

test('a search answers with the JSON of scout search --json', async () => {
  const { status, json } = await post('/search',
    JSON.stringify({ query: 'create a pull request', topK: 3, servers: ['github-enterprise'] }));
  assert.equal(status, 200);
  assert.equal(json.mode, 'bm25');
  assert.equal(json.degraded, false);
  assert.equal(json.matches.length, 3);
  assert.equal(json.matches[0].name, 'github-enterprise_create_pull_request');
});

test('bad requests get 400 with the reason', async () => {
  const cases = [['not json', /JSON/], ['{"topK": 3}', /expected \{"query"/],
    ['{"query": "x", "top_k": 3}', /unknown option 'top_k'/],
    ['{"query": "x", "topK": 21}', /topK must be 1\.\.20/],
    [JSON.stringify({ query: 'x'.repeat(70000) }), /over 64 KiB/]];
  for (const [body, reason] of cases) {
    const { status, json } = await post('/search', body);
    assert.equal(status, body.length > 65536 ? 413 : 400, body.slice(0, 40));
    assert.match(json.error, reason);
  }
});

test('health and a re-index while searches go on', async () => {
  const health = await (await fetch(url + '/health', { signal: AbortSignal.timeout(30000) })).json();
  assert.deepEqual(health, { status: 'ok', tools: 650 });
  const [reindexed, searched] = await Promise.all([post('/reindex', ''),
    post('/search', JSON.stringify({ query: 'page the on-call engineer' }))]);
  assert.deepEqual(reindexed, { status: 200, json: { tools: 650 } });
  assert.equal(searched.status, 200);
  assert.equal(searched.json.matches.length, 5);
});
