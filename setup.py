"""Packaging beyond pyproject.toml: the site's templates/ and static/ stay at the top of the repository and
ship inside the wheel as companion/templates and companion/static, where companion.web.core.config.site_folder finds them.

Folders are found as namespace packages so that folders holding only data files (translations/*/LC_MESSAGES,
templates/cryptid/game) count as parts of the package too.
"""

from setuptools import find_namespace_packages, setup

SITE_FOLDERS = {"companion.templates": "templates", "companion.static": "static"}
NOT_SHIPPED = ["__pycache__", "*.__pycache__", "docs"]  # static/docs holds the README's screenshot


def packages_in(folder: str, package: str) -> list[str]:
    """`folder` as `package`, and each of its subfolders as a subpackage."""
    return [package, *(f"{package}.{name}" for name in find_namespace_packages(where=folder, exclude=NOT_SHIPPED))]


FOLDERS = {"companion": "companion", **SITE_FOLDERS}

setup(
    packages=[name for package, folder in FOLDERS.items() for name in packages_in(folder, package)],
    package_dir=SITE_FOLDERS,
)
