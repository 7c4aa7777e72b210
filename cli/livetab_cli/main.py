"""The `livetab` command."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from livetab.settings import ConfigError, Settings, load_settings
from livetab.topics import SERVICES

from livetab_cli.listing import KINDS

__all__ = ["main"]

log = logging.getLogger("livetab")

def _settings(args: argparse.Namespace) -> Settings:
    return load_settings(getattr(args, "config", None))


def _embedded_settings(args: argparse.Namespace) -> Settings:
    """Settings for an embedded command, with its logging (INFO with -v) and telemetry set up."""
    from livetab.telemetry import configure_logging, configure_telemetry

    settings = _settings(args)
    configure_logging("INFO" if args.verbose else "WARNING", "text", "livetab")
    configure_telemetry("livetab")
    return settings


def cmd_run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from livetab_cli.embedded import run_embedded

    settings = _embedded_settings(args)
    console = Console()
    t0 = time.monotonic()
    with _progress(console) as progress:
        summary = run_embedded(settings, progress=progress)
    elapsed = time.monotonic() - t0
    new = summary.new
    console.print(f"\n[bold]livetab run[/bold] — release {settings.run.release}, {elapsed:.1f}s")
    work = new["tables"] + new["questions"] + new["answers"] + new["judgments"]
    if work == 0 and summary.model_answers == 0:
        console.print(f"nothing new to do: all {summary.after['tables']} tables, {summary.after['questions']} "
                      f"questions, {summary.after['answers']} answers and {summary.after['judgments']} judgments "
                      "were already in the store (resumed run)")
    else:
        console.print(f"tables {summary.after['tables']} (+{new['tables']}), questions {summary.after['questions']} "
                      f"(+{new['questions']}), answers {summary.after['answers']} (+{new['answers']}), "
                      f"judgments {summary.after['judgments']} (+{new['judgments']}); answers from the model "
                      f"{summary.model_answers}, from the cache {summary.cache_hits}")
    _print_leaderboard(console, summary.leaderboard)
    _print_failures(console, summary.failures)
    console.print(f"results: {summary.out_dir}/leaderboard.json, leaderboard.md, report.html (+ plots/), release/; "
                  f"the operator's private report: {summary.out_dir}/private/report.html")
    return 0


def _print_leaderboard(console: Any, doc: dict[str, Any]) -> None:
    for m in doc.get("models", []):
        console.print(f"  {m['model']}: {m['correct']}/{m['n']} correct, accuracy {m['accuracy']:.3f} "
                      f"[{m['ci_low']:.3f}, {m['ci_high']:.3f}]")
        ins = m.get("insight")
        if ins:  # the insight family: scored apart from QA accuracy
            console.print(f"    insights: {ins['factual']}/{ins['factual'] + ins['not_factual']} judged factual, "
                          f"{ins['undecided']} undecided, {ins['not_judged']} answer(s) not judged; "
                          f"self-BLEU-4 {ins['diversity'].get('self_bleu4', 0.0):.3f}")


def _print_failures(console: Any, failures: list[dict[str, Any]], stages: tuple[str, ...] = ()) -> None:
    failures = [f for f in failures if not stages or f["stage"] in stages]
    if not failures:
        return
    by_stage: dict[str, int] = {}
    for f in failures:
        by_stage[f["stage"]] = by_stage.get(f["stage"], 0) + 1
    console.print("recorded failures: " + ", ".join(f"{k} {v}" for k, v in sorted(by_stage.items()))
                  + " (reasons in the store's failures table and leaderboard.md)")
    for f in failures[:5]:
        console.print(f"  - {f['stage']}: {f['entity']}: {f['reason'][:160]}")


@contextmanager
def _stage(args: argparse.Namespace) -> Iterator[tuple[Settings, Any, Any]]:
    """Settings, a console and a pipeline (closed afterwards) for one stand-alone stage."""
    from rich.console import Console

    from livetab_cli.embedded import Pipeline

    settings = _embedded_settings(args)
    p = Pipeline(settings)
    try:
        yield settings, Console(), p
    finally:
        p.close()


def _progress(console: Any) -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    return Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=console, transient=False)


def cmd_generate(args: argparse.Namespace) -> int:
    """Sources -> tables -> verified questions in the store, and the release exported as files."""
    from livetab_cli.embedded import export_release

    with _stage(args) as (settings, console, p):
        if not settings.sources:
            print("livetab generate: no sources configured (add a `sources:` section to the config)", file=sys.stderr)
            return 2
        t0 = time.monotonic()
        with console.status("scrape + generate"):
            p.generate()
        release = settings.run.release
        out = Path(args.out or Path(settings.out_dir) / "release")
        families = export_release(p.store, settings, out, calibration=_calibration(settings))
        summary = p.summary([], {}, out)
        new = summary.new
        console.print(f"[bold]livetab generate[/bold] — release {release}, {time.monotonic() - t0:.1f}s")
        console.print(f"tables {summary.after['tables']} (+{new['tables']}), questions {summary.after['questions']} "
                      f"(+{new['questions']}); in release {release}: {sum(families.values())} questions — "
                      + ", ".join(f"{k} {v}" for k, v in sorted(families.items())))
        _print_failures(console, summary.failures, ("scraper", "qagen", "qagen-llm"))
        console.print(f"release files: {out}/ ({_release_files(settings, release)})")
        return 0


def cmd_infer(args: argparse.Namespace) -> int:
    """Answer the release's questions with the configured models (or those named); no judging."""
    from livetab.store import schema
    from livetab.v1 import inference_pb2

    from livetab_cli.embedded import run_messages, write_jsonl

    with _stage(args) as (settings, console, p):
        release = settings.run.release
        if not p.store.count(schema.questions, release=release):
            print(f"livetab infer: release {release!r} has no questions in the store; run `livetab generate` first",
                  file=sys.stderr)
            return 1
        runs = [r for r in run_messages(settings) if not args.model or r.model.name in args.model]
        if not runs:
            print(f"livetab infer: no configured model is named {', '.join(args.model)}", file=sys.stderr)
            return 2
        t0 = time.monotonic()
        p.publish_release()  # runs are planned against a live release only (a draft is frozen first)
        with _progress(console) as progress:
            p.answer(runs, judge=False, progress=progress)
        summary = p.summary([r.id for r in runs], {}, Path(settings.out_dir))
        console.print(f"[bold]livetab infer[/bold] — release {release}, {time.monotonic() - t0:.1f}s; answers from the "
                      f"model {summary.model_answers}, from the cache {summary.cache_hits}")
        answers = []
        for run in runs:
            rows = sorted(p.store.select(schema.results, run_id=run.id), key=lambda r: r["id"])
            errors = sum(1 for r in rows if r["error"])
            planned = (p.store.get(schema.runs, run.id) or {"planned": 0})["planned"]
            console.print(f"  {run.model.name} (run {run.id}): {len(rows)}/{planned} answered, {errors} errors")
            answers += rows
        from livetab.publication import is_public

        # a live release's answers disclose its gold answers: by default they go to the operator's private folder
        default = Path(settings.out_dir) / ("" if is_public(release, settings) else "private") / "answers.jsonl"
        out = Path(args.out or default)
        write_jsonl(out, answers, inference_pb2.InferenceResult)
        console.print(f"answers: {out} (judge them with `livetab judge`)")
        return 0


