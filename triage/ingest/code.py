"""Training code read beside its output, never run: the bugs a reviewer spots in a notebook's cells.

A notebook holds the code that printed its log. A person who opens it reads both, and some bugs are
plain in the code whatever the curve shows: a softmax in front of a cross-entropy that applies its
own, `NLLLoss` on raw scores, a loop that calls `backward()` and `step()` but never clears the
gradients. This module parses the code with `ast` (nothing is imported, compiled or executed) and
returns what it finds as `CodeFact`s: the `Q-code-finding` answer the knowledge already has for each,
with the line that shows it.

Each rule states a fact of the libraries' documented behaviour and needs the whole pattern, not a
word: the softmax rule needs the softmax to reach the loss (the model's last layer, or an argument of
the loss call); Keras' `categorical_crossentropy` on a softmax layer is correct and is not reported.
Cells that do not parse (shell `!` lines and `%` magics are blanked first) are skipped and counted.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass

MAX_SOURCE = 2_000_000  # characters of code read per notebook; the rest is left unread (counted)


@dataclass(frozen=True)
class CodeFact:
    """One finding in the code: the `Q-code-finding` answer it gives, where, and why."""

    answer: str
    cell: int  # 1-based index among the code cells (or the scripts)
    line: int  # 1-based line within that cell
    text: str  # the source line, stripped
    why: str
    source: str = ""  # the script's file name; "" for a notebook's cell

    def to_dict(self) -> dict:
        out = {"answer": self.answer, "cell": self.cell, "line": self.line, "text": self.text, "why": self.why}
        if self.source:
            out["source"] = self.source
        return out


_MAGIC = re.compile(r"^(\s*)[!%?].*$", re.M)

_CE_NAMES = {"CrossEntropyLoss", "cross_entropy"}
_SOFTMAX_NAMES = {"softmax", "Softmax"}
_LOGSOFTMAX_NAMES = {"log_softmax", "LogSoftmax"}
_NLL_NAMES = {"NLLLoss", "nll_loss"}


def _name(node: ast.AST) -> str:
    """The last name of a call target or attribute chain: `nn.functional.softmax` -> `softmax`."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _calls(tree: ast.AST):
    return (n for n in ast.walk(tree) if isinstance(n, ast.Call))


def _kw(call: ast.Call, name: str):
    return next((k.value for k in call.keywords if k.arg == name), None)


def _const(node) -> object:
    return node.value if isinstance(node, ast.Constant) else None


def _parse_cells(cells: list[str]) -> tuple[list[tuple[int, ast.Module, list[str]]], int]:
    parsed, skipped = [], 0
    for i, src in enumerate(cells, 1):
        blanked = _MAGIC.sub(lambda m: m.group(1) + "pass", src)
        try:
            with warnings.catch_warnings():  # (an odd escape in the cell's strings is the notebook's concern)
                warnings.simplefilter("ignore")
                tree = ast.parse(blanked)
            parsed.append((i, tree, src.splitlines()))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            skipped += 1
    return parsed, skipped


def _fact(answer: str, cell: int, lines: list[str], node: ast.AST, why: str) -> CodeFact:
    line = getattr(node, "lineno", 1)
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    return CodeFact(answer, cell, line, text[:160], why)


def _is_softmax(node) -> bool:
    """A call that turns scores into probabilities: F.softmax(x), x.softmax(-1), nn.Softmax()(x).
    Not log_softmax: cross-entropy is unchanged by it (log_softmax of log-probabilities is the same
    log-probabilities), so a log_softmax in front of CrossEntropyLoss is redundant, not a bug."""
    if not isinstance(node, ast.Call):
        return False
    if _name(node) in _SOFTMAX_NAMES:
        return True
    return isinstance(node.func, ast.Call) and _name(node.func) in _SOFTMAX_NAMES  # nn.Softmax(dim=1)(x)


def _returned(fn: ast.FunctionDef):
    """(return statement, the value it returns) for each `return` of `fn`, a returned name read through its last
    assignment (one step of indirection)."""
    assigned = _assigned([fn])
    for node in ast.walk(fn):
        if isinstance(node, ast.Return) and node.value is not None:
            value = node.value
            yield node, (assigned.get(value.id, value) if isinstance(value, ast.Name) else value)


def _returns_softmax(fn: ast.FunctionDef) -> ast.AST | None:
    """`forward` (or `call`) returning a softmax of its last value, directly or through one name."""
    for node, value in _returned(fn):
        if _is_softmax(value):
            return node
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
                isinstance(value.func.value, ast.Attribute) and value.func.value.attr == "softmax":
            return node  # self.softmax(x) where the layer is named for what it does
    return None


_SHAPE_ONLY = {"view", "reshape", "contiguous", "flatten", "permute", "transpose", "squeeze", "unsqueeze", "float",
               "double", "to", "cuda", "cpu"}


def _unshaped(node: ast.expr) -> ast.expr:
    """`logits.view(-1, V)` -> `logits`: methods that change a tensor's shape, device or dtype, not its values."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SHAPE_ONLY:
        node = node.func.value
    return node


def _returns_softmax_layer(cls: ast.ClassDef, fn: ast.FunctionDef) -> ast.AST | None:
    """`forward` returning `self.head(x)` where the class builds `self.head = nn.Sequential(..., nn.Softmax())`
    (or `self.head = nn.Softmax()`), directly or through one name."""
    layers = {}
    for n in ast.walk(cls):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call):
            for t in n.targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    layers[t.attr] = n.value
    for node, value in _returned(fn):
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
                isinstance(value.func.value, ast.Name) and value.func.value.id == "self":
            layer = layers.get(value.func.attr)
            if layer is not None and (_sequential_ends_softmax(layer) or _name(layer) == "Softmax"):
                return node
    return None


_OTHER_LOSSES = {"NLLLoss", "nll_loss", "BCELoss", "binary_cross_entropy", "BCEWithLogitsLoss",
                 "binary_cross_entropy_with_logits", "MSELoss", "mse_loss", "L1Loss", "l1_loss", "KLDivLoss", "kl_div",
                 "SmoothL1Loss", "smooth_l1_loss", "HuberLoss", "CTCLoss", "MarginRankingLoss", "CosineEmbeddingLoss"}


def _trained_model_softmax(parsed, by_class: dict[str, CodeFact | None]) -> CodeFact | None:
    """O12 (torch.nn.CrossEntropyLoss docs: "the input is expected to contain the unnormalized logits for each
    class"): the model the optimizer trains (`opt = Adam(model.parameters())` with `model = Net(...)`, Net a
    module class of the code) returns a softmax, and CrossEntropyLoss is the code's only loss, so the
    probabilities can reach no other loss."""
    if any(_name(c) in _OTHER_LOSSES for _, tree, _ in parsed for c in _calls(tree)):
        return None
    built: dict[str, str] = {}  # model name -> class it was built from
    for _, tree, _ in parsed:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name) \
                    and node.value.func.id in by_class:
                built[node.targets[0].id] = node.value.func.id
    for _, tree, _ in parsed:
        for call in _calls(tree):
            owner = _params_of(call)
            if owner in built and by_class[built[owner]] is not None:
                return by_class[built[owner]]
    return None


def _softmax_value(cls: ast.ClassDef, fn: ast.FunctionDef, value: ast.expr) -> bool:
    """An expression of `forward` that is a softmax: a softmax call, or a call of a layer of the class that
    ends in one (`self.head(x)` with `self.head = nn.Sequential(..., nn.Softmax())`), through one name."""
    if isinstance(value, ast.Name):
        value = _assigned([fn]).get(value.id, value)
    if _is_softmax(value):
        return True
    probe = ast.Return(value=value, lineno=getattr(value, "lineno", 1), col_offset=0)
    fake = ast.FunctionDef(name=fn.name, args=fn.args, body=[probe], decorator_list=[], lineno=fn.lineno)
    return _returns_softmax_layer(cls, fake) is not None or _returns_softmax(fake) is not None


def _softmax_output_into_ce(parsed) -> CodeFact | None:
    """O12 followed through one model call: `validity, label = D(x)` with D an instance of a module class of
    the code whose forward returns `(..., softmax)`, and `label` (that element) handed to a CrossEntropyLoss
    instance, which expects unnormalized logits (torch.nn.CrossEntropyLoss docs) and applies log_softmax
    to the probabilities again."""
    classes = {n.name: n for _, tree, _ in parsed for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and _is_module(n)}
    if not classes:
        return None
    built: dict[str, ast.ClassDef] = {}
    criteria: set[str] = set()
    outputs: dict[str, tuple[str, int | None]] = {}  # name -> (model it came from, tuple index or None)
    for _, tree, _ in parsed:
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call)):
                continue
            target, value = node.targets[0], node.value
            if isinstance(target, ast.Name) and isinstance(value.func, ast.Name) and value.func.id in classes:
                built[target.id] = classes[value.func.id]
            elif isinstance(target, ast.Name) and _name(_unshaped(value)) == "CrossEntropyLoss":
                criteria.add(target.id)
            elif isinstance(value.func, ast.Name):
                if isinstance(target, ast.Name):
                    outputs[target.id] = (value.func.id, None)
                elif isinstance(target, ast.Tuple):
                    for i, elt in enumerate(target.elts):
                        if isinstance(elt, ast.Name):
                            outputs[elt.id] = (value.func.id, i)
    for cell, tree, lines in parsed:
        for call in _calls(tree):
            if not (isinstance(call.func, ast.Name) and call.func.id in criteria and call.args):
                continue
            arg = _unshaped(call.args[0])
            if not isinstance(arg, ast.Name) or arg.id not in outputs:
                continue
            model, index = outputs[arg.id]
            cls = built.get(model)
            if cls is None:
                continue
            fwd = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "forward"), None)
            if fwd is None:
                continue
            for ret in (n for n in ast.walk(fwd) if isinstance(n, ast.Return)):
                out = ret.value
                if out is None:
                    continue
                if index is not None:
                    if not (isinstance(out, ast.Tuple) and index < len(out.elts)):
                        continue
                    out = out.elts[index]
                if _softmax_value(cls, fwd, out):
                    return _fact("softmax-ce", cell, lines, call, f"{arg.id} comes out of {cls.name}.forward as a "
                                 f"softmax and goes to {call.func.id} (CrossEntropyLoss), which applies its own")
    return None


def _sequential_ends_softmax(call: ast.Call) -> bool:
    """nn.Sequential(..., nn.Softmax(dim=1)) or a list of layers ending so."""
    return _name(call) == "Sequential" and bool(call.args) and isinstance(call.args[-1], ast.Call) \
        and _name(call.args[-1]) == "Softmax"


def _assigned(trees) -> dict[str, ast.expr]:
    """{name: the value last assigned to it} in these trees, for one step of indirection."""
    out: dict[str, ast.expr] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                out[node.targets[0].id] = node.value
    return out


def _value_before(name: str, call: ast.Call, scope: ast.AST) -> ast.expr | None:
    """The value last assigned to `name` in the call's own scope (its function, or the module) on a line
    before the call: one step of data flow that does not mix up two functions' `output`."""
    best = None
    for node in _scope_nodes(scope):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id == name and node.lineno < call.lineno \
                and (best is None or node.lineno > best.lineno):
            best = node
    return best.value if best is not None else None


