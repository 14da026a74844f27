"""Print ``name==floor`` for every core and test dependency of pyproject.toml, one a line.

The oldest-versions environment (scripts/setup_oldest_env.sh) installs exactly these, so it
tests the floors pyproject.toml declares and follows them when they change. A dependency
without a ``>=`` floor is an error: it would leave the oldest run free to take any version.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

_FLOOR = re.compile(r"^\s*([A-Za-z0-9._-]+)\s*(?:\[[^\]]*\])?\s*[^;]*?>=\s*([0-9][^,;\s]*)")


def floor_pins(pyproject: Path) -> list[str]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    pins = []
    for requirement in project["dependencies"] + project["optional-dependencies"]["test"]:
        match = _FLOOR.match(requirement)
        if match is None:
            raise SystemExit(f"{pyproject}: {requirement!r} has no '>=' floor; give every dependency one")
        pins.append(f"{match.group(1)}=={match.group(2)}")
    return pins


if __name__ == "__main__":
    root = Path(__file__).resolve().parents[1]
    print("\n".join(floor_pins(root / "pyproject.toml")))
