"""Hybridhash (a reconstruction of Uma & Latha 2018): fingerprints worked by hand from xxHash."""

from __future__ import annotations

from pathlib import Path

import pytest
import xxhash
import yaml

from baselines.hybridhash import Hybridhash
from evalkit.core.fingerprint import fingerprint
from evalkit.core.method import param_names
from evalkit.core.sketching import binary_vector, hybrid_fingerprint, simhash_fingerprint
from evalkit.core.text import terms
from evalkit.harness.registry import DETECTORS

# XXH32 (seed 0) of three terms, bit 0 = least significant:
#   alpha 0x540493c8 = 0101 0100 0000 0100 1001 0011 1100 1000
#   beta  0x9c5df589 = 1001 1100 0101 1101 1111 0101 1000 1001
#   gamma 0xd9eba56d = 1101 1001 1110 1011 1010 0101 0110 1101
A, B, C = 0x540493C8, 0x9C5DF589, 0xD9EBA56D


def test_hashes_are_the_ones_worked_with():
    for word, h in (("alpha", A), ("beta", B), ("gamma", C)):
        assert xxhash.xxh32_intdigest(word.encode(), seed=0) == h


def test_three_terms_fingerprint_is_the_bitwise_majority():
    # binary vector {alpha, beta, gamma}, each weight 1: counter k = (+1 or -1) x 3, positive iff
    # at least two of the three hashes have bit k set: the bitwise majority
    #   (A & B) | (A & C) | (B & C) = 0xdc4db5c9
    det = Hybridhash(bits=32, stoplist="none", stemmer="none")
    assert det.fingerprint("alpha beta gamma") == (A & B) | (A & C) | (B & C) == 0xDC4DB5C9


def test_a_repeated_term_counts_once_unlike_simhash():
    # "alpha alpha beta": binary vector {alpha, beta}; counter k = +-1 +-1 > 0 only when both bits
    # are 1 (a tie at 0 gives bit 0): A & B = 0x14049188.
    # Plain simhash weighs alpha 2 and beta 1: counter k has alpha's sign, so the fingerprint is A.
    det = Hybridhash(bits=32, stoplist="none", stemmer="none")
    assert det.fingerprint("alpha alpha beta") == A & B == 0x14049188
    assert det.fingerprint("alpha beta") == det.fingerprint("beta alpha alpha")
    assert simhash_fingerprint(["alpha", "alpha", "beta"], 32) == A
    # and one term alone is its own hash
    assert det.fingerprint("gamma") == C


def test_binary_vector_and_shingles():
    text = "The solar plant opens; the solar plant"
    assert binary_vector(text) == frozenset({"solar", "plant", "open"})
    assert binary_vector(text, shingle=2) == frozenset({"solar plant", "plant open", "open solar"})
    det = Hybridhash(shingle=2)
    assert det.fingerprint(text) == fingerprint(dict.fromkeys(sorted(binary_vector(text, 2)), 1.0))
    assert Hybridhash().fingerprint(text) == hybrid_fingerprint(frozenset(terms(text)))


def test_boundary_at_k():
    det = Hybridhash(k=3)
    # Hamming 3 is a near duplicate, 4 is not (the seed paper: "differ atmost k bits")
    assert det.similar(0b0000, 0b0111)
    assert not det.similar(0b0000, 0b1111)
    assert Hybridhash(k=0).similar(5, 5) and not Hybridhash(k=0).similar(5, 4)
    # alpha vs beta differ in 13 of 32 bits
    d32 = Hybridhash(bits=32, k=13, stoplist="none", stemmer="none")
    fa, fb = d32.fingerprint("alpha"), d32.fingerprint("beta")
    assert d32.distance(fa, fb) == 13 and d32.similar(fa, fb)
    assert not Hybridhash(bits=32, k=12).similar(fa, fb)


def test_find_duplicates_and_texts_without_terms():
    det = Hybridhash()
    city = (
        "The city council approved the new budget for public libraries on Tuesday, adding "
        "money for longer opening hours and repairs to the old central library building."
    )
    reworded = city.upper().replace(",", ";")  # same terms: the same binary vector
    storm = "Heavy rain flooded several roads near the harbour overnight."
    assert det.find_duplicates([city, reworded, storm, "", "the of and"]) == [
        None,
        0,
        None,
        None,
        None,
    ]
    assert det.fingerprint("") is None and det.fingerprint("to it.") is None


def test_refuses_foreign_signatures_and_bad_settings():
    det = Hybridhash(bits=32)
    with pytest.raises(ValueError):
        det.distance(1 << 40, 0)
    with pytest.raises(ValueError):
        det.distance(frozenset(), 0)
    for bad in ({"bits": 48}, {"k": -1}, {"k": 65}, {"shingle": 0}, {"stoplist": "x"}):
        with pytest.raises(ValueError):
            Hybridhash(**bad)


def test_registry_and_config():
    assert DETECTORS.get("hybridhash") is Hybridhash
    path = Path(__file__).resolve().parents[1] / "configs" / "detector" / "hybridhash.yaml"
    text = path.read_text()
    cfg = yaml.safe_load(text)["hybridhash"]
    assert cfg.pop("_name_") == "hybridhash"
    assert list(cfg) == param_names(Hybridhash)
    assert DETECTORS.create("hybridhash", **cfg).get_params() == Hybridhash().get_params()
    for key in cfg:
        assert f"detector.hybridhash.{key}=" in text
