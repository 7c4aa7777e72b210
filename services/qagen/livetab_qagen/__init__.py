"""livetab qagen: turns tables into verified questions.

The programmatic path (`generate`) writes questions of every table family from locale templates and
computes each gold answer by executing a pandas derivation, re-computed independently and checked
for table dependence before it is kept.
"""

from livetab_qagen.programmatic import ALL_FAMILIES, GenerationResult, generate

__all__ = ["ALL_FAMILIES", "GenerationResult", "generate"]
