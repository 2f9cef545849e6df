"""scout: tool search for MCP gateways, from Python.

    import scout
    catalog = scout.Catalog(embedder="static")   # or "none", "glove", {"kind": "http", ...}
    catalog.upsert_servers("data/enterprise_catalog.json")   # a path, or a list of server dicts
    catalog.commit()
    for match in catalog.search("open a pull request", top_k=3, servers=["github-enterprise"]):
        print(match["name"], match["score"])

A Catalog is safe to use from several threads: searches run in parallel (the GIL is released
while the library works) and never wait for a commit. Every failure raises a subclass of
scout.Error carrying the library's status code.
"""

import json as _json
import os as _os

from . import _scout

__all__ = [
    "Catalog",
    "SearchResults",
    "Error",
    "InvalidArgument",
    "NotFound",
    "IoError",
    "Corrupt",
    "VersionUnsupported",
    "EmbedderMismatch",
    "DimensionMismatch",
    "Unavailable",
    "Internal",
    "version",
    "__version__",
]

version = _scout.version
__version__ = _scout.version()


class Error(Exception):
    """A failure reported by scout. `code` is the status code (as in scout.h's scout_status and
    scout::Errc), `code_name` its stable name."""

    code = 0
    code_name = "ok"


class InvalidArgument(Error, ValueError):
    """Malformed input: bad JSON, a bad name, an empty query, an unknown option."""


class NotFound(Error):
    """An unknown server, or a file that does not exist (a missing embedding model too)."""


class IoError(Error):
    """Reading or writing a file failed."""


class Corrupt(Error):
    """A file's bytes do not form a valid index."""


class VersionUnsupported(Error):
    """An index file of a newer format."""


class EmbedderMismatch(Error):
    """The embedder differs from the one an index file was built with."""


class DimensionMismatch(Error):
    """An embedding has the wrong number of components."""


class Unavailable(Error):
    """A dependency (the embedding service) failed or timed out."""


class Internal(Error):
    """A bug or resource exhaustion inside the library."""


_ERRORS = [
    InvalidArgument,
    NotFound,
    IoError,
    Corrupt,
    VersionUnsupported,
    EmbedderMismatch,
    DimensionMismatch,
    Unavailable,
    Internal,
]
for _code, _name in _scout._status_names().items():
    _cls = _ERRORS[_code - 1]
    _cls.code = _code
    _cls.code_name = _name


class SearchResults(list):
    """The matches of one search (dicts with the keys of `scout search --json` matches: name,
    server, tool, description, inputSchema, score, bm25_rank, dense_rank), best first. The
    attributes say how it was answered: query, mode, degraded (the dense branch was wanted but
    unavailable, so BM25 answered alone), degraded_reason, catalog_empty, generation."""

    def to_json(self):
        """The result as `scout search --json` prints it (a dict)."""
        out = {
            "query": self.query,
            "mode": self.mode,
            "degraded": self.degraded,
            "catalog_empty": self.catalog_empty,
            "matches": list(self),
        }
        if self.degraded:
            out["degraded_reason"] = self.degraded_reason
        return out


_scout._register({cls.code: cls for cls in _ERRORS}, SearchResults)


def _config_json(embedder, query_cache, options):
    config = {}
    if embedder is not None:
        config["embedder"] = embedder
    if query_cache is not None:
        config["query_cache"] = query_cache
    if options is not None:
        config["options"] = options
    try:
        return _json.dumps(config)
    except (TypeError, ValueError) as e:
        raise InvalidArgument(f"catalog options are not JSON: {e}") from None


class Catalog(_scout.Catalog):
    """A tool catalog: stage servers, commit, search.

    embedder: "static" (the default: scout's trained word model, shipped in data/), "static:PATH",
      "glove", "none" (BM25 alone), "hashing" / "hashing:DIM" (tests), or a dict such as
      {"kind": "http", "url": "http://127.0.0.1:11434/v1", "model": "nomic-embed-text"}.
    options: index settings, any subset of an index file's "options" object (docs/FORMAT.md),
      e.g. {"fusion": {"method": "rrf"}}, and "threads": the threads a commit uses (0, the
      default, = every core; not stored in index files).
    query_cache: query vectors kept in an LRU cache (default 1024; 0 turns it off).
    """

    def __init__(self, embedder="static", options=None, query_cache=None):
        super().__init__(_config_json(embedder, query_cache, options))

    @classmethod
    def open(cls, path, embedder="static", query_cache=None):
        """Opens an index file written by save() or `scout index` (settings come from the file;
        the embedder must be the one the file was built with, or "none")."""
        opened = cls.__new__(cls)
        _scout.Catalog.__init__(
            opened, _config_json(embedder, query_cache, None), _os.fsdecode(path))
        return opened

    def save(self, path):
        """Writes the committed catalog to an index file (str or path-like), atomically. Releases
        the GIL while it writes."""
        super().save(_os.fsdecode(path))

    def upsert_servers(self, servers):
        """Stages servers, all or nothing: a path to a catalog file, a catalog dict
        {"servers": [...]}, or a list of server dicts ({"name", "description", "tools": [...]}).
        Invisible to searches until commit()."""
        if isinstance(servers, (str, bytes, _os.PathLike)):
            self._upsert_servers_file(_os.fsdecode(servers))
            return
        if isinstance(servers, dict):
            document = servers
        elif isinstance(servers, (list, tuple)):
            document = {"servers": list(servers)}
        else:
            raise InvalidArgument(
                "upsert_servers takes a path, a catalog dict or a list of server dicts, "
                f"not {type(servers).__name__}")
        try:
            text = _json.dumps(document)
        except (TypeError, ValueError) as e:
            raise InvalidArgument(f"servers are not JSON: {e}") from None
        self._upsert_servers_json(text)
