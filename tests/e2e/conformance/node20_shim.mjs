// node20_shim.mjs: lets the conformance suite (which imports `globSync` from `fs`, added in
// Node 22) run on Node 20. Loaded with `node --import`; it registers node20_shim_hooks.mjs, which
// gives the suite's modules an `fs` that has it.
import { register } from 'node:module';

register('./node20_shim_hooks.mjs', import.meta.url);
