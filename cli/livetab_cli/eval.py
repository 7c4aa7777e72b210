"""`livetab eval`: evaluate models on a release without a config file, through `livetab.evaluate` (the same
function the Python API is), with a progress bar."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["add_parser", "cmd_eval"]


def _csv(text: str) -> list[str]:
    return [p.strip() for p in text.split(",") if p.strip()]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    from livetab.evaluate_api import DEFAULT_OUTPUT
    from livetab.evaluate_release import BUNDLED_RELEASE

    e: argparse.ArgumentParser = sub.add_parser("eval", help="evaluate models on a release without a config file (openai:URL, gguf:PATH, "
                       "grpc:HOST:PORT, a bundled model)")
    e.add_argument("--model", action="append", required=True, metavar="REF",
                   help="openai:URL (an OpenAI-compatible /v1 base), gguf:PATH, grpc:HOST:PORT or a bundled model "
                        "(smollm2-135m, gemma3-270m); repeatable (--model-name and --model-args then apply to each)")
    e.add_argument("--model-name", default="", help="the served model's id (openai, grpc; default: the only model "
                   "the endpoint lists)")
    e.add_argument("--model-args", default="", metavar="K=V,...",
                   help="temperature, top_p, max_tokens, api_key_env (the NAME of the variable holding the key), "
                        "knowledge_cutoff, n_ctx, n_threads, prompt_mode, shots, name, and backend options "
                        "(timeout_s, concurrency, body.FIELD, ...)")
    e.add_argument("--release", default=BUNDLED_RELEASE,
                   help=f"a release in the store, a retired release's export folder, or {BUNDLED_RELEASE!r}: the "
                        "bundled sample (default; generated once into a cache, works offline)")
    e.add_argument("--families", default="", help="comma-separated task families (default: all)")
    e.add_argument("--formats", default="markdown", help="comma-separated table formats (`livetab list formats`)")
    e.add_argument("--settings", default="with_table", help="with_table, closed_book or both (comma-separated)")
    e.add_argument("--samples", type=int, default=1, help="samples per question")
    e.add_argument("--limit", type=int, default=0, help="only the first N questions by id (0: all)")
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--max-rows", type=int, default=40, help="table rows shown in a prompt")
    e.add_argument("--concurrency", type=int, default=16, help="requests in flight to a remote endpoint")
    e.add_argument("--output", default=DEFAULT_OUTPUT, help="folder for the files and, by default, the store")
    e.add_argument("--store", default="", help="store URL (default: sqlite in the output folder; resuming needs the "
                   "same store)")
    e.add_argument("--knowledge-cutoff", default="", metavar="YYYY-MM-DD",
                   help="the model's declared knowledge cutoff (the report's freshness cut)")
    e.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    e.add_argument("-v", "--verbose", action="store_true", help="log at INFO")
    e.set_defaults(func=cmd_eval)
    return e


def cmd_eval(args: argparse.Namespace) -> int:
    from livetab.evaluate_api import EvalError, evaluate
    from livetab.telemetry import configure_logging
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    configure_logging("INFO" if args.verbose else "WARNING", "text", "livetab")
    console = Console(stderr=True)
    bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                   TextColumn("answered {task.fields[answered]}/{task.total}, judged {task.completed}, "
                              "{task.fields[tok_s]:.0f} tok/s"),
                   TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), console=console,
                   transient=True, disable=args.quiet)
    task: list[Any] = []

    def progress(p: Any) -> None:
        if not task:  # started with the first question, so a probe's one line stands alone
            bar.start()
            task.append(bar.add_task("eval", total=p.planned, answered=0, tok_s=0.0))
        bar.update(task[0], completed=p.judged, answered=p.answered, tok_s=p.tokens_per_s)

    try:
        try:
            res = evaluate(args.model, release=args.release, model_name=args.model_name, model_args=args.model_args,
                           families=_csv(args.families), formats=_csv(args.formats), settings=_csv(args.settings),
                           samples=args.samples, limit=args.limit, seed=args.seed, concurrency=args.concurrency,
                           output=args.output, store=args.store, knowledge_cutoff=args.knowledge_cutoff,
                           max_rows=args.max_rows, progress=progress,
                           on_probe=lambda line: console.print(f"probe: {line}") if not args.quiet else None)
        finally:
            if task:
                bar.stop()
    except EvalError as e:
        print(f"livetab eval: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nlivetab eval: stopped; run the same command again to resume (answers so far are in "
              f"{args.store or args.output})", file=sys.stderr)
        return 130
    print(f"livetab eval — release {res.release}, {res.elapsed_s:.1f}s")
    for m in res.leaderboard.get("models", []):
        print(f"  {m['model']}: {m['correct']}/{m['n']} correct, accuracy {m['accuracy']:.3f} "
              f"[{m['ci_low']:.3f}, {m['ci_high']:.3f}], errors {m.get('errors', 0)}")
    print(f"results: {res.output}/leaderboard.json, leaderboard.md, report.html; samples: {res.output}/samples.jsonl "
          f"(+ .parquet)")
    return 0
