"""The `pi` extra installs without a compiler on every Raspberry Pi OS, 32-bit included.

PyPI has no armv7l wheels of the compiled libraries under the `pi` extra (Pillow, cbor2),
so install.sh takes each compiled one from Debian's packages into a venv that sees them
(``--system-site-packages``), and pip, finding them there, fetches only pure-Python wheels.
That holds while (1) every compiled distribution of the extra has a Debian package that
install.sh puts in, and (2) every requirement on it, ours and our dependencies', accepts
the version Debian bookworm ships. The distributions and their requirements are read from
this venv's own metadata, so a new compiled dependency, or a requirement raised above
Debian's version, fails here.
"""

from __future__ import annotations

import re
from importlib import metadata

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.support.install import BOOKWORM, INSTALL, OS_PACKAGES

#: Compiled here, but published on PyPI as a pure-Python wheel too (``py3-none-any``), which
#: pip takes where no compiled wheel fits, armv7l included: fonttools' Cython modules are
#: optional speed-ups of pure-Python code (``pip download fonttools --only-binary=:all:
#: --platform linux_armv7l`` gives fonttools-4.68.0-py3-none-any.whl).
PURE_WHEEL_TOO = {"fonttools"}


def closure(dist: str, extra: str) -> dict[str, list[Requirement]]:
    """Every distribution that installing ``dist[extra]`` brings, with every requirement
    on it from the others (an extra may name the package's own other extras)."""
    found: dict[str, list[Requirement]] = {}
    todo, seen = [(dist, extra)], set()
    while todo:
        item = todo.pop()
        if item in seen:
            continue
        seen.add(item)
        name, wanted = item
        for text in metadata.requires(name) or []:
            req = Requirement(text)
            if req.marker is not None and not req.marker.evaluate({"extra": wanted}):
                continue
            key = canonicalize_name(req.name)
            if key != canonicalize_name(dist):
                found.setdefault(key, []).append(req)
            todo += [(req.name, e) for e in (sorted(req.extras) or [""])]
    return found


def compiled(dist: str) -> bool:
    """Whether the installed wheel of ``dist`` holds built code (its WHEEL file says
    Root-Is-Purelib: false, or names a platform tag)."""
    wheel = metadata.distribution(dist).read_text("WHEEL") or ""
    tags = [line.split(":", 1)[1].strip() for line in wheel.splitlines()
            if line.startswith("Tag:")]
    return "Root-Is-Purelib: true" not in wheel or any(not t.endswith("-any") for t in tags)


def install_os_packages() -> set[str]:
    """The packages install.sh's OS_PYTHON_PACKAGES names."""
    m = re.search(r'^OS_PYTHON_PACKAGES="([^"]*)"', INSTALL.read_text(), re.MULTILINE)
    assert m, "install.sh sets OS_PYTHON_PACKAGES"
    return set(m.group(1).split())


def test_every_compiled_library_of_the_pi_extra_comes_from_debian() -> None:
    pi = closure("pitable", "pi")
    assert {"pillow", "luma-oled", "starlette"} <= set(pi)  # the reading found the extra
    built = {dist for dist in pi if compiled(dist)}
    assert built, "this venv holds no compiled library: the check would prove nothing"
    needs_debian = built - PURE_WHEEL_TOO
    assert needs_debian <= set(BOOKWORM), (
        f"compiled, without a Debian package: {needs_debian - set(BOOKWORM)}")
    assert {OS_PACKAGES[dist] for dist in needs_debian} <= install_os_packages()


def test_every_requirement_on_them_accepts_debians_version() -> None:
    pi = closure("pitable", "pi")
    refused = [
        f"{req} (Debian bookworm: {package} {version})"
        for dist, (package, version) in BOOKWORM.items()
        for req in pi.get(dist, [])
        if not req.specifier.contains(Version(version), prereleases=True)
    ]
    assert not refused, refused


def test_the_reading_sees_a_requirement_that_debian_cannot_meet() -> None:
    # The check above on a requirement it must refuse, and on one it must accept.
    assert not Requirement("Pillow>=10").specifier.contains(Version(BOOKWORM["pillow"][1]))
    assert Requirement("pillow>=9.2.0").specifier.contains(Version(BOOKWORM["pillow"][1]))
