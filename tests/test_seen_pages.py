"""SeenPages: the run's page id -> sha256 map, kept compact, read as the dict it replaced."""

import hashlib

from evalkit.readers.base import SeenPages
from evalkit.report.results import dataset_fingerprint


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_reads_like_a_dict_with_the_last_value_of_an_id():
    seen, plain = SeenPages(), {}
    for page_id, body in [("a", "1"), ("b", "2"), ("a", "3"), ("c", "4")]:
        seen[page_id] = plain[page_id] = _sha(body)
    assert len(seen) == len(plain) == 3
    assert sorted(seen.values()) == sorted(plain.values())
    # run.json's fingerprint: the same bytes as the hash of the dict's sorted values
    assert seen.fingerprint() == dataset_fingerprint(plain.values())


def test_equal_pages_in_any_order_and_more_after_a_read():
    a, b = SeenPages(), SeenPages()
    for i in range(50):
        a[f"p{i}"] = _sha(str(i))
    for i in reversed(range(50)):
        b[f"p{i}"] = _sha(str(i))
    assert a == b and len(a) == 50
    b["p50"] = _sha("50")  # a set after a read grows the table again
    assert a != b and len(b) == 51
    empty = SeenPages()
    assert len(empty) == 0 and empty.fingerprint() == dataset_fingerprint([])
