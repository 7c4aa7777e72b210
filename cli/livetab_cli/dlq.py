"""`livetab dlq list|show|redrive` and `livetab replay`: dead letters after a fix, against the configured
store and Kafka bus (the logic is in livetab.dlq)."""

from __future__ import annotations

import json
import sys
from typing import Any

from livetab.dlq import DeadLetterFilter, default_group, letters, redrive, replay
from livetab.settings import Settings

__all__ = ["dlq_command", "replay_command"]


def _excerpt(text: str, n: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _decoded(row: dict[str, Any]) -> Any:
    """The original payload as JSON when it decodes as its topic's message, else why not."""
    from google.protobuf.json_format import MessageToDict
    from livetab.bus import Record, decode

    if row["value"] is None:
        return None
    rec = Record(row["source_topic"], row["partition"], row["offset"], row["key"], row["value"],
                 json.loads(row["headers"] or "{}"))
    try:
        return MessageToDict(decode(rec), preserving_proto_field_name=True)
    except Exception as e:
        return {"undecodable": f"{type(e).__name__}: {e}", "value_hex": row["value"][:256].hex()}


def dlq_command(settings: Settings, args: Any) -> int:
    from livetab.store import open_store

    store = open_store(settings.store.url)
    try:
        flt = DeadLetterFilter(service=args.service or "", run_id=args.run or "", topic=getattr(args, "topic", "") or "")
        if args.action == "list":
            rows = letters(store, flt)
            print(f"{'id':<48} {'service':<10} {'source':<40} {'run':<14} {'when':<20} {'redriven':<9} error")
            for r in rows:
                src = f"{r['source_topic']}/{r['partition']}@{r['offset']}"
                when = r["created_at"].strftime("%Y-%m-%d %H:%M:%S") if r["created_at"] else ""
                print(f"{r['id']:<48} {r['service']:<10} {src:<40} {r['run_id'][:12]:<14} {when:<20} "
                      f"{'yes' if r['redriven_at'] else 'no':<9} {_excerpt(r['error'])}")
            print(f"{len(rows)} dead letter(s)")
            return 0
        if args.action == "show":
            rows = letters(store, ids=args.ids)
            if not rows:
                print(f"livetab dlq show: no dead letter {' '.join(args.ids)}", file=sys.stderr)
                return 1
            for r in rows:
                doc = {k: v for k, v in r.items() if k not in ("key", "value", "headers")}
                doc["created_at"] = str(r["created_at"])
                doc["redriven_at"] = str(r["redriven_at"]) if r["redriven_at"] else None
                doc["key"] = r["key"].decode("utf-8", "replace") if r["key"] else None
                doc["headers"] = json.loads(r["headers"] or "{}")
                doc["payload"] = _decoded(r)
                print(json.dumps(doc, indent=2, ensure_ascii=False, default=str))
            return 0
        # redrive
        if not args.ids and not args.all:
            print("livetab dlq redrive: name dead letter ids, or --all (narrowed by --service/--run/--topic)",
                  file=sys.stderr)
            return 2
        rows = letters(store, flt, ids=args.ids or None)
        from livetab.bus.kafka import KafkaBus

        bus = KafkaBus(settings.kafka, client_id="livetab-dlq")
        try:
            published, skipped = redrive(store, bus, rows, again=args.again)
        finally:
            bus.close()
        print(f"redriven {published} dead letter(s) to their source topics; skipped {len(skipped)} "
              "(already redriven — use --again — or stored without the original record)")
        return 0
    finally:
        store.close()


def replay_command(settings: Settings, args: Any) -> int:
    try:
        group = args.group or default_group(args.topic)
        moved = replay(settings.kafka.bootstrap_servers, args.topic, args.start, group)
    except (ValueError, KeyError) as e:  # an unknown topic, a bad --from, a group still running
        print(f"livetab replay: {e}", file=sys.stderr)
        return 2
    where = ", ".join(f"{p}@{o}" for p, o in sorted(moved.items()))
    print(f"group {group} will re-read {args.topic} from partition@offset {where} (restart its workers)")
    return 0
