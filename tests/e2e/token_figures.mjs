// token_figures.mjs: what the model's context pays for tools, on the real set-up of the
// end-to-end tests: the three reference servers' full tool lists (asked directly with
// tools/list) versus scout-gateway's two meta-tools plus one tool_search result.
// Usage: node token_figures.mjs GATEWAY [QUERY]. Token counts are an ESTIMATE: bytes / 4.
import { pathToFileURL } from 'node:url';

import { connectGateway, peerPath, requirePeers, tempDir, writeConfig } from './lib.mjs';
import fs from 'node:fs';

const [gateway, query = 'repeat my message back to me'] = process.argv.slice(2);
const bytes = (v) => Buffer.byteLength(JSON.stringify(v), 'utf8');
const est = (n) => Math.round(n / 4);

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
const dir = tempDir();
const configFile = writeConfig(dir);
const lists = await directTools(JSON.parse(fs.readFileSync(configFile, 'utf8')));
let fullBytes = 0;
let toolCount = 0;
for (const [name, tools] of Object.entries(lists)) {
  console.log(`${name.padEnd(12)} ${String(tools.length).padStart(3)} tools  ${String(bytes(tools)).padStart(6)} bytes  ~${est(bytes(tools))} tokens`);
  fullBytes += bytes(tools);
  toolCount += tools.length;
}
const { client } = await connectGateway(gateway, ['--config', configFile]);
const meta = (await client.listTools()).tools;
const result = await client.callTool({ name: 'tool_search', arguments: { query } });
await client.close();
// The model reads the text block itself (not its JSON-escaped form).
const textOnly = Buffer.byteLength(result.content.map((c) => c.text ?? '').join(''), 'utf8');
console.log(`full lists   ${toolCount} tools  ${fullBytes} bytes  ~${est(fullBytes)} tokens`);
console.log(`meta-tools     2 tools  ${bytes(meta)} bytes  ~${est(bytes(meta))} tokens`);
console.log(`one tool_search result (top_k 5, "${query}"): content ${textOnly} bytes ~${est(textOnly)} tokens; ` +
            `with structuredContent ${bytes(result)} bytes ~${est(bytes(result))} tokens`);
const metaTotal = bytes(meta) + textOnly;
console.log(`meta-tools + one result: ~${est(metaTotal)} tokens vs ~${est(fullBytes)} (${(100 * (1 - metaTotal / fullBytes)).toFixed(1)}% fewer); estimate = bytes/4`);
fs.rmSync(dir, { recursive: true, force: true });