def _softmax_into_ce(parsed) -> CodeFact | None:
    """O12: probabilities handed to a loss that applies its own softmax."""
    uses_ce = any(_name(c) in _CE_NAMES for _, tree, _ in parsed for c in _calls(tree))
    # the names that hold a CrossEntropyLoss (`criterion = nn.CrossEntropyLoss()`, `self.criterion = ...`):
    # a call of one is the loss itself
    holders = {ast.unparse(t) for _, tree, _ in parsed for n in ast.walk(tree) if isinstance(n, ast.Assign)
               and isinstance(n.value, ast.Call) and _name(n.value) == "CrossEntropyLoss" for t in n.targets
               if isinstance(t, (ast.Name, ast.Attribute))}
    for cell, tree, lines in parsed:
        where = _enclosing(tree)
        for call in _calls(tree):
            name = _name(call)
            # F.cross_entropy(F.softmax(out), y), criterion(F.softmax(out), y); a model's softmax output is
            # checked below through the model
            if name in _CE_NAMES or name.endswith("cross_entropy_with_logits") or name == "softmax_cross_entropy" \
                    or ast.unparse(call.func) in holders:
                args = list(call.args) + [k.value for k in call.keywords if k.arg in ("input", "logits")]
                args = [_unshaped(a) for a in args]
                scope = where.get(id(call), (None, None))[0] or tree
                args = [(_value_before(a.id, call, scope) or a) if isinstance(a, ast.Name) else a for a in args]
                if any(_is_softmax(a) for a in args):
                    return _fact("softmax-ce", cell, lines, call, "a softmax feeds a loss that applies its own")
            # Keras: a loss told it gets logits, on a model whose last layer is a softmax
            if name in ("SparseCategoricalCrossentropy", "CategoricalCrossentropy") and _const(_kw(call, "from_logits")) is True:
                if _keras_ends_softmax(parsed):
                    return _fact("softmax-ce", cell, lines, call,
                                 "from_logits=True on a model whose last layer already applies a softmax")
    if not uses_ce:
        return None
    # Which model meets the loss is data flow this reader does not follow; so the model rule holds
    # only when every model the code defines ends in a softmax (a notebook that tries a softmax head,
    # then a logits head, is not reported).
    models: list[CodeFact | None] = []
    by_class: dict[str, CodeFact | None] = {}
    parts = {id(n.value) for _, tree, _ in parsed for cls in ast.walk(tree) if isinstance(cls, ast.ClassDef)
             for n in ast.walk(cls) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
             and any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                     for t in n.targets)}
    for cell, tree, lines in parsed:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and _is_module(node):
                fwd = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "forward"), None)
                if fwd is None:
                    continue
                ret = _returns_softmax(fwd) or _returns_softmax_layer(node, fwd)
                by_class[node.name] = _fact("softmax-ce", cell, lines, ret, "the model's forward returns a softmax "
                                            "and the loss is CrossEntropyLoss, which applies its own") if ret is not None else None
                models.append(by_class[node.name])
            elif isinstance(node, ast.Call) and _name(node) == "Sequential" and node.args and id(node) not in parts:
                # (a Sequential stored as `self.head = ...` is a layer of the class that holds it, judged with it)
                models.append(_fact("softmax-ce", cell, lines, node, "the model ends in a Softmax layer and the loss "
                                    "is CrossEntropyLoss, which applies its own") if _sequential_ends_softmax(node) else None)
    if models and all(m is not None for m in models):
        return models[0]
    return _trained_model_softmax(parsed, by_class) or _softmax_output_into_ce(parsed)


def _is_module(cls: ast.ClassDef) -> bool:
    return any(_name(b) in ("Module", "LightningModule") for b in cls.bases)


def _activation(layer: ast.Call):
    """The activation a Keras Dense or Activation layer call names (`activation=...`, or Activation's
    first argument), or None."""
    act = _kw(layer, "activation")
    if act is None and _name(layer) == "Activation" and layer.args:
        act = layer.args[0]
    return act


def _keras_ends_softmax(parsed) -> bool:
    """The last Dense/Activation layer written in the code applies a softmax."""
    last = None
    for _, tree, _ in parsed:
        for call in _calls(tree):
            if _name(call) in ("Dense", "Activation"):
                last = _const(_activation(call))
    return last == "softmax"


def _nll_on_logits(parsed) -> CodeFact | None:
    """O16: NLLLoss expects log-probabilities; a code base with no log_softmax anywhere feeds it scores."""
    nll = None
    for cell, tree, lines in parsed:
        for call in _calls(tree):
            name = _name(call)
            if name in _LOGSOFTMAX_NAMES or (isinstance(call.func, ast.Call) and _name(call.func) in _LOGSOFTMAX_NAMES):
                return None
            if name in _NLL_NAMES and nll is None:
                nll = (cell, lines, call)
    for _, tree, _ in parsed:  # a layer stored as an attribute: self.out = nn.LogSoftmax(dim=1)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in _LOGSOFTMAX_NAMES:
                return None
    if nll is None:
        return None
    cell, lines, call = nll
    return _fact("logits-nll", cell, lines, call, "NLLLoss is used and nothing in the code applies log_softmax")


def _loop_body_calls(loop: ast.AST) -> set[str]:
    return {_name(c) for c in _calls(loop)}


def _imports(parsed, *modules: str) -> bool:
    for _, tree, _ in parsed:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            if any(n.split(".")[0] in modules for n in names):
                return True
    return False


def _missing_zero_grad(parsed) -> CodeFact | None:
    """O4: a loop that calls backward() and step() while nothing in the code clears the gradients."""
    if not _imports(parsed, "torch") or _imports(parsed, "mxnet", "chainer", "paddle", "jax", "tensorflow"):
        return None  # Gluon overwrites gradients by default; other frameworks clear them their own way
    everything = {_name(c) for _, tree, _ in parsed for c in _calls(tree)}
    if everything & {"zero_grad", "clear_grad", "clear_gradients", "cleargrads"}:
        return None
    for _, tree, _ in parsed:  # p.grad = None / param.grad.zero_()
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "grad" and isinstance(getattr(node, "ctx", None), ast.Store):
                return None
    for cell, tree, lines in parsed:
        for node in ast.walk(tree):
            if isinstance(node, (ast.For, ast.While)):
                calls = list(_calls(node))
                # (torch.distributed.autograd keeps each pass's gradients in its own context: nothing to clear)
                backward = [c for c in calls if _name(c) == "backward" and "dist_autograd" not in ast.unparse(c.func)]
                step = next((c for c in calls if _optimizer_step(c)), None)
                if backward and step is not None:
                    return _fact("loop-order", cell, lines, step,
                                 "backward() and step() run in a loop and nothing clears the gradients (no zero_grad)")
    return None


