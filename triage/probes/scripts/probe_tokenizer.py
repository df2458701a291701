#!/usr/bin/env python3
"""Tokenizer checks (for a transformers tokenizer, or any object with pad_token / pad_token_id /
padding_side): is a pad token set, does it fit the model's embedding table and config, which side
pads for this phase (setup['phase']: 'train' | 'sft' | 'generate' | 'dpo'; decoder-only models want
right padding to train and left padding to generate / for DPO), and in the batch (inputs with
input_ids / attention_mask, targets = labels) what share of labels is masked with -100, whether
padding positions are masked and, for SFT, whether the prompt is.

Answers Q-llm-pad-token (set | unset | zero | new-token), Q-llm-padding-side (per-phase |
right-for-generation | left-for-training), Q-llm-labels-masked (both | prompt-scored | pad-scored |
none) and Q-error-kind (pad-token | device-assert).
Usage: python probe_tokenizer.py --setup my_setup.py:make_setup [--out result.json]
"""
NAME, VERSION = "tokenizer", "1"
NEEDS = ("tokenizer",)
OPTIONAL = ('batch', 'model', 'phase', 'causal_lm')

# ---- common block: pasted here from triage/probes/common_block.py by `triage probe export`.
# ---- end of common block


def _embedding_rows(model):
    try:
        emb = model.get_input_embeddings()
        return emb.num_embeddings if emb is not None else None
    except Exception:  # noqa: BLE001 - not a transformers model
        return None


def _pad_side(mask):
    """'left', 'right' or None from an attention mask [B, T]."""
    if not torch.is_tensor(mask) or mask.dim() != 2 or bool(mask.all()):
        return None
    if bool((mask[:, 0] == 0).any()) and not bool((mask[:, -1] == 0).any()):
        return "left"
    if bool((mask[:, -1] == 0).any()):
        return "right"
    return None


def body(ctx):
    tok, model, setup = ctx.setup["tokenizer"], ctx.model, ctx.setup
    phase = str(setup.get("phase", "train")).lower()
    generating = phase in ("generate", "generation", "dpo", "eval-generate", "inference")
    pad, pad_id = getattr(tok, "pad_token", None), getattr(tok, "pad_token_id", None)
    vocab = len(tok) if hasattr(tok, "__len__") else None
    rows = _embedding_rows(model) if model is not None else None
    cfg_pad = getattr(getattr(model, "config", None), "pad_token_id", None)
    ctx.meas.update(pad_token=pad, pad_token_id=pad_id, eos_token=getattr(tok, "eos_token", None), tokenizer_len=vocab,
                    embedding_rows=rows, config_pad_token_id=cfg_pad, phase=phase,
                    padding_side=getattr(tok, "padding_side", None), tokenizer=type(tok).__name__)
    answers, problems = {}, []
    inputs = ctx.inputs if isinstance(ctx.inputs, dict) or hasattr(ctx.inputs, "keys") else {"input_ids": ctx.inputs}
    ids, mask = inputs.get("input_ids"), inputs.get("attention_mask")
    if pad is None or pad_id is None:
        answers.update({"Q-llm-pad-token": "unset", "Q-error-kind": "pad-token"})
        problems.append("the tokenizer has no pad token: batching with padding=True fails ('Asking to pad but the "
                        "tokenizer does not have a padding token'); set tokenizer.pad_token (e.g. a dedicated token, "
                        "or eos with the labels of padding masked)")
    elif rows is not None and vocab is not None and vocab > rows:
        answers.update({"Q-llm-pad-token": "new-token", "Q-error-kind": "device-assert"})
        problems.append(f"the tokenizer has {vocab} tokens but the model's embedding has {rows} rows: "
                        "call model.resize_token_embeddings(len(tokenizer)) after adding the pad token")
    else:
        padded_with = None
        if torch.is_tensor(ids) and torch.is_tensor(mask) and ids.shape == mask.shape and bool((mask == 0).any()):
            padded_with = sorted(set(ids[mask == 0].tolist()))
            ctx.meas["ids_at_padding"] = padded_with[:10]
        special = set(getattr(tok, "all_special_ids", []) or [])
        if padded_with and padded_with != [pad_id] and 0 in padded_with and 0 not in special:
            answers["Q-llm-pad-token"] = "zero"
            problems.append("padding positions hold id 0, which is a real token, not the pad token")
        else:
            answers["Q-llm-pad-token"] = "set"
        if cfg_pad is not None and cfg_pad != pad_id:
            ctx.meas["note"] = f"model.config.pad_token_id={cfg_pad} differs from tokenizer.pad_token_id={pad_id}"
    side = _pad_side(mask) or getattr(tok, "padding_side", None)
    ctx.meas["observed_padding_side"] = side
    causal = setup.get("causal_lm", True if model is None else
                       not getattr(getattr(model, "config", None), "is_encoder_decoder", False)
                       and any(k in type(model).__name__ for k in ("CausalLM", "LMHead", "GPT", "Llama", "Causal")))
    if causal and side in ("left", "right"):
        if generating and side == "right":
            answers["Q-llm-padding-side"] = "right-for-generation"
            problems.append(f"right padding in the '{phase}' phase: batched generation / DPO of a decoder-only model "
                            "needs padding_side='left'")
        elif not generating and side == "left" and phase in ("sft", "train", "pretrain"):
            answers["Q-llm-padding-side"] = "left-for-training"
            problems.append("left padding while training a decoder-only model: use padding_side='right' for training")
        else:
            answers["Q-llm-padding-side"] = "per-phase"
    labels = ctx.targets
    has_padding = torch.is_tensor(mask) and bool((mask == 0).any())
    if (torch.is_tensor(labels) and torch.is_tensor(ids) and labels.shape == ids.shape and not generating
            and (has_padding or phase == "sft")):
        masked = labels == -100
        ctx.meas["masked_share"] = float(masked.float().mean())
        pad_pos = (mask == 0) if torch.is_tensor(mask) and mask.shape == labels.shape else torch.zeros_like(masked)
        scored_pad = bool((pad_pos & ~masked).any())
        ctx.meas["padding_positions_scored"] = int((pad_pos & ~masked).sum())
        if not bool(masked.any()) and bool(pad_pos.any()):
            answers["Q-llm-labels-masked"] = "none"
            problems.append("no label is -100: padding (and prompt) tokens are trained on")
        elif scored_pad:
            answers["Q-llm-labels-masked"] = "pad-scored"
            problems.append(f"{ctx.meas['padding_positions_scored']} padding positions carry real label ids; set them to -100")
        elif phase == "sft" and bool((labels[~pad_pos] == ids[~pad_pos]).all()):
            answers["Q-llm-labels-masked"] = "prompt-scored"
            problems.append("SFT labels equal input_ids on every non-padding position: the prompt is trained on too")
        else:
            answers["Q-llm-labels-masked"] = "both"
    if problems:
        return "fail", answers, "; ".join(problems)
    extra = f", {ctx.meas['masked_share']:.0%} of labels masked" if "masked_share" in ctx.meas else ""
    return "pass", answers, f"pad token {pad!r} (id {pad_id}), padding side {side} for phase '{phase}'{extra}"


def main(argv=None):
    return run_probe(NAME, VERSION, __doc__, NEEDS, 1, body, argv)


if __name__ == "__main__":
    sys.exit(main())
