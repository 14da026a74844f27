"""The layers hold: no module imports one of a later layer (:data:`LAYERS`, as ``bm_env``'s docstring
states them), the rules engine runs on numpy and the standard library alone, and nothing below the
policy agent needs torch.

The order is read from the source (every import statement, at a module's top or inside a function,
and every module named in a string); the dependency checks run in a fresh interpreter whose import
system refuses the packages the layer must not use, so a stray import anywhere (a module-level one,
or one at first use) fails here instead of in a user's environment that lacks them.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


# The layers, lowest first: a module may import (at its top or inside a function, or name to importlib) only
# modules of its own layer or of the layers before it. Every module of the package must be in one.
LAYERS = (
    ("bm_env", "bm_env.engine", "bm_env.systems"),  # the rules engine and its rule systems (their faces: FACES); bm_env re-exports it
    ("bm_env.package_data", "bm_env.config"),  # the shipped files, and the typed YAML configs
    ("bm_env.pictures",),  # tables and replays drawn from game records
    ("bm_env.env", "bm_env.black_maria_v0"),  # the PettingZoo environment and its observation
    ("bm_env.vector", "bm_env.soak"),  # the vector engine, and the soak that plays both engines
    ("bm_env.agents",),
    ("bm_env.learner",),  # one learning seat, the others played by agents: the Gymnasium faces
    ("bm_env.evaluation",),
    ("bm_env.training", "bm_env.integrations"),
    ("bm_env.bench",),
    ("bm_env.web",),
    ("bm_env.cli",),
)


# A rule system's faces on the later layers sit in its own package beside its registration
# (bm_env.systems.NAME.tracker, bm_env.systems.NAME.vector), each in the layer of what it serves.
FACES = {"tracker": "bm_env.env", "vector": "bm_env.vector"}


def _layer_of(module: str) -> int:
    parts = module.split(".")
    if len(parts) == 4 and parts[:2] == ["bm_env", "systems"] and parts[3] in FACES:
        return _layer_of(FACES[parts[3]])
    best = None
    for i, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > best[1]):
                best = (i, len(prefix))
    if best is None:
        raise AssertionError(f"{module} is in no layer of LAYERS: place it")
    return best[0]


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted((ROOT / "bm_env").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(module: str, path: Path, known: set[str]) -> set[str]:
    """Every bm_env module ``module`` imports, wherever in its code, and every one it names in a string
    (``importlib.import_module``'s argument, a table of module names)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            out.add(base)
            out |= {f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in known:
            out.add(node.value)
    return {m for m in out if m == "bm_env" or m.startswith("bm_env.")}


def test_every_import_goes_down_the_layers_lazy_or_not():
    modules = _modules()
    known = set(modules)
    upward = []
    for module, path in modules.items():
        mine = _layer_of(module)
        for target in sorted(_imports(module, path, known)):
            if _layer_of(target) > mine:
                upward.append(f"{module} ({LAYERS[mine][0]}) imports {target} ({LAYERS[_layer_of(target)][0]})")
    assert not upward, "imports that go up the layers:\n" + "\n".join(upward)


def test_a_systems_faces_sit_in_the_layers_they_serve():
    assert _layer_of("bm_env.systems.charging") == _layer_of("bm_env.engine")
    assert _layer_of("bm_env.systems.charging.tracker") == _layer_of("bm_env.env")
    assert _layer_of("bm_env.systems.charging.vector") == _layer_of("bm_env.vector")
    assert _layer_of("bm_env.systems.charging.tracker") < _layer_of("bm_env.systems.charging.vector")


def test_the_layer_check_sees_lazy_imports_and_named_modules(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from ..cli import args\n\nTABLE = ('bm_env.training.bench',)\n")
    found = _imports("bm_env.engine.probe", probe, set(_modules()))
    assert {"bm_env.cli.args", "bm_env.training.bench"} <= found

# A meta-path finder, first in line, that raises ImportError for the refused packages.
BLOCKER = """
import sys

class Refuse:
    def __init__(self, allowed):
        self.allowed = allowed
        self.refused = []  # also those whose ImportError some code caught

    def find_spec(self, name, path=None, target=None):
        if not self.allowed(name.partition(".")[0]):
            self.refused.append(name)
            raise ImportError(f"{name} is refused in this layer")
        return None

sys.path.insert(0, ROOT)
"""


def _run(blocker_setup: str, body: str) -> subprocess.CompletedProcess:
    code = f"ROOT = {str(ROOT)!r}\n" + BLOCKER + textwrap.dedent(blocker_setup) + textwrap.dedent(body)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_the_engine_imports_only_numpy_and_the_standard_library():
    done = _run(
        """
        STDLIB = set(sys.stdlib_module_names)
        refuse = Refuse(lambda top: top in STDLIB or top in ("numpy", "bm_env"))
        sys.meta_path.insert(0, refuse)
        """,
        """
        import importlib, pkgutil
        import bm_env, bm_env.engine, bm_env.systems
        names = [m.name for package in (bm_env.engine, bm_env.systems)
                 for m in pkgutil.iter_modules(package.__path__, package.__name__ + ".")]
        for name in names:
            importlib.import_module(name)
        # the engine works, not just imports: a whole match, recorded and replayed
        from bm_env import Match, make_rules, match_record, replay_match
        import numpy as np
        rng = np.random.default_rng(0)
        match = Match(make_rules("black_maria"), rng=0)
        while not match.is_over:
            match.step(int(rng.choice(np.flatnonzero(match.deal.legal_mask()))))
        assert len(replay_match(match_record(match))) == len(match.completed)
        # an attempt whose ImportError was caught still counts for these three (the standard library
        # itself probes for optional modules, e.g. copy for Jython's org.python.core)
        print(len(names), sorted({n for n in refuse.refused if n.partition(".")[0] in ("torch", "pettingzoo", "gymnasium")}))
        """,
    )
    assert done.returncode == 0, done.stderr
    count, refused = done.stdout.split(" ", 1)
    assert int(count) >= 10 and refused.strip() == "[]"


# torch, and what only the trainer or a network brings with it; PettingZoo and Gymnasium stay allowed.
NO_TORCH = """
sys.meta_path.insert(0, Refuse(lambda top: top not in ("torch", "tensorboard")))
"""


def test_import_bm_env_loads_the_engine_only():
    done = _run(NO_TORCH, """
        import bm_env
        heavy = sorted({m.partition(".")[0] for m in sys.modules} & {"torch", "pettingzoo", "gymnasium"})
        print(heavy)
        """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_random_against_the_heuristic_evaluates_without_torch(tmp_path):
    done = _run(NO_TORCH, f"""
        import bm_env.evaluation
        from bm_env import make_rules
        from bm_env.evaluation import evaluate
        result = evaluate(make_rules("black_maria"), ["random", "heuristic", "heuristic"], num_boards=3, workers=1,
                          progress=False)
        assert sorted(a.label for a in result.agents) == ["heuristic", "random"] and result.games == 9
        # the command-line front too, with its report written
        from bm_env.cli.evaluate import main
        assert main(["--agents", "random", "heuristic", "pimc:worlds=2", "--boards", "2", "--workers", "1",
                     "--out", {str(tmp_path / "out")!r}]) == 0
        print("torch" in sys.modules)
        """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False"


def test_the_command_line_tools_start_without_torch():
    """Only bm-train (the trainer's command) needs torch to start; bm-export loads it once its arguments are good."""
    done = _run(NO_TORCH, """
        import importlib, pkgutil
        import bm_env.cli
        for m in pkgutil.iter_modules(bm_env.cli.__path__, "bm_env.cli."):
            if m.name != "bm_env.cli.train":
                importlib.import_module(m.name)
        print("torch" in sys.modules)
        """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_a_policy_agent_says_it_needs_torch_when_it_is_missing():
    done = _run(NO_TORCH, """
        from bm_env import make_rules
        from bm_env.agents import make_agent
        try:
            make_agent("policy:checkpoints/black_maria_3p.pt", make_rules("black_maria"))
        except ImportError as e:
            print("ImportError", e)
        """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ImportError") and "torch" in done.stdout


def test_the_vector_env_with_random_and_rule_based_opponents_runs_without_torch():
    """Only a policy opponent loads torch; the engine alone does not load Gymnasium either."""
    done = _run(NO_TORCH, """
        import numpy as np
        import bm_env.vector
        print("gymnasium" in sys.modules)
        from bm_env.learner import make_vector_env
        for opponents in ("random", "heuristic"):
            env = make_vector_env("black_maria", num_envs=4, opponents=opponents, seed=0)
            obs, info = env.reset()
            for _ in range(25):
                obs, rewards, terminated, truncated, info = env.step(np.argmax(info["action_mask"], axis=1))
        print("torch" in sys.modules)
        """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"]
