from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Frame(_message.Message):
    __slots__ = ("messages",)
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[FramedMessage]
    def __init__(self, messages: _Optional[_Iterable[_Union[FramedMessage, _Mapping]]] = ...) -> None: ...

class FramedMessage(_message.Message):
    __slots__ = ("key", "value", "headers")
    class HeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    key: bytes
    value: bytes
    headers: _containers.ScalarMap[str, str]
    def __init__(self, key: _Optional[bytes] = ..., value: _Optional[bytes] = ..., headers: _Optional[_Mapping[str, str]] = ...) -> None: ...
