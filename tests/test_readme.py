"""The README and docs/*.md stay true to the code.

Their generated tables are the code's (print one with ``python tests/test_readme.py TABLE``),
every rules option and preset is documented, every relative link leads somewhere, and
every Python example of every page runs.
"""

import dataclasses
import re
import sys
from pathlib import Path

import pytest

from bm_env import PRESETS, Rules, RulesError, card_pretty, make_rules

from bm_env.env.observation import layout, layout_table

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["README.md"] + sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))


def _text(page: str) -> str:
    return (ROOT / page).read_text(encoding="utf-8")


# ---------------------------------------------------------------------- generated tables

#: The named card-value tables a rules option may give (``card_values="spot"``), as docs/rules.md lists them.
VALUE_TABLE_NAMES = ("black_maria", "hearts", "dirty_lady", "slippery_anne", "omnibus", "omnibus_ten_diamonds",
                     "spot", "spot_pip", "hearts_only", "pink_lady", "turbo", "petrone")
DECK_TABLE_NAMES = ("black_maria", "black_maria_26", "american_hearts", "full")


def _value_text(values) -> str:
    """Non-zero card values as runs of consecutive cards of one value: '2♥–A♥ 1, Q♠ 13'."""
    runs, c = [], 0
    while c < 52:
        if not values[c]:
            c += 1
            continue
        end = c
        while end + 1 < 52 and values[end + 1] == values[c] and (end + 1) // 13 == c // 13:
            end += 1
        cards = card_pretty(c) if end == c else f"{card_pretty(c)}–{card_pretty(end)}"
        runs.append(f"{cards} {values[c]}")
        c = end + 1
    return ", ".join(runs)


def value_tables() -> str:
    rows = ["| table | values (cards not named score 0) | total of the positive values |", "|---|---|---:|"]
    for name in VALUE_TABLE_NAMES:
        values = make_rules("black_maria", card_values=name).card_values
        rows.append(f"| `{name}` | {_value_text(values)} | {sum(v for v in values if v > 0)} |")
    return "\n".join(rows)


def deck_tables() -> str:
    counts = range(2, 8)
    rows = ["| deck table | " + " | ".join(f"{n} players" for n in counts) + " |", "|---|" + "---|" * len(counts)]
    for name in DECK_TABLE_NAMES:
        base = make_rules("american_hearts" if name == "full" else "black_maria", deck_table=name,
                          tie_break="all_players")
        cells = []
        for n in counts:
            try:
                removed = sorted(base.removed_cards(n))
            except RulesError:
                cells.append("—")
                continue
            cells.append("full deck" if not removed else "no " + " ".join(card_pretty(c) for c in removed))
        rows.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _option_text(name: str, rules: Rules) -> str:
    """An option's value as one writes it to make_rules: a value table by name, cards and lists as in to_dict()."""
    if name == "card_values":
        return next(f'"{t}"' for t in VALUE_TABLE_NAMES
                    if make_rules("black_maria", card_values=t).card_values == rules.card_values)
    value = rules.to_dict()[name]
    if isinstance(value, list):
        return "[" + ", ".join(f'"{v}"' if isinstance(v, str) else str(v) for v in value) + "]"
    return f'"{value}"' if isinstance(value, str) else str(value)


def preset_options() -> str:
    """What each preset sets, at its default player count, beside the defaults of ``Rules()``."""
    defaults = Rules()
    rows = ["| preset | players: default (allowed) | options beside the defaults of `Rules()` |", "|---|---|---|"]
    for name, preset in PRESETS.items():
        n, allowed = preset.default_players, preset.player_counts
        rules = make_rules(name)
        set_ = [f"{f.name}={_option_text(f.name, rules)}" for f in dataclasses.fields(Rules)
                if getattr(rules, f.name) != getattr(defaults, f.name) and f.name != "num_players"]
        shown = ", ".join(f"`{s}`" for s in set_) if set_ else "none: the defaults are Black Maria for 3 players"
        rows.append(f"| `{name}` | {n} ({', '.join(map(str, allowed))}) | {shown} |")
    return "\n".join(rows)


TABLES = {
    "observation": lambda: layout_table(3),
    "presets": preset_options,
    "values": value_tables,
    "decks": deck_tables,
}


def test_environment_doc_has_the_observation_table_of_the_code():
    assert layout_table(3) in _text("docs/observation.md")


