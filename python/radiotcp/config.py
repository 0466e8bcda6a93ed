"""Scenario configuration: reading, overriding and resolving scenario documents.

The keys, their types, defaults, bounds and help text are declared once, by the Rust
configuration types (``crates/radiotcp-core/src/config``); the core resolves a partial
document (``radiotcp._core.resolve_config``): every key left out takes its default, a TCP
profile supplies the defaults of the ``tcp`` keys, and every problem of the document is
reported at once. The typed classes of a resolved scenario (:class:`ScenarioConfig` and its
tables) are generated from the core's schema into ``radiotcp._schema``
(``python -m radiotcp.schemagen``). What is left here is what is not schema:

- :func:`load` - read a TOML file (or take a dict / a resolved scenario), apply ``--set``
  overrides, resolve.
- :func:`parse_override` / :func:`apply_overrides` - the ``key.path=value`` mechanism on plain
  dicts, and the ``[radio]`` / ``[rlp]`` tables of radiotcp 0.2 files read as ``access``.
- :func:`to_core_json` - the fully resolved configuration as the JSON the core reads.
- :func:`to_toml` - the resolved configuration as TOML (``radiotcp run --show-config``).

Every user mistake raises :class:`radiotcp.ConfigError` carrying one line per problem.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
import stat
import textwrap
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from . import _core
from ._schema import (
    AccessConfig,
    FlowsConfig,
    LinkConfig,
    LteConfig,
    QueueConfig,
    RlpConfig,
    ScenarioConfig,
    SimulationConfig,
    TcpConfig,
    UmtsConfig,
    WiredAccessConfig,
)
from .errors import ConfigError

__all__ = [
    "AccessConfig",
    "ConfigError",
    "FlowsConfig",
    "LinkConfig",
    "LteConfig",
    "QueueConfig",
    "RlpConfig",
    "ScenarioConfig",
    "SimulationConfig",
    "TcpConfig",
    "UmtsConfig",
    "WiredAccessConfig",
    "apply_overrides",
    "choices_of",
    "config_schema",
    "deref",
    "fill_defaults",
    "format_value",
    "load",
    "load_toml",
    "nullable",
    "parse_override",
    "parse_value",
    "read_toml_text",
    "to_core_json",
    "to_dict",
    "to_toml",
    "validate_dict",
    "variants_of",
]

# Tables of radiotcp 0.2 files that are now `access` with a kind (read as such).
LEGACY_ACCESS = {"radio": "umts", "rlp": "rlp"}


# --------------------------------------------------------------------------------------------
# Error messages
# --------------------------------------------------------------------------------------------


# An error message shows at most this much of a value, and tables / lists this deep.
VALUE_SHOWN_CHARS = 120
VALUE_SHOWN_DEPTH = 4


def format_value(v: Any) -> str:
    """Render a value the way it would be written in TOML (strings quoted), shortened to
    VALUE_SHOWN_CHARS with ``...`` (a pasted table or a deeply nested list stays one line)."""
    text = _format_value(v, VALUE_SHOWN_DEPTH)
    if len(text) > VALUE_SHOWN_CHARS:
        text = text[: VALUE_SHOWN_CHARS - 3] + "..."
    return text


def _format_value(v: Any, depth: int) -> str:
    if isinstance(v, (Mapping, list, tuple)) and depth <= 0:
        return "{...}" if isinstance(v, Mapping) else "[...]"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, int):
        return str(v)
    if v is None:
        return "null"
    if isinstance(v, Mapping):
        inner = ", ".join(f"{k} = {_format_value(x, depth - 1)}" for k, x in v.items())
        return "{" + inner + "}" if inner else "{}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_format_value(x, depth - 1) for x in v) + "]"
    return str(v)


# --------------------------------------------------------------------------------------------
# The schema, defaults and resolution (all in the core)
# --------------------------------------------------------------------------------------------


@cache
def config_schema() -> dict[str, Any]:
    """The core's JSON Schema of a scenario document (every key: type, default, help)."""
    return json.loads(_core.config_schema())  # type: ignore[no-any-return]


# Non-finite numbers (nan, inf) cannot be written in JSON, and the core reads tables and lists
# nested at most _DEPTH deep: such values travel to the core as a marker and come back as the
# problem they are (or as themselves, from fill_defaults).
_MARKER = "\x00radiotcp:"
_DEPTH = 64


