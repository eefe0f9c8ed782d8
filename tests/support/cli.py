"""``pitable`` run in the test's own process, on a thread, with a guard against hanging."""

from __future__ import annotations

import io
import threading
import traceback
from contextlib import redirect_stderr, redirect_stdout

import pytest

from pitable.cli import main

#: How long a run may go before the test calls it hung and stops waiting: a guard that
#: the tests end by themselves, not a speed check (the tests assert no times; a command's
#: work is bounded by the bounds its arguments are checked against, tested in
#: test_cli_bounds). Generous, so that an emulated ARM root on a busy machine, ten times
#: slower, never trips it on a run that would end.
HANG_S = 120.0


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
