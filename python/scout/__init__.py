"""scout: tool search for MCP gateways, from Python.

    import scout
    with scout.Catalog() as catalog:    # embedder="static": the trained word model it ships
        catalog.upsert_servers("catalog.json")   # a path, or a list of server dicts
        catalog.commit()
        for match in catalog.search("open a pull request", top_k=3, servers=["github"]):
            print(match["name"], match["score"])

A Catalog is safe to use from several threads: searches run in parallel (the GIL is released
while the library works) and never wait for a commit. Every failure raises a subclass of
scout.Error carrying the library's status code; an unknown keyword argument is a TypeError
naming the keywords the call takes.
"""

from __future__ import annotations

import difflib as _difflib
import functools as _functools
import inspect as _inspect
import json as _json
import os as _os
from typing import (TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, TypedDict,
                    TypeVar, Union, cast)

from . import _scout

__all__ = [
    "Catalog",
    "doctor",
    "SearchResults",
    "Match",
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
    "MAX_TOP_K",
    "HAS_REGISTRY",
    "version",
    "__version__",
]

version = _scout.version
__version__: str = _scout.version()

#: The largest top_k a search takes (the smallest is 1); others raise InvalidArgument.
MAX_TOP_K: int = _scout.MAX_TOP_K

_Function = TypeVar("_Function", bound=Callable[..., Any])


def _keywords_checked(function: _Function) -> _Function:
    """Makes an unknown keyword argument a TypeError that names the nearest known keyword and
    every keyword the call takes (instead of Python's bare "unexpected keyword argument")."""
    signature = _inspect.signature(function)
    known = [name for name, parameter in signature.parameters.items()
             if name not in ("self", "cls") and parameter.kind in (parameter.POSITIONAL_OR_KEYWORD,
                                                     parameter.KEYWORD_ONLY)]

    @_functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        unknown = [name for name in kwargs if name not in signature.parameters]
        if unknown:
            name = unknown[0]
            near = _difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise TypeError(f"{function.__qualname__}() got an unknown keyword argument "
                            f"{name!r}{hint}; it takes {', '.join(known)}")
        return function(*args, **kwargs)

    return cast(_Function, checked)


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


class _BudgetKeys(TypedDict, total=False):
    """The keys a match has only with alternatives (best_phrasing) or with a token budget
    (max_tokens: tokens, trimmed)."""

    best_phrasing: int  # with alternatives: 0 the query, i its i-th alternative
    tokens: int  # the match's tokens (cl100k_base) as a gateway answer renders it
    trimmed: List[str]  # what was shortened to fit: "description", "inputSchema"


class Match(_BudgetKeys):
    """One match of a search: the keys of `scout search --json` matches (and, with max_tokens,
    "tokens" and "trimmed")."""

    name: str  # the enhanced name, {server}_{tool}
    server: str
    tool: str
    description: str
    inputSchema: Any  # the tool's JSON schema (a dict), None when it has none
    score: float
    bm25_rank: int  # 0 when BM25 did not return it
    dense_rank: int  # 0 when the dense branch did not return it


class SearchResults(List[Match]):
    """The matches of one search, best first. The attributes say how it was answered: query,
    mode (the mode that ran), degraded (the search wanted its dense branch, because the mode
    was hybrid or dense, asked for or the default of a catalog with an embedder, and could
    not run it, so BM25 answered alone), degraded_reason, catalog_empty, generation; with
    max_tokens also tokens (the matches' sum) and omitted (matches left out), else None."""

    query: str
    mode: str
    degraded: bool
    degraded_reason: str
    catalog_empty: bool
    generation: int
    tokens: Optional[int]
    omitted: Optional[int]

    def to_json(self) -> Dict[str, Any]:
        """The result as `scout search --json` prints it (a dict)."""
        out: Dict[str, Any] = {
            "query": self.query,
            "mode": self.mode,
            "degraded": self.degraded,
            "catalog_empty": self.catalog_empty,
            "matches": list(self),
        }
        if self.degraded:
            out["degraded_reason"] = self.degraded_reason
        if self.tokens is not None:
            out["tokens"] = self.tokens
            out["omitted"] = self.omitted
        return out


