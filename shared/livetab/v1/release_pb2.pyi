from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ReleaseStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RELEASE_STATUS_UNSPECIFIED: _ClassVar[ReleaseStatus]
    DRAFT: _ClassVar[ReleaseStatus]
    FROZEN: _ClassVar[ReleaseStatus]
    LIVE: _ClassVar[ReleaseStatus]
    RETIRED: _ClassVar[ReleaseStatus]
RELEASE_STATUS_UNSPECIFIED: ReleaseStatus
DRAFT: ReleaseStatus
FROZEN: ReleaseStatus
LIVE: ReleaseStatus
RETIRED: ReleaseStatus

class ReleaseCommand(_message.Message):
    __slots__ = ("id", "release", "action", "requested_by", "requested_at")
    class Action(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        ACTION_UNSPECIFIED: _ClassVar[ReleaseCommand.Action]
        FREEZE: _ClassVar[ReleaseCommand.Action]
        PUBLISH: _ClassVar[ReleaseCommand.Action]
        RETIRE: _ClassVar[ReleaseCommand.Action]
    ACTION_UNSPECIFIED: ReleaseCommand.Action
    FREEZE: ReleaseCommand.Action
    PUBLISH: ReleaseCommand.Action
    RETIRE: ReleaseCommand.Action
    ID_FIELD_NUMBER: _ClassVar[int]
    RELEASE_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_BY_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    release: str
    action: ReleaseCommand.Action
    requested_by: str
    requested_at: str
    def __init__(self, id: _Optional[str] = ..., release: _Optional[str] = ..., action: _Optional[_Union[ReleaseCommand.Action, str]] = ..., requested_by: _Optional[str] = ..., requested_at: _Optional[str] = ...) -> None: ...

class ReleaseEvent(_message.Message):
    __slots__ = ("id", "release", "status", "manifest_hash", "questions", "command_id", "refused", "at")
    ID_FIELD_NUMBER: _ClassVar[int]
    RELEASE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    MANIFEST_HASH_FIELD_NUMBER: _ClassVar[int]
    QUESTIONS_FIELD_NUMBER: _ClassVar[int]
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    REFUSED_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    release: str
    status: ReleaseStatus
    manifest_hash: str
    questions: int
    command_id: str
    refused: str
    at: str
    def __init__(self, id: _Optional[str] = ..., release: _Optional[str] = ..., status: _Optional[_Union[ReleaseStatus, str]] = ..., manifest_hash: _Optional[str] = ..., questions: _Optional[int] = ..., command_id: _Optional[str] = ..., refused: _Optional[str] = ..., at: _Optional[str] = ...) -> None: ...

class JudgeCommand(_message.Message):
    __slots__ = ("id", "run_ids", "again", "requested_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    RUN_IDS_FIELD_NUMBER: _ClassVar[int]
    AGAIN_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    run_ids: _containers.RepeatedScalarFieldContainer[str]
    again: bool
    requested_at: str
    def __init__(self, id: _Optional[str] = ..., run_ids: _Optional[_Iterable[str]] = ..., again: _Optional[bool] = ..., requested_at: _Optional[str] = ...) -> None: ...
