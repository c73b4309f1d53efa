"""The engine: run the backward graph, from the output back to the leaves, without recursion.

PyTorch: torch/csrc/autograd/engine.cpp. One backward call is a *graph task*; this file follows it in the
order it happens, one function per step, each with PyTorch's name:

1. **Start** (`graph_root`). The root's node gets the initial gradient (ones for a scalar
   `loss.backward()`); with several roots, a `GraphRoot` node hands each its own.
2. **Count dependencies** (`compute_dependencies`). Walk the graph once from the root; for every edge
   `A -> B` add one to `dependencies[B]`. A node may run only when all the gradients meant for it have
   arrived: when its count has dropped back to 0. `autograd.grad` also marks which nodes lead to its
   inputs (`init_to_execute`): only those run.
3. **Run ready nodes, newest first** (`execute_with_graph_task`, `thread_main`). Ready nodes wait in a
   heap ordered by sequence number, highest first (`GraphTask.ready_queue`, PyTorch's ReadyQueue), so the
   node made last in forward runs first in backward. Leaves' AccumulateGrad nodes have the highest number
   of all and run as soon as they are ready.
4. **Run one node** (`evaluate_function`, `call_function`): its hooks, its formula, the checks of what it
   returned (`validate_outputs`: a broadcast input gets its gradient summed back to its own shape, a
   float32 input gets float32).
5. **Pass gradients on** (`input_buffer_add`). A node's outputs go to the *input buffer* of each next
   node; two gradients that meet at one input are summed there.
6. **Free as you go.** After a node runs, its saved tensors are released unless `retain_graph=True`.
   The leaves' gradients need no last step: each AccumulateGrad node wrote its leaf's `.grad` when it ran.

`autograd.grad(outputs, inputs)` uses the same loop, but only runs the nodes that lead to `inputs`, and
*captures* the gradient arriving at each input instead of accumulating it into `.grad`.

With `create_graph=True` the loop runs with grad mode on: the backward formulas are ordinary teachtorch ops,
so they record a graph of their own, and you can differentiate the gradient again.

Everything the engine does is also reported as events (graph.py: `BackwardEvent`) for the explorer.
"""

import heapq
import itertools

from ..dispatch import dispatcher
from . import anomaly_mode, graph
from .._grad_mode import GradMode, run_with_grad_mode
from .node import AccumulateGrad, GraphRoot


class GraphTask:
    """The state of one backward call (PyTorch's `GraphTask`)."""

    def __init__(self, keep_graph, create_graph, user_grads=()):
        self.keep_graph = keep_graph
        self.create_graph = create_graph
        self.dependencies = {}        # node -> number of gradients it still waits for
        self.buffers = {}             # node -> its input buffer: [grad or None per input slot]
        self.owned = {}               # AccumulateGrad node -> True if its gradient is held nowhere else
        self.shared = set()           # ids of gradient tensors someone else also holds (see note_shared)
        self.exec_info = None         # None: run every node; else the nodes a gradient must reach
        self.needed = None            # ... and of those, the ones that run
        self.captures = {}            # (node, input_nr) -> indices into `captured` (autograd.grad)
        self.captured = []
        self.ready_queue = []         # heap of (-sequence_nr, arrival, node): newest first (PyTorch's ReadyQueue)
        self.arrivals = itertools.count()   # breaks ties between equal sequence numbers: nodes are never compared
        self.shared.update(id(g) for g in user_grads)   # the caller still holds the gradients it passed


def execute(root_edges, root_grads, keep_graph, create_graph, inputs=None, accumulate_grad=True, user_grads=()):
    """Run backward from `root_edges` [(node, input_nr)] with `root_grads`: the steps of the module docstring.

    `inputs` is a list of gradient edges. With `accumulate_grad=False` (autograd.grad) their gradients are
    returned, in order; with `accumulate_grad=True` (backward(inputs=...)) only they get `.grad`.
    """
    task = GraphTask(keep_graph, create_graph, user_grads)
    root = graph_root(task, root_edges, root_grads, inputs)
    compute_dependencies(task, root)
    if inputs is not None:
        init_to_execute(task, root, inputs, accumulate_grad)
    execute_with_graph_task(task, root)
    return task.captured


