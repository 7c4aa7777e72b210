from livetab.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class InferenceRequest(_message.Message):
    __slots__ = ("id", "run_id", "question_id", "model", "format", "setting", "sample_index", "sampling", "max_rows", "call_size", "call_choice")
    ID_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    QUESTION_ID_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    SETTING_FIELD_NUMBER: _ClassVar[int]
    SAMPLE_INDEX_FIELD_NUMBER: _ClassVar[int]
    SAMPLING_FIELD_NUMBER: _ClassVar[int]
    MAX_ROWS_FIELD_NUMBER: _ClassVar[int]
    CALL_SIZE_FIELD_NUMBER: _ClassVar[int]
    CALL_CHOICE_FIELD_NUMBER: _ClassVar[int]
    id: str
    run_id: str
    question_id: str
    model: _common_pb2.ModelSpec
    format: str
    setting: str
    sample_index: int
    sampling: _common_pb2.Sampling
    max_rows: int
    call_size: int
    call_choice: int
    def __init__(self, id: _Optional[str] = ..., run_id: _Optional[str] = ..., question_id: _Optional[str] = ..., model: _Optional[_Union[_common_pb2.ModelSpec, _Mapping]] = ..., format: _Optional[str] = ..., setting: _Optional[str] = ..., sample_index: _Optional[int] = ..., sampling: _Optional[_Union[_common_pb2.Sampling, _Mapping]] = ..., max_rows: _Optional[int] = ..., call_size: _Optional[int] = ..., call_choice: _Optional[int] = ...) -> None: ...

class CallAnswers(_message.Message):
    __slots__ = ("choices",)
    CHOICES_FIELD_NUMBER: _ClassVar[int]
    choices: _containers.RepeatedCompositeFieldContainer[InferenceResult]
    def __init__(self, choices: _Optional[_Iterable[_Union[InferenceResult, _Mapping]]] = ...) -> None: ...

class InferenceResult(_message.Message):
    __slots__ = ("id", "run_id", "question_id", "model", "format", "setting", "sample_index", "response", "reasoning", "prompt_tokens", "completion_tokens", "latency_ms", "error", "cached", "seed", "prompt_version", "truncated_rows", "prompt_sha256")
    ID_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    QUESTION_ID_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    SETTING_FIELD_NUMBER: _ClassVar[int]
    SAMPLE_INDEX_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    PROMPT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_TOKENS_FIELD_NUMBER: _ClassVar[int]
    LATENCY_MS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    CACHED_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    PROMPT_VERSION_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_ROWS_FIELD_NUMBER: _ClassVar[int]
    PROMPT_SHA256_FIELD_NUMBER: _ClassVar[int]
    id: str
    run_id: str
    question_id: str
    model: str
    format: str
    setting: str
    sample_index: int
    response: str
    reasoning: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: float
    error: str
    cached: bool
    seed: int
    prompt_version: str
    truncated_rows: bool
    prompt_sha256: str
    def __init__(self, id: _Optional[str] = ..., run_id: _Optional[str] = ..., question_id: _Optional[str] = ..., model: _Optional[str] = ..., format: _Optional[str] = ..., setting: _Optional[str] = ..., sample_index: _Optional[int] = ..., response: _Optional[str] = ..., reasoning: _Optional[str] = ..., prompt_tokens: _Optional[int] = ..., completion_tokens: _Optional[int] = ..., latency_ms: _Optional[float] = ..., error: _Optional[str] = ..., cached: _Optional[bool] = ..., seed: _Optional[int] = ..., prompt_version: _Optional[str] = ..., truncated_rows: _Optional[bool] = ..., prompt_sha256: _Optional[str] = ...) -> None: ...
