"""Every error message the source material quotes is recognised, and points at its cause."""

from __future__ import annotations

import pytest

from triage.kb.base import KnowledgeBase
from triage.kb.search import ErrorMatcher

MATCHER = ErrorMatcher(KnowledgeBase.load())

CASES = [
    ("ValueError: Asking to pad but the tokenizer does not have a padding token. Please select a token to use as "
     "`pad_token`", {"L3", "S-pad-token-config"}),
    ("RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn", {"O3"}),
    ("IndexError: Target 10 is out of bounds.", {"O14"}),
    ("RuntimeError: CUDA error: device-side assert triggered", {"O14"}),
    ("UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, "
     "you should call them in the opposite order", {"O8"}),
    ("RuntimeError: Error(s) in loading state_dict for ResNet:\n\tsize mismatch for fc.weight: copying a param "
     "with shape torch.Size([1000, 512]) from checkpoint", {"O20"}),
    ("huggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated repo for url "
     "https://huggingface.co/meta-llama/Llama-2-7b-hf/resolve/main/config.json", {"L10"}),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
     "79.15 GiB of which 1.02 GiB is free.", {"S-oom"}),
    ("torch.distributed.elastic.multiprocessing.api.ChildFailedError: ... exitcode: -9", {"S-ram"}),
    ("RuntimeError: NCCL communicator was aborted on rank 3.", {"S-nccl"}),
    ("AttributeError: 'DummyOptim' object has no attribute 'step'", {"S-deepspeed-single-gpu"}),
    ("torch.utils.checkpoint.CheckpointError: torch.utils.checkpoint: A different number of tensors was saved "
     "during the original forward and recomputation.", {"S-checkpoint-reentrant"}),
    ("ValueError: The global train batch size (1 x 1) must be evenly divisible by the number of generations per "
     "prompt (8). generation_batch_size not divisible by num_generations", {"S-grpo-batch-divisible"}),
    ("RuntimeError: 'weight' must be 2-D", {"S-fsdp1-weight-2d"}),
    ("ValueError: Content end boundary is before start boundary", {"S-chat-template-boundary"}),
    ("TypeError: Got unsupported ScalarType BFloat16", {"S-bf16-numpy"}),
    ("RuntimeError: CAS service error : Reqwest Error: HTTP status server error (500 Internal Server Error)",
     {"S-hf-xet"}),
    ("unable to load strategy my_rewards.accuracy_reward ... TypeError: 'NoneType' object is not callable",
     {"S-reward-import"}),
    ("FileNotFoundError: [Errno 2] No such file or directory: 'data/train_split.csv'", {"PB-data-inventory"}),
    ("tensorflow.python.framework.errors_impl.NotFoundError: /data/shards/train-00001.tfrecord; No such file or "
     "directory", {"PB-data-inventory"}),
    ("RuntimeError: No CUDA GPUs are available", {"D-env-launch"}),
    ("AssertionError: this script requires at least one GPU to train", {"D-env-launch"}),
    ("ValueError: the config requires 4 GPUs, but only 2 were found", {"D-env-launch"}),
    ("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED", {"S-cuda-build"}),
    ("RuntimeError: FlashAttention only supports Ampere GPUs or newer.", {"S-cuda-build"}),
    ("RuntimeError: unable to open shared memory object </torch_4242_1234567> in read-write mode", {"DP-shm-size"}),
    ("RuntimeError: Expected object of scalar type Long but got scalar type Float for argument #2 'target'",
     {"S-dtype-mismatch"}),
    ("RuntimeError: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
     "but got torch.FloatTensor instead", {"S-dtype-mismatch"}),
    ("OSError: [Errno 28] No space left on device: 'out/checkpoint-4000/optimizer.pt'", {"PB-checkpoint-pair"}),
    ("RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`", {"S-oom"}),
    ("RuntimeError: Placeholder storage has not been allocated on MPS device!", {"S-device-mismatch"}),
    ("RuntimeError: Input, output and indices must be on the current device", {"S-device-mismatch"}),
    ("RuntimeError: Tensors must be CUDA and dense", {"S-device-mismatch"}),
    ("RuntimeError: CUDA error: invalid device ordinal", {"D-env-launch"}),
    ("cv2.error: OpenCV(4.9.0) color.cpp:196: error: (-215:Assertion failed) !_src.empty() in function 'cvtColor'",
     {"DP-corrupt-samples"}),
    ("InvalidArgumentError: logits and labels must be broadcastable: logits_size=[16,5] labels_size=[16,1]",
     {"S-target-size-mismatch"}),
    ('ValueError: Input 0 of layer "model" is incompatible with the layer: expected shape=(None, 64, 64, 3), '
     "found shape=(8, 64, 64)", {"S-shape-mismatch"}),
    ("RuntimeError: The expanded size of the tensor (77) must match the existing size (128) at non-singleton "
     "dimension 1.", {"S-shape-mismatch"}),
    ("InvalidArgumentError: indices[0,12] = 32001 is not in [0, 32000) [Op:ResourceGather]", {"S-embedding-index"}),
    ("InternalError: Failed copying input tensor from CPU:0 to GPU:0 in order to run _EagerConst: Dst tensor is not "
     "initialized.", {"S-oom"}),
    ("InvalidArgumentError: Nan in summary histogram for: dense_1/bias_0", {"S-nan"}),
    ("FloatingPointError: invalid value (nan) encountered in jit(update_fn)", {"S-nan"}),
    ("RuntimeError: multi-target not supported at ClassNLLCriterion.cu:15", {"O14"}),
    ("AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * "
     "gradient_acc_step * world_size 32 != 4 * 4 * 1", {"S-effective-batch-mismatch"}),
    ("RuntimeError: Expected is_sm80 || is_sm90 to be true, but got false.", {"S-cuda-build"}),
    ("RuntimeError: expected mat1 and mat2 to have the same dtype, but got: float != c10::BFloat16",
     {"S-dtype-mismatch"}),
]


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[c[0][:40] for c in CASES])
def test_quoted_error_points_at_its_cause(text, expected):
    matched = set(MATCHER.error_matches(text))
    assert matched & expected, f"{sorted(matched)} does not include any of {sorted(expected)}"


def test_a_plain_training_line_matches_nothing():
    assert MATCHER.error_matches("{'loss': 1.234, 'grad_norm': 0.87, 'learning_rate': 2e-05, 'epoch': 0.5}") == {}
