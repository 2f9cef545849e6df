// modern_http_backend.mjs: a 2026-07-28-only MCP server over Streamable HTTP (the v2 SDK's
// createMcpHandler with legacy 'reject', so a client that fell back to initialize would fail),
// bound to 127.0.0.1 on a free port; prints "listening on 127.0.0.1:PORT" and the method and
// Mcp-Session-Id of each POST ("seen METHOD session=none"). Exits when stdin closes or after
// 60 s. Usage: node modern_http_backend.mjs PEERS_NODE_MODULES.
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const { McpServer, createMcpHandler } = await import(
  pathToFileURL(path.join(process.argv[2], '@modelcontextprotocol', 'server', 'dist', 'index.mjs')).href);

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'modern-http-backend', version: '1.0.0' });
  server.registerTool('measure_ion_drift', { description: 'Measure the ion drift velocity in the plasma chamber' },
    async () => ({ content: [{ type: 'text', text: 'ion drift: 42 m/s' }] }));
  return server;
}, { legacy: 'reject', keepAliveMs: 0 });

// node:http to the handler's web-standard fetch face.
const server = http.createServer(async (req, res) => {
  try {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    if (req.method === 'POST') {
      let method = '?';
      try { method = JSON.parse(body.toString()).method ?? 'response'; } catch { /* not JSON */ }
      console.log(`seen ${method} session=${req.headers['mcp-session-id'] ?? 'none'}`);
    }
    const response = await handler.fetch(new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers: Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
      body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
    }));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) for await (const chunk of response.body) res.write(chunk);
    res.end();
  } catch (e) {
    res.writeHead(500).end(String(e));
  }
});
server.listen(0, '127.0.0.1', () => console.log(`listening on 127.0.0.1:${server.address().port}`));
const stop = () => { handler.close().finally(() => process.exit(0)); };
process.stdin.on('end', stop).resume();
setTimeout(stop, 60000).unref();
