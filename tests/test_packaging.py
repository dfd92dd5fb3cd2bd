"""What the release holds: every package of the project is in it, and constraints.txt pins every
distribution the project names, within the ranges pyproject.toml allows. (.ci/check-wheel.sh builds
the sdist and the wheel, installs the wheel in a fresh venv and runs the agent from it.)"""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from setuptools import find_packages

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_package_of_the_checkout_is_in_the_release() -> None:
    include = PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]
    found = set(find_packages(str(ROOT), include=include))
    folders = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in ROOT.glob("*/**/__init__.py")
        # not the tests, nor a folder tools keep in the checkout (.venv, build, .mutation's snapshots)
        if init.parts[len(ROOT.parts)] not in ("tests", "build")
        and not init.parts[len(ROOT.parts)].startswith(".")
    }

    assert folders and folders == found, sorted(folders ^ found)
    assert not any(name.split(".")[0] in ("tests", "harness", "bench") for name in found)


def test_constraints_pin_every_requirement_within_its_range() -> None:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[canonicalize_name(name)] = version
    project = PYPROJECT["project"]
    named = [
        *project["dependencies"],
        *(r for extra in project["optional-dependencies"].values() for r in extra),
    ]

    for requirement in map(Requirement, named):
        version = pins.get(canonicalize_name(requirement.name))
        assert version is not None, f"constraints.txt pins no {requirement.name}: run `bash .ci/lock.sh`"
        assert requirement.specifier.contains(version, prereleases=True), (
            f"constraints.txt pins {requirement.name}=={version}, outside {requirement}: run `bash .ci/lock.sh`"
        )
