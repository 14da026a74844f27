"""The product speaks of what it is, not of how it was made: no commit hashes, dates, session
or issue words, and no "target" in the sense of a bar someone set, in the docs, the model
cards, the configs, or the code's comments and docstrings. Git keeps the history."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: What is read: every page, card and config, and every Python file of the package, the
#: scripts and the examples (comments and docstrings included: the whole text).
FILES = sorted({*ROOT.glob("README.md"), *ROOT.glob("docs/**/*.md"), *ROOT.glob("checkpoints/*.md"),
                *ROOT.glob("configs/*.yaml"), *ROOT.glob("bm_env/**/*.py"), *ROOT.glob("bm_env/**/*.md"),
                *ROOT.glob("scripts/*"), *ROOT.glob("examples/*.py")})

WORDS = {
    # seven or more hex digits with a letter and a digit among them, as a commit is named
    "a commit hash": re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b"),
    "a date": re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b"),
    "a session": re.compile(r"\bsessions?\b(?!\s*[=.(\[])", re.IGNORECASE),
    "an issue": re.compile(r"\bissue(?:s|'s)?(?:[- ]#?\d+)?\b", re.IGNORECASE),
    "a target as a bar": re.compile(r"\btargets? (?:is|are|was|were)(?: not)? (?:met|missed|reached|those)"
                                    r"|\btarget (?:≥|>=|>)|\(target[ :]|\btarget: |\btarget \(|\b(?:meets?|met|missed|misses|"
                                    r"reach(?:es)?) the(?: \w+)? target|\bthe target is\b", re.IGNORECASE),
}


def _hits(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8", errors="replace")
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        for what, pattern in WORDS.items():
            m = pattern.search(line)
            if m:
                out.append(f"{path.relative_to(ROOT)}:{n}: {what}: {m.group(0)!r} in {line.strip()[:100]!r}")
    return out


def test_the_files_read_are_the_product():
    names = {p.relative_to(ROOT).as_posix() for p in FILES}
    assert "README.md" in names and "docs/agents.md" in names and "bm_env/env/aec.py" in names
    assert any(n.startswith("configs/") for n in names) and any(n.startswith("checkpoints/") for n in names)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_history_words(path):
    hits = _hits(path)
    assert not hits, "project history in the product (git keeps it):\n" + "\n".join(hits)


@pytest.mark.parametrize("line,what", [
    ("at commit 3c4f692 the search", "a commit hash"), ("on 2026-11-27 it ran", "a date"),
    ("in the next session", "a session"), ("issue 11 asks for it", "an issue"), ("the issue's table", "an issue"),
    ("target ≥ 40,000", "a target as a bar"), ("the target is met", "a target as a bar"),
    ("it meets the pimc target", "a target as a bar"), ("(target +2.5)", "a target as a bar"),
])
def test_each_kind_is_caught(tmp_path, line, what):
    page = tmp_path / "page.md"
    page.write_text(f"text\n{line}\n", encoding="utf-8")
    assert WORDS[what].search(line)


@pytest.mark.parametrize("line", ["GAE targets of the value loss", "the targets of one rollout", "bf16 units",
                                  "deadbeef", "1000000000 decisions", "target_kl", "the action's target seat"])
def test_words_of_the_trade_are_not_history(line):
    assert not any(p.search(line) for p in WORDS.values())
