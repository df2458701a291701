"""Where a reader's bytes come from: a file (plain or gzip), a directory entry, or stdin."""

from __future__ import annotations

import io
import os
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from triage.ingest.errors import IngestError

HEAD_BYTES = 64 * 1024
GZIP_MAGIC = b"\x1f\x8b"
# A gzip log inflates about 5-20x (very repetitive progress bars up to ~60x). Past this many times
# its compressed size (and past the floor), it is a decompression bomb or not a log: stop there.
MAX_INFLATE_RATIO = 100
MIN_INFLATE_LIMIT = 64 << 20
MAP_MIN = 8 << 20  # bytes: a plain file this big is mapped, not copied, by `Source.read_mapped`


NUL_RUN_MAX = 1 << 24  # the longest run of NUL bytes looked past at the start of a file (16 MiB)


@dataclass
class Source:
    """One input. ``data`` is set for stdin (read once); files are opened on demand."""

    path: str  # as the user gave it ('-' for stdin)
    fs_path: Path | None = None
    data: bytes | None = None
    gz: bool = False
    encoding: str | None = None  # 'utf-16-le' / 'utf-16-be' when the text is UTF-16: read as UTF-8
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
                src.data = _gunzip_bytes(raw, "-")
                src.gz = True
            enc = utf16_encoding(src.data[:HEAD_BYTES])
            if enc:
                src.data = strip_bom(src.data.decode(enc, errors="replace").encode("utf-8"))
                src.encoding = enc
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
            src.encoding = utf16_encoding(src._raw_head())
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
        """A binary stream of the (decompressed) content, UTF-16 text turned into UTF-8."""
        if self.data is not None:
            return io.BytesIO(self.data)
        stream = self._open_raw()
        if self.encoding:
            return _Utf8From16(stream, self.encoding)  # type: ignore[return-value]
        return stream

    def _open_raw(self) -> BinaryIO:
        assert self.fs_path is not None
        try:
            fh = open(self.fs_path, "rb")
            if self.gz:
                return _TolerantGzip(fh, self.path, os.fstat(fh.fileno()).st_size)  # type: ignore[return-value]
            return fh
        except OSError as exc:
            raise IngestError(self.path, _os_reason(exc)) from None

    def _raw_head(self) -> bytes:
        """The first bytes as stored (decompressed), before any transcoding."""
        try:
            with self._open_raw() as fh:
                return fh.read(4096)
        except (OSError, EOFError, zlib.error, IngestError):
            return b""

    def read_bytes(self) -> bytes:
        if self.data is not None:
            return self.data
        with self.open() as fh:
            try:
                return fh.read()
            except OSError as exc:
                raise IngestError(self.path, _os_reason(exc)) from None

    def read_mapped(self):
        """The content without copying it: a read-only map of the file (an `mmap`: slicing gives bytes,
        `find`, `len` and numpy's `frombuffer` work) when it is a big plain file on a POSIX system;
        else `read_bytes()`. Reading 100 MB into a new bytes object costs 60-90 ms, mostly faulting
        in fresh memory and copying; a map shares the page cache's pages and costs a few ms.
        (If another program truncates the file while it is mapped, reading the lost pages kills the
        process with SIGBUS, as with any reader that maps files (ripgrep, git); TRIAGE_NO_MMAP=1
        turns the map off.)"""
        if (self.data is not None or self.gz or self.encoding or self.fs_path is None or os.name != "posix"
                or os.environ.get("TRIAGE_NO_MMAP")):
            return self.read_bytes()
        import mmap

        try:
            with open(self.fs_path, "rb") as fh:
                size = os.fstat(fh.fileno()).st_size
                if size < MAP_MIN:
                    return self.read_bytes()
                return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError, OverflowError):  # not mappable (a special file): read it
            return self.read_bytes()

    def head(self) -> bytes:
        if self._head is None:
            if self.data is not None:
                self._head = self.data[:HEAD_BYTES]
            elif self.fs_path is not None and self.fs_path.is_file():
                try:
                    with self.open() as fh:
                        self._head = first = fh.read(HEAD_BYTES)
                        skipped = 0
                        while self._head and not self._head.strip(b"\x00") and skipped < NUL_RUN_MAX:
                            # a log truncated under a running writer opens with a run of NUL bytes:
                            # what the sniffers need to see is the text after it
                            skipped += len(self._head)
                            self._head = fh.read(HEAD_BYTES)
                        if skipped:
                            self._head = self._head.lstrip(b"\x00") + fh.read(HEAD_BYTES) if self._head.strip(b"\x00") \
                                else first  # (NUL bytes only: binary, as they are)
                except (OSError, EOFError, zlib.error, IngestError):
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