_CLEARS = {"zero_grad", "clear_grad", "clear_gradients", "cleargrads"}


def _updates(stmts: list[ast.stmt]) -> bool:
    calls = [c for s in stmts for c in _calls(s)]
    return any(_name(c) == "backward" for c in calls) and any(_optimizer_step(c) for c in calls)


def _branch_never_cleared(parsed) -> CodeFact | None:
    """O4 (torch.Tensor.backward: "the graph ... accumulates gradients in the leaves"; they are cleared only
    by zero_grad()): a training loop with two update paths (`if use_amp: ... else: ...`), each running
    backward() and step(), where the loop clears the gradients only on one path: every pass of the other
    adds its gradients to all the earlier ones."""
    if not _imports(parsed, "torch") or _imports(parsed, "mxnet", "chainer", "paddle", "jax", "tensorflow"):
        return None
    for cell, tree, lines in parsed:
        for loop in ast.walk(tree):
            if not isinstance(loop, (ast.For, ast.While)):
                continue
            clears = [c for c in _loop_calls(loop) if _name(c) in _CLEARS]
            if not clears:
                continue
            for node in ast.walk(loop):
                if not isinstance(node, ast.If) or not node.orelse:
                    continue
                for branch, other in ((node.body, node.orelse), (node.orelse, node.body)):
                    if not (_updates(branch) and _updates(other)):
                        continue
                    inside = {id(c) for s in other for c in _calls(s)}
                    if any(_name(c) in _CLEARS for s in branch for c in _calls(s)) or \
                            not all(id(c) in inside for c in clears):
                        continue
                    step = next(c for s in branch for c in _calls(s) if _optimizer_step(c))
                    return _fact("loop-order", cell, lines, step, "this update path runs backward() and step() but "
                                 "only the other branch clears the gradients (zero_grad): on this path they pile up "
                                 "pass after pass")
    return None


def _optimizer_never_steps(parsed) -> CodeFact | None:
    """O4 (torch.optim.Optimizer.step: "performs a single optimization step (parameter update)"; nothing
    else moves the parameters): a training loop that runs backward() and clears an optimizer's gradients
    (`opt.zero_grad()`) while that optimizer's step() is called nowhere in the code, and the optimizer is
    never handed to a call that could step it (`scaler.step(opt)`, a helper, accelerate's prepare): the
    gradients are computed, then thrown away, and the weights it holds never change."""
    if _imports(parsed, "mxnet", "chainer", "paddle", "jax", "tensorflow"):
        return None
    built = {ast.unparse(t) for _, tree, _ in parsed for n in ast.walk(tree) if isinstance(n, ast.Assign)
             and isinstance(n.value, ast.Call) and _name(n.value) in _OPTIMIZERS for t in n.targets}
    functions = _local_functions(parsed)
    stepped: set[str] = set()
    handed: set[str] = set()
    for _, tree, _ in parsed:
        for c in _calls(tree):
            if _name(c) == "step" and isinstance(c.func, ast.Attribute):
                stepped.add(ast.unparse(c.func.value))
            if _name(c) in _SCHEDULERS:
                continue  # (a schedule changes the learning rate, never the weights)
            fn = _callee(c, functions)
            if fn is not None and not any(_name(sub) == "step" for sub in _calls(fn)):
                continue  # (a function of the code that steps nothing: `adjust_learning_rate(optimizer, ...)`)
            handed.update(ast.unparse(a) for a in list(c.args) + [k.value for k in c.keywords])
    for cell, tree, lines in parsed:
        for loop in ast.walk(tree):
            if not isinstance(loop, (ast.For, ast.While)):
                continue
            calls = _loop_calls(loop)
            if not any(_name(c) == "backward" for c in calls):
                continue
            for c in calls:
                if _name(c) != "zero_grad" or not isinstance(c.func, ast.Attribute):
                    continue
                who = ast.unparse(c.func.value)
                if (who in built or "optim" in who.lower()) and who not in stepped and who not in handed:
                    return _fact("loop-order", cell, lines, c, f"{who} is cleared and backward() runs, but {who}.step() "
                                 "is never called: the gradients are thrown away and its weights never change")
    return None


def _enclosing(tree: ast.AST) -> dict[int, tuple[ast.AST | None, ast.AST | None]]:
    """{id(node): (the function it is in or None, the innermost loop it is in or None)} for one tree; a loop
    is counted only inside the node's own function."""
    out: dict[int, tuple[ast.AST | None, ast.AST | None]] = {}

    def visit(node: ast.AST, fn, loop) -> None:
        for child in ast.iter_child_nodes(node):
            out[id(child)] = (fn, loop)
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                visit(child, child, None)
            elif isinstance(child, (ast.For, ast.While)):
                visit(child, fn, child)
            else:
                visit(child, fn, loop)

    visit(tree, None, None)
    return out


_OPTIMIZERS = {"SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "SparseAdam",
               "LBFGS", "Lion", "Adafactor"}


def _parameter_sources(call: ast.Call) -> list[ast.expr]:
    """The modules an optimizer call is built over, as written: `Adam(model.fc.parameters())` -> [model.fc]."""
    if _name(call) not in _OPTIMIZERS or not call.args:
        return []
    return [sub.func.value for sub in ast.walk(call.args[0])
            if isinstance(sub, ast.Call) and _name(sub) in ("parameters", "named_parameters")
            and isinstance(sub.func, ast.Attribute)]


def _optimizer_never_cleared(parsed) -> CodeFact | None:
    """O4, per optimizer (PyTorch): `backward()` adds into `.grad` (Tensor.backward: "accumulates gradients
    in the leaves"), so an optimizer stepped in a training loop must have its gradients cleared each pass
    (`opt.zero_grad()`, or `model.zero_grad()` on the model it was built over). Reported when the code clears
    the gradients of other optimizers but never those of one that steps in a loop (a GAN's second
    optimizer), or clears them only once, before the loop, in the same scope. Every `zero_grad()` of the code
    must be on a name the code built as an optimizer or passed to one, so that what it clears is known."""
    if not _imports(parsed, "torch") or _imports(parsed, "mxnet", "chainer", "paddle", "jax", "tensorflow"):
        return None
    owners: dict[str, set[str]] = {}  # optimizer -> the models whose parameters it was built over
    for _, tree, _ in parsed:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call):
                roots = {ast.unparse(src) for src in _parameter_sources(node.value)}
                if roots:
                    owners[ast.unparse(node.targets[0])] = roots
    if not owners:
        return None
    for _, tree, _ in parsed:
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "grad" and isinstance(getattr(node, "ctx", None), ast.Store):
                return None  # (p.grad = None: cleared by hand)
    clears = []  # (zero_grad call, its tree's enclosing map)
    maps = [_enclosing(tree) for _, tree, _ in parsed]
    for (_, tree, _), where in zip(parsed, maps):
        for call in _calls(tree):
            if _name(call) in ("clear_grad", "clear_gradients", "cleargrads"):
                return None
            if _name(call) == "zero_grad":
                who = _receiver(call)
                if who not in owners and not any(who == m or m.startswith(who + ".") or who.startswith(m + ".")
                                                 for ms in owners.values() for m in ms):
                    return None  # (a zero_grad() on something this reader cannot tie to an optimizer)
                clears.append((call, who, where))
    if not clears:
        return None  # (no zero_grad at all: _missing_zero_grad's case)
    for (cell, tree, lines), where in zip(parsed, maps):
        for call in _calls(tree):
            if not _optimizer_step(call):
                continue
            opt = _receiver(call)
            if opt not in owners:
                continue
            fn, loop = where.get(id(call), (None, None))
            if loop is None or "backward" not in _loop_body_calls(loop):
                continue
            mine = [(c, w) for c, who, w in clears
                    if who == opt or any(who == m or m.startswith(who + ".") for m in owners[opt])]
            if not mine:
                return _fact("loop-order", cell, lines, call, f"{opt}.step() runs in the training loop and nothing "
                             f"clears {opt}'s gradients ({opt}.zero_grad() is never called): they add up pass after pass")
            once = all(w.get(id(c), (None, None))[1] is None and w.get(id(c), (None, None))[0] is fn
                       and c.lineno < getattr(loop, "lineno", 0) for c, w in mine)
            if once and all(w is where for _, w in mine):
                return _fact("loop-order", cell, lines, call, f"{opt}'s gradients are cleared once, before the "
                             "loop, and never inside it: each step applies the sum of every pass so far")
    return None


