"""Naive Bayes accuracy protocol (Kabir et al. 2015, Tables 4.3.1, 4.3.2, 4.4.1)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import MultinomialNB

from evalkit.core.naive_bayes import (
    DEFAULT_TEST_FRACTIONS,
    FRAME_COLUMNS,
    _split_seed,  # to redraw the same splits
    case_standard_errors,
    kabir_standard_error,
    n_test_pages,
    naive_bayes_accuracy,
    standard_error,
    summarize_accuracy,
)
from evalkit.core.page import decode_html

# Table 4.3.2 of Kabir et al. (2015), as fractions
PAB = [0.80, 0.80, 0.83, 0.86, 0.88, 0.883, 0.90]
ENIW = [0.80, 0.85, 0.83, 0.85, 0.86, 0.833, 0.80]

TOPICS = {
    "cooking": [
        "flour",
        "butter",
        "oven",
        "recipe",
        "sugar",
        "dough",
        "bake",
        "simmer",
        "garlic",
        "onion",
        "pepper",
        "sauce",
    ],
    "football": [
        "goal",
        "striker",
        "referee",
        "penalty",
        "league",
        "match",
        "keeper",
        "midfield",
        "corner",
        "tackle",
    ],
    "astronomy": [
        "galaxy",
        "telescope",
        "orbit",
        "comet",
        "nebula",
        "planet",
        "asteroid",
        "eclipse",
        "lunar",
        "stellar",
    ],
}


def toy_corpus(seed: int = 3, per_topic: int = 20, noise: float = 0.0):
    """Documents of 15 words from their topic's vocabulary; with ``noise`` > 0 each
    word comes from a random topic with that probability, so topics overlap."""
    rng = np.random.default_rng(seed)
    names = sorted(TOPICS)
    texts, labels = [], []
    for name in names:
        for _ in range(per_topic):
            doc = []
            for _ in range(15):
                src = names[rng.integers(len(names))] if rng.random() < noise else name
                doc.append(TOPICS[src][rng.integers(len(TOPICS[src]))])
            texts.append(" ".join(doc))
            labels.append(name)
    return texts, labels


def test_case_sizes_follow_table_4_3_1():
    assert [n_test_pages(500, f) for f in DEFAULT_TEST_FRACTIONS] == [10, 20, 30, 40, 50, 60, 70]
    # chaos: 360 pages; 2 % = 7.2 -> 7, 6 % = 21.6 -> 22
    assert [n_test_pages(360, f) for f in DEFAULT_TEST_FRACTIONS] == [7, 14, 22, 29, 36, 43, 50]
    assert n_test_pages(3, 0.01) == 1 and n_test_pages(3, 0.99) == 2


def test_separable_topics_are_classified_perfectly():
    texts, labels = toy_corpus()
    frame = naive_bayes_accuracy(texts, labels, repeats=3, seed=0)
    assert list(frame.columns) == FRAME_COLUMNS
    assert len(frame) == 7 * 3
    assert (frame["accuracy"] == 1.0).all()
    assert (frame["n_correct"] == frame["n_test"]).all()
    # 60 pages: 1, 2, 4, 5, 6, 7, 8 test pages; stratified once there is one per class (3)
    summary = summarize_accuracy(frame)
    assert summary["n_test"].tolist() == [1, 2, 4, 5, 6, 7, 8]
    assert summary["stratified"].tolist() == [False, False, True, True, True, True, True]
    assert frame.loc[frame["case"] == 1, "note"].iloc[0] == "unstratified: 1 test pages < 3 classes"
    assert (summary["mean"] == 1.0).all() and (summary["std"] == 0.0).all()
    assert case_standard_errors(summary) == {"kabir_se": 0.0, "se": 0.0}


def test_same_seed_same_frame_other_seed_other_draws():
    texts, labels = toy_corpus(noise=0.6)
    a = naive_bayes_accuracy(texts, labels, repeats=4, seed=5)
    b = naive_bayes_accuracy(texts, labels, repeats=4, seed=5)
    pd.testing.assert_frame_equal(a, b)
    c = naive_bayes_accuracy(texts, labels, repeats=4, seed=6)
    assert not a["accuracy"].equals(c["accuracy"])
    # overlapping topics: clearly better than chance (1/3), clearly imperfect
    assert 0.5 < a["accuracy"].mean() < 0.98


def test_counts_from_shared_vocabulary_equal_a_vectorizer_fitted_on_training_texts():
    # the module vectorizes once and keeps the training columns; this refits per draw
    texts, labels = toy_corpus(noise=0.6)
    texts = [t + (" zebra" if i % 7 == 0 else "") for i, t in enumerate(texts)]  # rare words
    frame = naive_bayes_accuracy(texts, labels, test_fractions=(0.1, 0.3), repeats=3, seed=2)
    index = np.arange(len(texts))
    for row in frame.itertuples():
        train, test = train_test_split(
            index,
            test_size=row.n_test,
            shuffle=True,
            random_state=_split_seed(2, row.case, row.repeat),
            stratify=labels if row.stratified else None,
        )
        vec = CountVectorizer(lowercase=True, stop_words="english")
        model = MultinomialNB().fit(
            vec.fit_transform([texts[i] for i in train]), [labels[i] for i in train]
        )
        predicted = model.predict(vec.transform([texts[i] for i in test]))
        assert row.n_correct == sum(p == labels[i] for p, i in zip(predicted, test))


def test_summary_mean_std_and_first_draw():
    frame = pd.DataFrame(
        {
            "case": [1, 1, 1, 2, 2, 2],
            "test_fraction": [0.1] * 3 + [0.2] * 3,
            "repeat": [2, 0, 1, 0, 1, 2],
            "n_train": [9] * 3 + [8] * 3,
            "n_test": [1] * 3 + [2] * 3,
            "n_correct": [1, 0, 1, 2, 1, 1],
            "accuracy": [1.0, 0.0, 1.0, 1.0, 0.5, 0.5],
            "stratified": [False] * 6,
            "note": [""] * 6,
        }
    )
    s = summarize_accuracy(frame)
    assert s["first"].tolist() == [0.0, 1.0]  # repeat 0, whatever the row order
    assert s["mean"].tolist() == pytest.approx([2 / 3, 2 / 3])
    # sample std of (0, 1, 1) and of (1, .5, .5): both sqrt(1/3) and sqrt(1/12)
    assert s["std"].tolist() == pytest.approx([np.sqrt(1 / 3), np.sqrt(1 / 12)])


def test_kabir_standard_error_reproduces_table_4_4_1_for_pab():
    # 1 - (0.80+0.80+0.83+0.86+0.88+0.883+0.90)/7 = 1 - 5.953/7 = 0.149571...
    assert kabir_standard_error(PAB) == pytest.approx(1 - 5.953 / 7)
    assert round(kabir_standard_error(PAB), 4) == 0.1496  # published: 0.1496
    # the published ENIW value, 0.20396, does not follow from its column: 1 - 5.823/7
    assert round(kabir_standard_error(ENIW), 4) == 0.1681
    # the conventional standard error of the mean over the seven cases
    assert standard_error(PAB) == pytest.approx(np.std(PAB, ddof=1) / np.sqrt(7))
    assert round(standard_error(PAB), 4) == 0.0154
    summary = pd.DataFrame({"case": range(1, 8), "first": PAB, "mean": ENIW})
    assert case_standard_errors(summary)["kabir_se"] == pytest.approx(0.149571, abs=1e-6)
    assert case_standard_errors(summary, "mean")["kabir_se"] == pytest.approx(0.168143, abs=1e-6)


def test_empty_texts_fall_back_to_the_prior():
    labels = ["a"] * 6 + ["b"] * 4
    frame = naive_bayes_accuracy([""] * 10, labels, test_fractions=(0.2,), repeats=2)
    assert frame["note"].str.contains("empty vocabulary: majority label").all()
    # stratified 2 test pages: one "a", one "b"; training keeps 5 a / 3 b, so "a" is
    # predicted for both and exactly one is right
    assert frame["stratified"].all()
    assert (frame["accuracy"] == 0.5).all()


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="3 texts but 2 labels"):
        naive_bayes_accuracy(["a", "b", "c"], ["x", "y"])
    with pytest.raises(ValueError, match="test fractions"):
        naive_bayes_accuracy(["a", "b"], ["x", "y"], test_fractions=(1.0,))


def _chaos_gold(root):
    files = sorted((root / "gold").glob("*.txt"))
    texts = [decode_html(f.read_bytes())[0] for f in files]
    labels = [re.sub(r"\s*\(\d+\)$", "", f.stem) for f in files]
    return texts, labels


def test_chaos_gold_text_accuracy(shared, capsys):
    texts, labels = _chaos_gold(shared("chaos"))
    assert len(texts) == 360 and len(set(labels)) == 36
    frame = naive_bayes_accuracy(texts, labels)
    summary = summarize_accuracy(frame)
    ses = case_standard_errors(summary)
    with capsys.disabled():
        print("\nchaos gold text, multinomial NB, 10 repeats per case:")
        print(summary.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
        print(f"Kabir SE (first draws) {ses['kabir_se']:.4f}, SE of mean {ses['se']:.4f}")
    assert summary["n_test"].tolist() == [7, 14, 22, 29, 36, 43, 50]
    # 36 topics: stratified only from 36 test pages on
    assert summary["stratified"].tolist() == [False] * 4 + [True] * 3
    # measured: per-case means 0.814-0.929, overall 0.872 (chance is 1/36)
    assert summary["mean"].between(0.75, 0.97).all()
    assert 0.84 < frame["accuracy"].mean() < 0.90
