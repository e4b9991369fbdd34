"""Cluster mode and the page's Content-Security-Policy (issue 12: the web client follows its
room to another node): connect-src lets a page reach every live node, on any port of their
hosts (a node added after the page loaded), plus the operator's `csp_connect` sources, and
nothing a node URL or the setting could smuggle in."""

from __future__ import annotations

from server.edge.httpguard import content_security_policy, extra_sources, node_sources


def connect_src(policy: str) -> list[str]:
    part = next(p for p in policy.split("; ") if p.startswith("connect-src "))
    return part.split()[1:]


def test_the_embedded_default_connects_to_its_own_host_only():
    assert connect_src(content_security_policy("127.0.0.1:8000")) == [
        "'self'", "ws://127.0.0.1:8000", "wss://127.0.0.1:8000"]


def test_every_live_node_is_reachable_on_any_port_of_its_host():
    policy = content_security_policy("n1.example.com", ["https://n1.example.com",
                                                        "https://n2.example.com:8443/",
                                                        "http://127.0.0.1:5001"])
    sources = connect_src(policy)
    for src in ("https://n2.example.com:*", "wss://n2.example.com:*", "http://127.0.0.1:*",
                "ws://127.0.0.1:*"):
        assert src in sources, (src, sources)
    assert "ws://n2.example.com:*" not in sources  # an https node takes wss only


def test_a_node_url_or_setting_cannot_add_other_directives():
    assert node_sources("https://x.example.com; script-src *") == ""
    assert node_sources("javascript:alert(1)") == ""
    assert extra_sources("https://*.example.com 'unsafe-inline' data: *; wss://*.example.com") \
        == " https://*.example.com wss://*.example.com"
    policy = content_security_policy("h", ["https://a b"], extra_sources("'unsafe-eval'"))
    assert "unsafe" not in policy and "script-src 'self';" in policy
