from livetab.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RunSettings(_message.Message):
    __slots__ = ("formats", "settings", "samples", "sampling", "max_rows", "families", "limit")
    FORMATS_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    SAMPLES_FIELD_NUMBER: _ClassVar[int]
    SAMPLING_FIELD_NUMBER: _ClassVar[int]
    MAX_ROWS_FIELD_NUMBER: _ClassVar[int]
    FAMILIES_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    formats: _containers.RepeatedScalarFieldContainer[str]
    settings: _containers.RepeatedScalarFieldContainer[str]
    samples: int
    sampling: _common_pb2.Sampling
    max_rows: int
    families: _containers.RepeatedScalarFieldContainer[str]
    limit: int
    def __init__(self, formats: _Optional[_Iterable[str]] = ..., settings: _Optional[_Iterable[str]] = ..., samples: _Optional[int] = ..., sampling: _Optional[_Union[_common_pb2.Sampling, _Mapping]] = ..., max_rows: _Optional[int] = ..., families: _Optional[_Iterable[str]] = ..., limit: _Optional[int] = ...) -> None: ...

class Run(_message.Message):
    __slots__ = ("id", "team", "model", "release", "settings", "requested_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    RELEASE_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    team: str
    model: _common_pb2.ModelSpec
    release: str
    settings: RunSettings
    requested_at: str
    def __init__(self, id: _Optional[str] = ..., team: _Optional[str] = ..., model: _Optional[_Union[_common_pb2.ModelSpec, _Mapping]] = ..., release: _Optional[str] = ..., settings: _Optional[_Union[RunSettings, _Mapping]] = ..., requested_at: _Optional[str] = ...) -> None: ...
