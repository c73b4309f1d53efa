"""Placeholder: being written (gradcheck / gradgradcheck)."""


class GradcheckError(RuntimeError):
    pass


def gradcheck(*args, **kwargs):
    raise NotImplementedError


def gradgradcheck(*args, **kwargs):
    raise NotImplementedError
