// modern_backend.mjs: a 2026-07-28 MCP server on the v2 SDK's serveStdio (legacy fallback on),
// for the gateway's modern-upstream test. Usage: node modern_backend.mjs PEERS_NODE_MODULES.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const sdk = (rel) => import(pathToFileURL(path.join(process.argv[2], '@modelcontextprotocol', 'server', 'dist', rel)).href);
const { McpServer } = await sdk('index.mjs');
const { serveStdio } = await sdk('stdio.mjs');

serveStdio(() => {
  const server = new McpServer({ name: 'modern-backend', version: '1.0.0' });
  server.registerTool('measure_flux_density', { description: 'Measure the magnetic flux density of the sample' },
    async () => ({ content: [{ type: 'text', text: 'flux density: 1.21 tesla' }] }));
  return server;
});
