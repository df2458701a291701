"""Where a reader's bytes come from: a file (plain or gzip), a directory entry, or stdin."""

from __future__ import annotations

import gzip
import io
import os
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterator

from triage.ingest.errors import IngestError

HEAD_BYTES = 64 * 1024
GZIP_MAGIC = b"\x1f\x8b"
BOMS = (b"\xef\xbb\xbf",)


@dataclass
class Source:
    """One input. ``data`` is set for stdin (read once); files are opened on demand."""

    path: str  # as the user gave it ('-' for stdin)
    fs_path: Path | None = None
    data: bytes | None = None
    gz: bool = False
    _head: bytes | None = field(default=None, repr=False)

    @classmethod
    def from_path(cls, path: str | Path) -> "Source":
        if str(path) == "-":
            try:
                raw = sys.stdin.buffer.read()
            except (OSError, ValueError) as exc:
                raise IngestError("-", f"cannot read standard input: {exc}") from None
            src = cls("-", None, raw)
            if raw[:2] == GZIP_MAGIC:
                try:
                    src.data = gzip.decompress(raw)
                except (OSError, EOFError, zlib.error):
                    src.data = _gunzip_partial(raw)
                src.gz = True
            return src
        p = Path(path)
        src = cls(str(path), p)
        if p.is_file():
            try:
                with open(p, "rb") as fh:
                    magic = fh.read(2)
            except OSError as exc:
                raise IngestError(path, _os_reason(exc)) from None
            src.gz = magic == GZIP_MAGIC
        return src

    @property
    def name(self) -> str:
        """File name without a .gz suffix (what sniffing looks at)."""
        if self.fs_path is None:
            return ""
        n = self.fs_path.name
        return n[:-3] if self.gz and n.endswith(".gz") else n

    @property
    def is_dir(self) -> bool:
        return self.fs_path is not None and self.fs_path.is_dir()

    def open(self) -> BinaryIO:
        """A binary stream of the (decompressed) content."""
        if self.data is not None:
            return io.BytesIO(self.data)
        assert self.fs_path is not None
        try:
            if self.gz:
                return _TolerantGzip(self.fs_path)  # type: ignore[return-value]
            return open(self.fs_path, "rb")
        except OSError as exc:
            raise IngestError(self.path, _os_reason(exc)) from None

    def read_bytes(self) -> bytes:
        if self.data is not None:
            return self.data
        with self.open() as fh:
            try:
                return fh.read()
            except OSError as exc:
                raise IngestError(self.path, _os_reason(exc)) from None

    def head(self) -> bytes:
        if self._head is None:
            if self.data is not None:
                self._head = self.data[:HEAD_BYTES]
            elif self.fs_path is not None and self.fs_path.is_file():
                try:
                    with self.open() as fh:
                        self._head = fh.read(HEAD_BYTES)
                except (OSError, EOFError, zlib.error):
                    self._head = b""
            else:
                self._head = b""
        return self._head

    def size(self) -> int | None:
        if self.data is not None:
            return len(self.data)
        try:
            return self.fs_path.stat().st_size if self.fs_path else None
        except OSError:
            return None

    def text(self) -> str:
        return decode(self.read_bytes())


class _TolerantGzip(io.RawIOBase):
    """gzip stream (multi-member too) that yields everything decodable and stops quietly at a
    truncated or corrupt end (a log still being written)."""

    def __init__(self, path: Path):
        self._fh = open(path, "rb")
        self._d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._buf = b""
        self._done = False
        self.truncated = False

    def readable(self) -> bool:
        return True

    def _fill(self, want: int) -> None:
        while len(self._buf) < want and not self._done:
            raw = self._fh.read(1 << 20)
            if not raw:
                if not self._d.eof:
                    self.truncated = True
                    try:
                        self._buf += self._d.flush()
                    except zlib.error:
                        pass
                self._done = True
                return
            try:
                self._buf += self._d.decompress(raw)
                while self._d.eof and self._d.unused_data:  # next gzip member
                    rest = self._d.unused_data
                    self._d = zlib.decompressobj(16 + zlib.MAX_WBITS)
                    self._buf += self._d.decompress(rest)
            except zlib.error:
                self.truncated = True
                self._done = True

    def read(self, size: int = -1) -> bytes:  # type: ignore[override]
        if size is None or size < 0:
            self._fill(1 << 62)
            out, self._buf = self._buf, b""
            return out
        self._fill(size)
        out, self._buf = self._buf[:size], self._buf[size:]
        return out

    def readinto(self, b) -> int:  # type: ignore[override]
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self._fh.close()
        super().close()


def _gunzip_partial(raw: bytes) -> bytes:
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        return d.decompress(raw)
    except zlib.error:
        return b""


def _os_reason(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return "no such file or directory"
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, IsADirectoryError):
        return "is a directory"
    return exc.strerror or str(exc)


def decode(data: bytes) -> str:
    """Bytes to text: BOM stripped (UTF-8 and UTF-16), undecodable bytes replaced, never raises."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8", errors="replace")


def strip_bom(data: bytes) -> bytes:
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


_CONTROL = bytes(c for c in range(32) if c not in (9, 10, 12, 13, 27, 8))


def is_binary(head: bytes) -> bool:
    """Binary, not text in some encoding: NUL bytes (UTF-16 text aside) or many control bytes.
    Text that is not UTF-8 (GBK, Latin-1) is still text: its numbers read the same."""
    h = head[:4096]
    if not h:
        return False
    if h.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    if b"\x00" in h:
        return True
    try:
        h.decode("utf-8")
        return False
    except UnicodeDecodeError as exc:
        if exc.start >= len(h) - 4:  # a cut multibyte char at the end is fine
            return False
    controls = len(h) - len(h.translate(None, _CONTROL))
    return controls > 0.05 * len(h)


def iter_lines(text: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, line without its end) for \\n, \\r\\n line ends."""
    for i, line in enumerate(text.split("\n"), 1):
        if line.endswith("\r"):
            line = line[:-1]
        yield i, line


def check_readable(path: str | Path) -> None:
    p = Path(path)
    if not p.exists():
        raise IngestError(path, "no such file or directory")
    if not os.access(p, os.R_OK):
        raise IngestError(path, "permission denied")
