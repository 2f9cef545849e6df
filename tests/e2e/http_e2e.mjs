// http_e2e.mjs: end-to-end tests of scout-gateway's Streamable HTTP transport (--listen), driven
// by the official TypeScript SDK client. Usage: node http_e2e.mjs GATEWAY SCENARIO. The gateway
// listens on 127.0.0.1 (a free port) with an auth file of three callers. Exits 0 on success, 77
// (skip) when the MCP peers are not installed, 1 on failure.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import {
  check, checkNoSanitizerReport, execute, peerPath, requirePeers, search, startListeningGateway, tempDir, waitFor, writeConfig,
} from './lib.mjs';

const [gateway, scenario] = process.argv.slice(2);
const here = path.dirname(fileURLToPath(import.meta.url));
const CALL = { timeout: 20000 };
const TOKENS = {
  admin: 'admin-token-0123456789abcdef',
  files: 'files-token-0123456789abcdef',
  other: 'other-token-0123456789abcdef',
};

setTimeout(() => { console.error(`FAIL: scenario ${scenario} exceeded 150 s`); process.exit(1); }, 150000).unref();

const sdk = (rel) => import(pathToFileURL(peerPath('sdk', `dist/esm/${rel}`)).href);

/// Starts server-everything in Streamable HTTP mode on 127.0.0.1; resolves { url, stop() }.
async function startRemote() {
  const child = spawn(process.execPath, [path.join(here, 'remote_everything.mjs')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk) => { out += chunk.toString(); });
  child.stderr.on('data', (chunk) => { if (process.env.SCOUT_E2E_VERBOSE) process.stderr.write(chunk); });
  const port = await waitFor('server-everything to listen', () => out.match(/listening on 127\.0\.0\.1:(\d+)/)?.[1], 30000);
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => child.kill('SIGKILL') };
}

async function connect(gw, token) {
  const { Client } = await sdk('client/index.js');
  const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers } });
  const client = new Client({ name: 'scout-http-e2e', version: '1.0.0' });
  await client.connect(transport, { timeout: 30000 });
  return client;
}