_scout._register({cls.code: cls for cls in _ERRORS}, SearchResults)


Embedder = Union[str, Dict[str, Any]]
_MAX_BUDGET = 1_000_000_000  # the largest max_tokens, as the C ABI's
PathLike = Union[str, bytes, "_os.PathLike[str]", "_os.PathLike[bytes]"]


def _config_json(embedder: Optional[Embedder], query_cache: Optional[int],
                 options: Optional[Dict[str, Any]],
                 calibration: Optional[PathLike] = None) -> str:
    config: Dict[str, Any] = {}
    if calibration is not None:
        config["calibration"] = _os.fsdecode(calibration)
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
    """A tool catalog: stage servers, commit, search. A context manager: leaving the `with`
    block closes it (close() releases its memory at once; later calls raise InvalidArgument).

    embedder: "static" (the default: scout's trained word model, shipped with the package),
      "static:PATH", "glove", "none" (BM25 alone), "hashing" / "hashing:DIM" (tests), or a dict
      such as {"kind": "http", "url": "http://127.0.0.1:11434/v1", "model": "nomic-embed-text"}.
    options: index settings, any subset of an index file's "options" object (docs/FORMAT.md),
      e.g. {"fusion": {"method": "rrf"}}, and "threads": the threads a commit uses (0, the
      default, = every core; not stored in index files).
    query_cache: query vectors kept in an LRU cache (default 1024; 0 turns it off).
    calibration: a fusion calibration file written by `scout calibrate --out FILE` for this
      embedder: its fusion settings, under any given in `options`. EmbedderMismatch when it was
      fitted for another model; InvalidArgument (naming the file and line) when it is truncated
      or malformed; NotFound when it is missing.
    """

    @_keywords_checked
    def __init__(self, embedder: Embedder = "static", options: Optional[Dict[str, Any]] = None,
                 query_cache: Optional[int] = None,
                 calibration: Optional[PathLike] = None) -> None:
        super().__init__(_config_json(embedder, query_cache, options, calibration))

    @classmethod
    @_keywords_checked
    def open(cls, path: PathLike, embedder: Embedder = "static",
             query_cache: Optional[int] = None) -> "Catalog":
        """Opens an index file written by save() or `scout index` (settings come from the file;
        the embedder must be the one the file was built with, or "none")."""
        opened = cls.__new__(cls)
        _scout.Catalog.__init__(
            opened, _config_json(embedder, query_cache, None), _os.fsdecode(path))
        return opened

    def __enter__(self) -> "Catalog":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def save(self, path: PathLike) -> None:
        """Writes the committed catalog to an index file (str or path-like), atomically. Releases
        the GIL while it writes."""
        super().save(_os.fsdecode(path))

    def upsert_servers(self, servers: Union[PathLike, Dict[str, Any],
                                            Sequence[Dict[str, Any]]]) -> None:
        """Stages servers, all or nothing: a path to a catalog file, a catalog dict
        {"servers": [...]}, or a list of server dicts ({"name", "description", "tools": [...]}).
        Invisible to searches until commit()."""
        if isinstance(servers, (str, bytes, _os.PathLike)):
            self._upsert_servers_file(_os.fsdecode(servers))
            return
        document: Any
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

    @_keywords_checked
    def search(self, query: str, top_k: Optional[int] = None, mode: Optional[str] = None,
               servers: Optional[Sequence[str]] = None, environment: Optional[str] = None,
               auto_k: Union[bool, float] = False, embed_timeout_ms: int = 0,
               outcome_prior: bool = False,
               alternatives: Optional[Sequence[str]] = None,
               max_tokens: Optional[int] = None) -> SearchResults:
        """Searches the latest committed catalog; returns the matches, best first.

        top_k: 1..MAX_TOP_K (20); anything else raises InvalidArgument naming the range. None
          is 5, or MAX_TOP_K with max_tokens (the budget decides how many fit).
        mode: "hybrid", "bm25" or "dense"; None (the default) is hybrid when the catalog has an
          embedder and bm25 when it was made with embedder="none".
        servers: the caller's scope (None: every server); environment: an environment label.
        auto_k: True, or a ratio in (0, 1], to cut the list where the scores drop.
        embed_timeout_ms: a deadline for embedding the query (0: none).
        outcome_prior: re-rank with the outcomes record_outcome() recorded.
        alternatives: up to 8 other phrasings of the query, each searched too; the ranked
          lists are fused by calibrated score with the query's own (docs/multi-query.md),
          and each match gets "best_phrasing" (0 the query, i its i-th alternative).
        max_tokens: a token budget (1..1e9, cl100k_base tokens) for the matches: the first is
          always kept whole; later ones are kept whole, trimmed, or left out (counted in
          `omitted`). Each match then has "tokens" and "trimmed". The rank files are loaded once
          per process; NotFound names the folders looked in when they are missing.
        Releases the GIL while searching."""
        return _search_on(self, query, top_k, mode, servers, environment, auto_k,
                          embed_timeout_ms, outcome_prior, alternatives, max_tokens)


