const { Catalog } = require('scout-mcp');

const catalog = new Catalog();  // embedder "static": the word model ships in the package
catalog.upsertServers('data/enterprise_catalog.json');  // a path, {servers: [...]} or an array
catalog.commit();  // or `await catalog.commitAsync()`, off the event loop
const result = catalog.search('create a pull request', { topK: 3 });
console.log(result.mode, result.degraded ? 'degraded' : 'not degraded', result.matches[0].name);
