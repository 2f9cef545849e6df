// gen-bert-unicode.js: writes src/transformer/bert_unicode_tables.cpp, the Unicode data
// the BERT normalizer and pre-tokenizer need: control (Cc, Cf, Co), White_Space, punctuation
// (P*), nonspacing marks (Mn), canonical decompositions with combining classes, and lowercase
// mappings.
//
// Sources: the Unicode property escapes, String.prototype.normalize and toLowerCase of the
// running Node.js, plus DerivedAge.txt and UnicodeData.txt of Debian's unicode-data package
// (dev-only: apt-get install unicode-data). The category sets and decompositions keep only code
// points assigned by Unicode 8.0, the version of the category tables that Hugging Face's
// tokenizers library (crate unicode_categories 0.1) classifies with; lowercasing and
// White_Space follow current Unicode as Rust's char methods do.
//
// Usage: node scripts/dev/gen-bert-unicode.js | clang-format --assume-filename=x.cpp \
//          > src/transformer/bert_unicode_tables.cpp
// With --check (needs npm @anush008/tokenizers installed where Node resolves it), instead
// compares every code point's normalization and splitting with that library and lists
// differences.
'use strict';
const fs = require('fs');
const UCD = process.env.UNICODE_DATA_DIR || '/usr/share/unicode';
const AGE_LIMIT = 8.0;

const age = new Map();
for (const line of fs.readFileSync(`${UCD}/DerivedAge.txt`, 'utf8').split('\n')) {
  const m = line.match(/^([0-9A-F]+)(?:\.\.([0-9A-F]+))?\s*;\s*([0-9.]+)/);
  if (!m) continue;
  const a = parseInt(m[1], 16), b = m[2] ? parseInt(m[2], 16) : a;
  for (let c = a; c <= b; ++c) age.set(c, parseFloat(m[3]));
}
const ccc = new Map();
for (const line of fs.readFileSync(`${UCD}/UnicodeData.txt`, 'utf8').split('\n')) {
  const f = line.split(';');
  if (f.length > 3 && f[3] !== '0') ccc.set(parseInt(f[0], 16), parseInt(f[3], 10));
}
const old = (cp) => (age.get(cp) ?? 99) <= AGE_LIMIT;
const isSurrogate = (cp) => cp >= 0xd800 && cp <= 0xdfff;
const str = (cp) => String.fromCodePoint(cp);

const sets = {
  kControlRanges: (cp) => old(cp) && /[\p{Cc}\p{Cf}\p{Co}]/u.test(str(cp)),
  kWhitespaceRanges: (cp) => /\p{White_Space}/u.test(str(cp)),
  kPunctuationRanges: (cp) => old(cp) && /\p{P}/u.test(str(cp)),
  kNonspacingMarkRanges: (cp) => old(cp) && /\p{Mn}/u.test(str(cp)),
};

function ranges(pred) {
  const out = [];
  let start = -1;
  for (let cp = 0; cp <= 0x110000; ++cp) {
    const inside = cp <= 0x10ffff && !isSurrogate(cp) && pred(cp);
    if (inside && start < 0) start = cp;
    if (!inside && start >= 0) { out.push([start, cp - 1]); start = -1; }
  }
  return out;
}

const isHangul = (cp) => cp >= 0xac00 && cp <= 0xd7a3;  // decomposed algorithmically
const decompositions = [];
const lowercase = [];
for (let cp = 0; cp <= 0x10ffff; ++cp) {
  if (isSurrogate(cp)) continue;
  const s = str(cp);
  const nfd = [...s.normalize('NFD')].map((c) => c.codePointAt(0));
  if (!isHangul(cp) && old(cp) && (nfd.length !== 1 || nfd[0] !== cp)) decompositions.push([cp, nfd]);
  const lower = [...s.toLowerCase()].map((c) => c.codePointAt(0));
  if (lower.length !== 1 || lower[0] !== cp) lowercase.push([cp, lower]);
}

