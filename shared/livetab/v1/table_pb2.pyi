from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Cell(_message.Message):
    __slots__ = ("row", "col", "rowspan", "colspan", "text", "header")
    ROW_FIELD_NUMBER: _ClassVar[int]
    COL_FIELD_NUMBER: _ClassVar[int]
    ROWSPAN_FIELD_NUMBER: _ClassVar[int]
    COLSPAN_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    HEADER_FIELD_NUMBER: _ClassVar[int]
    row: int
    col: int
    rowspan: int
    colspan: int
    text: str
    header: bool
    def __init__(self, row: _Optional[int] = ..., col: _Optional[int] = ..., rowspan: _Optional[int] = ..., colspan: _Optional[int] = ..., text: _Optional[str] = ..., header: _Optional[bool] = ...) -> None: ...

class Source(_message.Message):
    __slots__ = ("kind", "uri", "title", "revision", "table_index", "created_at", "retrieved_at", "licence", "attribution")
    KIND_FIELD_NUMBER: _ClassVar[int]
    URI_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    TABLE_INDEX_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    RETRIEVED_AT_FIELD_NUMBER: _ClassVar[int]
    LICENCE_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTION_FIELD_NUMBER: _ClassVar[int]
    kind: str
    uri: str
    title: str
    revision: str
    table_index: int
    created_at: str
    retrieved_at: str
    licence: str
    attribution: str
    def __init__(self, kind: _Optional[str] = ..., uri: _Optional[str] = ..., title: _Optional[str] = ..., revision: _Optional[str] = ..., table_index: _Optional[int] = ..., created_at: _Optional[str] = ..., retrieved_at: _Optional[str] = ..., licence: _Optional[str] = ..., attribution: _Optional[str] = ...) -> None: ...

class StructureProfile(_message.Message):
    __slots__ = ("size_class", "multi_level_header", "grouped_rows", "footnotes", "content_types", "n_rows", "n_cols")
    SIZE_CLASS_FIELD_NUMBER: _ClassVar[int]
    MULTI_LEVEL_HEADER_FIELD_NUMBER: _ClassVar[int]
    GROUPED_ROWS_FIELD_NUMBER: _ClassVar[int]
    FOOTNOTES_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TYPES_FIELD_NUMBER: _ClassVar[int]
    N_ROWS_FIELD_NUMBER: _ClassVar[int]
    N_COLS_FIELD_NUMBER: _ClassVar[int]
    size_class: str
    multi_level_header: bool
    grouped_rows: bool
    footnotes: bool
    content_types: _containers.RepeatedScalarFieldContainer[str]
    n_rows: int
    n_cols: int
    def __init__(self, size_class: _Optional[str] = ..., multi_level_header: _Optional[bool] = ..., grouped_rows: _Optional[bool] = ..., footnotes: _Optional[bool] = ..., content_types: _Optional[_Iterable[str]] = ..., n_rows: _Optional[int] = ..., n_cols: _Optional[int] = ...) -> None: ...

class Table(_message.Message):
    __slots__ = ("id", "source", "language", "domain", "caption", "header", "rows", "cells", "footnotes", "profile", "column_types", "release", "group_column", "total_rows", "column_units")
    class ColumnTypesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class ColumnUnitsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    CAPTION_FIELD_NUMBER: _ClassVar[int]
    HEADER_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    CELLS_FIELD_NUMBER: _ClassVar[int]
    FOOTNOTES_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    COLUMN_TYPES_FIELD_NUMBER: _ClassVar[int]
    RELEASE_FIELD_NUMBER: _ClassVar[int]
    GROUP_COLUMN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_ROWS_FIELD_NUMBER: _ClassVar[int]
    COLUMN_UNITS_FIELD_NUMBER: _ClassVar[int]
    id: str
    source: Source
    language: str
    domain: str
    caption: str
    header: _containers.RepeatedCompositeFieldContainer[HeaderRow]
    rows: _containers.RepeatedCompositeFieldContainer[Row]
    cells: _containers.RepeatedCompositeFieldContainer[Cell]
    footnotes: _containers.RepeatedScalarFieldContainer[str]
    profile: StructureProfile
    column_types: _containers.ScalarMap[str, str]
    release: str
    group_column: str
    total_rows: _containers.RepeatedScalarFieldContainer[int]
    column_units: _containers.ScalarMap[str, str]
    def __init__(self, id: _Optional[str] = ..., source: _Optional[_Union[Source, _Mapping]] = ..., language: _Optional[str] = ..., domain: _Optional[str] = ..., caption: _Optional[str] = ..., header: _Optional[_Iterable[_Union[HeaderRow, _Mapping]]] = ..., rows: _Optional[_Iterable[_Union[Row, _Mapping]]] = ..., cells: _Optional[_Iterable[_Union[Cell, _Mapping]]] = ..., footnotes: _Optional[_Iterable[str]] = ..., profile: _Optional[_Union[StructureProfile, _Mapping]] = ..., column_types: _Optional[_Mapping[str, str]] = ..., release: _Optional[str] = ..., group_column: _Optional[str] = ..., total_rows: _Optional[_Iterable[int]] = ..., column_units: _Optional[_Mapping[str, str]] = ...) -> None: ...

class HeaderRow(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, values: _Optional[_Iterable[str]] = ...) -> None: ...

class Row(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, values: _Optional[_Iterable[str]] = ...) -> None: ...

class ScrapeCommand(_message.Message):
    __slots__ = ("id", "source", "location", "release", "language", "options")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    RELEASE_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    id: str
    source: str
    location: str
    release: str
    language: str
    options: _containers.ScalarMap[str, str]
    def __init__(self, id: _Optional[str] = ..., source: _Optional[str] = ..., location: _Optional[str] = ..., release: _Optional[str] = ..., language: _Optional[str] = ..., options: _Optional[_Mapping[str, str]] = ...) -> None: ...
