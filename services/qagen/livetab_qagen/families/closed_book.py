"""Closed-book variants (TeleTables): the same verified question asked without the table, which is
named by its title and source instead
(never by a file name: a file table needs its caption and attribution). Only questions about named rows
(one cell, or two rows compared) get a closed-book variant: a whole-table answer holds for the table as
scraped, which may be shortened, not necessarily for the page a model remembers. Gold, derivation and verification are the base question's."""

from __future__ import annotations

import copy
import hashlib
from urllib.parse import urlsplit

from livetab.ids import question_id
from livetab.questions import Question
from livetab.tables import Table

from livetab_qagen.templates import Locale

__all__ = ["source_name", "table_name", "variants"]


def source_name(table: Table) -> str:
    """Where the table is from, as a reader names it: "Wikipedia" for a Wikipedia page (not its
    `action=render&curid=...` address), else the attribution, the site, or the source's address."""
    uri = table.source.uri or ""
    host = (urlsplit(uri).hostname or "") if "://" in uri else ""
    if host == "wikipedia.org" or host.endswith(".wikipedia.org"):
        return "Wikipedia"
    return table.source.attribution or host or uri or table.source.kind or table.id


def table_name(table: Table, locale: Locale) -> str:
    """The table's name in running text: its caption (or its page's title), and the page's title beside a
    caption that does not contain it ("Representing Kazakhstan" in the article "Olga Rypakova"), where the
    locale has words for that (`closed_book.titled`)."""
    caption, page = table.caption.strip(), table.source.title.strip()
    title = caption or page
    if caption and page and page.lower() not in caption.lower() and locale.has("closed_book.titled"):
        return locale.t("closed_book.titled", caption=locale.q(caption), page=locale.q(page))
    return locale.q(title)


def variants(table: Table, base: list[Question], locale: Locale, limit: int) -> tuple[list[Question], list[tuple[str, str]]]:
    """Up to `limit` closed-book copies of `base` questions (taken in turn from each family)."""
    title = table.caption or table.source.title
    source = source_name(table)
    name = table_name(table, locale)
    if (table.source.uri or "").startswith("file:"):
        # A file's name ("tatqa_bf16cbd8b1.csv") names nothing a reader knows: a file table is named by its
        # caption and its publisher (the configured attribution), or it gets no closed-book variant.
        title, source, name = table.caption, table.source.attribution, locale.q(table.caption)
        if not title or not source:
            return [], [("closed_book_file_name", f"{table.id}: a file table without caption and attribution "
                                                  "would be named only by its file name")]
    if not title:
        return [], [("closed_book_no_title", f"{table.id}: no caption or source title to name the table by")]
    by_family: dict[str, list[Question]] = {}
    for q in base:
        # a whole-table question (a count, a sum, a ranking) holds for the table as scraped, which cleaning
        # may have shortened (max_rows): recalled from the page itself, its answer can differ
        # and an answer the table's name gives away ("Spicy Horse", the developer on the page "Spicy Horse") is no question
        if (not q.closed_book and q.table_id == table.id and q.scope != "full_table"
                and not (len(q.gold.text) >= 3 and q.gold.text.lower() in name.lower())):
            by_family.setdefault(q.family, []).append(q)
    order: list[Question] = []
    while any(by_family.values()) and len(order) < limit:
        for qs in by_family.values():
            if qs and len(order) < limit:
                order.append(qs.pop(0))
    out = []
    for q in order:
        v = copy.deepcopy(q)
        v.id = question_id(table.id, "programmatic.closed_book", {"base": q.id})
        form = int(hashlib.sha256(q.id.encode()).hexdigest()[:8], 16)
        v.text = locale.t("closed_book.question", form=form, title=name, source=source,
                          question=q.text)
        v.closed_book = True
        v.generator = f"programmatic.closed_book.{q.family}"
        v.params = {**q.params, "closed_book_of": q.id}
        v.verification.decisions = [*q.verification.decisions, f"closed-book variant of {q.id}"]
        out.append(v)
    return out, []
