"""`livetab team create|list`, `livetab member add|list`, `livetab token create|revoke|list`: the api's
teams, people and tokens, written straight to the configured store (livetab_api.teams) by whoever holds
the store's credentials. This is how the first admin token is made:

    livetab team create ops && livetab member add alice --team ops --role admin
    livetab token create alice --scopes read,submit,review,admin     # printed once; keep it

Every action is written to the audit log as `cli:<login name>`.
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from datetime import UTC, datetime

from livetab.settings import Settings
from livetab.store import open_store, schema

__all__ = ["accounts_command", "add_parsers"]


def _when(ts: float | None) -> str:
    return "" if ts is None else datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def accounts_command(settings: Settings, args: argparse.Namespace) -> int:
    from livetab_api import teams

    store = open_store(settings.store.url)
    actor = f"cli:{getpass.getuser()}"
    try:
        if args.command == "team" and args.action == "create":
            teams.create_team(store, args.name, actor=actor)
            print(f"team {args.name} created")
        elif args.command == "team":
            for row in sorted(store.select(schema.teams), key=lambda r: r["id"]):
                n = store.count(schema.members, team=row["id"])
                print(f"{row['id']}\t{n} member(s)")
        elif args.command == "member" and args.action == "add":
            teams.add_member(store, args.name, team=args.team or "", role=args.role, actor=actor)
            print(f"member {args.name} ({args.role}) in team {args.team or '(none)'}")
        elif args.command == "member":
            where = {"team": args.team} if args.team else {}
            for row in sorted(store.select(schema.members, **where), key=lambda r: r["id"]):
                print(f"{row['id']}\t{row['team'] or '-'}\t{row['role']}")
        elif args.command == "token" and args.action == "create":
            scopes = [s.strip() for s in args.scopes.split(",") if s.strip()]
            token_id, token = teams.create_token(store, args.member, scopes=scopes, days=args.days,
                                                 max_days=settings.api.token_max_days, actor=actor,
                                                 note=args.note or "")
            print(f"token {token_id} for {args.member} ({','.join(sorted(set(scopes)))}), valid {args.days:g} "
                  "day(s). It is shown only now:", file=sys.stderr)
            print(token)
        elif args.command == "token" and args.action == "revoke":
            teams.revoke_token(store, args.id, actor=actor)
            print(f"token {args.id} revoked")
        else:
            for row in teams.token_rows(store, args.team or ""):
                state = "revoked" if row["revoked_at"] is not None else "valid"
                print(json.dumps({**row, "expires_at": _when(row["expires_at"]), "revoked_at": _when(row["revoked_at"]),
                                  "state": state}))
    except teams.AccountError as e:
        print(f"livetab {args.command} {args.action}: {e}", file=sys.stderr)
        return 1
    finally:
        store.close()
    return 0


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser], func: object) -> None:
    """The team, member and token commands; `func(args)` runs them (main's cmd_accounts)."""
    from livetab_api.teams import ROLES, SCOPES

    def cfg(sp: argparse.ArgumentParser) -> argparse.ArgumentParser:
        sp.add_argument("--config", help="YAML settings file (LIVETAB_* environment variables override it)")
        sp.set_defaults(func=func)
        return sp

    tm = sub.add_parser("team", help="the api's teams: create NAME, list")
    ts = tm.add_subparsers(dest="action", required=True, metavar="ACTION")
    cfg(ts.add_parser("create", help="a new team")).add_argument("name")
    cfg(ts.add_parser("list", help="teams and their member counts"))
    mb = sub.add_parser("member", help="the api's people: add NAME --team T --role R, list")
    ms = mb.add_subparsers(dest="action", required=True, metavar="ACTION")
    ma = cfg(ms.add_parser("add", help="add a member (or change their team and role)"))
    ma.add_argument("name")
    ma.add_argument("--team", help="their team (an admin may have none)")
    ma.add_argument("--role", required=True, choices=ROLES)
    cfg(ms.add_parser("list", help="members")).add_argument("--team")
    tk = sub.add_parser("token", help="API tokens: create MEMBER --scopes S, revoke ID, list")
    tks = tk.add_subparsers(dest="action", required=True, metavar="ACTION")
    tc = cfg(tks.add_parser("create", help="a new token, printed once (only its salted hash is stored)"))
    tc.add_argument("member")
    tc.add_argument("--scopes", default="read,submit", help=f"comma-separated, of {', '.join(SCOPES)}")
    tc.add_argument("--days", type=float, default=30.0, help="expiry (at most api.token_max_days)")
    tc.add_argument("--note", help="what it is for")
    cfg(tks.add_parser("revoke", help="revoke a token at once")).add_argument("id")
    cfg(tks.add_parser("list", help="tokens (ids, scopes, expiry; never secrets)")).add_argument("--team")
