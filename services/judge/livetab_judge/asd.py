"""Assisted Self-Deliberation (AraTable): two or more LLM judges label every answer independently; a
disagreement report lists the conflicts; each judge, anonymised as Judge1, Judge2, ..., then receives
its conflicts three at a time, each with its own label and the other judges' labels only (never their
reasoning), must justify its own label and the other label against the rubric and keep or revise.
One re-evaluation pass per judge, only on disagreements. The final label follows a configured rule.
Every re-evaluation is recorded as a `DeliberationRound`.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from livetab.models.base import ChatMessage, ModelError
from livetab.v1 import judgment_pb2

from livetab_judge.llm_judge import (
    FALSE,
    RUBRIC,
    TRUE,
    UNPARSED,
    JudgeItem,
    JudgeLabel,
    LLMJudge,
    item_block,
    json_objects,
    label_from_value,
    label_word,
    parse_label,
    strip_echo,
)

__all__ = [
    "BATCH_SIZE",
    "FINAL_RULES",
    "UNCERTAIN",
    "ASDItemResult",
    "ASDResult",
    "Conflict",
    "DeliberationRound",
    "build_deliberation_messages",
    "disagreement_report",
    "final_label",
    "parse_deliberation",
    "run_asd",
]

log = logging.getLogger(__name__)

UNCERTAIN = "uncertain"
FINAL_RULES = ("agree-else-uncertain", "judge1-wins", "any-true", "all-true", "majority")
BATCH_SIZE = 3


@dataclass(frozen=True)
class DeliberationRound:
    """One judge's re-evaluation of one conflict; mirrors livetab.v1 DeliberationRound plus bookkeeping."""

    judge: str  # the anonymised alias, Judge1, Judge2, ...
    own_label: str
    peer_label: str
    revised_label: str
    justification: str
    item_id: str = ""
    judge_name: str = ""  # the judge's real name, for the record only; never shown to another judge
    batch: int = 0
    parsed: bool = True

    def to_proto(self) -> judgment_pb2.DeliberationRound:
        return judgment_pb2.DeliberationRound(
            judge=self.judge, own_label=label_word(self.own_label), peer_label=self.peer_label,
            revised_label=label_word(self.revised_label), justification=self.justification,
        )


@dataclass(frozen=True)
class Conflict:
    item_id: str
    labels: dict[str, str]  # alias -> label


@dataclass
class ASDItemResult:
    item_id: str
    initial: dict[str, str]
    revised: dict[str, str]
    final: str  # true, false, uncertain
    rounds: list[DeliberationRound] = field(default_factory=list)
    justifications: dict[str, str] = field(default_factory=dict)


@dataclass
class ASDResult:
    rule: str
    aliases: dict[str, str]  # alias -> judge name
    items: list[ASDItemResult]
    conflicts: list[Conflict]

    @property
    def rounds(self) -> list[DeliberationRound]:
        return [r for it in self.items for r in it.rounds]

    def by_id(self) -> dict[str, ASDItemResult]:
        return {it.item_id: it for it in self.items}

    def summary(self) -> dict[str, int]:
        rounds = self.rounds
        return {
            "items": len(self.items),
            "conflicts": len(self.conflicts),
            "rounds": len(rounds),
            "revised": sum(1 for r in rounds if r.revised_label != r.own_label),
            "unparsed_rounds": sum(1 for r in rounds if not r.parsed),
            "resolved": sum(1 for it in self.items if it.item_id in {c.item_id for c in self.conflicts}
                            and it.final != UNCERTAIN),
        }


def disagreement_report(items: Sequence[JudgeItem], labels: dict[str, dict[str, JudgeLabel]]) -> list[Conflict]:
    """Items whose judges did not all give the same decided label (unparsed and error count as different)."""
    conflicts: list[Conflict] = []
    for it in items:
        per_alias = {alias: labels[alias][it.item_id].label for alias in labels}
        if len(set(per_alias.values())) > 1 or any(v not in (TRUE, FALSE) for v in per_alias.values()):
            conflicts.append(Conflict(it.item_id, per_alias))
    return conflicts