function check() {
  const tk = require('@anush008/tokenizers');
  const rust = {
    clean: tk.bertNormalizer({ cleanText: true, handleChineseChars: false, stripAccents: false, lowercase: false }),
    strip: tk.bertNormalizer({ cleanText: false, handleChineseChars: false, stripAccents: true, lowercase: false }),
    lower: tk.bertNormalizer({ cleanText: false, handleChineseChars: false, stripAccents: false, lowercase: true }),
    pre: tk.bertPreTokenizer(),
  };
  const inSet = {};
  for (const k in sets) inSet[k] = new Set(ranges(sets[k]).flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => a + i)));
  const dec = new Map(decompositions);
  const expand = (cp) => (dec.get(cp) ?? [cp]);
  const asciiPunct = (cp) => (cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126);
  const diffs = { clean: [], strip: [], lower: [], punct: [] };
  for (let cp = 0; cp <= 0x10ffff; ++cp) {
    if (isSurrogate(cp) || isHangul(cp)) continue;
    const c = str(cp);
    const ws = cp === 9 || cp === 10 || cp === 13 || inSet.kWhitespaceRanges.has(cp);
    const removed = cp === 0 || cp === 0xfffd || (!ws && inSet.kControlRanges.has(cp)) ||
      (inSet.kControlRanges.has(cp) && cp !== 9 && cp !== 10 && cp !== 13);
    const clean = removed ? 'ab' : ws ? 'a b' : 'a' + c + 'b';
    if (rust.clean.normalizeString('a' + c + 'b') !== clean) diffs.clean.push(cp);
    const stripped = String.fromCodePoint(...expand(cp).filter((x) => !inSet.kNonspacingMarkRanges.has(x)));
    if (rust.strip.normalizeString(c) !== stripped) diffs.strip.push(cp);
    if (rust.lower.normalizeString(c) !== c.toLowerCase()) diffs.lower.push(cp);
    const pieces = ws ? 2 : (asciiPunct(cp) || inSet.kPunctuationRanges.has(cp)) ? 3 : 1;
    if (rust.pre.preTokenizeString('a' + c + 'b').length !== pieces) diffs.punct.push(cp);
  }
  for (const k in diffs) {
    console.log(`${k}: ${diffs[k].length} differences`, diffs[k].map((x) => 'U+' + x.toString(16).toUpperCase()).join(' '));
  }
}

function emit() {
  const hex = (x) => '0x' + x.toString(16);
  const out = [];
  out.push('// bert_unicode_tables.cpp: GENERATED by scripts/dev/gen-bert-unicode.js from the Unicode ' +
    process.versions.unicode + ' data of Node.js ' + process.version + ' and the UCD files of');
  out.push(`// Debian's unicode-data; categories and decompositions of code points assigned by Unicode ${AGE_LIMIT.toFixed(1)}. Do not edit.`);
  out.push('#include "transformer/bert_unicode_tables.hpp"');
  out.push('');
  out.push('namespace scout::detail::bert {');
  for (const name in sets) {
    const r = ranges(sets[name]);
    out.push('');
    out.push(`const CodeRange ${name}[] = {`);
    for (let i = 0; i < r.length; i += 4) {
      out.push('    ' + r.slice(i, i + 4).map(([a, b]) => `{${hex(a)}, ${hex(b)}},`).join(' '));
    }
    out.push('};');
    out.push(`const std::size_t ${name.replace('Ranges', 'Count')} = sizeof(${name}) / sizeof(${name}[0]);`);
  }
  const pool = [];
  out.push('');
  out.push('const Decomposition kDecompositions[] = {');
  const rows = decompositions.map(([cp, d]) => { const off = pool.length; pool.push(...d); return `{${hex(cp)}, ${off}, ${d.length}},`; });
  for (let i = 0; i < rows.length; i += 4) out.push('    ' + rows.slice(i, i + 4).join(' '));
  out.push('};');
  out.push('const std::size_t kDecompositionCount = sizeof(kDecompositions) / sizeof(kDecompositions[0]);');
  out.push('const char32_t kDecompositionPool[] = {');
  for (let i = 0; i < pool.length; i += 10) out.push('    ' + pool.slice(i, i + 10).map(hex).join(', ') + ',');
  out.push('};');
  out.push('');
  out.push('const CombiningClass kCombiningClasses[] = {');
  const cc = [...ccc.entries()].sort((a, b) => a[0] - b[0]).map(([cp, v]) => `{${hex(cp)}, ${v}},`);
  for (let i = 0; i < cc.length; i += 6) out.push('    ' + cc.slice(i, i + 6).join(' '));
  out.push('};');
  out.push('const std::size_t kCombiningClassCount = sizeof(kCombiningClasses) / sizeof(kCombiningClasses[0]);');
  out.push('');
  out.push('const CaseMapping kLowercase[] = {');
  const lc = lowercase.map(([cp, l]) => `{${hex(cp)}, {${[0, 1, 2].map((i) => hex(l[i] ?? 0)).join(', ')}}},`);
  for (let i = 0; i < lc.length; i += 3) out.push('    ' + lc.slice(i, i + 3).join(' '));
  out.push('};');
  out.push('const std::size_t kLowercaseCount = sizeof(kLowercase) / sizeof(kLowercase[0]);');
  out.push('');
  out.push('}  // namespace scout::detail::bert');
  console.log(out.join('\n'));
}

if (process.argv.includes('--check')) check(); else emit();
