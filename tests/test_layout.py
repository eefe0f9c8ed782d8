"""The house's layout holds: layers import downwards only, titles are named in one place,
and hardware libraries are imported only where a part is opened."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

from pitable.rules import Title

PACKAGE = Path(__file__).resolve().parent.parent / "pitable"

#: What each part of the package may import from the rest of it (docs/architecture.md): a
#: part (``hw``), or one module of a part (``hw.chips``).
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "pins": set(),
    "xdg": set(),
    "i18n": {"errors", "xdg"},
    "rules": {"errors"},
    # How a key is declared, and the parts declared once, below the config that reads them.
    "settings": {"pins"},
    "wiring": {"pins", "settings"},
    # The config checks its tables against the chips' facts, which import nothing.
    "config": {"errors", "pins", "i18n", "xdg", "hw.chips", "settings", "wiring"},
    "firmware": {"errors", "pins", "config", "wiring"},
    # Drivers take plain arguments: the box turns the config into them.
    "hw": {"errors", "pins"},
    "render": {"errors", "pins", "config", "settings", "wiring", "firmware", "rules", "i18n"},
    "doctor": {"errors", "pins", "config", "settings", "wiring", "firmware", "hw"},
    "web": {"errors", "pins", "config", "settings", "wiring", "rules", "hw", "i18n"},
    "box": {"errors", "pins", "config", "settings", "wiring", "firmware", "rules", "hw",
            "render", "web", "i18n", "xdg"},
    "commands": {"errors", "pins", "config", "settings", "wiring", "firmware", "rules", "hw",
                 "render", "box", "doctor", "web", "i18n", "xdg"},
    "cli": {"errors"},
    "__main__": {"cli"},
    "__init__": set(),
}

#: Libraries that talk to hardware: imported inside the function that opens a part, never
#: at a module's top, so that the rules, the drawing and the fast commands work without them.
HARDWARE_LIBRARIES = ("gpiozero", "luma", "serial", "smbus2", "lgpio", "RPi")


def modules() -> dict[str, Path]:
    """Every module of the package by its name below ``pitable``: ``box.controller``."""
    return {
        ".".join(path.relative_to(PACKAGE).with_suffix("").parts): path
        for path in sorted(PACKAGE.rglob("*.py"))
    }


#: Imports a part makes for its annotations only (under ``if TYPE_CHECKING:``), of a layer
#: above it that imports it at run time: the parts' registry is read by the config whose
#: tables its functions take.
TYPES_ONLY: dict[str, set[str]] = {"wiring": {"config"}}


def type_checking_blocks(tree: ast.AST) -> set[ast.AST]:
    """The imports under ``if TYPE_CHECKING:`` in ``tree``."""
    return {
        inner
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test) in {"TYPE_CHECKING",
                                                                    "typing.TYPE_CHECKING"}
        for stmt in node.body
        for inner in ast.walk(stmt)
    }


def imported(tree: ast.AST, skip: set[ast.AST] | None = None) -> list[tuple[str, int]]:
    """Every module named by an import in ``tree``, with its line (but those in ``skip``)."""
    names = []
    for node in ast.walk(tree):
        if skip and node in skip:
            continue
        if isinstance(node, ast.Import):
            names += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append((node.module, node.lineno))
    return names


def part_of(module: str) -> str:
    return module.split(".", maxsplit=1)[0]


def may_import(allowed: set[str], name: str) -> bool:
    """Whether a module allowed ``allowed`` may import ``pitable.<name>``."""
    return part_of(name) in allowed or any(
        name == module or name.startswith(f"{module}.") for module in allowed
    )


@pytest.mark.parametrize("module", modules())
def test_a_module_imports_only_the_layers_below_it(module: str) -> None:
    path = modules()[module]
    part = part_of(module)
    allowed = ALLOWED[part] | {part}
    tree = ast.parse(path.read_text())
    types_only = type_checking_blocks(tree)
    wrong = [
        f"{path.name}:{line} imports {name}"
        for name, line in imported(tree, types_only)
        if name.startswith("pitable.") and not may_import(allowed, name.removeprefix("pitable."))
    ] + [
        f"{path.name}:{line} imports {name} for its types"
        for name, line in set(imported(tree)) - set(imported(tree, types_only))
        if name.startswith("pitable.") and not may_import(
            allowed | TYPES_ONLY.get(part, set()), name.removeprefix("pitable."))
    ]
    assert wrong == []


def test_the_drivers_do_not_import_the_config() -> None:
    """Drivers take plain arguments, as luma's and python-escpos's do; the box converts its
    config's tables into them."""
    wrong = [
        f"{path.name}:{line} imports {name}"
        for module, path in modules().items() if part_of(module) == "hw"
        for name, line in imported(ast.parse(path.read_text()))
        if name == "pitable.config" or name.startswith("pitable.config.")
    ]
    assert wrong == []


def test_the_chips_facts_import_only_the_standard_library() -> None:
    """The config, which every command imports, reads them: they must cost nothing."""
    path = modules()["hw.chips"]
    names = [name for name, _ in imported(ast.parse(path.read_text()))]
    assert [n for n in names if n.split(".")[0] not in sys.stdlib_module_names] == []


@pytest.mark.parametrize("module", modules())
def test_hardware_libraries_are_imported_only_where_a_part_is_opened(module: str) -> None:
    tree = ast.parse(modules()[module].read_text())
    top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    at_top = [name for name, _ in imported(ast.Module(body=top, type_ignores=[]))]
    assert [n for n in at_top if n.split(".")[0] in HARDWARE_LIBRARIES] == []


def test_the_rules_import_only_the_standard_library() -> None:
    for module, path in modules().items():
        if part_of(module) != "rules":
            continue
        for name, line in imported(ast.parse(path.read_text())):
            top = name.split(".")[0]
            assert top in sys.stdlib_module_names or name.startswith(
                ("pitable.rules", "pitable.errors")
            ), f"{path.name}:{line} imports {name}"


def test_a_title_is_named_only_in_its_own_folder(title: Title) -> None:
    """No module outside a title's package names the title (the toy title of tests/ has
    none: nothing in pitable/ names it)."""
    titles = PACKAGE / "rules" / "titles"
    quoted = re.compile(rf"[\"']{re.escape(title.key)}[\"']")
    outside = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in PACKAGE.rglob("*.py")
        if titles not in path.parents
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if quoted.search(line)
    ]
    assert outside == []


def test_a_break_of_the_layers_would_be_seen() -> None:
    """The checks above read real imports: a module of the rules that imported the box
    would be reported, not passed over."""
    tree = ast.parse("from pitable.box.controller import Box\nimport gpiozero\n")
    names = [name for name, _ in imported(tree)]
    assert names == ["pitable.box.controller", "gpiozero"]
    assert part_of("box.controller") not in ALLOWED["rules"]


TESTS = Path(__file__).resolve().parent


def imports_of_test_modules(folder: Path = TESTS) -> list[str]:
    """Every ``import`` of a test module (tests/test_*.py) found under ``folder``."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        if "golden" in path.relative_to(folder).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else [
                    f"{node.module or ''}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                if any(part.startswith("test_") for part in name.split(".")):
                    found.append(f"{path.relative_to(folder)}:{node.lineno} imports {name}")
    return found


def test_no_test_module_imports_another() -> None:
    """Shared helpers live in tests/support (or conftest.py's fixtures), so that each test
    file is read, run and changed alone."""
    assert imports_of_test_modules() == []
