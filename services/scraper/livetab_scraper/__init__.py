"""livetab's scraper: tables out of web pages and files, extracted faithfully, cleaned, profiled."""

from __future__ import annotations

__all__: list[str] = []
