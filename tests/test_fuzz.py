"""Every subcommand driven with generated arguments: numbers huge, negative, NaN, infinite,
in other scripts' digits or empty; paths missing, directories, FIFOs, devices, empty.

Whatever the arguments, a command ends within 5 s with status 0, 1 or 2, never with a
traceback, and a status 2 ends with one line saying what is wrong. ``run`` and a live ``sim``
run until stopped and are left out; so is ``print``, which talks to a real port.

Each run happens in this process (quick), on a thread, so that one that hangs fails the
test after 5 s instead of hanging it.
"""

from __future__ import annotations

import io
import os
import threading
import traceback
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitable.cli import main

#: How long a run may go before the test calls it hung and stops waiting: a guard that
#: the tests end by themselves, not a speed check (the tests assert no times; a command's
#: work is bounded by the bounds its arguments are checked against, tested in
#: test_cli_bounds). Generous, so that an emulated ARM root on a busy machine, ten times
#: slower, never trips it on a run that would end.
HANG_S = 120.0
#: Examples per command in the everyday run, and in the slow one.
QUICK_EXAMPLES = 15
SLOW_EXAMPLES = 300


@dataclass(frozen=True)
class Paths:
    """Files of every kind to hand to the commands, made once for the module."""

    missing: str
    missing_dir: str
    directory: str
    fifo: str
    regular: str
    big: str
    nested: str
    config: str
    out: str
    state: str

    def inputs(self) -> list[str]:
        return [self.missing, self.missing_dir, self.directory, self.fifo, self.regular,
                self.big, self.nested, self.config, "/dev/zero", "/dev/null", "", "a\0b"]

    def outputs(self, suffixes: tuple[str, ...]) -> list[str]:
        ours = [os.path.join(self.out, f"x{suffix}") for suffix in suffixes]
        return [*ours, os.path.join(self.out, "x.jpg"), os.path.join(self.out, "x"),
                os.path.join(self.missing_dir, f"x{suffixes[0]}"), self.directory,
                self.fifo, "/dev/zero", "/dev/null", "", "a\0b.png"]


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> Paths:
    base = tmp_path_factory.mktemp("fuzz")
    (base / "dir").mkdir()
    (base / "out").mkdir()
    (base / "state").mkdir()
    os.mkfifo(base / "fifo")
    (base / "file.txt").write_text("hello\n")
    (base / "big.toml").write_bytes(b"# " + b"x" * 1_100_000 + b"\n")
    (base / "nested.toml").write_text("a = " + "[" * 100_000 + "\n")
    # A short deadline: a FIFO named as the generator fails within it, not in 2 s; the OS's
    # generator, quick to test; and no printer, so that no real port is ever written to.
    (base / "pitable.toml").write_text(
        '[entropy]\ndeadline_s = 0.2\ndevice = "/dev/urandom"\n[printer]\nenabled = false\n'
    )
    return Paths(
        missing=str(base / "missing.toml"),
        missing_dir=str(base / "missing" / "deeper"),
        directory=str(base / "dir"),
        fifo=str(base / "fifo"),
        regular=str(base / "file.txt"),
        big=str(base / "big.toml"),
        nested=str(base / "nested.toml"),
        config=str(base / "pitable.toml"),
        out=str(base / "out"),
        state=str(base / "state"),
    )


# --- the values ------------------------------------------------------------------------

WEIRD_NUMBERS = [
    "", " ", "nan", "NaN", "inf", "-inf", "1e308", "-1e308", "1e-320", "1.5", "0.0", "-0",
    "+3", " 7", "1_000", "0x10", "٣", "１２", "³", "Ⅻ", "9" * 5000, "-" + "9" * 5000,
    "9223372036854775807", "9223372036854775808", "18446744073709551616", "10**30",
]

small = st.integers(0, 30).map(str)
# Small whole numbers thrice: most arguments then hold, and the runs get past the parser.
numbers = st.one_of(
    small, small, small, st.integers(-5, -1).map(str),
    st.integers(10**8, 10**40).map(str),
    st.integers(-(10**40), -(10**8)).map(str),
    st.sampled_from(WEIRD_NUMBERS),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)
#: Deadlines: valid ones short, so that a FIFO named as the generator costs little.
deadlines = st.sampled_from(["0.05", "0.1", *WEIRD_NUMBERS, "0", "-1", "61", "1e30"])
games = st.sampled_from(["valley", "island", "temple", "skull-island", "Valley"])
words = st.one_of(games, games, st.sampled_from(["chess", "", " "]), st.text(max_size=8))
face = st.sampled_from(["1", "2", "3", "4", "5", "*"])
faces = st.one_of(
    st.lists(face, min_size=3, max_size=3).map(",".join),
    st.lists(st.one_of(face, st.sampled_from(["0", "6", "٣", "", "x", " 1"])),
             min_size=0, max_size=4).map(",".join),
    st.text(max_size=8),
)
steps = st.one_of(
    st.sampled_from(["press", "hold", "push", "turn+1", "wait10"]),
    st.sampled_from([
        "print", "turn-3", "turn+99999", "turn+٣", "wait99999999999", "unplug:green",
        "replug:green", "unplug:blue", "jump", "", " ",
    ]),
)


