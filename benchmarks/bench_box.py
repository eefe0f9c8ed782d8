"""Press to faces: CPU time and I2C bytes per roll, against full frames, in one run.

1,000 rolls go through the whole box (mock pins, the controller, the drawing, the real
luma.oled drivers on a recording I2C bus). The baseline is the same rolls sent as whole
frames by luma's stock SSD1306 driver, which is what the box would do without its partial
updates. Bus time is what the recorded transfers take at 400 kHz, each byte with its
acknowledge bit, plus start and stop.

Run: .venv/bin/python -m benchmarks.bench_box [--rolls N] [--store]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import tempfile
import time

from pitable.box.sim import Simulator
from pitable.config import DEFAULTS
from pitable.hw.entropy import SeededSource
from pitable.hw.fake_i2c import FakeI2C, FakeOled
from pitable.hw.oled import I2CPanelSpec, open_i2c_interface
from pitable.render.faces import die_panel
from pitable.rules import Die, find_title

DICE = ("green", "purple", "red")
BUDGET_BUS_MS = 40.0
BUDGET_CPU_MS = 5.0


Result = tuple[list[float], list[int], list[float], list[float]]


def run_box(rolls: int, store_dir: str | None) -> Result:
    """Per roll: CPU ms from press to the last byte, dice bytes, dice bus ms, wall ms."""
    config = dataclasses.replace(DEFAULTS, box=dataclasses.replace(DEFAULTS.box, tumble_ms=0))
    store = None
    if store_dir is not None:
        from pitable.box.store import SessionStore

        store = SessionStore.open(store_dir)
    sim = Simulator(config, entropy=SeededSource(2026), store=store)
    buses = [sim.fakes.i2c.bus(sim.fakes.where[name][0]) for name in DICE]
    pin = sim.fakes.pin(config.button.pin)
    cpu, sent, bus_ms, wall = [], [], [], []
    for _ in range(rolls):
        marks = [len(b.transfers) for b in buses]
        sim.fake_clock.advance(0.5)  # type: ignore[union-attr]
        pin.drive_low()
        sim.fake_clock.advance(0.1)  # type: ignore[union-attr]
        start, start_wall = time.process_time(), time.perf_counter()
        pin.drive_high()
        sim.box.step()  # the release rolls: draw, send, save
        cpu.append((time.process_time() - start) * 1000)
        wall.append((time.perf_counter() - start_wall) * 1000)
        sent.append(sum(b.wire_bytes(m) for b, m in zip(buses, marks, strict=True)))
        bus_ms.append(sum(b.bus_seconds(m) for b, m in zip(buses, marks, strict=True)) * 1000)
        sim.box.step()
    sim.close()
    return cpu, sent, bus_ms, wall


def run_full_frames(rolls: int) -> Result:
    """The baseline: luma's stock SSD1306 driver, a whole frame per die per roll."""
    from luma.oled.device import ssd1306

    i2c = FakeI2C()
    devices = []
    for n, _ in enumerate(DICE):
        i2c.bus(n).attach(0x3C, FakeOled())
        devices.append(ssd1306(open_i2c_interface(I2CPanelSpec(n, 0x3C), i2c.bus)))
    source = SeededSource(2026)
    valley = find_title("valley")
    from pitable.rules import draw_roll

    cpu, sent, bus_ms, wall = [], [], [], []
    for _ in range(rolls):
        marks = [len(i2c.bus(n).transfers) for n in range(3)]
        start, start_wall = time.process_time(), time.perf_counter()
        roll, _ = draw_roll(source)
        for die, device in zip(Die, devices, strict=True):
            device.display(die_panel(roll[die], die, valley))
        cpu.append((time.process_time() - start) * 1000)
        wall.append((time.perf_counter() - start_wall) * 1000)
        sent.append(sum(i2c.bus(n).wire_bytes(m) for n, m in enumerate(marks)))
        bus_ms.append(sum(i2c.bus(n).bus_seconds(m) for n, m in enumerate(marks)) * 1000)
    return cpu, sent, bus_ms, wall


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def report(name: str, cpu: list[float], sent: list[int], bus_ms: list[float],
           wall: list[float]) -> None:
    print(f"{name:<34}{statistics.mean(cpu):>9.2f}{p95(cpu):>9.2f}{statistics.mean(wall):>10.2f}"
          f"{statistics.mean(sent):>11.0f}{statistics.mean(bus_ms):>10.1f}{max(bus_ms):>9.1f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rolls", type=int, default=1000)
    parser.add_argument("--store", action="store_true",
                        help="also measure the box with its session store")
    args = parser.parse_args()
    n, store = args.rolls, args.store
    print(f"{n} rolls; CPU ms from press to last byte; dice I2C bytes and bus ms at 400 kHz")
    print(f"{'':<34}{'cpu mean':>9}{'cpu p95':>9}{'wall mean':>10}{'bytes/roll':>11}"
          f"{'bus mean':>10}{'bus max':>9}")
    box = run_box(n, None)
    report("pitable (changed pages only)", *box)
    base = run_full_frames(n)
    report("baseline: full frames, stock luma", *base)
    if store:
        with tempfile.TemporaryDirectory() as d:
            stored = run_box(n, d)
        report("pitable with the session store", *stored)
        extra = statistics.mean(stored[3]) - statistics.mean(box[3])
        total = statistics.mean(stored[3]) + statistics.mean(stored[2])
        print(f"per-roll commit cost: {extra:.2f} ms of wall time; with the dice bus time,"
              f" {extra / total:.0%} of the press-to-faces time here")
    saved = 1 - statistics.mean(box[1]) / statistics.mean(base[1])
    print(f"bytes saved against full frames: {saved:.0%}")
    bus_ok = statistics.mean(box[2]) < BUDGET_BUS_MS and max(box[2]) < BUDGET_BUS_MS
    cpu_ok = statistics.mean(box[0]) < BUDGET_CPU_MS
    print(f"target bus time for the three final faces < {BUDGET_BUS_MS:g} ms:"
          f" {'met' if bus_ok else 'MISSED'} (worst {max(box[2]):.1f} ms)")
    print(f"target CPU per roll < {BUDGET_CPU_MS:g} ms: {'met' if cpu_ok else 'MISSED'}"
          f" (mean {statistics.mean(box[0]):.2f} ms)")


if __name__ == "__main__":
    main()
