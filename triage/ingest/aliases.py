"""Map source keys to canonical metric names with the tables in ``knowledge/metrics.yaml``.

The resolution rules are documented at the top of that file. Everything here is pure Python and
cached: a run has tens of distinct keys, so resolution cost never matters, only correctness.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from triage.kb.loader import KB_ENV, knowledge_roots, session_roots, use_roots  # noqa: F401 - the one place that finds the folders

# Matching quality: lower wins when two keys of one run land on the same canonical name.
EXACT, NORMALISED, PATTERN, PREFIXED, FORKED, UNKNOWN = 0, 1, 2, 3, 4, 9


# Words that name the input pipeline of a pass, never an evaluation set (`reader_cost`, `data_time`: time spent
# loading data, as Paddle and OpenMMLab print it during evaluation too)
_PIPELINE_WORDS = frozenset({"data", "reader", "loader", "dataloader", "io"})


@dataclass(frozen=True)
class Resolved:
    name: str  # canonical name, e.g. loss, eval/loss, eval/g0/loss
    split: str  # train | eval | eval:<set>
    source_key: str
    negate: bool = False
    scale: float = 1.0
    quality: int = UNKNOWN
    order: int = 1 << 30  # position of the alias in metrics.yaml (earlier wins ties)

    @property
    def known(self) -> bool:
        return self.quality != UNKNOWN


def normalise(key: str) -> str:
    """The name an unknown key is kept under: stripped, whitespace runs turned into '_'."""
    return re.sub(r"\s+", "_", str(key).strip())


def _fold(key: str) -> str:
    """Loose form used for the second matching pass."""
    k = str(key).strip().lower().replace("-", "_").replace(" ", "_")
    return re.sub(r"_+", "_", k)


def _load_yaml(path: Path) -> dict:
    import yaml

    from triage.kb.guards import MAX_YAML_VALUES, expanded_size

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(path, encoding="utf-8") as fh:
        data = yaml.load(fh, Loader=loader)  # noqa: S506 - safe loader
    if expanded_size(data) > MAX_YAML_VALUES:  # nested aliases ("billion laughs"): refused
        raise ValueError(f"more than {MAX_YAML_VALUES:,} values once its aliases are expanded")
    return data if isinstance(data, dict) else {}


def _load_cached(path: Path) -> dict:
    """metrics.yaml parsed, through a plain-data (msgpack, never pickle) cache beside the knowledge
    cache, keyed on the absolute path, size, mtime and version, so that reading a log needs no YAML
    parser at all once the cache is warm. It is read only from a private folder and a file owned by
    this user (triage.kb.loader.read_cache); anything else means the YAML is parsed."""
    import hashlib

    from triage import __version__
    from triage.kb.loader import CACHE_FORMAT, METRIC_CACHES_KEPT, _cache_dir, encode_plain, read_cache, write_cache

    if os.environ.get("TRIAGE_NO_CACHE") is not None:
        return _load_yaml(path)
    st = path.stat()
    where = hashlib.sha1(os.path.realpath(path).encode()).hexdigest()[:12]
    what = hashlib.sha1(f"{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{st.st_ino}\0{st.st_dev}\0"
                        f"{__version__}\0{CACHE_FORMAT}".encode()).hexdigest()[:12]
    cache = _cache_dir() / f"metrics-{where}-{what}.msgpack"
    try:
        data = read_cache(cache)
        if data is not None:
            import msgspec

            return msgspec.msgpack.decode(data, type=dict)
    except Exception:  # noqa: BLE001 - stale, partial or not a cache: parse and rewrite
        pass
    doc = _load_yaml(path)
    write_cache(cache, lambda: encode_plain(doc), (f"metrics-{where}-*.msgpack", "metrics-*.pickle"),
                bounded=("metrics-*.msgpack", METRIC_CACHES_KEPT))  # (one per path; a temporary folder's are not kept)
    return doc


class AliasTable:
    """Lookup tables built from one or more metrics.yaml documents."""

    def __init__(self, docs: Iterable[dict] = ()):
        self.exact: dict[str, list[tuple[str, dict, int]]] = {}
        self.folded: dict[str, list[tuple[str, dict, int]]] = {}
        self.canonical: set[str] = set()
        self.axes: dict[str, list[str]] = {"step": [], "epoch": [], "wall": [], "ignore": []}
        self.eval_prefixes: list[str] = []
        self.test_prefixes: list[str] = []
        self.train_prefixes: list[str] = []
        self.docs: dict[str, str] = {}
        self.sources: list[str] = []
        self.problems: list[str] = []
        self.layouts: list[tuple[re.Pattern, list[str]]] = []  # headerless printed tables
        self.headers: list[tuple[re.Pattern, list[str]]] = []  # printed headers renamed as a whole
        self.renames: list[tuple[re.Pattern, dict[str, str]]] = []  # printed headers renamed name by name
        order = 0
        for doc in docs:
            order = self._add_doc(doc, order)
        # longest prefix first
        for lst in (self.eval_prefixes, self.test_prefixes, self.train_prefixes):
            lst.sort(key=len, reverse=True)
        self.axis_keys = {k for v in self.axes.values() for k in v}
        self.ignored = set(self.axes["ignore"])

    def _add_doc(self, doc: dict, order: int) -> int:
        for lay in doc.get("headers") or []:
            try:
                if isinstance(lay, dict) and isinstance(lay.get("rename"), dict):  # name by name, wherever they stand
                    self.renames.append((re.compile(str(lay["match"])),
                                         {str(k): str(v) for k, v in lay["rename"].items()}))
                    continue
                self.headers.append((re.compile(str(lay["match"])), [str(c) for c in lay["columns"]]))
            except (KeyError, TypeError, re.error) as exc:
                self.problems.append(f"metrics.yaml header {lay!r:.60}: not used ({type(exc).__name__})")
        for lay in doc.get("layouts") or []:
            try:
                self.layouts.append((re.compile(str(lay["match"])), [str(c) for c in lay["columns"]]))
            except (KeyError, TypeError, re.error) as exc:
                self.problems.append(f"metrics.yaml layout {lay!r:.60}: not used ({type(exc).__name__})")
        axes = doc.get("axes") or {}
        for kind in ("step", "epoch", "wall", "ignore"):
            for k in axes.get(kind) or []:
                if str(k) not in self.axes[kind]:
                    self.axes[kind].append(str(k))
        splits = doc.get("splits") or {}
        for kind, lst in (("eval", self.eval_prefixes), ("test", self.test_prefixes), ("train", self.train_prefixes)):
            for p in splits.get(kind) or []:
                if str(p) not in lst:
                    lst.append(str(p))
        user_first = bool(self.exact)  # a later document (user's) wins conflicts
        for name, entry in (doc.get("metrics") or {}).items():
            name = str(name)
            self.canonical.add(name)
            entry = entry or {}
            if entry.get("doc"):
                self.docs[name] = str(entry["doc"])
            aliases = list(entry.get("aliases") or [])
            if name not in [a if isinstance(a, str) else a.get("key") for a in aliases]:
                aliases.insert(0, name)
            for alias in aliases:
                spec = {"key": alias} if not isinstance(alias, dict) else dict(alias)
                key = str(spec.get("key", "")).strip()
                if not key:
                    continue
                src = spec.get("source")
                if isinstance(src, str):
                    src = [src]
                spec["source"] = [str(s) for s in src] if src else None
                rec = (name, spec, -1 if user_first else order)
                order += 1
                for table, k in ((self.exact, key), (self.folded, _fold(key))):
                    bucket = table.setdefault(k, [])
                    if user_first:
                        bucket.insert(0, rec)
                    else:
                        bucket.append(rec)
        return order

    # ------------------------------------------------------------------ lookup
    @staticmethod
    def _pick(bucket: list | None, source: str | None):
        if not bucket:
            return None
        general = None
        for rec in bucket:
            srcs = rec[1]["source"]
            if srcs is None:
                if general is None:
                    general = rec
            elif source is not None and source in srcs:
                return rec
        return general

    def _direct(self, key: str, source: str | None) -> tuple[str, dict, int, int] | None:
        rec = self._pick(self.exact.get(key), source)
        if rec:
            return rec[0], rec[1], rec[2], EXACT
        rec = self._pick(self.folded.get(_fold(key)), source)
        if rec:
            return rec[0], rec[1], rec[2], NORMALISED
        m = _LR_MONITOR.match(key)
        if m:  # Lightning LearningRateMonitor lr-<Optimizer>[/pg<k>]
            group = m.group(2)
            if group and group not in ("pg0", "pg1", "group0"):
                return f"learning_rate/{group}", {}, 1 << 29, PATTERN
            return "learning_rate", {}, 1 << 29, PATTERN
        m = _LR_PG.match(key)
        if m and m.group(1) != "0":
            return f"learning_rate/pg{m.group(1)}", {}, 1 << 29, PATTERN
        return None

    def resolve(self, key: str, source: str | None = None) -> Resolved:
        return _resolve_cached(self, str(key), source)

    def _resolve(self, key: str, source: str | None) -> Resolved:
        k = key.strip()
        if k.endswith(")") and "(" in k:
            bare = _QUALIFIER.sub("", k).strip()
            said = [w for w in tokens(k[len(bare):].replace("(", " ").replace(")", " "))
                    if w in _EVAL_WORDS | _TRAIN_WORDS] if bare != k else []
            if said and said[0] not in tokens(bare):  # `accuracy (test set)`: the qualifier names the split
                said_as = self._resolve(f"{said[0]} {bare}", source)
                return Resolved(said_as.name, said_as.split, key, said_as.negate, said_as.scale, said_as.quality,
                                said_as.order)
        hit = self._direct(k, source)
        if hit:
            return self._make(hit, key)
        listed = _LIST_FILE_SET.match(k)
        if listed:  # `dev-clean.lst-WER`, `2_validate.lst-loss`: the metric on the evaluation set read from that list
            scored = self._resolve(listed.group(2), source)
            base = scored.name[5:] if scored.name.startswith("eval/") else scored.name
            base = base.split("/")[-1] if scored.split.startswith("eval:") else base
            stem = normalise(listed.group(1))
            sure = PATTERN if scored.known else scored.quality
            if stem in _EVAL_WORDS:
                return Resolved(f"eval/{base}", "eval", key, scored.negate, scored.scale, sure, scored.order)
            return Resolved(f"eval/{stem}/{base}", f"eval:{stem}", key, scored.negate, scored.scale, sure,
                            scored.order)
        if k in self.ignored:  # bookkeeping that looks like a metric name (`Acc_iter`: a count, no accuracy)
            return Resolved(normalise(k), "train", key)
        nth = _KERAS_NTH.match(k)
        if nth:  # Keras numbers a metric object created again in one session: `auc_2`, `val_precision_1`
            plain = self._resolve(nth.group(1), source)
            if plain.known:
                return Resolved(plain.name, plain.split, key, plain.negate, plain.scale, plain.quality, plain.order)
        if "_phase/" in k:
            streamed = self._stream_metric(k, source)
            if streamed:
                return streamed
        against = _VERSUS.search(k)
        if against and against.start() > 0:  # Megatron's TensorBoard twins: `grad-norm vs samples`
            plain = self._resolve(k[: against.start()], source)
            if plain.known:
                return Resolved(plain.name, plain.split, key, plain.negate, plain.scale, plain.quality, plain.order)
        ranked = _RANK_AT.match(k)
        if ranked and not ((self._by_tokens(k, source) or Resolved("", "", k)).known):
            # `recall@10`, `ndcg@10`, `valid mrr@20`: a top-K ranking metric, scored on held-out data
            # (a name the table knows otherwise keeps it: detection's `mAP@50` is AP at IoU 0.50)
            metric = ranked.group(2).lower()
            name = f"{_RANK_SHORT.get(metric, metric)}@{ranked.group(3)}"
            if (ranked.group(1) or "").lower().startswith("test"):
                return Resolved(f"eval/test/{name}", "eval:test", key, quality=PATTERN)
            return Resolved(f"eval/{name}", "eval", key, quality=PATTERN)
        named_part = self._split_part(k, source)
        if named_part:
            return named_part
        # split prefixes
        for p in self.test_prefixes:
            if k.startswith(p) and len(k) > len(p):
                inner = self._direct(k[len(p):], source)
                if inner:  # (a metric only evaluations have, `test_map`, is the test set's `eval/test/map`)
                    base = inner[0][5:] if inner[0].startswith("eval/") else inner[0]
                    return Resolved(f"eval/test/{base}", "eval:test", key, *self._xf(inner[1]), PREFIXED, inner[2])
                words = self._by_tokens(k[len(p):], source)  # `test_mean loss`: a modifier before the name
                if words and words.split == "train" and words.known:
                    return Resolved(f"eval/test/{words.name}", "eval:test", key, words.negate, words.scale, PREFIXED,
                                    words.order)
                return Resolved(f"eval/test/{normalise(k[len(p):])}", "eval:test", key)
        for p in self.eval_prefixes:
            if k.startswith(p) and len(k) > len(p):
                rest = k[len(p):]
                inner = self._direct(rest, source) or self._fork(rest, source) or self._train_stripped(rest, source)
                if inner:
                    base = inner[0][5:] if inner[0].startswith("eval/") else inner[0]
                    return Resolved(f"eval/{base}", "eval", key, *self._xf(inner[1]), PREFIXED, inner[2])
                words = self._by_tokens(rest, source)  # `eval/Average_loss`: a modifier, not an eval set
                if words and words.split == "train":
                    return Resolved(f"eval/{words.name}", "eval", key, words.negate, words.scale, PREFIXED, words.order)
                named = self._eval_set(rest, source, by_name=p in ("eval_", "eval/"))
                if named:
                    return Resolved(named.name, named.split, key, named.negate, named.scale, named.quality, named.order)
                bench = _BENCHMARK_FIRST.match(rest)
                benched = self._resolve(bench.group(2), source) if bench else None
                if benched and benched.known and benched.split.startswith("eval"):  # `eval/STS-B Spearman`
                    return Resolved(benched.name, benched.split, key, benched.negate, benched.scale, PREFIXED,
                                    benched.order)
                tailed = self._path_tail(rest, source) if "/" in rest else None
                if tailed and tailed.split == "train":  # `val/accuracy/top1`: a metric with its qualifier as a path
                    return Resolved(f"eval/{tailed.name}", "eval", key, tailed.negate, tailed.scale, PREFIXED,
                                    tailed.order)
                return Resolved(f"eval/{normalise(_SET_INDEX.sub('', rest) or rest)}", "eval", key)
        for p in self.train_prefixes:
            if k.startswith(p) and len(k) > len(p):
                rest = k[len(p):]
                inner = self._direct(rest, source) or self._fork(rest, source) or self._train_stripped(rest, source)
                if inner:
                    return self._make((inner[0], inner[1], inner[2], PREFIXED), key)
                if p.endswith("/"):  # train/foo -> foo (HF rewrite_logs, SB3 groups); train_foo stays
                    if rest in self.axis_keys:
                        break
                    words = self._path_tail(rest, source) or self._by_tokens(rest, source)
                    if words and words.known and words.split == "train":  # `losses/total_loss`
                        return Resolved(words.name, "train", key, words.negate, words.scale, PREFIXED, words.order)
                    return Resolved(normalise(rest), "train", key)
        fork = self._fork(k, source)
        if fork:
            return self._make(fork, key)
        by_tokens = self._by_tokens(k, source)
        if by_tokens:
            return by_tokens
        within = self._path_tail(k, source) or self._eval_inside(k, source)
        if within:
            return within
        bare = _QUALIFIER.sub("", k).strip()
        if bare and bare != k:  # `lr(PiecewiseDecay)`, `loss train (curr)`: the name without its qualifier
            plain = self._resolve(bare, source)
            if plain.known:
                return Resolved(plain.name, plain.split, key, plain.negate, plain.scale, plain.quality, plain.order)
        low = k.lower()
        if low != k and any(low.startswith(p) and len(low) > len(p) for p in (*self.test_prefixes, *self.eval_prefixes)):
            # `Test_Robust_Acc` is `test_robust_acc`: a capitalised split word still names the split
            spelled = self._resolve(low, source)
            if spelled.split != "train":
                return Resolved(spelled.name, spelled.split, key, spelled.negate, spelled.scale, spelled.quality,
                                spelled.order)
        first, _, rest = k.partition(" ")
        if rest.strip() and first.lower() in _EVAL_WORDS and " " not in rest.strip():
            # `valid l2` is `valid_l2`: the eval set's l2 (`Val IoU` too: the split word capitalised)
            spelled = self._resolve(f"{first.lower()}_{rest.strip()}", source)
            return Resolved(spelled.name, spelled.split, key, spelled.negate, spelled.scale, spelled.quality,
                            spelled.order)
        phrase = k.split()
        if len(phrase) > 1 and "_" in phrase[-1].strip("_") and all(w.isalpha() for w in phrase[:-1]):
            # `CV info cv_loss`: plain words, then the program's own identifier for the value, which names it
            # (a qualifier that is no plain word, `en->fr valid_bleu`, stays part of the name)
            ident = self._resolve(phrase[-1], source)
            if ident.known:
                return Resolved(ident.name, ident.split, key, ident.negate, ident.scale, ident.quality, ident.order)
        named_set = _BENCHMARK_FIRST.match(k)
        if named_set:  # `STS-B Spearman`, `MRPC BLEU`: a benchmark's acronym before a score only evaluations have
            scored = self._resolve(named_set.group(2), source)
            if scored.known and scored.split.startswith("eval"):
                return Resolved(scored.name, scored.split, key, scored.negate, scored.scale, scored.quality,
                                scored.order)
        return Resolved(normalise(k), "train", key)

    def _by_tokens(self, key: str, source: str | None) -> Resolved | None:
        """A key read as words: a split word at either end (`Loss/train`, `valLoss`, `Accuracy/val`,
        `val acc`), CamelCase (`GradNorm`), then modifiers dropped (`Average loss`, `total_loss`)."""
        toks = tokens(key)
        if not toks or len(toks) > 6:
            return None
        if len(toks) > 1 and toks[0] in ("total", "tot", "overall") and toks[-1] in ("time", "duration"):
            return None  # `Total Training Time: 81.45 seconds`: the whole run's duration, not a step's time
        if len(toks) == 3 and toks[0] in _MODEL_PARTS and toks[1] in _EVAL_WORDS | _TRAIN_WORDS:
            # `Gen Train Loss`, `Disc Val Loss`, `critic_val_loss`: the split word between the model part and
            # its metric; the part's own metric (`gen_loss` is the generator's loss) on that split
            part = self._direct(f"{toks[0]}_{toks[2]}", source)
            if part:
                name, spec, order, _ = part
                base = name[5:] if name.startswith("eval/") else name
                negate, scale = self._xf(spec)
                if toks[1] in _TRAIN_WORDS:
                    return Resolved(base, "train", key, negate, scale, PATTERN, order)
                if toks[1] in ("test", "testing"):
                    return Resolved(f"eval/test/{base}", "eval:test", key, negate, scale, PATTERN, order)
                return Resolved(f"eval/{base}", "eval", key, negate, scale, PATTERN, order)
        if len(toks) == 1:  # `trainloss`, `validloss`: a split word glued to the name
            for w in sorted(_EVAL_WORDS | _TRAIN_WORDS, key=len, reverse=True):
                if toks[0].startswith(w) and len(toks[0]) > len(w) + 1:
                    toks = [w, toks[0][len(w):]]
                    break
        if "per" in toks[1:-1] or (len(toks) > 2 and toks[-2] == "per"):  # `TrainLossPerSample`: a loss, per sample
            at = toks.index("per", 1)
            if not self._direct("_".join(toks[at - 1:at + 2]), source):  # (`bits per dim` is a unit of its own)
                toks = toks[:at]
        while len(toks) > 2 and toks[0] in _MODIFIERS and toks[1] in _EVAL_WORDS | _TRAIN_WORDS:
            toks = toks[1:]  # `Mean Training loss`: the modifier before the split word
        if len(toks) > 1 and toks[0] in _NAMESPACE_WORDS:
            toks = toks[1:]  # `metric.accuracy.val`: a group word over the names, as `metrics/` is in a path
        split = "train"
        if len(toks) > 1 and (toks[0] in _EVAL_WORDS or toks[-1] in _EVAL_WORDS):
            word = toks.pop(0) if toks[0] in _EVAL_WORDS else toks.pop()
            split = "eval:test" if word in ("test", "testing") else "eval"
        elif len(toks) > 1 and (toks[0] in _TRAIN_WORDS or toks[-1] in _TRAIN_WORDS):
            toks.pop(0) if toks[0] in _TRAIN_WORDS else toks.pop()
        if len(toks) > 1 and toks[0] in _EVAL_WORDS and split == "train":
            split = "eval"
            toks.pop(0)
        while len(toks) > 1 and toks[0].isdigit():  # `valid_1 binary_logloss`: the set's index, not the metric's
            toks.pop(0)
        attempts = [toks]
        lead = 0
        while lead < len(toks) - 1 and toks[lead] in _MODIFIERS:  # `avg_batch_cost` -> batch_cost -> cost
            lead += 1
            attempts.append(toks[lead:])
        trail = len(toks)
        while trail > 1 and (toks[trail - 1] in _MODIFIERS or toks[trail - 1] in _TRAILING_ONLY):  # `loss_mean`, `f1 score`
            trail -= 1
            attempts.append(toks[:trail])
        if 0 < lead < trail < len(toks):
            attempts.append(toks[lead:trail])  # `avg loss so far`
        for attempt in [a for att in attempts for a in (att, _singular(att))]:
            if not attempt:
                continue
            for joiner in ("_", " ", "/", ""):
                hit = self._direct(joiner.join(attempt), source)
                if hit is None:
                    continue
                name, spec, order, _ = hit
                base = name[5:] if name.startswith("eval/") else name
                if name.startswith("eval/") and split == "train":
                    split = "eval"
                negate, scale = self._xf(spec)
                if split == "train":
                    return Resolved(base, "train", key, negate, scale, PATTERN, order)
                if split == "eval:test":
                    return Resolved(f"eval/test/{base}", "eval:test", key, negate, scale, PATTERN, order)
                return Resolved(f"eval/{base}", "eval", key, negate, scale, PATTERN, order)
        window = _without_window(tokens(key))
        if window:  # `Avg_Reward_100`, `Average100 Score`: the moving average's span, not part of the name
            got = self._by_tokens(window, source)
            if got:
                return Resolved(got.name, got.split, key, got.negate, got.scale, got.quality, got.order)
        return None

    def _stream_metric(self, key: str, source: str | None) -> Resolved | None:
        """A continual-learning metric named by its path (Avalanche: `Top1_Acc_Epoch/train_phase/train_stream/Task003`,
        `Loss_Stream/eval_phase/test_stream/Task000`): the metric, how much it was averaged over, the phase,
        the stream, the task. A training pass's mean (`_Epoch`) is the training metric; the mean over a whole
        evaluation stream (`_Stream`) is that set's evaluation metric. A minibatch's running value (`_MB`)
        and one experience's score (`_Exp`) keep their own names (several of them share one point)."""
        m = _STREAM_METRIC.match(key)
        if m is None:
            return None
        head, over, phase, stream = m.groups()
        if (phase, over) not in (("train", "Epoch"), ("eval", "Stream")):
            return None
        got = self._direct(head, source)
        res = self._make(got, head) if got else self._by_tokens(head, source)
        if res is None or not res.known:
            return None
        base = res.name[5:] if res.name.startswith("eval/") else res.name
        if phase == "train":
            return Resolved(base, "train", key, res.negate, res.scale, PATTERN, res.order)
        if stream.lower() in ("test", "testing"):
            return Resolved(f"eval/test/{base}", "eval:test", key, res.negate, res.scale, PATTERN, res.order)
        return Resolved(f"eval/{base}", "eval", key, res.negate, res.scale, PATTERN, res.order)

    def _path_tail(self, key: str, source: str | None) -> Resolved | None:
        """A grouped key read by its last path segments when the group names no metric
        (`losses/total_loss`, `critic/rewards/mean`, `info/learner/default_policy/learner_stats/total_loss`):
        loggers nest names under groups, and the name is at the end. A split word among the groups
        applies (`metrics/val/acc`); a loss under a group that names one part of a model (`critic/loss`,
        `generator/loss`) is that part's loss, not the training loss, and stays under its own name."""
        segs = [s for s in key.split("/") if s]
        if len(segs) < 2:
            return None
        for i in range(1, len(segs)):
            tail = "/".join(segs[i:])
            if set(tokens(tail)) <= _EVAL_WORDS | _TRAIN_WORDS:
                continue  # (`output/train`: a bare split word names no metric in a path)
            got = self._direct(tail, source)
            res = self._make(got, key) if got else self._by_tokens(tail, source)
            if res is None or not res.known:
                continue
            head = [t for seg in segs[:i] for t in tokens(seg)]
            if any(ch.isdigit() or ch == "." for seg in segs[:i] for ch in seg) or _MODULE_WORDS & set(head):
                return None  # `conv1/grad_norm`, `encoder.layer.0/grad_norm`: one layer's, not the model's
            base = res.name[5:] if res.name.startswith("eval/") else res.name
            noun = tokens(base)[-1:]  # (`reward_chosen/reward`; `default_policy/.../policy_loss` is the policy loss)
            if any(len(ts) > 1 and set(noun) & set(ts + _singular(ts)) for ts in (tokens(seg) for seg in segs[:i])):
                return None  # `reward_chosen/reward` (add_scalars): the group names which reward
            if base in ("loss", "loss_epoch") and any(t in _MODEL_PARTS for t in head):
                return None
            if any(t in _EVAL_WORDS for t in head) and not res.name.startswith("eval/"):
                return Resolved(f"eval/{base}", "eval", key, res.negate, res.scale, PATTERN, res.order)
            return Resolved(res.name, res.split, key, res.negate, res.scale, PATTERN, res.order)
        return None

    def _eval_inside(self, key: str, source: str | None) -> Resolved | None:
        """`mrpc_en_eval_loss`: an eval set's name before the split word and the metric after it
        (several eval sets in one run) -> eval/<set>/<metric>."""
        if any(ch.isspace() for ch in key.strip()):
            return None  # words in a sentence (`New best val acc`) are no set name
        toks = tokens(key)
        for i in range(1, len(toks) - 1):
            if toks[i] in _EVAL_WORDS and toks[i] not in ("test", "testing") and not {"best", "top"} & set(toks[:i]):
                got = self._direct("_".join(toks[i + 1:]), source)
                if got and not got[0].startswith("eval/"):
                    ds = "_".join(toks[:i])
                    return Resolved(f"eval/{ds}/{got[0]}", f"eval:{ds}", key, *self._xf(got[1]), PATTERN, got[2])
        return None

    def _train_stripped(self, key: str, source: str | None):
        for p in self.train_prefixes:
            if key.startswith(p) and len(key) > len(p):
                inner = self._direct(key[len(p):], source)
                if inner:
                    return inner
        return None

    def _fork(self, key: str, source: str | None):
        """Lightning's on_step/on_epoch forks: name_step -> name, name_epoch -> name_epoch."""
        for suffix, extra in (("_step", ""), ("_epoch", "_epoch")):
            if key.endswith(suffix) and len(key) > len(suffix):
                base = key[: -len(suffix)]
                inner = self._direct(base, source)
                if inner is None:
                    for p in self.train_prefixes:
                        if base.startswith(p) and len(base) > len(p):
                            inner = self._direct(base[len(p):], source)
                            if inner:
                                break
                if inner is None:
                    for p in self.eval_prefixes:
                        if base.startswith(p) and len(base) > len(p):
                            inner = self._direct(base[len(p):], source)
                            if inner:
                                b = inner[0][5:] if inner[0].startswith("eval/") else inner[0]
                                inner = (f"eval/{b}", inner[1], inner[2], inner[3])
                                break
                if inner:
                    return inner[0] + extra, inner[1], inner[2], FORKED
        return None

    def _split_part(self, k: str, source: str | None) -> Resolved | None:
        """A split word joined by a hyphen to the part of the data set it names (LibriSpeech's
        `test-clean`, `dev-other`), then a metric: `test-clean WER`, `dev-other-loss` is that metric on
        the eval set `<split>_<part>` (several such parts are several eval sets, not one)."""
        m = _SPLIT_PART.match(k) or _SPLIT_LANG_PAIR.match(k)
        if not m or m.group(2).lower() in _MODIFIERS or self._direct(m.group(2), source):
            return None
        ds, rest = f"{m.group(1)}_{m.group(2)}".lower(), m.group(3)
        hit = self._metric_named(rest, source)
        qualifier, _, last = rest.rpartition(" ")
        if hit is None and qualifier:
            # (`test-clean-no_rescore %WER`: the words before the metric name the decoding, a setting of the eval)
            hit = self._metric_named(last, source)
            ds = f"{ds}_{normalise(qualifier.strip(' -_'))}".lower()
        if hit is None:
            return None
        name, spec, order = hit
        base = name[5:] if name.startswith("eval/") else name
        return Resolved(f"eval/{ds}/{base}", f"eval:{ds}", k, *self._xf(spec), PREFIXED, order)

    def _metric_named(self, words: str, source: str | None) -> tuple[str, dict, int] | None:
        """(name, spec, order) of a training metric the words name, directly or as words."""
        inner = self._direct(words, source)
        if inner:
            return inner[0], inner[1], inner[2]
        by = self._by_tokens(words, source)
        if by and by.known and by.split == "train":
            return by.name, {"negate": by.negate, "scale": by.scale}, by.order
        return None

    def _eval_set(self, rest: str, source: str | None, by_name: bool = True) -> Resolved | None:
        """eval_<set>_<metric> (several HF eval datasets) -> eval/<set>/<metric>, split eval:<set>;
        <metric>/dataloader_idx_<k> (Lightning, several val loaders) -> eval/dl<k>/<metric>."""
        for i, ch in enumerate(rest if by_name else ""):
            if ch in "_/" and 0 < i < len(rest) - 1:
                head, tail = rest[:i], rest[i + 1:]
                inner = self._direct(tail, source)
                if inner and not inner[0].startswith("eval/") and not self._direct(head, source) \
                        and not (head.lower() in _PIPELINE_WORDS and tail.lower() in ("cost", "time")):
                    # (`accuracy_top-1`: a metric with its qualifier, not an eval set named `accuracy`;
                    # `eval/reader_cost`, `eval_data_time`: the time spent reading data, not a set named `reader`)
                    ds = normalise(head)
                    return Resolved(f"eval/{ds}/{inner[0]}", f"eval:{ds}", rest, *self._xf(inner[1]), PREFIXED, inner[2])
        m = _DATALOADER_IDX.search(rest)
        if m:
            inner = self._direct(rest[: m.start()], source)
            if inner:
                ds = f"dl{m.group(1)}"
                return Resolved(f"eval/{ds}/{inner[0]}", f"eval:{ds}", rest, *self._xf(inner[1]), PREFIXED, inner[2])
        return None

    @staticmethod
    def _xf(spec: dict) -> tuple[bool, float]:
        return bool(spec.get("negate", False)), float(spec.get("scale", 1.0) or 1.0)

    def _make(self, hit, key: str) -> Resolved:
        name, spec, order, quality = hit
        if name.startswith("eval/"):
            split = "eval"
        else:
            split = "train"
        negate, scale = self._xf(spec)
        return Resolved(name, split, key, negate, scale, quality, order)


