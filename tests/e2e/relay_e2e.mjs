// relay_e2e.mjs: a backend's messages during a tool call reach the caller of that call, and only
// it (docs/gateway.md, "Relaying a backend's messages"). Usage: node relay_e2e.mjs GATEWAY
// SCENARIO, with relay_backend.mjs behind the gateway:
//   progress   two HTTP callers' concurrent calls each get their own progress, with their token
//   logging    a call's log messages go on its caller's request stream, not to another caller
//   refused    a caller without the sampling capability has the backend's request refused; the
//              call still ends, and a caller with it gets the request and answers it
//   unanswered a caller that never answers an elicitation has its call failed at the call timeout
//   flood      a backend flooding progress reaches the caller cut at the per-call cap
//   stdio      sampling and progress relayed to a stdio caller
// Exits 0 on success, 77 (skip) when the peers are missing, 1 on failure.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { check, checkNoSanitizerReport, peerPath, requirePeers, startListeningGateway, tempDir } from './lib.mjs';

const [gateway, scenario] = process.argv.slice(2);
const here = path.dirname(fileURLToPath(import.meta.url));
setTimeout(() => { console.error('FAIL: the scenario exceeded 90 s'); process.exit(1); }, 90000).unref();

requirePeers();
const sdk = (rel) => import(pathToFileURL(peerPath('sdk', `dist/esm/${rel}`)).href);
const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const { CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema } = await sdk('types.js');

const PER_CALL_PROGRESS_CAP = 1000;  // kMaxRelayedProgress in call_relay.hpp
const SDK_TIMEOUT_MS = 30000;  // far beyond the gateway's call timeout below
const dir = tempDir();
const config = path.join(dir, 'servers.json');
fs.writeFileSync(config, JSON.stringify({ mcpServers: { relay: { command: process.execPath, args: [path.join(here, 'relay_backend.mjs')] } } }));
const args = ['--config', config, '--call-timeout-ms', '1500'];
const textOf = (result) => result.content?.[0]?.text ?? '';

