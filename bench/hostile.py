"""One hostile student: do 100 phones keep playing while one address attacks the server?

    python bench/hostile.py             # 100 phones, 45 s window per run (about 2 minutes)
    python bench/hostile.py --quick     # 100 phones, 20 s window per run (about 1 minute)
    python bench/hostile.py --keep      # keep the temp folder with both servers' logs

Two runs, each on a fresh real server (`python -m app`, eventlet, SQLite in a
temporary INSTANCE_PATH, started as bench/classroom_load.py starts it, with its
open-files limit set to 1,024, soft and hard, so it cannot raise it):

1. baseline: phones play (bench/classroom_load.py's phones: tables of 4, random
   legal moves at a human pace) through a warm-up and the measured window;
2. attack: the same, and when the window opens one address (127.0.0.2, see
   below) attacks for most of the window:
   * oversized long-polling posts, at once: 200 times an Engine.IO polling
     handshake, `40`, then a POST to that session whose headers announce 1 MiB
     (over the 64 KiB limit) and no body follows; the answer (status, closed,
     none in 5 s) is noted;
   * malformed packets, meanwhile: Socket.IO packets such as `42` and `42{}` as
     raw Engine.IO frames on a connected WebSocket, 5,000 in all, opening a new
     one whenever the server ends one (noting after how many it did);
   * slow headers, a quarter into the attack (a server out of open files lets
     nothing else in, so the other two go first): 2,000 sockets at once, each
     sending a request line, then one header line every 4 s, never ending the
     headers.
   Then the attacker leaves (closes everything) and, a few seconds later, the
   server's open files are counted again and a fresh `GET /` is tried, while
   the phones still play.

Printed side by side: the phones' p50/p95/p99 act->view latency (as classroom_load
measures it), moves a second and errors, whether the server stayed up (its exit
code if not), its open files (psutil num_fds) before the attack, at the peak and
after the attacker left, the bytes it wrote to stdout+stderr; what each attack
got; and the two aims: p95 under attack within 2x the baseline's, open files back
to the baseline's after the attacker left.

Everything runs on loopback, so the phones (127.0.0.1) and the attacker would be
one address: the attacker binds its sockets to 127.0.0.2 (any 127.x.y.z is the
local machine on Linux), which the server sees as another client, so a
per-address limit meant for the attacker does not fall on the phones. The bench
raises its own soft open-files limit to the hard one (the attacker's 2,000
sockets are opened in a separate process, which inherits it). Robust to a server
that dies or closes the attacker's sockets: that is reported, not raised.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import resource
import shutil
import signal
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from classroom_load import (ROOT, Servers, _die_with_parent, create_tables, discover_games, fmt,  # noqa: E402
                            fmt_errors, login, plan_tables, run_load, tail)

ATTACKER = "127.0.0.2"  # the hostile student's address; the phones connect from 127.0.0.1
SERVER_FILES = 1024  # the server's open-files limit (soft and hard): a common default
SLOW_INTERVAL = 4.0  # s between a slow socket's header lines ("every few seconds")
# The slow sockets start this far into the attack (a fraction of it): a server they take
# to its open-files limit lets nothing else in, so the posts and packets go first to be
# measured as well; they are still under way (waiting for answers, streaming) when it starts.
SLOW_START = 0.25
CONNECT_TIMEOUT = 5.0  # s a connect or a handshake's answer may take: SYN resent at 1 s and 3 s when the queue is full
ANSWER_WAIT = 5.0  # s an oversized post waits for the server's answer before it gives up
OVERSIZED = 1 << 20  # the Content-Length the oversized posts announce: 16x the 64 KiB limit
# The first malformed packets on a connection go one at a time, each given this long for
# the server's reaction, so "closed after N" is exact where a server closes early (on
# loopback it reacts within milliseconds unless starved); the rest stream as fast as the
# socket takes them, so a server that never closes costs the attack only half a second.
ONE_BY_ONE, REACTION = 10, 0.05
MALFORMED = ("42", "42{}", "42[]", "42[1]", '42["act"', "42null", '42"act"')  # no valid event among them
FILES_SLACK = 5  # open files "back to the baseline": within this many (SQLite's journal, a keep-alive)
P95_AIM = 2.0  # the phones' p95 under attack within this multiple of the baseline's


# ====================================================================== attacker
def attacker_main(cfg: dict, conn) -> None:
    """The attacker's process: waits for the start time, attacks, sends back what it saw."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the orchestrator ends us
    try:
        message = conn.recv()
        if message[0] != "go":
            return
        result = asyncio.run(attack(cfg, message[1], message[2]))
        conn.send(("result", result))
    except (BrokenPipeError, EOFError, KeyboardInterrupt):
        pass


