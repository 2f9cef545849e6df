// fault_figures.mjs: measures scout-gateway under the faults of test_gateway_faults, repeated,
// for docs/reliability.md (a measurement, not a test: it prints figures and asserts only that
// the gateway survived). No dependencies beyond node.
// Usage: node fault_figures.mjs GATEWAY FAKE_BACKEND [ROUNDS] [CORPUS_DIR...]
//   GATEWAY       build/bin/scout-gateway
//   FAKE_BACKEND  build/tests/scout_fake_mcp_backend
//   ROUNDS        repetitions of each scenario (default 10)
//   CORPUS_DIR    directories of fuzzer inputs, each file sent to a live gateway as one line
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const [gatewayPath, fakePath, roundsArg, ...corpusDirs] = process.argv.slice(2);
if (!gatewayPath || !fakePath) {
  console.error('usage: node fault_figures.mjs GATEWAY FAKE_BACKEND [ROUNDS] [CORPUS_DIR...]');
  process.exit(2);
}
const ROUNDS = Number(roundsArg ?? 10);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scout-gw-figures-'));
const fake = (...args) => ({ command: fakePath, args });

/// One gateway process with a JSON-RPC client on its stdio.
class Gateway {
  constructor(servers, flags = []) {
    const config = path.join(dir, `servers-${Math.random().toString(36).slice(2)}.json`);
    fs.writeFileSync(config, JSON.stringify({ mcpServers: servers }));
    this.proc = spawn(gatewayPath, ['--config', config, '--embedder', 'none', '--restart-backoff-ms', '100', ...flags],
      { stdio: ['pipe', 'pipe', 'pipe'] });
    this.stderr = '';
    this.proc.stderr.on('data', (d) => { this.stderr += d; });
    this.proc.stdin.on('error', () => {});
    this.waiters = new Map();
    this.unaddressed = [];
    this.nextId = 1;
    this.exited = new Promise((resolve) => this.proc.on('exit', (code, signal) => resolve({ code, signal })));
    let buf = '';
    this.proc.stdout.on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const m = JSON.parse(line);
        const w = m.id !== undefined && m.id !== null ? this.waiters.get(JSON.stringify(m.id)) : undefined;
        if (w) { this.waiters.delete(JSON.stringify(m.id)); w(m); } else { this.unaddressed.push(m); }
      }
    });
  }
  send(obj) { this.proc.stdin.write(JSON.stringify(obj) + '\n'); }
  request(method, params = {}, timeoutMs = 10000) {
    const id = this.nextId++;
    const answer = new Promise((resolve) => {
      this.waiters.set(JSON.stringify(id), resolve);
      setTimeout(() => { if (this.waiters.delete(JSON.stringify(id))) resolve(null); }, timeoutMs);
    });
    this.send({ jsonrpc: '2.0', id, method, params });
    return answer;
  }
  execute(server, tool, args = {}, timeoutMs = 10000) {
    return this.request('tools/call', { name: 'execute_tool', arguments: { tool_name: tool, server_name: server, arguments: args } }, timeoutMs);
  }
  async initialize() {
    const r = await this.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'figures', version: '1' } });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return r;
  }
  async ping() {
    const t = performance.now();
    const r = await this.request('ping', {}, 5000);
    return r ? performance.now() - t : Infinity;
  }
  async waitEcho(server) {
    for (let i = 0; i < 100; i++) {
      const r = await this.execute(server, 'echo', { text: 'x' });
      if (r?.result && !r.result.isError) return true;
      await new Promise((res) => setTimeout(res, 50));
    }
    return false;
  }
  async close(how = 'eof') {
    const t = performance.now();
    if (how === 'eof') this.proc.stdin.end(); else this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 10000);
    const exit = await this.exited;
    clearTimeout(timer);
    return { ms: performance.now() - t, ...exit };
  }
  peakRssKiB() {
    const m = /VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${this.proc.pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  }
}

const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };
const fmt = (x) => (Number.isFinite(x) ? x.toFixed(1) : 'none');
const results = [];
const report = (line) => { results.push(line); console.log(line); };

async function concurrency() {
  const pings = []; const shutdowns = []; let good = 0; let hungAnswered = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const gw = new Gateway({ fake: fake() }, ['--call-timeout-ms', '30000']);
    await gw.initialize();
    await gw.waitEcho('fake');
    let done = false;
    const pinger = (async () => { while (!done) { pings.push(await gw.ping()); await new Promise((res) => setTimeout(res, 10)); } })();
    const hung = []; const fine = [];
    for (let i = 0; i < 200; i++) (i % 4 === 0 ? hung : fine).push(gw.execute('fake', i % 4 === 0 ? 'hang' : 'echo', { text: `n${i}` }, 40000));
    for (const a of await Promise.all(fine)) good += a?.result && !a.result.isError ? 1 : 0;
    await new Promise((res) => setTimeout(res, 200));
    done = true;
    await pinger;
    const closed = gw.close('eof');
    for (const a of await Promise.all(hung)) hungAnswered += a?.result?.isError ? 1 : 0;
    shutdowns.push((await closed).ms);
  }
  report(`200 calls, 50 hung, x${ROUNDS}: ${good}/${150 * ROUNDS} good calls succeeded; ${pings.length} pings: ` +
    `p50 ${fmt(quantile(pings, 0.5))} ms, p99 ${fmt(quantile(pings, 0.99))} ms, max ${fmt(Math.max(...pings))} ms; ` +
    `${hungAnswered}/${50 * ROUNDS} hung calls answered at shutdown; shutdown max ${fmt(Math.max(...shutdowns))} ms`);
}