# A ranking metric cut at the top K (recommenders, retrieval: RecBole's `recall@10 : 0.8353    ndcg@10 : 0.69`),
# with the split that scored it when the key says one (`valid ndcg@10`, `test_hit@20`). (`mAP@50` is left
# to detection: AP at IoU 0.50.)
_STREAM_METRIC = re.compile(r"^([A-Za-z][A-Za-z0-9_]*?)_(Epoch|MB|Exp|Stream)/(train|eval)_phase/([A-Za-z]\w*?)_stream"
                            r"(?:/Task\d+)?(?:/Exp\d+)?$")
_RANK_AT = re.compile(r"(?i)^(?:(val|valid|validation|eval|test)[ _/-])?(recall|mrr|ndcg|hits?|hr|precision|gauc|r|p)@(\d+)$")
# the short spellings of a top-K metric: deep metric learning's `R@1 : 33.4` (Recall@1), retrieval's `P@5`,
# knowledge-graph link prediction's `Hits@10`
_RANK_SHORT = {"r": "recall", "p": "precision", "hits": "hit"}
# `test-clean WER`, `dev-other-loss`: a split word, a hyphen, the part of the data set, then the metric.
_SPLIT_PART = re.compile(r"(?i)^(test|dev|val|valid|eval)-([a-z]+)[-_ ]([A-Za-z].*)$")
# a translation eval's split, its language pair and the objective scored (XLM: `valid_en-fr_mt_bleu`,
# `test_de-en_mlm_ppl`): the metric on the eval set `<split>_<pair>`
_SPLIT_LANG_PAIR = re.compile(r"(?i)^(test|dev|val|valid|eval)_([a-z]{2,3}-[a-z]{2,3})_(?:(?:mt|mlm|clm|bt|ae|pc)_)?"
                              r"([A-Za-z].*)$")
