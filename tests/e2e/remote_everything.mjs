// remote_everything.mjs: runs @modelcontextprotocol/server-everything in its Streamable HTTP mode
// bound to 127.0.0.1 only, on a free port, and prints "listening on 127.0.0.1:PORT" to stdout.
// (The server itself listens on every interface at $PORT; the test must stay on loopback.)
import http from 'node:http';
import { pathToFileURL } from 'node:url';

import { peerPath } from './lib.mjs';

const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function loopbackOnly(...args) {
  const callback = args.find((a) => typeof a === 'function');
  return listen.call(this, 0, '127.0.0.1', () => {
    console.log(`listening on 127.0.0.1:${this.address().port}`);
    if (callback) callback();
  });
};
process.argv = [process.argv[0], 'index.js', 'streamableHttp'];
await import(pathToFileURL(peerPath('server-everything', 'dist/index.js')).href);
