"""`python -m teachtorch.run script.py [args]`: run an unmodified PyTorch script on teachtorch.

Every `import torch...` in the script (and in the modules it imports) gets teachtorch (see _torch_alias.py), and
the script runs as `python script.py [args]` would run it: as the module `__main__`, with `sys.argv` =
[script.py, args...] and the script's folder first on `sys.path`, so its own helper modules import. (This is what
`runpy.run_path` does, the machinery behind `python script.py` and `python -m`.) `python -m teachtorch.run -m
package.module [args]` runs a module instead, as `python -m package.module` would.
"""

import os
import runpy
import sys

from ._torch_alias import install_as_torch

USAGE = "usage: python -m teachtorch.run script.py [args ...]\n       python -m teachtorch.run -m module [args ...]"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help") or (argv[0] == "-m" and len(argv) < 2):
        print(USAGE, file=sys.stderr if not argv or argv[0] == "-m" else sys.stdout)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    install_as_torch()
    if argv[0] == "-m":
        sys.argv = argv[1:]                          # sys.path[0] is already the current folder, as for `python -m`
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    script = argv[0]
    if not os.path.isfile(script):
        print(f"python -m teachtorch.run: can't open file '{os.path.abspath(script)}': No such file", file=sys.stderr)
        return 2
    sys.argv = argv
    sys.path[0] = os.path.dirname(os.path.abspath(script))   # where `python -m` put the current folder
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