_EVAL_WORDS = {"val", "vali", "valid", "validation", "eval", "evaluation", "test", "testing", "dev", "evaluate",
               "validate",  # (`validate loss: 0.25`: the split named with the verb, as the `validate_` prefix is)
               "cv"}  # `cv`: the cross-validation (dev) set of WeNet / ESPnet / Kaldi recipes
_TRAIN_WORDS = {"train", "training", "tr", "trn"}
# Words of a module path (per-layer tags such as `attn/grad_norm`, `weights/fc/norm`).
_MODULE_WORDS = {"layer", "layers", "conv", "block", "blocks", "attn", "attention", "mlp", "fc", "head", "heads",
                 "embed", "embedding", "embeddings", "weight", "weights", "bias", "param", "params", "parameters",
                 "grad", "grads", "gradients", "norm", "bn", "module", "modules", "backbone", "neck"}
# Groups that name one part of a model: a loss under them is that part's (`critic/loss`, `D/loss`).
_MODEL_PARTS = {"actor", "critic", "value", "vf", "pi", "q", "qf", "generator", "discriminator", "gen",
                "disc", "g", "d", "teacher", "student", "encoder", "decoder", "aux", "auxiliary", "alpha", "entropy"}
# Words that qualify a metric without changing what it is.
_MODIFIERS = {"avg", "average", "averaged", "mean", "total", "tot", "overall", "running", "smoothed", "smooth", "epoch", "batch",
              "step", "minibatch", "final", "current", "cur", "global", "bf16", "fp16", "fp32", "tf32", "reduced", "main",
              "set", "peak", "gpu", "cuda", "optim", "optimizer", "so", "far", "sofar",
              "iter", "iteration"}  # (`Iter acc`: the iteration's accuracy)
