"""The shape of every node kind: required fields, types and allowed values.

`triage kb check` reports every deviation with the file and line; the rest of the code can
then rely on these fields being present and well-typed.
"""

from __future__ import annotations

import re

START = "Q-start"
DOMAIN_QUESTION = "Q-domain"

FAMILIES = {
    "llm", "vision", "diffusion", "rl", "vlm", "convergence", "stability", "playbook",
    "memory", "distributed", "checkpoint", "data", "precision", "ops",
}
DOMAINS = {
    "any", "llm", "dpo", "rlhf", "vision-cls", "detection", "segmentation", "diffusion",
    "rl", "vlm", "distillation", "gan", "other",
}
PRIORS = {"common": 3.0, "uncommon": 1.0, "rare": 0.35}

SEED_ID = re.compile(r"^(L([1-9]|10)|V[1-7]|DF[1-7]|R[1-6]|X[1-5]|O([1-9]|1[0-9]|2[0-6]))$")
FAMILY_ID = re.compile(r"^(S|PB|M|D|C|DP)-[a-z0-9]+(-[a-z0-9]+)*$")
# A user's own knowledge folder (`--kb DIR`) may name its causes with its own upper-case prefix
# (MY-lora-targets, ACME-shard-skew); Q- stays the questions' prefix.
USER_CAUSE_ID = re.compile(r"^(?!Q-)[A-Z][A-Z0-9]*-[a-z0-9]+(-[a-z0-9]+)*$")
SYMPTOM_ID = re.compile(r"^Q-[a-z0-9]+(-[a-z0-9]+)*$")
DETECTOR_ID = re.compile(r"^det-[a-z0-9]+(-[a-z0-9]+)*$")
PLAIN_NAME = re.compile(r"^[a-z0-9]+([_-][a-z0-9]+)*$")
ANSWER_VALUE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

# The IDs every build of the knowledge base must contain (tests/kb/test_knowledge.py holds it to them).
REQUIRED_IDS = (
    [f"L{i}" for i in range(1, 11)]
    + [f"V{i}" for i in range(1, 8)]
    + [f"DF{i}" for i in range(1, 8)]
    + [f"R{i}" for i in range(1, 7)]
    + [f"X{i}" for i in range(1, 6)]
    + [f"O{i}" for i in range(1, 27)]
    + [
        "S-plateau", "S-spike", "S-overfit", "S-nan", "S-gradnorm-unstable", "S-oom", "S-ram",
        "S-nccl", "S-ddp-hang", "S-deepspeed-single-gpu", "S-checkpoint-reentrant",
        "S-grpo-reward-zero", "S-entropy-collapse", "S-is-ratio", "S-completions-clipped",
        "S-length-hacking",
        "PB-modal-collapse", "PB-output-scale", "PB-two-stage-distillation",
        "PB-post-warmup-plateau", "PB-leaky-split", "PB-interpolated-inputs",
        "PB-pretrained-assumptions", "PB-tokenizer-mismatch", "PB-slow-storage",
        "PB-shared-gpu", "PB-loss-metric-mismatch", "PB-fresh-optimizer-finetune",
    ]
)

