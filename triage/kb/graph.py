"""`DecisionGraph`: the knowledge base as a directed graph (networkx), built from data only.

Edges, each with a `rel` attribute:
  asks        question -> follow-up question   (the follow-up's `when` gate; `answers` on the edge)
  next        question -> node                 (an answer's `next` list)
  indicates   question -> cause                (the cause's `signs`)
  favours     question -> cause                (an answer's `favours` list)
  rules-out   question -> cause                (an answer's `rules_out` list)
  link        cause -> node                    (cross-links)
  next-if-not cause -> node                    (what to try when this cause was not it)
  answers     detector|probe -> question       (automatic evidence)
"""

from __future__ import annotations

import json

import networkx as nx

from triage.kb.base import ANY, KnowledgeBase, _as_list
from triage.kb.schema import START, normalise_answer

QUESTION_RELS = {"asks", "next"}
REACH_RELS = {"asks", "next", "indicates", "favours"}


class DecisionGraph:
    def __init__(self, kb: KnowledgeBase):
        self.kb = kb
        self.g = nx.MultiDiGraph()
        self._build()

    # -- construction ----------------------------------------------------------------------
    def _build(self) -> None:
        kb, g = self.kb, self.g
        for node in kb.nodes.values():
            g.add_node(node.id, kind=node.kind, title=node.title)
        valid = {sym.id: set(kb.answer_values(sym)) | {ANY} for sym in kb.symptoms}
        for sym in kb.symptoms:
            for parent, values in kb.gates(sym).items():
                ok = values & valid.get(parent, set())
                if ok:
                    g.add_edge(parent, sym.id, rel="asks", answers=sorted(ok))
            for answer in _as_list(sym.get("answers")):
                if not isinstance(answer, dict):
                    continue
                value = normalise_answer(answer.get("value", ""))
                for rel, key in (("next", "next"), ("favours", "favours"), ("rules-out", "rules_out")):
                    for target in _as_list(answer.get(key)):
                        if str(target) in kb.nodes:
                            g.add_edge(sym.id, str(target), rel=rel, answers=[value])
        for cause in kb.causes:
            for qid, values in kb.signs(cause).items():
                ok = values & valid.get(qid, set())
                if ok:
                    g.add_edge(qid, cause.id, rel="indicates", answers=sorted(ok))
            for target in _as_list(cause.get("links")):
                if str(target) in kb.nodes:
                    g.add_edge(cause.id, str(target), rel="link")
            nxt = cause.get("next_if_not")
            if isinstance(nxt, str) and nxt in kb.nodes:
                g.add_edge(cause.id, nxt, rel="next-if-not")
        for det in kb.by_kind("detector"):
            ans = det.get("answers") or {}
            if isinstance(ans, dict) and str(ans.get("symptom")) in kb.nodes:
                g.add_edge(det.id, str(ans["symptom"]), rel="answers", answers=[normalise_answer(ans.get("answer", ""))])
        for probe in kb.by_kind("probe"):
            for qid in _as_list(probe.get("answers")):
                if str(qid) in kb.nodes:
                    g.add_edge(probe.id, str(qid), rel="answers")

    # -- views ---------------------------------------------------------------------------
    def _view(self, rels: set[str]) -> nx.DiGraph:
        view = nx.DiGraph()
        view.add_nodes_from(self.g.nodes(data=True))
        for u, v, data in self.g.edges(data=True):
            if data.get("rel") in rels:
                view.add_edge(u, v)
        return view

    def question_graph(self) -> nx.DiGraph:
        """Questions and the follow-ups they lead to (must be acyclic)."""
        view = self._view(QUESTION_RELS)
        keep = [n for n, k in view.nodes(data="kind") if k == "symptom"]
        return view.subgraph(keep).copy()

    def question_cycles(self) -> list[list[str]]:
        qg = self.question_graph()
        return [c for c in nx.simple_cycles(qg)][:20]

    def reachable(self) -> set[str]:
        view = self._view(REACH_RELS)
        if START not in view:
            return set()
        return {START} | nx.descendants(view, START)

    def unreachable_causes(self) -> list[str]:
        seen = self.reachable()
        return sorted(c.id for c in self.kb.causes if c.id not in seen)

    def dead_end_questions(self) -> list[str]:
        """Questions none of whose answers lead anywhere (no follow-up, no cause)."""
        out = []
        for sym in self.kb.symptoms:
            rels = {d.get("rel") for _, _, d in self.g.out_edges(sym.id, data=True)}
            if not rels & REACH_RELS:
                out.append(sym.id)
        return sorted(out)

    # -- export --------------------------------------------------------------------------
    def to_json(self) -> dict:
        nodes = [
            {"id": n, "kind": d.get("kind"), "title": d.get("title")}
            for n, d in sorted(self.g.nodes(data=True))
        ]
        edges = [
            {"from": u, "to": v, "rel": d.get("rel"), **({"answers": d["answers"]} if d.get("answers") else {})}
            for u, v, d in sorted(self.g.edges(data=True), key=lambda e: (e[0], e[1], e[2].get("rel", "")))
        ]
        return {"nodes": nodes, "edges": edges}

    def to_dot(self) -> str:
        shapes = {"symptom": "diamond", "cause": "box", "detector": "ellipse", "probe": "component"}
        lines = ["digraph triage {", "  rankdir=LR;", '  node [fontname="Helvetica", fontsize=10];']
        for n, d in sorted(self.g.nodes(data=True)):
            label = f"{n}\\n{_short(d.get('title') or '', 40)}".replace('"', "'")
            lines.append(f'  "{n}" [shape={shapes.get(d.get("kind"), "plaintext")}, label="{label}"];')
        for u, v, d in sorted(self.g.edges(data=True), key=lambda e: (e[0], e[1])):
            label = ",".join(d.get("answers") or []) or ("" if d.get("rel") in ("asks", "indicates") else d.get("rel", ""))
            style = ', style=dashed' if d.get("rel") in ("link", "next-if-not", "rules-out") else ""
            lines.append(f'  "{u}" -> "{v}" [label="{_short(label, 30)}"{style}];')
        lines.append("}")
        return "\n".join(lines) + "\n"

    def to_mermaid(self) -> str:
        def mid(node_id: str) -> str:
            return "n_" + "".join(ch if ch.isalnum() else "_" for ch in node_id)

        lines = ["flowchart LR"]
        for n, d in sorted(self.g.nodes(data=True)):
            title = _short(d.get("title") or "", 40).replace('"', "'")
            if d.get("kind") == "symptom":
                lines.append(f'  {mid(n)}{{"{n}: {title}"}}')
            elif d.get("kind") == "cause":
                lines.append(f'  {mid(n)}["{n}: {title}"]')
            else:
                lines.append(f'  {mid(n)}(["{n}"])')
        for u, v, d in sorted(self.g.edges(data=True), key=lambda e: (e[0], e[1])):
            label = _short(",".join(d.get("answers") or []), 30).replace('"', "'")
            arrow = "-.->" if d.get("rel") in ("link", "next-if-not", "rules-out") else "-->"
            lines.append(f"  {mid(u)} {arrow}{'|' + label + '|' if label else ''} {mid(v)}")
        return "\n".join(lines) + "\n"

    def dumps(self, fmt: str) -> str:
        if fmt == "json":
            return json.dumps(self.to_json(), indent=1) + "\n"
        if fmt == "dot":
            return self.to_dot()
        if fmt == "mermaid":
            return self.to_mermaid()
        raise ValueError(f"unknown graph format {fmt!r} (use mermaid, dot or json)")


def _short(text: str, n: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"
