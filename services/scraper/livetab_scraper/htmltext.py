"""The visible text of one HTML table cell, with its footnote markers taken apart from its value.

MediaWiki renders a cell's value together with things a reader does not read as part of it:
citation markers (`<sup class="reference">[1]</sup>`), hidden sort keys, edit links, style blocks.
`cell_text` walks the cell once and returns the value as a reader sees it (line breaks from `<br>`
and block elements kept as newlines, other whitespace collapsed) plus the markers it removed, each
with the id of the note it points at, so the note texts can be looked up on the page.

Symbol markers (`†`, `‡`, `§`, `¶`) written straight after (or before) a value are separated too;
a cell that holds only a symbol keeps it, because then the symbol *is* the value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lxml import etree

__all__ = [
    "SYMBOL_MARKERS",
    "CellText",
    "Marker",
    "cell_text",
    "has_class",
    "is_hidden",
    "normalise_space",
    "split_symbol_markers",
]

SYMBOL_MARKERS = "†‡§¶"

_WS = re.compile(r"[ \t\r\n\f\v\u00a0\u2002\u2003\u2009\u200a\u202f\u3000]+")
_ZERO_WIDTH = re.compile(r"[\u200b\u200c\u200d\u200e\u200f\ufeff\u00ad]")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_BRACKET_MARKER = re.compile(r"^\[\s*([^\[\]]{1,24})\s*\]$")
_SYMBOLS_TRAILING = re.compile(f"^(.*?\\S)\\s*([{SYMBOL_MARKERS}]+)$", re.S)
_SYMBOLS_LEADING = re.compile(f"^([{SYMBOL_MARKERS}]+)\\s*(\\S.*)$", re.S)

# Elements whose content is never part of a cell's value.
_SKIP_TAGS = frozenset({"style", "script", "noscript", "template", "link", "meta", "table", "math", "annotation"})
# Classes MediaWiki uses for things hidden from readers or not part of the value.
_SKIP_CLASSES = frozenset({
    "sortkey", "mw-editsection", "noprint", "printonly", "metadata", "navbox", "mw-empty-elt",
    "reflist", "mw-cite-backlink", "sr-only", "visually-hidden",
})
_REFERENCE_CLASSES = frozenset({"reference", "mw-ref"})
_BLOCK_TAGS = frozenset({"p", "div", "li", "dd", "dt", "ul", "ol", "dl", "h1", "h2", "h3", "h4", "h5", "h6",
                         "blockquote", "pre", "center", "tr"})


@dataclass(frozen=True)
class Marker:
    """A footnote marker removed from a cell: its label (`[1]`, `[a]`, `†`) and the note it links to."""

    label: str
    note_id: str = ""


@dataclass
class CellText:
    text: str
    markers: list[Marker] = field(default_factory=list)
    had_nested_table: bool = False


def has_class(el: etree._Element, names: frozenset[str]) -> bool:
    cls = el.get("class")
    if not cls:
        return False
    return not names.isdisjoint(cls.split())


def is_hidden(el: etree._Element) -> bool:
    style = el.get("style")
    return bool(style and _HIDDEN_STYLE.search(style)) or el.get("hidden") is not None


def _note_id(el: etree._Element) -> str:
    for a in el.iter("a"):
        href = a.get("href") or ""
        if "#" in href:
            return href.rsplit("#", 1)[1]
    return ""


def _marker_label(el: etree._Element) -> str:
    raw = _WS.sub("", "".join(el.itertext()))
    return raw if raw else "[?]"


class _Walker:
    __slots__ = ("markers", "nested", "parts")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.markers: list[Marker] = []
        self.nested = False

    def walk(self, el: etree._Element) -> None:
        # Children of `el` only: `el`'s own text is handled by the caller.
        for child in el:
            tag = child.tag
            if not isinstance(tag, str):  # comments, processing instructions
                if child.tail:
                    self.parts.append(child.tail)
                continue
            tag = tag.lower()
            if tag == "br":
                self.parts.append("\n")
            elif tag in _SKIP_TAGS:
                if tag == "table":
                    self.nested = True
            elif has_class(child, _REFERENCE_CLASSES) or (tag == "sup" and _is_bracket_marker(child)):
                self.markers.append(Marker(_marker_label(child), _note_id(child)))
            elif has_class(child, _SKIP_CLASSES) or is_hidden(child):
                pass
            else:
                block = tag in _BLOCK_TAGS
                if block:
                    self.parts.append("\n")
                if child.text:
                    self.parts.append(child.text)
                if len(child):
                    self.walk(child)
                if block:
                    self.parts.append("\n")
            if child.tail:
                self.parts.append(child.tail)


def _is_bracket_marker(sup: etree._Element) -> bool:
    """A `<sup>` holding only `[1]`, `[a]`, `[note 2]`, `[citation needed]`: a marker even without a class."""
    text = "".join(sup.itertext()).strip()
    return bool(_BRACKET_MARKER.match(text))


def normalise_space(raw: str) -> str:
    """Collapse whitespace inside lines, keep line breaks, drop empty lines at the ends."""
    raw = _ZERO_WIDTH.sub("", raw)
    lines = (_WS.sub(" ", line).strip() for line in raw.split("\n"))
    return "\n".join(line for line in lines if line)


def split_symbol_markers(text: str) -> tuple[str, str]:
    """`"Watkins Glen‡"` -> `("Watkins Glen", "‡")`; a cell of only symbols keeps them as its value."""
    m = _SYMBOLS_TRAILING.match(text)
    if m:
        return m.group(1).rstrip(), m.group(2)
    m = _SYMBOLS_LEADING.match(text)
    if m:
        return m.group(2), m.group(1)
    return text, ""


def cell_text(el: etree._Element, *, symbol_markers: bool = True) -> CellText:
    walker = _Walker()
    if el.text:
        walker.parts.append(el.text)
    walker.walk(el)
    text = normalise_space("".join(walker.parts))
    markers = walker.markers
    if symbol_markers and text:
        text, symbols = split_symbol_markers(text)
        if symbols:
            markers = [*markers, Marker(symbols)]
    return CellText(text, markers, walker.nested)
