"""The titles a generic test runs over: every registered title, and the toy title of tests/.

A test that holds for any title (what every roll allows, sheets, faces, the printer, the
bot's games) names none: it takes the ``title`` fixture of ``tests/conftest.py``, which runs
it once for each key of :func:`title_params` with that title registered for the test, and
so runs it for a title added later without a change. A test of one title's rulebook (a
worked example, a rule of its own) keeps naming that title.

The toy title (tests/toy_title.py) stands for a title written outside pitable/: it is
registered only for the test that asks for it, so that the registry holds the real titles
again after it. A test of something not every title has (a bot player, replay rules,
scoring) runs over the titles that have it, asked of each title::

    @pytest.mark.parametrize("title", title_params(lambda t: t.bot() is not None),
                             indirect=True)
    def test_the_bot_finishes_a_game(title: Title) -> None: ...
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from pitable.rules import Title, all_titles, find_title, registered
from tests.toy_title import PlayedToyCupboard, ToyCupboard

#: The titles of tests/, registered only for the test that asks for one, plainest first:
#: the toy, and the toy with a bot player and replay rules of its own.
TEST_TITLES: tuple[type[Title], ...] = (ToyCupboard, PlayedToyCupboard)


def scores(title: Title) -> bool:
    """Whether ``title`` says how its finished sheets score (the default refuses them)."""
    return type(title).score is not Title.score


def says_its_shapes(title: Title) -> bool:
    """Whether ``title`` says which shapes its maps have (the default takes any shape)."""
    return type(title).shape_problem is not Title.shape_problem


def titles_to_run(having: Callable[[Title], object] | None = None) -> list[Title]:
    """The registered titles that have ``having`` (all of them: None), and the first title
    of tests/ that has it: the toy, or the toy with a bot when the test needs one.

    For parametrising when the tests are collected: a title of tests/ is a title made to be
    asked, not the registered one (:func:`title_for_test` registers it for the test)."""
    found = [t for t in all_titles() if having is None or having(t)]
    extra = next((t for t in (cls() for cls in TEST_TITLES)
                  if having is None or having(t)), None)
    return found if extra is None else [*found, extra]


def title_params(having: Callable[[Title], object] | None = None) -> list[str]:
    """The keys of :func:`titles_to_run`, to parametrise the ``title`` fixture with."""
    return [t.key for t in titles_to_run(having)]


@contextlib.contextmanager
def title_for_test(key: str) -> Iterator[Title]:
    """The title of ``key``: a registered one, or a title of tests/ registered for the
    ``with`` block."""
    cls = next((c for c in TEST_TITLES if c.key == key), None)
    if cls is None:
        yield find_title(key)
        return
    from tests.toy_pictures import toy_pictures

    with registered(cls) as title, toy_pictures():
        yield title
