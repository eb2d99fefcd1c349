"""The block record round-trips through its JSON form and refuses unknown fields."""

import json

import pytest

from evalkit.core.block import _FIELD_TYPES, BLOCK_FIELDS, Block, preview


def test_a_record_round_trips_through_json():
    b = Block(
        index=3,
        tag="div",
        path="/html/body/div[2]",
        text=preview("  Breaking\n news  "),
        words=2,
        link_words=0,
        kept=False,
        stage="dedup",
        rule="near_duplicate",
        duplicate_of=1,
        scores={"score": 0.25, "threshold": 0.5},
        attrs={"heading": True},
    )
    data = json.loads(json.dumps(b.to_dict()))
    assert list(data) == list(BLOCK_FIELDS)
    assert data["text"] == "Breaking news"
    assert Block.from_dict(data) == b


def test_defaults_are_empty_and_unknown_fields_are_named():
    assert Block(index=0, tag="p").to_dict() == {
        "index": 0,
        "tag": "p",
        "path": None,
        "text": "",
        "words": None,
        "link_words": None,
        "kept": True,
        "stage": None,
        "rule": None,
        "reason": None,
        "duplicate_of": None,
        "scores": {},
        "attrs": {},
    }
    with pytest.raises(ValueError, match="unknown block field.*priority"):
        Block.from_dict({"index": 0, "tag": "p", "priority": 1.0})
    with pytest.raises(ValueError, match="needs 'index' and 'tag'"):
        Block.from_dict({"index": 0})


def test_preview_collapses_whitespace_and_cuts():
    assert preview("a\t b\n\nc" + "x" * 100, chars=6) == "a b cx"


def test_every_field_has_a_type_and_a_wrong_type_is_named():
    assert set(_FIELD_TYPES) == set(BLOCK_FIELDS)
    ok = {"index": 0, "tag": "p"}
    for name, value, want in [
        ("index", True, "int"),
        ("index", None, "int"),
        ("tag", 3, "str"),
        ("path", 3, "str or None"),
        ("words", 2.0, "int or None"),
        ("kept", 1, "bool"),
        ("stage", 2, "str or None"),
        ("duplicate_of", "0", "int or None"),
        ("scores", [], "dict"),
        ("attrs", None, "dict"),
    ]:
        with pytest.raises(ValueError, match=rf"^block field '{name}' is a \w+, not {want}$"):
            Block.from_dict({**ok, name: value})
    with pytest.raises(ValueError, match="block score 'p' is a bool, not a number or None"):
        Block.from_dict({**ok, "scores": {"p": True}})
    with pytest.raises(ValueError, match="block field 'attrs' has a key 1 that is not a string"):
        Block.from_dict({**ok, "attrs": {1: "x"}})  # JSON object keys are strings
    with pytest.raises(ValueError, match="a block record is a dict, not a list"):
        Block.from_dict([0, "p"])
    assert Block.from_dict({**ok, "scores": {"n": 3, "s": 0.5, "none": None}}).scores == {
        "n": 3,
        "s": 0.5,
        "none": None,
    }
