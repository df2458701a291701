"""Map the per-run function over a sweep's runs and stream the records back as they finish.

Every executor takes (index, RunRef) pairs lazily, keeps a bounded number of chunks in flight and
yields each run's record as soon as its chunk is done, so the driver's memory is the in-flight
window plus what the caller keeps, whatever the number of runs.

* ``serial``    in this process (``--jobs 1``).
* ``processes`` a local process pool (``--jobs N`` over files: the work is CPU-bound). Workers start
  from a fork server, not by forking the driver, whose progress bar runs a thread.
* ``threads``   a thread pool (``--jobs N`` over a tracking server: the work mostly waits on it).
* ``ray``       Ray tasks on a cluster (``ray.init(address=...)``) or on a local Ray instance;
  results come back with ``ray.wait`` in the order they finish.

Runs travel in chunks (a few dozen per task) so per-task costs (pickling, scheduling, a round trip
to the cluster) are paid once per chunk, not once per run.
"""

from __future__ import annotations

import itertools
from typing import Iterable, Iterator

from triage.sweep.refs import SweepError
from triage.sweep.work import knowledge, scan_chunk, scan_ref

EXECUTORS = ("local", "ray")
RAY_INSTALL = "--executor ray needs Ray: pip install 'triage[ray]'"


def chunk_size(total: int | None, workers: int, largest: int = 32) -> int:
    """Runs per task: large enough to amortise a task's cost, small enough that every worker gets
    about 16 tasks (the slow runs then even out across workers)."""
    if not total:
        return 8
    return max(1, min(largest, total // max(1, workers * 16)))


def _chunks(pairs: Iterator, size: int) -> Iterator[list]:
    while True:
        chunk = list(itertools.islice(pairs, size))
        if not chunk:
            return
        yield chunk


def _failed(chunk: list, why: str) -> list[dict]:
    """Records for a chunk whose worker died (killed for memory, a lost node): the sweep goes on."""
    return [{"index": index, "id": ref.label, "name": ref.name, "source": ref.kind, "config": {}, "scan": None,
             "error": f"{ref.label}: the worker scanning it failed ({why})", "cpu_ms": 0.0, "_series": []}
            for index, ref in chunk]


def _short_error(exc: BaseException) -> str:
    from triage.sweep.sources import _short

    return _short(exc)  # type: ignore[arg-type]


def run_serial(refs: Iterable, kb_dirs: tuple = (), charts: bool = True, info: dict | None = None,
               documents: bool = True) -> Iterator[dict]:
    if info is not None:
        info.update(executor="serial", workers=1)
    for index, ref in enumerate(refs):
        yield scan_ref(ref, kb_dirs, index, charts, documents)


def run_pool(refs: Iterable, jobs: int, kb_dirs: tuple = (), charts: bool = True, threads: bool = False,
             total: int | None = None, info: dict | None = None, documents: bool = True) -> Iterator[dict]:
    """A process (or thread) pool with at most 4 chunks per worker in flight."""
    from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, ProcessPoolExecutor, ThreadPoolExecutor, wait

    if info is not None:
        info.update(executor="threads" if threads else "processes", workers=jobs)

    if threads:
        pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="triage-sweep")
    else:
        import multiprocessing as mp

        method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
        ctx = mp.get_context(method)
        if method == "forkserver":
            ctx.set_forkserver_preload(["triage.sweep.work", "triage.detect", "triage.engine.diagnosis"])
        pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=knowledge, initargs=(tuple(kb_dirs),))
    size = 1 if threads else chunk_size(total, jobs)
    pending: dict = {}  # future -> its chunk

    def results(done):
        for fut in done:
            chunk = pending.pop(fut)
            try:
                yield from fut.result()
            except Exception as exc:  # a worker process that died takes its chunk with it
                yield from _failed(chunk, _short_error(exc))

    try:
        for chunk in _chunks(enumerate(refs), size):
            try:
                pending[pool.submit(scan_chunk, chunk, tuple(kb_dirs), charts, documents)] = chunk
            except BrokenExecutor as exc:  # the pool lost a worker: the runs not yet scanned are reported
                yield from _failed(chunk, _short_error(exc))
                continue
            if len(pending) >= 4 * jobs:
                done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
                yield from results(done)
        while pending:
            done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
            yield from results(done)
    finally:
        for fut in pending:
            fut.cancel()
        pool.shutdown(wait=True, cancel_futures=True)


def ray_available() -> bool:
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


def run_ray(refs: Iterable, jobs: int | None = None, address: str | None = None, kb_dirs: tuple = (),
            charts: bool = True, total: int | None = None, info: dict | None = None,
            documents: bool = True) -> Iterator[dict]:
    """Ray tasks, each scanning a chunk of runs; at most 4 chunks per cluster CPU in flight.

    Joins the cluster at `address` ("auto", "ray://host:10001", ...) or an instance this process
    already started; otherwise starts a local one with `jobs` CPUs (all of them when None) and
    stops it at the end."""
    if not ray_available():
        raise SweepError(RAY_INSTALL)
    import ray

    started = False
    if not ray.is_initialized():
        options = {"include_dashboard": False, "log_to_driver": False, "logging_level": "ERROR"}
        try:
            if address:
                ray.init(address=address, **options)
            else:
                ray.init(num_cpus=jobs, **options)
        except Exception as exc:  # a cluster that does not answer: one line
            from triage.sweep.sources import _short

            raise SweepError(f"cannot start or join Ray{f' at {address}' if address else ''} ({_short(exc)})") from None
        started = True
    try:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        if info is not None:
            info.update(executor="ray", workers=cpus)
        task = ray.remote(num_cpus=1, max_retries=2)(scan_chunk)
        size = chunk_size(total, cpus)
        pending: dict = {}  # object ref -> its chunk

        def results(done):
            for obj in done:
                chunk = pending.pop(obj)
                try:
                    yield from ray.get(obj)
                except Exception as exc:  # the task failed after its retries (a node lost, a worker killed)
                    yield from _failed(chunk, _short_error(exc))

        for chunk in _chunks(enumerate(refs), size):
            pending[task.remote(chunk, tuple(kb_dirs), charts, documents)] = chunk
            if len(pending) >= 4 * cpus:
                done, _ = ray.wait(list(pending), num_returns=1)
                yield from results(done)
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            yield from results(done)
    finally:
        if started:
            ray.shutdown()


def execute(refs: Iterable, executor: str = "local", jobs: int | None = None, kb_dirs: tuple = (),
            address: str | None = None, network: bool = False, charts: bool = True,
            total: int | None = None, info: dict | None = None, documents: bool = True) -> Iterator[dict]:
    """The records of every run, in the order they finish. `info` gets the executor's name and its
    number of workers once it has started. `jobs`: local workers (None: 1), or the
    CPUs of a local Ray instance (None: all). `network`: the runs come from a server, so a local
    `jobs > 1` uses threads, not processes. `documents`: send each run's whole scan document back
    (for --json), else only what the summary reads."""
    if executor == "ray":
        return run_ray(refs, jobs, address, kb_dirs, charts, total, info, documents)
    if executor != "local":
        raise SweepError(f"--executor {executor!r}: use one of {', '.join(EXECUTORS)}")
    if jobs and total:
        jobs = min(jobs, total)  # no more workers than runs
    if not jobs or jobs <= 1:
        return run_serial(refs, kb_dirs, charts, info, documents)
    return run_pool(refs, jobs, kb_dirs, charts, threads=network, total=total, info=info, documents=documents)

