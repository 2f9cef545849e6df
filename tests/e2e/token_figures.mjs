// token_figures.mjs: what the model's context pays for tools, on the real set-up of the
// end-to-end tests: the three reference servers' full tool lists (asked directly with
// tools/list) versus scout-gateway's two meta-tools plus one tool_search result.
// Usage: node token_figures.mjs GATEWAY [QUERY]. Tokens are counted with scout's BPE counter
// (`scout tokens`, cl100k_base and o200k_base, next to the gateway binary); where it or its rank
// files are missing, the script prints a clearly labelled estimate (bytes / 4) instead.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { connectGateway, peerPath, requirePeers, tempDir, writeConfig } from './lib.mjs';

const [gateway, query = 'repeat my message back to me'] = process.argv.slice(2);
const scoutCli = path.join(path.dirname(gateway), 'scout');
const dir = tempDir();
let fileNo = 0;

/// "{bytes} bytes, {cl100k} cl100k / {o200k} o200k tokens", or the bytes/4 estimate.
function measure(text) {
  const bytes = Buffer.byteLength(text, 'utf8');
  const file = path.join(dir, `text-${fileNo++}.txt`);
  fs.writeFileSync(file, text);
  try {
    const count = (enc) => Number(execFileSync(scoutCli, ['tokens', '--encoding', enc, '--file', file],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim());
    return { bytes, cl100k: count('cl100k_base'), o200k: count('o200k_base') };
  } catch {
    return { bytes, estimate: Math.round(bytes / 4) };
  }
}
const show = (m) => m.estimate !== undefined
  ? `${m.bytes} bytes  ~${m.estimate} tokens (ESTIMATE: bytes/4, no BPE counter available)`
  : `${m.bytes} bytes  ${m.cl100k} cl100k / ${m.o200k} o200k tokens`;

async function directTools(config) {
  const sdk = (rel) => import(pathToFileURL(peerPath('sdk', `dist/esm/${rel}`)).href);
  const { Client } = await sdk('client/index.js');
  const { StdioClientTransport } = await sdk('client/stdio.js');
  const out = {};
  for (const [name, s] of Object.entries(config.mcpServers)) {
    const client = new Client({ name: 'scout-tokens', version: '1' });
    await client.connect(new StdioClientTransport({ command: s.command, args: s.args, env: { ...process.env, ...(s.env ?? {}) }, stderr: 'ignore' }));
    out[name] = (await client.listTools()).tools;
    await client.close();
  }
  return out;
}

requirePeers();
const configFile = writeConfig(dir);
const lists = await directTools(JSON.parse(fs.readFileSync(configFile, 'utf8')));
let all = [];
for (const [name, tools] of Object.entries(lists)) {
  console.log(`${name.padEnd(12)} ${String(tools.length).padStart(3)} tools  ${show(measure(JSON.stringify(tools)))}`);
  all = all.concat(tools);
}
const { client } = await connectGateway(gateway, ['--config', configFile]);
const meta = (await client.listTools()).tools;
const result = await client.callTool({ name: 'tool_search', arguments: { query } });
await client.close();
// The model reads the text block itself (not its JSON-escaped form).
const text = result.content.map((c) => c.text ?? '').join('');
const full = measure(JSON.stringify(all));
const metaM = measure(JSON.stringify(meta));
const textM = measure(text);
const both = measure(JSON.stringify(meta) + text);
console.log(`full lists   ${String(all.length).padStart(3)} tools  ${show(full)}`);
console.log(`meta-tools     2 tools  ${show(metaM)}`);
console.log(`one tool_search result (top_k 5, "${query}"): ${show(textM)}`);
console.log(`  the same with structuredContent: ${show(measure(JSON.stringify(result.structuredContent) + text))}`);
console.log(`meta-tools + one result: ${show(both)}`);
const key = both.estimate !== undefined ? 'estimate' : 'cl100k';
console.log(`saving: ${(100 * (1 - both[key] / full[key])).toFixed(1)}% (${key})`);
fs.rmSync(dir, { recursive: true, force: true });
