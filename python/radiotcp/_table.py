"""The base of the typed scenario classes that ``radiotcp.schemagen`` generates into
``radiotcp._schema``: a table of a resolved scenario with its keys as slotted attributes. Kept
here as ordinary code, so that the generated module holds only what the schema decides.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["Table", "opt", "plain"]


def opt(read: Any, v: Any) -> Any:
    """``read(v)``, or None for None (an optional key left out)."""
    return None if v is None else read(v)


def plain(v: Any) -> Any:
    """``v`` as plain JSON-compatible data (tables as dicts, lists element by element)."""
    if isinstance(v, Table):
        return v.to_dict()
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


class Table:
    """A table of a resolved scenario: its keys as attributes, in declaration order."""

    __slots__: tuple[str, ...] = ()

    def _items(self) -> Iterator[tuple[str, Any]]:
        for k in self.__slots__:
            yield k, getattr(self, k)

    def to_dict(self) -> dict[str, Any]:
        """The table as plain JSON-compatible data, keys in declaration order."""
        return {k: plain(v) for k, v in self._items()}

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self._items())
        return f"{type(self).__name__}({inner})"
