// modern_e2e.mjs: scout-gateway under a client of the stateless MCP revision 2026-07-28 (the
// v2 TypeScript SDK, @modelcontextprotocol/client, which probes with server/discover), next to
// the legacy v1 SDK client in the same scenario. Usage: node modern_e2e.mjs GATEWAY SCENARIO.
// Exits 0 on success, 77 (skip) when the MCP peers are not installed, 1 on failure.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

import {
  check, checkNoSanitizerReport, connectGateway, connectModernGateway, execute, has, modernSdk, peerPath, peersDir, requireModernPeers, search,
  startListeningGateway, tempDir, waitFor, writeConfig,
} from './lib.mjs';

const [gateway, scenario] = process.argv.slice(2);
const here = path.dirname(fileURLToPath(import.meta.url));
const CALL = { timeout: 15000 };
const VERSION = '2026-07-28';
const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const SUB = 'io.modelcontextprotocol/subscriptionId';

setTimeout(() => { console.error(`FAIL: scenario ${scenario} exceeded 60 s`); process.exit(1); }, 60000).unref();


/// The gateway on plain pipes, for the messages no SDK sends (bad envelopes): request(msg)
/// resolves with the response of the same id.
function rawGateway(args) {
  const child = spawn(gateway, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let log = '';
  child.stderr.on('data', (d) => { log += d; });
  const waiting = new Map();
  const notes = [];
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const m = JSON.parse(line);
    if (m.id !== undefined && waiting.has(JSON.stringify(m.id))) waiting.get(JSON.stringify(m.id))(m);
    else notes.push(m);
  });
  return {
    child, notes, stderr: () => log,
    request(message) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to ${JSON.stringify(message)}`)), 15000);
        waiting.set(JSON.stringify(message.id), (m) => { clearTimeout(timer); resolve(m); });
        child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
      });
    },
    close() { child.stdin.end(); return new Promise((r) => child.on('exit', r)); },
  };
}

const TOKEN = 'modern-token-0123456789abcdef';

async function connectHttp(url, mode = { mode: 'auto' }) {
  const { Client, StreamableHTTPClientTransport } = await modernSdk();
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } });
  const client = new Client({ name: 'scout-e2e-modern-http', version: '1.0.0' }, { versionNegotiation: mode });
  await client.connect(transport, { timeout: 30000 });
  return client;
}

/// One raw POST: resolves { status, body (parsed JSON or null), text }.
async function post(url, message, headers = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${TOKEN}`, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
  const text = await res.text();
  let body = null;
  try { body = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, body, text, headers: res.headers };
}

/// Starts an HTTP upstream script (it prints "listening on 127.0.0.1:PORT"); resolves
/// { url, out(), stop() }.
async function startUpstream(script, args = []) {
  const child = spawn(process.execPath, [path.join(here, script), ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk) => { out += chunk.toString(); });
  child.stderr.on('data', (chunk) => { if (process.env.SCOUT_E2E_VERBOSE) process.stderr.write(chunk); });
  const port = await waitFor(`${script} to listen`, () => out.match(/listening on 127\.0\.0\.1:(\d+)/)?.[1], 30000);
  return { url: `http://127.0.0.1:${port}/mcp`, out: () => out, stop: () => child.kill('SIGKILL') };
}

const envelope = (extra = {}) => ({ _meta: { [PV]: VERSION, [CAPS]: {}, ...extra } });