const scenarios = {
  async meta_tools(gw) {
    const client = await connect(gw, TOKENS.admin);
    const { tools } = await client.listTools(undefined, CALL);
    check(JSON.stringify(tools.map((t) => t.name)) === '["tool_search","execute_tool","everything_echo"]',
      `tools/list returns the two meta-tools and the pinned everything/echo (got ${tools.map((t) => t.name)})`);
    const pinned = await client.callTool({ name: 'everything_echo', arguments: { message: 'pinned call' } }, undefined, CALL);
    check(!pinned.isError && pinned.content[0].text.includes('pinned call'), 'the pinned tool is called by its listed name');
    const still = await search(client, 'everything_echo', { top_k: 1 });
    check(still[0]?.tool === 'echo', 'the pinned tool stays searchable');
    check((await client.ping(CALL)) !== undefined, 'ping answers');
    await client.close();
  },

  async search_execute(gw) {
    const client = await connect(gw, TOKENS.admin);
    const matches = await search(client, 'repeat my message back to me');
    const echo = matches.find((m) => m.server === 'everything' && m.tool === 'echo');
    check(echo !== undefined, `tool_search finds everything/echo over HTTP (${matches.map((m) => m.name).join(', ')})`);
    const r = await execute(client, echo.tool, echo.server, { message: 'hello over http' });
    check(!r.isError && r.content[0].text.includes('hello over http'), `execute_tool runs echo: "${r.content[0].text}"`);
    const { resources } = await client.listResources(undefined, CALL);
    const doc = resources.find((x) => x.uri.startsWith('scout-gateway://everything/'));
    check(doc !== undefined, `resources/list passes the backends' resources through, prefixed (${resources.length})`);
    const read = await client.readResource({ uri: doc.uri }, CALL);
    check(read.contents.length > 0 && read.contents[0].uri === doc.uri, 'resources/read routes a prefixed URI back to its server');
    const { prompts } = await client.listPrompts(undefined, CALL);
    const simple = prompts.find((p) => p.name === 'everything/simple-prompt');
    check(simple !== undefined, 'prompts/list passes prompts through as server/name');
    const got = await client.getPrompt({ name: simple.name }, CALL);
    check(got.messages.length > 0, 'prompts/get routes server/name to its server');
    await client.close();
  },

  async unauthorized(gw) {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    const missing = await fetch(`${gw.url}/mcp`, { method: 'POST', headers, body });
    check(missing.status === 401 && /^Bearer /.test(missing.headers.get('www-authenticate') ?? ''),
      `a missing token gets 401 with WWW-Authenticate (${missing.status}, ${missing.headers.get('www-authenticate')})`);
    const wrong = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: { ...headers, Authorization: `Bearer ${TOKENS.admin}x` }, body });
    check(wrong.status === 401 && /invalid_token/.test(wrong.headers.get('www-authenticate') ?? ''), 'a wrong token gets 401 invalid_token');
    let refused = false;
    try { await connect(gw, undefined); } catch { refused = true; }
    check(refused, 'the SDK client cannot connect without a token');
    const metrics = await fetch(`${gw.url}/metrics`);
    check(metrics.status === 401, '/metrics needs a token too');
    const evil = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: { ...headers, Authorization: `Bearer ${TOKENS.admin}`, Origin: 'http://evil.example' }, body });
    check(evil.status === 403, `a foreign Origin gets 403 (DNS rebinding) (${evil.status})`);
  },

  async scoped(gw) {
    const client = await connect(gw, TOKENS.files);
    const { tools } = await client.listTools(undefined, CALL);
    check(!tools.some((t) => t.name === 'everything_echo'), 'a filesystem-scoped caller is not listed the pinned everything/echo');
    const matches = await search(client, 'echo back a message', { top_k: 20 });
    check(matches.length > 0 && matches.every((m) => m.server === 'filesystem'),
      `its tool_search sees only filesystem tools (${[...new Set(matches.map((m) => m.server))]})`);
    const exact = await search(client, 'everything_echo', { top_k: 20 });
    check(!exact.some((m) => m.server === 'everything'), 'even the exact name everything_echo is not found');
    const r = await execute(client, 'echo', 'everything', { message: 'leak' });
    check(r.isError === true && !JSON.stringify(r.content).includes('leak'), 'execute_tool everything/echo is refused');
    // Direct calls by name: out of scope is unknown, and never named as a candidate.
    const refusal = async (call) => {
      try { await call(); } catch (e) { return String(e.message); }
      return 'not refused';
    };
    for (const name of ['everything_echo', 'echo', 'everything/echo']) {
      const why = await refusal(() => client.callTool({ name, arguments: { message: 'leak' } }, undefined, CALL));
      check(/-32602/.test(why) && /Unknown tool/.test(why) && !why.replace(`'${name}'`, '').includes('everything'),
        `calling ${name} directly is refused as unknown, naming no other server's tool (${why})`);
    }
    const own = await client.callTool({ name: 'list_allowed_directories', arguments: {} }, undefined, CALL);
    check(!own.isError && own.content[0].text.includes('files'), `its own tool is called by its bare name (${own.content[0].text})`);
    const prefixed = await client.callTool({ name: 'filesystem/list_allowed_directories', arguments: {} }, undefined, CALL);
    check(!prefixed.isError, 'and as server/name');
    const prompt = await refusal(() => client.getPrompt({ name: 'simple-prompt' }, CALL));
    check(/Unknown prompt/.test(prompt), `another server's prompt by its bare name is unknown (${prompt})`);
    const { resources } = await client.listResources(undefined, CALL);
    check(!resources.some((x) => x.uri.startsWith('scout-gateway://everything/')), 'resources/list holds no everything resources');
    const admin = await connect(gw, TOKENS.admin);
    const adminMatches = await search(admin, 'echo back a message', { top_k: 20 });
    check(adminMatches.some((m) => m.server === 'everything'), 'the admin token on the same gateway still sees everything');
    const echoed = await admin.callTool({ name: 'echo', arguments: { message: 'by name' } }, undefined, CALL);
    check(!echoed.isError && echoed.content[0].text.includes('by name'), 'the admin calls everything/echo by its bare name');
    const simple = await admin.getPrompt({ name: 'simple-prompt' }, CALL);
    check(simple.messages.length > 0, 'and gets its prompt by its bare name');
    await client.close();
    await admin.close();
  },

  async completion(gw) {
    const client = await connect(gw, TOKENS.admin);
    check(client.getServerCapabilities()?.completions !== undefined, 'initialize declares completions');
    const prompt = { type: 'ref/prompt', name: 'everything/completable-prompt' };
    const first = await client.complete({ ref: prompt, argument: { name: 'department', value: 'Eng' } }, CALL);
    check(JSON.stringify(first.completion.values) === '["Engineering"]',
      `a prompt argument is completed by the server that owns the prompt (${JSON.stringify(first.completion.values)})`);
    const second = await client.complete({
      ref: prompt, argument: { name: 'name', value: '' }, context: { arguments: { department: 'Sales' } },
    }, CALL);
    check(JSON.stringify(second.completion.values) === '["David","Eve","Frank"]',
      `the context's earlier arguments reach the server (${JSON.stringify(second.completion.values)})`);
    const unknown = await client.complete({ ref: { type: 'ref/prompt', name: 'no-such-prompt' }, argument: { name: 'a', value: 'b' } }, CALL);
    check(Array.isArray(unknown.completion.values) && unknown.completion.values.length === 0,
      'a prompt no server owns has no suggestions');
    const resource = await client.complete({
      ref: { type: 'ref/resource', uri: 'scout-gateway://memory/nothing/{id}' }, argument: { name: 'id', value: '1' },
    }, CALL);
    check(resource.completion.values.length === 0, 'a server without the completions capability has no suggestions');
    let refused = null;
    try {
      await client.request({ method: 'completion/complete', params: { ref: { type: 'ref/tool', name: 'x' }, argument: { name: 'a', value: '' } } },
        (await sdk('types.js')).CompleteResultSchema, CALL);
    } catch (e) { refused = e; }
    check(refused?.code === -32602, `an unknown ref type is invalid params (${refused?.code}: ${refused?.message})`);
    const scoped = await connect(gw, TOKENS.files);
    const hidden = await scoped.complete({ ref: prompt, argument: { name: 'department', value: 'Eng' } }, CALL);
    check(hidden.completion.values.length === 0, 'a caller whose scope lacks the server gets no suggestions from it');
    await client.close();
    await scoped.close();
  },

  async hang(gw) {
    const client = await connect(gw, TOKENS.admin);
    const started = Date.now();
    const stuck = execute(client, 'stuck_lookup', 'hanging', {}, { timeout: 30000 });
    const quick = [];
    for (let i = 0; i < 10; ++i) quick.push(execute(client, 'quick_lookup', 'hanging', {}));
    const answers = await Promise.all(quick);
    const quickMs = Date.now() - started;
    check(answers.every((a) => !a.isError && a.content[0].text === 'found'), `10 other calls answered while one hangs (${quickMs} ms)`);
    const r = await stuck;
    const stuckMs = Date.now() - started;
    check(r.isError === true && stuckMs >= 1500, `the call to a backend that never answers is isError at the timeout (${stuckMs} ms): ${r.content[0].text}`);
    check(quickMs < stuckMs, 'the other calls did not wait for it');
    await client.close();
  },

  async metrics(gw) {
    const client = await connect(gw, TOKENS.admin);
    await search(client, 'echo a message');
    await execute(client, 'echo', 'everything', { message: 'counted' });
    // Arguments that break the tool's inputSchema are refused before its backend: -32602, no call.
    const refused = await execute(client, 'trigger-long-running-operation', 'everything', { duration: 'x' })
      .then(() => null, (e) => e);
    check(refused?.code === -32602 && /arguments\.duration/.test(refused.message),
      `arguments against the schema are refused with -32602 naming the field (${refused?.message})`);
    const res = await fetch(`${gw.url}/metrics`, { headers: { Authorization: `Bearer ${TOKENS.admin}` } });
    const text = await res.text();
    // A token scoped to `memory` sees that server's series and the aggregates, nothing of others.
    const scoped = await (await fetch(`${gw.url}/metrics`, { headers: { Authorization: `Bearer ${TOKENS.other}` } })).text();
    check(/scout_backend_state\{server="memory"/.test(scoped) && !/everything|filesystem/.test(scoped) &&
      /scout_tool_search_duration_seconds_count [1-9]/.test(scoped), "a scoped token's /metrics names only its servers");
    check(res.status === 200 && /text\/plain/.test(res.headers.get('content-type')), '/metrics answers Prometheus text');
    check(/scout_tool_search_duration_seconds_count [1-9]/.test(text), 'the search latency histogram counted the search');
    check(/scout_tool_calls_total\{server="everything",tool="echo"\} 1\n/.test(text), 'calls per tool are counted');
    check(/scout_tool_errors_total\{server="everything",tool="echo"\} 0\n/.test(text), 'errors per tool are counted');
    check(/scout_backend_state\{server="everything",state="active"\} 1/.test(text), 'backend states are exported');
    check(/scout_search_fallback_ratio /.test(text), 'the fallback rate is exported');
    await client.close();
  },

  async remote(gw) {
    const client = await connect(gw, TOKENS.admin);
    const matches = await search(client, 'echo back a message', { top_k: 10 });
    const echo = matches.find((m) => m.server === 'remote' && m.tool === 'echo');
    check(echo !== undefined, `tool_search finds echo on the remote url backend (${matches.map((m) => m.name).join(', ')})`);
    const r = await execute(client, 'echo', 'remote', { message: 'over two HTTP hops' });
    check(!r.isError && r.content[0].text.includes('over two HTTP hops'), `execute_tool runs it remotely: "${r.content[0].text}"`);
    const sum = await execute(client, 'get-sum', 'remote', { a: 2, b: 3 });
    check(!sum.isError && JSON.stringify(sum.content).includes('5'), 'a second remote tool answers');
    check(/backend 'remote' started \(http:\/\/127\.0\.0\.1:\d+\/mcp\)/.test(gw.stderr()), 'the gateway logs the remote URL');
    await client.close();
  },

  async concurrent_clients_concurrency(gw) {
    const CLIENTS = 8;
    const CALLS = 200;
    const one = async (c) => {
      const client = await connect(gw, TOKENS.admin);
      let errors = 0;
      for (let i = 0; i < CALLS; ++i) {
        if (i % 2 === 0) {
          const r = await client.callTool({ name: 'tool_search', arguments: { query: `echo message ${c} ${i}`, top_k: 3 } }, undefined, CALL);
          if (r.isError || r.structuredContent.matches.length === 0) ++errors;
        } else {
          const r = await execute(client, 'echo', 'everything', { message: `m${c}-${i}` });
          if (r.isError || !r.content[0].text.includes(`m${c}-${i}`)) ++errors;
        }
      }
      await client.close();
      return errors;
    };
    const started = Date.now();
    const errors = await Promise.all([...Array(CLIENTS).keys()].map(one));
    const total = errors.reduce((a, b) => a + b, 0);
    check(total === 0, `${CLIENTS} clients x ${CALLS} calls over HTTP without an error (${Date.now() - started} ms, ${total} errors)`);
  },
};

