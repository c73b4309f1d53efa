"""A class logging in at once: N simulated students against a running teachtorch hub, each running lesson 1.

    python deploy/jupyterhub/loadtest.py -n 20                # the hub at $TEACHTORCH_HUB_URL, token below
    python deploy/jupyterhub/loadtest.py -n 3 --url http://127.0.0.1:8000 --token TOKEN --time-limit 300

The hub must be deploy/jupyterhub/jupyterhub_config.py (or one like it) with an admin API token: start it with
TEACHTORCH_HUB_ADMIN_TOKEN=<token> and pass the same token here (--token, or that variable). Every student,
all at once (or spread over --ramp seconds):

1. logs in: the admin token creates the user (loadtest-NN), asks a token for them and starts their server,
   as the hub's login page would; then waits until the hub says the server is ready;
2. checks the course was handed out: the contents API lists lessons/01_storage.py in their home;
3. opens lesson 1 as JupyterLab does (the contents API gives the student's .py as a notebook, by jupytext),
   starts a kernel for it (a session), and runs every code cell in order over the kernel's websocket;
   a cell that raises is a failure;
4. is measured: login to the first cell's reply, login to server ready, the whole lesson, and the resident
   memory of their single-user server and its kernel (when the hub runs on this machine: psutil);
5. is cleaned up: kernel shut down, server stopped, user deleted (and their home with --homes DIR).

The run stops by itself: each student has --per-student-timeout seconds, the whole run --time-limit seconds;
cleanup always runs. It prints the figures and every failure with its reason, writes them as JSON with
--json PATH, and exits 0 only when every student ran the whole lesson.

Needs only Python, tornado (which JupyterHub and Jupyter server bring) and, for the memory figures, psutil.
"""

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import quote

from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest
from tornado.websocket import WebSocketClosedError, websocket_connect

try:
    import psutil
except ImportError:                     # memory figures are then left out
    psutil = None

LESSON = "lessons/01_storage.py"


class StudentFailed(Exception):
    """One student's run stopped here; the message is the reason printed."""


