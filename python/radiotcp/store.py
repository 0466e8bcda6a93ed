"""Embedded results store: one SQLite file, one row per run, keyed by what determines the run.

Why SQLite (see docs/design.md): it ships with Python, every write is an ACID transaction, and
in WAL mode a process killed at any instant (``kill -9``) leaves the database as of its last
commit, so an interrupted sweep resumes with no lost and no duplicated runs. The store is
written by one process (the sweep driver) and read by any number.

A run's key is the SHA-256 of its fully resolved configuration, seed, run index and the
radiotcp build (`sweep.build_version()`: the release and a fingerprint of the core's source):
the same key always means the same numbers, so a run is never computed twice, and a change of
model code, of version or of any setting is a different run.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_STORE", "RunRecord", "Store", "run_key"]

DEFAULT_STORE = Path("results") / "store.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS configs (
    hash   TEXT PRIMARY KEY,
    config TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    key         TEXT PRIMARY KEY,
    config_hash TEXT NOT NULL REFERENCES configs(hash),
    seed        INTEGER NOT NULL,
    run_index   INTEGER NOT NULL,
    version     TEXT NOT NULL,
    metrics     TEXT NOT NULL,
    wall_time_s REAL NOT NULL,
    created     REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS sweeps (
    name    TEXT PRIMARY KEY,
    spec    TEXT NOT NULL,
    points  INTEGER NOT NULL,
    runs    INTEGER NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS members (
    sweep     TEXT NOT NULL,
    key       TEXT NOT NULL,
    point     INTEGER NOT NULL,
    params    TEXT NOT NULL,
    PRIMARY KEY (sweep, key)
);
"""


