"""Hosts and registrable domains (evalkit.core.domains), the one reading of "the same site" that
the proposed method, PAB and the dedup experiment share."""

from __future__ import annotations

import pytest

from evalkit.core.domains import registrable_domain, url_host


@pytest.mark.parametrize(
    "url,want",
    [
        ("https://news.example.co.uk/a", "example.co.uk"),
        ("http://www.bbc.com/news", "bbc.com"),
        ("//cdn.site.com.au/x.png", "site.com.au"),
        ("example.org", "example.org"),
        ("http://192.168.1.4/x", "192.168.1.4"),
        ("/relative/path.png", None),
        (None, None),
        # a two-letter country code under a generic second level, listed or not
        ("http://shop.example.com.de/", "example.com.de"),
        ("https://a.b.example.me.uk/", "example.me.uk"),
        ("www.bbc.co.uk", "bbc.co.uk"),
        ("news.bbc.co.uk", "bbc.co.uk"),
        ("edition.cnn.com", "cnn.com"),
        ("www.example.co", "example.co"),
        ("EXAMPLE.Com.", "example.com"),
        ("http://[::1]:8080/", "::1"),
        ("10.0.0.1", "10.0.0.1"),
    ],
)
def test_registrable_domain(url, want):
    assert registrable_domain(url) == want


def _url_host_by_urlsplit(url):
    """url_host as urlsplit computes it: the reference for the direct netloc reading."""
    from urllib.parse import urlsplit

    if not url:
        return None
    url = url.strip()
    if url.startswith("//"):
        url = "http:" + url
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    return host.lower().rstrip(".") if host else None


@pytest.mark.parametrize(
    "url",
    [
        "https://www.Example.COM/a?b#c",
        "//cdn.x.net/i.png",
        "HTTP://u:p@Host.com:8080/x",
        "mailto:a@b.com",
        "/relative/path",
        "a://x",
        "1http://x",
        "http:x//y",
        "http:/x",
        "foo/bar:baz//x",
        "http://host.com./",
        "http://./",
        "http://:80/",
        "http://[::1]:80/",
        "http://[bad/",
        "http://a b.com/",
        "http://h%41.com/",
        "http://xn--bcher-kva.ch/",
        "http://bücher.ch/",
        "http://ex\tample.com/",
        "http://\x00x.com",
        " http://pad.com/ ",
        "javascript:void(0)",
        "https://user@a.b.c.co.uk",
        "http://?q",
        "http://#f",
        "#top",
    ],
)
def test_url_host_reads_the_netloc_as_urlsplit_does(url):
    assert url_host(url) == _url_host_by_urlsplit(url)


def test_url_host_matches_urlsplit_on_generated_urls():
    from fuzz import scaled  # beside the tests
    from hypothesis import given, settings
    from hypothesis import strategies as st

    parts = st.sampled_from(
        [
            "http",
            "HTTPS",
            "a+b-c.d",
            "1x",
            "",
            ":",
            "//",
            "/",
            "?",
            "#",
            "@",
            "u:p@",
            "[",
            "]",
            "%",
            ".",
            " ",
            "\t",
            "ü",
            "Host.COM",
            "80",
            "x.co.uk",
            "\x7f",
            "\x01",
        ]
    )

    @settings(max_examples=scaled(2000), deadline=None)
    @given(st.lists(parts, max_size=8).map("".join))
    def check(url):
        assert url_host(url) == _url_host_by_urlsplit(url)

    check()