# ---- 1 and 2: prepare the graph --------------------------------------------------------------------------


def graph_root(task, root_edges, root_grads, inputs):
    """Step 1: the node backward starts at, with the initial gradients in its input buffer."""
    root_grads = validate_outputs("backward", root_edges, root_grads)
    if len(root_edges) == 1 and inputs is None:
        # One root: start right at its node, with the gradient in its input buffer (PyTorch skips the
        # "dummy" GraphRoot the same way).
        root, input_nr = root_edges[0]
        buffer = task.buffers[root] = [None] * (len(root._input_metadata) or 1)
        buffer[input_nr] = root_grads[0]
    else:
        root = GraphRoot(root_edges, root_grads)
        task.buffers[root] = []
    return root


def compute_dependencies(task, root):
    """Step 2: for every edge A -> B in the graph below `root`, dependencies[B] += 1 (an explicit stack)."""
    deps = task.dependencies
    stack = [root]
    while stack:
        node = stack.pop()
        for edge in node.next_edges:
            if edge is None:
                continue
            nxt = edge[0]
            if nxt in deps:
                deps[nxt] += 1
            else:                     # first time we meet this node: count it, and walk below it
                deps[nxt] = 1
                stack.append(nxt)


def init_to_execute(task, root, input_edges, accumulate_grad):
    """Only run what leads to `input_edges` (PyTorch's `exec_info`).

    autograd.grad *captures* the gradient arriving at each input edge. backward(inputs=[leaf]) runs that
    leaf's AccumulateGrad; a non-leaf input is captured and its `.grad` filled afterwards by the caller.
    A node is *needed* (it runs) when a gradient must flow through it to one of those places.
    """
    task.captured = [None] * len(input_edges)
    must_run = set()
    for idx, edge in enumerate(input_edges):
        if edge is None:                  # an input nothing can flow to: its gradient stays None
            continue
        node, input_nr = edge
        if accumulate_grad and isinstance(node, AccumulateGrad):
            must_run.add(node)
        else:
            task.captures.setdefault((node, input_nr), []).append(idx)   # the same input may be asked twice
    capture_nodes = {node for node, _ in task.captures}   # (keys are (node, input_nr) pairs)
    needed = set(must_run)
    # Post-order walk with an explicit stack: decide about a node after all nodes below it.
    visited = {root}
    stack = [(root, iter(root.next_edges))]
    while stack:
        node, edges = stack[-1]
        for edge in edges:
            if edge is not None and edge[0] not in visited:
                visited.add(edge[0])
                stack.append((edge[0], iter(edge[0].next_edges)))
                break
        else:
            stack.pop()
            if any(e is not None and (e[0] in needed or e[0] in capture_nodes) for e in node.next_edges):
                needed.add(node)
    task.needed = needed
    task.exec_info = needed | capture_nodes


# ---- 3: the ready queue ----------------------------------------------------------------------------------


def execute_with_graph_task(task, root):
    """Step 3: run the loop with grad mode = create_graph, and tell the trace and listeners about it."""
    trace = dispatcher._active_trace
    events = graph.listening()        # checked once: watching backward costs nothing when nobody does
    if events:
        graph.emit("backward_started", root=root)
    # If the trace is watching, its `backward_node` says which node runs. Grad mode and `backward_node`
    # are restored however the loop ends (an error in a formula, Ctrl-C).
    saved_node = None if trace is None else trace.backward_node
    try:
        run_with_grad_mode(task.create_graph, GradMode.inference, thread_main, task, root, trace, events)
    finally:
        if trace is not None:
            trace.backward_node = saved_node
    if events:
        graph.emit("backward_finished", root=root)


def thread_main(task, root, trace, events):
    """Pop the newest ready node and evaluate it, until no node is ready (PyTorch's `Engine::thread_main`,
    the loop each of its engine threads runs; teachtorch runs backward on the caller's thread)."""
    ready = task.ready_queue
    heapq.heappush(ready, (-root._seq, next(task.arrivals), root))
    while ready:
        node = heapq.heappop(ready)[2]
        if trace is not None:
            trace.backward_node = node
        evaluate_function(task, node, events)


