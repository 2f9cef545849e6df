// gen-token-fixture.js: writes tests/fixtures/token_counts.json, the expected cl100k_base and
// o200k_base encodings of a set of texts, computed with the npm package gpt-tokenizer (the
// reference the C++ TokenCounter is checked against). Run once after changing the text set:
//   node scripts/dev/gen-token-fixture.js ~/.cache/scout/gpt-tokenizer-3.4.0/package > tests/fixtures/token_counts.json
'use strict';
const fs = require('fs');
const path = require('path');
const pkg = process.argv[2];
const repo = path.resolve(__dirname, '..', '..');
const cl100k = require(path.join(pkg, 'cjs/encoding/cl100k_base.js'));
const o200k = require(path.join(pkg, 'cjs/encoding/o200k_base.js'));
const version = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8')).version;

const texts = [
  'hello world', '', ' ', 'Hello, World!', "I'm here; you're there; they'll go; we've DONE it; he'd; She'S",
  "don't DON'T Don'T o'clock '", 'XMLHttpRequest iPhone HelloWorld camelCaseName snake_case_name kebab-case-name',
  '1 12 123 1234 12345 1234567890 3.14159 -42 1e10 0x1F 2026-11-30T01:50:39Z',
  '  leading', 'trailing   ', 'a  b   c    d', '\t\ttabs\t', 'line1\nline2\r\nline3\n\n\nline4',
  '  \n  \n  x', 'x \n', '\n', '\r\n\r\n', 'a\n\n  b', 'end with spaces and newline  \n  ',
  '!!! ??? ... --- *** ///', 'a/b//c\n/d', '!\n/x', 'path/to/file.json', '{"a": [1, 2, {"b": null}]}',
  'naïve café résumé façade Ångström', 'e\u0301 combining acute, n\u0303, a\u0308\u0304',
  'Привет, мир! Это тест.', 'Γειά σου Κόσμε', 'こんにちは世界、テストです。', '你好，世界！数据仓库',
  '안녕하세요 세계', 'مرحبا بالعالم ١٢٣٤', 'नमस्ते दुनिया क्षत्रिय', 'ǅemal ǈubljana ǋ', 'ʰʲʷ modifier ˈstress',
  '😀 🎉👍🏽 👨‍👩‍👧‍👦 family ❤️', '²³ ½ ¾ Ⅻ ⅻ ① ④', '\u00a0nbsp\u2003em\u3000ideographic\u2028sep',
  'ℌilbert ℵ0 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟙𝟚𝟛', 'ÀÉÎÕÜ àéîõü ÀéÎõÜ', 'ABCdef ABC DEF abc', "MCP'S TOOL'LL",
  'def search(query: str, top_k: int = 5) -> list[dict]:\n    return index.search(query)[:top_k]\n',
  'for (int i = 0; i < n; ++i) {\n\tsum += a[i] * b[i];\n}\n', 'SELECT id, name FROM users WHERE age >= 18;',
  '<|endoftext|> is text here', 'Ω≈ç√∫˜µ≤≥÷ åß∂ƒ©˙∆˚¬…æ', '\u200b\u200c\u200d zero width',
  // No U+FEFF: gpt-tokenizer looks ranks up through a TextDecoder that strips a leading BOM, so it
  // splits tokens starting with EF BB BF into bytes, where tiktoken (and scout) use the token.
];

// Randomised strings from a pool of characters that exercise every branch of the split patterns.
const pool = ['a', 'b', 'Z', 'Q', 'é', 'É', 'ǅ', 'ʰ', '中', 'ا', '\u0301', '\u0903', '0', '7', '٣', '½', 'Ⅻ',
  ' ', ' ', ' ', '\t', '\n', '\r', '\u00a0', '\u3000', "'", 's', 'S', 'l', 'L', 'v', 'e', 'r', 'd', 't', 'm',
  '!', '.', ',', '/', '/', '-', '_', '(', '"', '{', '😀', '€', '\u200d'];
let seed = 20261130;
function rnd(n) { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; }
for (let i = 0; i < 300; i++) {
  let s = '';
  const len = 1 + rnd(24);
  for (let j = 0; j < len; j++) s += pool[rnd(pool.length)];
  texts.push(s);
}

// Real tool definitions as an MCP client receives them.
const catalog = JSON.parse(fs.readFileSync(path.join(repo, 'data/enterprise_catalog.json'), 'utf8'));
for (const idx of [0, 7, 23, 41, 66, 81]) {
  const server = catalog.servers[idx];
  for (const tool of server.tools.slice(0, 2)) {
    texts.push(JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }));
    texts.push(JSON.stringify(tool, null, 2));
  }
  texts.push(server.description);
}

const cases = texts.map((text) => ({
  text,
  cl100k_base: cl100k.encode(text, { disallowedSpecial: new Set() }),
  o200k_base: o200k.encode(text, { disallowedSpecial: new Set() }),
}));
// Whole files: only the counts (the test reads the files from the source tree).
const files = ['data/enterprise_catalog.json', 'data/queries-49.json'].map((f) => {
  const text = fs.readFileSync(path.join(repo, f), 'utf8');
  return { file: f, bytes: Buffer.byteLength(text), cl100k_base: cl100k.countTokens(text, { disallowedSpecial: new Set() }),
           o200k_base: o200k.countTokens(text, { disallowedSpecial: new Set() }) };
});
const out = { generator: `gpt-tokenizer ${version} on Node.js ${process.version}`, cases, files };
process.stdout.write(JSON.stringify(out) + '\n');