def final_label(labels: dict[str, str], rule: str, aliases_in_order: Sequence[str]) -> str:
    """Combine the judges' (revised) labels by the configured rule into true, false or uncertain."""
    decided = [labels[a] for a in aliases_in_order if labels.get(a) in (TRUE, FALSE)]
    if rule == "agree-else-uncertain":
        if len(decided) == len(aliases_in_order) and len(set(decided)) == 1:
            return decided[0]
        return UNCERTAIN
    if rule == "judge1-wins":
        first = labels.get(aliases_in_order[0], UNPARSED)
        return first if first in (TRUE, FALSE) else UNCERTAIN
    if rule == "any-true":
        return TRUE if TRUE in decided else (FALSE if decided else UNCERTAIN)
    if rule == "all-true":
        if FALSE in decided:
            return FALSE
        return TRUE if len(decided) == len(aliases_in_order) else UNCERTAIN
    if rule == "majority":
        counts = Counter(decided)
        if counts[TRUE] == counts[FALSE]:
            return UNCERTAIN
        return TRUE if counts[TRUE] > counts[FALSE] else FALSE
    raise ValueError(f"unknown ASD final rule {rule!r}; choose one of {', '.join(FINAL_RULES)}")


def _shown(label: str) -> str:
    return label_word(label) if label in (TRUE, FALSE) else "no label (the reply could not be read)"


def _peer_text(alias: str, labels: dict[str, str]) -> str:
    peers = [(a, lab) for a, lab in labels.items() if a != alias]
    if len(peers) == 1:
        return _shown(peers[0][1])
    return ", ".join(f"{a}: {_shown(lab)}" for a, lab in peers)


_DELIB_FORMAT = (
    'For each conflict write one JSON object on its own line: {"conflict": <number>, '
    '"own": "<why your label may hold under the rules>", "other": "<why the other label may hold>", '
    '"label": "True" or "False"}'
)


def build_deliberation_messages(alias: str, batch: Sequence[tuple[JudgeItem, str, str]]) -> list[ChatMessage]:
    """The prompt for one batch of conflicts: (item, own label, peer label text) each. It carries the
    peers' labels only; nothing of any judge's reasoning goes in."""
    parts = []
    for k, (item, own, peer) in enumerate(batch, 1):
        parts.append(
            f"Conflict {k}\n{item_block(item)}\nYour label ({alias}): {_shown(own)}\n"
            f"The other judge's label: {peer}"
        )
    intro = (
        f"You are {alias}. Another judge labelled these responses differently. For each conflict, justify your "
        "own label and the other label against the rules, then keep or revise your label."
    )
    return [
        ChatMessage("system", RUBRIC),
        ChatMessage("user", intro + "\n\n" + "\n\n".join(parts) + "\n\n" + _DELIB_FORMAT),
    ]


_CONFLICT_HEAD = re.compile(r"(?:conflict|item|#)\s*(\d+)\s*[:.)\-]?", re.IGNORECASE)


def parse_deliberation(text: str, n: int) -> dict[int, tuple[str, str]]:
    """Decisions found in a deliberation reply: conflict number (1-based) -> (label, justification).

    JSON objects with a conflict number come first; then sections headed "Conflict k"; a reply to a
    batch of one may also be a plain label. Conflicts without a decision are simply absent.
    """
    body = strip_echo(text or "")
    found: dict[int, tuple[str, str]] = {}
    objs = json_objects(body)
    for pos, obj in enumerate(objs, 1):
        low = {str(k).lower(): v for k, v in obj.items()}
        num = low.get("conflict", low.get("item", pos if len(objs) == n else None))
        try:
            k = int(str(num))
        except (TypeError, ValueError):
            continue
        label = label_from_value(low.get("label", low.get("final_label")))
        if 1 <= k <= n and label is not None and k not in found:
            just = " | ".join(str(low[key]) for key in ("own", "other", "justification") if key in low)
            found[k] = (label, just)
    if len(found) == n:
        return found
    heads = list(_CONFLICT_HEAD.finditer(body))
    for i, m in enumerate(heads):
        k = int(m.group(1))
        if not 1 <= k <= n or k in found:
            continue
        end = heads[i + 1].start() if i + 1 < len(heads) else len(body)
        parsed = parse_label(body[m.end():end])
        if parsed.label in (TRUE, FALSE):
            found[k] = (parsed.label, parsed.justification)
    if n == 1 and 1 not in found:
        parsed = parse_label(body)
        if parsed.label in (TRUE, FALSE):
            found[1] = (parsed.label, parsed.justification)
    return found


