"""Generate ``python/radiotcp/_schema.py``, the typed scenario classes, from the core's schema.

The Rust configuration types (``crates/radiotcp-core/src/config``) are the one declaration of
every key; ``radiotcp._core.config_schema()`` exports them as JSON Schema. This module writes
one class per table of that schema (fields in declaration order, help text as comments
for readers, no defaults and no checks: the core resolves and validates documents) and the
choice types as ``Literal`` aliases, so that Python code reads a resolved scenario with typed
attributes (``cfg.links[1].rate_kbps``).

    python -m radiotcp.schemagen            # rewrite python/radiotcp/_schema.py
    python -m radiotcp.schemagen --check    # exit 1 if it is out of date (make test runs this)
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_OUT", "generate", "main", "sync"]

DEFAULT_OUT = Path(__file__).resolve().parent / "_schema.py"

HEAD = '''# ruff: noqa: RUF023 (the keys are in declaration order, not sorted)
"""The scenario's typed classes, generated from the core's schema: do not edit.

Regenerate with ``python -m radiotcp.schemagen`` (``make schema``) after changing the Rust
configuration types; ``make test`` fails while this file is out of date. Defaults, bounds
and help text live in the Rust types only (``radiotcp._core.config_schema()``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from ._table import Table, opt

'''


def _ref_name(s: dict[str, Any]) -> str | None:
    ref = s.get("$ref")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def _choices(s: dict[str, Any]) -> list[Any] | None:
    """The values of a choice; with help on some values, schemars writes each of those as a
    ``const`` and the rest as one ``enum``."""
    if "enum" in s:
        return list(s["enum"])
    one = s.get("oneOf")
    if not isinstance(one, list) or any(x.get("type") == "object" for x in one):
        return None
    out: list[Any] = []
    for x in one:
        if "const" in x:
            out.append(x["const"])
        elif "enum" in x:
            out += x["enum"]
        else:
            return None
    return out


def _variants(s: dict[str, Any]) -> list[tuple[str, dict[str, Any]]] | None:
    one = s.get("oneOf")
    if not isinstance(one, list):
        return None
    out = []
    for x in one:
        kind = x.get("properties", {}).get("kind", {}).get("const")
        if kind is None:
            return None
        out.append((kind, x))
    return out


class _Gen:
    def __init__(self, schema: dict[str, Any]) -> None:
        self.defs: dict[str, Any] = schema.get("$defs", {})
        self.blocks: list[str] = []
        self.done: set[str] = set()

    def type_of(self, s: dict[str, Any], owner: str, field: str) -> tuple[str, str]:
        """(annotation, conversion of ``$V``, the value read) of a property schema."""
        any_of = s.get("anyOf")
        if isinstance(any_of, list):
            inner = [x for x in any_of if x.get("type") != "null"]
            if len(inner) == 1 and len(any_of) == 2:
                ann, conv = self.type_of(inner[0], owner, field)
                if conv == "$V":
                    return f"{ann} | None", "$V"
                return f"{ann} | None", f"opt({conv.removesuffix('($V)')}, $V)"
        name = _ref_name(s)
        if name is not None:
            self.define(name)
            target = self.defs[name]
            if _variants(target) is not None:
                return name, f"_{name}_from_dict($V)"
            if _choices(target) is not None:
                return name, "$V"
            return name, f"{name}.from_dict($V)"
        types = s.get("type")
        nullable = isinstance(types, list) and "null" in types
        base = next(t for t in types if t != "null") if isinstance(types, list) else types
        if base == "array":
            ann, conv = self.type_of(s.get("items", {}), owner, field)
            if conv == "$V":
                out = (f"list[{ann}]", "$V")
            else:
                out = (f"list[{ann}]", f"[{conv.replace('$V', 'x')} for x in $V]")
        elif base == "object" and "properties" in s:
            raise ValueError(f"{owner}.{field}: an inline table has no class name")
        else:
            scalar = {"number": "float", "integer": "int", "boolean": "bool", "string": "str"}
            if "const" in s:
                out = (f"Literal[{json.dumps(s['const'])}]", "$V")
            else:
                out = (scalar.get(str(base), "Any"), "$V")
        if nullable:
            conv = out[1] if out[1] == "$V" else f"None if $V is None else {out[1]}"
            return f"{out[0]} | None", conv
        return out

    def define(self, name: str) -> None:
        if name in self.done:
            return
        self.done.add(name)
        s = self.defs[name]
        variants = _variants(s)
        if variants is not None:
            names = []
            for kind, v in variants:
                cls = _class_name(kind, v)
                names.append((kind, cls))
                self.klass(cls, v)
            union = " | ".join(c for _, c in names)
            kinds = "".join(f"    {json.dumps(k)}: {c},\n" for k, c in names)
            self.blocks.append(
                f"{name} = {union}\n\n_{name.upper()}_KINDS: dict[str, Any] = {{\n{kinds}}}\n\n\n"
                f"def _{name}_from_dict(v: Mapping[str, Any]) -> {name}:\n"
                f'    return _{name.upper()}_KINDS[v["kind"]].from_dict(v)'
                "  # type: ignore[no-any-return]\n"
            )
            return
        choices = _choices(s)
        if choices is not None:
            values = ", ".join(json.dumps(c) for c in choices)
            self.blocks.append(f"{name} = Literal[{values}]\n")
            return
        self.klass(name, s)

    def klass(self, name: str, s: dict[str, Any]) -> None:
        fields = []
        for field, ps in s.get("properties", {}).items():
            ann, conv = self.type_of(ps, name, field)
            desc = " ".join(str(ps.get("description", "")).split())
            fields.append((field, ann, conv, desc))
        doc = " ".join(str(s.get("description", name)).split())
        lines = [f"class {name}(Table):"]
        lines += [
            f"    {line}" for line in textwrap.wrap(f'"""{doc}"""', 96, break_long_words=False)
        ]
        if len(fields) == 1:
            lines += ["", f'    __slots__ = ("{fields[0][0]}",)', ""]
        else:
            lines += ["", "    __slots__ = ("]
            lines += [f'        "{field}",' for field, *_ in fields]
            lines += ["    )", ""]
        for field, ann, _conv, desc in fields:
            for line in textwrap.wrap(desc, 94, break_long_words=False):
                lines.append(f"    # {line}")
            lines.append(f"    {field}: {ann}")
        lines += [
            "",
            "    @classmethod",
            f"    def from_dict(cls, d: Mapping[str, Any]) -> {name}:",
            "        t = cls.__new__(cls)",
        ]
        for field, _ann, conv, _desc in fields:
            value = conv.replace("$V", f'd["{field}"]')
            lines.append(f"        t.{field} = {value}")
        lines.append("        return t")
        self.blocks.append("\n".join(lines) + "\n")


def _class_name(kind: str, schema: dict[str, Any]) -> str:
    title = schema.get("title")
    if isinstance(title, str) and title:
        return title
    return f"{kind.capitalize()}AccessConfig" if kind == "wired" else f"{kind.capitalize()}Config"


def generate(schema: dict[str, Any]) -> str:
    """The text of ``_schema.py`` for ``schema`` (``radiotcp._core.config_schema()``)."""
    g = _Gen(schema)
    root = dict(schema)
    root.setdefault("title", "ScenarioConfig")
    g.defs = {**g.defs, root["title"]: root}
    g.define(root["title"])
    body = "\n\n".join(b.rstrip("\n") + "\n" for b in g.blocks)
    return HEAD + "\n" + body.replace("\n\n\n\n", "\n\n\n")


def sync(path: Path, old: str, new: str, *, check: bool, stale: str, written: str) -> int:
    """Write a generated file's ``new`` text over its ``old`` one; with ``check``, write
    nothing and exit 1 (saying ``stale``) if they differ."""
    if new == old:
        if not check:
            print(f"{path}: up to date")
        return 0
    if check:
        print(f"{path}: {stale}", file=sys.stderr)
        return 1
    path.write_text(new, encoding="utf-8")
    print(f"{path}: {written}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m radiotcp.schemagen",
        description="Regenerate python/radiotcp/_schema.py from the core's configuration schema.",
    )
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args(argv)
    from . import _core

    new = generate(json.loads(_core.config_schema()))
    path: Path = args.file
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    return sync(
        path,
        old,
        new,
        check=args.check,
        stale="out of date with the core's configuration schema; run "
        "`python -m radiotcp.schemagen` (make schema) to regenerate it",
        written="regenerated",
    )


if __name__ == "__main__":
    raise SystemExit(main())
