"""Prompts: versioned templates that turn a question (and its table) into chat messages.

Settings: `with_table` (the table in the prompt) and `closed_book` (only the table's name and source,
TeleTables' "considering the table ... from document ..."). Formats: csv, markdown, html, json, text,
image, and combinations joined by `+` (`html+json`, `markdown+image`), each part in turn.

The instruction follows AraTable's zero-shot prompt ("Answer the following question using only the
information in the table ... without any explanation"); fact verification asks for True or False,
multiple choice lists lettered options and asks for the letter, insight questions ask for one
statement (with FreshTab's logical operation when the question names one), or one statement per line when
the question asks for several (FreshTab's Choice mode). On imperfect tables the
prompt may allow "the table does not allow an answer". Instructions exist in English and Arabic;
other languages get English instructions. There is always a system message. Rows beyond `max_rows`
(AraTable: 40) are cut and the cut is recorded; every prompt carries its token estimate.

Two prompt modes (a model setting, `prompt_mode`): `chat` (the above, for instruct models) and
`completion`, the way lm-evaluation-harness evaluates base models: one plain text with the task's
instruction, `shots` worked examples (table, question, "Answer: <gold>") of the same task from OTHER tables
of the same release, then the target table and question and "Answer:", completed up to a stop sequence
(a newline; a blank line when several statements are asked for). The examples follow the release's own
fixed order (`example_order`: ranked by a hash of the release name and question id), so they are fixed per release; the
prompt version records the mode, the number of examples and a digest of their question ids.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import logging
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from livetab.models.base import ChatMessage
from livetab.questions import OPTION_LETTERS, Question, option_letter
from livetab.render import FORMATS as TEXT_FORMATS
from livetab.render import Rendering, count_tokens, count_tokens_joined, render, render_png
from livetab.tables import Table

__all__ = ["FORMATS", "PROMPT_MODES", "PROMPT_VERSION", "SETTINGS", "Prompt", "build_completion", "build_messages",
           "example_order", "gold_answer_text", "image_tokens", "parse_format", "pick_examples"]

log = logging.getLogger(__name__)

PROMPT_VERSION = "p2"  # change it whenever any wording below changes: cached answers are keyed on the prompt
FORMATS = (*TEXT_FORMATS, "image")
SETTINGS = ("with_table", "closed_book")
PROMPT_MODES = ("chat", "completion")
EXAMPLE_MAX_CELLS = 80  # worked examples come from small tables: every shot costs prompt tokens
_MESSAGE_OVERHEAD_TOKENS = 4  # role and separators of one chat message

_OPERATIONS_EN = {
    "aggregation": "a sum or an average over some rows",
    "all": "a property that all rows share",
    "comparative": "a comparison of two entities on a property",
    "count": "how many rows satisfy a condition",
    "negation": "something that is not the case",
    "ordinal": "a rank, such as the second largest value",
    "simple": "a plain fact from one row",
    "superlative": "a maximum or a minimum",
    "unique": "the distinct values of a column",
}
_OPERATIONS_AR = {
    "aggregation": "مجموع أو متوسط لعدد من الصفوف",
    "all": "خاصية تشترك فيها جميع الصفوف",
    "comparative": "مقارنة بين كيانين في خاصية ما",
    "count": "عدد الصفوف التي تحقق شرطًا ما",
    "negation": "أمر لا يتحقق في الجدول",
    "ordinal": "ترتيب، مثل ثاني أكبر قيمة",
    "simple": "حقيقة بسيطة من صف واحد",
    "superlative": "قيمة عظمى أو صغرى",
    "unique": "القيم المختلفة لعمود ما",
}

_TEXT: dict[str, dict[str, str]] = {
    "en": {
        "system": "You are a careful assistant that answers questions about tables.",
        "qa": "Answer the following question using only the information in the table below and return the "
              "answer without any explanation.",
        "fact": "Decide whether the following statement is True or False using only the information in the table "
                "below. Answer with True or False only, without any explanation.",
        "mcq": "Answer the following multiple-choice question using only the information in the table below. "
               "Reply with the letter of the correct option only, without any explanation.",
        "insight": "Write one short statement about the table below that its contents support{op}. "
                   "Return only the statement.",
        "op": " and that states {what}",
        "insights": "Write short statements about the table below that its contents support, one per line, as the "
                    "question asks. Return only the statements.",
        "closed": "Consider the table {name} from the document {doc}. Without seeing the table, {task}",
        "closed_qa": "answer the following question and return the answer without any explanation.",
        "closed_fact": "decide whether the following statement is True or False. Answer with True or False only.",
        "closed_mcq": "answer the following multiple-choice question with the letter of the correct option only.",
        "closed_insight": "write one short statement about that table. Return only the statement.",
        "closed_insights": "write short statements about that table, one per line, as the question asks. "
                           "Return only the statements.",
        "no_table": "Answer the following question and return the answer without any explanation.",
        "imperfect": "If the table does not allow an answer (a needed value is missing, or the table contradicts "
                     "itself), say so instead of guessing.",
        "entities": "",
        "table": "Table",
        "image": "The table is shown in the image.",
        "question": "Question",
        "statement": "Statement",
        "options": "Options",
        "answer": "Answer",
        "truncated": "(only the first {n} of {total} rows are shown)",
    },
    "ar": {
        "system": "أنت مساعد دقيق يجيب عن الأسئلة المتعلقة بالجداول.",
        "qa": "أجب عن السؤال التالي باستخدام المعلومات الواردة في الجدول أدناه فقط، وأعد الإجابة دون أي شرح.",
        "fact": "حدّد ما إذا كانت العبارة التالية صحيحة أم خاطئة باستخدام المعلومات الواردة في الجدول أدناه فقط. "
                "أجب بـ True أو False فقط، دون أي شرح.",
        "mcq": "أجب عن سؤال الاختيار من متعدد التالي باستخدام المعلومات الواردة في الجدول أدناه فقط. "
               "أجب بحرف الخيار الصحيح فقط، دون أي شرح.",
        "insight": "اكتب عبارة قصيرة واحدة عن الجدول أدناه تدعمها بياناته{op}. أعد العبارة فقط.",
        "op": " وتذكر {what}",
        "insights": "اكتب عبارات قصيرة عن الجدول أدناه تدعمها بياناته، عبارة في كل سطر، كما يطلب السؤال. أعد العبارات فقط.",
        "closed": "انظر في الجدول {name} من الوثيقة {doc}. دون رؤية الجدول، {task}",
        "closed_qa": "أجب عن السؤال التالي وأعد الإجابة دون أي شرح.",
        "closed_fact": "حدّد ما إذا كانت العبارة التالية صحيحة أم خاطئة. أجب بـ True أو False فقط.",
        "closed_mcq": "أجب عن سؤال الاختيار من متعدد التالي بحرف الخيار الصحيح فقط.",
        "closed_insight": "اكتب عبارة قصيرة واحدة عن ذلك الجدول. أعد العبارة فقط.",
        "closed_insights": "اكتب عبارات قصيرة عن ذلك الجدول، عبارة في كل سطر، كما يطلب السؤال. أعد العبارات فقط.",
        "no_table": "أجب عن السؤال التالي وأعد الإجابة دون أي شرح.",
        "imperfect": "إذا كان الجدول لا يسمح بالإجابة (قيمة مطلوبة مفقودة أو الجدول يناقض نفسه)، فقل ذلك بدلًا من التخمين.",
        "entities": "اكتب أسماء الكيانات باللغة العربية كما وردت في الجدول.",
        "table": "الجدول",
        "image": "الجدول معروض في الصورة.",
        "question": "السؤال",
        "statement": "العبارة",
        "options": "الخيارات",
        "answer": "الإجابة",
        "truncated": "(تُعرض أول {n} صفوف فقط من أصل {total})",
    },
}


@dataclass(frozen=True)
class Prompt:
    messages: list[ChatMessage]
    prompt_tokens_estimate: int
    truncated: bool
    version: str = PROMPT_VERSION
    fmt: str = ""
    setting: str = ""
    language: str = "en"
    completion: str = ""  # completion mode: the plain-text prompt the model continues ("" in chat mode)
    stop: tuple[str, ...] = ()
    examples: list[str] = field(default_factory=list)  # completion mode: the worked examples' question ids


def parse_format(fmt: str) -> list[str]:
    """The parts of a format like `html+json`; `ValueError` naming the bad part."""
    parts = [p.strip().lower() for p in fmt.split("+")]
    bad = [p for p in parts if p not in FORMATS]
    if not fmt or bad:
        raise ValueError(f"unknown table format {fmt!r}; use one of {', '.join(FORMATS)} or a '+' combination")
    if len(set(parts)) != len(parts):
        raise ValueError(f"table format {fmt!r} repeats a part")
    return parts


def image_tokens(png: bytes) -> int:
    """Tokens a vision model charges for an image at high detail (OpenAI's rule: fit in 2048x2048, shortest
    side to 768, then 170 per 512-pixel tile plus 85)."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or len(png) < 24:
        raise ValueError("not a PNG image")
    width, height = struct.unpack(">II", png[16:24])
    scale = min(1.0, 2048 / max(width, height))
    w, h = width * scale, height * scale
    scale = min(1.0, 768 / min(w, h)) if min(w, h) > 0 else 1.0
    w, h = w * scale, h * scale
    tiles = -(-int(w) // 512) * -(-int(h) // 512)
    return 85 + 170 * tiles


def _language(question: Question, table: Table | None) -> str:
    lang = (question.language or (table.language if table else "") or "en").lower().split("-")[0]
    return lang if lang in _TEXT else "en"


def _task_key(question: Question) -> str:
    if question.family == "fact" or (question.gold.kind == "boolean" and not question.options):
        return "fact"
    if question.family == "mcq" or question.options:
        return "mcq"
    if question.family == "insight":
        return "insight"
    return "qa"


def _question_block(question: Question, task: str, t: dict[str, str]) -> str:
    if task == "fact":
        lines = [f"{t['statement']}: {question.text}"]
    else:
        lines = [f"{t['question']}: {question.text}"] if question.text else []
    if task == "mcq":
        if len(question.options) > len(OPTION_LETTERS):
            raise ValueError(f"question {question.id} has {len(question.options)} options; at most 26 can be lettered")
        lines.append(f"{t['options']}:")
        # Option 1 (Gold.option == 1) is "A": the answer contract's numbering (livetab.questions).
        lines.extend(f"{option_letter(pos)}. {opt}" for pos, opt in enumerate(question.options, start=1))
    lines.append(f"{t['answer']}:")
    return "\n".join(lines)


def _several_insights(question: Question) -> bool:
    """FreshTab's Choice mode (qagen's operation "choice"): the question asks for several insights."""
    return question.family == "insight" and question.operation == "choice"


def _instruction(question: Question, task: str, t: dict[str, str], lang: str, imperfect_hint: bool) -> str:
    if _several_insights(question):
        text = t["insights"]
    elif task == "insight":
        ops = _OPERATIONS_AR if lang == "ar" else _OPERATIONS_EN
        what = ops.get(question.operation, "")
        text = t["insight"].format(op=t["op"].format(what=what) if what else "")
    else:
        text = t[task]
    extras = [t["imperfect"]] if imperfect_hint else []
    if t["entities"] and task in ("qa", "insight"):
        extras.append(t["entities"])
    return " ".join([text, *extras])


class Renderer(Protocol):
    def __call__(self, table: Table, fmt: str, *, max_rows: int | None = None) -> Rendering: ...


@functools.lru_cache(maxsize=1024)
def _repeated_tokens(text: str) -> int:
    """`count_tokens` of a text many prompts share (a system message, an instruction, a table's title)."""
    return count_tokens(text)


def build_messages(question: Question, table: Table | None, *, fmt: str, setting: str, max_rows: int = 40,
                   imperfect_hint: bool | None = None, renderer: Renderer | None = None) -> Prompt:
    """Chat messages for one question in one format and setting.

    `imperfect_hint` adds "if the table does not allow an answer, say so"; by default it is on for the
    `imperfect` family only (TabularMath found the hint costs accuracy on well-posed tables). `renderer`
    renders the table (default `livetab.render.render`; the service passes one that reuses a rendering for
    the requests that share a table).
    """
    if setting not in SETTINGS:
        raise ValueError(f"unknown prompt setting {setting!r}; use one of {', '.join(SETTINGS)}")
    if max_rows < 1:
        raise ValueError("max_rows must be at least 1")
    parts = parse_format(fmt)
    lang = _language(question, table)
    t = _TEXT[lang]
    task = _task_key(question)
    hint = question.family == "imperfect" if imperfect_hint is None else imperfect_hint
    system = ChatMessage("system", t["system"])
    if setting == "closed_book" or table is None:
        if setting == "with_table":
            raise ValueError(f"question {question.id}: the with_table setting needs its table")
        if table is not None:
            name = f"“{table.caption or table.source.title or table.id}”"
            doc = f"“{table.source.title or table.source.uri or table.id}”"
            closed_task = "closed_insights" if _several_insights(question) else f"closed_{task}"
            head = t["closed"].format(name=name, doc=doc, task=t[closed_task])
        else:
            head = t["no_table"]
        text = f"{head}\n\n{_question_block(question, task, t)}"
        user = ChatMessage("user", text)
        tokens = _repeated_tokens(str(system.content)) + count_tokens(text) + 2 * _MESSAGE_OVERHEAD_TOKENS
        return Prompt([system, user], tokens, False, PROMPT_VERSION, fmt, setting, lang)

    instruction = _instruction(question, task, t, lang, hint)
    title = f"{t['table']}: {table.caption}" if table.caption else t["table"]
    truncated = table.n_rows > max_rows
    if truncated:
        title += f"\n{t['truncated'].format(n=max_rows, total=table.n_rows)}"
    text_parts = [p for p in parts if p != "image"]
    sections: list[str] = [instruction]
    if text_parts:
        rendering = (renderer or render)(table, "+".join(text_parts), max_rows=max_rows)
        sections.append(f"{title}\n{rendering.text}")
    else:
        sections.append(title)
    tail = _question_block(question, task, t)
    tokens = _repeated_tokens(str(system.content)) + 2 * _MESSAGE_OVERHEAD_TOKENS
    if "image" not in parts:
        text = "\n\n".join([*sections, tail])
        if text_parts:  # the table's text is counted once, by its rendering (the prompt's largest part)
            table_part = count_tokens_joined([title, rendering.text], [_repeated_tokens(title), rendering.tokens],
                                             "\n")
            text_tokens = count_tokens_joined([instruction, sections[1], tail],
                                              [_repeated_tokens(instruction), table_part, count_tokens(tail)])
        else:
            text_tokens = count_tokens(text)
        return Prompt([system, ChatMessage("user", text)], tokens + text_tokens, truncated, PROMPT_VERSION,
                      fmt, setting, lang)
    png = render_png(table, max_rows=max_rows)
    head = "\n\n".join([*sections, t["image"]])
    content: list[dict[str, object]] = [
        {"type": "text", "text": head},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(png).decode("ascii"),
                                            "detail": "high"}},
        {"type": "text", "text": tail},
    ]
    tokens += count_tokens(head) + count_tokens(tail) + image_tokens(png)
    return Prompt([system, ChatMessage("user", content)], tokens, truncated, PROMPT_VERSION, fmt, setting, lang)


