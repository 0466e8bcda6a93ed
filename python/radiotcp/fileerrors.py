"""Errors of the small pydantic-validated files (sweep specs, recipes, the tour) in the words
scenario errors use: one line per problem, the key, the value as TOML writes it, what is
allowed, the closest known key for an unknown one."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from .config import format_value
from .errors import ConfigError

__all__ = ["file_problems"]


def _num(x: Any) -> str:
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x)


def _problem_from_pydantic(err: Mapping[str, Any]) -> ConfigError:
    raw_loc = list(err["loc"])
    loc = raw_loc
    ctx = err.get("ctx") or {}
    etype = err["type"]
    value = err.get("input")
    if etype == "radiotcp_constraint":
        path = ".".join(str(p) for p in [*loc, ctx["field"]])
        return ConfigError(path, format_value(ctx["value"]), ctx["allowed"])
    path = ".".join(str(p) for p in loc) or "<document>"
    if etype == "extra_forbidden":
        return ConfigError(path, format_value(value), "expected a known key", unknown_key=True)
    if etype in ("union_tag_invalid", "union_tag_not_found"):
        tags = ctx.get("expected_tags") or "'wired', 'umts', 'rlp'"
        got = ctx.get("tag", value.get("kind") if isinstance(value, Mapping) else value)
        return ConfigError(f"{path}.kind", format_value(got), f"one of {tags}")
    simple = {
        "float_type": "a number",
        "float_parsing": "a number",
        "int_type": "an integer",
        "int_parsing": "an integer",
        "int_from_float": "an integer",
        "string_type": "a string",
        "bool_type": "true or false",
        "list_type": "a list",
        "model_type": "a table",
        "model_attributes_type": "a table",
        "dict_type": "a table",
        "finite_number": "a finite number",
    }
    if etype in simple:
        allowed = simple[etype]
    elif etype == "radiotcp_value":
        allowed = ctx["allowed"]
    elif etype == "greater_than":
        allowed = f"a number > {_num(ctx['gt'])}"
    elif etype == "greater_than_equal":
        allowed = f"a number >= {_num(ctx['ge'])}"
    elif etype == "less_than":
        allowed = f"a number < {_num(ctx['lt'])}"
    elif etype == "less_than_equal":
        allowed = f"a number <= {_num(ctx['le'])}"
    elif etype == "literal_error":
        allowed = f"one of {ctx['expected']}"
    elif etype == "string_pattern_mismatch":
        allowed = "a non-empty name of letters, digits, '_' and '-'"
    elif etype == "too_short":
        n = ctx.get("min_length")
        allowed = "at least one link" if path == "links" else f"at least {n} item(s)"
    elif etype == "too_long":
        allowed = f"at most {ctx.get('max_length')} item(s)"
    elif etype == "missing":
        return ConfigError(path, "", "required key is missing")
    else:
        allowed = err.get("msg", etype)
    # Probabilities read better as an interval.
    if loc and str(loc[-1]).endswith("loss_rate") and etype in ("greater_than_equal", "less_than"):
        allowed = "a probability in [0, 1)"
    return ConfigError(path, format_value(value), allowed)


def _problems_from_validation(e: ValidationError) -> list[ConfigError]:
    out: list[ConfigError] = []
    seen: set[str] = set()
    for err in e.errors(include_url=False):
        p = _problem_from_pydantic(err)
        # For `int | None` fields pydantic reports both branches; keep one line per key.
        if p.key in seen:
            continue
        seen.add(p.key)
        out.append(p)
    return out


# Top-level keys of a reproduction recipe (radiotcp.reproduce) that a sweep file never has.
_RECIPE_KEYS = ("sweep", "figures", "report", "recipe")


def file_problems(
    e: ValidationError, model: type[BaseModel], raw: Mapping[str, Any], path: str, what: str
) -> ConfigError:
    """A sweep file's (or any small flat model's) validation errors in the words scenario
    errors use: one line per problem, the key, the value as TOML writes it, what is allowed,
    the closest known key for an unknown one; a recipe given where a sweep file is expected is
    named as such."""
    if what == "sweep" and any(k in raw for k in _RECIPE_KEYS) and "grid" not in raw:
        return ConfigError(
            path or "<sweep>",
            "",
            f"this is a reproduction recipe, not a sweep file: use `radiotcp reproduce {path}`",
        )
    problems: list[ConfigError] = []
    keys = list(model.model_fields)
    for err in e.errors(include_url=False):
        loc = [str(x) for x in err["loc"]]
        etype = err["type"]
        if etype == "extra_forbidden" and len(loc) == 1:
            close = difflib.get_close_matches(loc[0], keys, n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            problems.append(
                ConfigError(
                    loc[0],
                    format_value(err.get("input")),
                    f"{hint}keys of a {what} file: {', '.join(keys)}",
                    unknown_key=True,
                )
            )
            continue
        if etype == "value_error":
            # The model's own checks read "key: what is wrong"; never the whole document.
            msg = str((err.get("ctx") or {}).get("error", err["msg"]))
            key, sep, rest = msg.partition(": ")
            if sep and re.fullmatch(r"[\w.\-]+", key):
                problems.append(ConfigError(key, "", rest))
            else:
                problems.append(ConfigError(".".join(loc) or f"<{what}>", "", msg))
            continue
        p = _problem_from_pydantic(err)
        if etype == "string_pattern_mismatch" and loc == ["name"]:
            p = ConfigError(p.key, p.value, "a name of letters, digits, '_', '-' and '.'")
        elif etype in ("greater_than_equal", "less_than") and isinstance(err.get("input"), int):
            p = ConfigError(p.key, p.value, p.allowed.replace("a number", "an integer"))
        problems.append(p)
    return ConfigError.from_problems(problems)
