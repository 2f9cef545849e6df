// relay_backend.mjs: a stdio MCP server (plain JSON-RPC lines) whose tools talk to the client
// during a call, for relay_e2e.mjs: progress_steps sends `steps` notifications/progress with the
// request's progress token (and one log message per step), progress_flood sends `count` at once,
// ask_sampling and ask_elicitation ask the client and return its answer (or the error) as text.
import readline from 'node:readline';

const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (t) => ({ content: [{ type: 'text', text: t }] });
const object = { type: 'object', properties: { steps: { type: 'integer' }, count: { type: 'integer' } } };
const tools = ['progress_steps', 'progress_flood', 'ask_sampling', 'ask_elicitation']
  .map((name) => ({ name, description: `relay test tool ${name.replace('_', ' ')}`, inputSchema: object }));

let nextAsk = 1;
const asked = new Map();
function ask(method, params) {
  const id = `ask-${nextAsk++}`;
  send({ id, method, params });
  return new Promise((resolve) => asked.set(id, resolve));
}

async function callTool(p) {
  const token = p._meta?.progressToken;
  const args = p.arguments ?? {};
  switch (p.name) {
    case 'progress_steps': {
      const steps = Number(args.steps ?? 3);
      for (let i = 1; i <= steps; ++i) {
        if (token !== undefined) send({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } });
        send({ method: 'notifications/message', params: { level: 'info', data: `step ${i} of ${steps}` } });
        await sleep(30);
      }
      return text(`token ${token === undefined ? 'absent' : typeof token}; ${steps} steps`);
    }
    case 'progress_flood': {
      const count = Number(args.count ?? 5000);
      for (let i = 1; i <= count; ++i) send({ method: 'notifications/progress', params: { progressToken: token, progress: i } });
      return text(`flooded ${count}`);
    }
    case 'ask_sampling': case 'ask_elicitation': {
      const answer = p.name === 'ask_sampling'
        ? await ask('sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 })
        : await ask('elicitation/create', { message: 'name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
      return answer.error ? { isError: true, ...text(`refused ${answer.error.code}: ${answer.error.message}`) }
        : text(`answered ${JSON.stringify(answer.result)}`);
    }
    default:
      return null;
  }
}

readline.createInterface({ input: process.stdin }).on('line', async (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.method === undefined && asked.has(m.id)) { asked.get(m.id)(m); asked.delete(m.id); return; }
  if (m.id === undefined || m.method === undefined) return;
  let result;
  switch (m.method) {
    case 'initialize':
      result = { protocolVersion: m.params?.protocolVersion ?? '2025-06-18', serverInfo: { name: 'relay', version: '1.0.0' },
        capabilities: { tools: {}, logging: {} } };
      break;
    case 'ping': case 'logging/setLevel': result = {}; break;
    case 'tools/list': result = { tools }; break;
    case 'tools/call': result = await callTool(m.params ?? {}); break;
    default: break;
  }
  send(result ? { id: m.id, result } : { id: m.id, error: { code: -32601, message: `Method not found: ${m.method}` } });
});
