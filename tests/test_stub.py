"""The type stub of the compiled binding (python/radiotcp/_core.pyi) against the extension as
built: every function, class, parameter and default the binding exports (mypy.stubtest).
Nothing is allowlisted: stubtest judges every name of the module."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import radiotcp


def test_the_stub_matches_the_built_binding(tmp_path):
    package_root = Path(radiotcp.__file__).resolve().parents[1]
    path = [str(package_root), os.environ.get("PYTHONPATH", "")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in path if p))
    # In a directory of its own: mypy's cache goes there, not into the checkout.
    r = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "radiotcp._core"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Success" in r.stdout
