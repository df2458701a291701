# torchgeo/models/olmoearth.py ending and the repro, as posted in torchgeo/torchgeo#4036
import torch

from torchgeo.models import OlmoEarthV1_Weights, olmoearth_v1


def olmoearth_v1(weights=None, **kwargs):
    model = OlmoEarthPretrain_v1(**kwargs)
    if weights:
        state_dict = weights.get_state_dict(progress=True)
        model.load_state_dict(state_dict, strict=False)
    return model


weights = OlmoEarthV1_Weights.NANO
checkpoint = weights.get_state_dict(progress=False, weights_only=True)
model = olmoearth_v1(weights=weights)

print('checkpoint key:', next(iter(checkpoint)))
print('model key:     ', next(iter(model.state_dict())))
