// commit_async.test.mjs: Catalog.commitAsync, run by ctest (node:test). The embedder is an HTTP
// embedding service in this process, on 127.0.0.1, that can hold its answers: a commit waiting
// on it is certainly in flight, and it can answer at all only if the commit left the event loop
// free. Pinned: searches meanwhile answer from the last published catalog, a second commit waits
// for the first, close() takes effect at once and frees the catalog when the commit ends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import http from 'node:http';
import crypto from 'node:crypto';

const require = createRequire(import.meta.url);
const scout = require(process.env.SCOUT_NODE_PACKAGE);

const GITHUB = {
  name: 'github',
  description: 'Code hosting',
  tools: [{ name: 'create_pull_request', description: 'Open a pull request from a branch' },
    { name: 'list_issues', description: 'List the issues of a repository' }],
};
const PAGER = {
  name: 'pager',
  description: 'On-call paging',
  tools: [{ name: 'page_oncall', description: 'Page the engineer on call about an incident' }],
};

/** An OpenAI-style embeddings service; hold() makes it keep requests until release(). */
async function embeddingService() {
  let holding = false;
  let waiting = [];
  let heldOne = null;
  const answer = (body, res) => {
    const data = JSON.parse(body).input.map((text, index) => {
      const digest = crypto.createHash('sha256').update(text).digest();
      return { index, embedding: Array.from(digest.subarray(0, 8), (b) => b / 255 + 0.01) };
    });
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ data }));
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      if (!holding) {
        answer(body, res);
        return;
      }
      waiting.push(() => answer(body, res));
      if (heldOne) heldOne();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    /** Holds the next requests; the promise settles when the first one is held. */
    hold() {
      holding = true;
      return new Promise((resolve) => { heldOne = resolve; });
    },
    release() {
      holding = false;
      heldOne = null;
      for (const go of waiting) go();
      waiting = [];
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

function httpCatalog(service) {
  return new scout.Catalog({
    embedder: { kind: 'http', url: service.url, model: 'm', dimensions: 8, timeout_ms: 10000 },
  });
}

const servers = (result) => new Set(result.matches.map((m) => m.server));

// A build without scout::http (SCOUT_LEFT_OUT, cmake/optional_components.cmake) refuses the
// embedder these tests need, saying why; the last test checks that instead.
const leftOut = (process.env.SCOUT_LEFT_OUT || '').split(/\s+/).filter(Boolean);
const needsHttp = { skip: leftOut.includes('http') && 'built without scout::http' };

test('a build without scout::http refuses the http embedder, saying why',
  { skip: !leftOut.includes('http') && 'built with scout::http' }, () => {
    assert.throws(() => httpCatalog({ url: 'https://127.0.0.1:1/v1' }), /SCOUT_WITH_HTTP=OFF/);
  });

/** Runs body(service) with an embeddings service, released and closed however body ends. */
async function withEmbeddingService(body) {
  const service = await embeddingService();
  try {
    await body(service);
  } finally {
    service.release();
    await service.close();
  }
}

test('searches answer from the last published catalog while a commit is in flight', needsHttp, () => withEmbeddingService(async (service) => {
  const catalog = httpCatalog(service);
  catalog.upsertServers([GITHUB]);
  const first = await catalog.commitAsync();
  assert.equal(first.dense_ready, true, first.dense_error);

  catalog.upsertServers([PAGER]);
  const held = service.hold();
  const pending = catalog.commitAsync();
  const second = catalog.commitAsync();  // waits for the first inside the library
  await held;  // the first commit is embedding pager's tool, on a worker thread

  const during = catalog.search('page the engineer on call', { mode: 'bm25', topK: 20 });
  assert.equal(servers(during).has('pager'), false);
  const old = catalog.search('open a pull request', { mode: 'bm25', topK: 20 });
  assert.deepEqual([...servers(old)], ['github']);

  service.release();
  const info = await pending;
  assert.equal(info.generation, first.generation + 1);
  assert.equal(info.tools, 3);
  assert.equal(info.dense_ready, true, info.dense_error);
  const after = await second;  // nothing was staged after the first: the same tools
  assert.ok(after.generation >= info.generation);
  assert.equal(after.tools, 3);

  // bm25: a hybrid search would embed the query through this very thread, which it blocks.
  const found = catalog.search('page the engineer on call', { mode: 'bm25', topK: 1 });
  assert.equal(found.matches[0].name, 'pager_page_oncall');
  catalog.close();
}));

test('commits called together run and settle in call order', needsHttp, () => withEmbeddingService(async (service) => {
  const catalog = httpCatalog(service);
  catalog.upsertServers([GITHUB]);
  const first = await catalog.commitAsync();
  catalog.upsertServers([PAGER]);
  const held = service.hold();
  const settled = [];
  const commits = Array.from({ length: 6 }, (_, call) =>
    catalog.commitAsync().then((info) => { settled.push(call); return info; }));
  await held;  // one commit embeds pager's tool; the other five wait behind it
  service.release();
  const infos = await Promise.all(commits);
  assert.deepEqual(infos.map((info) => info.generation),
    infos.map((_, call) => first.generation + 1 + call));
  assert.deepEqual(settled, [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(infos.map((info) => info.embedded), [1, 0, 0, 0, 0, 0]);
  catalog.close();
}));

test('close() with commits waiting: each still runs in order, then the catalog is freed', needsHttp, () => withEmbeddingService(async (service) => {
  const catalog = httpCatalog(service);
  catalog.upsertServers([GITHUB, PAGER]);
  const held = service.hold();
  const commits = [catalog.commitAsync(), catalog.commitAsync(), catalog.commitAsync()];
  await held;  // the first embeds; the other two wait behind it
  catalog.close();
  await assert.rejects(catalog.commitAsync(), /the catalog is closed/);
  service.release();
  const infos = await Promise.all(commits);
  assert.deepEqual(infos.map((info) => info.generation), [1, 2, 3]);
  assert.deepEqual(infos.map((info) => info.tools), [3, 3, 3]);
  assert.throws(() => catalog.search('pull request', { mode: 'bm25' }), /the catalog is closed/);
}));

test('close() during a commit: later calls refuse at once, the commit still ends', needsHttp, () => withEmbeddingService(async (service) => {
  const catalog = httpCatalog(service);
  catalog.upsertServers([GITHUB, PAGER]);
  const held = service.hold();
  const pending = catalog.commitAsync();
  await held;
  catalog.close();
  assert.throws(() => catalog.search('pull request', { mode: 'bm25' }), /the catalog is closed/);
  await assert.rejects(catalog.commitAsync(), /the catalog is closed/);
  service.release();
  const info = await pending;  // the catalog was freed only now
  assert.equal(info.tools, 3);
}));

test('commitAsync resolves to what commit() returns', needsHttp, async () => {
  const catalog = new scout.Catalog({ embedder: 'none' });
  catalog.upsertServers([GITHUB]);
  const info = await catalog.commitAsync();
  assert.deepEqual(Object.keys(info).sort(), Object.keys(catalog.commit()).sort());
  assert.equal(info.generation, 1);
  assert.equal(info.tools, 2);
  assert.equal(info.dense_ready, false);
  assert.equal(catalog.search('open a pull request').matches[0].name, 'github_create_pull_request');
  catalog.close();
});
