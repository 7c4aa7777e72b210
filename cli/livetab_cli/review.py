"""`livetab review list|accept|reject|edit`: the human review queue in the configured store (livetab.review).

An accepted or edited question is stored as verified and published on the questions topic, so the api
service's release handler records it for its (draft) release. Where it is published depends on the mode:
with a SQLite store (embedded mode, no broker) through an in-process bus that the api service's handlers
consuming questions are driven over until idle; with any other store (distributed mode) to Kafka.
`--bus` overrides the choice.

An edit of a question whose gold is computed (it carries the program that derives it) is re-verified:
the program is run again over the question's stored table in the sandbox, and an edited gold is accepted
only when the program's value agrees with it (a text edit keeps the computed gold, which must still agree).
A question without a program takes the reviewer's gold as written.
"""

from __future__ import annotations

import dataclasses
import getpass
import sys
from typing import Any

from livetab import review, topics
from livetab.bus import Outgoing
from livetab.questions import Question
from livetab.records import load_table
from livetab.settings import Settings
from livetab.store import Store, open_store, schema

__all__ = ["review_command"]


def _excerpt(text: str, n: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _mode(settings: Settings, choice: str) -> str:
    if choice != "auto":
        return choice
    return "inproc" if settings.store.url.startswith("sqlite") else "kafka"


def publish_question(settings: Settings, store: Store, question: Question, bus_choice: str = "auto") -> str:
    """Publish a decided question on the questions topic; returns where it went."""
    proto = question.to_proto()
    out = Outgoing(topics.QUESTIONS, proto, key=proto.table_id, message_id=proto.id)
    if _mode(settings, bus_choice) == "kafka":
        from livetab.bus.kafka import KafkaBus

        kafka = KafkaBus(settings.kafka, client_id="livetab-review")
        try:
            kafka.publish(out)
            kafka.flush()
        finally:
            kafka.close()
        return f"Kafka at {settings.kafka.bootstrap_servers}"
    from livetab.runtime.embedded import Embedded

    services = Embedded(settings, services=("api",), store=store)
    services.bus.publish(out)
    services.drive()
    n = sum(topics.QUESTIONS in h.topics for h in services.handlers("api"))
    return f"the in-process bus ({n} api handler(s) consuming it driven until idle)"


def edited_question(store: Store, item: review.ReviewItem, text: str | None, gold: str | None
                    ) -> tuple[Question, list[str]]:
    """The question with the reviewer's text and/or gold, and what was re-verified; ReviewError when the
    edit contradicts the question's program."""
    from livetab_qagen.llm_path import gold_from_value
    from livetab_qagen.sandbox import run_derivation
    from livetab_qagen.validator import answers_match

    q = item.question
    new_text = text.strip() if text is not None else q.text
    if not new_text:
        raise review.ReviewError("an edited question needs its text")
    changes = [f"text {q.text!r} -> {new_text!r}"] if new_text != q.text else []
    new_gold = gold_from_value(gold.strip()) if gold is not None and gold.strip() else q.gold
    if gold is not None and not gold.strip():
        raise review.ReviewError("an edited gold cannot be empty")
    if new_gold != q.gold:
        changes.append(f"gold {q.gold.text!r} -> {new_gold.text!r}")
    if not changes:
        raise review.ReviewError("the edit changes nothing: give --text and/or --gold different from the question's")
    checks = [f"human review edit: {'; '.join(changes)}"]
    if not q.derivation:
        return dataclasses.replace(q, text=new_text, gold=new_gold), [
            *checks, "no program derives this gold: the reviewer's gold is taken as written"]
    table = load_table(store.get(schema.tables, q.table_id))
    if table is None:
        raise review.ReviewError(f"cannot re-verify the edit: the question's table {q.table_id} is not in the store")
    result = run_derivation(q.derivation, {"df": [table.columns, *[list(r) for r in table.rows]]})
    if not result.ok:
        raise review.ReviewError(f"cannot re-verify the edit: the question's program stopped: {result.error}")
    computed = gold_from_value(result.value)
    if not answers_match(new_gold.text, computed, question=new_text, language=q.language):
        raise review.ReviewError(f"the gold is computed by the question's program, which gives {computed.text!r}, "
                                 f"not {new_gold.text!r}; reject the question if the program is wrong")
    checks.append(f"re-verified: the program run again over {q.table_id} gives {computed.text!r}, "
                  f"which agrees with the gold {new_gold.text!r}")
    return dataclasses.replace(q, text=new_text, gold=new_gold), checks


def _list(store: Store, args: Any) -> int:
    rows = review.items(store, release=args.release, status=args.status)
    print(f"{'id':<34} {'release':<14} {'status':<9} {'queued':<20} {'decided by':<14} {'reason':<18} question")
    for i in rows:
        when = i.created_at.strftime("%Y-%m-%d %H:%M:%S") if i.created_at else ""
        print(f"{i.question.id:<34} {i.release:<14} {i.status:<9} {when:<20} {i.reviewer[:14]:<14} "
              f"{_excerpt(i.reason, 18):<18} {_excerpt(i.question.text)} -> {_excerpt(i.question.gold.text, 30)}")
    print(f"{len(rows)} item(s)")
    return 0


def _decide(settings: Settings, store: Store, args: Any) -> int:
    reviewer = args.reviewer or getpass.getuser()
    decision = {"accept": review.ACCEPTED, "reject": review.REJECTED, "edit": review.EDITED}[args.action]
    edited, checks = None, None
    if decision == review.EDITED:
        item = review.get(store, args.id)
        if item.status != review.PENDING:  # say so before re-running any program
            raise review.ReviewError(f"question {args.id} was already {item.status} by {item.reviewer}")
        edited, checks = edited_question(store, item, args.text, args.gold)
    q = review.decide(store, args.id, decision, reviewer=reviewer, note=args.note or "", edited=edited, checks=checks)
    if decision == review.REJECTED:
        print(f"question {q.id} rejected by {reviewer}; it stays out of release {q.release!r}")
        return 0
    where = publish_question(settings, store, q, args.bus)
    print(f"question {q.id} {'accepted' if decision == review.ACCEPTED else 'edited and accepted'} by {reviewer}: "
          f"stored as verified and published on {topics.QUESTIONS} through {where} for release {q.release!r}")
    for d in checks or []:
        print(f"  {d}")
    return 0


def review_command(settings: Settings, args: Any) -> int:
    store = open_store(settings.store.url)
    try:
        return _list(store, args) if args.action == "list" else _decide(settings, store, args)
    except review.ReviewError as e:
        print(f"livetab review {args.action}: {e}", file=sys.stderr)
        return 1
    finally:
        store.close()