async def attack(cfg: dict, start: float, seconds: float) -> dict:
    """The three attacks from cfg["source"], from `start` (time.time()) for `seconds`."""
    await asyncio.sleep(max(0.0, start - time.time()))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    target = (cfg["host"], cfg["port"], cfg["source"])
    slow = {"tried": cfg["slow"], "outcome": Counter(), "ended_after": []}
    posts = {"tried": cfg["posts"], "answer": Counter()}
    packets = {"tried": cfg["packets"], "sent": 0, "connections": 0, "closed_after": [], "connect_failed": Counter(),
               "answers": Counter()}
    writers: list = []  # every socket still open, closed when the attacker leaves
    # Every post and, SLOW_START later, every slow socket at once, as a script would: a
    # server that stops accepting makes each connect wait CONNECT_TIMEOUT, so a gradual
    # ramp would never reach 2,000.
    tasks = [asyncio.create_task(oversized_post(target, deadline, posts)) for _ in range(cfg["posts"])]
    tasks.append(asyncio.create_task(malformed_packets(target, deadline, packets)))
    await asyncio.sleep(seconds * SLOW_START)
    tasks += [asyncio.create_task(slow_socket(target, deadline, slow, writers)) for _ in range(cfg["slow"])]
    await asyncio.wait(tasks, timeout=max(0.0, deadline - loop.time()) + 1)
    for task in tasks:  # each ends by itself at the deadline; this is the safety net
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for writer in writers:
        writer.transport.abort()
    # The safety net's leftovers (none unless the event loop fell far behind).
    slow["outcome"]["unfinished"] += slow["tried"] - sum(slow["outcome"].values())
    posts["answer"]["unfinished"] += posts["tried"] - sum(posts["answer"].values())
    return {"slow": slow, "posts": posts, "packets": packets, "seconds": seconds}


async def connect(target, timeout: float = CONNECT_TIMEOUT):
    host, port, source = target
    return await asyncio.wait_for(asyncio.open_connection(host, port, local_addr=(source, 0)), timeout)


def failure(exc: BaseException) -> str:
    """A short name for why a socket operation failed."""
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
        return "timed out"
    if isinstance(exc, ConnectionRefusedError):
        return "refused"
    if isinstance(exc, ConnectionResetError):
        return "reset"
    if isinstance(exc, asyncio.IncompleteReadError):
        return "closed"
    if isinstance(getattr(exc, "status", None), int):  # aiohttp's refused WebSocket handshake
        return f"answered {exc.status}"
    return type(exc).__name__


async def slow_socket(target, deadline: float, out: dict, writers: list) -> None:
    """A request line, then a header line every SLOW_INTERVAL s until the deadline."""
    loop = asyncio.get_running_loop()
    try:
        reader, writer = await connect(target, min(CONNECT_TIMEOUT, deadline - loop.time()))
    except Exception as exc:
        out["outcome"][f"connect {failure(exc)}"] += 1
        return
    writers.append(writer)
    opened = loop.time()
    try:
        writer.write(f"GET / HTTP/1.1\r\nHost: {target[0]}:{target[1]}\r\n".encode())
        n = 0
        while True:
            left = deadline - loop.time()
            if left <= 0:
                # Open as far as the attacker can tell: a full accept queue completes the
                # handshake too (Linux), so these may never have reached the server.
                out["outcome"]["held until the attacker left"] += 1
                return
            try:
                data = await asyncio.wait_for(reader.read(1024), min(SLOW_INTERVAL, left))
            except asyncio.TimeoutError:
                n += 1
                writer.write(f"X-Slow-{n}: {'x' * 20}\r\n".encode())
                await writer.drain()
                continue
            # The server ended it: an answer (408, 431...) or closing without one.
            status = data.split(b" ", 2)[1].decode(errors="replace") if data.startswith(b"HTTP/") else None
            out["outcome"][f"answered {status}" if status else "closed by the server"] += 1
            out["ended_after"].append(loop.time() - opened)
            return
    except (ConnectionError, OSError) as exc:
        out["outcome"][f"{failure(exc)} by the server"] += 1
        out["ended_after"].append(loop.time() - opened)