def _keras_metric_mismatch(parsed) -> CodeFact | None:
    """A regression loss (MSE/MAE) scored with accuracy: Keras' accuracy counts exact matches of
    real-valued outputs, so it sits near 0 whatever the fit."""
    for cell, tree, lines in parsed:
        for call in _calls(tree):
            if _name(call) != "compile":
                continue
            loss = _const(_kw(call, "loss"))
            metrics = _kw(call, "metrics")
            names = [_const(e) for e in metrics.elts] if isinstance(metrics, (ast.List, ast.Tuple)) else []
            if isinstance(loss, str) and loss.lower() in ("mse", "mae", "mean_squared_error", "mean_absolute_error") \
                    and any(isinstance(n, str) and n.lower() in ("accuracy", "acc") for n in names):
                return _fact("metric-mismatch", cell, lines, call,
                             f"loss {loss!r} is a regression loss but the metric is accuracy (exact matches of real outputs)")
    return None


def _method_calls(tree: ast.AST, method: str) -> list[ast.Call]:
    return [c for c in _calls(tree) if isinstance(c.func, ast.Attribute) and c.func.attr == method and not c.args
            and not c.keywords]


def _eval_never_undone(parsed) -> CodeFact | None:
    """O5: `model.eval()` inside the training loop (to validate each epoch) and no `.train()` call
    anywhere: from the first validation on, the model trains with dropout off and BatchNorm frozen
    at its running statistics. Only PyTorch, only a loop that also calls backward()."""
    if not _imports(parsed, "torch"):
        return None
    if any(_name(c) == "train" for _, tree, _ in parsed for c in _calls(tree)):
        return None  # model.train(), model.train(True), net.train(mode=...)
    evaluators = {n.name: n for _, tree, _ in parsed for n in ast.walk(tree)
                  if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and _method_calls(n, "eval")}
    for cell, tree, lines in parsed:
        for node in ast.walk(tree):
            if isinstance(node, (ast.For, ast.While)) and "backward" in _loop_body_calls(node):
                evals = _method_calls(node, "eval")
                if evals:
                    return _fact("train-eval-mode", cell, lines, evals[0],
                                 "eval() is called inside the training loop and train() is never called: "
                                 "after the first evaluation the model trains in eval mode")
                # (one level down: the loop calls a function of the code that puts the model in eval mode)
                called = [c for c in _loop_calls(node) if isinstance(c.func, ast.Name) and c.func.id in evaluators]
                if called:
                    return _fact("train-eval-mode", cell, lines, called[0],
                                 f"{called[0].func.id}() puts the model in eval mode, the training loop calls it and "  # type: ignore[attr-defined]
                                 "train() is never called: after the first evaluation the model trains in eval mode")
    return None


def _local_functions(parsed) -> dict[str, ast.AST]:
    """{name: def} for the functions and methods of the code (a method by its bare name: `self.validate()`
    calls `validate`); a name defined twice is left out (which one runs is not plain)."""
    seen: dict[str, list[ast.AST]] = {}
    for _, tree, _ in parsed:
        for n in ast.walk(tree):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                seen.setdefault(n.name, []).append(n)
    return {k: v[0] for k, v in seen.items() if len(v) == 1}


def _callee(call: ast.Call, functions: dict[str, ast.AST]) -> ast.AST | None:
    """The function of the code a call runs: `f(...)` or `self.f(...)` / `cls.f(...)`."""
    f = call.func
    if isinstance(f, ast.Name):
        return functions.get(f.id)
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in ("self", "cls"):
        return functions.get(f.attr)
    return None


def _mode_events(calls: list[ast.Call], functions: dict[str, ast.AST], exiting: set[int],
                 depth: int = 1) -> list[tuple[str, ast.Call]]:
    """The calls of a loop pass as events in the order they run: "E" a module put in eval mode, "T" put in
    train mode, "U" an update (backward() or an optimizer step); a call of a function of the code stands
    for that function's own events (one level down). An eval() on a path that leaves the loop (a branch that
    ends in break / return) is not an event of the next pass."""
    out: list[tuple[str, ast.Call]] = []
    for c in calls:
        name = _name(c)
        if name == "eval" and isinstance(c.func, ast.Attribute) and not c.args and not c.keywords:
            if id(c) not in exiting:
                out.append(("E", c))
        elif name == "train" and isinstance(c.func, ast.Attribute) and (not c.args or _const(c.args[0]) is not False):
            out.append(("T", c))
        elif name == "backward" or _optimizer_step(c):
            out.append(("U", c))
        elif depth > 0:
            fn = _callee(c, functions)
            if fn is not None:
                inner = [(kind, c) for kind, _ in _mode_events(_loop_calls(fn), functions, set(), depth - 1)]
                out.extend(inner)
    return out


def _exiting_calls(loop: ast.AST) -> set[int]:
    """ids of the eval() calls that do not carry over to the loop's next update: in a branch that ends the
    loop (its last statement is break or return), or in a branch whose alternative calls train() (`if phase
    == 'train': model.train() else: model.eval()`: the mode is set per pass)."""
    out: set[int] = set()
    for node in ast.walk(loop):
        if isinstance(node, ast.If):
            for branch, other in ((node.body, node.orelse), (node.orelse, node.body)):
                if branch and isinstance(branch[-1], (ast.Break, ast.Return)) \
                        or any(_name(c) == "train" for s in other for c in _calls(s)):
                    out.update(id(c) for s in branch for c in _calls(s))
    return out


def _eval_until_next_update(parsed) -> CodeFact | None:
    """O5 (torch.nn.Module.eval / train: the mode is a flag that stays set until changed; in eval mode
    dropout is off and BatchNorm normalizes with its running statistics instead of the batch's): a training
    loop that puts the model in eval mode (to validate, directly or through a function of the code it
    calls) and reaches its next update (backward() / optimizer.step(), in this pass or the next one) with
    no train() call in between: every update after the first validation trains the model in eval mode.
    Needs the eval(), the update and the missing train() inside one loop; a function the loop calls counts
    with its own calls (one level)."""
    if not _imports(parsed, "torch") or _imports(parsed, "mxnet", "chainer", "paddle", "jax", "tensorflow"):
        return None
    if _eval_never_undone(parsed) is not None:
        return None  # (the narrower case, told in its own words)
    functions = _local_functions(parsed)
    for cell, tree, lines in parsed:
        for loop in ast.walk(tree):
            if not isinstance(loop, (ast.For, ast.While)):
                continue
            events = _mode_events(_loop_calls(loop), functions, _exiting_calls(loop))
            kinds = [k for k, _ in events]
            if "U" not in kinds or "E" not in kinds:
                continue
            for i, (kind, call) in enumerate(events):
                if kind != "E":
                    continue
                after = [k for k in kinds[i + 1:] + kinds[:i] if k != "E"]  # (this pass's rest, then the next pass)
                if after and after[0] == "U":
                    return _fact("train-eval-mode", cell, lines, call,
                                 f"{ast.unparse(call)[:60]} puts the model in eval mode inside the training loop and "
                                 "the loop's next update comes with no train() call in between: from the first "
                                 "evaluation on, the model trains in eval mode")
    return None


# Keras' cross-entropies, which take probabilities unless told from_logits=True
_PROB_LOSSES = frozenset({"binary_crossentropy", "BinaryCrossentropy", "categorical_crossentropy", "CategoricalCrossentropy",
                          "sparse_categorical_crossentropy", "SparseCategoricalCrossentropy"})


def _in_order(parsed):
    """Every call of every cell, in the order the code reads (cell, line, column)."""
    out = []
    for cell, tree, lines in parsed:
        out.extend((cell, getattr(c, "lineno", 0), getattr(c, "col_offset", 0), c, lines) for c in _calls(tree))
    return sorted(out, key=lambda t: t[:3])


def _sequentials(parsed) -> list[tuple[int, int, str, ast.expr | None]]:
    """(cell, line, name, last layer or None) for each `name = Sequential(...)`, in code order."""
    out = []
    for cell, tree, _ in parsed:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and isinstance(node.value, ast.Call) and _name(node.value) == "Sequential":
                layers = node.value.args[0] if node.value.args else None
                lastl = layers.elts[-1] if isinstance(layers, (ast.List, ast.Tuple)) and layers.elts else None
                out.append((cell, node.lineno, node.targets[0].id, lastl))
    return out


def _no_activation(layer) -> bool:
    """A Dense (or Activation) layer call that leaves its output as raw scores."""
    if not isinstance(layer, ast.Call) or _name(layer) not in ("Dense", "Activation"):
        return False
    act = _activation(layer)
    return act is None or _const(act) == "linear"