# field -> (type, required); "str" means a non-empty string
CAUSE_FIELDS: dict[str, tuple[str, bool]] = {
    "id": ("str", True),
    "kind": ("str", True),
    "title": ("str", True),
    "family": ("str", True),
    "domains": ("list[str]", True),
    "prior": ("str", True),
    "symptoms": ("list[str]", True),
    "why": ("str", True),
    "fix": ("list[dict]", True),
    "verify": ("str", True),
    "next_if_not": ("str", False),
    "links": ("list[str]", False),
    "probes": ("list[str]", False),
    "errors": ("list[str]", False),
    "signs": ("dict", True),
    "aliases": ("list[str]", False),
    "precedent": ("list[dict]", False),
    "sources": ("list[dict]", False),
    # applicability (knowledge/frameworks.yaml): the stacks or framework ids the cause can happen in, and
    # the answers it needs (a cause of "no clipping" needs clipping off); a run that contradicts either
    # does not rank the cause
    "frameworks": ("list[str]", False),
    "requires": ("dict", False),
}
# fields of one `fix` entry; `setting` names a setting of knowledge/frameworks.yaml whose knob, in the
# run's own framework, replaces this knob in a report; `frameworks` limits a fix to those stacks or
# framework ids (a Keras-only knob is not shown for a PyTorch run, and comes first for a Keras one)
CAUSE_FIX_FIELDS = {"knob", "range", "expect", "setting", "frameworks"}
SYMPTOM_FIELDS: dict[str, tuple[str, bool]] = {
    "id": ("str", True),
    "kind": ("str", True),
    "question": ("str", True),
    "help": ("str", True),
    "when": ("dict", False),
    "default": ("str", False),
    "answers": ("list[dict]", True),
    "config": ("list[dict]", False),
}
# `config` rules on a question: answer it from the run's config (see knowledge/README.md)
CONFIG_OPS = {">", ">=", "<", "<=", "==", "in", "true", "false", "null"}
CONFIG_RULE_FIELDS = {"keys", "op", "value", "answer"}
DETECTOR_FIELDS: dict[str, tuple[str, bool]] = {
    "id": ("str", True),
    "kind": ("str", True),
    "title": ("str", True),
    "answers": ("dict", True),
    "metric": ("list[str]", True),
    "check": ("str", True),
    "params": ("dict", False),
    "summary": ("str", False),
    "category": ("str", False),
    "supersedes": ("list[str]", False),
    # ... only where the other finding is about the same series (a finding on another metric is another fact)
    "supersedes_same_metric": ("list[str]", False),
    # gates on the other metrics a run logs (all of / one of / none of these)
    "requires": ("list[str]", False),
    "requires_any": ("list[str]", False),
    "unless": ("list[str]", False),
    # judged only on the logs of these frameworks (ids from frameworks.yaml): a range that holds for
    # one default optimizer and not another
    "frameworks": ("list[str]", False),
    # not judged on the logs of these frameworks: what they print breaks the check's premise (a loss
    # printed as a windowed median repeats exact values by construction)
    "except_frameworks": ("list[str]", False),
    # where a published range or a bug's arithmetic comes from: [{title, url}]
    "sources": ("list[dict]", False),
    # false: the detector staying quiet says nothing about its question (`ask --log` does not answer
    # the question's healthy default from its silence); a check that can only confirm, never rule out
    "quiet_answers": ("bool", False),
}
PROBE_FIELDS: dict[str, tuple[str, bool]] = {
    "id": ("str", True),
    "kind": ("str", True),
    "title": ("str", True),
    "checks": ("str", True),
    "needs": ("list[str]", False),
    "answers": ("list[str]", True),
}
CHECKLIST_FIELDS: dict[str, tuple[str, bool]] = {
    "id": ("str", True),
    "kind": ("str", True),
    "title": ("str", True),
    "description": ("str", False),
    "domains": ("list[str]", False),
    "sections": ("list[dict]", True),
}
# inside a checklist: sections hold items; every value here is a string except `items`/`links`
CHECKLIST_SECTION_FIELDS = {"title", "note", "items"}
CHECKLIST_ITEM_FIELDS = {"text", "links", "why", "check", "range"}  # why: reason, check: how to verify, range: healthy range
FIX_FIELDS: dict[str, tuple[str, bool]] = {
    "id": ("str", True),
    "kind": ("str", True),
    "title": ("str", True),
    "knob": ("str", True),
    "range": ("str", True),
    "expect": ("str", True),
}
DEPRECATED_FIELDS: dict[str, tuple[str, bool]] = {
    "id": ("str", True),
    "kind": ("str", True),
    "replaced_by": ("str", True),
}

# knowledge/frameworks.yaml: field -> required
FRAMEWORK_FIELDS = {"id": True, "title": True, "covers": True, "stack": True, "recognise": True,
                    "settings": True, "domain": False, "rules_out_domains": False}
FRAMEWORK_RULE_FIELDS = {"formats", "dialects", "keys_all", "keys_any", "keys_none", "key_prefixes", "events",
                         "twin_prefix", "writers", "because"}
FRAMEWORK_SETTING_FIELDS = {"keys": True, "default": True, "says": True, "source": True, "answers": False,
                            "knob": False, "range": False}
DOMAIN_RULE_FIELDS = {"config", "checks", "metrics", "excludes", "because"}

FIELDS_BY_KIND = {
    "cause": CAUSE_FIELDS,
    "symptom": SYMPTOM_FIELDS,
    "detector": DETECTOR_FIELDS,
    "probe": PROBE_FIELDS,
    "checklist": CHECKLIST_FIELDS,
    "fix": FIX_FIELDS,
    "deprecated": DEPRECATED_FIELDS,
}



def normalise_answer(value: object) -> str:
    """YAML reads bare yes/no/on/off as booleans; answers are always strings."""
    if value is True:
        return "yes"
    if value is False:
        return "no"
    return str(value).strip()
