// catalog_backend.mjs: an MCP stdio server (no dependencies) that lists every tool of a scout
// catalog file as its own, named "<server>__<tool>" so names stay unique, and answers any
// tools/call with a short text. It gives the gateway benchmark hundreds or thousands of real
// tool descriptions behind one process. Usage: node catalog_backend.mjs CATALOG.json
import fs from 'node:fs';
import readline from 'node:readline';

const catalog = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const tools = [];
for (const server of catalog.servers) {
  for (const t of server.tools) {
    tools.push({ name: `${server.name}__${t.name}`.slice(0, 128), description: t.description ?? '',
                 inputSchema: t.inputSchema ?? { type: 'object' } });
  }
}
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.id === undefined) return;
  if (m.method === 'initialize') {
    send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'catalog', version: '1' } } });
  } else if (m.method === 'tools/list') {
    send({ id: m.id, result: { tools } });
  } else if (m.method === 'tools/call') {
    send({ id: m.id, result: { content: [{ type: 'text', text: `ran ${m.params.name}` }] } });
  } else {
    send({ id: m.id, error: { code: -32601, message: 'Method not found' } });
  }
});