def cmd_judge(args: argparse.Namespace) -> int:
    """Judge stored answers the configured judge has not judged yet (all with --again), then report."""
    from livetab.ids import judge_name
    from livetab.store import schema

    from livetab_cli.embedded import run_messages

    with _stage(args) as (settings, console, p):
        run_ids = args.run or [r.id for r in run_messages(settings)]
        stored = {rid: p.store.count(schema.results, run_id=rid) for rid in run_ids}
        if not any(stored.values()):
            print("livetab judge: no stored answers for run(s) " + ", ".join(run_ids) + "; run `livetab infer` first",
                  file=sys.stderr)
            return 1
        t0 = time.monotonic()
        with console.status("judge"):
            fed = p.judge_stored(run_ids, again=args.again)
        doc, out_dir = p.write_reports(run_ids)
        name = judge_name(settings.judge)
        total = sum(stored.values())
        done = (f"re-judged {fed} stored answers" if args.again
                else f"judged {fed} of {total} stored answers ({total - fed} already judged by it)")
        console.print(f"[bold]livetab judge[/bold] — judge {name}, {time.monotonic() - t0:.1f}s: {done}")
        _print_leaderboard(console, doc)
        console.print(f"results: {out_dir}/leaderboard.json, leaderboard.md, report.html")
        return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from livetab_cli.serve import serve

    return serve(args.service, _settings(args), port=args.port, pool=args.pool or "")


