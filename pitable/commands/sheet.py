"""``pitable sheet`` and ``pitable print``: fresh adventure sheets as files or on paper.

``sheet`` writes one seeded map as a PDF (true size, one sheet per half page of A4 or
Letter), a PNG or PBM (the thermal strip, or the page with ``--page``) or a text map;
``print`` sends it to the thermal printer through the same background queue the box uses.
Nothing heavy is imported until a command runs.
"""

from __future__ import annotations

import argparse
import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

from pitable.commands.args import (
    add_lang_argument,
    ascii_number,
    check_output_path,
    chosen_language,
    is_whole,
    non_empty,
    output_file,
    whole_number,
)
from pitable.errors import BadSeed, PrinterError, UsageError
from pitable.rules.sheets import MAP_FORMAT, MAP_FORMATS, MAX_SEED, Sheet, generate, parse_seed
from pitable.rules.titles import title_choices

if TYPE_CHECKING:
    from pitable.config import PrinterConfig

#: The formats ``sheet --out`` writes, by file extension.
FORMATS = {".pdf": "PDF", ".png": "PNG", ".pbm": "PPM", ".txt": "text"}
#: The narrowest strip that holds a legible sheet (58 mm paper): the renderer's MIN_WIDTH,
#: written here so that parsing the arguments does not import Pillow (a test holds the two
#: equal).
MIN_WIDTH = 384
#: The widest picture drawn: 600 dpi across the 50 mm strip of 58 mm paper, far more than
#: any screen or printer needs; wider ones only cost memory (200000 pixels took ~10 GB).
MAX_WIDTH = 4096
#: The most copies in one PDF: 10 pages of two sheets, written in about a second.
MAX_COPIES = 20
#: The most different maps in one PDF pad (each in --copies copies).
MAX_MAPS = 20
#: Sheets on a page of the PDF: one on each half of a landscape A4 or Letter page.
SHEETS_A_PAGE = 2
#: The most copies one `pitable print` sends: a sheet for each player of the largest table
#: the series seats (1 to 100 players).
MAX_PRINT_COPIES = 100


def seed_number(text: str) -> int:
    """An argparse type: a sheet's seed, 0 to MAX_SEED, in ASCII digits."""
    if not is_whole(text):
        raise argparse.ArgumentTypeError(
            f"seed {text!r}: expected a whole number from 0 to {MAX_SEED} (ASCII digits 0-9)"
        )
    try:
        return parse_seed(text)
    except BadSeed as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def sheet_width(text: str) -> int:
    """An argparse type: a strip's width in dots, from MIN_WIDTH to MAX_WIDTH; a narrower
    one is refused for what it is, too narrow for a legible sheet."""
    try:
        return whole_number(MIN_WIDTH, MAX_WIDTH)(text)
    except argparse.ArgumentTypeError:
        if is_whole(text) and len(text) <= len(str(MAX_WIDTH)) and int(text) < MIN_WIDTH:
            raise argparse.ArgumentTypeError(
                f"{int(text)}: expected {MIN_WIDTH} to {MAX_WIDTH:,}; a narrower strip cannot"
                " hold a legible sheet (58 mm paper is 384 dots, 80 mm is 576)"
            ) from None
        raise


def add_sheet_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", metavar="GAME", help=title_choices())
    p.add_argument(
        "--seed",
        type=seed_number,
        metavar="N",
        default=None,
        help=f"which map, 0 to {MAX_SEED}; the same seed gives everyone the same map"
        " (default: a new one, printed)",
    )
    p.add_argument("--side", default="a", metavar="a|b", help="the side of the sheet (a)")
    p.add_argument("--map-format", type=whole_number(min(MAP_FORMATS), max(MAP_FORMATS)),
                   default=MAP_FORMAT, metavar="N",
                   help=f"the map generator's format, {min(MAP_FORMATS)} to {max(MAP_FORMATS)}:"
                   f" an older one draws the map a seed gave then ({MAP_FORMAT})")
    p.add_argument("--solo", action="store_true",
                   help="a sheet for a solo game: it prints the adventurer levels and the"
                   " stars to beat (the bot's median score on the map)")
    add_lang_argument(p, what="the sheet's words")


def setup_sheet(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Write a fresh adventure sheet for GAME to FILE; the format follows the"
        " extension: .pdf (spaces of 13 mm when printed at actual size, one sheet per"
        " half page), .png or .pbm (the thermal printer's strip, --width pixels wide, or"
        " with --page the PDF's pages), .txt (the map as letters). A picture or a text map"
        " holds one map (a --page picture, one page): with more, each goes to its own file,"
        " FILE's name numbered (map-1.png, map-2.png, ...). An option that does not apply"
        " to FILE's format is refused."
    )
    add_sheet_arguments(p)
    p.add_argument("--out", metavar="FILE", required=True, type=output_file(),
                   help="the file to write")
    p.add_argument(
        "--width",
        type=sheet_width,
        default=None,
        metavar="PX",
        help=f"PNG and PBM strips: the strip's width in dots, {MIN_WIDTH} to {MAX_WIDTH}"
        f" ({MIN_WIDTH}: 58 mm paper; 576: 80 mm paper)",
    )
    p.add_argument("--paper", default=None, metavar="a4|letter",
                   help="PDF and --page: page size (a4)")
    p.add_argument("--page", action="store_true",
                   help="PNG and PBM: the PDF's pages at 8 dots a millimetre, not the strip")
    p.add_argument(
        "--copies",
        type=whole_number(1, MAX_COPIES),
        default=None,
        metavar="N",
        help=f"PDF and --page: how many copies of each map, 1 to {MAX_COPIES}"
        " (2, one page; 1 with --maps)",
    )
    p.add_argument(
        "--maps",
        type=whole_number(1, MAX_MAPS),
        default=1,
        metavar="N",
        help=f"N different maps, 1 to {MAX_MAPS}: the seed and the N-1 after it (1); a PDF"
        " holds them all, other formats write one numbered file a map",
    )
    p.set_defaults(run=run_sheet)