async def http_exchange(target, request: bytes, wait: float, body: bool = True) -> tuple[int, bytes]:
    """One request on a fresh connection: (status, body up to the server's close; b"" with
    body=False, which reads the status line and headers only). Raises on no answer or a close."""
    reader, writer = await connect(target)
    try:
        writer.write(request)
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), wait)
        status = int(head.split(b" ", 2)[1])
        return status, await asyncio.wait_for(reader.read(), wait) if body else b""
    finally:
        writer.transport.abort()


def request(method: str, path: str, target, body: bytes = b"", length: int | None = None,
            version: str = "1.0") -> bytes:
    """HTTP/1.0 by default: the server answers unchunked and closes, so the body is all until EOF."""
    host, port, _ = target
    length = len(body) if length is None else length
    return (f"{method} {path} HTTP/{version}\r\nHost: {host}:{port}\r\nContent-Type: text/plain;charset=UTF-8\r\n"
            f"Content-Length: {length}\r\n\r\n").encode() + body


async def oversized_post(target, deadline: float, out: dict) -> None:
    """Polling handshake, `40`, then a POST announcing OVERSIZED bytes that never come."""
    loop = asyncio.get_running_loop()
    path = "/socket.io/?EIO=4&transport=polling"
    try:
        status, body = await http_exchange(target, request("GET", path, target), CONNECT_TIMEOUT)
        if status != 200 or not body.startswith(b"0"):
            out["answer"][f"handshake answered {status}"] += 1
            return
        path += "&sid=" + json.loads(body[1:])["sid"]
        await http_exchange(target, request("POST", path, target, b"40"), CONNECT_TIMEOUT)
    except Exception as exc:
        out["answer"][f"handshake {failure(exc)}"] += 1
        return
    try:
        status, _ = await http_exchange(target, request("POST", path, target, length=OVERSIZED, version="1.1"),
                                        min(ANSWER_WAIT, max(0.1, deadline - loop.time())), body=False)
        out["answer"][str(status)] += 1
    except (asyncio.TimeoutError, TimeoutError):
        out["answer"]["no answer"] += 1
    except Exception as exc:
        out["answer"][failure(exc)] += 1


async def malformed_packets(target, deadline: float, out: dict) -> None:
    """MALFORMED packets round-robin on a Socket.IO WebSocket; a new one when the server ends it."""
    import aiohttp

    loop = asyncio.get_running_loop()
    host, port, source = target
    url = f"http://{host}:{port}/socket.io/?EIO=4&transport=websocket"
    connector = aiohttp.TCPConnector(local_addr=(source, 0), force_close=True)
    async with aiohttp.ClientSession(connector=connector) as session:
        while out["sent"] < out["tried"] and loop.time() < deadline:
            try:
                ws = await asyncio.wait_for(session.ws_connect(url, autoping=True), CONNECT_TIMEOUT)
            except Exception as exc:
                out["connect_failed"][failure(exc)] += 1
                await asyncio.sleep(0.5)
                continue
            try:
                opening = await asyncio.wait_for(ws.receive(), CONNECT_TIMEOUT)  # Engine.IO `0{...}`
                if opening.type != aiohttp.WSMsgType.TEXT or not opening.data.startswith("0"):
                    raise ConnectionError("no Engine.IO open packet")
                await ws.send_str("40")  # Socket.IO connect to the default namespace
            except Exception as exc:
                out["connect_failed"][failure(exc)] += 1
                await ws.close()
                await asyncio.sleep(0.5)
                continue
            out["connections"] += 1
            ended = asyncio.Event()
            listener = asyncio.create_task(listen(ws, ended, out))
            sent_here = 0
            try:
                while out["sent"] < out["tried"] and not ended.is_set() and loop.time() < deadline:
                    await ws.send_str(MALFORMED[out["sent"] % len(MALFORMED)])
                    out["sent"] += 1
                    sent_here += 1
                    if sent_here <= ONE_BY_ONE:
                        try:
                            await asyncio.wait_for(ended.wait(), REACTION)
                        except asyncio.TimeoutError:
                            pass
                    else:
                        await asyncio.sleep(0)  # lets the listener see a close before the next packet
                if ended.is_set():
                    out["closed_after"].append(sent_here)
            except Exception:  # the server closed it while we wrote
                out["closed_after"].append(sent_here)
            finally:
                listener.cancel()
                await ws.close()


