from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class DeadLetter(_message.Message):
    __slots__ = ("source_topic", "partition", "offset", "error", "consumer_group", "key", "value", "headers", "failed_at", "index")
    class HeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    SOURCE_TOPIC_FIELD_NUMBER: _ClassVar[int]
    PARTITION_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    CONSUMER_GROUP_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    FAILED_AT_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    source_topic: str
    partition: int
    offset: int
    error: str
    consumer_group: str
    key: bytes
    value: bytes
    headers: _containers.ScalarMap[str, str]
    failed_at: str
    index: int
    def __init__(self, source_topic: _Optional[str] = ..., partition: _Optional[int] = ..., offset: _Optional[int] = ..., error: _Optional[str] = ..., consumer_group: _Optional[str] = ..., key: _Optional[bytes] = ..., value: _Optional[bytes] = ..., headers: _Optional[_Mapping[str, str]] = ..., failed_at: _Optional[str] = ..., index: _Optional[int] = ...) -> None: ...
