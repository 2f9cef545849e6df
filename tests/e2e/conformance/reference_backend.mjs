// reference_backend.mjs: a stdio MCP server (plain JSON-RPC lines, no dependencies) with the
// tools, prompts and resources the official conformance suite's server scenarios call by name
// (test_image_content, test_simple_prompt, test://static-text, ...), answering as the suite's
// scenario descriptions ask. conformance_e2e.mjs puts it behind scout-gateway, which passes
// those bare names through to it because no other backend has them.
import readline from 'node:readline';

// A 1x1 red PNG and a minimal (silent, 8 kHz, 1 sample) WAV.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==';

let clientCapabilities = {};  // from initialize
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
// Requests to the client (sampling, elicitation), answered through the gateway.
let nextAsk = 1;
const asked = new Map();
function ask(method, params) {
  const id = `ask-${nextAsk++}`;
  send({ id, method, params });
  return new Promise((resolve, reject) => asked.set(id, { resolve, reject }));
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (t) => ({ type: 'text', text: t });

const tools = [
  ['test_simple_text', 'Returns simple text content'],
  ['test_image_content', 'Returns image content'],
  ['test_audio_content', 'Returns audio content'],
  ['test_embedded_resource', 'Returns an embedded resource'],
  ['test_multiple_content_types', 'Returns text, image and resource content'],
  ['test_tool_with_logging', 'Sends log messages while it runs'],
  ['test_tool_with_progress', 'Reports progress while it runs'],
  ['test_error_handling', 'Always fails'],
  ['test_sampling', 'Asks the client for an LLM completion'],
  ['test_elicitation', 'Asks the client for user input'],
  ['test_elicitation_sep1034_defaults', 'Asks the client for input with defaults'],
  ['test_elicitation_sep1330_enums', 'Asks the client for input with enums'],
].map(([name, description]) => ({ name, description, inputSchema: { type: 'object', properties: {} } }));

async function callTool(params) {
  const token = params._meta?.progressToken;
  switch (params.name) {
    case 'test_simple_text':
      return { content: [text('This is a simple text response for testing.')] };
    case 'test_image_content':
      return { content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] };
    case 'test_audio_content':
      return { content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] };
    case 'test_embedded_resource':
      return { content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }] };
    case 'test_multiple_content_types':
      return {
        content: [
          text('Multiple content types test:'),
          { type: 'image', data: PNG, mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
        ],
      };
    case 'test_tool_with_logging':
      for (const [i, data] of ['Tool execution started', 'Tool processing data', 'Tool execution completed'].entries()) {
        if (i > 0) await sleep(50);
        send({ method: 'notifications/message', params: { level: 'info', data } });
      }
      return { content: [text('Tool with logging executed successfully')] };
    case 'test_tool_with_progress':
      for (const [i, progress] of [0, 50, 100].entries()) {
        if (i > 0) await sleep(50);
        if (token !== undefined) send({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100 } });
      }
      return { content: [text('Tool with progress executed successfully')] };
    case 'test_sampling': case 'test_elicitation': case 'test_elicitation_sep1034_defaults':
    case 'test_elicitation_sep1330_enums': {
      // Asking the client needs its capability: the gateway declares both and relays them.
      const need = params.name === 'test_sampling' ? 'sampling' : 'elicitation';
      if (!clientCapabilities[need]) return { isError: true, content: [text(`The client does not support ${need}`)] };
      try {
        if (params.name === 'test_sampling') {
          const prompt = String(params.arguments?.prompt ?? 'Hello');
          const r = await ask('sampling/createMessage', { messages: [{ role: 'user', content: text(prompt) }], maxTokens: 100 });
          return { content: [text(`LLM response: ${r.content?.text ?? JSON.stringify(r.content)}`)] };
        }
        const r = await ask('elicitation/create', elicitation(params));
        return { content: [text(`User response: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`)] };
      } catch (e) {
        return { isError: true, content: [text(`${need} failed: ${e.message}`)] };
      }
    }
    case 'test_error_handling':
      return { isError: true, content: [text('This tool intentionally returns an error for testing')] };
    default:
      return null;
  }
}

/// The elicitation/create params of the three elicitation tools, as the scenarios describe them.
function elicitation(params) {
  if (params.name === 'test_elicitation') {
    return { message: String(params.arguments?.message ?? 'Please provide your information'), requestedSchema: { type: 'object',
      properties: { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } },
      required: ['username', 'email'] } };
  }
  if (params.name === 'test_elicitation_sep1034_defaults') {
    return { message: 'Please review and update the form fields with defaults', requestedSchema: { type: 'object', properties: {
      name: { type: 'string', description: 'User name', default: 'John Doe' },
      age: { type: 'integer', description: 'User age', default: 30 },
      score: { type: 'number', description: 'User score', default: 95.5 },
      status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
      verified: { type: 'boolean', description: 'Verification status', default: true } }, required: [] } };
  }
  return { message: 'Please select options from the enum fields', requestedSchema: { type: 'object', properties: {
    untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
    titledSingle: { type: 'string', description: 'Select one option with titles',
      oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }, { const: 'value3', title: 'Third Option' }] },
    legacyEnum: { type: 'string', description: 'Select one option (legacy)', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
    untitledMulti: { type: 'array', description: 'Select multiple options', minItems: 1, maxItems: 3,
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
    titledMulti: { type: 'array', description: 'Select multiple options with titles', minItems: 1, maxItems: 3,
      items: { anyOf: [{ const: 'value1', title: 'First Choice' }, { const: 'value2', title: 'Second Choice' }, { const: 'value3', title: 'Third Choice' }] } } },
    required: [] } };
}

