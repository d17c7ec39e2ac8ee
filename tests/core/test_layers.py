"""The house's layers (docs/architecture.md) hold: the import-linter contracts in pyproject.toml pass,
no modules import each other in a circle, no module passes 400 lines; and the contracts really
forbid the upward imports the house once had (each planted into a copy of the code is reported).
"""
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("jaxlab", "compile_lua")
LINT = [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"]

#: upward or sideways imports the house must refuse: (module planted into, module it imports)
PLANTED = (
    ("jaxlab.levels.dmlab.level", "jaxlab.kernels.first_person.env"),     # a level importing a kernel
    ("jaxlab.levels.lab2d.pushbox", "jaxlab.registry"),                   # a level importing the registry
    ("jaxlab.levels.text.textworld_import", "jaxlab.registry"),           # the old text <-> registry circle
    ("jaxlab.levels.dmlab.dmlab30.looks", "jaxlab.render.first_person.textures"),  # a level importing a renderer
    ("jaxlab.bank_checks", "jaxlab.levels.dmlab.level"),                  # core knowing a family
    ("jaxlab.render.grid.frames", "jaxlab.kernels.grid.movement"),        # a renderer importing a kernel
    ("jaxlab.kernels.first_person.env", "jaxlab.registry"),               # a kernel importing the registry
    ("jaxlab.registry.grid", "jaxlab.hosts.lab2d"),                       # the registry importing a host
    ("compile_lua.lab2d.compiler", "jaxlab.hosts.lab2d"),                 # compile_lua importing a host
    ("compile_lua.isolation", "compile_lua.authoring"),                   # the old authoring <-> isolation circle
    ("jaxlab.levels.text.vocab", "jaxlab.levels.lab2d.spec"),             # one family's levels using another's
    ("jaxlab.kernels.text.env", "jaxlab.kernels.grid.env"),               # one family's kernel using another's
    ("jaxlab.render.text.narration", "jaxlab.render.first_person.textures"),  # ... and renderers
)


def run_lint(cwd: Path) -> subprocess.CompletedProcess:
    """lint-imports over the code under ``cwd`` with the pyproject.toml there."""
    return subprocess.run(LINT, cwd=cwd, env={"PYTHONPATH": str(cwd), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=300)


def import_cycles(graph) -> list:
    """The groups of modules that import each other in a circle (strongly connected, 2 or more)."""
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(start):
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    cycles.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return cycles


def test_the_contracts_hold():
    result = run_lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_no_import_circles():
    graph = grimp.build_graph(*PACKAGES)
    assert import_cycles(graph) == []
    graph.add_import(importer="jaxlab.demo.rollout", imported="jaxlab.demo.cli")   # cli -> ... -> rollout
    assert any("jaxlab.demo.rollout" in group for group in import_cycles(graph)), "a planted circle was missed"


def test_no_module_over_400_lines():
    long = {str(p.relative_to(ROOT)): n for package in PACKAGES for p in (ROOT / package).rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400}
    assert long == {}


@pytest.fixture(scope="module")
def planted_report(tmp_path_factory):
    """lint-imports' report on a copy of the code with every import of PLANTED added."""
    copy = tmp_path_factory.mktemp("planted")
    shutil.copy(ROOT / "pyproject.toml", copy)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, copy / package, ignore=shutil.ignore_patterns("__pycache__", "*.lua"))
    for importer, imported in PLANTED:
        path = copy.joinpath(*importer.split("."))
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        path.write_text(path.read_text(encoding="utf-8") + f"\nimport {imported}  # planted\n", encoding="utf-8")
    result = run_lint(copy)
    assert result.returncode != 0
    return " ".join(result.stdout.split())


@pytest.mark.parametrize("importer, imported", PLANTED, ids=[f"{a}->{b}" for a, b in PLANTED])
def test_a_planted_import_is_refused(planted_report, importer, imported):
    assert f"{importer} -> {imported}" in planted_report