const scenarios = {
  // discover, list, search, execute with the v2 SDK; then a v1 client on its own gateway.
  async stdio_basics(ctx) {
    const { client } = ctx.modern;
    check(client.getNegotiatedProtocolVersion() === VERSION,
      `the v2 client negotiated ${client.getNegotiatedProtocolVersion()} via server/discover`);
    check(client.getServerVersion()?.name === 'scout-gateway', 'serverInfo comes with the discover result');
    const discovered = await client.discover(CALL);
    check(discovered.supportedVersions.includes(VERSION) && discovered.capabilities.tools?.listChanged === true,
      `server/discover lists ${discovered.supportedVersions} and the tools capability`);
    check(Number.isInteger(discovered.ttlMs) && discovered.cacheScope === 'public', 'discover carries ttlMs and cacheScope');
    const list = await client.listTools(undefined, CALL);
    check(JSON.stringify(list.tools.map((t) => t.name)) === '["tool_search","execute_tool"]',
      'tools/list returns the two meta-tools');
    const matches = await search(client, 'repeat my message back to me');
    check(has(matches, 'everything', 'echo'), 'tool_search finds everything/echo');
    const r = await execute(client, 'echo', 'everything', { message: 'hello from 2026' });
    check(!r.isError && r.content[0].text.includes('hello from 2026'), `execute_tool runs echo: "${r.content[0].text}"`);

    const legacy = await connectGateway(gateway, ctx.args);
    try {
      check(legacy.client.getServerVersion()?.name === 'scout-gateway', 'a v1 (2025-11-25) client initializes as before');
      check(has(await search(legacy.client, 'repeat my message back to me'), 'everything', 'echo'), 'and searches');
      check((await legacy.client.ping(CALL)) !== undefined, 'and pings');
    } finally {
      await legacy.client.close();
    }
  },

  // The wire itself: ttlMs/cacheScope/resultType on a raw tools/list, and the error codes.
  async stdio_errors(ctx) {
    const gw = rawGateway(ctx.args);
    try {
      const listed = await gw.request({ id: 1, method: 'tools/list', params: envelope() });
      check(listed.result?.resultType === 'complete' && listed.result.ttlMs > 0 && listed.result.cacheScope === 'public',
        `a modern tools/list carries resultType, ttlMs ${listed.result?.ttlMs} and cacheScope ${listed.result?.cacheScope}`);
      check(listed.result.tools.length === 2, 'with the two meta-tools, no initialize needed');
      const noVersion = await gw.request({ id: 2, method: 'tools/list', params: { _meta: { [CAPS]: {} } } });
      check(noVersion.error?.code === -32602, `_meta without the protocol version -> -32602 (${noVersion.error?.message})`);
      const noCaps = await gw.request({ id: 3, method: 'tools/list', params: { _meta: { [PV]: VERSION } } });
      check(noCaps.error?.code === -32602, '_meta without client capabilities -> -32602');
      const badType = await gw.request({ id: 4, method: 'tools/list', params: { _meta: { [PV]: 20260728, [CAPS]: {} } } });
      check(badType.error?.code === -32602, 'a protocol version that is not a string -> -32602');
      const bad = await gw.request({ id: 5, method: 'tools/list', params: envelope({ [PV]: '2099-01-01' }) });
      check(bad.error?.code === -32022 && bad.error.data?.supported?.includes(VERSION),
        `an unsupported version -> -32022 with the supported list ${JSON.stringify(bad.error?.data)}`);
      const ping = await gw.request({ id: 6, method: 'ping', params: envelope() });
      check(ping.error?.code === -32601, 'no ping in the modern era -> -32601');
      const level = await gw.request({ id: 7, method: 'logging/setLevel', params: envelope() });
      check(level.error?.code === -32601, 'no logging/setLevel in the modern era -> -32601');
      const badLevel = await gw.request({ id: 8, method: 'tools/list', params: envelope({ 'io.modelcontextprotocol/logLevel': 'loud' }) });
      check(badLevel.error?.code === -32602, 'a log level outside the spec\'s -> -32602');
      const legacyEarly = await gw.request({ id: 9, method: 'tools/list', params: {} });
      check(legacyEarly.error?.code === -32600, 'a legacy request before initialize is refused as before (-32600)');
      const init = await gw.request({ id: 10, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
      check(init.result?.protocolVersion === '2025-11-25', 'initialize still makes the process legacy');
      const after = await gw.request({ id: 11, method: 'tools/list', params: envelope() });
      check(after.result?.resultType === 'complete', 'and a modern request is still served per message after it');
      const legacyList = await gw.request({ id: 12, method: 'tools/list', params: {} });
      check(legacyList.result && legacyList.result.resultType === undefined && legacyList.result.ttlMs === undefined,
        'legacy results carry no modern fields');
    } finally {
      await gw.close();
    }
  },

  // subscriptions/listen: acknowledged, a tagged list_changed when a backend changes, and a
  // complete result when the gateway shuts down gracefully.
  async stdio_subscription(ctx) {
    const { client, transport } = ctx.modern;
    const changes = [];
    client.setNotificationHandler('notifications/tools/list_changed', (n) => { changes.push(n); });
    const sub = await client.listen({ toolsListChanged: true, promptsListChanged: true }, CALL);
    check(sub.honoredFilter.toolsListChanged === true && sub.honoredFilter.promptsListChanged === undefined,
      `the gateway acknowledges the filter it honours: ${JSON.stringify(sub.honoredFilter)}`);
    const r = await execute(client, 'add_tool', 'fake', { name: 'turbo_encabulator_calibrate', description: 'Calibrate the turbo encabulator' });
    check(!r.isError, 'add_tool ran on the fake (legacy) backend');
    await waitFor('tools/list_changed on the subscription', () => changes.length > 0, 10000);
    check(true, `the backend's change reached the subscriber (${changes.length} notification(s))`);
    // The first notification may be a backend's start-up indexing, not yet the fake's change.
    await waitFor('the new tool to be searchable', async () =>
      (await search(client, 'calibrate the turbo encabulator', { top_k: 3 }))[0]?.tool === 'turbo_encabulator_calibrate', 10000);
    check(true, 'the new tool is searchable');
    process.kill(transport.pid, 'SIGTERM');
    const cause = await Promise.race([sub.closed, new Promise((r) => setTimeout(() => r('timeout'), 10000))]);
    check(cause === 'graceful', `a graceful shutdown ends the subscription with a complete result (${cause})`);
  },

  // Raw subscription wire: the subscription id on the ack and on each notification.
  async stdio_subscription_wire(ctx) {
    const gw = rawGateway(ctx.args);
    try {
      const ack = new Promise((resolve) => {
        const t = setInterval(() => {
          const a = gw.notes.find((n) => n.method === 'notifications/subscriptions/acknowledged');
          if (a) { clearInterval(t); resolve(a); }
        }, 20);
      });
      gw.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 'listen-1', method: 'subscriptions/listen', params: { ...envelope(), notifications: { toolsListChanged: true } } }) + '\n');
      const a = await ack;
      check(a.params._meta[SUB] === 'listen-1' && a.params.notifications.toolsListChanged === true,
        'the acknowledgement names the subscription id (the listen request id)');
      const run = await gw.request({ id: 2, method: 'tools/call', params: { ...envelope(), name: 'execute_tool', arguments: { tool_name: 'add_tool', server_name: 'fake', arguments: { name: 'flux_capacitor_charge' } } } });
      check(run.result?.resultType === 'complete' && !run.result.isError, 'a modern execute_tool result is complete');
      await waitFor('a tagged list_changed', () => gw.notes.some((n) => n.method === 'notifications/tools/list_changed'), 10000);
      const changed = gw.notes.filter((n) => n.method === 'notifications/tools/list_changed');
      check(changed.every((n) => n.params?._meta?.[SUB] === 'listen-1'), 'every list_changed carries the subscription id');
      // The list_changed seen may be a backend's start-up indexing: wait until the added tool
      // is indexed and the gateway has gone quiet, so no earlier change is still on its way.
      await waitFor('the added tool to be indexed', async () => {
        const s = await gw.request({ id: `f${Date.now()}`, method: 'tools/call', params: { ...envelope(), name: 'tool_search', arguments: { query: 'flux_capacitor_charge', top_k: 1 } } });
        return s.result?.structuredContent?.matches?.[0]?.tool === 'flux_capacitor_charge';
      }, 10000);
      await waitFor('no notification for 300 ms', async () => {
        const seen = gw.notes.length;
        await new Promise((r) => setTimeout(r, 300));
        return gw.notes.length === seen;
      }, 10000);
      gw.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'listen-1' } }) + '\n');
      const before = gw.notes.length;
      await gw.request({ id: 3, method: 'tools/call', params: { ...envelope(), name: 'execute_tool', arguments: { tool_name: 'add_tool', server_name: 'fake', arguments: { name: 'warp_core_eject' } } } });
      await waitFor('the third tool to be indexed', async () => {
        const s = await gw.request({ id: `s${Date.now()}`, method: 'tools/call', params: { ...envelope(), name: 'tool_search', arguments: { query: 'warp_core_eject', top_k: 1 } } });
        return s.result?.structuredContent?.matches?.[0]?.tool === 'warp_core_eject';
      }, 10000);
      check(!gw.notes.slice(before).some((n) => n.method === 'notifications/tools/list_changed'),
        'a cancelled subscription gets no more notifications (and a client without one never does)');
    } finally {
      await gw.close();
    }
  },

  // A modern upstream (the v2 SDK's serveStdio) and legacy ones behind one gateway: both
  // indexed, both executable, each era detected (the gateway logs its verdict per process).
  async mixed_upstreams(ctx) {
    const { client, stderr } = ctx.modern;
    await waitFor('both eras in the log', () => /backend 'modern' speaks 2026-07-28 \(stateless/.test(stderr()) &&
      /backend 'memory' speaks 2025-11-25 \(legacy/.test(stderr()), 15000);
    check(true, 'the v2 server is detected as 2026-07-28 (server/discover), server-memory as 2025-11-25 (initialize)');
    check(/backend 'fake' speaks 2025-11-25 \(legacy/.test(stderr()), 'a hand-written legacy server answering -32601 falls back to initialize');
    const flux = await search(client, 'measure the magnetic flux density', { top_k: 3 });
    check(has(flux, 'modern', 'measure_flux_density'), 'the modern upstream\'s tool is indexed');
    const r = await execute(client, 'measure_flux_density', 'modern', {});
    check(!r.isError && r.content[0].text.includes('1.21 tesla'), `the modern upstream's tool runs: "${r.content[0].text}"`);
    const installed = await execute(client, 'install_plasma_coil', 'modern', {});
    check(!installed.isError, 'a tool of the modern upstream adds another tool');
    await waitFor('the modern upstream\'s new tool to be indexed', async () =>
      has(await search(client, 'calibrate the plasma coil windings', { top_k: 3 }), 'modern', 'calibrate_plasma_coil'), 10000);
    check(true, 'its list change, delivered on the gateway\'s subscriptions/listen stream, re-indexed it');
    const coil = await execute(client, 'calibrate_plasma_coil', 'modern', {});
    check(!coil.isError && coil.content[0].text === 'coil calibrated', 'and the new tool runs');
    check(has(await search(client, 'count widgets in the warehouse'), 'fake', 'count_widgets'),
      'the legacy upstream\'s paginated tools are indexed');
    const w = await execute(client, 'count_widgets', 'fake', {});
    check(!w.isError && w.content[0].text === 'ran count_widgets', 'and run');
    const legacy = await connectGateway(gateway, ctx.args);
    try {
      const v1 = await legacy.client.callTool({ name: 'execute_tool', arguments: { tool_name: 'measure_flux_density', server_name: 'modern', arguments: {} } }, undefined, CALL);
      check(!v1.isError && v1.content[0].text.includes('1.21 tesla'), 'a v1 client runs the modern upstream\'s tool too');
    } finally {
      await legacy.client.close();
    }
  },

  // Remote ("url") upstreams of both eras behind one gateway: a modern-only v2 server (it
  // refuses initialize) and the v1 server-everything (sessions); each probed with
  // server/discover, each era detected, both indexed and executable.
  async remote_upstreams(ctx) {
    const { client, stderr } = ctx.modern;
    await waitFor('both remote eras in the log', () => /backend 'modern_http' speaks 2026-07-28 \(stateless/.test(stderr()) &&
      /backend 'remote' speaks \d{4}-\d\d-\d\d \(legacy/.test(stderr()), 20000);
    check(true, 'the modern HTTP upstream is detected as 2026-07-28, server-everything over HTTP as legacy');
    const seen = ctx.upstreams.modern.out();
    check(/^seen server\/discover session=none$/m.test(seen) && !/seen initialize/.test(seen),
      'the modern upstream got server/discover and never initialize');
    const ion = await search(client, 'measure the ion drift velocity', { top_k: 3 });
    check(has(ion, 'modern_http', 'measure_ion_drift'), 'the modern HTTP upstream\'s tool is indexed');
    const r = await execute(client, 'measure_ion_drift', 'modern_http', {});
    check(!r.isError && r.content[0].text === 'ion drift: 42 m/s', `the modern HTTP upstream's tool runs: "${r.content[0].text}"`);
    check(/^seen tools\/call session=none$/m.test(ctx.upstreams.modern.out()), 'statelessly (no Mcp-Session-Id)');
    const echo = await search(client, 'echo back a message', { top_k: 5 });
    check(has(echo, 'remote', 'echo'), 'the legacy HTTP upstream\'s tool is indexed');
    const e = await execute(client, 'echo', 'remote', { message: 'across both eras' });
    check(!e.isError && e.content[0].text.includes('across both eras'), `the legacy HTTP upstream's tool runs: "${e.content[0].text}"`);
  },

  // Streamable HTTP, stateless: discover, list (private cache scope: the list depends on the
  // bearer token's scope), search, execute; a subscription on the POST's event stream; a v1
  // client (sessions) on the same listener.
  async http_basics(ctx) {
    const client = await connectHttp(ctx.http.url);
    check(client.getNegotiatedProtocolVersion() === VERSION, `the v2 client negotiated ${client.getNegotiatedProtocolVersion()} over HTTP`);
    const list = await client.listTools(undefined, CALL);
    check(JSON.stringify(list.tools.map((t) => t.name)) === '["tool_search","execute_tool"]', 'tools/list returns the two meta-tools');
    const raw = await post(ctx.http.url, { id: 1, method: 'tools/list', params: envelope() },
      { 'MCP-Protocol-Version': VERSION, 'Mcp-Method': 'tools/list' });
    check(raw.status === 200 && raw.body.result.cacheScope === 'private' && raw.body.result.ttlMs > 0 && raw.body.result.resultType === 'complete',
      `a raw tools/list: ttlMs ${raw.body?.result?.ttlMs}, cacheScope ${raw.body?.result?.cacheScope} (the list depends on the caller)`);
    check(raw.headers.get('mcp-session-id') === null, 'and no session id');
    check(has(await search(client, 'repeat my message back to me'), 'everything', 'echo'), 'tool_search finds everything/echo');
    const r = await execute(client, 'echo', 'everything', { message: 'hello over http' });
    check(!r.isError && r.content[0].text.includes('hello over http'), 'execute_tool runs echo over HTTP');

    const changes = [];
    client.setNotificationHandler('notifications/tools/list_changed', (n) => { changes.push(n); });
    const sub = await client.listen({ toolsListChanged: true }, CALL);
    check(sub.honoredFilter.toolsListChanged === true, 'subscriptions/listen is acknowledged over HTTP');
    const added = await execute(client, 'add_tool', 'fake', { name: 'turbo_encabulator_calibrate' });
    check(!added.isError, 'add_tool ran on the fake backend');
    await waitFor('tools/list_changed on the HTTP subscription', () => changes.length > 0, 10000);
    check(true, 'the backend\'s change reached the HTTP subscriber');

    const { Client: V1Client } = await import(pathToFileURL(peerSdk('client/index.js')).href);
    const { StreamableHTTPClientTransport: V1Transport } = await import(pathToFileURL(peerSdk('client/streamableHttp.js')).href);
    const v1 = new V1Client({ name: 'v1', version: '1' });
    await v1.connect(new V1Transport(new URL(ctx.http.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }), { timeout: 30000 });
    check(has(await search(v1, 'repeat my message back to me'), 'everything', 'echo'), 'a v1 client with a session works on the same listener');
    await v1.close();
    const graceful = Promise.race([sub.closed, new Promise((r) => setTimeout(() => r('timeout'), 10000))]);
    const code = await ctx.http.stop();
    check(code === 0, `the gateway exits cleanly on SIGTERM (${code})`);
    check(await graceful !== 'timeout', `the subscription ends when the gateway stops (${await graceful})`);
    await client.close();
  },

  // The HTTP error rules of the stateless era.
  async http_errors(ctx) {
    const url = ctx.http.url;
    const h = (method, extra = {}) => ({ 'MCP-Protocol-Version': VERSION, 'Mcp-Method': method, ...extra });
    const noMeta = await post(url, { id: 1, method: 'tools/list', params: {} }, h('tools/list'));
    check(noMeta.status === 400 && noMeta.body?.error?.code === -32602, `no _meta -> 400 / -32602 (${noMeta.status} ${noMeta.body?.error?.code})`);
    const badVersion = await post(url, { id: 2, method: 'tools/list', params: envelope({ [PV]: '2099-01-01' }) },
      h('tools/list', { 'MCP-Protocol-Version': '2099-01-01' }));
    check(badVersion.status === 400 && badVersion.body?.error?.code === -32022 && badVersion.body.error.data.supported.includes(VERSION),
      `an unsupported version -> 400 / -32022 with the supported list (${badVersion.status})`);
    const versionMismatch = await post(url, { id: 3, method: 'tools/list', params: envelope() },
      h('tools/list', { 'MCP-Protocol-Version': '2025-11-25' }));
    check(versionMismatch.status === 400 && versionMismatch.body?.error?.code === -32020,
      `MCP-Protocol-Version unequal to the _meta version -> 400 / -32020 (${versionMismatch.status} ${versionMismatch.body?.error?.code})`);
    const noMethod = await post(url, { id: 4, method: 'tools/list', params: envelope() }, { 'MCP-Protocol-Version': VERSION });
    check(noMethod.status === 400 && noMethod.body?.error?.code === -32020, 'a missing Mcp-Method -> 400 / -32020');
    const methodMismatch = await post(url, { id: 5, method: 'tools/list', params: envelope() }, h('tools/call'));
    check(methodMismatch.status === 400 && methodMismatch.body?.error?.code === -32020, 'an Mcp-Method unequal to the body -> 400 / -32020');
    const call = (id, name, extra) => post(url, { id, method: 'tools/call', params: { ...envelope(), name, arguments: { query: 'echo' } } }, h('tools/call', extra));
    const noName = await call(6, 'tool_search', {});
    check(noName.status === 400 && noName.body?.error?.code === -32020, 'tools/call without Mcp-Name -> 400 / -32020');
    const badName = await call(7, 'tool_search', { 'Mcp-Name': 'execute_tool' });
    check(badName.status === 400 && badName.body?.error?.code === -32020, 'an Mcp-Name unequal to params.name -> 400 / -32020');
    const badBase64 = await call(8, 'tool_search', { 'Mcp-Name': '=?base64?not base64!?=' });
    check(badBase64.status === 400 && badBase64.body?.error?.code === -32020, 'an Mcp-Name with bad base64 -> 400 / -32020');
    const encoded = await call(9, 'tool_search', { 'Mcp-Name': `=?base64?${Buffer.from('tool_search').toString('base64')}?=` });
    check(encoded.status === 200 && encoded.body?.result?.resultType === 'complete', 'a base64-encoded Mcp-Name that matches is served');
    const unicode = await call(10, 'tööl_search', { 'Mcp-Name': `=?base64?${Buffer.from('tööl_search').toString('base64')}?=` });
    check(unicode.body?.error?.code === -32602 && /Unknown tool 'tööl_search'/.test(unicode.body.error.message),
      `a non-ASCII name travels base64-encoded (and is an unknown tool) (${unicode.status} ${JSON.stringify(unicode.body)})`);
    const unknown = await post(url, { id: 11, method: 'no/such', params: envelope() }, h('no/such'));
    check(unknown.status === 404 && unknown.body?.error?.code === -32601, `an unknown method -> 404 / -32601 (${unknown.status})`);
    const ping = await post(url, { id: 12, method: 'ping', params: envelope() }, h('ping'));
    check(ping.status === 404 && ping.body?.error?.code === -32601, 'ping does not exist in the modern era -> 404 / -32601');
    const get = await fetch(url, { headers: { Accept: 'text/event-stream', 'MCP-Protocol-Version': VERSION, Authorization: `Bearer ${TOKEN}` } });
    check(get.status === 405, `no GET stream in the modern era (${get.status})`);
    await get.text();
    const cancel = await post(url, { method: 'notifications/cancelled', params: { requestId: 'listen:9' } }, { 'MCP-Protocol-Version': VERSION });
    check(cancel.status === 202, `a modern notification without an envelope is accepted (${cancel.status})`);
    const legacy = await post(url, { id: 13, method: 'tools/list', params: {} });
    check(legacy.status === 400 && legacy.body?.error?.code === -32600, 'a legacy request without a session is refused as before');
    const code = await ctx.http.stop();
    check(code === 0, `the gateway exits cleanly on SIGTERM (${code})`);
  },
};

/// The v1 SDK's (1.32.2) ESM file `rel`.
const peerSdk = (rel) => peerPath('sdk', `dist/esm/${rel}`);

async function main() {
  requireModernPeers();
  if (!scenarios[scenario]) throw new Error(`unknown scenario ${scenario}`);
  const dir = tempDir();
  const extra = scenario.startsWith('stdio_subscription') || scenario === 'http_basics' || scenario === 'mixed_upstreams'
    ? { fake: { command: process.execPath, args: [path.join(here, 'fake_backend.mjs')] } } : {};
  if (scenario === 'mixed_upstreams') {
    extra.modern = { command: process.execPath, args: [path.join(here, 'modern_backend.mjs'), path.join(peersDir(), 'node_modules')] };
  }
  const ctx = { dir };
  if (scenario === 'remote_upstreams') {
    ctx.upstreams = {
      modern: await startUpstream('modern_http_backend.mjs', [path.join(peersDir(), 'node_modules')]),
      legacy: await startUpstream('remote_everything.mjs'),
    };
    extra.modern_http = { url: ctx.upstreams.modern.url };
    extra.remote = { url: ctx.upstreams.legacy.url };
  }
  const args = ['--config', writeConfig(dir, extra)];
  ctx.args = args;
  if (scenario.startsWith('http_')) {
    const auth = path.join(dir, 'auth.json');
    fs.writeFileSync(auth, JSON.stringify({ callers: [{ name: 'modern', token: TOKEN }] }));
    const gw = await startListeningGateway(gateway, [...args, '--auth-file', auth, '--embedder', 'none']);
    ctx.http = { ...gw, url: `${gw.url}/mcp` };
  }
  const usesClient = ['stdio_basics', 'stdio_subscription', 'mixed_upstreams', 'remote_upstreams'].includes(scenario);
  if (usesClient) ctx.modern = await connectModernGateway(gateway, args);
  try {
    await scenarios[scenario](ctx);
    if (ctx.modern) checkNoSanitizerReport(ctx.modern.stderr());
    console.log(`PASS ${scenario}`);
  } catch (e) {
    console.error(`FAIL ${scenario}: ${e.stack}\n--- gateway stderr ---\n${ctx.modern?.stderr() ?? ctx.http?.stderr() ?? ''}`);
    process.exitCode = 1;
    await ctx.http?.stop();
  } finally {
    await ctx.modern?.client.close();
    ctx.upstreams?.modern.stop();
    ctx.upstreams?.legacy.stop();
  }
}

main().catch((e) => { console.error(`FAIL: ${e.stack}`); process.exit(1); });