_NAMESPACE_WORDS = {"metric", "metrics"}  # a leading group word joined with `.` or `_` (`metric.accuracy.train`)
_TRAILING_ONLY = {"score", "value"}  # qualifies only after a name: `f1 score`, `reward score`, `Lr_value`, `loss value`
# (`score loss` is a loss of its own, `value loss` a critic's)
_VERSUS = re.compile(r"\s+vs\.?\s+(?:samples|steps|tokens|iterations|iters|time|wall[\s_-]?time)$", re.I)
_QUALIFIER = re.compile(r"\s*\([A-Za-z][^()]{3,}\)\s*$")  # a trailing qualifier in words (not a unit: `(s)`)
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b)|[A-Z]?[a-z]+|[A-Z]+|\d+")


_WINDOW_WORDS = frozenset({"avg", "average", "mean", "running", "moving"})
# what a trailing count may follow (`mean_ap_50` is AP at IoU 0.5 and `avg_acc_5` a top-5 accuracy, not windows)
_WINDOWED = frozenset({"reward", "rewards", "return", "returns", "score", "scores", "loss", "length", "len"})


def _without_window(toks: list[str]) -> str:
    """The key's words without a moving average's span, joined with `_`, or "" when it has none: a count
    glued to the averaging word (`Average100 Score`, `avg100_reward`) or trailing a name the averaging word
    starts (`Avg_Reward_100`, `mean_return_10`). RL loops print the mean of the last N episodes so."""
    if len(toks) < 3 or toks[0] not in _WINDOW_WORDS:
        return ""
    if toks[1].isdigit():
        rest = toks[:1] + toks[2:]
    elif toks[-1].isdigit() and toks[-2] in _WINDOWED and not any(t.isdigit() for t in toks[1:-1]):
        rest = toks[:-1]
    else:
        return ""
    return "_".join(rest)