async def _deliberate(judge: LLMJudge, alias: str, name: str, conflicts: list[Conflict],
                      items: dict[str, JudgeItem], batch_size: int) -> list[DeliberationRound]:
    rounds: list[DeliberationRound] = []
    for b, start in enumerate(range(0, len(conflicts), batch_size)):
        chunk = conflicts[start:start + batch_size]
        batch = [(items[c.item_id], c.labels[alias], _peer_text(alias, c.labels)) for c in chunk]
        try:
            reply = await judge.complete(build_deliberation_messages(alias, batch))
            decisions = parse_deliberation(reply, len(chunk))
        except ModelError as e:
            log.warning("%s (%s) failed to deliberate batch %d: %s", alias, name, b, e)
            reply, decisions = f"model error: {e}", {}
        for k, (c, (_, own, peer)) in enumerate(zip(chunk, batch, strict=True), 1):
            if k in decisions:
                revised, just = decisions[k]
                rounds.append(DeliberationRound(alias, own, peer, revised, just, c.item_id, name, b, True))
            else:
                note = f"no decision parsed; own label kept. reply: {reply.strip()[:300]}"
                rounds.append(DeliberationRound(alias, own, peer, own, note, c.item_id, name, b, False))
    return rounds


async def run_asd(judges: Sequence[LLMJudge], items: Sequence[JudgeItem], *, rule: str = "agree-else-uncertain",
                  batch_size: int = BATCH_SIZE) -> ASDResult:
    """Independent labels, disagreement report, one deliberation pass per judge, final labels by `rule`."""
    if rule not in FINAL_RULES:
        raise ValueError(f"unknown ASD final rule {rule!r}; choose one of {', '.join(FINAL_RULES)}")
    if not judges:
        raise ValueError("run_asd needs at least one judge")
    if len({it.item_id for it in items}) != len(items):
        raise ValueError("run_asd: item ids must be unique")
    aliases = [f"Judge{i}" for i in range(1, len(judges) + 1)]
    by_alias = dict(zip(aliases, judges, strict=True))
    initial_lists = await asyncio.gather(*(j.label_many(list(items)) for j in judges))
    labels = {a: {lab.item_id: lab for lab in labs} for a, labs in zip(aliases, initial_lists, strict=True)}
    conflicts = disagreement_report(items, labels) if len(judges) > 1 else []
    log.info("ASD: %d items, %d conflicts among %d judges", len(items), len(conflicts), len(judges))
    item_map = {it.item_id: it for it in items}
    round_lists = await asyncio.gather(*(
        _deliberate(by_alias[a], a, by_alias[a].name, conflicts, item_map, batch_size) for a in aliases
    ))
    rounds_by_item: dict[str, list[DeliberationRound]] = {}
    for rl in round_lists:
        for r in rl:
            rounds_by_item.setdefault(r.item_id, []).append(r)
    results: list[ASDItemResult] = []
    for it in items:
        initial = {a: labels[a][it.item_id].label for a in aliases}
        revised = dict(initial)
        for r in rounds_by_item.get(it.item_id, []):
            revised[r.judge] = r.revised_label
        results.append(ASDItemResult(
            item_id=it.item_id, initial=initial, revised=revised, final=final_label(revised, rule, aliases),
            rounds=rounds_by_item.get(it.item_id, []),
            justifications={a: labels[a][it.item_id].justification or labels[a][it.item_id].error for a in aliases},
        ))
    return ASDResult(rule=rule, aliases={a: by_alias[a].name for a in aliases}, items=results, conflicts=conflicts)

