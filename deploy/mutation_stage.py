"""Stage a mutation group and generate its mutants without running any test; list every mutant's name.

    python deploy/mutation_stage.py rubric_judge   # -> out/mutation/work/rubric_judge/all_names.txt

`deploy/mutation_check.py GROUP NAMES OUT` then checks the named mutants in one process (docs/mutation.md).
mutmut's earlier results in the group's folder are kept, as `deploy/mutation.py` keeps them.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mutation


def main(group_name: str) -> int:
    d = mutation.stage(mutation.BY_NAME[group_name])
    os.chdir(d)
    os.environ.update(mutation._env())
    from mutmut.__main__ import (
        copy_also_copy_files,
        copy_src_dir,
        create_mutants,
        set_mutant_under_test,
        setup_source_paths,
    )
    set_mutant_under_test("mutant_generation")
    os.makedirs("mutants", exist_ok=True)
    copy_src_dir()
    copy_also_copy_files()
    setup_source_paths()
    create_mutants(1)
    names: list[str] = []
    for meta in sorted(Path("mutants").rglob("*.meta")):
        names += list(json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"])
    (d / "all_names.txt").write_text("\n".join(names) + "\n", encoding="utf-8")
    print(f"{len(names)} mutants of {group_name}: {d / 'all_names.txt'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
