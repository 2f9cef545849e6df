// tool_search_service.js: a small tool-search HTTP service on the scout-mcp package and node:http.
//
//   node examples/node/tool_search_service.js data/enterprise_catalog.json [port] [embedder]
//   curl -s -X POST 127.0.0.1:8000/search -d '{"query": "open a pull request", "topK": 3}'
//
// POST /search takes {"query", "topK"?, "mode"?, "servers"?, "environment"?} and answers with
// the JSON of `scout search --json`; GET /health answers {"status": "ok", "tools": N}. A bad
// request gets 400 with {"error", "code"}; bodies are capped at 64 KiB. The catalog is indexed
// with commitAsync(), so a re-index (POST /reindex) never stops the service answering.
'use strict';
const http = require('node:http');
const { Catalog } = require('scout-mcp');

const [file, port = '8000', embedder = 'static'] = process.argv.slice(2);
const catalog = new Catalog({ embedder });
let tools = 0;

async function index() {
  catalog.upsertServers(file);
  tools = (await catalog.commitAsync()).tools;
}

function reply(res, status, payload) {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(payload));
}

function search(body) {
  const { query, ...options } = JSON.parse(body);  // a SyntaxError: 400 below
  if (typeof query !== 'string') throw new TypeError('expected {"query": "..."}');
  return catalog.search(query, options);  // unknown options and a bad topK throw
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/health') return reply(res, 200, { status: 'ok', tools });
  if (req.method === 'POST' && req.url === '/reindex') {
    return index().then(() => reply(res, 200, { tools }),
      (e) => reply(res, 500, { error: e.message, code: e.code }));
  }
  if (req.method !== 'POST' || req.url !== '/search') return reply(res, 404, { error: 'not found' });
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => {
    body += chunk.slice(0, 64 * 1024 + 1 - body.length);  // read on, keep no more than the cap
  });
  req.on('end', () => {
    if (body.length > 64 * 1024) return reply(res, 413, { error: 'body over 64 KiB' });
    try {
      reply(res, 200, search(body));
    } catch (e) {  // JSON, options and the library's invalid_argument: the caller's mistake
      const code = e.code || 'invalid_argument';
      reply(res, code === 'invalid_argument' ? 400 : 500, { error: e.message, code });
    }
  });
});

index().then(() => server.listen(Number(port), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port} (${tools} tools)`);
}), (e) => {
  console.error(`tool_search_service: ${e.message}`);
  process.exit(1);
});
