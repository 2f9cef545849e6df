// gateway_transport.mjs: tool_search round trips through scout-gateway over stdio and over
// Streamable HTTP on loopback, p50 and p99, at the enterprise catalog (650 tools) and the merged
// public catalog (3,574 tools), served by one backend (catalog_backend.mjs). Embedding is left
// out (--embedder none: BM25), so the figures are the transport and the search. Two clients per
// transport: a raw one (one JSON line on the pipe; one node:http POST on a keep-alive socket) that
// shows the gateway's own cost, and the official SDK client as an agent would use it.
// A measurement, not a test. Usage:
//   node benchmarks/gateway_transport.mjs build/bin/scout-gateway [ROUNDS]
// (catalogs: data/enterprise_catalog.json and $SCOUT_DATASETS or ../shared/datasets/merged)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { peerPath, requirePeers, waitFor } from '../tests/e2e/lib.mjs';

const [gateway, roundsArg] = process.argv.slice(2);
const ROUNDS = Number(roundsArg ?? 2000);
const WARMUP = 200;
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const datasets = process.env.SCOUT_DATASETS || path.join(root, '..', 'shared', 'datasets');
const queries = JSON.parse(fs.readFileSync(path.join(root, 'data', 'queries-49.json'), 'utf8')).queries
  .map((q) => q.query ?? q.text ?? q.q).filter((q) => typeof q === 'string');
const sdk = (rel) => import(pathToFileURL(peerPath('sdk', `dist/esm/${rel}`)).href);

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

async function timeCalls(call) {
  for (let i = 0; i < WARMUP; ++i) await call(queries[i % queries.length]);
  const ms = [];
  for (let i = 0; i < ROUNDS; ++i) {
    const t = process.hrtime.bigint();
    await call(queries[i % queries.length]);
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 0.5), p99: percentile(ms, 0.99) };
}

const searchParams = (query) => ({ name: 'tool_search', arguments: { query, top_k: 5 } });

async function stdioRaw(args) {
  const child = spawn(gateway, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr.resume();
  const waiting = new Map();
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const m = JSON.parse(line);
    waiting.get(m.id)?.(m);
    waiting.delete(m.id);
  });
  let id = 0;
  const rpc = (method, params) => new Promise((resolve) => {
    const my = ++id;
    waiting.set(my, resolve);
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: my, method, params }) + '\n');
  });
  await rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
  child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  await rpc('tools/list', {});
  const r = await timeCalls((q) => rpc('tools/call', searchParams(q)));
  child.kill('SIGTERM');
  return r;
}

async function stdioSdk(args) {
  const { Client } = await sdk('client/index.js');
  const { StdioClientTransport } = await sdk('client/stdio.js');
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command: gateway, args, stderr: 'ignore' }));
  await client.listTools();
  const r = await timeCalls((q) => client.callTool(searchParams(q)));
  await client.close();
  return r;
}

async function startHttp(args) {
  const child = spawn(gateway, [...args, '--listen', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (c) => { log += c.toString(); });
  const port = await waitFor('the gateway to listen', () => log.match(/\(port (\d+),/)?.[1], 60000);
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => child.kill('SIGTERM') };
}

async function httpRaw(args) {
  const gw = await startHttp(args);
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  let id = 0;
  // node:http with one keep-alive socket (fetch() adds milliseconds of its own per call here).
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const post = (body, extra = {}) => new Promise((resolve, reject) => {
    const req = http.request(gw.url, { method: 'POST', agent, headers: { ...headers, ...extra } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve({ res, text }));
    });
    req.on('error', reject);
    req.setNoDelay(true);
    req.end(JSON.stringify(body));
  });
  const init = await post({ jsonrpc: '2.0', id: ++id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
  const session = { 'Mcp-Session-Id': init.res.headers['mcp-session-id'], 'MCP-Protocol-Version': '2025-11-25' };
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  await post({ jsonrpc: '2.0', id: ++id, method: 'tools/list' }, session);
  const r = await timeCalls((q) => post({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: searchParams(q) }, session));
  agent.destroy();
  gw.stop();
  return r;
}

async function httpSdk(args) {
  const gw = await startHttp(args);
  const { Client } = await sdk('client/index.js');
  const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.url)));
  await client.listTools();
  const r = await timeCalls((q) => client.callTool(searchParams(q)));
  await client.close();
  gw.stop();
  return r;
}

async function main() {
  requirePeers();
  const catalogs = [
    ['enterprise', 650, path.join(root, 'data', 'enterprise_catalog.json')],
    ['merged', 3574, path.join(datasets, 'merged', 'catalog.json')],
  ];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scout-gw-bench-'));
  const fmt = (x) => x.toFixed(3);
  console.log(`tool_search round trips, top_k 5, ${ROUNDS} calls after ${WARMUP} warm-up, BM25 (--embedder none), ${os.cpus().length} cores`);
  console.log('| catalog | tools | client | stdio p50 / p99 (ms) | Streamable HTTP p50 / p99 (ms) |');
  console.log('|---|---|---|---|---|');
  for (const [name, tools, file] of catalogs) {
    if (!fs.existsSync(file)) {
      console.log(`| ${name} | ${tools} | (catalog not found: ${file}) | | |`);
      continue;
    }
    const config = path.join(dir, `${name}.json`);
    fs.writeFileSync(config, JSON.stringify({ mcpServers: { catalog: { command: process.execPath, args: [path.join(here, 'catalog_backend.mjs'), file] } } }));
    const args = ['--config', config, '--embedder', 'none'];
    const rs = await stdioRaw(args);
    const rh = await httpRaw(args);
    console.log(`| ${name} | ${tools} | raw (one line / one POST) | ${fmt(rs.p50)} / ${fmt(rs.p99)} | ${fmt(rh.p50)} / ${fmt(rh.p99)} |`);
    const ss = await stdioSdk(args);
    const sh = await httpSdk(args);
    console.log(`| ${name} | ${tools} | MCP SDK client 1.32.2 | ${fmt(ss.p50)} / ${fmt(ss.p99)} | ${fmt(sh.p50)} / ${fmt(sh.p99)} |`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => { console.error(e); process.exit(1); });