def _singular(toks: list[str]) -> list[str]:
    """The words with the last one in the singular (`losses`, `accuracies`, `rewards`): a plural
    names the same metric. Empty when the last word is not a plural."""
    last = toks[-1] if toks else ""
    if len(last) < 4 or not last.endswith("s") or last.endswith(("ss", "us", "is")):
        return []
    if last.endswith("ies"):
        one = last[:-3] + "y"
    elif last.endswith(("sses", "xes", "ches", "shes")):
        one = last[:-2]
    else:
        one = last[:-1]
    return toks[:-1] + [one]


def tokens(key: str) -> list[str]:
    """The words of a key, lower case: separators `/ _ . - space`, and CamelCase boundaries."""
    out: list[str] = []
    for part in re.split(r"[\s/_.\-:]+", key):
        if not part:
            continue
        if not part.isascii():  # `整体测试集上的Loss`: the Chinese words that name a split or a metric
            out.extend(w for zh, en in _CJK_WORDS if zh in part for w in en.split())
            part = "".join(ch for ch in part if ch.isascii())
            if not part:
                continue
        if part.isupper() or part.islower() or part.isdigit():
            out.append(part.lower())
        else:
            out.extend(w.lower() for w in _CAMEL.findall(part))
    # `Mini-batch Accuracy`: the hyphen splits one word (`minibatch`) in two
    for i in range(len(out) - 1, 0, -1):
        if out[i] == "batch" and out[i - 1] == "mini":
            out[i - 1:i + 1] = ["minibatch"]
    # `Top-1 Acc`, `top 5`: the rank belongs to `top`
    for i in range(len(out) - 1, 0, -1):
        if out[i].isdigit() and out[i - 1] == "top":
            out[i - 1:i + 1] = ["top" + out[i]]
    if any(w in _DE_WORDS for w in out):
        out = [x for w in out for x in _DE_WORDS.get(w, (w,))]
    return out