def _keras_probs_from_linear(parsed) -> CodeFact | None:
    """Keras' cross-entropies take probabilities unless told `from_logits=True` (their documented
    default); fed the raw output of a Dense layer with no activation, values at or below 0 are
    clipped to epsilon and the loss sits near -log(1e-7) / 2 per wrong example. Only a Sequential
    model whose last layer the code shows: `m = Sequential([..., Dense(1)])` or `m.add(...)` calls,
    then `m.compile(loss=...)` (a functional model's output is data flow this reader does not follow)."""
    last: dict[str, object] = {}
    events = [(cell, line, -1, (name, layer), None) for cell, line, name, layer in _sequentials(parsed)]
    for cell, _, _, call, lines in sorted(events + _in_order(parsed), key=lambda t: t[:3]):
        if lines is None:  # m = Sequential([...]): its last layer so far
            last[call[0]] = call[1]
            continue
        name = _name(call)
        target = call.func.value.id if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) else None
        if name == "add" and target in last and call.args:
            last[target] = call.args[0]
            continue
        if name != "compile" or target not in last or not _no_activation(last[target]):
            continue
        loss = _kw(call, "loss")
        if isinstance(loss, ast.Constant) and loss.value in _PROB_LOSSES:
            return _fact("probs-expected", cell, lines, call, f"loss {loss.value!r} expects probabilities and the "
                         "model's last Dense layer has no activation (raw scores are clipped to epsilon)")
        if isinstance(loss, ast.Call) and _name(loss) in _PROB_LOSSES and _const(_kw(loss, "from_logits")) is not True:
            return _fact("probs-expected", cell, lines, call, f"{_name(loss)}() expects probabilities unless "
                         "from_logits=True, and the model's last Dense layer has no activation")
    return None


def _receiver(call: ast.Call) -> str:
    """The object a method is called on, as written: `self.opt.step()` -> `self.opt`; `scaler.step(opt)` -> `opt`."""
    if not isinstance(call.func, ast.Attribute):
        return ""
    if call.func.attr == "step" and call.args and "scaler" in ast.unparse(call.func.value).lower():
        return ast.unparse(call.args[0])  # (GradScaler.step(optimizer) steps that optimizer)
    return ast.unparse(call.func.value)


def _optimizer_step(call: ast.Call) -> bool:
    """`optimizer.step()` (or `scaler.step(optimizer)`): not a scheduler's step, not LBFGS' step(closure)."""
    if _name(call) != "step" or not isinstance(call.func, ast.Attribute):
        return False
    who = ast.unparse(call.func.value).lower()
    if "sched" in who or "lr_" in who or "warmup" in who:
        return False
    return "scaler" in who or not (call.args or call.keywords)


_CLIPS = {"clip_grad_norm_", "clip_grad_value_", "clip_grad_norm", "clip_grad_value"}


def _loop_calls(loop: ast.AST) -> list[ast.Call]:
    """The calls of a loop's body in the order they read, nested functions and classes left out (their code
    runs when called, not where it stands)."""
    out: list[ast.Call] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(child, ast.Call):
                out.append(child)
            visit(child)

    visit(loop)
    return sorted(out, key=lambda c: (c.lineno, c.col_offset))


def _update_out_of_order(parsed) -> CodeFact | None:
    """O4, the update's order within one pass of a training loop (PyTorch): gradients cleared between
    backward() and the step that should use them (the step applies nothing); a gradient clip before
    backward() (it clips the previous pass's gradients, and the step uses unclipped ones); a step
    before any backward() of the pass (it applies the previous pass's gradients). Each needs the calls
    in one loop, in that order, with no other backward() between the two calls that make the pattern."""
    if not _imports(parsed, "torch"):
        return None
    for cell, tree, lines in parsed:
        for node in ast.walk(tree):
            if not isinstance(node, (ast.For, ast.While)):
                continue
            calls = _loop_calls(node)
            if not any(_name(c) == "backward" for c in calls):
                continue
            if any(isinstance(n, (ast.For, ast.While)) and n is not node and "backward" in _loop_body_calls(n)
                   for n in ast.walk(node)):
                continue  # (an outer loop: its inner loop is the pass, judged on its own)
            first_backward = next(i for i, c in enumerate(calls) if _name(c) == "backward")
            # (a step under an `if` ahead of backward() is accumulation written the other way round: every k-th
            # pass steps with what the passes before it gathered)
            guarded = {id(c) for n in ast.walk(node) if isinstance(n, ast.If) for c in _calls(n)}
            for i, c in enumerate(calls):
                name = _name(c)
                if name in _CLIPS and i < first_backward and any(_optimizer_step(s) for s in calls[first_backward:]):
                    return _fact("loop-order", cell, lines, c, f"{name}() runs before backward() in the loop: it "
                                 "clips the previous pass's gradients (or none) and the step uses unclipped ones")
                if _optimizer_step(c) and i < first_backward and id(c) not in guarded:
                    return _fact("loop-order", cell, lines, c, "step() runs before backward() in the loop: each "
                                 "step applies the previous pass's gradients")
                if name == "zero_grad" and i > first_backward:
                    who = _receiver(c)
                    for s in calls[i + 1:]:
                        if _name(s) == "backward":
                            break  # (a second loss's pass: GAN-style loops clear, backward, step per optimizer)
                        if _optimizer_step(s) and _receiver(s) == who:
                            before = [b for b in calls[:i] if _name(b) == "backward"]
                            if before:
                                return _fact("loop-order", cell, lines, c, "zero_grad() runs between backward() and "
                                             "step(): the step finds the gradients cleared and changes nothing")
    return None


_TO_TENSOR = {"tensor", "Tensor", "as_tensor", "Variable", "FloatTensor"}
_OFF_GRAPH = {"item", "detach", "numpy", "tolist"}


def _loss_rebuilt_off_graph(parsed) -> CodeFact | None:
    """O3: a tensor made with requires_grad=True from a value taken off the graph (`.item()`, `.detach()`,
    `.numpy()`, `.data`): backward() on it reaches no weight of the model, so nothing trains while the
    loss prints as usual."""
    if not _imports(parsed, "torch"):
        return None
    for cell, tree, lines in parsed:
        for call in _calls(tree):
            if _name(call) not in _TO_TENSOR or _const(_kw(call, "requires_grad")) is not True or not call.args:
                continue
            arg = call.args[0]
            for sub in ast.walk(arg):
                if (isinstance(sub, ast.Call) and _name(sub) in _OFF_GRAPH) or \
                        (isinstance(sub, ast.Attribute) and sub.attr == "data"):
                    return _fact("detached-loss", cell, lines, call, "a tensor is rebuilt with requires_grad=True "
                                 f"from a value taken off the graph ({ast.unparse(sub)[:40]}): backward() on it "
                                 "reaches no weight")
    return None


def _backward_names(parsed) -> set[str]:
    """Names that `.backward()` is called on: `loss.backward()` -> {"loss"}."""
    return {c.func.value.id for _, tree, _ in parsed for c in _calls(tree)
            if _name(c) == "backward" and not c.args and isinstance(c.func, ast.Attribute)
            and isinstance(c.func.value, ast.Name)}


def _requires_grad_forced(parsed) -> CodeFact | None:
    """O3: `loss.requires_grad = True` (or `loss.requires_grad_()`) on the tensor backward() is called on.
    Only a leaf can be given requires_grad (Tensor.requires_grad_ docs: it "changes if autograd should record
    operations on this tensor"), and a loss that is a leaf was computed outside the graph: the flag silences
    "element 0 of tensors does not require grad" and backward() then reaches no weight of the model."""
    if _imports(parsed, "mxnet", "chainer", "paddle", "jax", "tensorflow"):
        return None  # (PyTorch: named, or assumed when a posted excerpt imports nothing)
    losses = _backward_names(parsed)
    for cell, tree, lines in parsed:
        for node in ast.walk(tree):
            target = None
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute) \
                    and node.targets[0].attr == "requires_grad" and _const(node.value) is True:
                target = node.targets[0].value
            elif isinstance(node, ast.Call) and _name(node) == "requires_grad_" and isinstance(node.func, ast.Attribute) \
                    and (not node.args or _const(node.args[0]) is True):
                target = node.func.value
            if isinstance(target, ast.Name) and target.id in losses:
                return _fact("detached-loss", cell, lines, node, f"requires_grad is forced on {target.id}, the tensor "
                             "backward() is called on: it had no graph to the weights, and the flag only hides that")
    return None


_PLAIN_NUMBER = {"item", "tolist", "numpy", "float", "int"}


def _loss_of_plain_numbers(parsed) -> CodeFact | None:
    """O3: a loss built from Python numbers: every value assigned to the name backward() is called on is a
    constant, an expression of itself, or made with `.item()`/`.numpy()`/`.tolist()`/`float()` (Tensor.item
    docs: "returns the value of this tensor as a standard Python number"), and at least one uses them. Such
    a loss carries no graph to any weight."""
    if not _imports(parsed, "torch"):
        return None
    losses = _backward_names(parsed)
    values: dict[str, list[tuple[int, list[str], ast.AST, ast.expr]]] = {}
    for cell, tree, lines in parsed:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                values.setdefault(node.targets[0].id, []).append((cell, lines, node, node.value))
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name) and node.value:
                values.setdefault(node.target.id, []).append((cell, lines, node, node.value))
    for name in sorted(losses & set(values)):
        calls = [_name(c) for _, _, _, v in values[name] for c in _calls(v)]
        if calls and all(c in _PLAIN_NUMBER for c in calls) and any(c in ("item", "tolist", "numpy") for c in calls):
            cell, lines, node, _ = next(x for x in values[name] if any(_name(c) in _PLAIN_NUMBER for c in _calls(x[3])))
            return _fact("detached-loss", cell, lines, node, f"{name} is built from Python numbers (.item()): "
                         f"{name}.backward() has no graph to the weights")
    return None