# ---- 4: one node -----------------------------------------------------------------------------------------


def evaluate_function(task, node, events):
    """Run one ready node, then pass each of its output gradients to the next node's input buffer; a next
    node whose gradients have now all arrived joins the ready queue."""
    grads = task.buffers.pop(node)
    owned = task.owned.pop(node, None)
    if task.captures:
        needed = task.exec_info is None or node in task.needed
        capture_gradients(task, node, grads, needed)
        if not needed:                # not needed for autograd.grad's inputs: skipped
            return
    outputs = call_function(task, node, grads, owned, events)
    if len(outputs) > 1:
        note_shared(task, outputs)
    for i, edge in enumerate(node.next_edges):
        if edge is None:
            continue
        nxt, input_nr = edge
        if task.exec_info is not None and nxt not in task.exec_info:
            continue
        grad = outputs[i]
        if events:
            graph.emit("gradient", node=node, output_nr=i, next_node=nxt, input_nr=input_nr, grad=grad)
        input_buffer_add(task, nxt, input_nr, grad)
        task.dependencies[nxt] -= 1
        if task.dependencies[nxt] == 0:
            heapq.heappush(task.ready_queue, (-nxt._seq, next(task.arrivals), nxt))


def capture_gradients(task, node, grads, needed):
    """autograd.grad: keep the gradients arriving at `node` that were asked for (`task.captures`).

    A node that only hands back a captured gradient runs its tensor hooks first; one that must run anyway
    (to reach other inputs) is captured before them (PyTorch's evaluate_function does both).
    """
    if not needed and (node._tensor_pre_hooks or node._retains_grad_hooks):
        grads = call_tensor_pre_hooks(node, grads)
    for (cnode, input_nr), indices in task.captures.items():
        if cnode is node:
            for idx in indices:
                task.captured[idx] = grads[input_nr]


def call_function(task, node, grads, owned, events):
    """Hooks, apply, hooks, release, checks: one node's backward. Returns its output gradients."""
    if node._tensor_pre_hooks or node._retains_grad_hooks:
        grads = call_tensor_pre_hooks(node, grads)
    if events:
        graph.emit("node_started", node=node, grads=grads)
    if node._pre_hooks:
        grads = call_pre_hooks(node, grads)
    try:
        if type(node) is AccumulateGrad:
            outputs = node.apply(grads, owned=owned is True and not task.create_graph)
        else:
            outputs = node.apply(grads)
    except Exception:
        if anomaly_mode.is_anomaly_enabled():
            anomaly_mode.warn_with_forward_trace(node)
        raise
    if node._post_hooks:
        outputs = call_post_hooks(node, outputs, grads)
    if not task.keep_graph:           # step 6: free the saved tensors, unless retain_graph=True
        node.release_variables()
    if events:
        graph.emit("node_finished", node=node, grads=outputs)
    return validate_outputs(node, node.next_edges, outputs)


def call_tensor_pre_hooks(node, grads):
    """Tensor hooks (`t.register_hook`) and `retain_grad`, both kept per input slot of the node."""
    if node._tensor_pre_hooks:
        for input_nr, hooks in node._tensor_pre_hooks.items():
            for hook in list(hooks.values()):
                new = hook(grads[input_nr])           # (called with None too, when no gradient came)
                if new is not None:
                    grads[input_nr] = new
    if node._retains_grad_hooks:
        for input_nr, hook in node._retains_grad_hooks.items():
            if grads[input_nr] is not None:
                hook(grads[input_nr])
    return grads


def call_pre_hooks(node, grads):
    """`node.register_prehook(fn)`: each sees the incoming gradients and may replace them."""
    for hook in list(node._pre_hooks.values()):
        new = hook(tuple(grads))
        if new is not None:
            grads = list(new)
    return grads


