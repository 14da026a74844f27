"""Pages a user reads through stay short enough to read: the README at most 8,000 characters, each
reference page at most 25,000 (past that a page is two topics, and it splits)."""

from __future__ import annotations

import pytest

from kit import ROOT

PAGES = sorted((ROOT / "docs").glob("*.md"))


def test_the_readme_is_short():
    assert len((ROOT / "README.md").read_text(encoding="utf-8")) <= 8_000


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_reference_page_is_at_most_25000_characters(page):
    size = len(page.read_text(encoding="utf-8"))
    assert size <= 25_000, f"{page.name} has {size:,} characters; split a topic into its own page"