def _encode(v: Any, path: str, found: dict[str, Any], depth: int = 0) -> Any:
    if (isinstance(v, float) and not math.isfinite(v)) or (
        depth >= _DEPTH and isinstance(v, Mapping | list | tuple)
    ):
        found[path] = v
        return f"{_MARKER}{path}"
    here = (lambda k: f"{path}.{k}") if path else str
    if isinstance(v, Mapping):
        return {str(k): _encode(x, here(k), found, depth + 1) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_encode(x, here(i), found, depth + 1) for i, x in enumerate(v)]
    return v


def _decode(v: Any, found: Mapping[str, Any]) -> Any:
    if isinstance(v, str) and v.startswith(_MARKER):
        return found.get(v[len(_MARKER) :], v)
    if isinstance(v, dict):
        return {k: _decode(x, found) for k, x in v.items()}
    if isinstance(v, list):
        return [_decode(x, found) for x in v]
    return v


# The types a plain document holds besides its dicts and lists.
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _plain(v: Any, depth: int = 0) -> bool:
    """Whether ``_encode`` would give back ``v`` unchanged but for copying: dicts with str
    keys and lists, nested less than _DEPTH deep, of str, int, float, bool and None (finite
    numbers are left to ``json.dumps(allow_nan=False)`` to check). Anything else, a tuple or a
    Mapping that is not a dict included, is not plain, and takes ``_encode``."""
    if depth >= _DEPTH:
        return False
    if type(v) is dict:
        items: Iterable[Any] = v.values()
        if not all(type(k) is str for k in v):
            return False
    elif type(v) is list:
        items = v
    else:
        return type(v) in _SCALARS
    for x in items:
        t = type(x)
        if t is dict or t is list:
            if not _plain(x, depth + 1):
                return False
        elif t not in _SCALARS:
            return False
    return True


def _encoded_json(v: Any, found: dict[str, Any]) -> str:
    """``json.dumps(_encode(v, "", found))``: the same text and ``found``, without building
    the encoded copy when ``v`` is plain (a sweep resolves each point's document twice, and
    the copy took more time than the core's resolution)."""
    if _plain(v):
        try:
            return json.dumps(v, allow_nan=False)
        except ValueError:
            pass  # a non-finite number: its marker below
    return json.dumps(_encode(v, "", found))


@lru_cache(maxsize=16)
def _filled_text(text: str) -> str:
    """The core's document with defaults filled in, of the same text remembered: a sweep fills
    its base scenario once per point (a pure function of the text, so the same answer)."""
    return _core.fill_config_defaults(text)  # type: ignore[no-any-return]


def fill_defaults(raw: Mapping[str, Any]) -> dict[str, Any]:
    """``raw`` with every missing key at its default (the core's), nothing validated:
    unknown keys and wrong values are kept for validation to report."""
    found: dict[str, Any] = {}
    text = _encoded_json(raw, found)
    filled = json.loads(_filled_text(text))
    # Without markers `_decode` would only copy what json.loads has just made.
    return _decode(filled, found) if found else filled  # type: ignore[no-any-return]


def _resolve(doc: Mapping[str, Any]) -> tuple[dict[str, Any] | None, list[ConfigError]]:
    """The resolved document (None when it has problems) and the problems."""
    found: dict[str, Any] = {}
    text = _encoded_json(doc, found)
    problems: list[ConfigError] = []
    resolved: dict[str, Any] | None = None
    try:
        resolved = json.loads(_core.resolve_config(text))
    except ConfigError as e:
        problems = list(e.problems)
    if not found:
        return resolved, problems
    for p in problems:
        if p.key in found:
            p.value = format_value(found[p.key])
        elif any(k.startswith(f"{p.key}.") for k in found):
            # A table or list holding a marker: show it as written.
            p.value = format_value(_decode(_lookup(doc, p.key), found))
    # A non-finite number is a problem of its own, wherever the core saw its marker (unless
    # the key itself is unknown).
    nonfinite = [k for k, v in found.items() if isinstance(v, float)]
    unknown = {p.key for p in problems if p.unknown_key}
    own = [
        ConfigError(k, format_value(found[k]), "a finite number")
        for k in nonfinite
        if k not in unknown
    ]
    problems = own + [p for p in problems if p.key not in {q.key for q in own}]
    reported = {p.key for p in problems}
    problems += [
        ConfigError(k, format_value(v), f"tables and lists nested at most {_DEPTH} deep")
        for k, v in found.items()
        if not any(k == r or k.startswith(f"{r}.") for r in reported)
    ]
    return (None if problems else resolved), problems


