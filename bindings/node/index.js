'use strict';
// index.js: scout from Node.js. A thin layer over the native addon (scout_node.c, Node-API over
// scout's C ABI): objects in, objects out, as JSON between the two. The addon and scout's data
// (share/scout: the static model and the rank files) sit together, where the library looks for
// them, so the package needs no checkout and no environment variable.
const fs = require('node:fs');
const path = require('node:path');

// A package folder the CMake build laid out has the addon beside this file; the source folder
// gets it in build/Release from its install script (install.js).
const addon = [path.join(__dirname, 'scout.node'),
  path.join(__dirname, 'build', 'Release', 'scout.node')].find((file) => fs.existsSync(file));
if (!addon) {
  throw new Error(`scout-mcp: the native addon scout.node is not in ${__dirname}; ` +
    'npm install (or npm rebuild) the package to build it');
}
const native = require(addon);

const SEARCH_KEYS = ['topK', 'mode', 'servers', 'environment', 'autoK', 'embedTimeoutMs',
  'outcomePrior', 'alternatives', 'maxTokens'];
const CATALOG_KEYS = ['embedder', 'options', 'queryCache', 'calibration'];
/** The largest topK a search takes (the smallest is 1). */
const MAX_TOP_K = 20;

function checkKeys(what, given, known) {
  if (given === undefined || given === null) {
    return {};
  }
  if (typeof given !== 'object' || Array.isArray(given)) {
    throw new TypeError(`${what} takes an options object`);
  }
  for (const key of Object.keys(given)) {
    if (!known.includes(key)) {
      throw new TypeError(`${what}: unknown option '${key}'; it takes ${known.join(', ')}`);
    }
  }
  return given;
}

function catalogJson(options) {
  const config = {};
  if (options.embedder !== undefined) config.embedder = options.embedder;
  if (options.options !== undefined) config.options = options.options;
  if (options.queryCache !== undefined) config.query_cache = options.queryCache;
  if (options.calibration !== undefined) config.calibration = String(options.calibration);
  return JSON.stringify(config);
}

/** A catalog file's text, or a catalog object or an array of servers as that JSON. */
function serversJson(what, servers) {
  if (typeof servers === 'string') {
    return fs.readFileSync(servers, 'utf8');
  }
  if (Array.isArray(servers)) {
    return JSON.stringify({ servers });
  }
  if (servers !== null && typeof servers === 'object') {
    return JSON.stringify(servers);
  }
  throw new TypeError(`${what} takes a path, a catalog object or an array of servers`);
}

/** A tool catalog: stage servers, commit, search. */
class Catalog {
  /**
   * @param {{embedder?: string | object, options?: object, queryCache?: number,
   *   calibration?: string}} [options]
   *   embedder: "static" (default: the trained word model shipped in the package), "none",
   *   "static:PATH", "hashing[:DIM]", "transformer:DIR" or {kind: "http", url, model, ...}.
   *   calibration: a file written by `scout calibrate --out FILE` for this embedder; its fusion
   *   settings apply under any given in `options`.
   */
  constructor(options) {
    this._handle = native.create(catalogJson(checkKeys('Catalog', options, CATALOG_KEYS)));
  }

  /** Opens an index file written by save() or `scout index`. */
  static open(file, options) {
    const opened = Object.create(Catalog.prototype);
    const given = checkKeys('Catalog.open', options, ['embedder', 'queryCache']);
    opened._handle = native.open(String(file), catalogJson(given));
    return opened;
  }

  /** Stages servers: a catalog file's path, a catalog object {servers: [...]}, or an array. */
  upsertServers(servers) {
    native.upsert(this._handle, serversJson('upsertServers', servers));
  }

  removeServer(name) {
    native.remove(this._handle, name);
  }

  /** Builds and publishes the staged catalog; returns what was done. */
  commit() {
    return JSON.parse(native.commit(this._handle));
  }

  /**
   * commit() on a worker thread: the event loop keeps running, and searches meanwhile answer
   * from the last published catalog (they never wait for a commit). Commits run one at a time
   * and settle in call order: a second call waits for the first, then publishes whatever was
   * staged after it. Writes (upsertServers, removeServer, commit) wait for a commit in flight on
   * the calling thread; close() takes effect at once for JavaScript and frees the catalog when
   * the commit ends.
   */
  commitAsync() {
    try {
      return native.commitAsync(this._handle).then((text) => JSON.parse(text));
    } catch (error) {
      return Promise.reject(error);  // a closed catalog: a rejection, as for a failed commit
    }
  }

  save(file) {
    native.save(this._handle, String(file));
  }

  stats() {
    return JSON.parse(native.stats(this._handle));
  }

  /**
   * Searches the latest committed catalog. topK: 1..20 (others throw with the range); mode
   * undefined is hybrid with an embedder and bm25 without (scout.h: "degraded"). maxTokens: a
   * token budget for the matches (1..1e9; topK then defaults to 20 and the budget decides).
   */
  search(query, options) {
    const given = checkKeys('search', options, SEARCH_KEYS);
    const topK = given.topK === undefined ? 5 : given.topK;
    if (!Number.isInteger(topK) || topK < 1 || topK > MAX_TOP_K) {
      const error = new RangeError(`topK must be 1..${MAX_TOP_K} (got ${topK})`);
      error.code = 'invalid_argument';
      throw error;
    }
    const json = given.maxTokens !== undefined && given.topK === undefined ? {} : { top_k: topK };
    if (given.maxTokens !== undefined) json.max_tokens = given.maxTokens;
    if (given.mode !== undefined) json.mode = given.mode;
    if (given.servers !== undefined) json.servers = given.servers;
    if (given.environment !== undefined) json.environment = given.environment;
    if (given.autoK !== undefined) json.auto_k = given.autoK;
    if (given.embedTimeoutMs !== undefined) json.embed_timeout_ms = given.embedTimeoutMs;
    if (given.outcomePrior !== undefined) json.outcome_prior = given.outcomePrior;
    if (given.alternatives !== undefined) json.alternatives = given.alternatives;
    return JSON.parse(native.search(this._handle, query, JSON.stringify(json)));
  }

  /** Frees the catalog now; later calls throw. Also called by `using` (Symbol.dispose). */
  close() {
    native.close(this._handle);
  }
}

if (Symbol.dispose) {
  Catalog.prototype[Symbol.dispose] = Catalog.prototype.close;
}

/**
 * The catalog doctor (docs/doctor.md): indexes `servers` (as upsertServers takes them) with the
 * catalog options {embedder, options} and returns the report of `scout doctor --json`.
 */
function doctor(servers, options) {
  const given = checkKeys('doctor', options, ['embedder', 'options']);
  return JSON.parse(native.doctor(serversJson('doctor', servers), catalogJson(given)));
}

module.exports = { Catalog, MAX_TOP_K, doctor, version: native.version };
