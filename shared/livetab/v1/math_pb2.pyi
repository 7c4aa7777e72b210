from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MathProblem(_message.Message):
    __slots__ = ("id", "text", "answer", "source", "release", "language", "created_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    RELEASE_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    text: str
    answer: MathAnswer
    source: ProblemSource
    release: str
    language: str
    created_at: str
    def __init__(self, id: _Optional[str] = ..., text: _Optional[str] = ..., answer: _Optional[_Union[MathAnswer, _Mapping]] = ..., source: _Optional[_Union[ProblemSource, _Mapping]] = ..., release: _Optional[str] = ..., language: _Optional[str] = ..., created_at: _Optional[str] = ...) -> None: ...

class MathAnswer(_message.Message):
    __slots__ = ("final", "solution")
    FINAL_FIELD_NUMBER: _ClassVar[int]
    SOLUTION_FIELD_NUMBER: _ClassVar[int]
    final: str
    solution: str
    def __init__(self, final: _Optional[str] = ..., solution: _Optional[str] = ...) -> None: ...

class ProblemSource(_message.Message):
    __slots__ = ("kind", "uri", "index", "revision", "retrieved_at", "licence", "attribution")
    KIND_FIELD_NUMBER: _ClassVar[int]
    URI_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    RETRIEVED_AT_FIELD_NUMBER: _ClassVar[int]
    LICENCE_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTION_FIELD_NUMBER: _ClassVar[int]
    kind: str
    uri: str
    index: int
    revision: str
    retrieved_at: str
    licence: str
    attribution: str
    def __init__(self, kind: _Optional[str] = ..., uri: _Optional[str] = ..., index: _Optional[int] = ..., revision: _Optional[str] = ..., retrieved_at: _Optional[str] = ..., licence: _Optional[str] = ..., attribution: _Optional[str] = ...) -> None: ...
