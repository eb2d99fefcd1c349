"""Which folders the wheel holds, and under which names (pyproject.toml has the rest).

The wheel installs one top-level package, ``evalkit``. The repository keeps ``baselines/``,
``configs/`` and ``datasets/manifest.json`` beside it; the wheel maps them inside it as
``evalkit.baselines``, ``evalkit.configs`` (read by Hydra as ``pkg://evalkit.configs``) and
``evalkit.datasets``, where evalkit/core/layout.py looks for them in an installed package. A
top-level ``baselines`` would collide with an unrelated PyPI project of that name. The
packages are found here, not listed in pyproject.toml, so that a new subpackage needs no
list kept by hand (tests/test_wheel.py checks that every file reaches the wheel).
"""

from setuptools import find_packages, setup

#: repository folder -> its package inside evalkit
MAPPED = {
    "baselines": "evalkit.baselines",
    "configs": "evalkit.configs",
    "datasets": "evalkit.datasets",
}

packages = find_packages(include=["evalkit", "evalkit.*"])
packages += [f"evalkit.{name}" for name in find_packages(include=["baselines", "baselines.*"])]
packages += ["evalkit.configs", "evalkit.datasets"]

setup(
    packages=packages,
    package_dir={package: folder for folder, package in MAPPED.items()},
    package_data={
        "evalkit.configs": ["*.yaml", "**/*.yaml"],
        "evalkit.datasets": ["manifest.json", "templates/**/*.yaml", "templates/**/*.md"],
    },
    include_package_data=False,  # exactly what is listed here: no docs, no results
)
