"""Where the compiled detector kernels are kept, so that one compile serves every install on this computer.

numba's own cache (``cache=True``) sits beside each source file and is keyed on the file's path and
modification time: a fresh ``pip install .`` (new files, new times) or a switch to an editable install
(another path) throws it away, and the next run compiles the detector again for a minute or two. Here the
kernels of ``vision/`` are cached in one user folder instead, keyed on the *content* of every kernel source:
an install whose kernels read the same finds them compiled, whatever its path; an edit to any kernel file
compiles them all again (numba alone would miss an edit to a kernel another file calls).

The folder: ``$TABLEREF_CACHE_DIR``, else ``$XDG_CACHE_HOME/tableref``, else ``~/.cache/tableref``; the kernels
go to ``kernels/<source hash>-numba<version>/`` inside it. Where it cannot be written, numba's own cache takes over.
``install()`` must run before a kernel module is imported (``vision/__init__.py`` calls it).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Any

VISION_DIR = Path(__file__).resolve().parent

_stamp: str | None = None


def cache_root() -> Path:
    """The user folder tableref caches into."""
    explicit = os.environ.get("TABLEREF_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "tableref"


def kernel_sources() -> list[Path]:
    """The source files whose content decides the compiled kernels: every ``*_kernels.py`` and the scalar
    operations they share."""
    return sorted([*VISION_DIR.glob("*_kernels.py"), VISION_DIR / "kernel_ops.py"])


def source_stamp() -> str:
    """A hash of every kernel source's bytes (computed once per process)."""
    global _stamp
    if _stamp is None:
        h = hashlib.sha256()
        for path in kernel_sources():
            h.update(path.name.encode())
            h.update(path.read_bytes())
        _stamp = h.hexdigest()[:16]
    return _stamp


def kernel_dir() -> Path:
    """The folder the kernels of these sources are cached in, one per numba version: numba keeps one index per
    function and discards it whole when another version wrote it, so two installs with different numba
    versions sharing a folder would each throw the other's compiled code away."""
    import numba

    return cache_root() / "kernels" / f"{source_stamp()}-numba{numba.__version__}"


def _base_locator() -> type:
    from numba.core import caching

    return caching._CacheLocator


def _locator_class() -> type:
    base = _base_locator()

    class KernelCacheLocator(base):  # type: ignore[misc, valid-type]
        """numba cache locator for the functions defined in ``vision/``: one folder per source hash."""

        def __init__(self, py_func: Any, py_file: str) -> None:
            self._lineno = py_func.__code__.co_firstlineno
            self._path = str(kernel_dir())

        def get_cache_path(self) -> str:
            return self._path

        def get_source_stamp(self) -> str:
            return source_stamp()

        def get_disambiguator(self) -> str:
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            try:
                inside = Path(py_file).resolve().parent == VISION_DIR
            except OSError:
                return None
            if not inside:
                return None
            self = cls(py_func, py_file)
            try:
                self.ensure_cache_path()
            except OSError:
                return None  # numba's own locators take over (beside the source, or its user folder)
            return self

    return KernelCacheLocator


_installed: type | None = None


def install() -> None:
    """Put the kernel locator first in numba's list (once per process)."""
    global _installed
    if _installed is not None:
        return
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # renamed in numba 0.61
    locator = _locator_class()
    impl._locator_classes = [locator, *impl._locator_classes]
    _installed = locator


def index_name(module: str, qualname: str, lineno: int) -> str:
    """The file name numba gives the cache index of one function (``CacheImpl.get_filename_base``)."""
    abiflags = getattr(sys, "abiflags", "")
    return f"{module}.{qualname}-{lineno}.py{sys.version_info[0]}{sys.version_info[1]}{abiflags}.nbi"