class Student:
    def __init__(self, hub, index, args):
        self.hub, self.args = hub, args
        self.name = f"{args.prefix}{index:02d}"
        self.token = None
        self.server_url = None
        self.pid = None
        self.result = {"name": self.name, "ok": False, "stage": "login", "reason": None}

    # --- talking to the hub and to the student's server ---------------------------------------------------
    async def api(self, method, path, body=None, token=None, ok=(200, 201, 202, 204), timeout=60):
        """JSON of one REST call (hub API with the admin token by default, or with the student's token)."""
        request = HTTPRequest(
            self.hub.url + path, method=method,
            headers={"Authorization": f"token {token or self.hub.token}", "Content-Type": "application/json"},
            body=None if body is None and method != "POST" else json.dumps(body or {}),
            request_timeout=timeout, connect_timeout=timeout, follow_redirects=False)
        try:
            response = await self.hub.http.fetch(request, raise_error=False)
        except OSError as error:
            raise StudentFailed(f"{method} {path}: {error}") from None
        if response.code not in ok:
            text = (response.body or b"").decode("utf-8", "replace")[:300]
            raise StudentFailed(f"{method} {path}: HTTP {response.code} {text}".strip())
        return json.loads(response.body) if response.body else None

    async def user_api(self, method, path, body=None, **kw):
        return await self.api(method, self.server_url + path, body, token=self.token, **kw)

    # --- the run ---------------------------------------------------------------------------------------------
    async def run(self):
        r, user = self.result, quote(self.name)
        t0 = time.monotonic()
        r["stage"] = "create user"
        await self.api("POST", f"/hub/api/users/{user}", ok=(201,))
        r["stage"] = "user token"
        self.token = (await self.api("POST", f"/hub/api/users/{user}/tokens",
                                     {"note": "teachtorch loadtest", "expires_in": 3600}))["token"]
        r["stage"] = "start server"
        await self.api("POST", f"/hub/api/users/{user}/server", ok=(201, 202),
                       timeout=self.args.per_student_timeout)
        while True:                                          # the spinner page, as the hub's REST API sees it
            model = await self.api("GET", f"/hub/api/users/{user}")
            server = model.get("servers", {}).get("")
            if server and server.get("ready"):
                break
            if not server or not server.get("pending"):
                raise StudentFailed("server did not start (the hub's log says why): "
                                    f"{json.dumps(model.get('servers'))[:200]}")
            await asyncio.sleep(0.5)
        r["ready_s"] = time.monotonic() - t0
        self.server_url = server["url"].rstrip("/")          # /user/<name>
        self.pid = (server.get("state") or {}).get("pid")

        r["stage"] = "course copy"
        listing = await self.user_api("GET", "/api/contents/lessons?content=1")
        names = {item["name"] for item in listing.get("content") or []}
        if Path(LESSON).name not in names:
            raise StudentFailed(f"the course copy is missing: lessons/ has {sorted(names)[:8]}")
        notebook = await self.user_api("GET", f"/api/contents/{LESSON}?type=notebook&content=1")
        cells = [cell for cell in notebook["content"]["cells"] if cell["cell_type"] == "code"]
        if not cells:
            raise StudentFailed(f"{LESSON} opened with no code cells")

        r["stage"] = "start kernel"
        session = await self.user_api("POST", "/api/sessions", {
            "path": LESSON, "name": Path(LESSON).name, "type": "notebook", "kernel": {"name": "python3"}},
            timeout=self.args.per_student_timeout)
        kernel_id = session["kernel"]["id"]
        try:
            r["stage"] = "run lesson"
            await self.run_cells(kernel_id, cells, t0)
            r["lesson_s"] = time.monotonic() - t0
            self.measure_memory()
        finally:
            try:
                await self.user_api("DELETE", f"/api/sessions/{session['id']}", timeout=30)
            except StudentFailed:
                pass
        r["ok"], r["stage"] = True, "done"

    async def run_cells(self, kernel_id, cells, t0):
        session_id = uuid.uuid4().hex
        ws_url = (self.hub.url.replace("http", "ws", 1) + self.server_url
                  + f"/api/kernels/{kernel_id}/channels?session_id={session_id}")
        try:
            ws = await websocket_connect(HTTPRequest(
                ws_url, headers={"Authorization": f"token {self.token}"},
                connect_timeout=60, request_timeout=self.args.per_student_timeout))
        except (OSError, HTTPClientError, WebSocketClosedError) as error:
            raise StudentFailed(f"kernel websocket: {type(error).__name__} {error} (the kernel did not "
                                "answer; the hub's log says why)") from None
        number = 0
        try:
            for number, cell in enumerate(cells, 1):
                source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
                msg_id = uuid.uuid4().hex
                ws.write_message(json.dumps({
                    "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": self.name,
                               "session": session_id, "version": "5.3", "date": ""},
                    "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                    "content": {"code": source, "silent": False, "store_history": True,
                                "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}}))
                reply = idle = None
                while reply is None or idle is None:
                    message = await ws.read_message()
                    if message is None:
                        raise StudentFailed(f"cell {number}: the kernel's websocket closed (the kernel died "
                                            "or did not answer; the hub's log says why)")
                    if isinstance(message, bytes):            # a message with binary buffers (widgets)
                        continue
                    message = json.loads(message)
                    if message.get("parent_header", {}).get("msg_id") != msg_id:
                        continue
                    kind = message["header"]["msg_type"]
                    if kind == "execute_reply":
                        reply = message["content"]
                    elif kind == "status" and message["content"].get("execution_state") == "idle":
                        idle = True
                if reply.get("status") != "ok":
                    raise StudentFailed(f"cell {number} raised {reply.get('ename')}: "
                                        f"{str(reply.get('evalue'))[:200]}")
                if number == 1:
                    self.result["first_cell_s"] = time.monotonic() - t0
                self.sample_memory()
            self.result["cells"] = len(cells)
        except WebSocketClosedError:
            raise StudentFailed(f"cell {number}: the kernel's websocket closed (the kernel died or did not "
                                "answer; the hub's log says why)") from None
        finally:
            ws.close()

    # --- memory ---------------------------------------------------------------------------------------------
    def tree(self):
        """[single-user server process, its kernels and other children], or [] if not found here."""
        if psutil is None:
            return []
        try:
            if self.pid is None:
                for proc in psutil.process_iter(["cmdline"]):
                    if any("jupyterhub-singleuser" in part for part in proc.info["cmdline"] or ()):
                        try:
                            if proc.environ().get("JUPYTERHUB_USER") == self.name:
                                self.pid = proc.pid
                                break
                        except (psutil.AccessDenied, psutil.NoSuchProcess):
                            continue
            if self.pid is None:
                return []
            server = psutil.Process(self.pid)
            return [server] + server.children(recursive=True)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            return []

    def sample_memory(self):
        total = 0
        for proc in self.tree():
            try:
                total += proc.memory_info().rss
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                pass
        if total:
            self.result["peak_rss_mb"] = max(self.result.get("peak_rss_mb", 0), total / 2**20)

    def measure_memory(self):
        procs = self.tree()
        if not procs:
            return
        server_rss = kernel_rss = uss = 0
        for proc in procs:
            try:
                info = proc.memory_full_info()
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
            if proc.pid == self.pid:
                server_rss += info.rss
            else:
                kernel_rss += info.rss
            uss += getattr(info, "uss", 0)
        self.result.update(server_rss_mb=server_rss / 2**20, kernel_rss_mb=kernel_rss / 2**20,
                           rss_mb=(server_rss + kernel_rss) / 2**20, uss_mb=uss / 2**20)

    # --- cleanup --------------------------------------------------------------------------------------------
    async def cleanup(self):
        user = quote(self.name)
        try:
            await self.api("DELETE", f"/hub/api/users/{user}/server", ok=(202, 204, 400, 404), timeout=60)
            for _ in range(120):
                model = await self.api("GET", f"/hub/api/users/{user}", ok=(200, 404))
                if not model or not model.get("servers"):
                    break
                await asyncio.sleep(0.5)
            await self.api("DELETE", f"/hub/api/users/{user}", ok=(204, 404), timeout=60)
        except StudentFailed as error:
            return f"{self.name}: cleanup: {error}"
        if self.args.homes:
            shutil.rmtree(Path(self.args.homes) / self.name, ignore_errors=True)
        return None


class Hub:
    def __init__(self, url, token):
        self.url, self.token = url.rstrip("/"), token
        AsyncHTTPClient.configure(None, max_clients=1000)
        self.http = AsyncHTTPClient()


def percentile(values, q):
    values = sorted(values)
    if not values:
        return None
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def summary(results, wall_s, n):
    ok = [r for r in results if r["ok"]]
    lines = [f"students: {n}, ran lesson 1 to the end: {len(ok)}, failed: {n - len(ok)}, wall {wall_s:.1f} s"]

    def stat(key, label, unit="s", fmt="{:.1f}"):
        values = [r[key] for r in results if r.get(key) is not None]
        if values:
            lines.append(f"{label}: median {fmt.format(statistics.median(values))} {unit}, "
                         f"p95 {fmt.format(percentile(values, 0.95))} {unit}, "
                         f"max {fmt.format(max(values))} {unit} (n={len(values)})")

    stat("ready_s", "login to server ready")
    stat("first_cell_s", "login to first cell")
    stat("lesson_s", "login to lesson 1 done")
    stat("rss_mb", "memory per student, RSS server+kernel", "MiB", "{:.0f}")
    stat("server_rss_mb", "  single-user server RSS", "MiB", "{:.0f}")
    stat("kernel_rss_mb", "  kernel RSS", "MiB", "{:.0f}")
    stat("uss_mb", "  USS server+kernel (not shared)", "MiB", "{:.0f}")
    stat("peak_rss_mb", "  peak RSS seen between cells", "MiB", "{:.0f}")
    for r in results:
        if not r["ok"]:
            lines.append(f"FAILED {r['name']} at '{r['stage']}': {r['reason']}")
    return "\n".join(lines)


async def main_async(args):
    hub = Hub(args.url, args.token)
    students = [Student(hub, i + 1, args) for i in range(args.n)]
    started = time.monotonic()
    deadline = started + args.time_limit

    async def one(student, delay):
        await asyncio.sleep(delay)
        budget = min(args.per_student_timeout, deadline - time.monotonic())
        try:
            await asyncio.wait_for(student.run(), max(budget, 0.1))
        except asyncio.TimeoutError:
            limit = "per-student timeout" if budget >= args.per_student_timeout else "total time limit"
            student.result["reason"] = f"timed out ({limit}, {budget:.0f} s)"
        except StudentFailed as error:
            student.result["reason"] = str(error)
        except Exception as error:  # noqa: BLE001  (any other error is this student's failure, with its type)
            student.result["reason"] = f"{type(error).__name__}: {error}"

    spread = args.ramp / max(args.n - 1, 1) if args.ramp else 0
    try:
        await asyncio.gather(*(one(s, i * spread) for i, s in enumerate(students)))
    finally:
        wall = time.monotonic() - started
        cleanup = await asyncio.wait_for(asyncio.gather(*(s.cleanup() for s in students)), 300)
    results = [s.result for s in students]
    for problem in filter(None, cleanup):
        print("cleanup problem:", problem, file=sys.stderr)
    report = summary(results, wall, args.n)
    print(report)
    if args.json:
        Path(args.json).write_text(json.dumps({"n": args.n, "wall_s": wall, "results": results,
                                               "cleanup_problems": [p for p in cleanup if p]}, indent=1))
    return 0 if all(r["ok"] for r in results) else 1


def parse_args(argv=None):
    port = os.environ.get("TEACHTORCH_HUB_PORT", "8000")
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-n", type=int, default=20, help="how many students (default 20)")
    p.add_argument("--url", default=os.environ.get("TEACHTORCH_HUB_URL", f"http://127.0.0.1:{port}"),
                   help="the hub's public URL (default $TEACHTORCH_HUB_URL or http://127.0.0.1:$TEACHTORCH_HUB_PORT)")
    p.add_argument("--token", default=os.environ.get("TEACHTORCH_HUB_ADMIN_TOKEN"),
                   help="an admin API token (default $TEACHTORCH_HUB_ADMIN_TOKEN)")
    p.add_argument("--time-limit", type=float, default=900, help="the whole run, seconds (default 900)")
    p.add_argument("--per-student-timeout", type=float, default=600, help="seconds per student (default 600)")
    p.add_argument("--ramp", type=float, default=0, help="spread the logins over this many seconds (default 0)")
    p.add_argument("--prefix", default="loadtest-", help="user names are PREFIX01, PREFIX02, ...")
    p.add_argument("--homes", help="the hub's TEACHTORCH_HUB_HOMES: delete each test user's home after")
    p.add_argument("--json", help="write every student's figures and failures here")
    args = p.parse_args(argv)
    if not args.token:
        p.error("an admin token is needed: --token or TEACHTORCH_HUB_ADMIN_TOKEN (the hub must be started "
                "with the same TEACHTORCH_HUB_ADMIN_TOKEN)")
    return args


def main(argv=None):
    return asyncio.run(main_async(parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