# Chinese words for splits and metrics, as tutorials print them (order: split words first).
_CJK_WORDS = (("测试", "test"), ("验证", "val"), ("训练", "train"), ("损失", "loss"), ("正确率", "accuracy"),
              ("准确率", "accuracy"), ("精度", "accuracy"), ("学习率", "lr"), ("梯度范数", "grad norm"))
# German words for the same (`Verlust`, `Trainingsverlust`, `Lernrate`, `Genauigkeit`): a compound names its split
# before `verlust` (`Validierungsverlust`, `Testverlust`)
_DE_WORDS = {"verlust": ("loss",), "lernrate": ("lr",), "genauigkeit": ("accuracy",), "trainingsverlust": ("train", "loss"),
             "validierungsverlust": ("val", "loss"), "valverlust": ("val", "loss"), "testverlust": ("test", "loss"),
             "trainingsgenauigkeit": ("train", "accuracy"), "validierungsgenauigkeit": ("val", "accuracy"),
             "testgenauigkeit": ("test", "accuracy")}
_KERAS_NTH = re.compile(r"^((?:val_)?(?:auc|prc|precision|recall|f1_score|mean_io_u|(?:true|false)_(?:positives|negatives)"
                        r"|(?:binary_|categorical_|sparse_categorical_)?accuracy))_\d+$")