def _loss_history_kept(parsed) -> CodeFact | None:
    """M-memory-leak (PyTorch FAQ, "My model reports cuda runtime error(2): out of memory": "Don't accumulate
    history across your training loop ... total_loss += loss ... accumulating history", fixed by
    `total_loss += float(loss)`): in a loop that calls `loss.backward()`, the same `loss` tensor is added
    to a running total, which then holds every pass's graph. Not when the total is the one backward()
    runs on (summing losses to backpropagate them together)."""
    if _imports(parsed, "mxnet", "chainer", "paddle", "jax", "tensorflow"):
        return None  # (PyTorch: named, or assumed when a posted excerpt imports nothing)
    losses = _backward_names(parsed)
    for cell, tree, lines in parsed:
        for loop in ast.walk(tree):
            if not isinstance(loop, (ast.For, ast.While)):
                continue
            stepped = {c.func.value.id for c in _loop_calls(loop) if _name(c) == "backward" and not c.args
                       and isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name)}
            for node in ast.walk(loop):
                if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name) \
                        and isinstance(node.value, ast.Name) and node.value.id in stepped \
                        and node.target.id not in losses:
                    return _fact("eval-graph", cell, lines, node, f"{node.target.id} += {node.value.id} keeps the "
                                 f"autograd graph of every pass (add {node.value.id}.item())")
    return None


_SCHEDULERS = {"StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LambdaLR", "MultiplicativeLR",
               "OneCycleLR", "CyclicLR", "CosineAnnealingWarmRestarts", "LinearLR", "ConstantLR", "PolynomialLR",
               "SequentialLR", "ChainedScheduler"}
# schedules whose length is an argument: {class: (its keyword, its position)}; sized from an epoch count and
# stepped every batch, they run through their length len(loader) times too early
_EPOCH_SCHEDULES = {"StepLR": ("step_size", 1), "MultiStepLR": ("milestones", 1), "CosineAnnealingLR": ("T_max", 1),
                    "CosineAnnealingWarmRestarts": ("T_0", 1), "PolynomialLR": ("total_iters", 1),
                    "LinearLR": ("total_iters", 3), "ConstantLR": ("total_iters", 2)}


def _schedulers(parsed) -> dict[str, ast.Call]:
    out = {}
    for _, tree, _ in parsed:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call) \
                    and _name(node.value) in _SCHEDULERS:
                out[ast.unparse(node.targets[0])] = node.value
    return out


def _steps_in_loop(fn_body: list[ast.stmt], functions: dict[str, ast.AST]) -> bool:
    """Statements that run an optimizer step inside a loop, themselves or through a function of the code
    they call (one level)."""
    for stmt in fn_body:
        for node in ast.walk(stmt):
            if isinstance(node, (ast.For, ast.While)) and any(_optimizer_step(c) for c in _loop_calls(node)):
                return True
            if isinstance(node, ast.Call) and _name(node) in functions:
                fn = functions[_name(node)]
                if any(isinstance(n, (ast.For, ast.While)) and any(_optimizer_step(c) for c in _loop_calls(n))
                       for n in ast.walk(fn)):
                    return True
    return False


def _scheduler_out_of_order(parsed) -> CodeFact | None:
    """O8, two documented orders (torch.optim, "How to adjust learning rate"): since PyTorch 1.1
    `scheduler.step()` goes after `optimizer.step()`; "if you use the learning rate scheduler (calling
    scheduler.step()) before the optimizer's update (calling optimizer.step()), this will skip the first
    value of the learning rate schedule". Reported when a scheduler of torch.optim.lr_scheduler is stepped
    at the head of an epoch (before the statement whose loop steps the optimizer, directly or in a function
    it calls) with no optimizer step ahead of it. And StepLR / MultiStepLR, which decay "every step_size
    epochs" / at epoch milestones, sized from an epoch count but stepped inside the batch loop next to
    optimizer.step(): the decay comes len(loader) times too early. The same for the schedules whose length
    is an argument (CosineAnnealingLR's T_max, "maximum number of iterations"; CosineAnnealingWarmRestarts'
    T_0; LinearLR / ConstantLR / PolynomialLR's total_iters) when that length is an epoch count: stepped
    every batch, a cosine sized `num_epochs` ends (and turns back up) after num_epochs batches."""
    if not _imports(parsed, "torch"):
        return None
    scheds = _schedulers(parsed)
    if not scheds:
        return None
    functions: dict[str, ast.AST] = {n.name: n for _, tree, _ in parsed for n in ast.walk(tree)
                                     if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for cell, tree, lines in parsed:
        for owner in ast.walk(tree):
            body = getattr(owner, "body", None)
            if not isinstance(owner, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.For, ast.While)) \
                    or not isinstance(body, list):
                continue
            for i, stmt in enumerate(body):
                if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and _name(stmt.value) == "step"
                        and _receiver(stmt.value) in scheds and not stmt.value.args):
                    continue
                before = [c for s in body[:i] for c in _calls(s) if _optimizer_step(c)]
                if not before and _steps_in_loop(body[i + 1:], functions):
                    return _fact("scheduler-order", cell, lines, stmt, f"{_receiver(stmt.value)}.step() runs before the "
                                 "loop that calls optimizer.step(): the schedule's first value is skipped")
        for loop in ast.walk(tree):
            if not isinstance(loop, (ast.For, ast.While)):
                continue
            calls = _loop_calls(loop)
            if any(isinstance(n, (ast.For, ast.While)) and n is not loop for n in ast.walk(loop)):
                continue  # (the innermost loop: the batch loop)
            if not any(_optimizer_step(c) for c in calls):
                continue
            for c in calls:
                who = _receiver(c)
                if _name(c) == "step" and who in scheds and _name(scheds[who]) in _EPOCH_SCHEDULES:
                    keyword, position = _EPOCH_SCHEDULES[_name(scheds[who])]
                    size = _kw(scheds[who], keyword)
                    if size is None and len(scheds[who].args) > position:
                        size = scheds[who].args[position]
                    if size is not None and "epoch" in ast.unparse(size).lower():
                        return _fact("scheduler-order", cell, lines, c, f"{who} ({_name(scheds[who])}, sized in epochs: "
                                     f"{ast.unparse(size)[:40]}) is stepped every batch")
    return None


def _sampler_epoch_never_set(parsed) -> CodeFact | None:
    """D-sampler-epoch (torch.utils.data.distributed.DistributedSampler docs: "calling the set_epoch() method
    at the beginning of each epoch before creating the DataLoader iterator is necessary to make shuffling
    work properly across multiple epochs. Otherwise, the same ordering will be always used"): a loader built
    on a DistributedSampler is iterated in an epoch loop and nothing in the code calls set_epoch."""
    if not _imports(parsed, "torch"):
        return None
    if any(isinstance(n, ast.Attribute) and n.attr == "set_epoch" for _, tree, _ in parsed for n in ast.walk(tree)):
        return None
    samplers, loaders = set(), set()
    for _, tree, _ in parsed:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call):
                target = ast.unparse(node.targets[0])
                if _name(node.value) == "DistributedSampler" and _const(_kw(node.value, "shuffle")) is not False:
                    samplers.add(target)
                elif _name(node.value) == "DataLoader":
                    sampler = _kw(node.value, "sampler")
                    if sampler is not None and (ast.unparse(sampler) in samplers or _name(sampler) == "DistributedSampler"):
                        loaders.add(target)
    if not loaders:
        return None
    for cell, tree, lines in parsed:
        for outer in ast.walk(tree):
            if not isinstance(outer, (ast.For, ast.While)):
                continue
            for inner in ast.walk(outer):
                if isinstance(inner, ast.For) and inner is not outer:
                    it = inner.iter
                    if isinstance(it, ast.Call) and _name(it) in ("enumerate", "tqdm") and it.args:
                        it = it.args[0]
                    if ast.unparse(it) in loaders:
                        return _fact("sampler-epoch", cell, lines, inner, f"{ast.unparse(it)} draws from a "
                                     "DistributedSampler and set_epoch() is never called: every epoch the same order")
    return None


_NO_GRAD = {"no_grad", "inference_mode", "set_grad_enabled", "enable_grad"}


