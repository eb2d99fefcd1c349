"""The fonts a rendered page is laid out with: Debian's ``fonts-dejavu-core``, and nothing else.

A layout depends on the fonts the browser finds, and Chromium on Linux asks fontconfig, which
answers from every font on the machine: a page asking for "Times New Roman" is set in
Liberation Serif where ``fonts-liberation`` is installed (Chromium recommends it) and in
DejaVu Serif where it is not. Line breaks move, blocks change height, and V-Wrapper scored
70 of 100 synthetic pages correct on one machine and 69 on another with the same browser.

So the browser is started with ``FONTCONFIG_FILE`` pointing at a configuration written here
(:func:`write_config`): its only font folder holds links to the six files of
:data:`FONTS_PACKAGE` (:data:`FONT_FILES`); the common serif, sans-serif and monospace names
are aliased to DejaVu Serif, Sans and Sans Mono; any other family is, as on a machine without
it, Chromium's standard font (Times New Roman, so DejaVu Serif). A glyph those fonts lack
(CJK, for one) is drawn as the same missing-glyph box on every machine. The layout
cache key takes :func:`fingerprint`: the files' names and sizes and this configuration.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from xml.sax.saxutils import escape

__all__ = [
    "FONTS_PACKAGE",
    "FONT_FILES",
    "FontsMissing",
    "config_text",
    "fingerprint",
    "write_config",
]

#: the Debian package of the fonts pages are laid out with (installed by .ci/run)
FONTS_PACKAGE = "fonts-dejavu-core"
#: where that package puts its files, and the files (``dpkg -L fonts-dejavu-core``)
FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
FONT_FILES = (
    "DejaVuSans.ttf",
    "DejaVuSans-Bold.ttf",
    "DejaVuSerif.ttf",
    "DejaVuSerif-Bold.ttf",
    "DejaVuSansMono.ttf",
    "DejaVuSansMono-Bold.ttf",
)
#: names set in DejaVu Serif: CSS's generic serif and Chromium's default standard font, with
#: the serif faces pages ask for most
SERIF_NAMES = (
    "serif",
    "Times New Roman",
    "Times",
    "Georgia",
    "Cambria",
    "Garamond",
    "Palatino",
    "Palatino Linotype",
    "Book Antiqua",
)
#: names set in DejaVu Sans: CSS's generic sans-serif and the sans faces pages ask for most
SANS_NAMES = (
    "sans-serif",
    "system-ui",
    "Arial",
    "Helvetica",
    "Helvetica Neue",
    "Verdana",
    "Tahoma",
    "Trebuchet MS",
    "Segoe UI",
    "Roboto",
    "Open Sans",
    "Lucida Grande",
    "Liberation Sans",
)
#: names set in DejaVu Sans Mono
MONO_NAMES = (
    "monospace",
    "Monospace",
    "Courier New",
    "Courier",
    "Consolas",
    "Menlo",
    "Monaco",
    "Lucida Console",
)


class FontsMissing(RuntimeError):
    """The fonts package is not installed: its one line."""


def font_paths() -> list[Path]:
    """The package's font files; FontsMissing naming the package when one is absent."""
    paths = [FONT_DIR / name for name in FONT_FILES]
    missing = [p.name for p in paths if not p.is_file()]
    if missing:
        raise FontsMissing(
            f"{FONTS_PACKAGE} is not installed ({', '.join(missing)} not in "
            f"{FONT_DIR}): apt-get install -y {FONTS_PACKAGE}"
        )
    return paths


def _alias(names: tuple[str, ...], family: str) -> str:
    return "".join(
        f'  <alias binding="same"><family>{escape(n)}</family>'
        f"<prefer><family>{escape(family)}</family></prefer></alias>\n"
        for n in names
    )


def config_text(font_dir: str, cache_dir: str) -> str:
    """fontconfig's configuration: one folder, the aliases, DejaVu Sans as the last resort."""
    return (
        '<?xml version="1.0"?>\n'
        '<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n'
        "<fontconfig>\n"
        f"  <dir>{escape(font_dir)}</dir>\n"
        f"  <cachedir>{escape(cache_dir)}</cachedir>\n"
        + _alias(SERIF_NAMES, "DejaVu Serif")
        + _alias(SANS_NAMES, "DejaVu Sans")
        + _alias(MONO_NAMES, "DejaVu Sans Mono")
        # outlines unhinted, as --font-render-hinting=none asks: fontconfig's built-in
        # default hints them, which rounds every advance to whole pixels
        + '  <match target="font"><edit name="hinting" mode="assign"><bool>false'
        '</bool></edit><edit name="antialias" mode="assign"><bool>true</bool></edit>'
        "</match>\n"
        "</fontconfig>\n"
    )


def write_config(folder: str | Path) -> Path:
    """Write the fonts folder (links to the package's files) and the configuration under
    ``folder``; the path to give the browser as ``FONTCONFIG_FILE``."""
    folder = Path(folder)
    fonts, cache = folder / "fonts", folder / "fontconfig-cache"
    fonts.mkdir(parents=True, exist_ok=True)
    cache.mkdir(exist_ok=True)
    for path in font_paths():
        link = fonts / path.name
        if not link.exists():
            link.symlink_to(path)
    conf = folder / "fonts.conf"
    conf.write_text(config_text(str(fonts), str(cache)), encoding="utf-8")
    return conf


def fingerprint() -> str:
    """sha256 of the font files' names and sizes and of the configuration ('' when the package
    is absent: nothing can be rendered then)."""
    try:
        paths = font_paths()
    except FontsMissing:
        return ""
    h = hashlib.sha256(config_text("<fonts>", "<cache>").encode())
    for path in paths:
        h.update(f"{path.name}:{path.stat().st_size}\n".encode())
    return h.hexdigest()[:16]
