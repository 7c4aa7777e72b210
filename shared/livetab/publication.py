"""Whether a release may be published in full.

A release is *live* while models are still being evaluated on it: its question texts, gold answers and the
models' answers to them must stay out of every public file (leaderboards, report.html, plots, the release
export), or the benchmark leaks into the next crawl. It becomes public once it is *retired*.

There is no release lifecycle in the store yet, so a release is retired only when the configuration says so
(`releases.retired`, or `LIVETAB_RELEASES__RETIRED='["2026-10"]'`); every other release counts as live.
This one function is the only place that decides, so a lifecycle in the store can plug in here later.
"""

from __future__ import annotations

from livetab.settings import ReleaseSettings, Settings

__all__ = ["is_public"]


def is_public(release: str, settings: Settings | ReleaseSettings | None = None) -> bool:
    """True when `release` is retired (its questions, gold answers and answers may be published);
    False for a live release — which is every release not listed as retired."""
    if settings is None:
        return False
    releases = settings.releases if isinstance(settings, Settings) else settings
    return bool(release) and release in releases.retired