def optional(flag: str, values: st.SearchStrategy[str]) -> st.SearchStrategy[list[str]]:
    return st.one_of(st.just([]), values.map(lambda v: [flag, v]))


def switch(*flags: str) -> st.SearchStrategy[list[str]]:
    return st.sampled_from([[], *([f] for f in flags)])


def joined(*parts: st.SearchStrategy[list[str]]) -> st.SearchStrategy[list[str]]:
    return st.tuples(*parts).map(lambda found: [word for part in found for word in part])


# --- one strategy of argument lists per command ----------------------------------------


#: Finished sheets that score, beside the broken files every command is given.
EXAMPLE_SHEETS = sorted(
    str(path) for path in (Path(__file__).parent / "golden" / "scoring").glob("*.txt")
)


def commands(p: Paths) -> dict[str, st.SearchStrategy[list[str]]]:
    inputs = st.sampled_from(p.inputs())
    fast = st.just(["--config", p.config])  # the short generator deadline
    return {
        "options": joined(
            st.just(["options"]), words.map(lambda w: [w]),
            st.lists(faces, min_size=1, max_size=3),
            optional("--dangers", numbers), switch("--json"), optional("--dice", words),
        ),
        "roll": joined(
            fast, st.just(["roll"]), optional("--count", numbers), switch("--json"),
            optional("--rng-device", inputs), switch("--require-hwrng", "--no-require-hwrng"),
            optional("--rng-deadline", deadlines), optional("--dice", words),
        ),
        "fairness": joined(
            fast, st.just(["fairness"]), optional("--rolls", numbers), switch("--json"),
            optional("--png", st.sampled_from(p.outputs((".png",)))),
            optional("--rng-device", inputs), switch("--require-hwrng"),
            optional("--rng-deadline", deadlines),
        ),
        "sim": joined(
            st.just(["sim", "--script"]),
            st.lists(steps, min_size=0, max_size=3).map(lambda s: [",".join(s)]),
            optional("--record", st.sampled_from(p.outputs((".gif",)))),
            optional("--png", st.sampled_from(p.outputs((".png",)))),
            optional("--game", words), switch("--solo"), optional("--seed", numbers),
            optional("--state-dir", st.sampled_from([p.state, *p.inputs()])),
            optional("--scale", numbers),
            optional("--tv-png", st.sampled_from(p.outputs((".png",)))),
            # Only addresses that cannot be served: a fuzzed run must not open a port.
            optional("--web", st.sampled_from(["", "8080", "127.0.0.1", ":0", "127.0.0.1:x",
                                               "127.0.0.1:65536", "pi.local:80", "[::1:0"])),
            optional("--pin", st.sampled_from(["", "12", "1234", "1234567", "12a4"])),
            optional("--lang", st.sampled_from(["en", "fr", "es", "xx"])),
        ),
        "screen": joined(
            st.just(["screen"]), words.map(lambda w: [w]), faces.map(lambda f: [f]),
            switch("--solo"), optional("--dangers", numbers), optional("--round", numbers),
            optional("--lang", st.sampled_from(["en", "fr", "es", "de", "FR", ""])),
            optional("--size", st.sampled_from(["128x64", "256x64", "64x32", "x", ""])),
            optional("--png", st.sampled_from(p.outputs((".png",)))), switch("--text"),
            optional("--dice", st.sampled_from(["1-5", "2-6", "1-6", ""])),
        ),
        "config": st.one_of(
            inputs.map(lambda path: ["config", "check", path]),
            inputs.map(lambda path: ["--config", path, "config", "check"]),
            st.just(["config", "show"]),
        ),
        "history": joined(
            st.just(["history"]), optional("--game", numbers), switch("--json"),
            st.sampled_from([p.state, *p.inputs()]).map(lambda d: ["--state-dir", d]),
        ),
        "level": joined(
            st.just(["level"]), words.map(lambda w: [w]), numbers.map(lambda n: [n]),
            optional("--snakes", numbers), switch("--json"),
        ),
        "sheet": joined(
            st.just(["sheet"]), words.map(lambda w: [w]),
            st.sampled_from(p.outputs((".png", ".pbm", ".pdf", ".txt"))).map(
                lambda out: ["--out", out]
            ),
            optional("--seed", numbers), optional("--side", st.sampled_from(["a", "b", "c", ""])),
            optional("--width", st.one_of(numbers, st.sampled_from(["383", "384", "4097"]))),
            optional("--paper", st.sampled_from(["a4", "letter", "a3", ""])),
            optional("--copies", numbers),
            optional("--maps", st.sampled_from(["1", "2", "21", "x"])),
            switch("--solo"), switch("--page"),
        ),
        "doctor": joined(
            fast, st.just(["doctor"]),
            optional("--boot-dir", inputs),
            optional("--printer-port", st.one_of(inputs, st.just("loop://"))),
            optional("--rng-device", inputs),
        ),
        "score": joined(
            st.just(["score"]), words.map(lambda w: [w]),
            st.one_of(inputs, st.sampled_from(EXAMPLE_SHEETS)).map(lambda f: ["--sheet", f]),
            switch("--json"), switch("--solo"), optional("--snakes", numbers),
        ),
        "bot": joined(
            st.just(["bot"]), words.map(lambda w: [w]), optional("--seed", numbers),
            optional("--side", st.sampled_from(["a", "b", "c", ""])),
            # Always a few games: the default 100 is slow by design, not a hang.
            st.one_of(
                st.integers(1, 3).map(str), st.integers(-3, 0).map(str),
                st.integers(10**4 + 1, 10**30).map(str), st.sampled_from(WEIRD_NUMBERS),
            ).map(lambda n: ["--games", n]),
            optional("--dice-seed", numbers), switch("--json"), switch("--show"),
        ),
        "wiring": joined(
            optional("--config", inputs), st.just(["wiring"]),
            optional("--svg", st.sampled_from(p.outputs((".svg",)))),
        ),
    }


