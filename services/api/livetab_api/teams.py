"""Teams, members, API tokens and the audit log, in the store.

A token reads `lt_<id>_<secret>`: `id` is public (the key it is looked up by, shown in lists and the audit
log); `secret` (32 random bytes, `secrets.token_urlsafe`) is shown once, when it is created, and only its
scrypt hash with a per-token salt is stored. A token carries scopes (read, submit, review, admin), no more
than its member's role allows, and always expires (at most `api.token_max_days`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from typing import Any

from livetab.store import Store, schema
from sqlalchemy import select

__all__ = ["ROLES", "ROLE_SCOPES", "SCOPES", "AccountError", "Principal", "accepted_runs", "add_member", "audit", "create_team",
           "create_token", "parse_token", "revoke_token", "verify_token"]

SCOPES = ("read", "submit", "review", "admin")
# What each role may be given: a token's scopes are a subset of its member's role's.
ROLE_SCOPES: dict[str, frozenset[str]] = {
    "admin": frozenset(SCOPES),
    "team-admin": frozenset({"read", "submit"}),
    "member": frozenset({"read", "submit"}),
    "reviewer": frozenset({"read", "review"}),
}
ROLES = tuple(ROLE_SCOPES)
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}  # ~16 MiB and a few tens of ms per check
PREFIX = "lt_"


class AccountError(ValueError):
    """A team, member or token operation that cannot be done; the message says why."""


@dataclass(frozen=True)
class Principal:
    """Who a request acts as: the member, their team and role, and the token's id and scopes."""

    member: str
    team: str
    role: str
    token_id: str
    scopes: frozenset[str]

    @property
    def is_admin(self) -> bool:
        return self.role == "admin" and "admin" in self.scopes


def _hash(secret: str, salt: bytes) -> str:
    return hashlib.scrypt(secret.encode(), salt=salt, **_SCRYPT).hex()


def _name(value: str, what: str, n: int = 64) -> str:
    if not value or len(value) > n or any(c.isspace() or not c.isprintable() for c in value):
        raise AccountError(f"{what} must be 1..{n} printable characters without spaces")
    return value


def audit(store: Store, *, actor: str, action: str, status: int, target: str = "", team: str = "",
          token_id: str = "") -> None:
    store.insert_new(schema.audit_log, [{"id": secrets.token_hex(16), "at": time.time(), "actor": actor[:128],
                                         "token_id": token_id, "team": team[:64], "action": action[:200],
                                         "target": target[:500], "status": status}])


def accepted_runs(store: Store, team: str, *, since: float) -> list[str]:
    """The run ids of the team's submissions the api accepted (POST /runs, 202) at or after `since` (Unix
    seconds), one per submission: one query on the audit log's time index, however long the team's history
    (the quotas at the door read it at every submission)."""
    a = schema.audit_log
    stmt = select(a.c.target).where(a.c.team == team, a.c.action == "POST /runs", a.c.status == 202, a.c.at >= since)
    with store.engine.connect() as conn:
        return [str(t) for (t,) in conn.execute(stmt)]


def create_team(store: Store, name: str, *, actor: str) -> None:
    _name(name, "a team name")
    if store.get(schema.teams, name) is not None:
        raise AccountError(f"team {name!r} exists")
    store.insert_new(schema.teams, [{"id": name}])
    audit(store, actor=actor, action="team.create", target=name, status=0)


def add_member(store: Store, name: str, *, team: str, role: str, actor: str) -> None:
    _name(name, "a member name", 128)
    if role not in ROLE_SCOPES:
        raise AccountError(f"role {role!r}: one of {', '.join(ROLES)}")
    if team and store.get(schema.teams, team) is None:
        raise AccountError(f"no team {team!r} (livetab team create {team})")
    if not team and role != "admin":
        raise AccountError("only an admin may belong to no team")
    store.upsert(schema.members, [{"id": name, "team": team, "role": role}])
    audit(store, actor=actor, action="member.add", target=f"{name} {role}", team=team, status=0)


