"""The project's own shape: the CLI exists and the layering rule of DESIGN.md holds."""

import ast
import pathlib

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
