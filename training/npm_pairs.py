# npm_pairs.py: training pairs from the tarballs of permissively licensed MCP server packages
# (training/npm-packages.txt): each tool's name <-> its description and a description's first
# sentence <-> the rest (source `npmtools`), each parameter's name <-> its description
# (`npmparams`), and from the README a tool list's name <-> description, a heading <-> the
# paragraph under it, and the package's name <-> its npm description (`npmdocs`). The text is
# read from the package's own files (JavaScript, TypeScript, JSON, Markdown); bundled
# node_modules are skipped.
import json
import re
import tarfile

MAX_CHARS = 600
_STRING = r"""("(?:[^"\\\n]|\\.){8,3000}"|'(?:[^'\\\n]|\\.){8,3000}'|`(?:[^`\\]|\\.){8,3000}`)"""
_KEY_STRING = r"""(["'`])([A-Za-z][\w.\- ]{1,79})\1"""
_DESCRIPTION = re.compile(r"""\bdescription["']?\s*[:=]\s*""" + _STRING)
_DESCRIBE = re.compile(r"""\b([A-Za-z_]\w{1,60})["']?\s*:\s*z\b[^;{}]{0,240}?\.describe\(\s*""" + _STRING)
_NAMES = (
    re.compile(r"""\b(?:name|title)["']?\s*:\s*""" + _KEY_STRING),
    re.compile(r"""\.(?:tool|registerTool|addTool|defineTool)\(\s*""" + _KEY_STRING),
)
_TOOL_CALL = re.compile(r"""\.tool\(\s*""" + _KEY_STRING + r"""\s*,\s*""" + _STRING)
_ESCAPE = re.compile(r"""\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)""", re.S)
_SIMPLE = {"n": " ", "t": " ", "r": " ", "b": "", "f": "", "v": "", "0": ""}
_README_ITEM = re.compile(r"""^\s*(?:[-*+]|\d+\.)\s+\**`?([A-Za-z][\w.\-]{2,60})`?\**\s*(?:[:\-\u2013\u2014]|\*\*:?)\s*(.{12,})$""")
_README_ROW = re.compile(r"""^\|\s*`?([A-Za-z][\w.\-]{2,60})`?\s*\|\s*([^|]{12,})\|""")


def _unescape(body):
    def one(m):
        e = m.group(1)
        if e[0] in "ux" and len(e) > 1:
            return chr(int(e[1:], 16))
        return _SIMPLE.get(e, e)
    return _ESCAPE.sub(one, body)


def _literal(token):
    text = _unescape(token[1:-1])
    if token[0] == "`":
        text = re.sub(r"\$\{[^}]*\}", " ", text)
    return text


def clean(text):
    text = re.sub(r"<[^>]{1,80}>", " ", text)                     # HTML tags
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)          # Markdown links: their text
    text = re.sub(r"https?://\S+", " ", text)
    text = re.sub(r"[`*_#>|]+", " ", text)
    text = re.sub(r"\s+", " ", text).strip()
    return text[:MAX_CHARS]


def _prose(text):
    """Looks like a sentence a person wrote (not code, not an identifier list)."""
    words = text.split()
    if len(words) < 4:
        return False
    letters = sum(c.isalpha() or c == " " for c in text)
    return letters >= 0.8 * len(text) and not re.search(r"[{};=]|=>|\(\)", text)


def _split_sentence(desc):
    m = re.match(r"(.{12,}?[.!?])\s+(.+)", desc)
    if m and len(m.group(2).split()) >= 4:
        return m.group(1), m.group(2)
    return None


def _source_pairs(text, tools, params):
    for m in _TOOL_CALL.finditer(text):
        desc = clean(_literal(m.group(3)))
        if _prose(desc):
            tools.append((m.group(2), desc))
    for m in _DESCRIPTION.finditer(text):
        desc = clean(_literal(m.group(1)))
        if not _prose(desc):
            continue
        window = text[max(0, m.start() - 400): m.start()]
        best = None
        for pattern in _NAMES:
            for n in pattern.finditer(window):
                if best is None or n.start() > best.start():
                    best = n
        if best is not None:
            tools.append((best.group(2), desc))
        else:
            key = re.search(r"""\b([A-Za-z_]\w{1,60})["']?\s*:\s*\{[^{}]{0,200}$""", window)
            if key:
                params.append((key.group(1), desc))
    for m in _DESCRIBE.finditer(text):
        desc = clean(_literal(m.group(2)))
        if _prose(desc):
            params.append((m.group(1), desc))


def _readme_pairs(text, docs):
    heading, paragraph = None, []

    def flush():
        body = clean(" ".join(paragraph))
        if heading and _prose(body):
            docs.append((heading, body))

    for line in text.splitlines():
        if line.startswith("```"):
            flush()
            heading, paragraph = None, []
            continue
        m = re.match(r"^#{1,6}\s+(.+)$", line)
        if m:
            flush()
            heading, paragraph = clean(m.group(1)), []
            continue
        item = _README_ITEM.match(line) or _README_ROW.match(line)
        if item:
            desc = clean(item.group(2))
            if _prose(desc):
                docs.append((item.group(1), desc))
            continue
        if line.strip():
            if not paragraph or len(paragraph) < 8:
                paragraph.append(line.strip())
        elif paragraph:
            flush()
            heading, paragraph = None, []
    flush()


def package_pairs(tarball):
    """(licence, {source: pairs}) of one package tarball."""
    tools, params, docs = [], [], []
    licence = ""
    with tarfile.open(tarball, "r:gz") as tar:
        members = sorted((m for m in tar.getmembers() if m.isfile()), key=lambda m: m.name)
        for member in members:
            name = member.name
            if "node_modules/" in name or member.size > 8_000_000:
                continue
            lower = name.lower()
            if not lower.endswith((".js", ".mjs", ".cjs", ".ts", ".json", ".md")) or lower.endswith(".d.ts"):
                continue
            text = tar.extractfile(member).read().decode("utf-8", errors="replace")
            if lower.endswith("package/package.json"):
                meta = json.loads(text)
                lic = meta.get("license", "")
                licence = lic if isinstance(lic, str) else lic.get("type", "")
                desc = clean(meta.get("description") or "")
                if _prose(desc):
                    words = [meta.get("name", "")] + list(meta.get("keywords") or [])
                    docs.append((clean(" ".join(w for w in words if isinstance(w, str))), desc))
            elif lower.endswith(".md"):
                _readme_pairs(text, docs)
            elif not lower.endswith(".json") or "tool" in lower:
                _source_pairs(text, tools, params)
    sentences = [s for _, d in tools for s in [_split_sentence(d)] if s]
    return licence, {"npmtools": tools + sentences, "npmparams": params, "npmdocs": docs}
