// index.d.ts: the types of the Node.js package scout-mcp (index.js).

/** An embedder choice: "static" (default), "none", "static:PATH", "hashing[:DIM]",
 * "transformer:DIR", or an object such as {kind: "http", url, model}. */
export type Embedder = string | { kind: string; [key: string]: unknown };

export interface CatalogOptions {
  embedder?: Embedder;
  /** Index settings: any subset of an index file's "options" object, and "threads". */
  options?: Record<string, unknown>;
  /** Query vectors kept in an LRU cache (default 1024; 0 = none). */
  queryCache?: number;
  /** A file written by `scout calibrate --out FILE` for this embedder: its fusion settings,
   * under any given in `options`. A file for another model throws (code "embedder_mismatch"). */
  calibration?: string;
}

export interface SearchOptions {
  /** 1..20, default 5; others throw a RangeError naming the range. */
  topK?: number;
  /** Default: hybrid when the catalog has an embedder, bm25 when it was made with "none". */
  mode?: 'hybrid' | 'bm25' | 'dense';
  /** The caller's scope: only these servers' tools. */
  servers?: string[] | null;
  environment?: string;
  autoK?: boolean | number;
  embedTimeoutMs?: number;
  outcomePrior?: boolean;
  /** Up to 8 other phrasings of the query, each searched too; the lists fused by calibrated
   * score (each match then has best_phrasing). */
  alternatives?: string[] | null;
  /** A token budget (1..1e9, cl100k_base tokens) for the matches: the first is always kept
   * whole, later ones trimmed or omitted. Without topK, up to 20 are considered. */
  maxTokens?: number | null;
}

/** One match: the keys of `scout search --json` matches. */
export interface Match {
  name: string;
  server: string;
  tool: string;
  description: string;
  inputSchema: Record<string, unknown> | null;
  score: number;
  bm25_rank: number;
  dense_rank: number;
  /** With alternatives: the phrasing that matched it best (0 the query, i the i-th alternative). */
  best_phrasing?: number;
  /** With maxTokens: the match's tokens as a gateway answer renders it. */
  tokens?: number;
  /** With maxTokens: what was shortened to fit. */
  trimmed?: Array<'description' | 'inputSchema'>;
}

/** The JSON of `scout search --json`. */
export interface SearchResult {
  query: string;
  mode: 'hybrid' | 'bm25' | 'dense';
  /** The dense branch was wanted (mode hybrid or dense, asked for or by default with an
   * embedder) and could not run, so BM25 answered alone. */
  degraded: boolean;
  degraded_reason?: string;
  catalog_empty: boolean;
  matches: Match[];
  /** With maxTokens: the matches' tokens. */
  tokens?: number;
  /** With maxTokens: matches left out because they did not fit. */
  omitted?: number;
}

/** What a commit did (scout_catalog_commit's JSON). */
export interface CommitInfo {
  generation: number;
  servers: number;
  tools: number;
  /** Tool documents embedded and rendered by this commit (the others were reused). */
  embedded: number;
  rendered: number;
  dense_reused: boolean;
  dense_patched: boolean;
  /** The new catalog has a dense index; dense_error says why not ("" when it has). */
  dense_ready: boolean;
  dense_error: string;
  build_ms: number;
}

export interface Server {
  name: string;
  description?: string;
  category?: string;
  environment?: string;
  status?: string;
  tools: Array<{ name: string; title?: string; description?: string; inputSchema?: unknown;
                 annotations?: unknown }>;
}

export declare class Catalog {
  constructor(options?: CatalogOptions);
  static open(file: string, options?: Pick<CatalogOptions, 'embedder' | 'queryCache'>): Catalog;
  upsertServers(servers: string | Server[] | { servers: Server[] }): void;
  removeServer(name: string): void;
  commit(): CommitInfo;
  /** commit() on a worker thread; searches meanwhile answer from the last published catalog. */
  commitAsync(): Promise<CommitInfo>;
  save(file: string): void;
  stats(): Record<string, unknown>;
  search(query: string, options?: SearchOptions): SearchResult;
  close(): void;
}

/** One finding of the doctor (docs/doctor.md). */
export interface Finding {
  kind: string;
  severity: 'error' | 'warning' | 'info';
  server: string;
  tool?: string;
  detail: string;
  fix: string;
  related?: Array<{ server: string; tool: string }>;
}

/** The JSON of `scout doctor --json`. */
export interface DoctorReport {
  summary: {
    servers: number;
    tools: number;
    errors: number;
    warnings: number;
    infos: number;
    self_retrieval_checked: number;
    self_retrieved: number;
    self_retrieval_rate: number;
    findings_by_kind: Record<string, number>;
  };
  servers: Array<{ server: string; tools: number; errors: number; warnings: number;
                   infos: number; self_retrieved: number; score: number }>;
  findings: Finding[];
}

/** The catalog doctor on `servers` (as upsertServers takes them), indexed with these options. */
export declare function doctor(servers: string | Server[] | { servers: Server[] },
                               options?: Pick<CatalogOptions, 'embedder' | 'options'>): DoctorReport;

export declare const MAX_TOP_K: 20;
export declare function version(): string;