def _search_on(target: Union[_scout.Catalog, _scout.Replica], query: str, top_k: Optional[int],
               mode: Optional[str], servers: Optional[Sequence[str]],
               environment: Optional[str], auto_k: Union[bool, float], embed_timeout_ms: int,
               outcome_prior: bool, alternatives: Optional[Sequence[str]],
               max_tokens: Optional[int]) -> SearchResults:
    """Catalog.search and Replica.search: the keywords checked, then the compiled search."""
    if isinstance(alternatives, (str, bytes)):
        raise InvalidArgument("alternatives must be a list of strings, not one string")
    budget = 0
    if max_tokens is not None:
        if (isinstance(max_tokens, bool) or not isinstance(max_tokens, int)
                or not 1 <= max_tokens <= _MAX_BUDGET):
            raise InvalidArgument(
                f"max_tokens must be a whole number in 1..{_MAX_BUDGET} (got {max_tokens!r})")
        budget = max_tokens
    if top_k is None:
        top_k = MAX_TOP_K if budget else 5
    return cast(SearchResults, target._search(
        query, top_k, mode, servers, environment, auto_k,
        embed_timeout_ms, outcome_prior, alternatives, budget))


# scout.Replica exists in builds with libpq only.
HAS_REGISTRY: bool = hasattr(_scout, "Replica")

