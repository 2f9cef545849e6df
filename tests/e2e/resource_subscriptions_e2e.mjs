// resource_subscriptions_e2e.mjs: resources/subscribe passed through the gateway to a backend
// that offers it (resource_backend.mjs, whose subscribed URIs get notifications/resources/updated
// every 200 ms). Usage: node resource_subscriptions_e2e.mjs GATEWAY SCENARIO. "http": over
// --listen with bearer tokens, a subscribed session hears its URI's updates, prefixed, on its GET
// stream while an unsubscribed one hears nothing; two sessions share one backend subscription,
// which ends with the last of them (unsubscribe, then DELETE); a caller scoped to another server
// is refused exactly as resources/read refuses it, and a backend without the capability refuses
// with a clear error. "stdio": the stdio client hears updates, the backend subscribed again after
// a restart keeps sending them, and unsubscribe stops them. "flood": a backend sending 40,000
// updates in a burst leaves the gateway answering at once, over stdio and to an HTTP session
// (whose event stream holds no thread and at most 256 KiB of unsent events: a client that falls
// further behind loses the oldest, tested in gateway_http_test.cpp). Exits 0 on success, 77 (skip) without
// the peers, 1 on failure.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import {
  check, checkNoSanitizerReport, connectGateway, execute, peerPath, requirePeers, startListeningGateway, tempDir, waitFor,
} from './lib.mjs';

const [gateway, scenario] = process.argv.slice(2);
const here = path.dirname(fileURLToPath(import.meta.url));
const CALL = { timeout: 10000 };
const TOKENS = { admin: 'admin-token-0123456789abcdef', plain: 'plain-token-0123456789abcdef' };
const A = 'scout-gateway://notes/note://a';
setTimeout(() => { console.error(`FAIL: scenario ${scenario} exceeded 30 s`); process.exit(1); }, 30000).unref();

const sdk = (rel) => import(pathToFileURL(peerPath('sdk', `dist/esm/${rel}`)).href);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/// Records the resources/updated URIs a client hears.
async function listen(client) {
  const { ResourceUpdatedNotificationSchema } = await sdk('types.js');
  const heard = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { heard.push(n.params.uri); });
  return heard;
}