def inflate_limit(compressed: int) -> int:
    """How many bytes a gzip input of this size may inflate to before reading stops."""
    return max(MIN_INFLATE_LIMIT, MAX_INFLATE_RATIO * compressed)


def _bomb(label: str, compressed: int, limit: int) -> IngestError:
    return IngestError(label, f"gzip data expands past {limit >> 20} MB ({MAX_INFLATE_RATIO}x its "
                              f"{compressed:,} compressed bytes): a decompression bomb or not a log; "
                              "if it is a real log, decompress it yourself and read the plain file")


class _TolerantGzip(io.RawIOBase):
    """gzip stream (multi-member too) that yields everything decodable and stops quietly at a
    truncated or corrupt end (a log still being written). It refuses to inflate past
    `inflate_limit` of the file's size (IngestError), so a small bomb cannot fill memory."""

    def __init__(self, fh: BinaryIO, label: str, compressed: int):
        self._fh = fh
        self._label = label
        self._compressed = compressed
        self._limit = inflate_limit(compressed)
        self._out = 0
        self._d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._buf = bytearray()  # grows in place: reading a whole file stays linear
        self._done = False
        self.truncated = False

    def readable(self) -> bool:
        return True

    def _fill(self, want: int) -> None:
        while len(self._buf) < want and not self._done:
            raw = self._fh.read(1 << 16)
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
                while raw:
                    # at most limit - out + 1 bytes per call: one byte past the limit proves the bomb
                    room = self._limit - self._out + 1
                    out = self._d.decompress(raw, room)
                    self._out += len(out)
                    self._buf += out
                    if self._out > self._limit:
                        raise _bomb(self._label, self._compressed, self._limit)
                    if self._d.eof:  # next gzip member, if any
                        raw = self._d.unused_data
                        if raw:
                            self._d = zlib.decompressobj(16 + zlib.MAX_WBITS)
                    else:
                        raw = self._d.unconsumed_tail
            except zlib.error:
                self.truncated = True
                self._done = True

    def read(self, size: int = -1) -> bytes:  # type: ignore[override]
        if size is None or size < 0:
            self._fill(1 << 62)
            out, self._buf = bytes(self._buf), bytearray()
            return out
        self._fill(size)
        out = bytes(self._buf[:size])
        del self._buf[:size]
        return out

    def readinto(self, b) -> int:  # type: ignore[override]
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self._fh.close()
        super().close()


def _gunzip_bytes(raw: bytes, label: str) -> bytes:
    """gzip bytes (multi-member, maybe cut short) inflated, within `inflate_limit`."""
    with _TolerantGzip(io.BytesIO(raw), label, len(raw)) as gz:
        return gz.read()