def gold_answer_text(question: Question) -> str | None:
    """The answer a worked example shows, in the form the prompt asks for; None if it has no short one."""
    task = _task_key(question)
    gold = question.gold
    if task == "insight" or gold.kind in ("free", "insufficient", "contradictory"):
        return None
    if task == "fact":
        return "True" if gold.boolean else "False"
    if task == "mcq":
        # The letter the gold option is shown with (Gold.option counts from 1, livetab.questions)
        if 1 <= gold.option <= min(len(question.options), len(OPTION_LETTERS)):
            return option_letter(gold.option)
        return None
    text = gold.text or ", ".join(gold.items)
    return text if text and "\n" not in text else None


def example_order(questions: Iterable[Question], tables: Mapping[str, Table], release: str, *,
                  max_cells: int = EXAMPLE_MAX_CELLS) -> list[Question]:
    """The release's worked-example candidates in its fixed order: questions with a short gold answer whose
    table is known and small (at most `max_cells` cells; all sizes if none is), in an order seeded by the
    release name. The same release gives the same order in every process."""
    usable = [q for q in questions if q.table_id in tables and gold_answer_text(q) is not None]
    small = [q for q in usable if tables[q.table_id].n_rows * max(1, tables[q.table_id].n_cols) <= max_cells]
    # Ranked by a hash of (release, question id): a question added to the release later takes its own place
    # and leaves the relative order of the others, and so mostly the examples already in use, unchanged.
    return sorted(small or usable,
                  key=lambda q: (hashlib.sha256(f"livetab-shots:{release}:{q.id}".encode()).hexdigest(), q.id))


