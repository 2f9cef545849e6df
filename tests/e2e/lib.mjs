// lib.mjs: helpers of the gateway end-to-end tests: locating the pinned MCP peers (installed by
// scripts/fetch.d/30-mcp-test-peers.sh), skipping cleanly when node or the peers are missing,
// writing a gateway config, and starting the gateway under the official TypeScript SDK client.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const SKIP = 77;  // ctest SKIP_RETURN_CODE

export function peersDir() {
  return process.env.SCOUT_MCP_PEERS ||
    path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'scout', 'mcp-peers');
}

export function peerPath(pkg, rel) {
  return path.join(peersDir(), 'node_modules', '@modelcontextprotocol', pkg, rel);
}

/// Exits with SKIP (and says why) unless the SDK and the three reference servers are installed;
/// under SCOUT_REQUIRE_FIXTURES=1 (CI, which fetches them first) a missing peer fails instead.
export function requirePeers() {
  for (const pkg of ['sdk', 'server-everything', 'server-filesystem', 'server-memory', 'conformance']) {
    if (!fs.existsSync(peerPath(pkg, 'package.json'))) {
      const required = process.env.SCOUT_REQUIRE_FIXTURES === '1';
      console.log(`${required ? 'FAIL' : 'SKIP'}: MCP peer @modelcontextprotocol/${pkg} is not installed in ` +
                  `${peersDir()}; run scripts/fetch.d/30-mcp-test-peers.sh (needs npm)`);
      process.exit(required ? 1 : SKIP);
    }
  }
}

export function tempDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'scout-gw-e2e-'));
}

/// A Claude-Desktop-style config with the three reference servers (plus `extra` entries);
/// `labels` maps server names to environment labels.
export function writeConfig(dir, extra = {}, labels = {}) {
  const root = path.join(dir, 'files');
  fs.mkdirSync(root, { recursive: true });
  fs.writeFileSync(path.join(root, 'notes.txt'), 'scout end-to-end test file\n');
  const config = {
    mcpServers: {
      everything: { command: process.execPath, args: [peerPath('server-everything', 'dist/index.js'), 'stdio'] },
      filesystem: { command: process.execPath, args: [peerPath('server-filesystem', 'dist/index.js'), root] },
      memory: {
        command: process.execPath,
        args: [peerPath('server-memory', 'dist/index.js')],
        env: { MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') },
      },
      ...extra,
    },
  };
  for (const [name, label] of Object.entries(labels)) config.mcpServers[name].environment = label;
  const file = path.join(dir, 'servers.json');
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

/// Starts the gateway through the SDK's StdioClientTransport and connects a Client.
/// Returns { client, transport, stderr: () => text so far, pidOf(name) }.
export async function connectGateway(gateway, args) {
  const sdk = (rel) => import(pathToFileURL(peerPath('sdk', `dist/esm/${rel}`)).href);
  const { Client } = await sdk('client/index.js');
  const { StdioClientTransport } = await sdk('client/stdio.js');
  const transport = new StdioClientTransport({ command: gateway, args, stderr: 'pipe' });
  let log = '';
  transport.stderr.on('data', (chunk) => {
    log += chunk.toString();
    if (process.env.SCOUT_E2E_VERBOSE) process.stderr.write(chunk);
  });
  const client = new Client({ name: 'scout-e2e', version: '1.0.0' });
  await client.connect(transport, { timeout: 30000 });
  const pids = (name) => [...log.matchAll(new RegExp(`backend '${name}' started \\(pid (\\d+)\\)`, 'g'))]
    .map((m) => Number(m[1]));
  return { client, transport, stderr: () => log, pids };
}

export async function waitFor(what, predicate, timeoutMs, intervalMs = 50) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export function check(condition, message) {
  if (!condition) throw new Error(`check failed: ${message}`);
  console.log(`ok - ${message}`);
}

// Under the sanitizer builds, a report on the gateway's stderr fails the scenario.
export function checkNoSanitizerReport(stderr) {
  if (/(Address|Thread|UndefinedBehavior)Sanitizer|runtime error:/.test(stderr)) {
    throw new Error('the gateway reported a sanitizer error');
  }
}

/// Exits with SKIP (like requirePeers) unless the 2026-07-28 SDK packages are installed too.
export function requireModernPeers() {
  requirePeers();
  for (const pkg of ['client', 'server']) {
    if (!fs.existsSync(peerPath(pkg, 'package.json'))) {
      const required = process.env.SCOUT_REQUIRE_FIXTURES === '1';
      console.log(`${required ? 'FAIL' : 'SKIP'}: MCP peer @modelcontextprotocol/${pkg} is not installed in ` +
                  `${peersDir()}; run scripts/fetch.d/30-mcp-test-peers.sh (needs npm)`);
      process.exit(required ? 1 : SKIP);
    }
  }
}

/// The v2 SDK's client package (2026-07-28 with legacy fallback): { Client, StdioClientTransport, ... }.
export async function modernSdk() {
  const client = await import(pathToFileURL(peerPath('client', 'dist/index.mjs')).href);
  const stdio = await import(pathToFileURL(peerPath('client', 'dist/stdio.mjs')).href);
  return { ...client, ...stdio };
}

/// Starts the gateway under the v2 SDK's StdioClientTransport with version negotiation on
/// (server/discover first). Returns { client, transport, stderr }.
export async function connectModernGateway(gateway, args) {
  const { Client, StdioClientTransport } = await modernSdk();
  const transport = new StdioClientTransport({ command: gateway, args, stderr: 'pipe' });
  let log = '';
  transport.stderr.on('data', (chunk) => {
    log += chunk.toString();
    if (process.env.SCOUT_E2E_VERBOSE) process.stderr.write(chunk);
  });
  const client = new Client({ name: 'scout-e2e-modern', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(transport, { timeout: 30000 });
  return { client, transport, stderr: () => log };
}

/// scout-gateway with `args` and --listen 127.0.0.1:0; resolves { url (http://127.0.0.1:<port>),
/// stderr(), stop() } once it logs its port. stop() sends SIGTERM (SIGKILL after 10 s) and
/// resolves with the exit code.
export async function startListeningGateway(gateway, args) {
  const child = spawn(gateway, [...args, '--listen', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (chunk) => {
    log += chunk.toString();
    if (process.env.SCOUT_E2E_VERBOSE) process.stderr.write(chunk);
  });
  const port = await waitFor('the gateway to listen', () => log.match(/\(port (\d+),/)?.[1], 30000);
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    stderr: () => log,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

const CALL = { timeout: 20000 };

/// tool_search through an SDK client: its matches (a failed search throws).
export async function search(client, query, extra = {}) {
  const r = await client.callTool({ name: 'tool_search', arguments: { query, ...extra } }, undefined, CALL);
  if (r.isError) throw new Error(`tool_search failed: ${JSON.stringify(r.content)}`);
  return r.structuredContent.matches;
}

/// execute_tool through an SDK client: the call's result.
export function execute(client, tool_name, server_name, args, options = CALL) {
  return client.callTool({ name: 'execute_tool', arguments: { tool_name, server_name, arguments: args } }, undefined, options);
}

/// Whether search matches hold server/tool.
export const has = (matches, server, tool) => matches.some((m) => m.server === server && m.tool === tool);