def create_token(store: Store, member: str, *, scopes: list[str], days: float, max_days: int, actor: str,
                 note: str = "") -> tuple[str, str]:
    """A new token for `member`: (token id, the whole token). The whole token is not kept anywhere."""
    row = store.get(schema.members, member)
    if row is None:
        raise AccountError(f"no member {member!r} (livetab member add)")
    allowed = ROLE_SCOPES[row["role"]]
    unknown = [s for s in scopes if s not in SCOPES]
    if unknown or not scopes:
        raise AccountError(f"scopes: one or more of {', '.join(SCOPES)}")
    beyond = sorted(set(scopes) - allowed)
    if beyond:
        raise AccountError(f"a {row['role']} may not hold scope(s) {', '.join(beyond)}")
    if not 0 < days <= max_days:
        raise AccountError(f"a token lives more than 0 and at most {max_days} days (api.token_max_days)")
    token_id = secrets.token_hex(8)
    secret = secrets.token_urlsafe(32)
    salt = secrets.token_bytes(16)
    store.insert_new(schema.api_tokens, [{
        "id": token_id, "member": member, "team": row["team"], "scopes": ",".join(sorted(set(scopes))),
        "salt": salt.hex(), "hash": _hash(secret, salt), "expires_at": time.time() + days * 86400,
        "revoked_at": None, "note": note[:200]}])
    audit(store, actor=actor, action="token.create", target=token_id, team=row["team"], status=0)
    return token_id, f"{PREFIX}{token_id}_{secret}"


def revoke_token(store: Store, token_id: str, *, actor: str) -> None:
    row = store.get(schema.api_tokens, token_id)
    if row is None:
        raise AccountError(f"no token {token_id!r}")
    if row["revoked_at"] is None:
        store.upsert(schema.api_tokens, [{**{k: v for k, v in row.items() if k != "created_at"},
                                          "revoked_at": time.time()}])
    audit(store, actor=actor, action="token.revoke", target=token_id, team=row["team"], status=0)


def parse_token(token: str) -> tuple[str, str] | None:
    """(id, secret) of a well-formed token, else None."""
    if not token.startswith(PREFIX) or len(token) > 200:
        return None
    token_id, sep, secret = token[len(PREFIX):].partition("_")
    if not sep or len(token_id) != 16 or not secret:
        return None
    return token_id, secret


def verify_token(store: Store, token: str, *, now: float | None = None,
                 checked: dict[str, tuple[str, str]] | None = None) -> tuple[Principal | None, str]:
    """The principal a token stands for, or (None, why it is refused). `checked`: a cache of tokens whose
    hash already matched (token digest -> (id, stored hash)), so the scrypt cost is paid once per token;
    expiry, revocation and the member's role are read from the store on every call."""
    parsed = parse_token(token)
    if parsed is None:
        return None, "malformed token"
    token_id, secret = parsed
    with store.reading():  # the token and its member on one connection
        row = store.get(schema.api_tokens, token_id)
        if row is None:
            return None, "unknown token"
        digest = hashlib.sha256(token.encode()).hexdigest()
        if checked is None or checked.get(digest) != (token_id, row["hash"]):
            if not hmac.compare_digest(_hash(secret, bytes.fromhex(row["salt"])), row["hash"]):
                return None, "unknown token"
            if checked is not None:
                checked[digest] = (token_id, row["hash"])
        if row["revoked_at"] is not None:
            return None, "token revoked"
        if (now or time.time()) >= row["expires_at"]:
            return None, "token expired"
        member = store.get(schema.members, row["member"])
    if member is None:
        return None, "the token's member is gone"
    scopes = frozenset(row["scopes"].split(",")) & ROLE_SCOPES.get(member["role"], frozenset())
    return Principal(member=row["member"], team=member["team"], role=member["role"], token_id=token_id,
                     scopes=scopes), ""


def token_rows(store: Store, team: str = "") -> list[dict[str, Any]]:
    """Tokens without their salt and hash, newest first."""
    rows = store.select(schema.api_tokens, **({"team": team} if team else {}))
    keep = ("id", "member", "team", "scopes", "expires_at", "revoked_at", "note")
    return [{k: r[k] for k in keep} for r in sorted(rows, key=lambda r: r["created_at"], reverse=True)]
