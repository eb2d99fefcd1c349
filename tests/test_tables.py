"""Tables from summary rows: wide and cross views, cell formatting, file formats."""

import pandas as pd

from evalkit.report.tables import cross_table, format_cell, wide_table, write_table

ROWS = pd.DataFrame(
    [
        # experiment, dataset, method, metric, value, ci_low, ci_high, n_pages
        ("extraction", "a", "m1", "shingle_f1", 0.8125, 0.8, 0.83, 10),
        ("extraction", "a", "m2", "shingle_f1", 0.5, 0.4, 0.6, 10),
        ("extraction", "b", "m1", "shingle_f1", 0.25, float("nan"), float("nan"), 3),
        ("extraction", "a", "m1", "word_f1", 0.7, 0.6, 0.8, 10),
    ],
    columns=["experiment", "dataset", "method", "metric", "value", "ci_low", "ci_high", "n_pages"],
)


def test_format_cell_rules():
    assert format_cell(0.8125, 0.8, 0.83) == "0.812 [0.800, 0.830]"
    assert format_cell(0.25, float("nan"), float("nan")) == "0.250"
    assert format_cell(float("nan")) == "-"


def test_wide_table_rows_are_methods_and_missing_cells_are_dashes():
    t = wide_table(ROWS, ["shingle_f1", "word_f1"], dataset="a")
    assert t.to_dict("records") == [
        {
            "method": "m1",
            "shingle_f1": "0.812 [0.800, 0.830]",
            "word_f1": "0.700 [0.600, 0.800]",
            "n_pages": 10,
        },
        {"method": "m2", "shingle_f1": "0.500 [0.400, 0.600]", "word_f1": "-", "n_pages": 10},
    ]


def test_cross_table_puts_data_sets_in_columns():
    t = cross_table(ROWS, "shingle_f1")
    assert t.to_dict("records") == [
        {"method": "m1", "a": "0.812", "b": "0.250"},
        {"method": "m2", "a": "0.500", "b": "-"},
    ]


def test_write_table_writes_csv_md_and_booktabs_tex(tmp_path):
    paths = write_table(cross_table(ROWS, "shingle_f1"), tmp_path / "t", caption="F1 50%")
    assert [p.name for p in paths] == ["t.csv", "t.md", "t.tex"]
    assert (tmp_path / "t.md").read_text().splitlines()[2] == "| method | a | b |"
    tex = (tmp_path / "t.tex").read_text()
    assert r"\toprule" in tex and r"m1 & 0.812 & 0.250 \\" in tex and r"F1 50\%" in tex
