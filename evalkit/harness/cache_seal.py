"""The cache's secret key and the HMAC that authenticates its records (docs/cache.md).

A checksum says a record was not damaged; it does not say who wrote it. Anyone who could
write to the cache folder could put a score record of F1 1.000 in place of 0.778 with a
matching sha256 (issue 37, item 6). Every record whose content becomes a number (score
records, extraction entries) therefore carries an HMAC-SHA256 (:mod:`hmac`) under a
random key kept in the cache folder, ``<cache>/hmac.key``: made once with
:func:`os.urandom`, mode 0600, owned by the user who runs evalkit. A record whose MAC does
not verify (forged, copied from another cache, written before records had a MAC) is a
miss: it is computed again and rewritten, never read as a number.

A key file that is not a regular file of :data:`KEY_BYTES` bytes, owned by this user and
readable by no one else, is not trusted: the run stops with one line naming it
(:class:`CacheKeyError`).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
import tempfile
from pathlib import Path

from evalkit.harness.errors import CacheWriteError, RunnerError, cache_write_line

__all__ = ["KEY_BYTES", "KEY_FILE", "CacheKeyError", "Seal", "cache_seal"]

#: the key's file name under the cache folder
KEY_FILE = "hmac.key"
KEY_BYTES = 32


class CacheKeyError(RunnerError):
    """The cache's key file is there but cannot be trusted or read (one line naming it)."""


class Seal:
    """The MAC of a cache's records: :meth:`sign` (makes the key on first use) and
    :meth:`verify` (a cache with no key yet holds no valid record)."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.path = self.root / KEY_FILE
        self._secret: bytes | None = None
        self._seen: tuple[int, ...] | None = None  # the file read (_identity)

    def _mac(self, secret: bytes, kind: str, key: str, digest: str) -> str:
        msg = f"{kind}\0{key}\0{digest}".encode("utf-8", "surrogatepass")
        return hmac.new(secret, msg, hashlib.sha256).hexdigest()

    def sign(self, kind: str, key: str, digest: str) -> str:
        """The MAC of the record of ``kind`` (its format) stored under ``key`` whose content
        has the sha256 ``digest``."""
        return self._mac(self.secret(create=True), kind, key, digest)

    def verify(self, kind: str, key: str, digest: object, mac: object) -> bool:
        """Whether ``mac`` is this cache's MAC of (``kind``, ``key``, ``digest``)."""
        if not isinstance(mac, str) or not isinstance(digest, str):
            return False
        secret = self.secret(create=False)
        return secret is not None and hmac.compare_digest(self._mac(secret, kind, key, digest), mac)

    def secret(self, create: bool) -> bytes | None:
        """The key's bytes; made first when there is none and ``create`` (else None).
        :class:`CacheKeyError` for a key file that cannot be trusted, :class:`CacheWriteError`
        when it cannot be made."""
        seen = self._identity()  # the folder may have been deleted and made again since
        if self._secret is None or seen != self._seen:
            found = self._read()
            if found is None and create:
                self._make()
                found = self._read()
            self._secret, self._seen = found, self._identity()
        return self._secret

    def _identity(self) -> tuple[int, ...] | None:
        """What says the key file is the one read: replaced, re-made or given to others."""
        try:
            st = os.stat(self.path, follow_symlinks=False)
        except OSError:
            return None
        return st.st_dev, st.st_ino, st.st_mode, st.st_uid, st.st_size, st.st_mtime_ns

    def _read(self) -> bytes | None:
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(self.path, flags)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise CacheKeyError(self._untrusted(f"{exc.strerror or exc}")) from None
        try:
            st = os.fstat(fd)
            why = None
            if not stat.S_ISREG(st.st_mode):
                why = "not a regular file"
            elif st.st_uid != os.geteuid():
                why = f"owned by user {st.st_uid}, not by this user ({os.geteuid()})"
            elif st.st_mode & 0o077:
                why = f"mode {stat.S_IMODE(st.st_mode):04o}: others may read or change it"
            elif st.st_size != KEY_BYTES:
                why = f"{st.st_size} bytes, not {KEY_BYTES}"
            if why:
                raise CacheKeyError(self._untrusted(why))
            return os.read(fd, KEY_BYTES + 1)
        finally:
            os.close(fd)

    def _untrusted(self, why: str) -> str:
        return (
            f"the key of the extraction cache {self.path} cannot be trusted ({why}); "
            "delete it (every cached record is then computed again) or set "
            "runner.cache=false"
        )

    def _make(self) -> None:
        """A new random key, written whole under a temporary name (mode 0600) and linked into
        place: of two processes making it at once, one key wins and both read it."""
        tmp = None
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.root, prefix=f".{KEY_FILE}~", suffix=".tmp")
            with os.fdopen(fd, "wb") as fh:
                fh.write(os.urandom(KEY_BYTES))
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, 0o600)
            try:
                os.link(tmp, self.path)
            except FileExistsError:
                pass  # another process made it first: its key is the cache's
        except OSError as exc:
            raise CacheWriteError(cache_write_line(self.root, exc)) from None
        finally:
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)


_SEALS: dict[str, Seal] = {}


def cache_seal(root: str | os.PathLike) -> Seal:
    """The :class:`Seal` of the cache folder ``root``, one per folder per process."""
    name = os.path.abspath(root)
    if name not in _SEALS:
        _SEALS[name] = Seal(name)
    return _SEALS[name]
