from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Gold(_message.Message):
    __slots__ = ("kind", "text", "items", "number", "boolean", "option", "unit", "claims")
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    BOOLEAN_FIELD_NUMBER: _ClassVar[int]
    OPTION_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    CLAIMS_FIELD_NUMBER: _ClassVar[int]
    kind: str
    text: str
    items: _containers.RepeatedScalarFieldContainer[str]
    number: float
    boolean: bool
    option: int
    unit: str
    claims: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, kind: _Optional[str] = ..., text: _Optional[str] = ..., items: _Optional[_Iterable[str]] = ..., number: _Optional[float] = ..., boolean: _Optional[bool] = ..., option: _Optional[int] = ..., unit: _Optional[str] = ..., claims: _Optional[_Iterable[str]] = ...) -> None: ...

class Verification(_message.Message):
    __slots__ = ("method", "passed", "detail", "validator_trials", "validator_correct", "simplicity_trials", "simplicity_correct", "decisions")
    METHOD_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    VALIDATOR_TRIALS_FIELD_NUMBER: _ClassVar[int]
    VALIDATOR_CORRECT_FIELD_NUMBER: _ClassVar[int]
    SIMPLICITY_TRIALS_FIELD_NUMBER: _ClassVar[int]
    SIMPLICITY_CORRECT_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    method: str
    passed: bool
    detail: str
    validator_trials: int
    validator_correct: int
    simplicity_trials: int
    simplicity_correct: int
    decisions: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, method: _Optional[str] = ..., passed: _Optional[bool] = ..., detail: _Optional[str] = ..., validator_trials: _Optional[int] = ..., validator_correct: _Optional[int] = ..., simplicity_trials: _Optional[int] = ..., simplicity_correct: _Optional[int] = ..., decisions: _Optional[_Iterable[str]] = ...) -> None: ...

class Question(_message.Message):
    __slots__ = ("id", "table_id", "family", "skill", "scope", "operation", "difficulty", "language", "text", "options", "gold", "derivation", "verification", "status", "generator", "params", "release", "source_created_at", "closed_book")
    class ParamsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    SKILL_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    OPERATION_FIELD_NUMBER: _ClassVar[int]
    DIFFICULTY_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    GOLD_FIELD_NUMBER: _ClassVar[int]
    DERIVATION_FIELD_NUMBER: _ClassVar[int]
    VERIFICATION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    GENERATOR_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    RELEASE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    CLOSED_BOOK_FIELD_NUMBER: _ClassVar[int]
    id: str
    table_id: str
    family: str
    skill: str
    scope: str
    operation: str
    difficulty: str
    language: str
    text: str
    options: _containers.RepeatedScalarFieldContainer[str]
    gold: Gold
    derivation: str
    verification: Verification
    status: str
    generator: str
    params: _containers.ScalarMap[str, str]
    release: str
    source_created_at: str
    closed_book: bool
    def __init__(self, id: _Optional[str] = ..., table_id: _Optional[str] = ..., family: _Optional[str] = ..., skill: _Optional[str] = ..., scope: _Optional[str] = ..., operation: _Optional[str] = ..., difficulty: _Optional[str] = ..., language: _Optional[str] = ..., text: _Optional[str] = ..., options: _Optional[_Iterable[str]] = ..., gold: _Optional[_Union[Gold, _Mapping]] = ..., derivation: _Optional[str] = ..., verification: _Optional[_Union[Verification, _Mapping]] = ..., status: _Optional[str] = ..., generator: _Optional[str] = ..., params: _Optional[_Mapping[str, str]] = ..., release: _Optional[str] = ..., source_created_at: _Optional[str] = ..., closed_book: _Optional[bool] = ...) -> None: ...
