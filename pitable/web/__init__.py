"""The table's web page: the dice, what they allow and the last rolls, on every phone.

The box's loop hands each :class:`~pitable.box.snapshot.TableSnapshot` to
:class:`~pitable.web.server.WebServer`, which runs Starlette on uvicorn in a thread of its
own with its own event loop and passes the snapshot over with ``call_soon_threadsafe``:
nothing of the box's state is shared with the server's thread. The page's actions (ROLL, a
new game) go back to the box as events on its queue, each only with the PIN.

Imported only when the web is served: Starlette and uvicorn are the ``web`` extra.
"""
