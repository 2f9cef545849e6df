'use strict';
// install.js: npm's install script. Makes sure the package has its native addon, scout.node,
// and scout's data (share/scout: the static model and the rank files) beside it, where the
// library looks. A package folder the CMake build laid out (or a tarball of it) already has
// them; the source folder bindings/node of a checkout gets them in build/Release/, one of:
//   1. the addon the checkout's CMake build made (SCOUT_BUILD_DIR, default <checkout>/build);
//   2. scout_node.c compiled against an installed scout found by `pkg-config scout` (with those
//      of its components scout-http and scout-transformer that are installed);
//   3. the checkout's CMake build run now (the library and the addon, into SCOUT_BUILD_DIR).
// Plain Node and the system's compiler: no node-gyp, nothing downloaded.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const here = __dirname;
const out = path.join(here, 'build', 'Release');
const version = require('./package.json').version;

function log(message) {
  process.stderr.write(`scout-mcp: ${message}\n`);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  return { ok: !result.error && result.status === 0, stdout: result.stdout || '',
    stderr: result.stderr || '', error: result.error };
}

function has(command) {
  return run(command, ['--version']).ok;
}

/** True when the addon at file loads in this node (right ABI, its libraries found). */
function loads(file) {
  const check = run(process.execPath, ['-e', 'require(process.argv[1])', file]);
  if (!check.ok) log(`${file} does not load: ${check.stderr.trim() || check.error}`);
  return check.ok;
}

/** The checkout this folder belongs to (<checkout>/bindings/node), or null for a copy. */
function checkout() {
  const root = path.resolve(fs.realpathSync(here), '..', '..');
  const marker = path.join(root, 'include', 'scout', 'scout.h');
  return fs.existsSync(marker) && fs.existsSync(path.join(root, 'CMakeLists.txt')) ? root : null;
}

/** The build folder: SCOUT_BUILD_DIR, else <checkout>/build. */
function buildDir(source) {
  // npm runs this script in the package folder; a relative path is meant from where npm ran.
  const from = process.env.INIT_CWD || process.cwd();
  if (process.env.SCOUT_BUILD_DIR) return path.resolve(from, process.env.SCOUT_BUILD_DIR);
  return source ? path.join(source, 'build') : null;
}

/** The source folder a CMake build folder was configured from, or null. */
function configuredFrom(build) {
  try {
    const cache = fs.readFileSync(path.join(build, 'CMakeCache.txt'), 'utf8');
    const line = cache.match(/^scout_SOURCE_DIR:STATIC=(.*)$/m);
    return line ? fs.realpathSync(line[1]) : null;
  } catch {
    return null;
  }
}

/** Copies the addon and the data of a CMake build's package folder into build/Release. */
function layOut(addon, data) {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(path.join(out, 'share'), { recursive: true });
  fs.copyFileSync(addon, path.join(out, 'scout.node'));
  fs.cpSync(data, path.join(out, 'share', 'scout'), { recursive: true, dereference: true });
}

/** 1 (and 3's last step): the addon of the CMake build in build, if it was made for source. */
function fromBuild(build, source) {
  const packaged = path.join(build, 'bindings', 'node');
  const addon = path.join(packaged, 'scout.node');
  if (!fs.existsSync(addon)) return false;
  const from = configuredFrom(build);
  if (source && from !== source) {
    log(`${build} was configured from ${from || 'an unknown folder'}, not ${source}; not using it`);
    return false;
  }
  if (!loads(addon)) return false;
  layOut(addon, path.join(packaged, 'share', 'scout'));
  log(`using the addon built in ${build}`);
  return true;
}

/** Node's own headers (node_api.h): beside this node, or the system's (Debian's libnode-dev). */
function nodeIncludeDir() {
  const candidates = [process.env.SCOUT_NODE_INCLUDE_DIR,
    path.join(path.dirname(process.execPath), '..', 'include', 'node'),
    '/usr/include/node', '/usr/local/include/node'];
  return candidates.find((dir) => dir && fs.existsSync(path.join(dir, 'node_api.h'))) || null;
}