def _lookup(doc: Any, key: str) -> Any:
    for part in key.split("."):
        if isinstance(doc, Mapping) and part in doc:
            doc = doc[part]
        elif isinstance(doc, list) and part.isdigit() and int(part) < len(doc):
            doc = doc[int(part)]
        else:
            return None
    return doc


def variants_of(schema: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The tables of a tagged choice (``access``) by their ``kind`` (empty for other schemas)."""
    one = schema.get("oneOf")
    if not isinstance(one, list):
        return {}
    out = {}
    for v in one:
        kind = v.get("properties", {}).get("kind", {}).get("const")
        if kind is None:
            return {}
        out[kind] = v
    return out


def deref(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """The definition a ``$ref`` points to (the schema itself otherwise)."""
    while "$ref" in schema:
        schema = config_schema()["$defs"][str(schema["$ref"]).rsplit("/", 1)[-1]]
    return schema


def _field_schema(doc: Mapping[str, Any], key: str) -> Mapping[str, Any] | None:
    """The schema of the key ``key`` names in ``doc`` (the kind chosen there for a tagged
    choice), or None when it names no key."""
    s: Mapping[str, Any] = config_schema()
    node: Any = doc
    for part in key.split("."):
        t = deref(s)
        if "anyOf" in t:
            t = deref(next(x for x in t["anyOf"] if x.get("type") != "null"))
        choices = variants_of(t)
        if choices:
            kind = node.get("kind") if isinstance(node, Mapping) else None
            t = choices.get(str(kind), {})
        if t.get("type") in ("array", ["array", "null"]) and part.isdigit():
            s = t.get("items", {})
            node = node[int(part)] if isinstance(node, list) and int(part) < len(node) else None
            continue
        props = t.get("properties", {})
        if part not in props:
            return None
        s = props[part]
        node = node.get(part) if isinstance(node, Mapping) else None
    return s


def choices_of(s: Mapping[str, Any]) -> list[Any]:
    """The values of a choice (``enum``; with help on some values, schemars writes each of
    those as a ``const`` and the rest as one ``enum``), or [] for other schemas."""
    t = deref(s)
    out = list(t.get("enum", []))
    for x in t.get("oneOf", []):
        if x.get("type") == "object":
            return []
        out += [x["const"]] if "const" in x else x.get("enum", [])
    return out


def _string_choices(s: Mapping[str, Any]) -> list[str]:
    return [x for x in choices_of(s) if isinstance(x, str)]


def nullable(s: Mapping[str, Any]) -> tuple[bool, Mapping[str, Any]]:
    """(whether None is allowed, the schema of a value that is not None)."""
    if "anyOf" in s:
        rest = [x for x in s["anyOf"] if x.get("type") != "null"]
        return len(rest) < len(s["anyOf"]), rest[0] if rest else {}
    types = s.get("type")
    if isinstance(types, list) and "null" in types:
        return True, {**s, "type": next(t for t in types if t != "null")}
    return False, s


def _takes_literal_none(doc: Mapping[str, Any], key: str) -> bool:
    """Whether `key` is a required choice that has "none" among its values (a channel model,
    an ACK control mode, a fading model), so that `none` on the command line means that value."""
    s = _field_schema(doc, key)
    return s is not None and not nullable(s)[0] and "none" in _string_choices(s)


def _unsettable(doc: Mapping[str, Any], key: str) -> bool:
    """Whether `key` is an optional key whose type has no string value, so that "none" in a
    sweep file (TOML has no null) can only mean "unset", as `--set KEY=none` does."""
    s = _field_schema(doc, key)
    if s is None:
        return False
    optional, inner = nullable(s)
    inner = deref(inner)
    return optional and inner.get("type") != "string" and not _string_choices(inner)


# --------------------------------------------------------------------------------------------
# Overrides, loading
# --------------------------------------------------------------------------------------------


def parse_value(text: str) -> Any:
    """Parse the right-hand side of ``--set``: a TOML value, else the plain string.

    ``null`` (or ``none``) resets an optional key to unset.
    """
    stripped = text.strip()
    if stripped.lower() in ("null", "none"):
        return None
    try:
        doc = tomllib.loads(f"v = {stripped}")
    except tomllib.TOMLDecodeError:
        return text
    if list(doc) != ["v"]:
        return text
    return doc["v"]


def parse_override(item: str) -> tuple[str, Any]:
    """Split ``key.path=value`` into the path and the parsed value."""
    if "=" not in item:
        raise ConfigError("--set", format_value(item), "KEY.PATH=VALUE, e.g. flows.count=4")
    key, _, text = item.partition("=")
    key = key.strip()
    if not key or not re.fullmatch(r"[A-Za-z0-9_\-]+(\.[A-Za-z0-9_\-]+)*", key):
        raise ConfigError("--set", format_value(item), "KEY.PATH=VALUE with a dotted key path")
    return key, parse_value(text)


def _unknown_part(
    key: str, value: Any, node: Mapping[str, Any], here: str, part: str
) -> ConfigError:
    """A key path through a table that has no key ``part`` (the path goes on below it)."""
    keys = [str(k) for k in node]
    close = difflib.get_close_matches(part, keys, n=1)
    prefix = f"{here}." if here else ""
    hint = f"did you mean {prefix}{close[0]}? " if close else ""
    scope = f"under {here}" if here else "at the top level"
    return ConfigError(
        key, format_value(value), f"{hint}keys {scope}: {', '.join(keys)}", unknown_key=True
    )


def _set_path(doc: dict[str, Any], key: str, value: Any) -> bool:
    """Set ``key`` in ``doc``; False when its last part is a key the table does not have (the
    core names it, with the closest known key, when the document is resolved)."""
    parts = key.split(".")
    node: Any = doc
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        here = ".".join(parts[:depth])
        if isinstance(node, dict):
            if part not in node and not last:
                raise _unknown_part(key, value, node, here, part)
            if last and part == "kind" and "kind" in node and node["kind"] != value:
                # A new kind of a tagged choice starts from that kind's defaults (the keys of
                # the old kind mean nothing to it).
                node.clear()
                node["kind"] = value
            elif last:
                known = part in node
                node[part] = value
                return known
            else:
                node = node[part]
        elif isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise ConfigError(
                    key,
                    format_value(value),
                    f"expected an index into {here} in 0..{len(node) - 1} "
                    f"(set the whole list to add entries)",
                    unknown_key=True,
                )
            if last:
                node[int(part)] = value
            else:
                node = node[int(part)]
        else:
            raise ConfigError(key, format_value(value), f"{here} is not a table", unknown_key=True)
    return True


def _legacy_access(raw: Mapping[str, Any]) -> tuple[dict[str, Any], list[ConfigError]]:
    """Read the ``[radio]`` and ``[rlp]`` tables of radiotcp 0.2 files as ``access`` with
    ``kind = "umts"`` / ``"rlp"``; both, or either beside ``access``, is an error."""
    doc = dict(raw)
    found = [k for k in LEGACY_ACCESS if k in doc]
    if not found:
        return doc, []
    if len(found) > 1 or "access" in doc:
        clash = [*found, *(["access"] if "access" in doc else [])]
        for name in found:  # reported here; not again as unknown keys
            doc.pop(name)
        return doc, [
            ConfigError(
                clash[-1],
                "set",
                f"one access table: {' and '.join(clash)} are all set "
                "(the [radio] and [rlp] tables of 0.2 files are now access.kind = umts / rlp)",
            )
        ]
    name = found[0]
    table = doc.pop(name)
    if table is None:
        return doc, []
    if not isinstance(table, Mapping):
        return doc, [ConfigError(name, format_value(table), "a table")]
    doc["access"] = {"kind": LEGACY_ACCESS[name], **table}
    return doc, []


def _legacy_key(key: str, value: Any) -> tuple[str, Any]:
    """``radio.x`` / ``rlp.x`` (0.2 key paths) are ``access.x``; a whole ``radio`` / ``rlp``
    table is an ``access`` table of that kind."""
    head, _, rest = key.partition(".")
    if head not in LEGACY_ACCESS:
        return key, value
    if rest:
        return f"access.{rest}", value
    if value is None:
        return "access", {"kind": "wired"}
    if isinstance(value, Mapping):
        return "access", {"kind": LEGACY_ACCESS[head], **value}
    return key, value


def _apply(
    raw: Mapping[str, Any], overrides: Sequence[str] | Mapping[str, Any] | None
) -> tuple[dict[str, Any], list[ConfigError], list[str]]:
    """(the document with defaults and overrides, the problems found, the override keys the
    document has no such key for)."""
    raw, problems = _legacy_access(raw)
    doc = fill_defaults(raw)
    unknown: list[str] = []
    if not overrides:
        return doc, problems, unknown
    items: list[tuple[str, Any]] = []
    if isinstance(overrides, Mapping):
        items = [(str(k), v) for k, v in overrides.items()]
    else:
        for item in overrides:
            try:
                items.append(parse_override(item))
            except ConfigError as e:
                problems.extend(e.problems)
    from_text = not isinstance(overrides, Mapping)
    for key, value in items:
        key, value = _legacy_key(key, value)
        if value is None and from_text and _takes_literal_none(doc, key):
            # `--set access.downlink.model=none`: the key's own value "none", not "unset".
            value = "none"
        elif (
            not from_text
            and isinstance(value, str)
            and value.lower() in ("none", "null")
            and _unsettable(doc, key)
        ):
            # A sweep axis written in TOML: "none" unsets an optional number.
            value = None
        try:
            if not _set_path(doc, key, value):
                unknown.append(key)
        except ConfigError as e:
            problems.extend(e.problems)
            continue
        # A newly set table (e.g. a whole `links` list or `radio = {}`) gets its defaults
        # before a later override reaches into it; scalars need no refill (a sweep resolves
        # thousands of points, each with several scalar overrides).
        if isinstance(value, Mapping | list) or key.endswith(".kind"):
            doc = fill_defaults(doc)
    if any(k == "tcp.profile" for k, _ in items) and isinstance(doc.get("tcp"), Mapping):
        # A profile chosen by --set (or a sweep axis) swaps the whole TCP stack: every tcp
        # key takes the profile's value, the scenario file's own tcp keys included (they
        # describe the stack the scenario was written for); other tcp keys given with --set
        # in the same call still apply (docs/usage.md, "TCP profiles"). The core fills in
        # the profile's defaults.
        explicit: dict[str, Any] = {}
        for k, v in items:
            parts = k.split(".")
            if k == "tcp" and isinstance(v, Mapping):
                explicit.update(v)
            elif len(parts) == 2 and parts[0] == "tcp":
                explicit[parts[1]] = v
        doc["tcp"] = explicit
    return doc, problems, unknown


def apply_overrides(
    raw: Mapping[str, Any], overrides: Sequence[str] | Mapping[str, Any] | None
) -> dict[str, Any]:
    """Apply ``--set`` style overrides to a scenario dict, after filling in the defaults.

    ``overrides`` is a list of ``"key.path=value"`` strings or a mapping of key path to
    (already parsed) value. Paths mirror the TOML structure; integer segments index lists
    (``links.1.queue.limit_packets``). A path that does not exist is an error naming the key.
    All problems are collected and raised together. The result is not validated.
    """
    doc, problems, unknown = _apply(raw, overrides)
    if unknown:
        _, found = _resolve(doc)
        problems += [p for p in found if p.key in unknown]
    if problems:
        raise ConfigError.from_problems(problems)
    return doc


def validate_dict(doc: Mapping[str, Any]) -> ScenarioConfig:
    """Resolve and validate a (TOML-like) scenario dict; raises ConfigError listing every
    problem."""
    if not isinstance(doc, Mapping):
        raise ConfigError("<document>", format_value(doc), "a table of scenario settings")
    resolved, problems = _resolve(doc)
    if resolved is None:
        raise ConfigError.from_problems(problems)
    return ScenarioConfig.from_dict(resolved)


def decode_toml_bytes(data: bytes, name: str) -> str:
    """The text of a TOML file: UTF-8, with or without a byte-order mark (editors on Windows
    write one). UTF-16 and other encodings are an error that says how to fix the file."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ConfigError(
            name, "", "a UTF-8 text file (this one is UTF-16): save the file as UTF-8"
        )
    elif b"\x00" in data:
        raise ConfigError(
            name, "", "a UTF-8 text file (this one has NUL bytes: binary, or UTF-16/32 text)"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(
            name,
            "",
            f"a UTF-8 text file (byte 0x{data[e.start]:02x} at offset {e.start} is not UTF-8): "
            "save the file as UTF-8",
        ) from None


def read_toml_text(path: str | Path, what: str = "scenario") -> str:
    """Read a TOML file's text; a missing file, a directory or a non-UTF-8 file raise
    ConfigError naming the file."""
    p = Path(path)
    # stat before opening: a FIFO or a device (/dev/zero, a named pipe) would block or never
    # end; anything but a regular file is refused at once.
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise ConfigError(str(p), "", f"{what} file not found") from None
    except OSError as e:
        raise ConfigError(str(p), "", f"cannot read {what} file ({e.strerror or e})") from None
    if stat.S_ISDIR(st.st_mode):
        raise ConfigError(str(p), "", f"is a directory, expected a {what} .toml file") from None
    if not stat.S_ISREG(st.st_mode):
        kind = (
            "a FIFO (named pipe)"
            if stat.S_ISFIFO(st.st_mode)
            else "a device"
            if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
            else "not a regular file"
        )
        raise ConfigError(str(p), "", f"is {kind}, expected a regular {what} .toml file")
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise ConfigError(str(p), "", f"{what} file not found") from None
    except IsADirectoryError:
        raise ConfigError(str(p), "", f"is a directory, expected a {what} .toml file") from None
    except OSError as e:
        raise ConfigError(str(p), "", f"cannot read {what} file ({e})") from None
    return decode_toml_bytes(data, str(p))


def load_toml(path: str | Path) -> dict[str, Any]:
    """Read a scenario TOML file into a dict; missing file or bad TOML raise ConfigError."""
    p = Path(path)
    text = read_toml_text(p)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(str(p), "", f"invalid TOML: {e}") from None


def load(
    source: str | Path | Mapping[str, Any] | ScenarioConfig | None = None,
    overrides: Sequence[str] | Mapping[str, Any] | None = None,
) -> ScenarioConfig:
    """Resolve a scenario from a TOML path, a dict or a resolved scenario (None = defaults)
    plus overrides."""
    if source is None:
        raw: Mapping[str, Any] = {}
    elif isinstance(source, ScenarioConfig):
        raw = to_dict(source)
    elif isinstance(source, (str, Path)):
        raw = load_toml(source)
    elif isinstance(source, Mapping):
        raw = source
    else:
        raise TypeError(
            f"config must be a path, a dict or a ScenarioConfig, not {type(source).__name__}"
        )
    if not isinstance(raw, Mapping):
        raise ConfigError("<document>", format_value(raw), "a table of scenario settings")
    doc, problems, _unknown = _apply(raw, overrides)
    resolved, found = _resolve(doc)
    seen = {p.key for p in problems}
    problems.extend(p for p in found if p.key not in seen)
    if problems or resolved is None:
        raise ConfigError.from_problems(problems)
    return ScenarioConfig.from_dict(resolved)


def to_dict(cfg: ScenarioConfig) -> dict[str, Any]:
    """The fully resolved configuration as plain JSON-compatible data."""
    return cfg.to_dict()


def to_core_json(cfg: ScenarioConfig) -> str:
    """The fully resolved configuration as the JSON document the Rust core reads."""
    return json.dumps(to_dict(cfg), allow_nan=False)


# --------------------------------------------------------------------------------------------
# TOML output (for --show-config)
# --------------------------------------------------------------------------------------------


def _without_unset(v: Any, path: str, unset: list[str]) -> Any:
    """``v`` with every None (an unset optional key, which TOML cannot write) left out; the
    dotted paths of the left-out keys are appended to ``unset``."""
    if isinstance(v, Mapping):
        out: dict[str, Any] = {}
        for k, x in v.items():
            here = f"{path}.{k}" if path else str(k)
            if x is None:
                unset.append(here)
            else:
                out[str(k)] = _without_unset(x, here, unset)
        return out
    if isinstance(v, list | tuple):
        return [_without_unset(x, f"{path}.{i}", unset) for i, x in enumerate(v)]
    return v


def to_toml(cfg: ScenarioConfig) -> str:
    """The resolved configuration as a TOML document (every section, whatever the model has).

    Unset optional keys cannot be written in TOML; they are left out (loading the document
    gives them their default, unset, again) and listed in a comment at the top.
    """
    import tomli_w  # only --show-config writes TOML

    unset: list[str] = []
    doc = _without_unset(to_dict(cfg), "", unset)
    head = ""
    if unset:
        wrapped = textwrap.wrap(
            "unset: " + ", ".join(unset), width=98, break_long_words=False, break_on_hyphens=False
        )
        head = "".join(f"# {line}\n" for line in wrapped) + "\n"
    return head + tomli_w.dumps(doc)
