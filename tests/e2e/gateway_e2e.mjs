// gateway_e2e.mjs: end-to-end tests of scout-gateway against the reference MCP servers, driven by
// the official TypeScript SDK client over stdio. Usage: node gateway_e2e.mjs GATEWAY SCENARIO.
// Exits 0 on success, 77 (skip) when the MCP peers are not installed, 1 on failure.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  check, checkNoSanitizerReport, connectGateway, execute, has, requirePeers, search, tempDir, waitFor, writeConfig,
} from './lib.mjs';

const [gateway, scenario] = process.argv.slice(2);
const here = path.dirname(fileURLToPath(import.meta.url));
const CALL = { timeout: 15000 };

setTimeout(() => { console.error(`FAIL: scenario ${scenario} exceeded 90 s`); process.exit(1); }, 90000).unref();


const scenarios = {
  async meta_tools(client) {
    const { tools } = await client.listTools(undefined, CALL);
    check(JSON.stringify(tools.map((t) => t.name)) === '["tool_search","execute_tool"]',
      `tools/list returns exactly the two meta-tools (got ${tools.map((t) => t.name)})`);
    const ts = tools[0];
    check(ts.annotations.readOnlyHint === true && ts.annotations.idempotentHint === true, 'tool_search is read-only and idempotent');
    check(tools[1].annotations.readOnlyHint === false, 'execute_tool is not read-only');
    check(/\d+ tools on 3 MCP servers/.test(ts.description),
      `tool_search description counts the backends: "${ts.description.slice(0, 60)}..."`);
    check((await client.ping(CALL)) !== undefined, 'ping answers');
  },

  async search_execute(client) {
    const matches = await search(client, 'repeat my message back to me');
    const rank = matches.findIndex((m) => m.server === 'everything' && m.tool === 'echo');
    check(rank >= 0, `tool_search "repeat my message back to me" finds everything/echo (rank ${rank + 1} of ${matches.length})`);
    const echo = matches[rank];
    check(echo.inputSchema?.properties?.message !== undefined, 'the match carries echo\'s inputSchema');
    const r = await execute(client, echo.tool, echo.server, { message: 'hello from scout' });
    check(!r.isError && r.content[0].text.includes('hello from scout'), `execute_tool runs echo: "${r.content[0].text}"`);
    const byEnhanced = await execute(client, echo.name, echo.server, { message: 'again' });
    check(!byEnhanced.isError && byEnhanced.content[0].text.includes('again'), `execute_tool accepts the enhanced name ${echo.name}`);
    const fs = await search(client, 'read the contents of a text file', { top_k: 5 });
    check(fs.some((m) => m.server === 'filesystem'), `a file query finds filesystem tools (${fs.map((m) => m.name).join(', ')})`);
    const read = fs.find((m) => m.server === 'filesystem' && /read.*file/.test(m.tool));
    const content = await execute(client, read.tool, 'filesystem', { path: path.join(client.__dir, 'files', 'notes.txt') });
    check(!content.isError && JSON.stringify(content.content).includes('scout end-to-end test file'),
      `execute_tool ${read.tool} reads a file through server-filesystem`);
    const mem = await search(client, 'create entities in the knowledge graph', { top_k: 3 });
    check(has(mem, 'memory', 'create_entities'), 'a knowledge-graph query finds memory/create_entities');
    const exact = await search(client, 'everything_get-sum', { top_k: 1 });
    check(exact.length === 1 && exact[0].tool === 'get-sum', 'an exact enhanced name comes back first');
    const unknown = await execute(client, 'no_such_tool', 'everything', {});
    check(unknown.isError === true && unknown.content[0].text.includes('tool_search'), 'an unknown tool gets an isError result pointing to tool_search');
  },

  async restart(client, ctx) {
    await waitFor('the everything pid in the log', () => ctx.pids('everything').length > 0, 10000);
    const pid = ctx.pids('everything')[0];
    check(has(await search(client, 'echo', { top_k: 20 }), 'everything', 'echo'), 'echo is searchable before the crash');
    process.kill(pid, 'SIGKILL');
    await waitFor('echo to leave the search results', async () =>
      !(await search(client, 'echo back the message', { top_k: 20 })).some((m) => m.server === 'everything'), 5000);
    check(true, `after SIGKILL of backend pid ${pid}, its tools are gone from tool_search`);
    const during = await execute(client, 'echo', 'everything', { message: 'x' });
    check(during.isError === true, 'execute_tool on the DEGRADED backend is refused');
    check(has(await search(client, 'create entities in the knowledge graph', { top_k: 5 }), 'memory', 'create_entities'),
      'other backends keep serving meanwhile');
    await waitFor('echo to come back', async () => has(await search(client, 'echo', { top_k: 20 }), 'everything', 'echo'), 20000, 100);
    const pids = ctx.pids('everything');
    check(pids.length >= 2 && pids.at(-1) !== pid, `the backend was restarted (new pid ${pids.at(-1)}) and re-indexed`);
    const r = await execute(client, 'echo', 'everything', { message: 'back again' });
    check(!r.isError && r.content[0].text.includes('back again'), 'execute_tool works after the restart');
  },

  async list_changed(client) {
    check(has(await search(client, 'count widgets in the warehouse'), 'fake', 'count_widgets'),
      'tools from every page of a paginated tools/list are indexed');
    const before = await search(client, 'turbo_encabulator_calibrate');
    check(!before.some((m) => m.tool === 'turbo_encabulator_calibrate'), 'the new tool is not there yet');
    const r = await execute(client, 'add_tool', 'fake', { name: 'turbo_encabulator_calibrate', description: 'Calibrate the turbo encabulator' });
    check(!r.isError, 'add_tool ran on the fake backend');
    const found = await waitFor('the new tool to be indexed', async () => {
      const m = await search(client, 'calibrate the turbo encabulator', { top_k: 3 });
      return m[0]?.tool === 'turbo_encabulator_calibrate' ? m : null;
    }, 10000);
    check(found[0].server === 'fake', 'notifications/tools/list_changed re-indexed the backend');
    const ran = await execute(client, 'turbo_encabulator_calibrate', 'fake', {});
    check(ran.structuredContent?.tool === 'turbo_encabulator_calibrate', 'the upstream result (structuredContent) passes through unmodified');
  },

  async environment(client) {
    const { tools } = await client.listTools(undefined, CALL);
    check(/environment: prod/.test(tools[0].description) && /Only tools of the prod environment/.test(tools[0].description),
      'the connector\'s environment label is in the tool_search description');
    const m = await search(client, 'echo back the message', { top_k: 20 });
    check(m.length > 0 && !m.some((x) => x.server === 'everything'), 'a prod connector never finds the dev backend\'s tools');
    const r = await execute(client, 'echo', 'everything', { message: 'x' });
    check(r.isError === true, 'nor can it execute them');
    check(has(await search(client, 'create entities in the knowledge graph', { top_k: 3 }), 'memory', 'create_entities'),
      'prod backends are searchable');
  },

  async expose_all(client) {
    const { tools } = await client.listTools(undefined, CALL);
    const names = tools.map((t) => t.name);
    check(tools.length > 30 && !names.includes('tool_search'), `--expose all lists every tool (${tools.length})`);
    check(names.includes('everything_echo') && names.includes('memory_create_entities'), 'names are server-prefixed');
    const r = await client.callTool({ name: 'everything_echo', arguments: { message: 'direct' } }, undefined, CALL);
    check(!r.isError && r.content[0].text.includes('direct'), 'tools/call of an enhanced name routes directly');
  },
};

