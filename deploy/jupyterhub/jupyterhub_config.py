"""JupyterHub for a class on one machine: each student gets their own JupyterLab and their own copy of the course.

    make hub                                  # the hub venv, configurable-http-proxy (npm, in this folder), the hub
    jupyterhub -f deploy/jupyterhub/jupyterhub_config.py     # the same, by hand, from the hub's venv

What it sets up:

* **The hub, one proxy, one process per student.** configurable-http-proxy comes from npm, installed in this
  folder's node_modules/ (package.json pins it; `npm ci --prefix deploy/jupyterhub`), not globally. Each
  student's single-user server (jupyterhub-singleuser: JupyterLab with jupytext, so lessons open as notebooks
  from their .py files) is a separate process started by the spawner, and each of its kernels is one more.
* **The spawner.** TEACHTORCH_HUB_SPAWNER=simple (the default) is SimpleLocalProcessSpawner: every server runs
  as the hub's own user, in its own home TEACHTORCH_HUB_HOMES/<name>. That is for trying the hub and for the
  test (tests/test_hub.py); it gives students no isolation from each other and does **not** enforce
  mem_limit / cpu_limit (it only passes them to the server as MEM_LIMIT / CPU_LIMIT). A real class uses
    - `systemd` (pip install jupyterhub-systemdspawner; the hub runs as root, students are real Unix users):
      each server is a transient systemd unit with MemoryMax=mem_limit and CPUQuota=cpu_limit, so one
      student's runaway loop cannot starve the class; or
    - `docker` (pip install dockerspawner): each server in a container with the same limits.
  Any other value is taken as a spawner class name.
* **Limits.** TEACHTORCH_HUB_MEM_LIMIT (default 2G) and TEACHTORCH_HUB_CPU_LIMIT (default 1) are set on the
  spawner; SystemdSpawner and DockerSpawner enforce them. Each server also gets OMP/OpenBLAS/MKL threads =
  the CPU limit, so twenty NumPy kernels do not each start one BLAS thread per core.
* **The idle culler.** jupyterhub-idle-culler runs as a hub service and stops servers idle for
  TEACHTORCH_HUB_CULL_TIMEOUT seconds (default 3600); the student's files stay, the next login restarts it.
* **The course.** Before each server starts, a pre-spawn hook copies what is missing of the course into the
  student's home: the same step as `make work` (lessons in the student's form, by
  teachtorch/exercises/course.py; examples/ and the slides decks as they are), never overwriting a file the
  student has (course_copy.py). JupyterLab opens at the course map, lessons/index.py.
  Why not nbgitpuller: it needs the course at a git URL the hub can reach, and would hand out the lessons
  as they are in the repository, with the solutions in; the student form is made by course.py. The hook
  needs no network and no second repository, gives each student exactly what `make lab` gives them, and at
  each login adds lessons that are new in the course (a `git pull` of the course checkout on the hub is how
  a teacher publishes the next lesson) while keeping every file the student has.

Everything is read from environment variables (defaults in brackets):

    TEACHTORCH_HUB_COURSE_DIR      the course checkout the lessons are copied from [this repository]
    TEACHTORCH_HUB_STATE_DIR       the hub's database, cookie secret, proxy pid [<course>/build/hub/state]
    TEACHTORCH_HUB_HOMES           students' homes with the simple spawner [<course>/build/hub/homes]
    TEACHTORCH_HUB_IP / _PORT      where students connect [127.0.0.1 / 8000]; 0.0.0.0 to serve a network
    TEACHTORCH_HUB_API_PORT        the hub's internal API, on 127.0.0.1 [8081]
    TEACHTORCH_HUB_PROXY_API_PORT  the proxy's REST API, on 127.0.0.1 [8001]
    TEACHTORCH_HUB_PROXY           the configurable-http-proxy command [this folder's node_modules/.bin/...]
    TEACHTORCH_HUB_AUTHENTICATOR   dummy (any name and password: for tests, on 127.0.0.1 only), shared
                                   (one class password, TEACHTORCH_HUB_SHARED_PASSWORD, at least 8
                                   characters), pam (the machine's Unix users), native
                                   (pip install jupyterhub-nativeauthenticator), or a class name [dummy]
    TEACHTORCH_HUB_ALLOWED_USERS   comma-separated names allowed to log in; empty: anyone the authenticator
                                   accepts [empty]
    TEACHTORCH_HUB_ADMIN_USERS     comma-separated admin names [empty]
    TEACHTORCH_HUB_SPAWNER         simple, systemd, docker, or a class name [simple]
    TEACHTORCH_HUB_MEM_LIMIT       per student server [2G]
    TEACHTORCH_HUB_CPU_LIMIT       per student server, in cores [1]
    TEACHTORCH_HUB_START_TIMEOUT   seconds a server may take to start [180]
    TEACHTORCH_HUB_ACTIVE_SERVER_LIMIT  most servers running at once, 0 for no limit [0]
    TEACHTORCH_HUB_CULL_TIMEOUT    idle seconds before the culler stops a server, 0 for no culler [3600]
    TEACHTORCH_HUB_CULL_EVERY      seconds between the culler's checks [300]
    TEACHTORCH_HUB_KERNEL_TRANSPORT  ipc (Unix sockets) or tcp, between each server and its kernels [ipc]
    TEACHTORCH_HUB_RUNTIME_DIR     simple spawner: students' kernel sockets go in <this>/<name>
                                   [/tmp/teachtorch-hub-<uid>]
    TEACHTORCH_HUB_DEFAULT_URL     the page a student's JupyterLab opens [/lab/tree/lessons/index.py]
    TEACHTORCH_HUB_ADMIN_TOKEN     if set, a service `teachtorch-admin` with this API token and the admin
                                   role (deploy/jupyterhub/loadtest.py drives the hub with it) [unset]
"""