/** 2: scout_node.c compiled against the scout that pkg-config finds. */
function fromPkgConfig(why) {
  const pc = (...args) => run('pkg-config', [...args, 'scout']);
  // The addon offers every embedder: it links the components too (scout-http, scout-transformer),
  // those installed; one that scout was built without is left out, and its embedder refused.
  const components = ['http', 'transformer'];
  const installedComponents = components.filter((c) => run('pkg-config', ['--exists', `scout-${c}`]).ok);
  const pcAll = (...args) =>
    run('pkg-config', [...args, ...installedComponents.map((c) => `scout-${c}`), 'scout']);
  const without = components.filter((c) => !installedComponents.includes(c))
    .map((c) => `-DSCOUT_NODE_WITHOUT_${c.toUpperCase()}`);
  const installed = pc('--modversion');
  if (!installed.ok) {
    why.push('pkg-config does not find scout (PKG_CONFIG_PATH=<prefix>/lib/pkgconfig)');
    return false;
  }
  if (installed.stdout.trim() !== version) {
    why.push(`pkg-config finds scout ${installed.stdout.trim()}, this package is ${version}`);
    return false;
  }
  const include = nodeIncludeDir();
  if (!include) {
    why.push("Node's node_api.h is not installed (Debian: libnode-dev; or SCOUT_NODE_INCLUDE_DIR)");
    return false;
  }
  const cc = process.env.CC || 'cc';
  if (!has(cc)) {
    why.push(`no C compiler (${cc}; set CC)`);
    return false;
  }
  const libdir = pc('--variable=libdir').stdout.trim();
  const prefix = pc('--variable=prefix').stdout.trim();
  const shared = fs.readdirSync(libdir).some((name) => /^libscout\.so/.test(name));
  // A static libscout is C++: the C compiler's link needs its private libraries and libstdc++.
  const libs = shared ? pcAll('--libs') : pcAll('--libs', '--static');
  const flags = [...pcAll('--cflags').stdout.trim().split(/\s+/), ...libs.stdout.trim().split(/\s+/)]
    .filter(Boolean);
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const addon = path.join(out, 'scout.node');
  const args = ['-std=c99', '-O2', '-shared', '-fPIC', '-fvisibility=hidden',
    '-DNODE_GYP_MODULE_NAME=scout', ...without, '-isystem', include, path.join(here, 'scout_node.c'),
    '-o', addon, ...flags, ...(shared ? [`-Wl,-rpath,${libdir}`] : ['-lstdc++', '-lm'])];
  log(`compiling the addon against scout ${version} in ${prefix}`);
  const compiled = run(cc, args);
  if (!compiled.ok) {
    why.push(`${cc} ${args.join(' ')} failed:\n${compiled.stderr || compiled.error}`);
    return false;
  }
  // The data beside the addon, as in the CMake build's package folder (a static libscout looks
  // there; a shared one under its own prefix, where it is too).
  const data = path.join(prefix, 'share', 'scout');
  if (fs.existsSync(data)) {
    fs.cpSync(data, path.join(out, 'share', 'scout'), { recursive: true, dereference: true });
  } else {
    log(`${data} does not exist: hybrid search will need SCOUT_DATA_DIR`);
  }
  if (!loads(addon)) {
    why.push(`the addon compiled against ${prefix} does not load`);
    return false;
  }
  return true;
}

/** 3: the checkout's CMake build, configured if need be, made for the addon's target. */
function fromCMake(source, build, why) {
  if (!source) {
    why.push('this folder is not bindings/node of a scout checkout, so there is nothing to build');
    return false;
  }
  if (!has('cmake')) {
    why.push('cmake is not installed');
    return false;
  }
  if (!nodeIncludeDir()) {
    why.push("Node's node_api.h is not installed (Debian: libnode-dev)");
    return false;
  }
  const from = configuredFrom(build);
  if (from && from !== source) {
    why.push(`${build} was configured from ${from}, not ${source} (set SCOUT_BUILD_DIR)`);
    return false;
  }
  const io = { stdio: ['ignore', process.stderr, process.stderr] };
  const step = (args) => {
    log(`cmake ${args.join(' ')}`);
    const result = spawnSync('cmake', args, io);
    return !result.error && result.status === 0;
  };
  if (!fs.existsSync(path.join(build, 'CMakeCache.txt')) &&
      !step(['-S', source, '-B', build, '-DCMAKE_BUILD_TYPE=Release', '-DSCOUT_BUILD_NODE=ON'])) {
    why.push(`configuring ${build} failed (see above; a C++20 compiler is needed)`);
    return false;
  }
  const jobs = String(Math.max(1, os.availableParallelism ? os.availableParallelism() : 2));
  if (!step(['--build', build, '--target', 'scout_node', '-j', jobs])) {
    why.push(`building the addon in ${build} failed (see above)`);
    return false;
  }
  if (fromBuild(build, source)) return true;
  why.push(`${build} has no loadable bindings/node/scout.node after the build`);
  return false;
}

function main() {
  if (fs.existsSync(path.join(here, 'scout.node'))) return; // a built package folder
  const source = checkout();
  const build = buildDir(source);
  if (build && fromBuild(build, source)) return;
  const why = [];
  if (fromPkgConfig(why) || fromCMake(source, build, why)) return;
  log('cannot make the native addon scout.node:');
  for (const reason of why) log(`  - ${reason}`);
  log('build scout first (cmake -S . -B build && cmake --build build), then npm install again');
  process.exit(1);
}

main();
