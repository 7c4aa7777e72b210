"""API tokens for tests: a team, a member with a role, and a token, made through livetab_api.teams the way
`livetab team create`, `livetab member add` and `livetab token create` make them."""

from __future__ import annotations

from livetab.store import Store, schema
from livetab_api.teams import ROLE_SCOPES, add_member, create_team, create_token


def bearer(store: Store, *, team: str = "local", role: str = "admin", member: str = "",
           scopes: list[str] | None = None, days: float = 1) -> dict[str, str]:
    """Headers with a new token for `member` (default: `<role>@<team>`), holding every scope its role allows."""
    if team and store.get(schema.teams, team) is None:
        create_team(store, team, actor="test")
    name = member or f"{role}@{team or 'none'}"
    if store.get(schema.members, name) is None:
        add_member(store, name, team=team, role=role, actor="test")
    _, token = create_token(store, name, scopes=scopes or sorted(ROLE_SCOPES[role]), days=days, max_days=90,
                            actor="test")
    return {"Authorization": f"Bearer {token}"}
