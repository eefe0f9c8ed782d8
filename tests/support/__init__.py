"""What the tests share: stand-ins and builders they all use, one copy of each.

A test module imports its helpers from here (or takes a fixture from ``conftest.py``),
never from another test module, so that each test file is read, run and changed alone:

- :mod:`~tests.support.entropy`: entropy sources handing out chosen rolls or bytes;
  :mod:`~tests.support.entropy_faults`: the bytes a broken or hostile device gives;
- :mod:`~tests.support.box`: the simulated box, built and driven as a player would;
- :mod:`~tests.support.pictures`: comparing what a panel, a sheet or a page shows;
- :mod:`~tests.support.cli`: ``pitable`` run in the test's process, bounded;
- :mod:`~tests.support.web`: the table's page served on 127.0.0.1, and its clients;
- :mod:`~tests.support.network`: the box's addresses as the OS would report them;
- :mod:`~tests.support.i18n`: the package's messages and the English among translations;
- :mod:`~tests.support.titles`: the titles a generic test runs over, the toy title among them;
- :mod:`~tests.support.install`: an install into a scratch root;
- :mod:`~tests.support.udev`: udev's matching of a device against the shipped rule.
"""