def _auth_headers(args: argparse.Namespace) -> dict[str, str]:
    """The api token: --token, else $LIVETAB_TOKEN (none: the api must run with api.auth off)."""
    token = args.token or os.environ.get("LIVETAB_TOKEN", "")
    return {"Authorization": f"Bearer {token}"} if token else {}


def cmd_submit(args: argparse.Namespace) -> int:
    import json

    import httpx

    body = json.loads(Path(args.request).read_text()) if args.request else {
        "release": args.release, "model": {"name": args.model, "backend": args.backend,
                                                               "base_url": args.base_url, "model": args.model}}
    if args.team:
        body["team"] = args.team
    if args.rerun:
        body["rerun"] = True
    r = httpx.post(args.api.rstrip("/") + "/runs", json=body, headers=_auth_headers(args), timeout=60)
    if r.status_code >= 400:
        try:  # one line: the api's reason (a refused probe says what the endpoint did), else its whole answer
            detail = r.json()["detail"]
        except (ValueError, KeyError, TypeError):
            detail = r.text
        print(f"livetab submit: the api answered {r.status_code}: {detail}", file=sys.stderr)
        return 1
    print(json.dumps(r.json()))
    return 0


def cmd_cancel(args: argparse.Namespace) -> int:
    import json

    import httpx

    r = httpx.post(f"{args.api.rstrip('/')}/runs/{quote(args.run_id, safe='')}/cancel", headers=_auth_headers(args),
                   timeout=30)
    if r.status_code >= 400:
        print(f"livetab cancel: the api answered {r.status_code}: {r.text}", file=sys.stderr)
        return 1
    print(json.dumps(r.json()))
    return 0


