from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class LeaderboardRow(_message.Message):
    __slots__ = ("run_id", "model", "slice", "n", "correct", "accuracy", "ci_low", "ci_high")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    SLICE_FIELD_NUMBER: _ClassVar[int]
    N_FIELD_NUMBER: _ClassVar[int]
    CORRECT_FIELD_NUMBER: _ClassVar[int]
    ACCURACY_FIELD_NUMBER: _ClassVar[int]
    CI_LOW_FIELD_NUMBER: _ClassVar[int]
    CI_HIGH_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    model: str
    slice: str
    n: int
    correct: int
    accuracy: float
    ci_low: float
    ci_high: float
    def __init__(self, run_id: _Optional[str] = ..., model: _Optional[str] = ..., slice: _Optional[str] = ..., n: _Optional[int] = ..., correct: _Optional[int] = ..., accuracy: _Optional[float] = ..., ci_low: _Optional[float] = ..., ci_high: _Optional[float] = ...) -> None: ...

class LeaderboardUpdate(_message.Message):
    __slots__ = ("id", "run_id", "release", "rows", "judged", "planned")
    ID_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    RELEASE_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    JUDGED_FIELD_NUMBER: _ClassVar[int]
    PLANNED_FIELD_NUMBER: _ClassVar[int]
    id: str
    run_id: str
    release: str
    rows: _containers.RepeatedCompositeFieldContainer[LeaderboardRow]
    judged: int
    planned: int
    def __init__(self, id: _Optional[str] = ..., run_id: _Optional[str] = ..., release: _Optional[str] = ..., rows: _Optional[_Iterable[_Union[LeaderboardRow, _Mapping]]] = ..., judged: _Optional[int] = ..., planned: _Optional[int] = ...) -> None: ...