async def listen(ws, ended: asyncio.Event, out: dict) -> None:
    """Answers Engine.IO pings; notes what else comes; sets `ended` when the server ends the session."""
    import aiohttp

    async for message in ws:
        if message.type != aiohttp.WSMsgType.TEXT:
            break
        if message.data == "2":
            await ws.send_str("3")
        elif message.data.startswith(("41", "44", "1")):  # Socket.IO disconnect or error, Engine.IO close
            out["answers"][message.data[:2]] += 1
            break
        elif not message.data.startswith("40"):
            out["answers"][message.data[:24]] += 1
    ended.set()


# ================================================================== server watch
class Watch(threading.Thread):
    """The server's open files (before the attack, the peak, after the attacker left) and
    whether it is alive, without reaping it (the load's measurements still read it)."""

    def __init__(self, pid: int, url: str, start: float, attack_end: float, settle: float):
        super().__init__(daemon=True)
        self.pid, self.url, self.start_at, self.after_at = pid, url, start, attack_end + settle
        self.before = self.peak = self.after = None
        self.answers: str | None = None  # how a fresh GET / went after the attacker left
        self.died_at: float | None = None  # seconds after the attack's start
        self.stopped = threading.Event()

    def files(self) -> int | None:
        import psutil

        try:
            process = psutil.Process(self.pid)
            if process.status() != psutil.STATUS_ZOMBIE:
                return process.num_fds()
        except psutil.Error:
            pass
        if self.died_at is None:
            self.died_at = time.time() - self.start_at
        return None

    def run(self) -> None:
        self.stopped.wait(max(0.0, self.start_at - 0.2 - time.time()))
        self.before = self.files()
        while not self.stopped.is_set():
            now = time.time()
            count = self.files()
            if count is not None and now <= self.after_at:
                self.peak = max(self.peak or 0, count)
            if self.after is None and now >= self.after_at:
                self.after = count
                self.answers = self.probe()
            self.stopped.wait(0.2)

    def probe(self) -> str:
        """A process can live on without serving: eventlet's accept loop ends at EMFILE and
        the process waits for its open connections before it exits."""
        try:
            with urllib.request.urlopen(self.url + "/", timeout=CONNECT_TIMEOUT) as resp:
                return f"yes ({resp.status})"
        except urllib.error.HTTPError as exc:
            return f"yes ({exc.code})"
        except (urllib.error.URLError, OSError) as exc:
            return f"no ({failure(getattr(exc, 'reason', exc))})"


# ======================================================================= one run
class LimitedServers(Servers):
    """classroom_load's servers, the real one under an open-files limit and with the
    per-connection message budget as deployed (classroom_load lifts it)."""

    def __init__(self, args, tmp: Path):
        super().__init__(args, tmp, preexec=self.limit_files)
        self.files = args.files

    def limit_files(self) -> None:  # runs in the server's process, before exec
        _die_with_parent()
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.files, self.files))

    def env(self, instance: Path, url: str) -> dict:
        env = super().env(instance, url)
        env.pop("SOCKET_RATE", None)  # phones at a human pace stay well within the default budget
        env.pop("SOCKET_BURST", None)
        # The door's cap per address is what stops the slow sockets: the attacker (127.0.0.2)
        # meets the default, and the 100 phones on 127.0.0.1 stay under it as a class would.
        env.pop("CONNECTIONS_PER_ADDRESS", None)
        return env


