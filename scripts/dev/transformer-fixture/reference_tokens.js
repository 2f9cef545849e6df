// reference_tokens.js: generates the tokenizer test strings (deterministic) and tokenizes them
// with Hugging Face's tokenizers library (the Rust implementation, npm @anush008/tokenizers),
// writing tokens.json: each text (a string, or as hex when it is not valid UTF-8) with its ids
// from tokenizer.json (uncased) and tokenizer-cased.json (when they differ), and, where truncation changes them, the ids
// truncated to the model's max_seq_length. Also writes texts.json for the embedding reference.
// Usage (through gen.sh): node reference_tokens.js MODEL_DIR OUT_DIR
'use strict';
const fs = require('fs');
const path = require('path');
const { Tokenizer } = require('@anush008/tokenizers');

const [modelDir, outDir] = process.argv.slice(2);
const MAX_SEQ = JSON.parse(fs.readFileSync(path.join(modelDir, 'sentence_bert_config.json'), 'utf8')).max_seq_length;

let state = 0x2545f491n;
function rand() {  // xorshift64*, in [0, 1)
  state ^= state >> 12n; state ^= (state << 25n) & 0xffffffffffffffffn; state ^= state >> 27n;
  return Number(((state * 0x2545f4914f6cdd1dn) & 0xffffffffffffffffn) >> 11n) / 2 ** 53;
}
const pick = (a) => a[Math.floor(rand() * a.length)];
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

const WORDS = ['the', 'tool', 'tools', 'search', 'file', 'files', 'read', 'write', 'list', 'create', 'delete',
  'get', 'set', 'user', 'data', 'query', 'server', 'email', 'send', 'open', 'close', 'cafe', 'testing',
  'tested', 'reader', 'quickly', 'creation', 'readable', 'zebra', 'xylophone', 'kubernetes', 'github',
  'Postgres', 'MySQL', 'API', 'JSON', 'HTTP', 'README', 'iPhone', 'e-mail', "don't", 'v2.0', '3rd', '42'];
const ACCENTED = ['café', 'naïve', 'über', 'Ångström', 'résumé', 'Straße', 'niño', 'façade', 'smørrebrød',
  'ÉCOLE', 'Ελληνικά', 'αβγ', 'Москва', 'дом', 'İstanbul', 'ǅemal', 'cafe\u0301', 'n\u0303o', 'a\u0308\u0304',
  'ﬁle', 'Ⅻ', 'ｆｕｌｌ', '²', 'Ǆ', 'ΣΑΣ', 'ὈΔΥΣΣΕΎΣ', 'x\u0345y', 'ḱ\u0323', 'q\u0307\u0323'];
const CJK = ['中文', '日本語', '字', '本の', 'アイウ', '한국어', '한', '𠀀', '㐀', '豈', '中a文b', 'カタカナ',
  '漢字テスト', '中。文', '（中）', '丽', '𪜀'];
const EMOJI = ['😀', '👍', '👍🏽', '👨‍👩‍👧', '🇫🇷', '❤️', '😀😀', 'a😀b', '🙂', '✨', '⚙️', '1️⃣', '🏳️‍🌈'];
const PUNCT = ['.', ',', '!', '?', '...', '--', '—', '«', '»', '“', '”', '¿', '¡', '·', '(', ')', '[', ']',
  '{', '}', '<', '>', '/', '\\', '@', '#', '$', '%', '^', '&', '*', '_', '~', '`', '|', "'", '"', '€', '°',
  '…', '‰', '※', '〈', '〉', '、', '。', '¶', '§', '⁂', '‽', '⸮', '⹝', '꙳', '᠁'];
const SPACES = [' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2003', '\u3000', '\u2028', '\u0085', '\u000b',
  '\u200b', '\ufeff', '\u00ad', '\u0000', '\u0007', '\ue000', '\ufffd', '\u0378', '\u200d', '\u2060'];
const SPECIAL = ['[MASK]', '[CLS]', '[SEP]', '[UNK]', '[PAD]', '[mask]', '[ MASK]', '[MASK', 'x[MASK]y'];