# --- one run, bounded ------------------------------------------------------------------


def run_bounded(argv: list[str]) -> tuple[int, str, str]:
    """``pitable ARGV`` in this process on a thread; fails the test on a traceback, on a
    status other than 0, 1 or 2, or when it has not ended after HANG_S."""
    out, err = io.StringIO(), io.StringIO()
    result: dict[str, object] = {}

    def target() -> None:
        try:
            with redirect_stdout(out), redirect_stderr(err):
                try:
                    result["code"] = main(argv)
                except SystemExit as exc:  # argparse's own exits
                    result["code"] = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            result["traceback"] = traceback.format_exc()

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(HANG_S)
    if worker.is_alive():
        pytest.fail(f"pitable {argv!r} has not ended after {HANG_S:g} s")
    assert "traceback" not in result, f"pitable {argv!r} raised:\n{result['traceback']}"
    code = result["code"]
    assert isinstance(code, int)
    stderr = err.getvalue()
    assert code in (0, 1, 2), f"pitable {argv!r} exited {code}: {stderr}"
    assert "Traceback" not in stderr, f"pitable {argv!r}: {stderr}"
    if code == 2:
        last = stderr.strip().splitlines()[-1] if stderr.strip() else ""
        assert "error" in last, f"pitable {argv!r} exited 2 without saying why: {stderr!r}"
    return code, out.getvalue(), stderr


COMMANDS = ("options", "screen", "roll", "fairness", "sim", "config", "history", "level", "sheet",
            "score", "doctor", "wiring",
            "bot")


def fuzz(command: str, paths: Paths, examples: int, *, derandomize: bool) -> None:
    @settings(max_examples=examples, deadline=None, database=None, derandomize=derandomize,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(argv=commands(paths)[command])
    def check(argv: list[str]) -> None:
        run_bounded(argv)

    check()


@pytest.mark.parametrize("command", COMMANDS)
def test_no_argument_makes_a_command_crash_hang_or_lie(command: str, paths: Paths) -> None:
    fuzz(command, paths, QUICK_EXAMPLES, derandomize=True)


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
def test_many_arguments_make_no_command_crash_hang_or_lie(command: str, paths: Paths) -> None:
    fuzz(command, paths, SLOW_EXAMPLES, derandomize=False)


def test_the_fuzz_knows_every_command() -> None:
    from pitable.cli import COMMANDS as ALL

    # Left out on purpose: ``run`` runs until stopped, ``print`` talks to a real port.
    assert {name for name, _, _ in ALL} - set(COMMANDS) == {"run", "print"}


def test_a_run_that_raises_fails_the_fuzz(monkeypatch: pytest.MonkeyPatch) -> None:
    import pitable.cli

    def broken(argv: list[str]) -> int:
        raise RecursionError("deep")

    monkeypatch.setattr(pitable.cli, "main", broken)
    monkeypatch.setitem(globals(), "main", broken)
    with pytest.raises(AssertionError, match="RecursionError"):
        run_bounded(["options"])


