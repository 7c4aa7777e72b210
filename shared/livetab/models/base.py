"""The one interface every model call goes through: answering, generating, validating, judging."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from livetab.questions import Question
    from livetab.tables import Table

__all__ = ["ChatMessage", "Completion", "GenerateRequest", "ModelBackend", "ModelError", "SamplingParams"]


@dataclass(frozen=True)
class ChatMessage:
    role: str  # system, user, assistant
    content: str | list[dict[str, object]]  # text, or OpenAI content parts (text + image_url)


@dataclass(frozen=True)
class SamplingParams:
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 64
    seed: int = 0
    n: int = 1


@dataclass(frozen=True)
class GenerateRequest:
    """What a backend is asked: a chat (`messages`) or, when `prompt` is set, a raw text completion of
    `prompt` (the way base models are evaluated; `messages` then carry the same text for logs and token
    estimates); generation stops at any of `stop`. `question` and `table` are in-process context only (the
    inference handler sets them for the scripted oracle/anti-oracle model): no remote backend sends them
    anywhere — a model is shown `messages` or `prompt`, never the gold."""

    messages: list[ChatMessage]
    sampling: SamplingParams = field(default_factory=SamplingParams)
    prompt: str = ""
    stop: tuple[str, ...] = ()
    question: Question | None = field(default=None, compare=False, repr=False)
    table: Table | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Completion:
    text: str
    reasoning: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0


class ModelError(Exception):
    """A model call failed. `retryable` says whether trying again may help (429, 5xx, timeouts)."""

    def __init__(self, message: str, *, retryable: bool = False, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after


@runtime_checkable
class ModelBackend(Protocol):
    """One async method: return `sampling.n` completions for the request."""

    name: str

    async def generate(self, request: GenerateRequest) -> list[Completion]: ...
