// node20_shim_hooks.mjs: module hooks (see node20_shim.mjs). Only the conformance package's own
// imports of `fs` are redirected; everything else resolves as usual.
import fs from 'node:fs';

const SHIM_URL = 'scout-shim:fs';
const SHIM_SOURCE = `
import fs from 'node:fs';
import path from 'node:path';
export * from 'node:fs';
export default fs;

// The suite globs only '**/<file name>' under a directory (its results); that form is all this
// implements, and any other pattern is refused rather than answered wrongly.
export function globSync(pattern, options = {}) {
  const match = /^\\*\\*\\/([^*?[\\]{}/]+)$/.exec(pattern);
  if (!match) throw new Error('globSync shim: unsupported pattern ' + pattern);
  const root = options.cwd ?? process.cwd();
  const found = [];
  const walk = (rel) => {
    for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = rel ? path.join(rel, entry.name) : entry.name;
      if (entry.isDirectory()) walk(child);
      else if (entry.name === match[1]) found.push(child);
    }
  };
  walk('');
  return found;
}
`;

export async function resolve(specifier, context, next) {
  const fromSuite = context.parentURL?.includes('/@modelcontextprotocol/conformance/');
  if (fromSuite && (specifier === 'fs' || specifier === 'node:fs') && typeof fs.globSync !== 'function') {
    return { url: SHIM_URL, shortCircuit: true };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (url === SHIM_URL) return { format: 'module', source: SHIM_SOURCE, shortCircuit: true };
  return next(url, context);
}