async function main() {
  requirePeers();
  if (!scenarios[scenario]) throw new Error(`unknown scenario ${scenario}`);
  const dir = tempDir();
  const extra = scenario === 'hang'
    ? { hanging: { command: process.execPath, args: [path.join(here, 'hanging_backend.mjs')] } } : {};
  const remote = scenario === 'remote' ? await startRemote() : null;
  if (remote) extra.remote = { url: remote.url, headers: { 'X-Scout-Test': 'remote' } };
  const config = writeConfig(dir, extra);
  const parsed = JSON.parse(fs.readFileSync(config, 'utf8'));
  parsed.pinned = ['everything/echo'];
  fs.writeFileSync(config, JSON.stringify(parsed, null, 2));
  const auth = path.join(dir, 'auth.json');
  fs.writeFileSync(auth, JSON.stringify({
    callers: [
      { name: 'admin', token: TOKENS.admin },
      { name: 'files', token: TOKENS.files, servers: ['filesystem'] },
      { name: 'other', token: TOKENS.other, servers: ['memory'] },
    ],
  }));
  const args = ['--config', config, '--auth-file', auth, '--embedder', 'none'];
  if (scenario === 'hang') args.push('--call-timeout-ms', '1500');
  const gw = await startListeningGateway(gateway, args);
  try {
    await scenarios[scenario](gw);
    const code = await gw.stop();
    check(code === 0, `the gateway exits cleanly on SIGTERM (${code})`);
    checkNoSanitizerReport(gw.stderr());
    console.log(`PASS ${scenario}`);
  } catch (e) {
    console.error(`FAIL ${scenario}: ${e.stack}\n--- gateway stderr ---\n${gw.stderr()}`);
    process.exitCode = 1;
    await gw.stop();
  } finally {
    if (remote) remote.stop();
  }
}

main().catch((e) => { console.error(`FAIL: ${e.stack}`); process.exit(1); });