def call_post_hooks(node, outputs, grads):
    """`node.register_hook(fn)`: each sees the outgoing and incoming gradients and may replace the outgoing."""
    for hook in list(node._post_hooks.values()):
        new = hook(tuple(outputs), tuple(grads))
        if new is not None:
            outputs = list(new)
    return outputs


def validate_outputs(node, edges, outputs):
    """Check each output gradient against its input's metadata (PyTorch's `validate_outputs`).

    A gradient of a broadcast shape is summed back to the input's shape (this is where `a + b` with
    `b` of shape [4] and `a` of [3, 4] gets its [3, 4] gradient reduced to [4]); a gradient of another
    dtype is converted.
    """
    name = node if isinstance(node, str) else None     # a node's name is only needed for an error
    if len(outputs) != len(edges):
        name = name or node.name()
        raise RuntimeError(f"function {name} returned an incorrect number of gradients (expected "
                           f"{len(edges)}, got {len(outputs)})")
    outputs = list(outputs)
    check_nan = anomaly_mode.is_anomaly_enabled() and anomaly_mode.is_anomaly_check_nan_enabled()
    for i, (edge, grad) in enumerate(zip(edges, outputs)):
        if edge is None or grad is None:
            continue
        sizes, dtype, device = edge[0]._input_metadata[edge[1]]
        if grad._sizes == sizes and grad.dtype is dtype and not check_nan:
            continue                  # the common case: nothing to fix
        name = name or node.name()
        if grad._sizes != sizes:
            from .functions_manual import is_expandable_to, sum_to
            if not is_expandable_to(sizes, grad._sizes):
                raise RuntimeError(
                    f"Function {name} returned an invalid gradient at index {i} - got "
                    f"[{', '.join(map(str, grad._sizes))}] but expected shape compatible with "
                    f"[{', '.join(map(str, sizes))}]")
            grad = sum_to(grad, sizes)
        if grad.dtype is not dtype:
            grad = grad.to(dtype)
        if grad._storage.device != device:
            raise RuntimeError(f"Function {name} returned an invalid gradient at index {i} - expected "
                               f"device {device} but got {grad._storage.device}")
        if check_nan and not isinstance(node, str) and grad.isnan().any().item():
            anomaly_mode.warn_with_forward_trace(node)
            raise RuntimeError(f"Function '{name}' returned nan values in its {i}th output.")
        outputs[i] = grad
    return outputs


# ---- 5: passing gradients on -----------------------------------------------------------------------------


def note_shared(task, outputs):
    """Remember the gradients one node sent to two places (`a + a`, or AddBackward0 passing its incoming
    gradient to both inputs): neither receiver may keep such a tensor as its own `.grad`.

    Whether AccumulateGrad may keep a gradient without copying depends on whether anyone else holds that
    tensor object. PyTorch asks the tensor's reference count; teachtorch keeps `task.shared`: the
    gradients the caller passed to backward() and those noted here. (As in PyTorch, a view counts as a new
    tensor, so `.grad` may share memory with a gradient you passed to backward().)
    """
    seen = set()
    for g in outputs:
        if g is not None:
            if id(g) in seen:
                task.shared.add(id(g))
            seen.add(id(g))


def input_buffer_add(task, node, input_nr, grad):
    """Put `grad` in slot `input_nr` of `node`'s input buffer, made at its first gradient; a second gradient
    for the same slot is summed (PyTorch's `InputBuffer::add`; a buffer here is a plain list in
    `task.buffers`). Also notes whether an AccumulateGrad node may keep the gradient as `.grad` uncopied."""
    buffer = task.buffers.get(node)
    if buffer is None:                # first gradient for this node: make its input buffer
        buffer = task.buffers[node] = [None] * (len(node._input_metadata) or 1)
    if grad is None:
        return
    if buffer[input_nr] is None:
        buffer[input_nr] = grad
        if type(node) is AccumulateGrad and id(grad) not in task.shared:
            task.owned[node] = True
    else:                             # a second gradient for the same input: sum them
        buffer[input_nr] = buffer[input_nr] + grad
        task.owned[node] = True