def one_run(args, servers: LimitedServers, kind: str) -> dict:
    """The phones' load on a fresh server; with kind "attack", the attacker too."""
    run = {"kind": kind, "load": None, "failure": None, "attacker": None}
    running = servers.start_real(kind)
    server = running.servers[0]
    log_path = servers.tmp / f"real-{kind}.log"
    port = int(running.url.rsplit(":", 1)[1])
    watch = attacker = pipe = None
    ctx = multiprocessing.get_context("spawn")
    try:
        token = login(running.url)
        games = discover_games(running.url, token, args.games, args.table_size)
        tables = create_tables(running.url, token, plan_tables(games, args.phones))
        print(f"[{kind}] server on {running.url} (pid {server.pid}), {len(tables)} tables", flush=True)
        if kind == "attack":
            cfg = {"host": "127.0.0.1", "port": port, "source": args.source, "slow": args.slow_sockets,
                   "posts": args.posts, "packets": args.packets}
            pipe, child = ctx.Pipe()
            attacker = ctx.Process(target=attacker_main, args=(cfg, child), daemon=True, name="attacker")
            attacker.start()
            child.close()

        def on_go(start: float, end: float) -> None:
            nonlocal watch
            watch = Watch(server.pid, running.url, start, start + args.attack_seconds, args.settle)
            watch.start()
            if pipe is not None:
                pipe.send(("go", start, args.attack_seconds))

        try:
            run["load"] = run_load(args, "real", running, tables, token, on_go=on_go)
        except Exception as exc:  # the phones could not be measured; the rest still reports
            run["failure"] = f"{type(exc).__name__}: {exc}"
        if pipe is not None:
            run["attacker"] = attacker_report(pipe)
    except Exception as exc:
        run["failure"] = f"{type(exc).__name__}: {exc}"
    finally:
        if watch is not None:
            watch.stopped.set()
            watch.join(timeout=5)
        if attacker is not None:
            attacker.join(timeout=5)
            if attacker.is_alive():
                attacker.kill()
                attacker.join(timeout=5)
        exit_code = server.poll()
        servers.stop(running)
    run.update(exit_code=exit_code, log=log_summary(log_path),
               files=(watch.before, watch.peak, watch.after) if watch else (None, None, None),
               died_at=watch.died_at if watch else None, answers=watch.answers if watch else None)
    if exit_code is not None or not (run["answers"] or "").startswith("yes"):
        run["log_tail"] = tail(log_path, 6)  # read after the stop: a lingering server's last words come then
    return run


def log_summary(path: Path) -> dict:
    """The server's log (stdout and stderr, to its end): bytes, tracebacks, out-of-files errors."""
    summary = {"bytes": 0, "tracebacks": 0, "emfile": 0}
    try:
        summary["bytes"] = path.stat().st_size
        with open(path, "rb") as log:
            for line in log:
                summary["tracebacks"] += line.startswith(b"Traceback")
                summary["emfile"] += b"Too many open files" in line
    except OSError:
        pass
    return summary


def attacker_report(pipe) -> dict | None:
    """What the attacker saw; it is done by now unless it failed (its traceback is on stderr)."""
    try:
        if pipe.poll(ANSWER_WAIT + CONNECT_TIMEOUT + 10):
            return pipe.recv()[1]
    except (EOFError, OSError):
        pass
    return None


# ======================================================================== report
def alive(run: dict) -> str:
    if run["exit_code"] is None:
        return "yes"
    when = f", {run['died_at']:.0f} s after the attack began" if run.get("died_at") is not None \
        and run["kind"] == "attack" else ""
    return f"no (exit {run['exit_code']}{when})"


def files(run: dict) -> str:
    return " / ".join(fmt(x) if x is not None else "–" for x in run["files"])


def logged(run: dict) -> str:
    log = run["log"]
    return f"{fmt(log['bytes'])} ({fmt(log['tracebacks'])}, {fmt(log['emfile'])})"


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def counts(counter: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in Counter(counter).most_common() if v) or "none"


