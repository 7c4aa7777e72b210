"""The `livetab` command."""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

from livetab.settings import ConfigError, Settings, load_settings
from livetab.topics import SERVICES

__all__ = ["main"]

log = logging.getLogger("livetab")

NOT_YET = {
    "generate": "generating questions on its own is not built yet; `livetab run` generates them as part of a cycle",
    "infer": "running inference on its own is not built yet; `livetab run` or `livetab serve inference` do it",
    "judge": "re-judging stored answers on its own is not built yet; `livetab run` judges as part of a cycle",
}


def _settings(args: argparse.Namespace) -> Settings:
    return load_settings(getattr(args, "config", None))


def cmd_run(args: argparse.Namespace) -> int:
    from livetab.telemetry import configure_logging, configure_telemetry
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from livetab_cli.embedded import run_embedded

    settings = _settings(args)
    configure_logging("WARNING" if not args.verbose else "INFO", "text", "livetab")
    configure_telemetry("livetab")
    console = Console()
    t0 = time.monotonic()
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=False) as progress:
        summary = run_embedded(settings, progress=progress)
    elapsed = time.monotonic() - t0
    new = summary.new
    console.print(f"\n[bold]livetab run[/bold] — release {settings.run.release}, {elapsed:.1f}s")
    work = new["tables"] + new["questions"] + new["answers"] + new["judgments"]
    if work == 0 and summary.model_calls == 0:
        console.print(f"nothing new to do: all {summary.after['tables']} tables, {summary.after['questions']} "
                      f"questions, {summary.after['answers']} answers and {summary.after['judgments']} judgments "
                      "were already in the store (resumed run)")
    else:
        console.print(f"tables {summary.after['tables']} (+{new['tables']}), questions {summary.after['questions']} "
                      f"(+{new['questions']}), answers {summary.after['answers']} (+{new['answers']}), "
                      f"judgments {summary.after['judgments']} (+{new['judgments']}); model calls "
                      f"{summary.model_calls}, answers from cache {summary.cache_hits}")
    for m in summary.leaderboard.get("models", []):
        console.print(f"  {m['model']}: {m['correct']}/{m['n']} correct, accuracy {m['accuracy']:.3f} "
                      f"[{m['ci_low']:.3f}, {m['ci_high']:.3f}]")
    if summary.failures:
        by_stage: dict[str, int] = {}
        for f in summary.failures:
            by_stage[f["stage"]] = by_stage.get(f["stage"], 0) + 1
        console.print("recorded failures: " + ", ".join(f"{k} {v}" for k, v in sorted(by_stage.items()))
                      + " (reasons in leaderboard.md)")
        for f in summary.failures[:5]:
            console.print(f"  - {f['stage']}: {f['entity']}: {f['reason'][:160]}")
    console.print(f"results: {summary.out_dir}/leaderboard.json, leaderboard.md, report.html, release/")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from livetab_cli.serve import serve

    return serve(args.service, _settings(args), port=args.port, pool=args.pool or "")


def cmd_submit(args: argparse.Namespace) -> int:
    import json

    import httpx

    body = json.loads(Path(args.request).read_text()) if args.request else {
        "team": args.team, "release": args.release, "model": {"name": args.model, "backend": args.backend,
                                                               "base_url": args.base_url, "model": args.model}}
    r = httpx.post(args.api.rstrip("/") + "/runs", json=body, timeout=30)
    if r.status_code >= 400:
        print(f"livetab submit: the api answered {r.status_code}: {r.text}", file=sys.stderr)
        return 1
    print(json.dumps(r.json()))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from livetab.store import open_store, schema
    from livetab_reporter.files import write_reports

    settings = _settings(args)
    store = open_store(settings.store.url)
    runs = args.run or [r["id"] for r in store.select(schema.runs, release=args.release or settings.run.release)]
    doc = write_reports(store, runs, Path(args.out or settings.out_dir), args.release or settings.run.release)
    for m in doc["models"]:
        print(f"{m['model']}: {m['correct']}/{m['n']} accuracy {m['accuracy']:.3f}")
    return 0


def cmd_release(args: argparse.Namespace) -> int:
    from livetab.store import open_store

    from livetab_cli.embedded import export_release

    settings = _settings(args)
    release = args.release or settings.run.release
    out = Path(args.out or Path(settings.out_dir) / "release")
    export_release(open_store(settings.store.url), release, out, balance=args.balance)
    print(f"release {release} written to {out}")
    return 0