async function httpClient(url, capabilities = {}) {
  const client = new Client({ name: 'relay-e2e', version: '1.0.0' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

/// progress_steps with an onprogress handler: { result, progress: [params...] }.
async function stepsWithProgress(client, steps) {
  const progress = [];
  const result = await client.callTool({ name: 'progress_steps', arguments: { steps } }, undefined,
    { timeout: SDK_TIMEOUT_MS, onprogress: (p) => progress.push(p) });
  return { result, progress };
}

async function withHttpGateway(body) {
  const gw = await startListeningGateway(gateway, args);
  try {
    await body(gw.url);
  } finally {
    await gw.stop();
  }
  checkNoSanitizerReport(gw.stderr());
  return gw.stderr();
}

const scenarios = {
  async progress() {
    await withHttpGateway(async (url) => {
      const [a, b] = [await httpClient(url), await httpClient(url)];
      const [ra, rb] = await Promise.all([stepsWithProgress(a, 4), stepsWithProgress(b, 7)]);
      check(/token (string|number); 4 steps/.test(textOf(ra.result)), 'the backend got a progress token for the first call');
      check(ra.progress.length === 4 && ra.progress.every((p, i) => p.progress === i + 1 && p.total === 4),
        `the first caller got its own 4 progress notifications (got ${JSON.stringify(ra.progress)})`);
      check(rb.progress.length === 7 && rb.progress.every((p, i) => p.progress === i + 1 && p.total === 7),
        `the second caller got its own 7 (got ${rb.progress.length})`);
      const quiet = await callWithoutToken(a);
      check(/token absent/.test(quiet), 'a call without a progress token carries none to the backend');
      await a.close();
      await b.close();
    });
  },

  async logging() {
    await withHttpGateway(async (url) => {
      const [a, b] = [await httpClient(url), await httpClient(url)];
      const logs = { a: [], b: [] };
      a.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.a.push(n.params));
      b.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.b.push(n.params));
      await a.setLoggingLevel('info');
      await b.setLoggingLevel('info');
      await stepsWithProgress(a, 3);
      await new Promise((r) => setTimeout(r, 300));  // anything misrouted would have come by now
      check(logs.a.length === 3 && logs.a.every((l) => l.logger === 'relay'),
        `the caller got its call's 3 log messages, named by server (got ${JSON.stringify(logs.a)})`);
      check(logs.b.length === 0, `the other caller got none of them (got ${logs.b.length})`);
      await a.close();
      await b.close();
    });
  },

  async refused() {
    await withHttpGateway(async (url) => {
      const plain = await httpClient(url);
      const refused = await plain.callTool({ name: 'ask_sampling', arguments: {} }, undefined, { timeout: SDK_TIMEOUT_MS });
      check(refused.isError && /refused -32601: .*sampling capability/.test(textOf(refused)),
        `the backend's sampling request was refused for a caller without the capability (${textOf(refused)})`);
      const able = await httpClient(url, { sampling: {} });
      let asked = 0;
      able.setRequestHandler(CreateMessageRequestSchema, async () => {
        asked += 1;
        return { role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'm' };
      });
      const answered = await able.callTool({ name: 'ask_sampling', arguments: {} }, undefined, { timeout: SDK_TIMEOUT_MS });
      check(asked === 1 && /answered .*sampled/.test(textOf(answered)),
        `a caller with the capability was asked once and its answer reached the backend (${textOf(answered)})`);
      await plain.close();
      await able.close();
    });
  },

  async unanswered() {
    const log = await withHttpGateway(async (url) => {
      const silent = await httpClient(url, { elicitation: {} });
      let asked = 0;
      silent.setRequestHandler(ElicitRequestSchema, () => { asked += 1; return new Promise(() => {}); });
      let outcome;
      try {
        const r = await silent.callTool({ name: 'ask_elicitation', arguments: {} }, undefined, { timeout: SDK_TIMEOUT_MS });
        outcome = r.isError ? `error result: ${textOf(r)}` : `result: ${textOf(r)}`;
      } catch (e) {
        outcome = `error: ${e.message}`;
      }
      check(asked === 1, 'the caller was asked');
      check(!/Request timed out/.test(outcome) && /error/.test(outcome) && /timed out|in time/.test(outcome),
        `the call failed at the gateway's call timeout, not the client's (${outcome})`);
      // The gateway still serves this caller.
      const after = await stepsWithProgress(silent, 1);
      check(after.progress.length === 1, 'the caller\'s next call works');
      await silent.close();
    });
    check(!/Sanitizer/.test(log), 'no sanitizer report');
  },

  async flood() {
    const log = await withHttpGateway(async (url) => {
      const client = await httpClient(url);
      let received = 0;
      const result = await client.callTool({ name: 'progress_flood', arguments: { count: 5000 } }, undefined,
        { timeout: SDK_TIMEOUT_MS, onprogress: () => { received += 1; } });
      check(textOf(result) === 'flooded 5000', 'the flooding call ended with its result');
      check(received > 0 && received <= PER_CALL_PROGRESS_CAP,
        `the caller got at most the per-call cap of ${PER_CALL_PROGRESS_CAP} notifications (got ${received})`);
      await client.close();
    });
    check(/progress_dropped/.test(log), 'the gateway logged the dropped notifications');
  },

  async stdio() {
    const gw = await connectGatewayWithCapabilities();
    let asked = 0;
    gw.client.setRequestHandler(CreateMessageRequestSchema, async () => {
      asked += 1;
      return { role: 'assistant', content: { type: 'text', text: 'over stdio' }, model: 'm' };
    });
    const answered = await gw.client.callTool({ name: 'ask_sampling', arguments: {} }, undefined, { timeout: SDK_TIMEOUT_MS });
    check(asked === 1 && /over stdio/.test(textOf(answered)), `sampling was relayed over stdio (${textOf(answered)})`);
    const { progress } = await stepsWithProgress(gw.client, 3);
    check(progress.length === 3, `progress was relayed over stdio (got ${progress.length})`);
    await gw.client.close();
    checkNoSanitizerReport(gw.stderr());
  },
};

async function callWithoutToken(client) {
  return textOf(await client.callTool({ name: 'progress_steps', arguments: { steps: 1 } }, undefined, { timeout: SDK_TIMEOUT_MS }));
}

/// connectGateway, but the client declares sampling (the SDK sends capabilities at connect).
async function connectGatewayWithCapabilities() {
  const { StdioClientTransport } = await sdk('client/stdio.js');
  const transport = new StdioClientTransport({ command: gateway, args, stderr: 'pipe' });
  let log = '';
  transport.stderr.on('data', (chunk) => { log += chunk.toString(); });
  const client = new Client({ name: 'relay-e2e', version: '1.0.0' }, { capabilities: { sampling: {} } });
  await client.connect(transport, { timeout: 30000 });
  return { client, stderr: () => log };
}

if (!scenarios[scenario]) {
  console.error(`unknown scenario ${scenario}`);
  process.exit(2);
}
await scenarios[scenario]();
console.log(`PASS: relay ${scenario}`);
process.exit(0);
