"""livetab.netguard at the validator: every non-public spelling of an address is refused without an
allow-list; nothing here opens a connection (the resolver of `localhost` is the system's, which does not)."""

from __future__ import annotations

import pytest
from livetab.netguard import NetPolicy, NetRefused, endpoint_host_port

REFUSED = [
    "http://127.0.0.1:8000/v1",
    "http://10.0.0.5/v1",
    "http://172.16.3.4/v1",
    "http://172.31.255.255/v1",
    "http://192.168.1.10/v1",
    "http://169.254.169.254/latest/meta-data/",
    "http://[::1]:8000/v1",
    "http://[::ffff:127.0.0.1]/v1",
    "http://[::ffff:169.254.169.254]/v1",
    "http://[fe80::1]/v1",
    "http://[fd00::1]/v1",
    "http://2130706433/v1",  # 127.0.0.1 in decimal
    "http://0x7f000001/v1",  # in hex
    "http://0177.0.0.1/v1",  # in octal
    "http://0x7f.0.0.1/v1",
    "http://127.1/v1",
    "http://0.0.0.0/v1",
    "http://224.0.0.1/v1",
    "http://100.64.0.1/v1",
    "http://localhost:8000/v1",  # a name that resolves to loopback
    "grpc://127.0.0.1:50051",
    "10.1.2.3:50051",
]


@pytest.mark.parametrize("url", REFUSED)
def test_refused_without_allow_list(url: str) -> None:
    with pytest.raises(NetRefused) as e:
        NetPolicy.of().check_endpoint(url)
    assert "refused" in str(e.value) or "non-canonical" in str(e.value)


def test_metadata_address_named_as_link_local() -> None:
    with pytest.raises(NetRefused, match="link-local"):
        NetPolicy.of().check_endpoint("http://169.254.169.254/")


def test_hostname_resolving_to_private_refused() -> None:
    """A name is checked by every address it resolves to: one private address among public ones refuses it."""
    names = {"models.example": ["93.184.216.34", "10.0.0.7"], "ok.example": ["93.184.216.34"]}
    p = NetPolicy.of(resolver=lambda host, port: names[host])
    with pytest.raises(NetRefused, match=r"10\.0\.0\.7"):
        p.check_endpoint("https://models.example/v1")
    assert p.check_endpoint("https://ok.example/v1") == ["93.184.216.34"]


def test_allow_list_and_cluster_ranges() -> None:
    allowed = NetPolicy.of(allow=["127.0.0.0/8", "::1/128"])
    assert allowed.check_endpoint("http://127.0.0.1:9/v1") == ["127.0.0.1"]
    assert allowed.check_endpoint("http://[::1]:9/v1") == ["::1"]
    with pytest.raises(NetRefused):  # the allow-list is for what it names only
        allowed.check_endpoint("http://10.0.0.1/v1")
    with pytest.raises(NetRefused):  # a mapped spelling of an allowed address is still refused
        allowed.check_endpoint("http://[::ffff:10.0.0.1]/v1")
    cluster = NetPolicy.of(cluster=["203.0.113.0/24", "8.8.8.0/24"])
    with pytest.raises(NetRefused, match="cluster"):
        cluster.check_endpoint("http://8.8.8.8/v1")
    assert NetPolicy.of().check_endpoint("http://8.8.8.8/v1") == ["8.8.8.8"]  # public: checked, not connected


@pytest.mark.parametrize(("endpoint", "host", "port"), [
    ("http://h.example/v1", "h.example", 80), ("https://h.example:8443/v1", "h.example", 8443),
    ("grpc://h.example:50051", "h.example", 50051), ("h.example:1", "h.example", 1), ("http://[::1]:5/", "::1", 5),
])
def test_endpoint_host_port(endpoint: str, host: str, port: int) -> None:
    assert endpoint_host_port(endpoint) == (host, port)


@pytest.mark.parametrize("endpoint", ["http:///v1", "grpc://nohost", "http://u:p@h.example/v1", "http://h:99999/"])
def test_endpoint_without_host_or_with_credentials(endpoint: str) -> None:
    with pytest.raises(NetRefused):
        NetPolicy.of(resolver=lambda h, p: ["93.184.216.34"]).check_endpoint(endpoint)
