"""Write the target-entity templates of the shared sets (Kaur 2017, Algorithm 2's user input).

For every site with at least ``--min-pages`` pages in the seven shared sets (a page's site:
evalkit.core.entity_templates.page_site, i.e. the reader's site, else the URL host, else the
host of its canonical or og:url link), split the site's pages with a fixed seed
(evalkit.core.entity_templates.split_site), write the template from the training pages alone
(evalkit.core.entity_authoring.author_entities) and record the split in the file:

    python experiments/kaur2017/write_templates.py                # all seven sets
    python experiments/kaur2017/write_templates.py --sets big5_2017 --seed 0

The files go to datasets/templates/target_entities/<dataset>/<site>.yaml; a summary table
(site, pages, train, test, roles) is printed and written to
datasets/templates/target_entities/README.md.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

from hydra import compose, initialize_config_dir

from evalkit.core.entity_authoring import author_entities
from evalkit.core.entity_templates import page_site, split_site, write_template
from evalkit.harness.config import build_datasets, register_resolvers
from evalkit.shell.cli import CONFIG_DIR

REPO = Path(__file__).resolve().parents[2]
SETS = ["aeb", "l3s_gn1", "cleaneval_dev", "cleanportaleval", "readability", "chaos", "big5_2017"]
NOTE = (
    "written by experiments/kaur2017/write_templates.py from the split's training pages "
    "only (evalkit.core.entity_authoring); scored on split.test alone"
)


def _dataset(label: str):
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(config_name="config", overrides=[f"dataset={label}", "method=[fulltext]"])
    (ds,) = build_datasets(cfg).values()
    return ds


def _safe(site: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in site)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", nargs="*", default=SETS)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--train-share", type=float, default=0.5)
    ap.add_argument("--min-pages", type=int, default=3)
    ap.add_argument("--out", type=Path, default=REPO / "datasets" / "templates" / "target_entities")
    args = ap.parse_args(argv)
    register_resolvers()
    rows = []
    for label in args.sets:
        by_site = defaultdict(dict)
        for page in _dataset(label).pages():
            root = page.tree(plain=True)
            site = page_site(page, root)
            if site:
                by_site[site][page.id] = (page, root)
        for site, pages in sorted(by_site.items()):
            if len(pages) < args.min_pages:
                continue
            train, test = split_site(pages, args.seed, args.train_share, label, site)
            entities = author_entities([(pages[i][1], pages[i][0].gold.text) for i in train])
            if not entities:
                rows.append((label, site, len(pages), len(train), len(test), "(no body entity)"))
                continue
            write_template(
                args.out / label / f"{_safe(site)}.yaml",
                label,
                site,
                entities,
                args.seed,
                args.train_share,
                train,
                test,
                NOTE,
            )
            rows.append(
                (
                    label,
                    site,
                    len(pages),
                    len(train),
                    len(test),
                    ", ".join(f"{r}: {len(v)}" for r, v in entities.items()),
                )
            )
    lines = [
        "# Target-entity templates of the shared sets",
        "",
        (
            "Written by `python experiments/kaur2017/write_templates.py` (seed "
            f"{args.seed}, train share {args.train_share}, sites with at least "
            f"{args.min_pages} pages); format: docs/methods/target_entities.md#template-files."
        ),
        (
            "Each template was written from its `split.train` pages only and is scored on "
            "`split.test` only."
        ),
        "",
        "| data set | site | pages | train | test | entities per role |",
        "|---|---|---|---|---|---|",
    ]
    lines += [f"| {a} | {b} | {c} | {d} | {e} | {f} |" for a, b, c, d, e, f in rows]
    text = "\n".join(lines) + "\n"
    (args.out / "README.md").write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
