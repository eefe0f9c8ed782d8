"""enclosure/pitable.scad rendered by OpenSCAD: closed meshes that fit a 220 x 220 mm bed."""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

ENCLOSURE = Path(__file__).parent.parent / "enclosure"
OPENSCAD = shutil.which("openscad")
BED = (220.0, 220.0)

pytestmark = pytest.mark.skipif(
    OPENSCAD is None, reason="openscad is not installed (apt-get install openscad)"
)

Vertex = tuple[str, str, str]


def render(tmp_path: Path, part: str, *defines: str) -> list[tuple[Vertex, Vertex, Vertex]]:
    """The part as triangles, each vertex as OpenSCAD wrote it (shared vertices match)."""
    assert OPENSCAD is not None
    out = tmp_path / f"{part}.stl"
    args = [OPENSCAD, "-o", str(out), "-D", f'part="{part}"']
    for define in defines:
        args += ["-D", define]
    result = subprocess.run([*args, str(ENCLOSURE / "pitable.scad")], capture_output=True,
                            text=True, check=False, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    triangles, corners = [], []
    text = out.read_text()
    assert text.startswith("solid"), "expected an ASCII STL"
    for line in text.splitlines():
        words = line.split()
        if words and words[0] == "vertex":
            corners.append((words[1], words[2], words[3]))
            if len(corners) == 3:
                triangles.append((corners[0], corners[1], corners[2]))
                corners = []
    assert triangles and not corners
    return triangles


def check_closed(triangles: list[tuple[Vertex, Vertex, Vertex]]) -> int:
    """Assert every edge joins exactly two triangles, once each way; return the genus."""
    undirected: Counter[frozenset[Vertex]] = Counter()
    directed: Counter[tuple[Vertex, Vertex]] = Counter()
    vertices: set[Vertex] = set()
    for a, b, c in triangles:
        vertices.update((a, b, c))
        for u, v in ((a, b), (b, c), (c, a)):
            undirected[frozenset((u, v))] += 1
            directed[(u, v)] += 1
    open_edges = [e for e, n in undirected.items() if n != 2]
    assert open_edges == [], f"{len(open_edges)} edges not shared by exactly two triangles"
    assert max(directed.values()) == 1, "triangles with inconsistent orientation"
    euler = len(vertices) - len(undirected) + len(triangles)
    assert euler % 2 == 0
    return (2 - euler) // 2


def extent(triangles: list[tuple[Vertex, Vertex, Vertex]]) -> list[tuple[float, float]]:
    points = [tuple(float(x) for x in v) for t in triangles for v in t]
    return [(min(p[i] for p in points), max(p[i] for p in points)) for i in range(3)]


def fits_bed(triangles: list[tuple[Vertex, Vertex, Vertex]]) -> None:
    (x0, x1), (y0, y1), (z0, _) = extent(triangles)
    assert x1 - x0 <= BED[0] and y1 - y0 <= BED[1]
    assert abs(z0) < 1e-3, "the part must lie on the bed"


@pytest.mark.slow  # OpenSCAD renders the part: many seconds
def test_the_base_is_closed_fits_the_bed_and_has_its_two_wall_openings(tmp_path: Path) -> None:
    base = render(tmp_path, "base")
    # Through-holes are handles of the solid: the Pi's power socket and the printer's jack
    # (the screw and boss holes are blind).
    assert check_closed(base) == 2
    fits_bed(base)
    assert [round(hi - lo, 3) for lo, hi in extent(base)] == [200, 140, 69.6]


@pytest.mark.slow  # OpenSCAD renders the part: many seconds
def test_the_lid_is_closed_fits_the_bed_and_has_every_cut_out(tmp_path: Path) -> None:
    lid = render(tmp_path, "lid")
    # 3 die windows, the status window, the button, the encoder, 5 LEDs, the paper slot
    # and 4 screw holes.
    assert check_closed(lid) == 3 + 1 + 1 + 1 + 5 + 1 + 4
    fits_bed(lid)


def test_the_dimensions_come_from_the_parameters(tmp_path: Path) -> None:
    base = render(tmp_path, "base", "box=[180, 120, 60]", "$fn=16")
    check_closed(base)
    assert [round(hi - lo, 3) for lo, hi in extent(base)] == [180, 120, 57.6]