if TYPE_CHECKING or HAS_REGISTRY:
    class Replica(_scout.Replica):
        """A catalog that follows a PostgreSQL registry (docs/scale-out.md): it catches up with the
        registry's head when made, then follows its change log in a background thread. Searched as
        a Catalog is; written only by the registry (`scout registry push`, or scout-gateway
        --registry). A context manager: leaving the `with` block stops it. Present in builds with
        libpq only (scout.HAS_REGISTRY).

        url: a libpq URI or key=value string, without a password (one in the URL raises
          InvalidArgument): libpq reads PGPASSWORD or PGPASSFILE, or password_file names a file whose
          first line is the password.
        embedder: as Catalog's, and the one the fleet pushes with (document vectors come from the
          registry).
        connect_timeout_ms, statement_timeout_ms: bounds on connecting and on each statement.
        poll_interval_ms: the head is re-read this often even without a notification.
        degraded_ttl_s: a server the registry holds as DEGRADED stays in search, from its last
          listing, until this long after it (default 24 h).
        Raises Unavailable when the registry cannot be reached or refuses the credentials.
        """

        @_keywords_checked
        def __init__(self, url: str, embedder: Embedder = "static",
                     query_cache: Optional[int] = None, password_file: Optional[PathLike] = None,
                     connect_timeout_ms: Optional[int] = None,
                     statement_timeout_ms: Optional[int] = None,
                     poll_interval_ms: Optional[int] = None,
                     degraded_ttl_s: Optional[int] = None) -> None:
            registry: Dict[str, Any] = {}
            if password_file is not None:
                registry["password_file"] = _os.fsdecode(password_file)
            for key, value in (("connect_timeout_ms", connect_timeout_ms),
                               ("statement_timeout_ms", statement_timeout_ms),
                               ("poll_interval_ms", poll_interval_ms),
                               ("degraded_ttl_s", degraded_ttl_s)):
                if value is not None:
                    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                        raise InvalidArgument(f"{key} must be a whole number (got {value!r})")
                    registry[key] = value
            super().__init__(url, _config_json(embedder, query_cache, None), _json.dumps(registry))

        def __enter__(self) -> "Replica":
            return self

        def __exit__(self, *exc_info: object) -> None:
            self.close()

        @_keywords_checked
        def wait_for(self, seq: int, timeout_ms: int = 5000) -> bool:
            """Read-your-writes: True once registry change `seq` (a push's head_seq) is applied
            here, False when `timeout_ms` (0..600000) passes first. Releases the GIL."""
            return self._wait_for(seq, timeout_ms)

        @_keywords_checked
        def search(self, query: str, top_k: Optional[int] = None, mode: Optional[str] = None,
                   servers: Optional[Sequence[str]] = None, environment: Optional[str] = None,
                   auto_k: Union[bool, float] = False, embed_timeout_ms: int = 0,
                   outcome_prior: bool = False,
                   alternatives: Optional[Sequence[str]] = None,
                   max_tokens: Optional[int] = None, min_seq: int = 0,
                   timeout_ms: int = 5000) -> SearchResults:
            """Catalog.search on the replica's catalog. With min_seq (a push's head_seq), the search
            first waits, at most timeout_ms, until that change is applied here, and raises
            Unavailable naming both numbers when it is not. Releases the GIL."""
            if min_seq and not self._wait_for(min_seq, timeout_ms):
                applied = self.status()["applied_seq"]
                raise Unavailable(f"registry change {min_seq} not applied within {timeout_ms} ms "
                                  f"(applied: {applied})")
            return _search_on(self, query, top_k, mode, servers, environment, auto_k,
                              embed_timeout_ms, outcome_prior, alternatives, max_tokens)

    __all__.append("Replica")


def _servers_json(servers: Union[PathLike, Dict[str, Any], Sequence[Dict[str, Any]]],
                  what: str) -> str:
    """A catalog file's text, or a catalog dict or a list of server dicts as that JSON."""
    if isinstance(servers, (str, bytes, _os.PathLike)):
        with open(_os.fsdecode(servers), encoding="utf-8") as f:
            return f.read()
    document: Any
    if isinstance(servers, dict):
        document = servers
    elif isinstance(servers, (list, tuple)):
        document = {"servers": list(servers)}
    else:
        raise InvalidArgument(f"{what} takes a path, a catalog dict or a list of server dicts, "
                              f"not {type(servers).__name__}")
    try:
        return _json.dumps(document)
    except (TypeError, ValueError) as e:
        raise InvalidArgument(f"servers are not JSON: {e}") from None


@_keywords_checked
def doctor(servers: Union[PathLike, Dict[str, Any], Sequence[Dict[str, Any]]],
           embedder: Embedder = "static",
           options: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The catalog doctor (docs/doctor.md): indexes `servers` (a catalog file's path, a catalog
    dict or a list of server dicts) with `embedder` and `options`, as Catalog() takes them, and
    returns the report of `scout doctor --json`: {"summary", "servers", "findings"}. Releases
    the GIL while it works."""
    report = _scout._doctor(_servers_json(servers, "doctor"),
                            _config_json(embedder, None, options))
    return cast(Dict[str, Any], _json.loads(report))
