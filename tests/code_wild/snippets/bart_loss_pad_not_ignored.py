# transformers/src/modeling_bart.py loss as quoted in huggingface/transformers#7828: pad tokens count in the loss
from torch.nn import CrossEntropyLoss


def forward(self, input_ids, attention_mask=None, decoder_input_ids=None, labels=None, **unused):
    outputs = self.model(input_ids, attention_mask=attention_mask, decoder_input_ids=decoder_input_ids)
    lm_logits = self.lm_head(outputs[0])
    masked_lm_loss = None
    if labels is not None:
        loss_fct = CrossEntropyLoss()
        # TODO(SS): do we need to ignore pad tokens in labels?
        masked_lm_loss = loss_fct(lm_logits.view(-1, self.config.vocab_size), labels.view(-1))
    return masked_lm_loss, lm_logits