async function main() {
  requirePeers();
  if (!scenarios[scenario]) throw new Error(`unknown scenario ${scenario}`);
  const dir = tempDir();
  const extra = scenario === 'list_changed'
    ? { fake: { command: process.execPath, args: [path.join(here, 'fake_backend.mjs')] } } : {};
  const config = writeConfig(dir, extra, scenario === 'environment'
    ? { everything: 'dev', filesystem: 'prod', memory: 'prod' } : {});
  const args = ['--config', config];  // the default embedder, as a user gets it
  if (scenario === 'expose_all') args.push('--expose', 'all');
  if (scenario === 'environment') args.push('--environment', 'prod');
  // A long first backoff keeps the DEGRADED window wide enough to observe reliably.
  if (scenario === 'restart') args.push('--restart-backoff-ms', '4000');
  const ctx = await connectGateway(gateway, args);
  ctx.client.__dir = dir;
  try {
    await scenarios[scenario](ctx.client, ctx);
    checkNoSanitizerReport(ctx.stderr());
    console.log(`PASS ${scenario}`);
  } catch (e) {
    console.error(`FAIL ${scenario}: ${e.stack}\n--- gateway stderr ---\n${ctx.stderr()}`);
    process.exitCode = 1;
  } finally {
    await ctx.client.close();
  }
}

main().catch((e) => { console.error(`FAIL: ${e.stack}`); process.exit(1); });
