// remote_stream_e2e.mjs: the GET stream of a remote 2025-11-25 "url" backend (a session-based v1
// SDK server, legacy_http_backend.mjs, on 127.0.0.1). Usage: node remote_stream_e2e.mjs GATEWAY
// SCENARIO. "list_changed": a tool the server adds after the gateway connected becomes searchable
// through the list_changed that only the GET stream carries, and the server's ping on that stream
// is answered. "no_get_stream": a server answering 405 to GET works as before, logged once.
// "reopen": the server drops the first GET stream; the gateway opens it again and hears the
// list_changed on the second one. "resource_updated": the stdio client subscribes to the server's
// resource through the gateway and hears the updates the server sends on its GET stream, with the
// prefixed URI. Exits 0 on success, 77 (skip) without the peers, 1 on failure.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import {
  check, checkNoSanitizerReport, connectGateway, execute, has, peerPath, peersDir, requirePeers, search, tempDir, waitFor,
} from './lib.mjs';

const [gateway, scenario] = process.argv.slice(2);
const here = path.dirname(fileURLToPath(import.meta.url));
setTimeout(() => { console.error(`FAIL: scenario ${scenario} exceeded 30 s`); process.exit(1); }, 30000).unref();

const LATE = 'calibrate_flux_capacitor';

/// Starts legacy_http_backend.mjs in `mode`; resolves { url, out(), stop() }.
async function startBackend(mode) {
  const child = spawn(process.execPath, [path.join(here, 'legacy_http_backend.mjs'), path.join(peersDir(), 'node_modules'), mode],
    { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk) => { out += chunk.toString(); });
  child.stderr.on('data', (chunk) => { if (process.env.SCOUT_E2E_VERBOSE) process.stderr.write(chunk); });
  const port = await waitFor('the backend to listen', () => out.match(/listening on 127\.0\.0\.1:(\d+)/)?.[1], 10000);
  return { url: `http://127.0.0.1:${port}/mcp`, out: () => out, stop: () => child.kill('SIGKILL') };
}

const count = (text, line) => text.split('\n').filter((l) => l === line).length;

/// The late tool becomes searchable with no call of the client's reaching the backend.
async function lateToolFound(ctx) {
  const found = await waitFor(`${LATE} to become searchable`, async () => {
    const matches = await search(ctx.client, 'calibrate the flux capacitor', { top_k: 3 });
    return has(matches, 'lab', LATE) ? matches : null;
  }, 10000, 200);
  check(found[0].tool === LATE, `tool_search finds ${LATE}, added after the gateway connected`);
  const out = ctx.backend.out();
  check(count(out, 'seen tools/list') === 2 && count(out, 'seen tools/call') === 0,
    'the backend saw one listing at start and one after list_changed, and no other call');
}

const scenarios = {
  async list_changed(ctx) {
    await waitFor('the backend to add its tool', () => ctx.backend.out().includes(`added ${LATE}`), 10000);
    await lateToolFound(ctx);
    const answered = await waitFor('the ping on the GET stream to be answered',
      () => ctx.backend.out().match(/ping (answered|failed.*)/)?.[0], 5000);
    check(answered === 'ping answered', `the server's ping on the GET stream is answered (${answered})`);
    check(/seen GET session=[0-9a-f-]{36}/.test(ctx.backend.out()), 'the GET carries the session id');
  },

  async no_get_stream(ctx) {
    await waitFor('the gateway to try the GET stream', () => ctx.backend.out().includes('seen GET'), 10000);
    const matches = await search(ctx.client, 'plasma electron density', { top_k: 3 });
    check(has(matches, 'lab', 'measure_plasma_density'), 'tool_search finds the remote tool');
    const r = await execute(ctx.client, 'measure_plasma_density', 'lab', {});
    check(!r.isError && r.content[0].text.includes('density'), 'execute_tool runs it');
    await new Promise((r) => setTimeout(r, 1500));  // a retry would have come by now
    check(count(ctx.backend.out(), 'seen GET session=' + ctx.backend.out().match(/seen GET session=(\S+)/)[1]) === 1,
      'the gateway does not ask for the stream again');
    const logged = ctx.stderr().match(/offers no GET stream/g) ?? [];
    check(logged.length === 1, `the 405 is logged once (${logged.length})`);
    check(!/DEGRADED|session ended/.test(ctx.stderr()), 'the backend stays up');
  },

  async resource_updated(ctx) {
    const { ResourceUpdatedNotificationSchema } = await import(pathToFileURL(peerPath('sdk', 'dist/esm/types.js')).href);
    const heard = [];
    ctx.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { heard.push(n.params.uri); });
    await waitFor('the gateway to open the GET stream', () => ctx.backend.out().includes('seen GET'), 10000);
    const uri = 'scout-gateway://lab/note://a';
    await ctx.client.subscribeResource({ uri }, { timeout: 10000 });
    await waitFor('updates from the GET stream', () => heard.length >= 2, 5000);
    check(heard.every((u) => u === uri), `the server's updates on its GET stream reach the client, prefixed (${[...new Set(heard)]})`);
    check(count(ctx.backend.out(), 'seen resources/subscribe') === 1, 'the server saw one subscribe');
  },

  async reopen(ctx) {
    await waitFor('a second GET stream', () => (ctx.backend.out().match(/seen GET/g) ?? []).length >= 2, 10000);
    check(/GET stream: .*reopening in \d+ ms/.test(ctx.stderr()), 'the gateway logs the dropped stream');
    await lateToolFound(ctx);
  },
};

async function main() {
  requirePeers();
  if (!scenarios[scenario]) throw new Error(`unknown scenario ${scenario}`);
  const mode = { list_changed: 'stream', no_get_stream: 'no-get', reopen: 'drop-get', resource_updated: 'resources' }[scenario];
  const backend = await startBackend(mode);
  const dir = tempDir();
  const config = path.join(dir, 'servers.json');
  fs.writeFileSync(config, JSON.stringify({ mcpServers: { lab: { url: backend.url, headers: { 'X-Scout-Test': 'stream' } } } }));
  const ctx = await connectGateway(gateway, ['--config', config, '--embedder', 'none']);
  ctx.backend = backend;
  try {
    await waitFor('the backend to be listed', async () => has(await search(ctx.client, 'plasma electron density'), 'lab', 'measure_plasma_density'), 10000, 100);
    await scenarios[scenario](ctx);
    checkNoSanitizerReport(ctx.stderr());
    // With the stream open, the gateway still exits on its own when stdin closes (the SDK's
    // close() sends SIGTERM after 2 s otherwise).
    const started = Date.now();
    await ctx.client.close();
    const took = Date.now() - started;
    check(took < 1900, `the gateway exits promptly with the stream open (${took} ms)`);
    console.log(`PASS ${scenario}`);
  } catch (e) {
    console.error(`FAIL ${scenario}: ${e.stack}\n--- gateway stderr ---\n${ctx.stderr()}\n--- backend ---\n${backend.out()}`);
    process.exitCode = 1;
    await ctx.client.close();
  } finally {
    backend.stop();
  }
}

main().catch((e) => { console.error(`FAIL: ${e.stack}`); process.exit(1); });
