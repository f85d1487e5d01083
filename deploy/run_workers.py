"""Start N Classroom Games workers on this machine, with nginx in front if it is installed.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/classroom \\
    SOCKETIO_MESSAGE_QUEUE=redis://127.0.0.1:6379/0 \\
        python deploy/run_workers.py --workers 2 --listen 8000

Each worker is `python -m app --host 127.0.0.1 --port P` on consecutive ports from
--first-port (8001, 8002, ...), all sharing DATABASE_URL and SOCKETIO_MESSAGE_QUEUE
(both required for more than one worker: SQLite and in-process rooms are one process's).
nginx (deploy/nginx_conf.py, standalone, files under --run-dir) listens on --listen and
the workers get PROXY_COUNT=1. Without nginx (not installed, or --no-nginx) the workers
are reachable on their own ports only: fine for one worker, not for a class on several.
Ctrl-C (or SIGTERM) stops everything this started. bench/classroom_load.py uses the same
functions for its N-worker runs.
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nginx_conf import STICKY, standalone_config  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def find_nginx() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx")
                                          if os.access(p, os.X_OK)), None)


def _popen(cmd: list[str], env: dict | None, log_path: Path | None, cwd: Path = ROOT) -> subprocess.Popen:
    out = open(log_path, "ab") if log_path else None
    try:
        # Own session: stopping it stops its children too, and Ctrl-C reaches only us.
        return subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT if out else None, start_new_session=True)
    finally:
        if out:
            out.close()


def start_worker(port: int, env: dict, log_path: Path | None = None, root: Path = ROOT,
                 entry: tuple = ("-m", "app")) -> subprocess.Popen:
    """`python -m app` on 127.0.0.1:port (`entry`: another way in, e.g. the bench's profiler)."""
    return _popen([sys.executable, *entry, "--host", "127.0.0.1", "--port", str(port)], env, log_path, root)


def wait_ready(url: str, procs: list[subprocess.Popen], timeout: float = 60.0) -> None:
    """Until `url` answers 200 (or a process of `procs` exits: RuntimeError)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for proc in procs:
            if proc.poll() is not None:
                raise RuntimeError(f"{' '.join(map(str, proc.args[:4]))} exited ({proc.returncode})")
        try:
            with urllib.request.urlopen(url + "/", timeout=2) as resp:
                if resp.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer in {timeout:.0f} s")


def start_nginx(ports: list[int], listen: int | str, run_dir: Path, sticky: str = "cookie",
                worker_processes: int | str = 1, per_address: int | None = None,
                header_seconds: int | None = None) -> subprocess.Popen:
    """nginx in the foreground (so stopping the process stops it), its files under run_dir.
    per_address and header_seconds: None keeps nginx_conf's defaults (the tests shorten the deadline)."""
    nginx = find_nginx()
    if nginx is None:
        raise RuntimeError("nginx is not installed")
    run_dir.mkdir(parents=True, exist_ok=True)
    # Run as root, nginx's worker processes become `nobody`: they must reach the temp dirs.
    run_dir.chmod(0o755)
    for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (run_dir / name).mkdir(exist_ok=True)
        (run_dir / name).chmod(0o777)
    conf = run_dir / "nginx.conf"
    door = {name: value for name, value in (("per_address", per_address), ("header_seconds", header_seconds))
            if value is not None}
    conf.write_text(standalone_config(ports, listen, str(run_dir), sticky=sticky, worker_processes=worker_processes,
                                      **door))
    check = subprocess.run([nginx, "-t", "-p", str(run_dir), "-c", str(conf), "-e", str(run_dir / "error.log")],
                           capture_output=True, text=True)
    if check.returncode != 0:
        raise RuntimeError(f"nginx refused the configuration:\n{check.stderr}")
    return _popen([nginx, "-p", str(run_dir), "-c", str(conf), "-e", str(run_dir / "error.log"),
                   "-g", "daemon off;"], None, run_dir / "nginx.out")


def stop(proc: subprocess.Popen | None, grace: float = 10.0) -> None:
    """SIGTERM to its process group, then SIGKILL."""
    if proc is None or proc.poll() is not None:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def worker_env(base: dict, *, behind_proxy: bool) -> dict:
    env = dict(base)
    env.pop("ASYNC_MODE", None)  # python -m app's default: eventlet
    if behind_proxy:
        env["PROXY_COUNT"] = "1"
    return env


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="N Classroom Games workers behind nginx")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--first-port", type=int, default=8001, help="worker ports: this and the next N-1")
    parser.add_argument("--listen", default="8000", help="nginx's port or address:port (default 8000)")
    parser.add_argument("--sticky", choices=STICKY, default="cookie")
    parser.add_argument("--no-nginx", action="store_true", help="only the workers")
    parser.add_argument("--run-dir", help="nginx's and the workers' logs (default: a temp folder)")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers is at least 1")
    env = dict(os.environ)
    if args.workers > 1:
        missing = [k for k in ("DATABASE_URL", "SOCKETIO_MESSAGE_QUEUE") if not env.get(k)]
        if missing or not env["DATABASE_URL"].startswith("postgresql"):
            parser.error("more than one worker needs DATABASE_URL=postgresql://... and "
                         "SOCKETIO_MESSAGE_QUEUE=redis://... in the environment (see deploy/README.md)")
    nginx = None if args.no_nginx else find_nginx()
    if nginx is None and not args.no_nginx:
        print("nginx is not installed: starting the workers only (apt-get install nginx)", file=sys.stderr)
    run_dir = Path(args.run_dir or tempfile.mkdtemp(prefix="classroom-workers-")).resolve()
    run_dir.mkdir(parents=True, exist_ok=True)
    ports = [args.first_port + i for i in range(args.workers)]
    procs: list[subprocess.Popen] = []

    def on_term(*_):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    try:
        wenv = worker_env(env, behind_proxy=nginx is not None)
        # The first worker alone migrates the database; the rest start once it answers
        # (they would wait on the migration lock anyway).
        for i, port in enumerate(ports):
            procs.append(start_worker(port, wenv, run_dir / f"worker-{port}.log"))
            if i == 0:
                wait_ready(f"http://127.0.0.1:{port}", procs[:1])
        for port in ports[1:]:
            wait_ready(f"http://127.0.0.1:{port}", procs)
        if nginx is not None:
            procs.append(start_nginx(ports, args.listen, run_dir / "nginx", args.sticky, worker_processes="auto"))
            listen = args.listen if ":" in str(args.listen) else f"127.0.0.1:{args.listen}"
            wait_ready(f"http://{listen}", procs)
            print(f"nginx on {args.listen} -> workers on {', '.join(map(str, ports))}; logs in {run_dir}", flush=True)
        else:
            print(f"workers on {', '.join(map(str, ports))}; logs in {run_dir}", flush=True)
        while all(p.poll() is None for p in procs):
            time.sleep(1)
        failed = [p for p in procs if p.poll() is not None]
        print(f"{' '.join(map(str, failed[0].args[:4]))} exited ({failed[0].returncode}); stopping the rest",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        for proc in reversed(procs):
            stop(proc)


if __name__ == "__main__":
    sys.exit(main())