import math
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from course_copy import copy_course  # noqa: E402  (this folder's helper, standard library only)

c = get_config()  # noqa: F821  (JupyterHub's config loader provides it)


def env(name, default):
    value = os.environ.get("TEACHTORCH_HUB_" + name, "")
    return value if value.strip() else default


def env_list(name):
    return [item.strip() for item in env(name, "").split(",") if item.strip()]


COURSE_DIR = Path(env("COURSE_DIR", str(HERE.parent.parent))).resolve()
STATE_DIR = Path(env("STATE_DIR", str(COURSE_DIR / "build" / "hub" / "state"))).resolve()
HOMES = Path(env("HOMES", str(COURSE_DIR / "build" / "hub" / "homes"))).resolve()
STATE_DIR.mkdir(parents=True, exist_ok=True)
BIN = Path(sys.executable).parent           # the hub's venv: jupyterhub-singleuser and the culler live here

# --- the hub and the proxy ---------------------------------------------------------------------------------
c.JupyterHub.bind_url = f"http://{env('IP', '127.0.0.1')}:{int(env('PORT', '8000'))}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(env("API_PORT", "8081"))
c.JupyterHub.db_url = f"sqlite:///{STATE_DIR / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE_DIR / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE_DIR / "jupyterhub.pid")
c.JupyterHub.active_server_limit = int(env("ACTIVE_SERVER_LIMIT", "0"))
c.JupyterHub.cleanup_servers = True         # stopping the hub stops the students' servers (files stay)

PROXY = env("PROXY", str(HERE / "node_modules" / ".bin" / "configurable-http-proxy"))
if not Path(PROXY).exists() and not shutil.which(PROXY):
    raise SystemExit(f"configurable-http-proxy is missing ({PROXY}); install it with: "
                     f"npm ci --prefix {HERE}   (needs node >= 18 and npm: sudo apt-get install -y nodejs npm)")
c.ConfigurableHTTPProxy.command = [PROXY]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{int(env('PROXY_API_PORT', '8001'))}"
c.ConfigurableHTTPProxy.pid_file = str(STATE_DIR / "proxy.pid")
c.ConfigurableHTTPProxy.debug = False

# --- who may log in ------------------------------------------------------------------------------------------
AUTHENTICATORS = {
    "dummy": "jupyterhub.auth.DummyAuthenticator",
    "shared": "jupyterhub.authenticators.shared.SharedPasswordAuthenticator",
    "pam": "jupyterhub.auth.PAMAuthenticator",
    "native": "nativeauthenticator.NativeAuthenticator",
}
authenticator = env("AUTHENTICATOR", "dummy")
c.JupyterHub.authenticator_class = AUTHENTICATORS.get(authenticator, authenticator)
allowed, admins = env_list("ALLOWED_USERS"), env_list("ADMIN_USERS")
if allowed:
    c.Authenticator.allowed_users = set(allowed)
else:
    c.Authenticator.allow_all = True        # JupyterHub 5 lets no one in unless told who may come
if admins:
    c.Authenticator.admin_users = set(admins)
if authenticator == "shared":
    c.SharedPasswordAuthenticator.user_password = env("SHARED_PASSWORD", "")

# --- one server per student ------------------------------------------------------------------------------------
SPAWNERS = {
    "simple": "jupyterhub.spawner.SimpleLocalProcessSpawner",
    "local": "jupyterhub.spawner.LocalProcessSpawner",      # real Unix users, no limits
    "systemd": "systemdspawner.SystemdSpawner",
    "docker": "dockerspawner.DockerSpawner",
}
spawner = env("SPAWNER", "simple")
c.JupyterHub.spawner_class = SPAWNERS.get(spawner, spawner)
simple = c.JupyterHub.spawner_class == SPAWNERS["simple"]

