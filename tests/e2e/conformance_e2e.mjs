// conformance_e2e.mjs: the official MCP conformance suite's server scenarios
// (@modelcontextprotocol/conformance, pinned in package.json) against scout-gateway's Streamable
// HTTP transport. Usage: node conformance_e2e.mjs GATEWAY. The gateway listens on 127.0.0.1 with
// the three reference servers behind it. The suite runs every active server scenario and checks
// its failures against conformance/baseline.yaml (the scenarios that need the suite's own test
// server, with the reason): an unexpected failure fails this test, and so does a listed scenario
// that passes. Exits 0 on success, 77 (skip) when the peers are missing, 1 on failure.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { check, checkNoSanitizerReport, peerPath, requirePeers, startListeningGateway, tempDir, writeConfig } from './lib.mjs';

const [gateway] = process.argv.slice(2);
const here = path.dirname(fileURLToPath(import.meta.url));
const SUITE_TIMEOUT_MS = 150000;

setTimeout(() => { console.error('FAIL: the conformance run exceeded 170 s'); process.exit(1); }, 170000).unref();

/// Runs the suite's CLI on Node 20 (through the globSync shim); resolves { code, output }.
function runSuite(url) {
  const args = [
    '--import', path.join(here, 'conformance', 'node20_shim.mjs'),
    peerPath('conformance', 'dist/index.js'),
    'server', '--url', url, '--expected-failures', path.join(here, 'conformance', 'baseline.yaml'),
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk.toString(); });
  child.stderr.on('data', (chunk) => { output += chunk.toString(); });
  const timer = setTimeout(() => child.kill('SIGKILL'), SUITE_TIMEOUT_MS);
  return new Promise((resolve) => child.on('exit', (code, signal) => {
    clearTimeout(timer);
    resolve({ code: signal ? `signal ${signal}` : code, output: output.replace(/\x1b\[[0-9;]*m/g, '') });
  }));
}

requirePeers();
const dir = tempDir();
// Behind the reference servers, the suite's own tools, prompts and resources: the scenarios call
// them by their bare names, which the gateway passes to the one backend that has them.
const reference = { command: process.execPath, args: [path.join(here, 'conformance', 'reference_backend.mjs')] };
const gw = await startListeningGateway(gateway, ['--config', writeConfig(dir, { reference })]);
let result;
try {
  result = await runSuite(`${gw.url}/mcp`);
} finally {
  await gw.stop();
}
const summary = result.output.split('\n').filter((l) => /^(Total:|[✓✗] )|Baseline|Unexpected|stale/.test(l.trim()));
console.log(summary.join('\n'));
check(/Total: \d+ passed/.test(result.output), 'the suite ran and printed its summary');
check(result.code === 0, `the suite's failures are exactly the baseline's (exit ${result.code})` +
  (result.code === 0 ? '' : `\n${result.output.slice(-4000)}`));
checkNoSanitizerReport(gw.stderr());
console.log('PASS: conformance server scenarios');