async function connectHttp(gw, token) {
  const { Client } = await sdk('client/index.js');
  const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
  const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`),
    { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'scout-subs-e2e', version: '1.0.0' });
  await client.connect(transport, { timeout: 10000 });
  return { client, transport, heard: await listen(client) };
}

/// The JSON-RPC error of a request expected to fail.
async function refusal(promise) {
  try {
    await promise;
  } catch (e) {
    return { code: e.code, message: e.message };
  }
  throw new Error('the request succeeded where a refusal was expected');
}

const lines = (log, what) => fs.readFileSync(log, 'utf8').split('\n').filter((l) => l.endsWith(` ${what}`));

const scenarios = {
  async http(ctx) {
    const gw = await startListeningGateway(gateway, [...ctx.args, '--auth-file', ctx.auth]);
    ctx.stop = () => gw.stop();
    ctx.stderr = () => gw.stderr();
    const one = await connectHttp(gw, TOKENS.admin);
    const two = await connectHttp(gw, TOKENS.admin);
    const init = one.client.getServerCapabilities();
    check(init?.resources?.subscribe === true, 'initialize advertises resources.subscribe');
    await one.client.subscribeResource({ uri: A }, CALL);
    await waitFor('an update on the GET stream', () => one.heard.length >= 3, 5000);
    check(one.heard.every((u) => u === A), `the subscribed session hears its URI, prefixed (${[...new Set(one.heard)]})`);
    check(two.heard.length === 0, 'a session that did not subscribe hears nothing');

    await two.client.subscribeResource({ uri: A }, CALL);
    const mark = two.heard.length;
    await waitFor('updates for the second session', () => two.heard.length > mark + 1, 5000);
    check(lines(ctx.log, `subscribe note://a`).length === 1, 'two sessions share one backend subscription');
    await one.client.unsubscribeResource({ uri: A }, CALL);
    await sleep(300);  // an update sent before the unsubscribe may still be on its way
    const after = one.heard.length;
    await sleep(600);
    check(one.heard.length === after, 'the session that unsubscribed hears no more');
    check(lines(ctx.log, 'unsubscribe note://a').length === 0, 'the backend keeps the subscription another session holds');
    await two.transport.terminateSession();
    await waitFor('the backend unsubscribed', () => lines(ctx.log, 'unsubscribe note://a').length > 0, 5000);
    check(lines(ctx.log, 'unsubscribe note://a').length === 1,
      'the end of the last holding session (DELETE) unsubscribes the backend, once');

    const scoped = await connectHttp(gw, TOKENS.plain);
    const read = await refusal(scoped.client.readResource({ uri: A }, CALL));
    const sub = await refusal(scoped.client.subscribeResource({ uri: A }, CALL));
    check(sub.code === read.code && sub.message === read.message,
      `a caller scoped to another server is refused as resources/read refuses it (${sub.message})`);
    const unknown = await refusal(scoped.client.subscribeResource({ uri: 'scout-gateway://nowhere/note://a' }, CALL));
    check(unknown.code === sub.code && unknown.message.replace('nowhere', 'notes') === sub.message,
      'an out-of-scope server is indistinguishable from one that does not exist');
    const lacking = await refusal(scoped.client.subscribeResource({ uri: 'scout-gateway://plain/note://a' }, CALL));
    check(lacking.code === -32601 && /does not offer resources\/subscribe/.test(lacking.message),
      `a backend without the capability refuses clearly (${lacking.message})`);
    check(lines(ctx.log, 'subscribe note://a').length === 1, 'no refused subscription reached a backend');
    for (const c of [one, scoped]) await c.client.close();
    await one.transport.terminateSession().catch(() => {});
  },

  async stdio(ctx) {
    const gw = await connectGateway(gateway, ctx.args);
    ctx.stop = async () => { await gw.client.close(); return 0; };
    ctx.stderr = gw.stderr;
    const heard = await listen(gw.client);
    await gw.client.subscribeResource({ uri: A }, CALL);
    await waitFor('updates over stdio', () => heard.length >= 2, 5000);
    check(heard.every((u) => u === A), `the stdio client hears its URI, prefixed (${[...new Set(heard)]})`);
    const first = gw.pids('notes')[0];
    await execute(gw.client, 'exit_now', 'notes', {}, CALL).catch(() => {});
    await waitFor('a second notes process', () => gw.pids('notes').length >= 2, 10000);
    const second = gw.pids('notes')[1];
    await waitFor('the restarted backend subscribed again',
      () => lines(ctx.log, 'subscribe note://a').some((l) => l.startsWith(`${second} `)), 10000);
    check(second !== first, `the restarted backend (pid ${second}) is subscribed again to the held URI`);
    const mark = heard.length;
    await waitFor('updates from the restarted backend', () => heard.length >= mark + 2, 5000);
    await gw.client.unsubscribeResource({ uri: A }, CALL);
    check(lines(ctx.log, 'unsubscribe note://a').length === 1, 'unsubscribe reaches the backend');
    await sleep(300);
    const after = heard.length;
    await sleep(600);
    check(heard.length === after, `no update follows the unsubscribe (${heard.length - after})`);
  },

  async flood(ctx) {
    const gw = await startListeningGateway(gateway, [...ctx.args, '--auth-file', ctx.auth]);
    ctx.stop = () => gw.stop();
    ctx.stderr = () => gw.stderr();
    const http = await connectHttp(gw, TOKENS.admin);
    const stdio = await connectGateway(gateway, ctx.args);
    const heard = await listen(stdio.client);
    try {
      await Promise.all([http.client.subscribeResource({ uri: A }, CALL), stdio.client.subscribeResource({ uri: A }, CALL)]);
      for (const [name, client] of [['HTTP', http.client], ['stdio', stdio.client]]) {
        const started = Date.now();
        await client.ping(CALL);
        const { resources } = await client.listResources(undefined, CALL);
        check(resources.length > 0, `the ${name} client is answered during the flood (${Date.now() - started} ms)`);
      }
      await waitFor('the flood to reach the stdio client', () => heard.length > 1000, 10000);
      check(heard.every((u) => u === A), `the stdio client hears only its URI (${heard.length} updates)`);
      await waitFor('the flood to reach the HTTP session', () => http.heard.length > 1000, 10000);
      check(http.heard.every((u) => u === A),
        `the HTTP session hears only its URI (${http.heard.length} updates)`);
    } finally {
      await http.client.close();
      await stdio.client.close();
    }
  },
};

async function main() {
  requirePeers();
  if (!scenarios[scenario]) throw new Error(`unknown scenario ${scenario}`);
  const dir = tempDir();
  const log = path.join(dir, 'subscriptions.log');
  fs.writeFileSync(log, '');
  const backend = path.join(here, 'resource_backend.mjs');
  const config = path.join(dir, 'servers.json');
  fs.writeFileSync(config, JSON.stringify({
    mcpServers: {
      notes: { command: process.execPath, args: [backend, log, scenario === 'flood' ? 'flood' : 'subscribe'] },
      plain: { command: process.execPath, args: [backend, path.join(dir, 'plain.log')] },
    },
  }));
  const auth = path.join(dir, 'auth.json');
  fs.writeFileSync(auth, JSON.stringify({
    callers: [{ name: 'admin', token: TOKENS.admin }, { name: 'plain', token: TOKENS.plain, servers: ['plain'] }],
  }));
  const ctx = { args: ['--config', config, '--embedder', 'none'], auth, log, stderr: () => '' };
  try {
    await scenarios[scenario](ctx);
    const code = await ctx.stop();
    check(code === 0, `the gateway exits cleanly (${code})`);
    checkNoSanitizerReport(ctx.stderr());
    console.log(`PASS ${scenario}`);
  } catch (e) {
    console.error(`FAIL ${scenario}: ${e.stack}\n--- gateway stderr ---\n${ctx.stderr()}`);
    process.exitCode = 1;
    if (ctx.stop) await ctx.stop();
  }
  process.exit();
}

main().catch((e) => { console.error(`FAIL: ${e.stack}`); process.exit(1); });
