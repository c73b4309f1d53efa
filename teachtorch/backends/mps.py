"""`torch.backends.mps`: Apple's Metal GPUs. teachtorch has no MPS backend, so both answers are False, as in a
PyTorch build without it; scripts that pick "mps" when available then take their cpu (or cuda) path."""


def is_available():
    return False


def is_built():
    return False
