"""A response cache on disk, keyed by method + URL + sorted parameters, so a re-run asks no server twice.

Each entry is one JSON file named by the sha256 of its key, written atomically (temp file + rename),
so an interrupted run never leaves a half-written entry behind.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["CachedResponse", "ResponseCache", "cache_key"]

log = logging.getLogger(__name__)


def cache_key(method: str, url: str, params: Mapping[str, Any] | None) -> str:
    items = sorted((str(k), str(v)) for k, v in (params or {}).items())
    blob = json.dumps([method.upper(), url, items], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedResponse:
    status: int
    text: str
    headers: dict[str, str]
    url: str
    stored_at: float


class ResponseCache:
    def __init__(self, root: str | Path, ttl_s: float | None = None) -> None:
        self.root = Path(root)
        self.ttl_s = ttl_s
        self.hits = 0
        self.misses = 0

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> CachedResponse | None:
        path = self._path(key)
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            entry = CachedResponse(status=int(raw["status"]), text=str(raw["text"]),
                                   headers={str(k): str(v) for k, v in raw["headers"].items()},
                                   url=str(raw["url"]), stored_at=float(raw["stored_at"]))
        except FileNotFoundError:
            self.misses += 1
            return None
        except (OSError, ValueError, KeyError, TypeError) as e:
            log.warning("cache entry %s is unreadable (%s); fetching again", path, e)
            self.misses += 1
            return None
        if self.ttl_s is not None and time.time() - entry.stored_at > self.ttl_s:
            self.misses += 1
            return None
        self.hits += 1
        return entry

    def put(self, key: str, status: int, text: str, headers: Mapping[str, str], url: str) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        payload = {"status": status, "text": text, "headers": dict(headers), "url": url, "stored_at": time.time()}
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(payload, f, ensure_ascii=False)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