const prompts = [
  { name: 'test_simple_prompt', description: 'A simple prompt without arguments' },
  { name: 'test_prompt_with_arguments', description: 'A prompt with two arguments', arguments: [
    { name: 'arg1', description: 'First test argument', required: true },
    { name: 'arg2', description: 'Second test argument', required: true }] },
  { name: 'test_prompt_with_embedded_resource', description: 'A prompt embedding a resource', arguments: [
    { name: 'resourceUri', description: 'URI of the resource to embed', required: true }] },
  { name: 'test_prompt_with_image', description: 'A prompt with an image' },
];

function getPrompt(params) {
  const args = params.arguments ?? {};
  const user = (content) => ({ role: 'user', content });
  switch (params.name) {
    case 'test_simple_prompt':
      return { messages: [user(text('This is a simple prompt for testing.'))] };
    case 'test_prompt_with_arguments':
      return { messages: [user(text(`Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`))] };
    case 'test_prompt_with_embedded_resource':
      return {
        messages: [
          user({ type: 'resource', resource: { uri: String(args.resourceUri), mimeType: 'text/plain', text: 'Embedded resource content for testing.' } }),
          user(text('Please process the embedded resource above.')),
        ],
      };
    case 'test_prompt_with_image':
      return { messages: [user({ type: 'image', data: PNG, mimeType: 'image/png' }), user(text('Please analyze the image above.'))] };
    default:
      return null;
  }
}

const resources = [
  { uri: 'test://static-text', name: 'static-text', description: 'A static text resource', mimeType: 'text/plain' },
  { uri: 'test://static-binary', name: 'static-binary', description: 'A static binary resource', mimeType: 'image/png' },
  { uri: 'test://watched-resource', name: 'watched-resource', description: 'A resource to subscribe to', mimeType: 'text/plain' },
];
const templates = [
  { uriTemplate: 'test://template/{id}/data', name: 'template', description: 'Data by id', mimeType: 'application/json' },
];

function readResource(uri) {
  if (uri === 'test://static-text') return { contents: [{ uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] };
  if (uri === 'test://static-binary') return { contents: [{ uri, mimeType: 'image/png', blob: PNG }] };
  if (uri === 'test://watched-resource') return { contents: [{ uri, mimeType: 'text/plain', text: 'Watched resource content.' }] };
  const m = /^test:\/\/template\/([^/]+)\/data$/.exec(uri);
  if (m) return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ id: m[1], templateTest: true, data: `Data for ID: ${m[1]}` }) }] };
  return null;
}

async function handle(m) {
  const p = m.params ?? {};
  switch (m.method) {
    case 'initialize':
      clientCapabilities = p.capabilities ?? {};
      return { protocolVersion: p.protocolVersion ?? '2025-06-18', serverInfo: { name: 'conformance-reference', version: '1.0.0' },
        capabilities: { tools: {}, prompts: {}, resources: { subscribe: true }, logging: {} } };
    case 'ping': case 'logging/setLevel': case 'resources/subscribe': case 'resources/unsubscribe':
      return {};
    case 'tools/list': return { tools };
    case 'tools/call': return (await callTool(p)) ?? { error: { code: -32602, message: `Unknown tool: ${p.name}` } };
    case 'prompts/list': return { prompts };
    case 'prompts/get': return getPrompt(p) ?? { error: { code: -32602, message: `Unknown prompt: ${p.name}` } };
    case 'resources/list': return { resources };
    case 'resources/templates/list': return { resourceTemplates: templates };
    case 'resources/read': return readResource(p.uri) ?? { error: { code: -32002, message: `Resource not found: ${p.uri}` } };
    default: return { error: { code: -32601, message: `Method not found: ${m.method}` } };
  }
}

readline.createInterface({ input: process.stdin }).on('line', async (line) => {
  let m;
  try { m = JSON.parse(line); } catch { send({ id: null, error: { code: -32700, message: 'Parse error' } }); return; }
  if (m.id !== undefined && m.method === undefined && asked.has(m.id)) {  // an answer to ask()
    const { resolve, reject } = asked.get(m.id);
    asked.delete(m.id);
    if (m.error) reject(new Error(m.error.message)); else resolve(m.result ?? {});
    return;
  }
  if (m.id === undefined || m.method === undefined) return;  // notifications and other responses
  const answer = await handle(m);
  send(answer?.error ? { id: m.id, error: answer.error } : { id: m.id, result: answer });
});