def setup_print(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Print a fresh adventure sheet for GAME on the thermal printer named by"
        " the configuration's [printer] table; the options below override it."
    )
    add_sheet_arguments(p)
    p.add_argument(
        "--port",
        type=non_empty("a device path or pyserial URL"),
        metavar="PORT",
        help="a device path (/dev/serial0) or pyserial URL (socket://host:9100, loop://)",
    )
    # The printer's own bounds (baud rates, times) are the config's, checked by
    # printer_config with the same messages as the file; these types only refuse what is
    # not a number at all.
    p.add_argument("--baud", type=whole_number(1), metavar="N", help="baud rate (19200)")
    p.add_argument("--paper-width", type=whole_number(58, 80), choices=(58, 80), metavar="MM",
                   help="58 or 80 (58)")
    p.add_argument(
        "--image-command", choices=("gsv0", "dc2"), help="GS v 0 raster, or DC2 * (Adafruit)"
    )
    p.add_argument("--line-time-ms", type=ascii_number,
                   metavar="MS", help="per printed dot row (30)")
    p.add_argument("--feed-time-ms", type=ascii_number,
                   metavar="MS", help="per fed dot row (2)")
    p.add_argument("--copies", type=whole_number(1, MAX_PRINT_COPIES), default=1, metavar="N",
                   help=f"copies of the same map, 1 to {MAX_PRINT_COPIES}: one a player (1)")
    p.set_defaults(run=run_print)


def make_sheet(args: argparse.Namespace) -> Sheet:
    seed = args.seed if args.seed is not None else secrets.randbelow(MAX_SEED + 1)
    return generate(args.game, seed, args.side, args.map_format)


#: What each format of ``sheet --out`` is, in words, by kind: a PDF, a strip picture, a
#: page picture (``--page``) or a text map.
KINDS = {
    "pdf": "a PDF", "strip": "a strip picture", "page": "a page picture", "text": "a text map",
}
#: The options of ``sheet`` that apply to some kinds only: the kinds, and the words that
#: say where they apply.
ONLY_FOR = {
    "width": (("strip",), "the strip's width: for a .png or .pbm strip only"),
    "paper": (("pdf", "page"), "the page size: for a .pdf, or a .png or .pbm with --page"),
    "page": (("strip", "page"), "for a .png or .pbm only"),
    "copies": (("pdf", "page"), "copies on pages: for a .pdf, or a .png or .pbm with --page"),
    "solo": (("pdf", "strip", "page"), "a text map holds no levels nor stars to beat"),
    "lang": (("pdf", "strip", "page"), "a text map holds no words"),
}


def sheet_kind(suffix: str, page: bool) -> str:
    """The kind of file ``sheet`` writes for ``suffix``: pdf, strip, page or text."""
    if suffix == ".pdf":
        return "pdf"
    if suffix == ".txt":
        return "text"
    return "page" if page else "strip"


def refuse_what_does_not_apply(args: argparse.Namespace, kind: str) -> None:
    """A :class:`UsageError` naming the first option given that ``kind`` of file ignores."""
    for name, (kinds, where) in ONLY_FOR.items():
        given = getattr(args, name)
        if given not in (None, False) and kind not in kinds:
            raise UsageError(f"--{name}: {where}; {args.out} is {KINDS[kind]}")


def numbered(out: str, count: int) -> list[str]:
    """The files of ``count`` maps or pages for ``--out out``: ``out`` itself for one, else
    its name numbered from 1 (``map.png``: ``map-1.png``, ``map-2.png``, ...)."""
    if count == 1:
        return [out]
    root, suffix = os.path.splitext(out)
    return [f"{root}-{n}{suffix}" for n in range(1, count + 1)]


