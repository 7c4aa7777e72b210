"""Page HTML, revision and creation date from the MediaWiki Action API (or the REST HTML endpoint).

- first revision (the page's creation): `action=query&prop=revisions&rvdir=newer&rvlimit=1`;
- latest revision id and timestamp: the same without `rvdir`;
- HTML of exactly that revision: `action=parse&oldid=…` (MediaWiki's parser output) or
  `/api/rest_v1/page/html/{title}/{revid}` (Parsoid HTML).
Every Action API call carries `maxlag` through the polite client. API errors come back as
`{"error": {"code": …, "info": …}}` and are raised as `MediaWikiError` with that code.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal
from urllib.parse import quote

from livetab_scraper.sources.http import PoliteClient

__all__ = ["API_URL", "REST_URL", "MediaWikiClient", "MediaWikiError", "PageHtml", "Revision"]

log = logging.getLogger(__name__)

API_URL = "https://{lang}.wikipedia.org/w/api.php"
REST_URL = "https://{lang}.wikipedia.org/api/rest_v1/page/html/{title}/{revid}"


class MediaWikiError(Exception):
    def __init__(self, code: str, info: str) -> None:
        super().__init__(f"{code}: {info}")
        self.code = code
        self.info = info


@dataclass(frozen=True)
class Revision:
    revid: int
    timestamp: str


@dataclass(frozen=True)
class PageHtml:
    title: str
    pageid: int
    revid: int
    timestamp: str
    html: str


def _check(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise MediaWikiError("badresponse", "the API answer is not a JSON object")
    err = data.get("error")
    if isinstance(err, dict):
        raise MediaWikiError(str(err.get("code", "unknown")), str(err.get("info", "")))
    return data


def _int(value: Any, name: str, title: str) -> int:
    """A whole number field of an answer; absent or malformed is a `badresponse` naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, str)) or not str(value).strip().isdigit():
        raise MediaWikiError("badresponse", f"the answer for {title!r} has no usable {name} ({str(value)[:40]!r})")
    return int(value)


def _timestamp(value: Any, title: str) -> str:
    """An ISO 8601 revision timestamp (`2026-10-21T00:00:00Z`); anything else is a `badresponse`."""
    text = str(value or "")
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise MediaWikiError("badresponse", f"the answer for {title!r} has no usable revision timestamp "
                                            f"({text[:40]!r})") from None
    return text


class MediaWikiClient:
    def __init__(self, http: PoliteClient, api_url: str = API_URL, rest_url: str = REST_URL,
                 mode: Literal["parse", "rest"] = "parse") -> None:
        self.http = http
        self.api_url = api_url
        self.rest_url = rest_url
        self.mode = mode

    def _api(self, lang: str, params: dict[str, str]) -> dict[str, Any]:
        base = {"format": "json", "formatversion": "2"}
        r = self.http.get(self.api_url.format(lang=lang), {**base, **params}, mediawiki=True)
        return _check(r.json())

    def _revision(self, lang: str, title: str, oldest: bool) -> tuple[str, int, Revision]:
        params = {"action": "query", "prop": "revisions", "titles": title, "rvlimit": "1",
                  "rvprop": "ids|timestamp", "redirects": "1"}
        if oldest:
            params["rvdir"] = "newer"
        data = self._api(lang, params)
        query = data.get("query")
        pages = query.get("pages", []) if isinstance(query, dict) else []
        if isinstance(pages, dict):  # formatversion=1: {pageid: page}
            pages = list(pages.values())
        if not isinstance(pages, list):
            raise MediaWikiError("badresponse", f"'pages' is not a list or an object in the answer for {title!r}")
        if not pages:
            raise MediaWikiError("badresponse", f"no page in the answer for {title!r}")
        page = pages[0]
        if not isinstance(page, dict):
            raise MediaWikiError("badresponse", f"the page in the answer for {title!r} is not an object")
        if page.get("missing") is not None and page.get("missing") is not False:
            raise MediaWikiError("missingtitle", f"the page {title!r} does not exist on {lang}.wikipedia")
        if page.get("invalid") is not None and page.get("invalid") is not False:
            raise MediaWikiError("invalidtitle", str(page.get("invalidreason", title)))
        revs = page.get("revisions") or []
        if not isinstance(revs, list):
            raise MediaWikiError("badresponse", f"'revisions' is not a list in the answer for {title!r}")
        if not revs:
            raise MediaWikiError("norevisions", f"the page {title!r} has no visible revisions")
        rev = revs[0]
        if not isinstance(rev, dict):
            raise MediaWikiError("badresponse", f"a revision of {title!r} is not an object")
        return (str(page.get("title", title)), _int(page.get("pageid", 0), "pageid", title),
                Revision(_int(rev.get("revid"), "revid", title), _timestamp(rev.get("timestamp"), title)))

    def first_revision(self, lang: str, title: str) -> Revision:
        """The page's first revision: when it was created."""
        return self._revision(lang, title, oldest=True)[2]

    def latest_revision(self, lang: str, title: str) -> Revision:
        return self._revision(lang, title, oldest=False)[2]

    def page_html(self, lang: str, title: str) -> PageHtml:
        """HTML of the latest revision, with its id and timestamp."""
        canonical, pageid, latest = self._revision(lang, title, oldest=False)
        if self.mode == "rest":
            url = self.rest_url.format(lang=lang, title=quote(canonical.replace(" ", "_"), safe=""),
                                       revid=latest.revid)
            r = self.http.get(url, accept="text/html; charset=utf-8")
            return PageHtml(canonical, pageid, latest.revid, latest.timestamp, r.text)
        data = self._api(lang, {"action": "parse", "oldid": str(latest.revid), "prop": "text|revid",
                                "disableeditsection": "1", "disablelimitreport": "1"})
        parse = data.get("parse")
        if not isinstance(parse, dict):
            raise MediaWikiError("badresponse", f"no 'parse' object in the answer for {title!r}")
        text = parse.get("text")
        if isinstance(text, dict):  # formatversion=1: {"*": html}
            text = text.get("*")
        if not isinstance(text, str):
            raise MediaWikiError("badresponse", f"no page text in the answer for {title!r}")
        revid = _int(parse.get("revid", latest.revid), "revid", title)
        return PageHtml(str(parse.get("title", canonical)), _int(parse.get("pageid", pageid), "pageid", title), revid,
                        latest.timestamp, text)
