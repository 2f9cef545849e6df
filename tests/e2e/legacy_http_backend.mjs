// legacy_http_backend.mjs: a 2025-11-25 MCP server over Streamable HTTP with sessions (the v1 SDK's
// McpServer and StreamableHTTPServerTransport), bound to 127.0.0.1 on a free port. It prints
// "listening on 127.0.0.1:PORT" and one line per message or stream it sees ("seen METHOD",
// "seen GET session=ID", "ping answered"). Half a second after the GET stream of a session opens
// it pings the client and adds the tool calibrate_flux_capacitor, whose list_changed then goes out
// on that stream only (no request is under way); without a GET within 3 s of initialize it adds
// the tool anyway, where no client hears of it. Modes (argv[3]): "stream" (the above), "no-get"
// (GET answered 405), "drop-get" (the first GET stream is closed by the server after 300 ms),
// "resources" (as "stream", plus the resource note://a with resources.subscribe: a subscribed URI
// gets notifications/resources/updated every 200 ms, from a timer, so on the GET stream only).
// Exits when stdin closes or after 60 s. Usage: node legacy_http_backend.mjs PEERS_NODE_MODULES MODE.
import http from 'node:http';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const [peers, mode = 'stream'] = process.argv.slice(2);
const sdk = (rel) => import(pathToFileURL(path.join(peers, '@modelcontextprotocol', 'sdk', 'dist', 'esm', rel)).href);
const { McpServer } = await sdk('server/mcp.js');
const { StreamableHTTPServerTransport } = await sdk('server/streamableHttp.js');
const { SubscribeRequestSchema, UnsubscribeRequestSchema } = await sdk('types.js');

const sessions = new Map();  // session id -> { transport, server, added }
let gets = 0;

function newServer() {
  const resources = mode === 'resources';
  const server = new McpServer({ name: 'legacy-http-backend', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true }, ...(resources ? { resources: { subscribe: true } } : {}) } });
  server.registerTool('measure_plasma_density', { description: 'Measure the electron density of the plasma' },
    async () => ({ content: [{ type: 'text', text: 'density: 1e19 per cubic metre' }] }));
  if (resources) {
    server.registerResource('a', 'note://a', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'a' }] }));
    const subscribed = new Set();
    server.server.setRequestHandler(SubscribeRequestSchema, async (r) => { subscribed.add(r.params.uri); return {}; });
    server.server.setRequestHandler(UnsubscribeRequestSchema, async (r) => { subscribed.delete(r.params.uri); return {}; });
    setInterval(() => {
      for (const uri of subscribed) server.server.sendResourceUpdated({ uri }).catch(() => {});
    }, 200).unref();
  }
  return server;
}

function addLateTool(entry) {
  if (entry.added) return;
  entry.added = true;
  entry.server.registerTool('calibrate_flux_capacitor',
    { description: 'Calibrate the flux capacitor of the time circuits' },
    async () => ({ content: [{ type: 'text', text: 'flux capacitor calibrated' }] }));
  console.log('added calibrate_flux_capacitor');
}

const httpServer = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString();
  const sid = req.headers['mcp-session-id'];
  try {
    if (req.method === 'POST') {
      const body = JSON.parse(text);
      console.log(`seen ${body.method ?? 'response'}`);
      if (body.method === 'initialize') {
        const server = newServer();
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            const entry = { transport, server, added: false };
            sessions.set(id, entry);
            setTimeout(() => addLateTool(entry), 3000).unref();
          },
        });
        await server.connect(transport);
        await transport.handleRequest(req, res, body);
        return;
      }
      const entry = sessions.get(sid);
      if (!entry) { res.writeHead(404).end(); return; }
      await entry.transport.handleRequest(req, res, body);
      return;
    }
    if (req.method === 'GET') {
      console.log(`seen GET session=${sid ?? 'none'}`);
      const entry = sessions.get(sid);
      if (mode === 'no-get') { res.writeHead(405, { Allow: 'POST, DELETE' }).end(); return; }
      if (!entry) { res.writeHead(404).end(); return; }
      gets += 1;
      if (mode === 'drop-get' && gets === 1) {
        setTimeout(() => res.destroy(), 300);
      } else {
        setTimeout(async () => {
          try {
            await entry.server.server.ping();
            console.log('ping answered');
          } catch (e) {
            console.log(`ping failed: ${e.message}`);
          }
        }, 500);
        setTimeout(() => addLateTool(entry), 500);
      }
      await entry.transport.handleRequest(req, res);
      return;
    }
    if (req.method === 'DELETE') {
      console.log('seen DELETE');
      const entry = sessions.get(sid);
      if (!entry) { res.writeHead(404).end(); return; }
      await entry.transport.handleRequest(req, res);
      sessions.delete(sid);
      return;
    }
    res.writeHead(405).end();
  } catch (e) {
    if (!res.headersSent) res.writeHead(500).end(String(e));
  }
});
httpServer.listen(0, '127.0.0.1', () => console.log(`listening on 127.0.0.1:${httpServer.address().port}`));
const stop = () => process.exit(0);
process.stdin.on('end', stop).resume();
setTimeout(stop, 60000).unref();
