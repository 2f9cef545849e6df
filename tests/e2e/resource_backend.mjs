// resource_backend.mjs: a minimal MCP stdio server (no dependencies) with resources note://a and
// note://b. With "subscribe" (argv[3]) it offers resources.subscribe: a subscribe is answered,
// then its URI gets notifications/resources/updated at once and every 200 ms until unsubscribed;
// note://stray gets one every 200 ms whoever asked. Without it, subscribe is -32601. The tool
// exit_now ends the process (to test a restart). Each subscribe and unsubscribe is appended to
// the log file argv[2] as "<pid> subscribe <uri>". With "flood" (as "subscribe"), a subscribe is
// followed by 20,000 updates of its URI and 20,000 of note://stray at once.
// Usage: node resource_backend.mjs LOG [subscribe|flood].
import fs from 'node:fs';
import readline from 'node:readline';

const [log, mode] = process.argv.slice(2);
const subscribes = mode === 'subscribe' || mode === 'flood';
const subscribed = new Set();
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
const updated = (uri) => send({ method: 'notifications/resources/updated', params: { uri } });
const note = (what) => fs.appendFileSync(log, `${process.pid} ${what}\n`);

if (subscribes) {
  setInterval(() => {
    for (const uri of subscribed) updated(uri);
    updated('note://stray');
  }, 200);
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.id === undefined) return;
  const uri = m.params?.uri;
  if (m.method === 'initialize') {
    const resources = subscribes ? { subscribe: true } : {};
    send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {}, resources }, serverInfo: { name: 'notes', version: '1' } } });
  } else if (m.method === 'tools/list') {
    send({ id: m.id, result: { tools: [{ name: 'exit_now', description: 'Stop the notes server process at once', inputSchema: { type: 'object' } }] } });
  } else if (m.method === 'tools/call') {
    process.exit(0);
  } else if (m.method === 'resources/list') {
    send({ id: m.id, result: { resources: [{ uri: 'note://a', name: 'a' }, { uri: 'note://b', name: 'b' }] } });
  } else if (m.method === 'resources/read') {
    send({ id: m.id, result: { contents: [{ uri, text: `contents of ${uri}` }] } });
  } else if (subscribes && m.method === 'resources/subscribe') {
    note(`subscribe ${uri}`);
    subscribed.add(uri);
    send({ id: m.id, result: {} });
    updated(uri);
    for (let i = 0; mode === 'flood' && i < 20000; ++i) {
      updated(uri);
      updated('note://stray');
    }
  } else if (subscribes && m.method === 'resources/unsubscribe') {
    note(`unsubscribe ${uri}`);
    subscribed.delete(uri);
    send({ id: m.id, result: {} });
  } else {
    send({ id: m.id, error: { code: -32601, message: 'Method not found' } });
  }
});
