"""The project's own shape: the CLI exists and the import map of DESIGN.md holds."""

import ast
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _imports(package: str) -> set[str]:
    found: set[str] = set()
    for path in (ROOT / package).rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module.split(".")[0])
    return found


def test_game_imports_no_other_project_package():
    assert not _imports("game") & {"audio", "server", "asyncio", "socket"}


def test_audio_imports_neither_game_nor_server():
    assert not _imports("audio") & {"game", "server", "socket"}


def test_cli_has_serve_and_simulate():
    from sussurro.cli import main

    try:
        main(["--help"])
    except SystemExit as exc:
        assert exc.code == 0


def _lint_imports(config: pathlib.Path) -> subprocess.CompletedProcess[str]:
    exe = pathlib.Path(sys.executable).with_name("lint-imports")
    return subprocess.run([str(exe), "--no-cache", str(config)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_the_import_map_in_pyproject_holds():
    """docs/architecture.md's map, as import-linter contracts (pyproject.toml): every
    package imports only the layers below it, and the server never the client."""
    run = _lint_imports(ROOT / "pyproject.toml")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def test_the_import_map_sees_the_real_imports(tmp_path):
    """The same check with the server put under the core must break: the linter reads
    the project's real imports, so a map that does not match them fails."""
    upside_down = tmp_path / "importlinter.toml"
    upside_down.write_text(
        '[tool.importlinter]\nroot_packages = ["game", "server"]\n\n'
        '[[tool.importlinter.contracts]]\nid = "upside-down"\nname = "upside down"\n'
        'type = "layers"\nlayers = ["game", "server"]\n')
    run = _lint_imports(upside_down)
    assert run.returncode != 0
    assert "server" in run.stdout and "game" in run.stdout and "BROKEN" in run.stdout


CLASS_LIMIT = 300  # DESIGN.md, "Inside the shell": a class fits in one head
CLASS_PACKAGES = ("game", "audio", "server", "client", "sussurro")


def test_a_class_fits_in_one_head():
    """DESIGN.md: "A class fits in one head (about 300 lines at most)". Every class of
    the project's packages, docstring and comments included, is at most that long."""
    too_long = []
    for package in CLASS_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    lines = node.end_lineno - node.lineno + 1
                    if lines > CLASS_LIMIT:
                        where = path.relative_to(ROOT).as_posix()
                        too_long.append(f"{where}:{node.lineno} {node.name} ({lines} lines)")
    assert not too_long, "classes over the limit:\n" + "\n".join(too_long)