async function timeouts() {
  const took = []; let cancelled = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const log = path.join(dir, `cancel-${r}.log`);
    const gw = new Gateway({ fake: fake('--log', log) }, ['--call-timeout-ms', '300']);
    await gw.initialize();
    await gw.waitEcho('fake');
    const t = performance.now();
    const a = await gw.execute('fake', 'hang');
    if (a?.result?.isError) took.push(performance.now() - t);
    await new Promise((res) => setTimeout(res, 100));
    if (/notifications\/cancelled \d+ timeout/.test(fs.readFileSync(log, 'utf8'))) cancelled++;
    await gw.close();
  }
  report(`tools/call timeout 300 ms, x${ROUNDS}: ${took.length} isError answers after ${fmt(Math.min(...took))}..${fmt(Math.max(...took))} ms; ` +
    `backend got notifications/cancelled ${cancelled}/${ROUNDS}`);
}

async function hungHandshakes() {
  let alive = 0; let restarts = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const gw = new Gateway({ good: fake(), init: fake('--hang-at', 'initialize'), list: fake('--hang-at', 'tools/list') },
      ['--request-timeout-ms', '200']);
    await gw.initialize();
    await gw.waitEcho('good');
    await new Promise((res) => setTimeout(res, 1500));
    if ((await gw.ping()) < 1000) alive++;
    restarts += (gw.stderr.match(/started \(pid/g) ?? []).length - 3;
    await gw.close();
  }
  report(`initialize / tools/list hung, 200 ms timeout, 1.5 s each, x${ROUNDS}: gateway alive ${alive}/${ROUNDS}, ${restarts} backend restarts`);
}

async function stuckReader() {
  const shutdowns = []; let timedOut = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const gw = new Gateway({ good: fake(), stuck: fake('--stop-reading', '--ignore-sigterm') }, ['--call-timeout-ms', '500']);
    await gw.initialize();
    await gw.waitEcho('good');
    const calls = [gw.execute('stuck', 'echo', { text: 'm'.repeat(1 << 20) }), gw.execute('stuck', 'echo', { text: 'small' })];
    for (const a of await Promise.all(calls)) timedOut += a?.result?.isError ? 1 : 0;
    shutdowns.push((await gw.close(r % 2 ? 'eof' : 'sigterm')).ms);
  }
  report(`backend not reading stdin (ignores SIGTERM), 1 MB call, x${ROUNDS}: ${timedOut}/${2 * ROUNDS} calls answered isError; ` +
    `shutdown (EOF or SIGTERM) ${fmt(Math.min(...shutdowns))}..${fmt(Math.max(...shutdowns))} ms`);
}

async function longLine() {
  const gw = new Gateway({});
  await gw.initialize();
  const before = gw.peakRssKiB();
  const piece = 'x'.repeat(1 << 20);
  for (let i = 0; i < 300; i++) {
    if (!gw.proc.stdin.write(piece)) await new Promise((res) => gw.proc.stdin.once('drain', res));
  }
  gw.proc.stdin.write('\n');
  const p = await gw.ping();
  const after = gw.peakRssKiB();
  const errors = gw.unaddressed.filter((m) => m.error?.code === -32600).length;
  report(`300 MB line without newline: peak RSS ${(before / 1024).toFixed(1)} -> ${(after / 1024).toFixed(1)} MiB, ${errors} error answer(s), ping after ${fmt(p)} ms`);
  await gw.close();
}

async function hostileLines() {
  const files = corpusDirs.flatMap((d) => fs.readdirSync(d).map((f) => path.join(d, f)));
  if (files.length === 0) return;
  const gw = new Gateway({ fake: fake() });
  await gw.initialize();
  await gw.waitEcho('fake');
  let sent = 0;
  for (const f of files) {
    // One input per line: its newlines become spaces, so each file is exactly one message.
    const bytes = fs.readFileSync(f);
    for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10 || bytes[i] === 13) bytes[i] = 32;
    if (!gw.proc.stdin.write(Buffer.concat([bytes, Buffer.from('\n')]))) await new Promise((res) => gw.proc.stdin.once('drain', res));
    sent++;
  }
  const p = await gw.ping();
  const exit = await gw.close();
  report(`${sent} fuzzer-generated lines sent to a live gateway: ping after ${fmt(p)} ms, exit code ${exit.code} (signal ${exit.signal})`);
}

for (const scenario of [concurrency, timeouts, hungHandshakes, stuckReader, longLine, hostileLines]) {
  await scenario();
}
fs.rmSync(dir, { recursive: true, force: true });