def report(base: dict, hit: dict, args) -> str:
    def load(run, key, digits=0):
        return fmt(run["load"][key], digits) if run["load"] else "–"

    def errors(run):
        return fmt_errors(run["load"]["errors"]) if run["load"] else "–"

    def seated(run):
        return f"{run['load']['joined']}/{run['load']['phones']}" if run["load"] else "–"

    rows = [("phones seated", seated(base), seated(hit)),
            ("p50 act→view ms", load(base, "p50"), load(hit, "p50")),
            ("p95 act→view ms", load(base, "p95"), load(hit, "p95")),
            ("p99 act→view ms", load(base, "p99"), load(hit, "p99")),
            ("accepted moves/s", load(base, "moves_per_s", 1), load(hit, "moves_per_s", 1)),
            ("phones' errors (acts in the window)", errors(base), errors(hit)),
            ("server alive at the end", alive(base), alive(hit)),
            ("server answers GET / after the attacker left", base["answers"] or "–", hit["answers"] or "–"),
            ("server open files: before / peak / after", files(base), files(hit)),
            ("server log: bytes (tracebacks, 'Too many open files')", logged(base), logged(hit))]
    lines = ["| | baseline | attack |", "|---|---|---|"] + [f"| {a} | {b} | {c} |" for a, b, c in rows]
    lines += ["", f"{args.phones} phones; window {args.seconds:g} s after {args.warmup:g} s warm-up; the attack "
              f"from {args.source} for the first {args.attack_seconds:g} s of the window; open files 'before' at "
              f"its start, 'after' {args.settle:g} s after the attacker left (the baseline: the same moments); "
              f"server open-files limit {args.files}."]
    for run in (base, hit):
        if run["failure"]:
            lines.append(f"- {run['kind']}: phones not measured: {run['failure']}")
        if run.get("log_tail"):
            lines.append(f"- {run['kind']}: the server's last lines:\n    "
                         + "\n    ".join(run["log_tail"].splitlines()))
    a = hit["attacker"]
    lines.append("")
    if a is None:
        lines.append("Attacker: no report (it failed, see its error above, or did not finish in time).")
    else:
        slow, posts, packets = a["slow"], a["posts"], a["packets"]
        ended = slow["ended_after"]
        lines += [
            "Attacker:",
            f"- slow headers: {slow['tried']:,} sockets: {counts(slow['outcome'])}; the server ended "
            f"{len(ended):,}" + (f", after a median {median(ended):.1f} s (max {max(ended):.1f} s)" if ended else ""),
            f"- oversized posts ({OVERSIZED:,} B announced): {posts['tried']}: {counts(posts['answer'])}",
            f"- malformed packets: {packets['sent']:,} of {packets['tried']:,} sent on {packets['connections']} "
            f"connection(s); the server ended {len(packets['closed_after'])}"
            + (f", after a median {median(packets['closed_after']):.0f} packets (first: "
               f"{packets['closed_after'][0]})" if packets["closed_after"] else "")
            + (f"; connects failed: {counts(packets['connect_failed'])}" if packets["connect_failed"] else "")
            + (f"; the server sent: {counts(packets['answers'])}" if packets["answers"] else ""),
        ]
    lines += ["", *verdicts(base, hit)]
    return "\n".join(lines)


def verdicts(base: dict, hit: dict) -> list[str]:
    out = []
    if base["load"] and hit["load"] and base["load"]["p95"] > 0 and hit["load"]["samples"]:
        ratio = hit["load"]["p95"] / base["load"]["p95"]
        out.append(f"p95 attack/baseline: {ratio:.1f}x (aim ≤ {P95_AIM:g}x): "
                   f"{'met' if ratio <= P95_AIM else 'MISSED'}")
    else:
        out.append(f"p95 attack/baseline: not measured (aim ≤ {P95_AIM:g}x): MISSED")
    if hit["load"]:
        # The percentiles count accepted acts only: phones cut off do not show there.
        failed = sum(n for code, n in hit["load"]["errors"].items() if code != "stale")
        if failed:
            line = f"  but {failed:,} of the phones' acts under attack failed (not stale)"
            if base["load"]:
                line += (f"; accepted moves/s {fmt(hit['load']['moves_per_s'], 1)} against "
                         f"{fmt(base['load']['moves_per_s'], 1)}")
            out.append(line)
    up = hit["exit_code"] is None and (hit["answers"] or "").startswith("yes")
    out.append(f"server stayed up and answering: {'yes' if up else 'NO'}")
    before, _, after = hit["files"]
    if before is None or after is None:
        out.append("open files after the attacker left: not measured (the server was gone, or the run failed): MISSED")
    else:
        met = after <= before + FILES_SLACK
        out.append(f"open files after the attacker left: {after} vs {before} before the attack "
                   f"(aim: back to it, within {FILES_SLACK}): {'met' if met else 'MISSED'}")
    return out


