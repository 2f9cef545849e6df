// fake_backend.mjs: a minimal MCP stdio server (no dependencies) whose tool list changes on
// demand: calling add_tool adds a tool and sends notifications/tools/list_changed. It pages
// tools/list two tools at a time, so the gateway must follow nextCursor.
import readline from 'node:readline';

const tools = [
  { name: 'add_tool', description: 'Register a new tool on this test server', inputSchema: { type: 'object', properties: { name: { type: 'string' }, description: { type: 'string' } }, required: ['name'] } },
  { name: 'ping_server', description: 'Answer pong', inputSchema: { type: 'object' } },
  { name: 'count_widgets', description: 'Count the widgets in the warehouse inventory', inputSchema: { type: 'object' } },
];
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
const PAGE = 2;

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.id === undefined) return;
  if (m.method === 'initialize') {
    send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'fake', version: '1' } } });
  } else if (m.method === 'tools/list') {
    const start = Number(m.params?.cursor ?? 0);
    const page = tools.slice(start, start + PAGE);
    const result = { tools: page };
    if (start + PAGE < tools.length) result.nextCursor = String(start + PAGE);
    send({ id: m.id, result });
  } else if (m.method === 'tools/call') {
    const { name, arguments: args } = m.params;
    if (name === 'add_tool') {
      tools.push({ name: args.name, description: args.description ?? '', inputSchema: { type: 'object' } });
      send({ id: m.id, result: { content: [{ type: 'text', text: `added ${args.name}` }] } });
      send({ method: 'notifications/tools/list_changed' });
    } else if (tools.some((t) => t.name === name)) {
      send({ id: m.id, result: { content: [{ type: 'text', text: `ran ${name}` }], structuredContent: { tool: name } } });
    } else {
      send({ id: m.id, error: { code: -32602, message: `unknown tool ${name}` } });
    }
  } else {
    send({ id: m.id, error: { code: -32601, message: 'Method not found' } });
  }
});