def cmd_scrape(args: argparse.Namespace) -> int:
    if args.source == "wikipedia":
        from livetab_cli.scrape import scrape_wikipedia

        try:
            return scrape_wikipedia(args)
        except ValueError as e:  # bad source settings (SourceConfigError is one), e.g. no contact
            print(f"livetab scrape: {e}", file=sys.stderr)
            return 2
    print(f"livetab scrape: source {args.source!r} is run through `livetab run` (configure it under sources:)",
          file=sys.stderr)
    return 2


def cmd_topics(args: argparse.Namespace) -> int:
    """The topic registry as JSON: what the Helm chart and other tools read."""
    import json

    from livetab.topics import TOPICS, consumer_group

    print(json.dumps([{"name": t.name, "message_type": t.message_type, "producer": t.producer,
                       "consumer": t.consumer, "consumer_group": consumer_group(t.consumer) if t.consumer else None,
                       "partitions": t.partitions} for t in TOPICS], indent=2))
    return 0


def cmd_not_yet(args: argparse.Namespace) -> int:
    print(f"livetab {args.command}: {NOT_YET[args.command]}", file=sys.stderr)
    return 2


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="livetab", description="A live, contamination-resistant benchmark of LLM "
                                "reasoning over tables.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def with_config(sp: argparse.ArgumentParser) -> argparse.ArgumentParser:
        sp.add_argument("--config", help="YAML settings file (LIVETAB_* environment variables override it)")
        return sp

    r = with_config(sub.add_parser("run", help="one embedded benchmark cycle: scrape, generate, answer, judge, report"))
    r.add_argument("-v", "--verbose", action="store_true")
    r.set_defaults(func=cmd_run)
    s = sub.add_parser("scrape", help="find fresh tables (live: --source wikipedia --since DATE --lang en)")
    s.add_argument("--source", default="wikipedia")
    s.add_argument("--since", default="")
    s.add_argument("--lang", default="en")
    s.add_argument("--limit", type=int, default=20)
    s.add_argument("--out", default="out/scrape")
    s.add_argument("--contact", default="", help="contact for the User-Agent (an e-mail or URL)")
    s.set_defaults(func=cmd_scrape)
    for name in ("generate", "infer", "judge"):
        sub.add_parser(name, help=f"(not built yet) {NOT_YET[name].split(';')[0]}").set_defaults(func=cmd_not_yet)
    rep = with_config(sub.add_parser("report", help="write leaderboard.json/.md and report.html from the store"))
    rep.add_argument("--run", action="append", help="run id (repeatable); default: every run of the release")
    rep.add_argument("--release")
    rep.add_argument("--out")
    rep.set_defaults(func=cmd_report)
    sv = with_config(sub.add_parser("serve", help="run one service over Kafka and PostgreSQL"))
    sv.add_argument("service", choices=SERVICES)
    sv.add_argument("--port", type=int, help="api only: HTTP port")
    sv.add_argument("--pool", help="inference only: the worker pool to serve (default: remote endpoints)")
    sv.set_defaults(func=cmd_serve)
    sm = sub.add_parser("submit", help="submit a run to a livetab api over HTTP")
    sm.add_argument("--api", default="http://127.0.0.1:8080")
    sm.add_argument("--request", help="JSON file with the run request")
    sm.add_argument("--team", default="local")
    sm.add_argument("--release", default="demo")
    sm.add_argument("--model", default="smollm2-135m")
    sm.add_argument("--backend", default="llama_local")
    sm.add_argument("--base-url", default="")
    sm.set_defaults(func=cmd_submit)
    rl = with_config(sub.add_parser("release", help="export a release as files (questions.jsonl, tables.jsonl, card)"))
    rl.add_argument("--release")
    rl.add_argument("--out")
    rl.add_argument("--balance", choices=["diverse", "lot"], help="domain-balance the release (FreshTab)")
    rl.set_defaults(func=cmd_release)
    sub.add_parser("topics", help="print the topic registry as JSON (for the chart and tools)").set_defaults(
        func=cmd_topics)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    from livetab.bus.kafka import BrokerUnreachable
    from livetab.store import StoreError

    try:
        return int(args.func(args))
    except (ConfigError, StoreError, BrokerUnreachable) as e:
        print(f"livetab {args.command}: configuration error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