# ========================================================================== main
def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="20 s windows after 3 s warm-up (about 1 minute)")
    parser.add_argument("--phones", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=45.0, help="measured window of each run")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds of play before the window")
    parser.add_argument("--settle", type=float, default=5.0,
                        help="seconds after the attacker left before the server's open files are counted again")
    parser.add_argument("--attack-seconds", type=float, default=None,
                        help="how long the attack lasts from the window's start (default: the window less "
                             "--settle and 3 s, so the last count falls inside the window)")
    parser.add_argument("--slow-sockets", type=int, default=2000)
    parser.add_argument("--posts", type=int, default=200)
    parser.add_argument("--packets", type=int, default=5000)
    parser.add_argument("--source", default=ATTACKER, help="the attacker's loopback address")
    parser.add_argument("--files", type=int, default=SERVER_FILES, help="the server's open-files limit")
    parser.add_argument("--pace", type=float, default=0.2, help="phones' think time before each act (s)")
    parser.add_argument("--jitter", type=float, default=0.25, help="pace varies by +/- this fraction")
    parser.add_argument("--skip", default="autoplay", help="action types phones never choose (comma-separated)")
    parser.add_argument("--games", default="", help="game keys to use (default: every playable one)")
    parser.add_argument("--table-size", type=int, default=4)
    parser.add_argument("--phones-per-process", type=int, default=100, help="phones per load-generator process")
    parser.add_argument("--server-root", default=str(ROOT), help="the checkout whose `python -m app` runs")
    parser.add_argument("--server-python", default=sys.executable, help="the Python that runs the server")
    parser.add_argument("--keep", action="store_true", help="keep the temp folder (server logs)")
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds, args.warmup = 20.0, 3.0
    if args.attack_seconds is None:
        args.attack_seconds = max(1.0, args.seconds - args.settle - 3)
    args.skip = [x for x in args.skip.split(",") if x]
    args.games = [x for x in args.games.split(",") if x]
    # What classroom_load's servers and load read, for the embedded set-up.
    args.scaled, args.profile, args.affinity, args.bare_end_after = 0, None, "none", 0
    return args


def raise_own_files_limit(needed: int) -> None:
    """The attacker's sockets count against this process's limit (and its children's)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < needed:
        print(f"warning: the open-files hard limit is {hard}; the attacker needs about {needed} "
              "(raise it with `ulimit -Hn`)", file=sys.stderr)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def main(argv=None) -> int:
    args = parse_args(argv)
    raise_own_files_limit(args.slow_sockets + 500)

    def on_term(*_):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    tmp = Path(tempfile.mkdtemp(prefix="hostile-"))
    servers = LimitedServers(args, tmp)
    started = time.monotonic()
    runs = []
    try:
        print(f"$ python {' '.join(sys.argv)}\nserver: {servers.root}; temp: {tmp}", flush=True)
        servers.prepare()
        for kind in ("baseline", "attack"):
            runs.append(one_run(args, servers, kind))
            load = runs[-1]["load"]
            print(f"  {kind}: p95 {fmt(load['p95']) if load else '–'} ms, server {alive(runs[-1])}", flush=True)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        servers.stop_all()
        if len(runs) == 2:
            print()
            print(report(*runs, args))
            print(f"\n(total {time.monotonic() - started:.0f} s)")
        if args.keep:
            print(f"logs kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