def _eval_keeps_graph(parsed) -> CodeFact | None:
    """M-eval-memory (torch.no_grad docs: "Disabling gradient calculation is useful for inference, when you
    are sure that you will not call Tensor.backward(). It will reduce memory consumption"): a function that
    puts a model in eval mode and runs it (`model.eval()` then `model(x)`), computes a loss on the output,
    never calls backward() or an optimizer, and nowhere (itself, its decorators, its callers in the code,
    the module) turns gradients off: every forward of the evaluation keeps its graph."""
    if _imports(parsed, "mxnet", "chainer", "paddle", "jax", "tensorflow"):
        return None  # (PyTorch: named, or assumed when a posted excerpt imports nothing)
    if any(_name(c) == "set_grad_enabled" and c.args and _const(c.args[0]) is False
           for _, tree, _ in parsed for c in _calls(tree)):
        return None  # (gradients turned off for a whole block or the process)
    guarded_calls: set[str] = set()  # functions called under a no_grad `with`
    for _, tree, _ in parsed:
        for w in ast.walk(tree):
            if isinstance(w, ast.With) and any(_name(i.context_expr) in _NO_GRAD for i in w.items):
                guarded_calls |= {_name(c) for c in _calls(w)}
    for cell, tree, lines in parsed:
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef) or fn.name in guarded_calls:
                continue
            if any(_name(d) in _NO_GRAD for d in fn.decorator_list):
                continue
            calls = list(_calls(fn))
            names = {_name(c) for c in calls}
            if names & (_NO_GRAD | {"backward", "step", "zero_grad", "eval_step", "generate"}):
                continue
            evals = _method_calls(fn, "eval")
            if not evals:
                continue
            model = ast.unparse(evals[0].func.value)  # type: ignore[attr-defined]
            forwards = [c for c in calls if ast.unparse(c.func) == model]
            if not forwards:
                continue
            outs = {t.id for n in ast.walk(fn) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
                    and ast.unparse(n.value.func) == model for t in n.targets if isinstance(t, ast.Name)}
            lossy = [c for c in calls if c not in forwards and any(isinstance(a, ast.Name) and a.id in outs for a in c.args)
                     and ("loss" in _name(c).lower() or "criterion" in _name(c).lower())]
            if lossy:
                return _fact("eval-graph", cell, lines, forwards[0], f"{fn.name}() evaluates {model} in eval mode "
                             "without torch.no_grad(): each forward keeps its autograd graph")
    return None


_WITH_LOGITS = {"BCEWithLogitsLoss", "binary_cross_entropy_with_logits"}


def _is_sigmoid(node) -> bool:
    return isinstance(node, ast.Call) and (_name(node) in ("sigmoid", "Sigmoid")
                                           or (isinstance(node.func, ast.Call) and _name(node.func) == "Sigmoid"))


def _sigmoid_into_bce_with_logits(parsed) -> CodeFact | None:
    """O13 (torch.nn.BCEWithLogitsLoss docs: "This loss combines a Sigmoid layer and the BCELoss in one
    single class"): probabilities handed to it are squashed twice, the loss is bounded away from 0 and the
    gradients shrink. Reported when an argument of the loss call is a sigmoid (directly or through one
    name), or, inside a module class, the output of one of its layers that ends in nn.Sigmoid
    (`self.head = nn.Sequential(..., nn.Sigmoid())`, `p = self.head(x)`, `self.bce(p, y)` with
    `self.bce = nn.BCEWithLogitsLoss()`)."""
    criteria = set()
    for _, tree, _ in parsed:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call) \
                    and _name(_unshaped(node.value)) in _WITH_LOGITS:
                criteria.add(ast.unparse(node.targets[0]))
    if not criteria and not any(_name(c) in _WITH_LOGITS for _, tree, _ in parsed for c in _calls(tree)):
        return None
    for cell, tree, lines in parsed:
        scopes = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))] + [tree]
        classes = {id(fn): cls for cls in ast.walk(tree) if isinstance(cls, ast.ClassDef) for fn in cls.body}
        for scope in scopes:
            assigned = _assigned([scope])
            cls = classes.get(id(scope))
            layers = {}
            if cls is not None:
                for n in ast.walk(cls):
                    if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call):
                        for t in n.targets:
                            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                                layers[t.attr] = n.value
            for call in _calls(scope):
                if not (_name(call) in _WITH_LOGITS or ast.unparse(call.func) in criteria) or not call.args:
                    continue
                if isinstance(call.func, ast.Name) and call.func.id not in criteria and _name(call) not in _WITH_LOGITS:
                    continue
                arg = _unshaped(call.args[0])
                value = assigned.get(arg.id, arg) if isinstance(arg, ast.Name) else arg
                value = _unshaped(value) if isinstance(value, ast.expr) else value
                if _is_sigmoid(value):
                    return _fact("sigmoid-bce", cell, lines, call, "a sigmoid feeds BCEWithLogitsLoss, which applies "
                                 "its own: the outputs are squashed twice")
                if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
                        isinstance(value.func.value, ast.Name) and value.func.value.id == "self":
                    layer = layers.get(value.func.attr)
                    if layer is not None and (_is_sigmoid(layer) or (_name(layer) == "Sequential" and layer.args
                                                                     and _is_sigmoid(layer.args[-1]))):
                        return _fact("sigmoid-bce", cell, lines, call, f"self.{value.func.attr} ends in a Sigmoid and "
                                     "its output goes to BCEWithLogitsLoss, which applies its own")
    return None


def _accumulation_unscaled(parsed) -> CodeFact | None:
    """O9 (Tensor.backward docs: it "accumulates gradients in the leaves"): with gradient accumulation the
    optimizer steps once every k passes (`if ... accum ...: optimizer.step()`), so each pass's loss must be
    divided by k, or the step applies k times the mean gradient. Reported when backward() runs on a loss
    every pass, the step sits under a test that names an accumulation count, and nothing in the loop
    divides that loss by a value whose name speaks of accumulation."""
    if _imports(parsed, "mxnet", "chainer", "paddle", "jax", "tensorflow"):
        return None
    for cell, tree, lines in parsed:
        for loop in ast.walk(tree):
            if not isinstance(loop, (ast.For, ast.While)):
                continue
            gated = [n for n in ast.walk(loop) if isinstance(n, ast.If) and "accum" in ast.unparse(n.test).lower()
                     and any(_optimizer_step(c) for c in _calls(n))]
            if not gated:
                continue
            inside_if = {id(c) for n in ast.walk(loop) if isinstance(n, ast.If) for c in _calls(n)}
            backs = [c for c in _loop_calls(loop) if _name(c) == "backward" and id(c) not in inside_if and not c.args
                     and isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name)]
            for b in backs:
                loss = b.func.value.id  # type: ignore[attr-defined]
                scaled = any(isinstance(n, (ast.Assign, ast.AugAssign)) and
                             loss in {ast.unparse(t) for t in (n.targets if isinstance(n, ast.Assign) else [n.target])}
                             and any(isinstance(d, ast.BinOp) and isinstance(d.op, ast.Div) and
                                     "accum" in ast.unparse(d.right).lower() for d in ast.walk(n))
                             or isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Div)
                             and ast.unparse(n.target) == loss
                             for n in ast.walk(tree))
                if not scaled:
                    return _fact("accum-unscaled", cell, lines, b, f"{loss}.backward() runs every pass and the optimizer "
                                 f"steps every few (accumulation), but {loss} is never divided by the accumulation count")
    return None


def _evaluation_in_train_mode(parsed) -> CodeFact | None:
    """O5, the reverse case (torch.nn.Module.train / BatchNorm docs: in training mode BatchNorm normalizes
    with the batch's statistics and updates its running ones, and dropout is active): a function that puts
    the model in train mode and runs it under torch.no_grad() (evaluation: no backward, no optimizer step)
    scores a model whose outputs depend on the batch and drift its statistics on test data."""
    if _imports(parsed, "mxnet", "chainer", "paddle", "jax", "tensorflow"):
        return None
    for cell, tree, lines in parsed:
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            calls = list(_calls(fn))
            names = {_name(c) for c in calls}
            if names & {"backward", "step", "zero_grad", "eval", "grad"} or not names & {"no_grad", "inference_mode"}:
                continue
            trains = [c for c in calls if _name(c) == "train" and isinstance(c.func, ast.Attribute)
                      and (not c.args or _const(c.args[0]) is True) and not c.keywords]
            for t in trains:
                model = ast.unparse(t.func.value)  # type: ignore[attr-defined]
                if any(ast.unparse(c.func) == model for c in calls):
                    return _fact("train-eval-mode", cell, lines, t, f"{fn.name}() runs {model} under no_grad in train "
                                 "mode: BatchNorm uses batch statistics (and updates them) and dropout stays on")
    return None


_FUNCTIONAL_DROPOUTS = {"dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"}
_MODE_LAYERS = {"Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
                "BatchNorm1d", "BatchNorm2d", "BatchNorm3d"}


