"""`pip install .` (not editable) gives a working hlo-lsp that finds its grammars in the wheel, and one version,
pyproject.toml's, is the package's and the VS Code extension's."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

from helpers import SPLIT_MLP, pyproject_version

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_ships_the_grammars_and_checks_a_dump(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path), str(ROOT)],
                   check=True, capture_output=True)
    version = pyproject_version()
    wheel = next(tmp_path.glob("hlo_lsp-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert {"hlo_lsp/grammar/hlo.lark", "hlo_lsp/grammar/buffer_assignment.lark",
            "hlo_lsp/grammar/memory_report.lark", "hlo_lsp/grammar/common.lark", "hlo_lsp/grammar/hlo.tables",
            f"hlo_lsp-{version}.dist-info/licenses/LICENSE"} <= set(names)
    target = tmp_path / "installed"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target),
                    str(wheel)], check=True, capture_output=True)
    # Run from elsewhere with only the installed copy importable: the repository's grammar/
    # folder is out of reach, so the grammars must come from the wheel.
    result = subprocess.run(
        [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); from hlo_lsp.cli import main; "
         "import hlo_lsp; assert hlo_lsp.__file__.startswith(sys.argv[1]); sys.exit(main(sys.argv[2:]))",
         str(target), "check", str(SPLIT_MLP) + ".txt"],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "0 error(s), 0 warning(s)" in result.stderr
    # The installed copy loads its HLO parser from the shipped tables, not by analysing the grammar.
    result = subprocess.run(
        [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
         "from hlo_lsp.parsing.grammars import _loaded_hlo_parser; assert _loaded_hlo_parser(None) is not None",
         str(target)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    # Its version is read from the installed package's metadata.
    result = subprocess.run(
        [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); from hlo_lsp.cli import main; "
         "sys.exit(main(['--version']))", str(target)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert (result.returncode, result.stdout) == (0, f"hlo-lsp {version}\n"), result.stderr


def test_the_vscode_extension_has_the_python_packages_version() -> None:
    extension = ROOT / "editors" / "vscode"
    package = json.loads((extension / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((extension / "package-lock.json").read_text(encoding="utf-8"))
    version = pyproject_version()
    assert package["version"] == version
    assert (lock["version"], lock["packages"][""]["version"]) == (version, version)