def run_sheet(args: argparse.Namespace) -> int:
    out = args.out
    suffix = os.path.splitext(out)[1].lower()
    if suffix not in FORMATS:
        raise UsageError(
            f"--out {out}: unknown extension {os.path.splitext(out)[1] or '(none)'!r}:"
            f" expected {', '.join(FORMATS)}"
        )
    kind = sheet_kind(suffix, args.page)
    refuse_what_does_not_apply(args, kind)
    copies = args.copies if args.copies is not None else 2 if args.maps == 1 else 1
    # One file holds a PDF's every sheet, a page picture's two, any other format's one map.
    if kind == "pdf":
        files = 1
    elif kind == "page":
        files = -(-args.maps * copies // SHEETS_A_PAGE)
    else:
        files = args.maps
    names = numbered(out, files)
    # Checked before anything is drawn: a path that cannot be written costs no work.
    for name in names:
        problem = check_output_path(name)
        if problem:
            raise UsageError(f"--out {problem}")
    sheet = make_sheet(args)
    pad = [sheet] + [
        generate(sheet.title, (sheet.seed + k) % (MAX_SEED + 1), sheet.side, sheet.version)
        for k in range(1, args.maps)
    ]
    sheets = [s for s in pad for _ in range(copies)]
    if kind == "pdf":
        parts = [sheets]
    elif kind == "page":
        parts = [sheets[i : i + SHEETS_A_PAGE] for i in range(0, len(sheets), SHEETS_A_PAGE)]
    else:
        parts = [[s] for s in pad]
    lang = chosen_language(args) if kind != "text" else "en"
    for name, part in zip(names, parts, strict=True):
        data = sheet_bytes(
            part,
            suffix,
            width=args.width or MIN_WIDTH,
            paper=args.paper or "a4",
            page=args.page,
            solo=args.solo,
            lang=lang,
        )
        Path(name).write_bytes(data)
    seeds = ", ".join(str(s.seed) for s in pad)
    seeds = f"seed {seeds}" if args.maps == 1 else f"seeds {seeds}"
    print(f"{sheet.title_name}, side {sheet.side.value.upper()}, {seeds}: {', '.join(names)}")
    return 0


def sheet_bytes(
    sheets: list[Sheet],
    suffix: str,
    *,
    width: int = MIN_WIDTH,
    paper: str = "a4",
    page: bool = False,
    solo: bool = False,
    lang: str = "en",
) -> bytes:
    """The file for ``sheets`` in the format of ``suffix``, its words in ``lang``; the same
    bytes every time.

    A PDF holds them all, two a page; a picture is the first sheet's strip, or with
    ``page`` the PDF's first page (the first two sheets); a text map is the first sheet's
    map.
    """
    if suffix == ".txt":
        return sheets[0].to_text(label=True).encode()
    if suffix == ".pdf":
        from pitable.render.sheet_pdf import sheets_pdf

        return sheets_pdf(sheets, paper, solo=solo, target=target_of if solo else None,
                          lang=lang)
    import io

    if page:
        from pitable.render.sheet_pdf import page_image

        image = page_image(sheets[:SHEETS_A_PAGE], paper, solo=solo,
                           target=target_of if solo else None, lang=lang)
    else:
        from pitable.render.sheet import render_sheet

        image = render_sheet(sheets[0], width, solo=solo,
                             target=target_of(sheets[0]) if solo else None, lang=lang)
    buffer = io.BytesIO()
    image.save(buffer, format=FORMATS[suffix])
    return buffer.getvalue()


def target_of(sheet: Sheet) -> int | None:
    """The stars to beat on a solo sheet: the bot's median score on its map (None for a
    title the bot does not play)."""
    from pitable.rules.bot import solo_target

    return solo_target(sheet)


def printer_settings(args: argparse.Namespace) -> PrinterConfig:
    """The config's [printer] table, with the command line's options on top."""
    from pitable.config import load_default_or, printer_config

    config = load_default_or(getattr(args, "config", None)).config.printer
    return printer_config(
        config,
        port=args.port,
        baudrate=args.baud,
        paper_width_mm=args.paper_width,
        image_command=args.image_command,
        line_time_ms=args.line_time_ms,
        feed_time_ms=args.feed_time_ms,
    )


def run_print(args: argparse.Namespace) -> int:
    # The printer's settings are checked first: a wrong one is told before any drawing.
    settings = printer_settings(args)
    sheet = make_sheet(args)
    from pitable.box.backends import printer_settings as driver_settings
    from pitable.box.printing import JobState, PrintSpooler
    from pitable.hw.printer import ThermalPrinter
    from pitable.render.sheet import render_sheet

    image = render_sheet(sheet, settings.dots, solo=args.solo,
                         target=target_of(sheet) if args.solo else None,
                         lang=chosen_language(args))
    printer = ThermalPrinter(driver_settings(settings))
    spooler = PrintSpooler(printer)
    try:
        # One job: the picture is encoded once and the copies sent back to back.
        job = spooler.submit(image, sheet.label, copies=args.copies)
        status = spooler.wait(job.id)
        if status.state is not JobState.DONE:
            raise PrinterError(status.detail or str(status.reason))
    finally:
        spooler.close()
        printer.close()
    report = status.report
    assert report is not None
    copies = f"{args.copies} copies, " if args.copies > 1 else ""
    print(
        f"printed {sheet.title_name}, side {sheet.side.value.upper()}, seed {sheet.seed}"
        f" on {settings.port}: {copies}{report.bytes_sent} bytes,"
        f" {report.model_s / args.copies:.1f} s a copy"
    )
    return 0
