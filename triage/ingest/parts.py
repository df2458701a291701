"""Reading one file in parts, over forked processes: the plumbing the readers share.

A reader that splits a big file forks one child per extra part (plain os.fork: multiprocessing
and concurrent.futures would add tens of milliseconds of imports to every big scan). A child
writes its result to a pipe, with its numpy buffers out of band in an unlinked shared-memory file
so the parent maps them instead of copying them; it dies with its parent; and the parent reads a
part itself whenever a child fails. Nothing here knows a format.
"""

from __future__ import annotations


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, else the machine's count); 1 when
    TRIAGE_NO_PARALLEL is set, which keeps every read and every judgement in one process."""
    import os

    if os.environ.get("TRIAGE_NO_PARALLEL"):
        return 1
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def can_fork_parts() -> bool:
    """Whether work may be split over forked processes here: fork exists and two CPUs or more are usable."""
    import os

    return hasattr(os, "fork") and usable_cpus() >= 2


def shm_file() -> int | None:
    """A descriptor of a new empty file in shared memory (tmpfs) for a child's arrays, or None
    where there is none. Its name is removed at once: the parent and the child (which inherits
    the descriptor) use the file without one, so nothing is left in /dev/shm however the
    process ends, SIGKILL included; the memory goes back when the descriptor and maps close."""
    import os

    shm = "/dev/shm"
    if not (os.path.isdir(shm) and os.access(shm, os.W_OK)):
        return None
    for _ in range(5):
        name = os.path.join(shm, f"triage-cols-{os.getpid()}-{os.urandom(6).hex()}")
        try:
            fd = os.open(name, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
        except FileExistsError:
            continue
        except OSError:
            return None
        try:
            os.unlink(name)
        except OSError:
            os.close(fd)
            return None
        return fd
    return None


def ship(result, shm: int | None) -> tuple:
    """Pickle `result` with its numpy buffers out of band, written to the shared-memory file `shm`
    (a descriptor), so that the parent maps them instead of copying ~8 bytes per value through a pipe."""
    import os
    import pickle

    bufs: list = []
    head = pickle.dumps(result, protocol=5, buffer_callback=bufs.append)
    if not bufs:
        return ("inline", head)
    if shm is None:
        return ("inline", pickle.dumps(result, protocol=5))
    sizes = []
    try:
        off = 0
        for buf in bufs:
            raw = buf.raw()
            view = memoryview(raw).cast("B")
            done = 0
            while done < len(view):
                done += os.pwrite(shm, view[done:], off + done)
            off += len(view)
            sizes.append(raw.nbytes)
    except OSError:  # tmpfs full: fall back to the pipe
        return ("inline", pickle.dumps(result, protocol=5))
    return ("file", head, sizes)


def unship(msg: tuple, shm: int | None):
    import mmap
    import pickle

    if msg[0] == "inline":
        return pickle.loads(msg[1])
    _, head, sizes = msg
    if shm is None:  # a "file" message only ever comes with a shared-memory file
        raise ValueError("a shipped result names a shared-memory file the parent does not have")
    total = sum(sizes)
    mem = mmap.mmap(shm, total, access=mmap.ACCESS_COPY) if total else b""  # keeps its pages after close
    view = memoryview(mem)
    parts, off = [], 0
    for size in sizes:
        parts.append(view[off:off + size])
        off += size
    return pickle.loads(head, buffers=parts)


def collect(pid: int, fd: int, shm: int | None):
    """The child's result, or None when it failed (the caller then reads the range itself)."""
    import os
    import pickle

    with os.fdopen(fd, "rb") as fh:
        data = fh.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        return None
    try:
        return unship(pickle.loads(data), shm)
    except (OSError, pickle.UnpicklingError, EOFError, ValueError):
        return None


def die_with(parent: int) -> None:
    """In a reader child: be killed when the parent dies, even by SIGKILL (Linux), so no reader
    is ever left running alone. (SIGTERM and Ctrl-C already stop the children: see the readers' split reads.)"""
    import os
    import signal

    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError, TypeError):
        pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def stop_children(children: dict, shm_fds: dict) -> None:
    """Stop the part readers still running (kill, reap, close their pipe) and close the shared
    memory files of every part: after an interruption, or when the parent no longer needs them."""
    import os
    import signal

    for pid, fd in children.values():
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(fd)
        except OSError:
            pass
    for shm in shm_fds.values():  # mapped arrays keep their pages
        if shm is not None:
            try:
                os.close(shm)
            except OSError:
                pass


def fork_part(work, shm: int | None) -> tuple[int, int]:
    """Fork a child that runs `work()` and writes its result, shipped through the shared-memory file
    `shm`, to a pipe. The child never returns into the caller's code, dies with the parent, and on
    any failure exits non-zero (the parent then does the part itself). Returns (pid, read end)."""
    import os
    import pickle

    r, w = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            die_with(parent)
            os.close(r)
            data = pickle.dumps(ship(work(), shm), protocol=5)
            with os.fdopen(w, "wb") as fh:
                fh.write(data)
            code = 0
        except BaseException:  # the parent does this part itself
            pass
        finally:
            os._exit(code)
    os.close(w)
    return pid, r