@pytest.mark.parametrize("page,name", [("docs/rules.md", "presets"), ("docs/options.md", "values"),
                                       ("docs/options.md", "decks")])
def test_rules_docs_have_the_generated_tables_of_the_code(page, name):
    assert TABLES[name]() in _text(page), f"{page}: the {name} table differs from the code's " \
                                          f"(python tests/test_readme.py {name})"


def test_rules_docs_name_every_preset_and_every_option():
    doc = _text("docs/rules.md")
    for name in PRESETS:
        assert f"| `{name}`" in doc
    options = _text("docs/options.md").split("## Every option", 1)[1]
    missing = [f.name for f in dataclasses.fields(Rules) if f"`{f.name}`" not in options]
    assert not missing, f"docs/options.md does not document the rules option(s) {missing}"


def _feature_rows() -> dict[str, str]:
    """part -> its cells column, from the table of the parts the extension rule systems add."""
    doc = _text("docs/observation.md").split("## Parts of the extension rule systems", 1)[1]
    rows = {}
    for line in doc.splitlines():
        m = re.match(r"\| `(\w+)` \| ([0-9n+ ]+) \|", line)
        if m:
            rows[m.group(1)] = m.group(2).strip()
    return rows


def test_environment_doc_lists_every_extension_part_with_its_size():
    rows = _feature_rows()
    features = ("two_decks", "kitty", "kitty_to_hand", "scatter", "optional_pass", "moon_choice", "sun",
                "queen_when_safe", "charging", "ten_clubs_multiplier", "booster_nines", "teams")
    for n in range(3, 8):
        base = len(layout(n))
        for feature in features:
            for part, size in layout(n, (feature,))[base:]:
                assert part in rows, f"docs/observation.md does not list the part {part!r} (rules feature {feature})"
                expected = eval(re.sub(r"(\d)n", r"\1*n", rows[part]), {"n": n})
                assert expected == size, f"{part}: docs say {rows[part]} cells, the code has {size} for {n} players"


# ---------------------------------------------------------------------- links

_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _anchors(text: str) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    out = set()
    for line in text.splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


@pytest.mark.parametrize("page", PAGES)
def test_relative_links_lead_somewhere(page):
    text = _text(page)
    for target in _LINK.findall(text):
        if re.match(r"^[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        file = (ROOT / page).parent / path if path else ROOT / page
        assert file.exists(), f"{page}: link {target!r}: no such file"
        if anchor and file.suffix == ".md":
            assert anchor in _anchors(file.read_text(encoding="utf-8")), f"{page}: link {target!r}: no such heading"


# ---------------------------------------------------------------------- examples


def _python_blocks(page: str) -> list[str]:
    blocks, inside, current = [], False, []
    for line in _text(page).splitlines():
        if line.strip() == "```python":
            inside, current = True, []
        elif line.strip() == "```" and inside:
            inside = False
            blocks.append("\n".join(current))
        elif inside:
            current.append(line)
    return blocks


EXAMPLES = [(page, i) for page in PAGES for i in range(len(_python_blocks(page)))]


def test_readme_has_its_examples():
    assert len(_python_blocks("README.md")) >= 3


@pytest.mark.parametrize("page,index", EXAMPLES, ids=[f"{p}:{i}" for p, i in EXAMPLES])
def test_python_example_runs(page, index, monkeypatch):
    monkeypatch.chdir(ROOT)  # the examples name files of the repository (checkpoints/...)
    code = _python_blocks(page)[index]
    if "onnxruntime" in code:  # the export example needs the export extras (not in the oldest-versions run)
        pytest.importorskip("onnxruntime", reason="the export example needs the export extras (pip install 'black-maria[export]')")
    if "bm_env.web" in code:  # the web table's example needs the web extra (not in the fast suite's environment)
        pytest.importorskip("starlette", reason="the web table's example needs the web extra (pip install 'black-maria[web]')")
    exec(compile(code, f"{page} example {index}", "exec"), {"__name__": "doc_example"})


if __name__ == "__main__":
    # python tests/test_readme.py presets|values|decks|observation: print a generated table
    print(TABLES[sys.argv[1]]() if len(sys.argv) > 1 and sys.argv[1] in TABLES else f"tables: {list(TABLES)}")
