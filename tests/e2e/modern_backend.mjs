// modern_backend.mjs: a 2026-07-28 MCP server on the v2 SDK's serveStdio (legacy fallback on),
// for the gateway's modern-upstream test (its tool list grows on demand). Usage: node modern_backend.mjs PEERS_NODE_MODULES.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const sdk = (rel) => import(pathToFileURL(path.join(process.argv[2], '@modelcontextprotocol', 'server', 'dist', rel)).href);
const { McpServer } = await sdk('index.mjs');
const { serveStdio } = await sdk('stdio.mjs');

serveStdio(() => {
  const server = new McpServer({ name: 'modern-backend', version: '1.0.0' });
  server.registerTool('measure_flux_density', { description: 'Measure the magnetic flux density of the sample' },
    async () => ({ content: [{ type: 'text', text: 'flux density: 1.21 tesla' }] }));
  // Registering a tool later sends tools/list_changed, which a modern server delivers only on
  // subscriptions/listen streams: the gateway must have opened one to see the new tool.
  server.registerTool('install_plasma_coil', { description: 'Install the plasma coil' }, async () => {
    server.registerTool('calibrate_plasma_coil', { description: 'Calibrate the plasma coil windings' },
      async () => ({ content: [{ type: 'text', text: 'coil calibrated' }] }));
    return { content: [{ type: 'text', text: 'coil installed' }] };
  });
  return server;
});