function randomCodePoint() {
  for (;;) {
    const r = rand();
    const cp = r < 0.5 ? int(0x20, 0x2fff) : r < 0.8 ? int(0x3000, 0xffff) : int(0x10000, 0x10ffff);
    if (cp < 0xd800 || cp > 0xdfff) return String.fromCodePoint(cp);
  }
}
const utf8 = (s) => Buffer.from(s, 'utf8');
function invalidBytes() {
  const pieces = [[0x80], [0xbf], [0xc0, 0xaf], [0xc1, 0x81], [0xe0, 0x80, 0xaf], [0xed, 0xa0, 0x80],
    [0xf4, 0x90, 0x80, 0x80], [0xf5], [0xff], [0xfe], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xc3], [0xe2, 0x28, 0xa1]];
  const parts = [];
  for (let n = int(1, 6); n > 0; --n) {
    parts.push(rand() < 0.5 ? Buffer.from(pick(pieces)) : utf8(pick([...WORDS, ...ACCENTED, ' ', 'é', '中'])));
  }
  return Buffer.concat(parts);
}
function sentence(pools, n) {
  const out = [];
  for (let i = 0; i < n; ++i) {
    const pool = pick(pools);
    let w = pick(pool);
    if (pool === WORDS && rand() < 0.2) w = w.toUpperCase();
    out.push(w);
    out.push(rand() < 0.7 ? ' ' : rand() < 0.5 ? '' : pick(SPACES));
  }
  return out.join('');
}

const texts = [];
const add = (bytes) => texts.push(Buffer.isBuffer(bytes) ? bytes : utf8(bytes));
['', ' ', '\t\n', 'a', 'A', '.', 'the tool', '[CLS] [SEP]', 'x'.repeat(100), 'x'.repeat(101),
  'é'.repeat(100), 'é'.repeat(101), 'ab'.repeat(60)].forEach(add);
for (let i = 0; i < 300; ++i) add(sentence([WORDS, WORDS, WORDS, PUNCT], int(1, 14)));
for (let i = 0; i < 100; ++i) add(sentence([PUNCT, WORDS], int(1, 10)));
for (let i = 0; i < 120; ++i) add(sentence([ACCENTED, WORDS], int(1, 8)));
for (let i = 0; i < 100; ++i) add(sentence([CJK, WORDS, PUNCT], int(1, 8)));
for (let i = 0; i < 80; ++i) add(sentence([EMOJI, WORDS], int(1, 8)));
for (let i = 0; i < 80; ++i) add(sentence([SPACES, WORDS], int(1, 10)));
for (let i = 0; i < 40; ++i) add(sentence([SPECIAL, WORDS, SPACES], int(1, 6)));
for (let i = 0; i < 120; ++i) add(invalidBytes());
for (let i = 0; i < 100; ++i) add(Array.from({ length: int(1, 12) }, () => rand() < 0.3 ? ' ' : randomCodePoint()).join(''));
for (let i = 0; i < 8; ++i) add(sentence([WORDS, ACCENTED, CJK, EMOJI, PUNCT, SPACES], int(60, 250)));
for (let i = 0; i < 6; ++i) add(pick(WORDS).repeat(int(20, 60)));

const uncased = Tokenizer.fromFile(path.join(modelDir, 'tokenizer.json'));
const cased = Tokenizer.fromFile(path.join(modelDir, 'tokenizer-cased.json'));
const truncated = Tokenizer.fromFile(path.join(modelDir, 'tokenizer.json'));
truncated.setTruncation(MAX_SEQ);

(async () => {
  const rows = [];
  for (const bytes of texts) {
    const text = bytes.toString('utf8');  // ill-formed sequences become U+FFFD
    const ids = (await uncased.encode(text)).getIds();
    // Valid UTF-8 is stored as a JSON string, anything else as hex.
    const row = Buffer.from(text, 'utf8').equals(bytes) ? { text } : { hex: bytes.toString('hex') };
    row.uncased = ids;
    const casedIds = (await cased.encode(text)).getIds();
    if (casedIds.join() !== ids.join()) row.cased = casedIds;  // absent: the same as uncased
    const cut = (await truncated.encode(text)).getIds();
    if (cut.length !== ids.length) row.truncated = cut;
    rows.push(row);
  }
  const lines = rows.map((r) => JSON.stringify(r));
  fs.writeFileSync(path.join(outDir, 'tokens.json'),
    `{"max_length": ${MAX_SEQ}, "reference": "Hugging Face tokenizers (Rust) via npm @anush008/tokenizers ${require('@anush008/tokenizers/package.json').version}", "texts": [\n` +
    lines.join(',\n') + '\n]}\n');
  // The embedding reference: a spread of lengths, truncated ones included.
  const chosen = rows.filter((r, i) => i % 29 === 3 || (r.truncated && i % 5 === 0)).slice(0, 40);
  fs.writeFileSync(path.join(outDir, 'texts.json'), JSON.stringify(chosen.map((r) => ({ hex: r.hex ?? Buffer.from(r.text, 'utf8').toString('hex'), ids: r.truncated || r.uncased }))));
  console.log(`reference_tokens: ${rows.length} texts, ${rows.filter((r) => r.truncated).length} truncated, ${chosen.length} for embeddings`);
})();