def cmd_cycle(args: argparse.Namespace) -> int:
    """The monthly cycle's first step, through a running api: one scrape per configured source into a new
    release named for the month (the chart's CronJob runs it); generation then fills the draft release."""
    from datetime import UTC, datetime

    import httpx
    from livetab.paths import repo_root

    from livetab_cli.embedded import scrape_commands

    settings = _settings(args)
    release = args.release or datetime.now(UTC).strftime("%Y-%m")
    settings = settings.model_copy(update={"run": settings.run.model_copy(update={"release": release})})
    if not settings.sources:
        print("livetab cycle: no sources configured (add a `sources:` section to the config)", file=sys.stderr)
        return 2
    # The api takes a location's name, never a path: each source's folder is sent as the name the same
    # config gives it in guard.scrape_locations (the api's list, from the same settings file).
    names = {os.path.realpath(path if os.path.isabs(path) else repo_root() / path): name
             for name, path in settings.guard.scrape_locations.items()}
    for cmd in scrape_commands(settings):
        name = cmd.location if cmd.location in settings.guard.scrape_locations else names.get(
            os.path.realpath(cmd.location) if cmd.location else "", "")
        if cmd.location and not name:
            print(f"livetab cycle: source {cmd.source} {cmd.location} has no name in guard.scrape_locations; the api "
                  "takes only named locations (add `guard: {scrape_locations: {NAME: PATH}}` to the config)",
                  file=sys.stderr)
            return 2
        body = {"source": cmd.source, "location": name, "release": release, "language": cmd.language or "en",
                "options": dict(cmd.options)}
        r = httpx.post(args.api.rstrip("/") + "/scrapes", json=body, headers=_auth_headers(args), timeout=30)
        if r.status_code >= 400:
            print(f"livetab cycle: the api refused scrape {cmd.source} {cmd.location}: {r.status_code} {r.text}",
                  file=sys.stderr)
            return 1
        print(f"scrape accepted: {cmd.source} {cmd.location} -> release {release}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """The leaderboard files from the store, written by the reporter's own function (as its service does)."""
    from livetab.store import open_store, schema
    from livetab_reporter.files import report_dir, write_leaderboard

    settings = _settings(args)
    store = open_store(settings.store.url)
    release = args.release or settings.run.release
    runs = args.run or [r["id"] for r in store.select(schema.runs, release=release)]
    out = Path(args.out) if args.out else report_dir(settings, release)
    doc = write_leaderboard(store, settings, runs, out, release)
    for m in doc["models"]:
        print(f"{m['model']}: {m['correct']}/{m['n']} accuracy {m['accuracy']:.3f}")
    return 0


def _release_files(settings: Settings, release: str) -> str:
    from livetab.publication import is_public

    from livetab_cli.calibrate import out_dir_of

    if is_public(release, settings):
        return "retired: questions, tables and results in JSONL and Parquet, README.md"
    return (f"live: README.md with counts and redacted results only; the full files are in "
            f"{out_dir_of(settings) / 'private' / 'release'} (never publish them while the release is live)")


def cmd_release(args: argparse.Namespace) -> int:
    from livetab.store import open_store, schema

    from livetab_cli.embedded import export_release
    from livetab_cli.release import ACTIONS, release_action, release_view

    settings = _settings(args)
    if args.action in ACTIONS or args.action in ("list", "show"):
        if args.action != "list" and not args.name:
            print(f"livetab release {args.action}: name the release", file=sys.stderr)
            return 2
        if args.action in ACTIONS:
            return release_action(settings, args.action, args.name, bus=args.bus)
        return release_view(settings, args.action, args.name)
    release = args.release or args.name or settings.run.release
    out = Path(args.out or Path(settings.out_dir) / "release")
    store = open_store(settings.store.url)
    runs = [r["id"] for r in store.select(schema.runs, release=release)]
    export_release(store, settings, out, release=release, balance=args.balance, calibration=_calibration(settings),
                   run_ids=runs)
    print(f"release {release} written to {out} ({_release_files(settings, release)})")
    return 0


def _calibration(settings: Settings) -> dict[str, Any]:
    """calibration.json from the configured output folder; without one, the model-free figures are
    computed there first (a second or two)."""
    from livetab_reporter.calibration import ensure_calibration
    from livetab_reporter.files import out_root

    return ensure_calibration(settings, out_root(settings))


def cmd_calibrate(args: argparse.Namespace) -> int:
    """Recompute every judge-agreement figure; write calibration.json and .md where the reports read them."""
    from livetab.calibration import headline

    from livetab_cli.calibrate import calibrate_command, out_dir_of

    settings = _embedded_settings(args)
    t0 = time.monotonic()
    doc, path = calibrate_command(settings, Path(args.out) if args.out else out_dir_of(settings), args.limit_llm)
    print(f"livetab calibrate — {len(doc['figures'])} figures, {time.monotonic() - t0:.1f}s")
    for f in doc["figures"]:
        print(f"  {f['key']}: n={f['n']} {headline(f)}")
    print(f"written: {path} and {path.with_suffix('.md').name}")
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

    from livetab.topics import TOPICS, chart_registry, consumer_group

    if args.chart:
        print(json.dumps(chart_registry(), indent=2))
        return 0
    if args.create:
        from livetab.bus.kafka import ensure_topics
        from livetab.topics import requests_topic

        settings = _settings(args)
        pools = sorted({m.pool for m in settings.models} | set(args.pool or []))
        ensure_topics(settings.kafka.bootstrap_servers, extra=[requests_topic(p) for p in pools],
                      connect_timeout_s=settings.kafka.connect_timeout_s, replication=args.replication,
                      retention_ms=args.retention_ms)
        print(f"topics ensured on {settings.kafka.bootstrap_servers}: {len(TOPICS)} registry topics + "
              f"{len(pools)} pool request topic(s)")
        return 0
    print(json.dumps([{"name": t.name, "message_type": t.message_type, "producer": t.producer,
                       "consumer": t.consumer, "consumer_group": consumer_group(t.consumer, t.group) if t.consumer else None,
                       "partitions": t.partitions} for t in TOPICS], indent=2))
    return 0


def cmd_score(args: argparse.Namespace) -> int:
    """Judge predictions made elsewhere (JSON lines) on a stored release; report what could not be scored."""
    from livetab_cli.score import ScoreError, score_file

    settings = _embedded_settings(args)
    try:
        report, doc, out_dir = score_file(settings, Path(args.predictions), args.release, model=args.model,
                                          fmt=args.format, setting=args.setting)
    except ScoreError as e:
        print(f"livetab score: {e}", file=sys.stderr)
        return 2
    c = report.counts()
    print(f"livetab score — release {args.release}: scored {c['scored']} prediction(s); missing {c['missing']} "
          f"(counted wrong), unknown {c['unknown']}, duplicates {c['duplicates']}, malformed lines {c['malformed']}")
    for m in doc.get("models", []):
        print(f"  {m['model']}: {m['correct']}/{m['n']} correct, accuracy {m['accuracy']:.3f}")
    print(f"results: {out_dir}/leaderboard.json, leaderboard.md, report.html; {out_dir}/score_report.json")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    """Families, formats, releases (in the store) or models (in the config), one a line."""
    from livetab_cli.listing import list_rows

    for row in list_rows(args.kind, _settings(args)):
        print("\t".join(str(v) for v in row.values()))
    return 0

def cmd_dlq(args: argparse.Namespace) -> int:
    """List, show and redrive dead letters (the stored originals go back to their source topics)."""
    from livetab_cli.dlq import dlq_command

    return dlq_command(_settings(args), args)


def cmd_review(args: argparse.Namespace) -> int:
    """The human review queue in the store: list items, accept, reject or edit a question."""
    from livetab_cli.review import review_command

    return review_command(_settings(args), args)


def cmd_accounts(args: argparse.Namespace) -> int:
    """Teams, members and API tokens in the store (livetab_cli.accounts)."""
    from livetab_cli.accounts import accounts_command

    return accounts_command(_settings(args), args)


def cmd_replay(args: argparse.Namespace) -> int:
    """Move a consumer group's committed offsets back so its service re-reads a topic (idempotently)."""
    from livetab_cli.dlq import replay_command

    return replay_command(_settings(args), args)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="livetab", description="A live, contamination-resistant benchmark of LLM "
                                "reasoning over tables.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def with_config(sp: argparse.ArgumentParser) -> argparse.ArgumentParser:
        sp.add_argument("--config", help="YAML settings file (LIVETAB_* environment variables override it)")
        return sp

    def embedded(name: str, summary: str) -> argparse.ArgumentParser:
        sp = with_config(sub.add_parser(name, help=summary))
        sp.add_argument("-v", "--verbose", action="store_true", help="log at INFO")
        return sp

    embedded("run", "one embedded benchmark cycle: scrape, generate, answer, judge, report").set_defaults(func=cmd_run)
    from livetab_cli.eval import add_parser as add_eval

    add_eval(sub)
    from livetab_cli.compare import add_parser as add_compare

    add_compare(sub)
    s = sub.add_parser("scrape", help="find fresh tables (live: --source wikipedia --since DATE --lang en)")
    s.add_argument("--source", default="wikipedia")
    s.add_argument("--since", default="")
    s.add_argument("--lang", default="en")
    s.add_argument("--limit", type=int, default=20)
    s.add_argument("--out", default="out/scrape")
    s.add_argument("--contact", default="", help="contact for the User-Agent (an e-mail or URL)")
    s.add_argument("--wikidata-url", default="", help="the Wikidata SPARQL endpoint (default: query.wikidata.org)")
    s.add_argument("--mediawiki-url", default="", help="the MediaWiki Action API, '{lang}' for the language "
                   "(default: https://{lang}.wikipedia.org/w/api.php)")
    s.add_argument("--rest-url", default="", help="the REST page HTML endpoint ({lang}, {title}, {revid})")
    s.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="any other setting of the wikipedia source (e.g. categories=Q40231/P585/politics)")
    s.set_defaults(func=cmd_scrape)
    g = embedded("generate", "scrape the configured sources and generate verified questions into the store; "
                 "export the release files")
    g.add_argument("--out", help="folder for the release files (default: OUT_DIR/release)")
    g.set_defaults(func=cmd_generate)
    i = embedded("infer", "answer the release's stored questions with the configured models (no judging)")
    i.add_argument("--model", action="append", help="only this configured model (repeatable)")
    i.add_argument("--out", help="answers as JSON lines (default: OUT_DIR/private/answers.jsonl while the "
                   "release is live, else OUT_DIR/answers.jsonl)")
    i.set_defaults(func=cmd_infer)
    j = embedded("judge", "judge stored answers with the configured judge, then write the leaderboard")
    j.add_argument("--run", action="append", help="run id (repeatable); default: the configured models' runs")
    j.add_argument("--again", action="store_true", help="re-judge answers this judge has already judged")
    j.set_defaults(func=cmd_judge)
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
    sm.add_argument("--team", default="", help="only with api.auth off: the run's team (else the token's)")
    sm.add_argument("--token", help="API token (default: $LIVETAB_TOKEN; livetab token create)")
    sm.add_argument("--release", default="demo")
    sm.add_argument("--model", default="smollm2-135m")
    sm.add_argument("--backend", default="llama_local")
    sm.add_argument("--base-url", default="")
    sm.add_argument("--rerun", action="store_true", help="make it the team's active submission of this model: run "
                    "again on every release that goes live (until its latest run is cancelled)")
    sm.set_defaults(func=cmd_submit)
    cn = sub.add_parser("cancel", help="cancel a run of your team through a livetab api over HTTP")
    cn.add_argument("run_id")
    cn.add_argument("--api", default="http://127.0.0.1:8080")
    cn.add_argument("--token", help="API token (default: $LIVETAB_TOKEN; livetab token create)")
    cn.set_defaults(func=cmd_cancel)
    cy = with_config(sub.add_parser("cycle", help="start a monthly cycle through a running api: scrape every "
                                    "configured source into a new release (the chart's CronJob)"))
    cy.add_argument("--api", default="http://127.0.0.1:8080")
    cy.add_argument("--release", help="default: the current month, YYYY-MM")
    cy.add_argument("--token", help="an admin's API token (default: $LIVETAB_TOKEN)")
    cy.set_defaults(func=cmd_cycle)
    rl = with_config(sub.add_parser("release", help="move a release (freeze|publish|retire NAME), see releases "
                                    "(list, show NAME), or export one as files (export, the default): JSONL + "
                                    "Parquet + card when retired, counts only (and a private full copy) while live"))
    rl.add_argument("action", nargs="?", default="export",
                    choices=["freeze", "publish", "retire", "list", "show", "export"])
    rl.add_argument("name", nargs="?", help="the release (freeze, publish, retire, show)")
    rl.add_argument("--bus", choices=["auto", "inproc", "kafka"], default="auto",
                    help="freeze/publish/retire: apply in this process (inproc) or send to the api service over "
                         "Kafka; auto: inproc with a SQLite store, else Kafka")
    rl.add_argument("--release", help="export: the release (default: run.release)")
    rl.add_argument("--out")
    rl.add_argument("--balance", choices=["diverse", "lot"], help="domain-balance the release (FreshTab)")
    rl.set_defaults(func=cmd_release)
    c = embedded("calibrate", "recompute the judges' agreement with human and reference labels "
                 "(calibration.json, shown in every report and release card)")
    c.add_argument("--out", help="folder for calibration.json/.md (default: OUT_DIR, where reports read it)")
    c.add_argument("--limit-llm", type=int, default=0, metavar="N",
                   help="also measure the model-based figures (LLM insight judge, validator) on N items each")
    c.set_defaults(func=cmd_calibrate)
    sc = embedded("score", "judge predictions made elsewhere (JSON lines: question_id, response, optional model, "
                  "format, setting) on a stored release and write the leaderboard")
    sc.add_argument("predictions", help="the predictions file (JSON lines)")
    sc.add_argument("--release", required=True, help="the stored release the predictions answer")
    sc.add_argument("--model", default="external", help="model name for lines without one")
    sc.add_argument("--format", default="markdown", help="table format for lines without one (`livetab list formats`)")
    sc.add_argument("--setting", default="with_table", help="setting for lines without one (with_table or "
                    "closed_book)")
    sc.set_defaults(func=cmd_score)
    ls = with_config(sub.add_parser("list", help="list families, formats, releases (in the store) or models "
                                    "(in the config)"))
    ls.add_argument("kind", choices=KINDS)
    ls.set_defaults(func=cmd_list)

    dq = sub.add_parser("dlq", help="dead letters: list, show, redrive to their source topics after a fix")
    dsub = dq.add_subparsers(dest="action", required=True, metavar="ACTION")
    for name, summary in (("list", "a table of stored dead letters"), ("show", "whole records, payload decoded"),
                          ("redrive", "re-publish originals to their source topics (once, unless --again)")):
        da = with_config(dsub.add_parser(name, help=summary))
        if name != "list":
            da.add_argument("ids", nargs="*" if name == "redrive" else "+", metavar="ID")
        if name != "show":
            da.add_argument("--service")
            da.add_argument("--run")
            da.add_argument("--topic", help="source topic")
        if name == "redrive":
            da.add_argument("--all", action="store_true", help="every dead letter matching the filters")
            da.add_argument("--again", action="store_true", help="also those already redriven")
        da.set_defaults(func=cmd_dlq, service=None, run=None, topic=None)
    from livetab_cli.accounts import add_parsers as add_accounts

    add_accounts(sub, cmd_accounts)
    rv = sub.add_parser("review", help="the human review queue: list, accept, reject or edit questions the "
                        "validator got right only sometimes (accepted ones join their draft release)")
    rsub = rv.add_subparsers(dest="action", required=True, metavar="ACTION")
    for name, summary in (("list", "the queue's items"), ("accept", "accept a question as it is"),
                          ("reject", "reject a question (--note says why)"),
                          ("edit", "correct a question's --text and/or --gold, then accept it (a computed gold "
                                   "is re-verified by running its program again)")):
        ra = with_config(rsub.add_parser(name, help=summary))
        if name == "list":
            ra.add_argument("--release")
            ra.add_argument("--status", choices=["pending", "accepted", "rejected", "edited"])
        else:
            ra.add_argument("id", metavar="ID", help="the question id (`livetab review list`)")
            ra.add_argument("--reviewer", help="who decides (default: the login name)")
            ra.add_argument("--note", required=name == "reject", help="why (required to reject)")
            ra.add_argument("--bus", choices=["auto", "inproc", "kafka"], default="auto",
                            help="where an accepted question is published (auto: in-process with a SQLite store, "
                                 "else Kafka)")
        if name == "edit":
            ra.add_argument("--text", help="the corrected question text")
            ra.add_argument("--gold", help="the corrected gold answer")
        ra.set_defaults(func=cmd_review)
    rp = with_config(sub.add_parser("replay", help="re-read a topic from an offset or ISO time by moving a "
                                    "consumer group's committed offsets"))
    rp.add_argument("--topic", required=True)
    rp.add_argument("--from", dest="start", required=True, metavar="OFFSET|TIME")
    rp.add_argument("--group", help="default: the group of the service consuming the topic (topic registry)")
    rp.set_defaults(func=cmd_replay)
    tp = with_config(sub.add_parser("topics", help="print the topic registry as JSON (for the chart and tools); "
                                    "--create makes the topics on the configured broker"))
    tp.add_argument("--chart", action="store_true", help="the form the Helm chart reads (charts/livetab/files/topics.json)")
    tp.add_argument("--create", action="store_true", help="create missing topics (partitions from the registry)")
    tp.add_argument("--pool", action="append", help="also this GPU pool's request topic (repeatable)")
    tp.add_argument("--replication", type=int, default=1, help="replication factor of created topics")
    tp.add_argument("--retention-ms", type=int, help="retention.ms of created topics (default: the broker's)")
    tp.set_defaults(func=cmd_topics)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    from livetab.bus.base import BrokerUnreachable
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
