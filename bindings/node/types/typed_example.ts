// typed_example.ts: the Node.js package's API as a TypeScript program uses it; `tsc --strict`
// checks it against index.d.ts (ctest node:types). The @ts-expect-error lines must stay errors.
import { Catalog, CommitInfo, MAX_TOP_K, Match, SearchResult, version } from 'scout-mcp';

const catalog = new Catalog({ embedder: 'none', options: { threads: 1 } });
catalog.upsertServers([{ name: 'github', tools: [{ name: 'create_pull_request' }] }]);
catalog.upsertServers('catalog.json');
const info: CommitInfo = catalog.commit();
const later: Promise<CommitInfo> = catalog.commitAsync();
later.then((done) => console.log(done.generation, done.dense_ready ? '' : done.dense_error));
const result: SearchResult = catalog.search('open a pull request', {
  topK: MAX_TOP_K,
  mode: 'bm25',
  servers: ['github'],
});
const fitted: SearchResult = catalog.search('open a pull request', { maxTokens: 800 });
const spent: number | undefined = fitted.tokens;
console.log(spent, fitted.omitted, fitted.matches[0]?.trimmed);
const best: Match | undefined = result.matches[0];
const score: number = best ? best.score : 0;
const reason: string | undefined = result.degraded ? result.degraded_reason : undefined;
console.log(version(), info, score, reason, result.mode === 'hybrid');
catalog.save('index.scoutidx');
Catalog.open('index.scoutidx', { embedder: 'none' }).close();

// @ts-expect-error: the option is topK
catalog.search('q', { top_k: 3 });
// @ts-expect-error: a budget is a number of tokens
catalog.search('q', { maxTokens: '800' });
// @ts-expect-error: no such mode
catalog.search('q', { mode: 'fast' });
// @ts-expect-error: a server needs its tools
catalog.upsertServers([{ name: 'pager' }]);
// @ts-expect-error: matches hold numbers for scores
const wrong: string = result.matches[0].score;
// @ts-expect-error: commitAsync gives a Promise, not the info itself
const notYet: CommitInfo = catalog.commitAsync();
console.log(notYet);
console.log(wrong);
catalog.close();
