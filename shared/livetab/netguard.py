"""Endpoint safety (SSRF): where a submitted model endpoint may make the platform connect.

A model's `base_url` (an OpenAI-compatible `http(s)://host[:port]/...` or a gRPC `[grpc://]host:port`) is
refused when its host is written as a non-canonical IPv4 spelling (`2130706433`, `0x7f000001`, `0177.0.0.1`,
`127.1`), or when any address it resolves to is not a public unicast address: loopback, private (10/8,
172.16/12, 192.168/16, fc00::/7), link-local (169.254/16 with the metadata address, fe80::/10), multicast,
unspecified, reserved, shared (100.64/10), IPv4-mapped or NAT64 IPv6 — or lies in one of the configured
cluster service ranges — unless an admin's allow-list (`guard.allow`, CIDRs) holds it.

The API checks at its door (`NetPolicy.check_endpoint`); the inference service's HTTP client checks again
every address it is about to connect to (`NetPolicy.check_ip`, from the connector's resolver), so a name
that resolved to a public address at submission and to an internal one later (DNS rebinding) is refused.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

__all__ = ["NetPolicy", "NetRefused", "Resolver", "endpoint_host_port", "system_resolver"]

IP = ipaddress.IPv4Address | ipaddress.IPv6Address
Net = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], Sequence[str]]

# Not covered by `is_global` in every Python version, refused explicitly.
_ALWAYS_REFUSED: tuple[Net, ...] = tuple(ipaddress.ip_network(n) for n in (
    "0.0.0.0/8", "100.64.0.0/10", "169.254.0.0/16", "192.0.0.0/24", "198.18.0.0/15", "224.0.0.0/4",
    "240.0.0.0/4", "::/128", "::1/128", "::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "fc00::/7",
    "fe80::/10", "fec0::/10", "ff00::/8", "2001:db8::/32", "2002::/16",
))
# Dotted parts in decimal only, no leading zeros, four of them: the one spelling of an IPv4 address accepted.
_CANONICAL_V4 = re.compile(r"^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$")
# What inet_aton would read as an address: one to four parts, each decimal, 0x-hex or 0-octal.
_NUMERIC_HOST = re.compile(r"^(0[xX][0-9a-fA-F]*|\d+)(\.(0[xX][0-9a-fA-F]*|\d+)){0,3}\.?$")


class NetRefused(ValueError):
    """An endpoint or address the policy does not let the platform connect to; the message says why."""


def system_resolver(host: str, port: int) -> list[str]:
    """Every address `host` resolves to (the system resolver)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as e:
        raise NetRefused(f"host {host[:80]!r} does not resolve ({e})") from None
    return [str(info[4][0]) for info in infos]


def endpoint_host_port(endpoint: str) -> tuple[str, int]:
    """(host, port) of an `http(s)://` URL, a `grpc://host:port` or a bare `host:port`; `NetRefused` when it
    has no host or a bad port."""
    text = endpoint.strip()
    if text.startswith(("http://", "https://")):
        parts = urlsplit(text)
        default = 443 if parts.scheme == "https" else 80
    else:
        parts = urlsplit("//" + text.removeprefix("grpc://"))
        default = 0
    try:
        port = parts.port or default
    except ValueError:
        raise NetRefused(f"endpoint {text[:80]!r}: bad port") from None
    host = (parts.hostname or "").rstrip(".")
    if not host or not port:
        raise NetRefused(f"endpoint {text[:80]!r}: needs a host and a port")
    if parts.username or parts.password:
        raise NetRefused("endpoint URLs may not carry credentials (user:password@); use api_key_ref")
    return host, port


