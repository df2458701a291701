# train_redpajama.py excerpt (Lightning-AI/lit-llama), named in Lightning-AI/lit-llama#254:
# weight decay applied to every parameter (norm weights included)
import torch

learning_rate = 6e-4
weight_decay = 1e-1
beta1 = 0.9
beta2 = 0.95


def main(devices: int = 4):
    fabric = L.Fabric(accelerator="cuda", devices=devices, precision="bf16-mixed", strategy=strategy)
    fabric.launch()
    config = LLaMAConfig.from_name("7B")
    with fabric.device:
        model = LLaMA(config).bfloat16()
        model.apply(model._init_weights)
    model = fabric.setup_module(model)

    optimizer = torch.optim.AdamW(
        model.parameters(),
        lr=learning_rate,
        weight_decay=weight_decay,
        betas=(beta1, beta2),
    )
    optimizer = fabric.setup_optimizers(optimizer)
    train(fabric, model, optimizer, train_dataloader, val_dataloader, grad_accum_steps)
