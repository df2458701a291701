# the evaluation posted as the fix in Graylab/DL4Proteins-notebooks#11 (no backward/step on the test set)
import torch

model.eval()

with torch.inference_mode():
    for data in test_loader:
        output = model(data)
        loss = criterion(output, data.graph_y)