@dataclass(frozen=True)
class NetPolicy:
    """`allow`: CIDRs an admin allows although they are not public (the tests allow 127.0.0.0/8);
    `cluster`: the cluster's own service ranges, refused even when public (unless allowed)."""

    allow: tuple[Net, ...] = ()
    cluster: tuple[Net, ...] = ()
    resolver: Resolver = field(default=system_resolver, compare=False)
    # (host, port) of endpoints the admin configured (settings.models): trusted as written, not re-checked
    trusted: frozenset[tuple[str, int]] = frozenset()
    max_response_bytes: int = 8 * 1024 * 1024  # an endpoint's answer is read up to this size

    @classmethod
    def of(cls, allow: Iterable[str] = (), cluster: Iterable[str] = (), resolver: Resolver | None = None,
           trusted: Iterable[str] = (), max_response_bytes: int = 8 * 1024 * 1024) -> NetPolicy:
        """`trusted`: endpoints (base_urls) an admin configured; a submission may use exactly those."""
        hosts = set()
        for endpoint in trusted:
            try:
                hosts.add(endpoint_host_port(endpoint))
            except NetRefused:
                continue
        return cls(tuple(ipaddress.ip_network(a, strict=False) for a in allow),
                   tuple(ipaddress.ip_network(c, strict=False) for c in cluster), resolver or system_resolver,
                   frozenset(hosts), max_response_bytes)

    def is_trusted(self, host: str, port: int) -> bool:
        return (host.strip("[]").rstrip("."), port) in self.trusted

    def why_not(self, address: str) -> str | None:
        """None when the platform may connect to `address` (an IP literal), else the reason."""
        try:
            ip: IP = ipaddress.ip_address(address.split("%", 1)[0])
        except ValueError:
            return f"{address[:80]!r} is not an IP address"
        if any(ip in n for n in self.allow if n.version == ip.version):
            return None
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            return f"{ip} is an IPv4-mapped IPv6 address (of {ip.ipv4_mapped})"
        if any(ip in n for n in self.cluster if n.version == ip.version):
            return f"{ip} is in the cluster's service range"
        for kind in ("loopback", "link_local", "multicast", "unspecified", "private", "reserved"):
            if getattr(ip, f"is_{kind}"):
                return f"{ip} is a {kind.replace('_', '-')} address"
        if any(ip in n for n in _ALWAYS_REFUSED if n.version == ip.version) or not ip.is_global:
            return f"{ip} is not a public address"
        return None

    def check_resolved(self, host: str, addresses: Iterable[str]) -> None:
        """The connect-time check: `NetRefused` when any address `host` resolves to now is one the platform may
        not connect to (a name public at the door and internal now, DNS rebinding, is refused here)."""
        for a in addresses:
            reason = self.why_not(a)
            if reason is not None:
                raise NetRefused(f"refused to connect to {host[:80]!r}: {reason} (guard.allow)")

    def check_ip(self, address: str) -> None:
        reason = self.why_not(address)
        if reason is not None:
            raise NetRefused(f"refused to connect: {reason} (an admin may allow it in guard.allow)")

    @staticmethod
    def check_spelling(host: str) -> str:
        """`host` without brackets; `NetRefused` for a non-canonical IPv4 spelling (`2130706433`, `0x7f.1`)."""
        bare = host.strip("[]")
        if _NUMERIC_HOST.match(bare) and not _CANONICAL_V4.match(bare):
            raise NetRefused(f"host {bare[:80]!r} is a non-canonical IPv4 spelling; write the address as a.b.c.d")
        return bare

    def check_host(self, host: str, port: int) -> list[str]:
        """Resolve `host` and check every address; return them. Refuses non-canonical IPv4 spellings
        before resolving (the resolver would read `2130706433` or `0x7f.1` as 127.0.0.1)."""
        bare = self.check_spelling(host)
        try:
            addresses = [str(ipaddress.ip_address(bare.split("%", 1)[0]))]
        except ValueError:
            addresses = list(self.resolver(bare, port))
        if not addresses:
            raise NetRefused(f"host {bare[:80]!r} resolves to no address")
        for a in addresses:
            reason = self.why_not(a)
            if reason is not None:
                raise NetRefused(f"endpoint host {bare[:80]!r} refused: {reason} (an admin may allow it in guard.allow)")
        return addresses

    def check_endpoint(self, endpoint: str) -> list[str]:
        """Check a model's base_url (http(s) URL, grpc://host:port or host:port); `NetRefused` says why not."""
        host, port = endpoint_host_port(endpoint)
        if self.is_trusted(host, port):
            return []
        return self.check_host(host, port)
