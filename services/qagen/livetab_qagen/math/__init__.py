"""Math over tables (AutoT2T / TabularMath): word problems formalised, turned into tables, checked by Z3."""

from livetab_qagen.math.build import GENERATOR, MathBuild, MathItem, build_math_items
from livetab_qagen.math.formalise import Formalisation, FormaliseError, formalise_annotations, formalise_with_model
from livetab_qagen.math.gsm8k import GSM8KProblem, load_problems
from livetab_qagen.math.synth import SHAPES, synthesise, synthesise_many
from livetab_qagen.math.z3check import Z3Verdict, check_table, check_values

__all__ = [
    "GENERATOR",
    "SHAPES",
    "Formalisation",
    "FormaliseError",
    "GSM8KProblem",
    "MathBuild",
    "MathItem",
    "Z3Verdict",
    "build_math_items",
    "check_table",
    "check_values",
    "formalise_annotations",
    "formalise_with_model",
    "load_problems",
    "synthesise",
    "synthesise_many",
]
