from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class Sampling(_message.Message):
    __slots__ = ("temperature", "top_p", "max_tokens", "seed", "n")
    TEMPERATURE_FIELD_NUMBER: _ClassVar[int]
    TOP_P_FIELD_NUMBER: _ClassVar[int]
    MAX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    N_FIELD_NUMBER: _ClassVar[int]
    temperature: float
    top_p: float
    max_tokens: int
    seed: int
    n: int
    def __init__(self, temperature: _Optional[float] = ..., top_p: _Optional[float] = ..., max_tokens: _Optional[int] = ..., seed: _Optional[int] = ..., n: _Optional[int] = ...) -> None: ...

class ModelSpec(_message.Message):
    __slots__ = ("name", "backend", "base_url", "model", "api_key_ref", "pool", "params", "knowledge_cutoff")
    class ParamsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    BASE_URL_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    API_KEY_REF_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_CUTOFF_FIELD_NUMBER: _ClassVar[int]
    name: str
    backend: str
    base_url: str
    model: str
    api_key_ref: str
    pool: str
    params: _containers.ScalarMap[str, str]
    knowledge_cutoff: str
    def __init__(self, name: _Optional[str] = ..., backend: _Optional[str] = ..., base_url: _Optional[str] = ..., model: _Optional[str] = ..., api_key_ref: _Optional[str] = ..., pool: _Optional[str] = ..., params: _Optional[_Mapping[str, str]] = ..., knowledge_cutoff: _Optional[str] = ...) -> None: ...
