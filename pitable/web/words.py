"""The pages' own words, in every language of the box.

The table's page (static/index.html and static/app.js) and the phone's sheet
(static/play.html and static/play.js) are written in English; each asks
``GET /api/words/<lang>`` for :func:`page_words` whenever the box's snapshot names a
language it has not shown yet, so that it follows the box's language live. The words are
gettext messages like every other the box shows, so that one catalogue per language holds
them all (``scripts/translations``). An element of the page that carries
``data-word="key"`` shows the word of that key; one with ``data-word-title``,
``data-word-label`` its ``title`` or ``aria-label``.
"""

from __future__ import annotations

from pitable.i18n import translator
from pitable.rules import all_titles
from pitable.rules.base import N_, PENNY_HIGH, PENNY_LOW, penny_range
from pitable.rules.dice import DICE

#: Every word of the page, by the key the page knows it by. ``{name}`` fields are filled in
#: by the page.
PAGE_WORDS: dict[str, str] = {
    "connecting": N_("connecting"),
    "connection": N_("connection to the box"),
    "live": N_("live"),
    "reconnecting": N_("reconnecting"),
    "connected": N_("connected to the box"),
    "not_connected": N_("not connected to the box"),
    "answered": N_("the box answered {status}"),
    "ended": N_("the box ended the stream"),
    "unreachable": N_("the box cannot be reached"),
    "no_answer": N_("the box did not answer: try again"),
    "refused": N_("refused ({status})"),
    "the_dice": N_("the dice"),
    "no_roll": N_("no roll yet"),
    "special": N_("special"),
    "hazard": N_("hazard"),
    "die_face": N_("{die}: {face}"),
    "rolling": N_("Rolling..."),
    "last_rolls": N_("Last rolls"),
    "roll_from_here": N_("Roll from here"),
    "game": N_("Game"),
    "mode": N_("Mode"),
    "table": N_("table"),
    "solo": N_("solo"),
    "new_game": N_("New game"),
    "solo_game": N_("solo game"),
    "table_game": N_("table game"),
    "map": N_("map {map}"),
    "round_of": N_("round {round} of {limit}"),
    "round": N_("round {round}"),
    "dangers_of": N_("dangers {hazards} of {limit}"),
    "dangers": N_("dangers {hazards}"),
    "level": N_("level: {result}"),
    "play_here": N_("Play on this phone"),
    # The phone's sheet (static/play.html and play.js).
    "your_initials": N_("Your initials"),
    "initials_hint": N_("1 to 3 letters"),
    "join": N_("Join the game"),
    "your_sheet": N_("your sheet"),
    "cell": N_("row {row}, column {column}"),
    "cell_is": N_("row {row}, column {column}: {what}"),
    "empty": N_("empty"),
    "crossed": N_("hazard crossed out"),
    "treasure": N_("treasure {value}"),
    "found": N_("discovery {mark}"),
    "choose": N_("What goes in row {row}, column {column}?"),
    "cancel": N_("Cancel"),
    "pick_spaces": N_("{label}: tap its spaces ({chosen} of {size})"),
    "this_turn": N_("This turn"),
    "no_move": N_("no move yet"),
    "first_roll": N_("Waiting for the first roll"),
    "turn_done": N_("Turn done: wait for the next roll"),
    "game_over": N_("Game over"),
    "take_back": N_("Take back"),
    "done": N_("Done"),
    "done_anyway": N_("Done anyway"),
    "keep_playing": N_("Keep playing"),
    "not_finished": N_("This turn is not finished:"),
    "score": N_("Score"),
    "total": N_("Total"),
    "print_sheet": N_("Print my sheet"),
    "deal_other": N_("Draw the hazard on {initials}'s sheet: tap a red space"),
    "deal_own": N_("Draw the hazard on your own sheet: tap a red space"),
    "deal_own_why": N_("No one else plays on a phone, so your own sheet takes it"),
    "deal_drawn": N_("You drew the hazard on {initials}'s sheet"),
    "deal_full": N_("{initials}'s sheet has no space left for the hazard"),
    "on_me": N_("{initials} drew a hazard on your sheet: row {row}, column {column}"),
    "on_me_waiting": N_("Another player is drawing a hazard on your sheet"),
    "box_drew_for_you": N_("The box drew your hazard of round {round} on {initials}'s"
                           " sheet"),
    "box_drew_on_you": N_("The box drew a hazard on your sheet: row {row}, column"
                          " {column}"),
    "pace": N_("{done} of {players} done"),
    "writing": N_("still writing: {initials}"),
    "last_round": N_("Last round: the game ends after it"),
    "ranking": N_("Ranking"),
    "finished_sheets": N_("Every finished sheet"),
    "ranked": N_("{place}. {initials}, stars: {total}"),
    "ranked_shared": N_("{place}= {initials}, stars: {total}"),
    "bot_player": N_("(the box)"),
    "paper_player": N_("(paper)"),
    "paper_title": N_("Played on paper? Add your stars"),
    "paper_initials": N_("Initials"),
    "paper_total": N_("Stars"),
    "score_added": N_("{initials}'s stars are in the ranking"),
    "add_rival": N_("Add the box as a player"),
    "rival_greedy": N_("Quick rival"),
    "rival_plan": N_("Planning rival"),
    "rival_deep": N_("Deep rival"),
    "add": N_("Add"),
    "rival_added": N_("The box plays as {initials}"),
    "printing": N_("Your sheet is on its way to the box's printer"),
    "export_sheet": N_("Save as text"),
}
#: The dice's names, for the page's spoken labels ("green: 4").
DIE_NAMES = {"green": N_("green"), "purple": N_("purple"), "red": N_("red")}


def page_words(lang: str) -> dict[str, object]:
    """The page's words in ``lang`` (checked): :data:`PAGE_WORDS` by key, the dice's names,
    the green die's special face by effect ("structure"), Penny Papers' range (the purple
    special face: its figures drawn on the die, its words spoken), and the titles' names
    by key."""
    tr = translator(lang)
    _ = tr.gettext
    return {
        "lang": lang,
        "words": {key: _(message) for key, message in PAGE_WORDS.items()},
        "dice": {str(die): _(DIE_NAMES[str(die)]) for die in DICE},
        "green": {t.green_effect.key: _(t.green_effect.allows) for t in all_titles()},
        "penny": {"face": f"{PENNY_LOW}-{PENNY_HIGH}", "words": penny_range(tr)},
        "titles": [{"key": t.key, "name": t.display_name(tr)} for t in all_titles()],
    }