if spawner != "docker":                     # (in a container, the image's own jupyterhub-singleuser)
    c.Spawner.cmd = [str(BIN / "jupyterhub-singleuser")]
c.Spawner.default_url = env("DEFAULT_URL", "/lab/tree/lessons/index.py")
c.Spawner.notebook_dir = "~"                # the student's home is the root JupyterLab shows
c.Spawner.start_timeout = int(env("START_TIMEOUT", "180"))
c.Spawner.http_timeout = int(env("START_TIMEOUT", "180"))
# Enforced by SystemdSpawner (MemoryMax / CPUQuota) and DockerSpawner; the simple spawner only passes them on.
c.Spawner.mem_limit = env("MEM_LIMIT", "2G")
cpu_limit = float(env("CPU_LIMIT", "1"))
c.Spawner.cpu_limit = cpu_limit
threads = str(max(1, math.ceil(cpu_limit)))
c.Spawner.environment = {name: threads for name in
                         ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
# Kernels talk to their server over Unix sockets, not TCP: with TCP, every server picks its kernels' ports by
# asking the OS for free ones and binding them a moment later, so twenty servers starting kernels at once
# sometimes pick the same port and a kernel dies with "Address already in use" (the load test hit it with
# 10 students). Each socket is <runtime dir>/kernel-<uuid>-ipc-<n>, and a socket path must be under 108
# bytes, so the simple spawner's servers keep their runtime files in a short per-student folder.
TRANSPORT = env("KERNEL_TRANSPORT", "ipc")
c.Spawner.args = [f"--KernelManager.transport={TRANSPORT}"]
if simple:
    HOMES.mkdir(parents=True, exist_ok=True)
    c.SimpleLocalProcessSpawner.home_dir_template = str(HOMES / "{username}")
    RUNTIME = env("RUNTIME_DIR", f"/tmp/teachtorch-hub-{os.getuid()}")
    c.Spawner.environment["JUPYTER_RUNTIME_DIR"] = lambda spawner: f"{RUNTIME}/{spawner.user.name}"
    if os.getuid() == 0:                    # every server runs as the hub's user; Jupyter refuses root unasked
        c.Spawner.args.append("--allow-root")
if spawner == "systemd":
    c.SystemdSpawner.default_shell = "/bin/bash"
    c.SystemdSpawner.isolate_tmp = True
    c.SystemdSpawner.isolate_devices = True


def student_home(spawner):
    """(folder, uid, gid) the course copy goes to: the spawner's notebook folder, owned by the student."""
    if hasattr(spawner, "home_dir"):                         # SimpleLocalProcessSpawner
        return Path(spawner.home_dir), None, None
    if "docker" in type(spawner).__name__.lower():            # a container's home is not on this machine
        return None, None, None
    try:                                                      # real Unix users (local / systemd spawners)
        import pwd
        entry = pwd.getpwnam(spawner.user.name)
        uid = entry.pw_uid if os.getuid() == 0 else None
        return Path(entry.pw_dir), uid, entry.pw_gid if uid is not None else None
    except (ImportError, KeyError):
        return None, None, None


def hand_out_the_course(spawner):
    """Pre-spawn hook: the student's own copy of the course, as `make work` makes it, never overwriting."""
    home, uid, gid = student_home(spawner)
    if home is None:        # e.g. DockerSpawner: copy into the user's volume from the image's start script
        spawner.log.warning("teachtorch: no home folder for %s; the course was not copied", spawner.user.name)
        return
    written = copy_course(COURSE_DIR, home, uid, gid)
    spawner.log.info("teachtorch: %d course file(s) copied into %s", len(written), home)


c.Spawner.pre_spawn_hook = hand_out_the_course

# --- services: the idle culler, and an admin token for scripts ---------------------------------------------
services, roles = [], []
cull_timeout = int(env("CULL_TIMEOUT", "3600"))
if cull_timeout > 0:
    services.append({
        "name": "idle-culler",
        "command": [sys.executable, "-m", "jupyterhub_idle_culler",
                    f"--timeout={cull_timeout}", f"--cull-every={int(env('CULL_EVERY', '300'))}"],
    })
    roles.append({"name": "idle-culler", "services": ["idle-culler"],
                  "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"]})
admin_token = env("ADMIN_TOKEN", "")
if admin_token:
    services.append({"name": "teachtorch-admin", "api_token": admin_token})
    roles.append({"name": "admin", "services": ["teachtorch-admin"]})
c.JupyterHub.services = services
c.JupyterHub.load_roles = roles