def _dropout_forced_on(parsed) -> CodeFact | None:
    """O5: dropout that model.eval() cannot turn off, so every evaluation drops units at random and scores a
    thinned model. Functional dropout told `training=True` (a literal); functional dropout in a module's
    method with no `training` argument at all (torch.nn.functional.dropout(input, p=0.5, training=True):
    the default is on, whatever the module's mode); a Dropout / BatchNorm layer built and applied in one
    expression inside a module's method (`nn.Dropout(0.5)(x)`: a layer made there is not registered in the
    model, so model.eval() never reaches it, and a new module starts in training mode)."""
    methods = {id(n) for _, tree, _ in parsed for cls in ast.walk(tree) if isinstance(cls, ast.ClassDef) and _is_module(cls)
               for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in ast.walk(f)}
    for cell, tree, lines in parsed:
        for call in _calls(tree):
            if _name(call) in _FUNCTIONAL_DROPOUTS:
                training = _kw(call, "training")
                if training is None and len(call.args) >= 3:
                    training = call.args[2]
                if _const(training) is True:
                    return _fact("train-eval-mode", cell, lines, call, "functional dropout with training=True stays on "
                                 "when the model is in eval mode (pass training=self.training)")
                owner = ast.unparse(call.func.value) if isinstance(call.func, ast.Attribute) else ""
                if training is None and id(call) in methods and owner.split(".")[-1] in ("F", "functional"):
                    return _fact("train-eval-mode", cell, lines, call, "functional dropout without training= is on "
                                 "by default, also after model.eval() (pass training=self.training)")
            elif isinstance(call.func, ast.Call) and _name(call.func) in _MODE_LAYERS and id(call) in methods:
                return _fact("train-eval-mode", cell, lines, call, f"{_name(call.func)} is built and applied inside "
                             "the module's method: it is not a registered layer, so model.eval() never reaches it and "
                             "it always runs in training mode")
    return None


# calls that return the same module (its parameters are the same tensors): no new model
_SAME_MODULE = {"to", "cuda", "cpu", "float", "half", "bfloat16", "double", "train", "eval", "compile",
                "DataParallel", "DistributedDataParallel", "DDP", "FullyShardedDataParallel", "FSDP", "prepare",
                "requires_grad_", "load_state_dict", "apply", "share_memory"}


def _params_of(call: ast.Call) -> str | None:
    """`Adam(model.parameters(), ...)` -> `model` (also `model.fc.parameters()` -> `model`)."""
    sources = _parameter_sources(call)
    if not sources:
        return None
    root = sources[0]
    while isinstance(root, ast.Attribute):
        root = root.value
    return root.id if isinstance(root, ast.Name) else None


def _scope_nodes(root: ast.AST):
    """The nodes of one scope: `root`'s, not those of the functions and classes defined in it."""
    for child in ast.iter_child_nodes(root):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        yield child
        yield from _scope_nodes(child)


def _scopes(parsed):
    """[(cell, lines, nodes)...] per scope: the module level of every cell together (a notebook's cells share
    one namespace), then each function on its own."""
    module = []
    functions = []
    for cell, tree, lines in parsed:
        module.extend((cell, lines, n) for n in _scope_nodes(tree))
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.append([(cell, lines, n) for n in _scope_nodes(fn)])
    return [module] + functions


def _optimizer_on_old_model(parsed) -> CodeFact | None:
    """O2: an optimizer built over a model's parameters, then the model built anew (`model = Net()`) in the
    same scope and trained on with that optimizer (its step(), or the optimizer handed to a call), with no
    optimizer built over the new model: the steps move tensors the model no longer uses, so it never learns."""
    if not _imports(parsed, "torch"):
        return None
    for scope in _scopes(parsed):
        events: list[tuple] = []  # (cell, line, col, kind, owner, node, lines, optimizer's name)
        for cell, lines, node in scope:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call):
                target, value = node.targets[0], node.value
                owner = _params_of(value)
                if owner is not None and isinstance(target, (ast.Name, ast.Attribute)):
                    events.append((cell, node.lineno, node.col_offset, "optimizer", owner, node, lines,
                                   ast.unparse(target)))
                elif isinstance(target, ast.Name) and _name(value) not in _SAME_MODULE \
                        and _name(value)[:1].isupper() and _name(value) not in _OPTIMIZERS:
                    events.append((cell, node.lineno, node.col_offset, "model", target.id, node, lines, ""))
            elif isinstance(node, ast.Call):
                events.append((cell, node.lineno, node.col_offset, "call", "", node, lines, ""))
        events.sort(key=lambda e: e[:3])
        for i, event in enumerate(events):
            if event[3] != "optimizer":
                continue
            owner, opt = event[4], event[7]
            for j in range(i + 1, len(events)):
                e = events[j]
                if e[3] == "optimizer" and (e[4] == owner or e[7] == opt):
                    break  # (an optimizer built again: over the new model, or this name rebound)
                if e[3] != "model" or e[4] != owner:
                    continue
                rest = events[j + 1:]
                stop = next((k for k, r in enumerate(rest) if r[3] == "optimizer" and (r[4] == owner or r[7] == opt)),
                            len(rest))
                used = any(r[3] == "call" and ((_name(r[5]) == "step" and _receiver(r[5]) == opt)
                                               or any(ast.unparse(a) == opt for a in r[5].args)
                                               or any(ast.unparse(k.value) == opt for k in r[5].keywords))
                           for r in rest[:stop])
                if used:
                    return _fact("optimizer-params", e[0], e[6], e[5], f"{opt} was built over "
                                 f"{owner}.parameters() before {owner} was built again here, and trains on: its "
                                 "steps move the old model's tensors")
                break
    return None


_RULES = (_softmax_into_ce, _nll_on_logits, _missing_zero_grad, _keras_metric_mismatch, _eval_never_undone,
          _keras_probs_from_linear, _update_out_of_order, _loss_rebuilt_off_graph, _dropout_forced_on,
          _optimizer_on_old_model, _optimizer_never_cleared, _requires_grad_forced, _loss_of_plain_numbers,
          _loss_history_kept, _scheduler_out_of_order, _sampler_epoch_never_set, _eval_keeps_graph,
          _sigmoid_into_bce_with_logits, _accumulation_unscaled, _evaluation_in_train_mode, _eval_until_next_update,
          _branch_never_cleared, _optimizer_never_steps)


def facts(cells: list[str], names: list[str] | None = None) -> tuple[list[CodeFact], int]:
    """The findings in a notebook's code cells (in cell order), or in scripts named by `names`, and how
    many cells did not parse."""
    total, kept = 0, []
    for src in cells:
        total += len(src)
        if total > MAX_SOURCE:
            break
        kept.append(src)
    parsed, skipped = _parse_cells(kept)
    skipped += len(cells) - len(kept)
    out = []
    for rule in _RULES:
        try:
            fact = rule(parsed)
        except RecursionError:
            continue
        if fact is not None:
            if names and 0 < fact.cell <= len(names):
                fact = CodeFact(fact.answer, fact.cell, fact.line, fact.text, fact.why, names[fact.cell - 1])
            out.append(fact)
    return out, skipped


MAX_SCRIPTS = 8
MAX_SCRIPT_BYTES = 1_000_000


def attach_scripts(run, path) -> None:
    """Read the Python scripts that sit beside a log (`train.py` in the run's folder) the way a notebook's
    cells are read: parsed, never run. Findings go to `run.meta["code_facts"]` with the file they are in.
    A folder with more than MAX_SCRIPTS scripts is a code base, not a run's folder: left unread, with a
    warning; so is a script larger than MAX_SCRIPT_BYTES."""
    from pathlib import Path

    if str(path) == "-" or run.meta.get("code_facts"):
        return
    base = Path(path)
    folder = base if base.is_dir() else base.parent
    try:
        scripts = sorted(p for p in folder.glob("*.py") if p.is_file())
    except OSError:
        return
    if not scripts:
        return
    if len(scripts) > MAX_SCRIPTS:
        run.warn(f"{len(scripts)} Python files beside the log were not checked for bugs (more than {MAX_SCRIPTS}: "
                 "a code base rather than a run's script)")
        return
    sources, names = [], []
    for script in scripts:
        try:
            if script.stat().st_size > MAX_SCRIPT_BYTES:
                run.warn(f"{script.name} was not checked for bugs (larger than {MAX_SCRIPT_BYTES // 1_000_000} MB)")
                continue
            sources.append(script.read_text(encoding="utf-8", errors="replace"))
            names.append(script.name)
        except OSError:
            continue
    found, unparsed = facts(sources, names)
    # (a script given as the input itself is read with the scripts beside it: its model and data modules)
    where = "" if base.suffix == ".py" and base.is_file() else " beside the log"
    run.meta["scripts_read"] = names
    if found:
        run.meta["code_facts"] = [f.to_dict() for f in found]
        run.warn(f"checked the script{'s' if len(names) != 1 else ''}{where} for bugs (parsed, never run): "
                 + ", ".join(names))
    if unparsed:
        run.warn(f"{unparsed} script{'s' if unparsed != 1 else ''}{where} could not be parsed as Python 3")
