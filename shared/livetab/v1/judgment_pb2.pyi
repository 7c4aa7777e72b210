from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DeliberationRound(_message.Message):
    __slots__ = ("judge", "own_label", "peer_label", "revised_label", "justification")
    JUDGE_FIELD_NUMBER: _ClassVar[int]
    OWN_LABEL_FIELD_NUMBER: _ClassVar[int]
    PEER_LABEL_FIELD_NUMBER: _ClassVar[int]
    REVISED_LABEL_FIELD_NUMBER: _ClassVar[int]
    JUSTIFICATION_FIELD_NUMBER: _ClassVar[int]
    judge: str
    own_label: str
    peer_label: str
    revised_label: str
    justification: str
    def __init__(self, judge: _Optional[str] = ..., own_label: _Optional[str] = ..., peer_label: _Optional[str] = ..., revised_label: _Optional[str] = ..., justification: _Optional[str] = ...) -> None: ...

class InsightLabel(_message.Message):
    __slots__ = ("sentence", "label", "category", "decided_by", "claim_status", "claim_detail", "justification")
    SENTENCE_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    DECIDED_BY_FIELD_NUMBER: _ClassVar[int]
    CLAIM_STATUS_FIELD_NUMBER: _ClassVar[int]
    CLAIM_DETAIL_FIELD_NUMBER: _ClassVar[int]
    JUSTIFICATION_FIELD_NUMBER: _ClassVar[int]
    sentence: str
    label: str
    category: str
    decided_by: str
    claim_status: str
    claim_detail: str
    justification: str
    def __init__(self, sentence: _Optional[str] = ..., label: _Optional[str] = ..., category: _Optional[str] = ..., decided_by: _Optional[str] = ..., claim_status: _Optional[str] = ..., claim_detail: _Optional[str] = ..., justification: _Optional[str] = ...) -> None: ...

class Judgment(_message.Message):
    __slots__ = ("id", "request_id", "run_id", "question_id", "model", "judge", "verdict", "score", "rationale", "deliberation", "extracted_answer", "sample_index", "insights")
    ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    QUESTION_ID_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    JUDGE_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    RATIONALE_FIELD_NUMBER: _ClassVar[int]
    DELIBERATION_FIELD_NUMBER: _ClassVar[int]
    EXTRACTED_ANSWER_FIELD_NUMBER: _ClassVar[int]
    SAMPLE_INDEX_FIELD_NUMBER: _ClassVar[int]
    INSIGHTS_FIELD_NUMBER: _ClassVar[int]
    id: str
    request_id: str
    run_id: str
    question_id: str
    model: str
    judge: str
    verdict: str
    score: float
    rationale: str
    deliberation: _containers.RepeatedCompositeFieldContainer[DeliberationRound]
    extracted_answer: str
    sample_index: int
    insights: _containers.RepeatedCompositeFieldContainer[InsightLabel]
    def __init__(self, id: _Optional[str] = ..., request_id: _Optional[str] = ..., run_id: _Optional[str] = ..., question_id: _Optional[str] = ..., model: _Optional[str] = ..., judge: _Optional[str] = ..., verdict: _Optional[str] = ..., score: _Optional[float] = ..., rationale: _Optional[str] = ..., deliberation: _Optional[_Iterable[_Union[DeliberationRound, _Mapping]]] = ..., extracted_answer: _Optional[str] = ..., sample_index: _Optional[int] = ..., insights: _Optional[_Iterable[_Union[InsightLabel, _Mapping]]] = ...) -> None: ...
