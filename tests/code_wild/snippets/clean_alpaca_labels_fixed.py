# the replacement posted in meta-llama/llama-cookbook#74 ("Expected behavior"): prompt and padding labelled IGNORE_INDEX
import copy
import torch

IGNORE_INDEX = -100


def __getitem__(self, index):
    ann = self.ann[index]
    prompt = PROMPT_DICT["prompt_input"].format_map(ann)
    example = prompt + ann["output"]
    prompt = torch.tensor(self.tokenizer.encode(prompt), dtype=torch.int64)
    example = self.tokenizer.encode(example)
    example.append(self.tokenizer.eos_token_id)
    example = torch.tensor(example, dtype=torch.int64)
    labels = copy.deepcopy(example)
    labels[: len(prompt)] = IGNORE_INDEX
    padding = self.max_words - example.shape[0]
    if padding > 0:
        example = torch.cat((example, self.tokenizer.pad_token_id*torch.zeros(padding, dtype=torch.int64)))
        labels = torch.cat((labels, IGNORE_INDEX*torch.ones(padding, dtype=torch.int64)))
    elif padding < 0:
        example = example[: self.max_words]
        labels = labels[: self.max_words]
    return {"input_ids": example, "labels": labels}
