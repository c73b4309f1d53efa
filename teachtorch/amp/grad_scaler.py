"""`torch.amp.GradScaler`: loss scaling, so that small float16 gradients do not flush to zero.

In float16 a gradient below about 6e-8 becomes 0. Loss scaling multiplies the loss by a large factor S before
`backward()`, so every gradient is S times larger and stays representable, then divides the gradients by S
before the optimizer uses them. If S was too large some gradient overflowed to inf or nan: that step is
skipped and S is halved ("backoff"); after `growth_interval` steps in a row without overflow S is doubled.

    scaler = torch.amp.GradScaler("cpu")
    scaler.scale(loss).backward()     # gradients of S * loss
    scaler.step(optimizer)            # unscale_ (grads / S, look for inf/nan), then optimizer.step() unless found
    scaler.update()                   # backoff or growth

This follows torch/amp/grad_scaler.py step by step: the scale and growth tracker are tensors made on the
first `scale()`, each optimizer moves through READY -> UNSCALED -> STEPPED between updates, and PyTorch's
fused `_amp_foreach_non_finite_check_and_unscale_` / `_amp_update_scale_` are written out with core ops.
A scaler for "cuda" on a machine without a GPU disables itself with PyTorch's warning: every method then
passes through (`scale` returns its input, `step` just calls `optimizer.step()`).
"""

import warnings

from .. import _dtype
from .. import cuda as _cuda
from ..autograd.grad_mode import no_grad
from ..ops import full, isfinite

__all__ = ["GradScaler"]

READY, UNSCALED, STEPPED = 0, 1, 2


class GradScaler:
    def __init__(self, device="cuda", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if self._device == "cuda" and enabled and not _cuda.is_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")
            self._enabled = False
        if self._enabled:
            assert growth_factor > 1.0, "The growth factor must be > 1.0."
            assert backoff_factor < 1.0, "The backoff factor must be < 1.0."
            self._init_scale = init_scale
            self._scale = None          # made by the first scale(), on the device of what it scales
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = {}

    def is_enabled(self):
        return self._enabled

    # ---- scale -------------------------------------------------------------------------------------------

    def scale(self, outputs):
        """`outputs * S`: a tensor, or any nesting of lists and tuples of tensors."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        if self._scale is None:
            self._scale = full((), self._init_scale, dtype=_dtype.float32, device=outputs.device)
            self._growth_tracker = full((), self._init_growth_tracker, dtype=_dtype.int32, device=outputs.device)
        return outputs * self._scale.to(device=outputs.device)

    def _check_scale_growth_tracker(self, funcname):
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        assert self._scale is not None, f"Attempted {funcname} but _scale is None.  " + fix
        assert self._growth_tracker is not None, f"Attempted {funcname} but _growth_tracker is None.  " + fix

    def _state(self, optimizer):
        return self._per_optimizer_states.setdefault(id(optimizer), {"stage": READY, "found_inf": None})

    # ---- unscale_ and step -------------------------------------------------------------------------------

    @no_grad()
    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        """Multiply every gradient by 1/S; found_inf becomes 1.0 if any of them holds an inf or a nan."""
        for group in optimizer.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                if not allow_fp16 and param.grad.dtype is _dtype.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                if not bool(isfinite(param.grad).all()):
                    found_inf.fill_(1.0)
                param.grad.mul_(inv_scale.to(device=param.grad.device))
        return found_inf

    def unscale_(self, optimizer):
        """Divide the optimizer's gradients by S now (to clip them, say); `step` then does not do it again."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._state(optimizer)
        if state["stage"] == UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] == STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # 1/S computed in float64, as PyTorch does, so that it is exact for a power of two
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = full((), 0.0, dtype=_dtype.float32, device=self._scale.device)
        self._per_optimizer_states[id(optimizer)] = {
            "stage": UNSCALED, "found_inf": self._unscale_grads_(optimizer, inv_scale, found_inf, False)}

    def step(self, optimizer, *args, **kwargs):
        """Unscale (unless `unscale_` did), then `optimizer.step()` only if no gradient was inf or nan."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        if self._state(optimizer)["stage"] == STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if self._state(optimizer)["stage"] == READY:
            self.unscale_(optimizer)
        state = self._per_optimizer_states[id(optimizer)]
        assert state["found_inf"] is not None, "No inf checks were recorded for this optimizer."
        retval = None if state["found_inf"].item() else optimizer.step(*args, **kwargs)
        self._per_optimizer_states[id(optimizer)] = {**state, "stage": STEPPED}
        return retval

    # ---- update ------------------------------------------------------------------------------------------

    @no_grad()
    def update(self, new_scale=None):
        """Back off (S * backoff_factor) if any step this iteration found inf/nan, else count towards growth."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                assert new_scale.device == self._scale.device, reason
                assert new_scale.numel() == 1, reason
                assert new_scale.requires_grad is False, reason
                self._scale.copy_(new_scale)
        else:
            found_infs = [s["found_inf"] for s in self._per_optimizer_states.values() if s["found_inf"] is not None]
            assert len(found_infs) > 0, "No inf checks were recorded prior to update."
            if any(f.item() for f in found_infs):
                # PyTorch's _amp_update_scale_: back off and start counting again
                self._scale.mul_(self._backoff_factor)
                self._growth_tracker.fill_(0)
            else:
                successful = self._growth_tracker.item() + 1
                if successful == self._growth_interval:
                    grown = self._scale * self._growth_factor
                    if bool(isfinite(grown)):      # never grow the scale to inf
                        self._scale.copy_(grown)
                    successful = 0
                self._growth_tracker.fill_(successful)
        self._per_optimizer_states = {}

    # ---- accessors and state_dict ------------------------------------------------------------------------

    def get_scale(self):
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker.item()

    def state_dict(self):
        """{} when disabled; else the scale, the three hyperparameters and the growth tracker, as plain numbers."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])