# ms-swift 2.x names its token accuracy plain `acc` in the records that carry `global_step/max_steps`
# (3.x writes `token_acc`): the JSONL and the printed-dict readers both rename it
SWIFT_ACC = {"acc": "token_acc", "eval_acc": "eval_token_acc"}
# a metric named after the list file of the data it was scored on (wav2letter++: `<list>.lst-loss`, `<list>.lst-WER`)
_LIST_FILE_SET = re.compile(r"^([\w-]+?)\.(?:lst|list|tsv|csv|txt|json)-(\w[\w-]*)$")
# an evaluation set named by its upper-case acronym, with an optional hyphenated part (`STS-B`, `SICK-R`, `MRPC`)
_BENCHMARK_FIRST = re.compile(r"^([A-Z][A-Z0-9]{1,7}(?:-[A-Z0-9]{1,3})?)\s+([A-Za-z][\w ]*)$")
_SET_INDEX = re.compile(r"^\d+[\s_]+")  # `valid_0 auc`: which evaluation set, not part of the metric's name
_LR_MONITOR = re.compile(r"^lr-([A-Za-z][\w.]*)(?:/(\w+))?$")
_LR_PG = re.compile(r"^lr/pg(\d+)$")
_DATALOADER_IDX = re.compile(r"/dataloader_idx_(\d+)$")


