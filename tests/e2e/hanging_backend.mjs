// hanging_backend.mjs: a minimal MCP stdio server (no dependencies) with one tool that answers
// at once (quick_lookup) and one whose tools/call is never answered (stuck_lookup), to check that
// the gateway ends a call at its timeout while other calls go on.
import readline from 'node:readline';

const tools = [
  { name: 'quick_lookup', description: 'Look up a record quickly', inputSchema: { type: 'object' } },
  { name: 'stuck_lookup', description: 'Look up a record on a server that never answers', inputSchema: { type: 'object' } },
];
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.id === undefined) return;
  if (m.method === 'initialize') {
    send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'hanging', version: '1' } } });
  } else if (m.method === 'tools/list') {
    send({ id: m.id, result: { tools } });
  } else if (m.method === 'tools/call') {
    if (m.params.name === 'quick_lookup') send({ id: m.id, result: { content: [{ type: 'text', text: 'found' }] } });
    // stuck_lookup: no answer, ever
  } else {
    send({ id: m.id, error: { code: -32601, message: 'Method not found' } });
  }
});