def utf16_encoding(head: bytes) -> str | None:
    """'utf-16-le' or 'utf-16-be' when `head` starts UTF-16 text (PowerShell's `>` writes it with a
    BOM; without one, ASCII text in UTF-16 has a NUL in every other byte), else None."""
    if head.startswith(b"\xff\xfe") and not head.startswith(b"\xff\xfe\x00\x00"):
        return "utf-16-le"
    if head.startswith(b"\xfe\xff"):
        return "utf-16-be"
    h = head[:512]
    h = h[: len(h) // 2 * 2]
    if len(h) >= 16:
        even, odd = h[0::2], h[1::2]
        if not odd.strip(b"\x00") and even.count(0) == 0 and _texty(even):
            return "utf-16-le"
        if not even.strip(b"\x00") and odd.count(0) == 0 and _texty(odd):
            return "utf-16-be"
    return None


def _texty(b: bytes) -> bool:
    """Mostly printable ASCII (with line ends and tabs): the low bytes of UTF-16 text."""
    printable = sum(1 for c in b if 32 <= c < 127 or c in (9, 10, 13))
    return printable >= 0.9 * len(b)


class _Utf8From16(io.RawIOBase):
    """A UTF-16 byte stream read as UTF-8 bytes (BOM dropped, bad pairs replaced), in chunks."""

    def __init__(self, raw: BinaryIO, encoding: str):
        import codecs

        self._raw = raw
        self._dec = codecs.getincrementaldecoder(encoding)(errors="replace")
        self._buf = b""
        self._eof = False
        self._first = True

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:  # type: ignore[override]
        while not self._eof and (size is None or size < 0 or len(self._buf) < size):
            chunk = self._raw.read(1 << 20)
            text = self._dec.decode(chunk, final=not chunk)
            if self._first and text:
                text = text.lstrip("\ufeff")
                self._first = False
            self._buf += text.encode("utf-8", errors="replace")
            self._eof = not chunk
        if size is None or size < 0:
            out, self._buf = self._buf, b""
        else:
            out, self._buf = self._buf[:size], self._buf[size:]
        return out

    def readinto(self, b) -> int:  # type: ignore[override]
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self._raw.close()
        super().close()


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
    if head[:1] == b"\x00":
        # a log truncated while its writer kept its offset (`> nohup.out` under a running job) starts
        # with a run of NUL bytes, then the text: still a text log
        head = head.lstrip(b"\x00")
        if not head:
            return True
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


# ------------------------------------------------------------------------------ pipes and stdin
PIPE_WAIT_ENV = "TRIAGE_PIPE_WAIT"
PIPE_WAIT = 10.0  # seconds a named pipe may wait for a program to open it for writing


def is_stream(path: str | Path) -> bool:
    """A named pipe, `<(...)`, `/dev/stdin` or a character device other than /dev/null: read once,
    in order, like stdin, and never as a file (whose size would say 0)."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or (stat.S_ISCHR(mode) and os.path.realpath(path) != os.devnull)


def spool(path: str, label: str | None = None) -> str:
    """Copy stdin ('-') or a stream to a new private temporary file, in chunks (memory stays flat),
    and return its name; the caller removes it. Nothing is left behind if the copy fails or is
    interrupted. A named pipe that no program opens for writing within PIPE_WAIT seconds is an
    IngestError, not a wait without end."""
    import shutil
    import tempfile

    label = label or path
    fd, tmp = tempfile.mkstemp(prefix="triage-stdin-")
    try:
        with open(fd, "wb") as out:
            if path == "-":
                src = getattr(sys.stdin, "buffer", None)
                if src is None:
                    out.write(sys.stdin.read().encode())
                else:
                    shutil.copyfileobj(src, out, 1 << 20)
            else:
                with _open_stream(path, label) as src:
                    shutil.copyfileobj(src, out, 1 << 20)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return tmp


def _open_stream(path: str, label: str) -> BinaryIO:
    """Open a stream for reading. A named pipe (made with mkfifo) blocks in open() until a writer
    opens it: that open runs in a thread, and if no writer comes in time we become the writer for
    a moment so the blocked open returns, and say what happened."""
    import stat
    import threading

    try:
        is_named_fifo = stat.S_ISFIFO(os.stat(path).st_mode) and "pipe:[" not in os.path.realpath(path)
    except OSError as exc:
        raise IngestError(label, _os_reason(exc)) from None
    if not is_named_fifo:  # an anonymous pipe or a device: a writer exists, or EOF comes at once
        try:
            return open(path, "rb")
        except OSError as exc:
            raise IngestError(label, _os_reason(exc)) from None
    try:
        wait = float(os.environ.get(PIPE_WAIT_ENV, PIPE_WAIT))
    except ValueError:
        wait = PIPE_WAIT
    got: dict = {}

    def opener() -> None:
        try:
            got["fd"] = os.open(path, os.O_RDONLY)
        except OSError as exc:
            got["error"] = exc

    thread = threading.Thread(target=opener, name="triage-fifo-open", daemon=True)
    thread.start()
    thread.join(wait)
    if thread.is_alive():
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))  # release the blocked open
        except OSError:
            pass
        thread.join(2.0)
        if "fd" in got:
            os.close(got["fd"])
        raise IngestError(label, f"named pipe with no writer: nothing opened it for writing within {wait:g} s "
                                 f"(start the program that writes to it first, or set {PIPE_WAIT_ENV})")
    if "error" in got:
        raise IngestError(label, _os_reason(got["error"]))
    return os.fdopen(got["fd"], "rb")