@lru_cache(maxsize=8192)
def _resolve_cached(table: AliasTable, key: str, source: str | None) -> Resolved:
    return table._resolve(key, source)


_TABLE: AliasTable | None = None
_TABLE_KEY: tuple | None = None
_TABLE_CHECKED: tuple[float, str] = (0.0, "")


def table() -> AliasTable:
    """The alias table of the metrics.yaml in every knowledge folder (triage.kb.loader.knowledge_roots:
    the built-in one, TRIAGE_KB_PATH's, those given with --kb)."""
    global _TABLE, _TABLE_KEY, _TABLE_CHECKED
    now = time.monotonic()
    env = os.environ.get(KB_ENV, "") + "\0" + "\0".join(session_roots())
    if _TABLE is not None and _TABLE_CHECKED[1] == env and now - _TABLE_CHECKED[0] < 1.0:
        return _TABLE  # readers ask per line: the files' mtimes are looked at once a second at most
    _TABLE_CHECKED = (now, env)
    paths = [r / "metrics.yaml" for r in knowledge_roots()]
    key = tuple((str(p), p.stat().st_mtime_ns) for p in paths if p.is_file())
    if _TABLE is None or key != _TABLE_KEY:
        docs = []
        problems = []
        for p in paths:
            if p.is_file():
                try:
                    docs.append(_load_cached(p))
                except Exception as exc:  # a broken user file must not stop reading logs: say so on every run
                    problems.append(f"{p}: not used ({type(exc).__name__}); metric names from it are missing "
                                    f"(`triage kb check` shows where)")
        _TABLE = AliasTable(docs)
        _TABLE.problems = problems
        _TABLE_KEY = key
        _resolve_cached.cache_clear()
    return _TABLE