def pick_examples(order: Sequence[Question], target: Question, k: int) -> list[Question]:
    """The first `k` candidates of the release's order that ask the same kind of task as `target` about
    another table (never the target's own table, so no example gives its answer away)."""
    task = _task_key(target)
    picked: list[Question] = []
    tables: set[str] = set()
    for q in order:
        if len(picked) >= k:
            break
        if q.table_id == target.table_id or q.id == target.id or _task_key(q) != task or q.table_id in tables:
            continue
        picked.append(q)
        tables.add(q.table_id)
    return picked


def _completion_block(question: Question, table: Table, parts: list[str], t: dict[str, str], max_rows: int) -> str:
    title = f"{t['table']}: {table.caption}" if table.caption else t["table"]
    if table.n_rows > max_rows:
        title += f"\n{t['truncated'].format(n=max_rows, total=table.n_rows)}"
    rendering = render(table, "+".join(parts), max_rows=max_rows)
    return f"{title}\n{rendering.text}\n\n{_question_block(question, _task_key(question), t)}"


def build_completion(question: Question, table: Table, examples: Sequence[tuple[Question, Table]], *, fmt: str,
                     max_rows: int = 40, imperfect_hint: bool | None = None) -> Prompt:
    """A completion-mode prompt: instruction, worked examples (each ending "Answer: <gold>"), the target
    ending "Answer:". Text formats only, `with_table` only: a base model reads plain text."""
    if max_rows < 1:
        raise ValueError("max_rows must be at least 1")
    parts = parse_format(fmt)
    if "image" in parts:
        raise ValueError("the completion prompt mode takes text formats only")
    lang = _language(question, table)
    t = _TEXT[lang]
    task = _task_key(question)
    hint = question.family == "imperfect" if imperfect_hint is None else imperfect_hint
    blocks = [_instruction(question, task, t, lang, hint)]
    ids: list[str] = []
    for ex_q, ex_table in examples:
        if ex_q.table_id == question.table_id:
            raise ValueError(f"worked example {ex_q.id} is about the target's own table {question.table_id}")
        answer = gold_answer_text(ex_q)
        if answer is None:
            raise ValueError(f"worked example {ex_q.id} has no short gold answer")
        blocks.append(f"{_completion_block(ex_q, ex_table, parts, t, max_rows)} {answer}")
        ids.append(ex_q.id)
    blocks.append(_completion_block(question, table, parts, t, max_rows))
    text = "\n\n".join(blocks)
    digest = hashlib.sha256("\n".join(ids).encode()).hexdigest()[:8]
    version = f"{PROMPT_VERSION}-completion-k{len(ids)}" + (f"-{digest}" if ids else "")
    stop = ("\n\n",) if _several_insights(question) else ("\n",)
    return Prompt([ChatMessage("user", text)], count_tokens(text), table.n_rows > max_rows, version, fmt,
                  "with_table", lang, completion=text, stop=stop, examples=ids)