def canonical(obj: Any) -> str:
    """Canonical JSON: sorted keys, no spaces; the form hashed into run keys."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=True)


def run_key(config: Mapping[str, Any] | str, seed: int, run_index: int, version: str) -> str:
    """Key of one run: SHA-256 of the canonical JSON of (resolved config, seed, run index,
    version). `config` may be given already in canonical form (`canonical(config)`), which a
    sweep does once per point rather than once per run."""
    cfg = config if isinstance(config, str) else canonical(config)
    rest = f'"run_index":{int(run_index)},"seed":{int(seed)},"version":{json.dumps(version)}'
    doc = f'{{"config":{cfg},{rest}}}'
    return hashlib.sha256(doc.encode()).hexdigest()


@dataclass(frozen=True)
class RunRecord:
    """One stored run as a sweep sees it. The metrics are parsed from their JSON text on first
    use, so reading a large sweep back costs little until its numbers are needed."""

    key: str
    point: int
    params: dict[str, Any]
    seed: int
    run_index: int
    metrics_json: str
    wall_time_s: float

    @cached_property
    def metrics(self) -> dict[str, float]:
        return json.loads(self.metrics_json)


class Store:
    """A results store in one SQLite file (created with its folder on first use)."""

    def __init__(self, path: str | Path = DEFAULT_STORE) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=60.0)
        # WAL: readers never block the writer, and a killed writer loses only its open
        # transaction. synchronous=NORMAL is durable against process death (not power loss).
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        # A checkpoint (the WAL copied into the database) syncs both files: 20-30 ms here,
        # which stalled the sweep's driver, itself one of the pool's workers, each time the WAL
        # reached SQLite's default 4 MB (once in the 720-run wired sweep, just before its end).
        # At 64 MB it happens every 10,000 runs or so, and when the store is closed.
        self._db.execute("PRAGMA wal_autocheckpoint=16384")
        self._db.executescript(_SCHEMA)
        self._db.commit()

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -------------------------------------------------------------------------------

    def register_sweep(self, name: str, spec: Mapping[str, Any], points: int, runs: int) -> None:
        """Record a sweep of ``points`` x ``runs`` runs (its expected count). A sweep stored
        with another ``spec`` loses its members, which are then added as the sweep reaches
        them (:meth:`add_members`); with the same spec (a resumed sweep) they are kept."""
        now = time.time()
        text = canonical(spec)
        old = self._db.execute("SELECT spec FROM sweeps WHERE name = ?", (name,)).fetchone()
        with self._db:
            if old is None or old[0] != text:
                self._db.execute("DELETE FROM members WHERE sweep = ?", (name,))
            self._db.execute(
                "INSERT INTO sweeps(name, spec, points, runs, created, updated)"
                " VALUES (?,?,?,?,?,?)"
                " ON CONFLICT(name) DO UPDATE SET spec=excluded.spec, points=excluded.points,"
                " runs=excluded.runs, updated=excluded.updated",
                (name, text, points, runs, now, now),
            )

    def add_members(
        self,
        sweep: str,
        rows: Iterable[tuple[str, int, Mapping[str, Any]]],
        *,
        replace: bool = True,
    ) -> None:
        """Record run keys (with their point index and parameters) as members of a sweep;
        ``replace``: they are all its members (the others are removed), else they are added."""
        # The runs of a point share one parameters dict: its JSON is made once, found by the
        # dict's id (the dict is kept with it, so that no other object takes the id meanwhile).
        text: dict[int, tuple[Mapping[str, Any], str]] = {}

        def params_json(params: Mapping[str, Any]) -> str:
            got = text.get(id(params))
            if got is None:
                got = text[id(params)] = (params, canonical(dict(params)))
            return got[1]

        with self._db:
            if replace:
                self._db.execute("DELETE FROM members WHERE sweep = ?", (sweep,))
            self._db.executemany(
                "INSERT OR IGNORE INTO members(sweep, key, point, params) VALUES (?,?,?,?)",
                ((sweep, key, point, params_json(params)) for key, point, params in rows),
            )

    def put_config(self, config_json: str) -> str:
        """Store a resolved configuration (JSON text) once; returns its hash."""
        return self.put_configs([config_json])[0]

    def put_configs(self, configs: Iterable[str]) -> list[str]:
        """Store resolved configurations (JSON texts) in one transaction, each once; returns
        their hashes (a sweep stores a batch of points' configurations with one commit, not
        one each)."""
        rows = [(hashlib.sha256(c.encode()).hexdigest(), c) for c in configs]
        with self._db:
            self._db.executemany("INSERT OR IGNORE INTO configs(hash, config) VALUES (?, ?)", rows)
        return [h for h, _ in rows]

    def put_runs(self, rows: Sequence[tuple[str, str, int, int, str, str, float]]) -> None:
        """Store finished runs in one transaction: (key, config_hash, seed, run_index, version,
        metrics as JSON, wall_time_s). A key already present is left as it is."""
        now = time.time()
        with self._db:
            self._db.executemany(
                "INSERT OR IGNORE INTO runs"
                "(key, config_hash, seed, run_index, version, metrics, wall_time_s, created)"
                " VALUES (?,?,?,?,?,?,?,?)",
                ((*row, now) for row in rows),
            )

    def config(self, config_hash: str) -> dict[str, Any] | None:
        row = self._db.execute("SELECT config FROM configs WHERE hash = ?", (config_hash,))
        found = row.fetchone()
        return json.loads(found[0]) if found else None

    # -- reading -------------------------------------------------------------------------------

    def existing(self, keys: Iterable[str]) -> set[str]:
        """The subset of `keys` already stored."""
        keys = list(keys)
        found: set[str] = set()
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            q = f"SELECT key FROM runs WHERE key IN ({','.join('?' * len(chunk))})"
            found.update(k for (k,) in self._db.execute(q, chunk))
        return found

    def run_results(self, keys: Iterable[str]) -> dict[str, tuple[str, float]]:
        """The stored runs among `keys`: key -> (metrics as JSON, wall_time_s)."""
        keys = list(keys)
        found: dict[str, tuple[str, float]] = {}
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            q = (
                "SELECT key, metrics, wall_time_s FROM runs"
                f" WHERE key IN ({','.join('?' * len(chunk))})"
            )
            found.update((k, (m, w)) for k, m, w in self._db.execute(q, chunk))
        return found

    def run_times(self) -> dict[str, float]:
        """The mean simulation wall time of the stored runs of each configuration (by its
        hash, whatever the build): what a run of it is expected to cost."""
        q = "SELECT config_hash, AVG(wall_time_s) FROM runs GROUP BY config_hash"
        return {h: float(w) for h, w in self._db.execute(q)}

    def sweeps(self) -> list[dict[str, Any]]:
        """Every sweep with its expected (points x runs) and stored run counts."""
        q = (
            "SELECT s.name, s.points, s.runs, s.updated,"
            " (SELECT COUNT(*) FROM members m JOIN runs r ON r.key = m.key"
            "  WHERE m.sweep = s.name) AS done,"
            " s.points * s.runs AS expected"
            " FROM sweeps s ORDER BY s.name"
        )
        cols = ["name", "points", "runs", "updated", "done", "expected"]
        return [dict(zip(cols, row, strict=True)) for row in self._db.execute(q)]

    def sweep_spec(self, name: str) -> dict[str, Any] | None:
        row = self._db.execute("SELECT spec FROM sweeps WHERE name = ?", (name,)).fetchone()
        return json.loads(row[0]) if row else None

    def sweep_runs(self, name: str) -> Iterator[RunRecord]:
        """Stored runs of a sweep, by point then run index."""
        q = (
            "SELECT m.key, m.point, m.params, r.seed, r.run_index, r.metrics, r.wall_time_s"
            " FROM members m JOIN runs r ON r.key = m.key WHERE m.sweep = ?"
            " ORDER BY m.point, r.run_index"
        )
        parsed: dict[str, dict[str, Any]] = {}  # the parameters repeat for every run of a point
        for key, point, params, seed, idx, metrics, wall in self._db.execute(q, (name,)):
            p = parsed.get(params)
            if p is None:
                p = parsed[params] = json.loads(params)
            yield RunRecord(key, point, p, seed, idx, metrics, wall)

    def count_runs(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM runs").fetchone()[0])
