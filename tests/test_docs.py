"""The README and the pages of docs/: every command they show runs as written, every output
they show is what the command prints, the settings page is what the settings say, every
link leads to a file of this repository, and the README stays a short front door."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = (README, *sorted((ROOT / "docs").glob("*.md")))

#: The settings page's generated part starts below this line (scripts/config-page).
CONFIG_MARKER = "<!-- Everything below is written by scripts/config-page from the settings. -->"

#: Commands of the pages that another test runs, because they need what a test of this
#: module cannot give them (a fake pip and a copy of the tree, a terminal, a root file
#: system, a printer on loopback, OpenSCAD): the command, and the test that runs it.
RUN_ELSEWHERE = {
    "scripts/sim": "tests/test_scripts.py::test_sim_says_each_step_of_its_first_run_then_names"
                   "_the_files_it_wrote",
    "scripts/test": "tests/test_scripts.py::test_test_says_each_step_then_runs_the_checks_and_is"
                    "_silent_once_set_up",
    "scripts/test --all": "tests/test_scripts.py::test_test_says_each_step_then_runs_the_checks"
                          "_and_is_silent_once_set_up",
    "scripts/test -q tests/test_rules_rolls.py": "tests/test_scripts.py::test_test_says_each_step"
                                                 "_then_runs_the_checks_and_is_silent_once_set_up",
    "scripts/translations": "tests/test_i18n.py::test_updating_the_catalogues_of_an_unchanged"
                            "_tree_changes_nothing",
    "scripts/translations --check": "tests/test_i18n.py::test_a_template_behind_the_source_fails"
                                    "_the_check",
    "openscad -D 'part=\"base\"' -o base.stl enclosure/pitable.scad":
        "tests/test_enclosure.py::test_the_base_is_closed_fits_the_bed_and_has_its_two_wall"
        "_openings",
    "openscad -D 'part=\"lid\"' -o lid.stl enclosure/pitable.scad":
        "tests/test_enclosure.py::test_the_lid_is_closed_fits_the_bed_and_has_every_cut_out",
    "sudo ./install.sh": "tests/test_install.py::test_first_run_installs_everything_and_asks_for"
                         "_a_reboot",
    "sudo pitable doctor": "tests/test_doctor.py::test_a_well_wired_box_passes_every_check",
    "pitable run": "tests/test_cli_box.py::test_run_off_the_pi_says_what_is_missing_in_one_line",
    "pitable sim": "tests/test_sim_terminal.py::test_pitable_sim_live_in_an_80x24_pty_rolls_and"
                   "_fits",
    "pitable sim --web 127.0.0.1:8080 --pin 1234":
        "tests/test_sim_terminal.py::test_the_web_pages_address_and_pin_stay_below_the_faceplate",
    # The tests bind 127.0.0.1 only: the same script's shape, served there on a free port.
    "pitable sim --script wait30000,press,wait30000 --web 0.0.0.0:8080":
        "tests/test_web_cli.py::test_sim_serves_the_roll_of_its_script_as_options_says_it",
    # Live in the terminal, and bots on the page: the same bots, with a script's rolls.
    "pitable sim --web 127.0.0.1:8080 --pin 1234 --players 3":
        "tests/test_web_cli.py::test_sim_seats_bot_players_who_play_every_roll",
    "pitable print temple --seed 7 --copies 6":
        "tests/test_sheet_cli.py::test_print_to_the_loopback_port_of_the_readme_completes",
}

#: Commands that only the Pi (systemd) or CI (root, debootstrap and qemu) can run.
ON_THE_PI_OR_IN_CI = {
    "sudo systemctl stop pitable": "the Pi's service manager",
    "sudo systemctl start pitable": "the Pi's service manager",
    "sudo scripts/pi-check": ".ci/run, as root with debootstrap and qemu-user-static",
}

#: Commands run here in another form: what is run, and why.
RUN_AS = {
    # A stale page must fail the tests, not be written over by them.
    "scripts/config-page": "scripts/config-page --check",
}

#: Commands too slow for the quick set: run by the slow test below.
SLOW = {
    "pitable bot valley --seed 7 --games 100",
    "scripts/sheet-pictures",
}

#: A benchmark's smallest run: the command as written with these arguments after it, so
#: that its module, its arguments and its report are checked without its minutes.
BENCHMARK_SIZES = {
    "bench_startup": "--runs 2",
    "bench_dice": "--rolls 2000",
    "bench_box": "--rolls 20 --slow-rolls 2",
    "bench_store": "--rolls 20",
    "bench_score": "--runs 1",
    "bench_printer": "--seeds 1",
    "bench_web": "--clients 4 --rolls 3 --slow 6 --interval-ms 100",
    "bench_soak": "--presses 1000",
    "bench_bot": "--games 2",
    "bench_maps": "--maps 2 --games 1 --recheck 1 --recheck-games 1",
    "bench_phones": "--players 3 --rolls 2 --baseline-rolls 1 --interval-s 1 --think-s 0.5",
}

#: What a command run here must print, where the page says so beside it.
SAYS = {
    "pitable level valley 112 --snakes 5": "Explorer",
    "pitable score valley --sheet tests/golden/scoring/valley_henri.txt --solo": "58",
}


def code_blocks(text: str, *langs: str) -> list[tuple[str, str]]:
    """Each fenced block of ``text`` in one of ``langs``: (its language, its body)."""
    pattern = r"^```(" + "|".join(langs) + r")\n(.*?)^```"
    return [(lang, body) for lang, body in re.findall(pattern, text, re.M | re.S)]


def examples(text: str) -> list[tuple[str, str | None]]:
    """Each command of a page's ```sh and ```console blocks, in order, with what the page
    shows it printing (a console block's lines after it), or None."""
    found: list[tuple[str, str | None]] = []
    for lang, body in code_blocks(text, "sh", "console"):
        lines = body.replace("\\\n", "").splitlines(keepends=True)
        if lang == "console":
            for i, line in enumerate(lines):
                if line.startswith("$ "):
                    end = next((j for j in range(i + 1, len(lines))
                                if lines[j].startswith("$ ")), len(lines))
                    found.append((line[2:].rstrip("\n"), "".join(lines[i + 1:end])))
        else:
            for line in lines:
                if line.strip() and not line.startswith("#"):
                    found.append((re.sub(r"\s+#\s.*$", "", line.rstrip("\n")), None))
    return found


def benchmark(command: str) -> str | None:
    found = re.search(r"benchmarks[./](bench_\w+)", command)
    return found.group(1) if found else None


def scratch(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A directory to run a page's commands in, as a reader would in the source: its
    inputs linked from the tree, its outputs its own; and the environment for them."""
    work = tmp_path / "work"
    work.mkdir()
    for name in (".venv", "tests", "enclosure", "benchmarks"):
        (work / name).symlink_to(ROOT / name)
    (work / "docs").mkdir()
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["PATH"] = os.pathsep.join([str(ROOT / ".venv/bin"), env.get("PATH", "")])
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    env["PITABLE_BACKENDS"] = "sim"
    return work, env


def run(command: str, work: Path, env: dict[str, str],
        timeout: float = 600) -> subprocess.CompletedProcess[str]:
    if command.startswith("scripts/"):
        command = f"{shlex.quote(str(ROOT))}/{command}"
    return subprocess.run(["bash", "-e", "-c", command], cwd=work, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)


def page_id(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def needs_venv() -> None:
    if not (ROOT / ".venv/bin/pitable").exists():
        pytest.skip("no .venv beside the source: run scripts/sim or scripts/test first")


# --- the front door ----------------------------------------------------------------------


def test_the_readme_is_a_front_door_under_8_kb() -> None:
    text = README.read_text()
    assert len(text.encode()) < 8 * 1024
    for said in ("scripts/sim", "scripts/test", ".ci/run"):
        assert said in text
    for page in PAGES[1:]:
        assert f"](docs/{page.name})" in text or page.name == "README.md", page.name


def test_every_link_of_the_pages_leads_to_a_file_of_the_repository() -> None:
    wrong = []
    for page in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            if re.match(r"[a-z]+:", target):
                continue
            path = target.split("#", 1)[0]
            if path and not (page.parent / path).resolve().is_relative_to(ROOT):
                wrong.append(f"{page_id(page)}: {target} is outside the repository")
            elif path and not (page.parent / path).exists():
                wrong.append(f"{page_id(page)}: {target} does not exist")
    assert wrong == []


def test_every_anchor_of_a_link_names_a_heading_of_its_page() -> None:
    def anchors(page: Path) -> set[str]:
        return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
                for h in re.findall(r"^#+ (.*)$", page.read_text(), re.M)}

    wrong = []
    for page in PAGES:
        for path, anchor in re.findall(r"\]\(([^)\s#]*)#([^)\s]+)\)", page.read_text()):
            target = (page.parent / path) if path else page
            if anchor not in anchors(target):
                wrong.append(f"{page_id(page)}: #{anchor} in {path or page.name}")
    assert wrong == []


def test_no_page_names_a_repository_the_reader_does_not_have() -> None:
    for page in (*PAGES, ROOT / "enclosure/BOM.md"):
        text = page.read_text()
        assert "../shared" not in text and "shared/" not in text, page_id(page)
        assert "steering" not in text, page_id(page)


def test_the_license_is_mit_and_the_package_says_so() -> None:
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n")
    assert "Copyright (c) 2026 the pitable authors" in text
    assert "THE SOFTWARE IS PROVIDED \"AS IS\"" in text
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]


# --- the settings page ---------------------------------------------------------------------


def test_the_configuration_page_is_what_the_settings_say() -> None:
    from pitable.config import to_markdown

    page = (ROOT / "docs/configuration.md").read_text()
    assert CONFIG_MARKER in page
    written = page.split(CONFIG_MARKER + "\n", 1)[1]
    stale = "docs/configuration.md is stale: run scripts/config-page"
    assert written == "\n" + to_markdown(), stale


def test_the_configuration_page_names_every_key_of_the_file() -> None:
    from dataclasses import fields

    from pitable.config import DEFAULTS, SECTIONS, DisplayConfig, table_fields

    page = (ROOT / "docs/configuration.md").read_text()
    for name, cls in SECTIONS.items():
        assert f"### [{name}]" in page
        keys = table_fields(DisplayConfig if name == "displays" else cls)
        for key in keys:
            assert f"| `{key.name}` |" in page, f"{name}.{key.name}"
    assert len(fields(DEFAULTS)) == len(SECTIONS)


def test_the_reference_tells_a_changed_doc_from_the_pages() -> None:
    from dataclasses import replace

    from pitable.config import DEFAULTS, to_markdown

    changed = replace(DEFAULTS, button=replace(DEFAULTS.button, pin=27))
    assert "| `pin` | `27` |" in to_markdown(changed)
    assert "| `pin` | `27` |" not in to_markdown()


def test_every_toml_example_of_the_pages_is_a_config_the_box_takes(tmp_path: Path) -> None:
    from pitable.config import load_config

    seen = 0
    for page in PAGES:
        for _, body in code_blocks(page.read_text(), "toml"):
            path = tmp_path / "pitable.toml"
            path.write_text(body)
            load_config(path)
            seen += 1
    assert seen >= 2


# --- the commands ----------------------------------------------------------------------------


def all_examples() -> list[tuple[Path, str, str | None]]:
    return [(page, command, shown) for page in PAGES
            for command, shown in examples(page.read_text())]


def test_the_pages_show_commands_in_fenced_blocks_only() -> None:
    """An indented command would escape the tests below: the pages fence every one."""
    for page in PAGES:
        for line in page.read_text().splitlines():
            assert not re.match(r"^ {4}(\$ )?(sudo |pitable |scripts/|\.venv/|openscad )", line), (
                f"{page_id(page)}: {line.strip()}")


def test_every_command_of_the_pages_is_run_by_a_test() -> None:
    commands = {command for _, command, _ in all_examples()}
    assert len(commands) > 40
    for command in commands:
        if command in RUN_ELSEWHERE:
            path, name = RUN_ELSEWHERE[command].split("::")
            assert f"def {name}(" in (ROOT / path).read_text(), RUN_ELSEWHERE[command]
    # Each table names only commands the pages still show.
    for table in (RUN_ELSEWHERE, ON_THE_PI_OR_IN_CI, RUN_AS, SAYS):
        assert set(table) <= commands, set(table) - commands
    assert commands >= SLOW
    assert {benchmark(c) for c in commands} - {None} == set(BENCHMARK_SIZES)


def runs_here(command: str) -> bool:
    return not (command in RUN_ELSEWHERE or command in ON_THE_PI_OR_IN_CI
                or command in SLOW or benchmark(command))


def check_command(command: str, shown: str | None, work: Path, env: dict[str, str],
                  page: Path) -> None:
    result = run(RUN_AS.get(command, command), work, env)
    where = f"{page_id(page)}: {command}"
    assert result.returncode == 0, f"{where}\n{result.stderr}"
    assert "Traceback" not in result.stderr, where
    if command in SAYS:
        assert SAYS[command] in result.stdout, where
    if shown is None:
        return
    if command.startswith("pitable roll"):
        # Random: the same shape, one roll a line.
        count = int(command.split("--count ")[1])
        assert len(result.stdout.splitlines()) == count == len(shown.splitlines()), where
        assert all(re.fullmatch(r"[1-5*],[1-5*],[1-5*]", line)
                   for line in result.stdout.splitlines()), where
    else:
        assert result.stdout == shown, where


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_the_pages_commands_run_as_written(page: Path, tmp_path: Path) -> None:
    """In the order the page gives them, in one directory, as a reader would paste them."""
    needs_venv()
    work, env = scratch(tmp_path)
    for command, shown in examples(page.read_text()):
        if runs_here(command):
            check_command(command, shown, work, env, page)


def test_the_first_readme_example_activates_the_venv_and_asks_pitable() -> None:
    shown = [command for command, _ in examples(README.read_text())]
    assert shown[shown.index(". .venv/bin/activate") + 1] == "pitable options valley 2,3,5"


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(SLOW))
def test_the_pages_slow_commands_run_as_written(command: str, tmp_path: Path) -> None:
    needs_venv()
    work, env = scratch(tmp_path)
    if command == "scripts/sheet-pictures":
        # Into a folder of the test's own, then compared with the pictures the pages show.
        from PIL import Image, ImageChops

        result = run(f"{command} {shlex.quote(str(tmp_path / 'sheets'))}", work, env)
        assert result.returncode == 0, result.stderr
        for drawn in sorted((tmp_path / "sheets").glob("*.png")):
            with Image.open(drawn) as a, Image.open(ROOT / "docs/sheets" / drawn.name) as b:
                assert a.size == b.size, drawn.name
                assert ImageChops.difference(a.convert("L"), b.convert("L")).getbbox() is None, (
                    f"docs/sheets/{drawn.name} is not what the code draws: run {command}")
        return
    page = next(p for p, c, _ in all_examples() if c == command)
    check_command(command, None, work, env, page)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BENCHMARK_SIZES))
def test_the_performance_pages_benchmarks_run(name: str, tmp_path: Path) -> None:
    """Each benchmark as the page gives it, at its smallest size: it runs and reports (its
    verdict at that size says nothing, so either exit status is taken)."""
    needs_venv()
    work, env = scratch(tmp_path)
    command = next(c for _, c, _ in all_examples() if benchmark(c) == name)
    result = run(f"{command} {BENCHMARK_SIZES[name]}", work, env, timeout=900)
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    assert result.stdout.strip(), command
