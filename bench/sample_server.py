"""`python -m app …` under a sampling profiler (bench/classroom_load.py --profile).

    python bench/sample_server.py [--unwritten] [--nodelay] OUT.txt --host 127.0.0.1 --port 8000
    python bench/sample_server.py --nodelay - --host 127.0.0.1 --port 8000   # no profile

`--nodelay` (bench/classroom_load.py --real-nodelay) sets TCP_NODELAY on the server's
listening socket, which its connections inherit, without touching app/: what the real
server's latencies would be without Nagle's algorithm holding back a view while the
phone's ACK of the previous one is delayed (bench/echo_server.py). OUT `-` samples nothing.

`--unwritten` (bench/classroom_load.py --real-unwritten) is a ceiling experiment, never a
way to run a server: a move's transaction (app/service/tables/moves.py `MoveSQL.move`)
is skipped and reported as written, so the process plays on from its live copies and
persists no move. What the real server then costs a move is the least that any work on
persistence could bring it to: how far the CPU aim is from the design (issue 19).

Every 2 ms of the process's CPU time (ITIMER_PROF: an idle server is not sampled) the
running Python stack is counted (SAMPLE_MEMORY=1: also where the memory is, by
line, with tracemalloc, which slows the server down); with eventlet that is the stack of whichever
greenthread has the CPU, which is what we want to know. SIGTERM writes OUT.txt (the
functions by CPU share, inclusive and by themselves) and exits. No package needed:
py-spy is not installed here, and cProfile mis-attributes time across greenlet switches.
"""
from __future__ import annotations

import collections
import os
import runpy
import signal
import sys
import tracemalloc

INTERVAL = 0.002


def skip_move_writes() -> None:
    """`--unwritten`: every move's transaction is skipped and reported as written (the
    ceiling experiment of the module's docstring). The checkout being measured is
    imported for it: app/__main__.py first, whose top patches eventlet before anything
    else is imported (run as __main__ afterwards, it patches again, which changes nothing)."""
    sys.path[0] = os.getcwd()
    import app.__main__  # noqa: F401 - for its eventlet patching

    from app.service.tables.moves import MoveSQL

    def move(self, table_id, expected, values, event, *, due_changed=True) -> bool:
        return True

    MoveSQL.move = move


def main() -> None:
    args = sys.argv[1:]
    unwritten = "--unwritten" in args[:2]
    if unwritten:
        args.remove("--unwritten")
    if args and args[0] == "--nodelay":
        args = args[1:]
        from echo_server import nodelay_listen  # bench/ is sys.path[0]; app/__main__ then monkey-patches

        nodelay_listen()
    out = args[0]
    if unwritten:
        skip_move_writes()
    sys.argv = ["app"] + args[1:]
    if out == "-":
        sys.path[0] = os.getcwd()
        runpy.run_module("app", run_name="__main__", alter_sys=True)
        return
    sys.path[0] = os.getcwd()  # the checkout being measured (started with cwd there), not bench/
    stacks: collections.Counter = collections.Counter()

    lines = bool(os.environ.get("SAMPLE_LINES"))

    def sample(_signum, frame):
        stack = [(frame.f_code.co_filename, frame.f_lineno, "LINE " + frame.f_code.co_name)] if lines else []
        while frame is not None and len(stack) < 80:
            code = frame.f_code
            stack.append((code.co_filename, code.co_firstlineno, code.co_name))
            frame = frame.f_back
        stacks[tuple(stack)] += 1

    def dump(*_):
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        total = sum(stacks.values()) or 1
        inclusive, own = collections.Counter(), collections.Counter()
        for stack, n in stacks.items():
            own[stack[0]] += n
            for where in set(stack):
                inclusive[where] += n

        def name(where):
            path, line, func = where
            for prefix in (os.getcwd() + "/", sys.prefix + "/lib/"):
                path = path.replace(prefix, "")
            return f"{func} ({path}:{line})"

        lines = [f"{total} samples of {INTERVAL * 1000:g} ms CPU", "", "inclusive %  function"]
        lines += [f"{100 * n / total:10.1f}  {name(w)}" for w, n in inclusive.most_common(60)]
        lines += ["", "gc: " + ", ".join(f"gen{g}: {n} collections, {t * 1e3:.0f} ms" for g, (n, t) in sorted(gc_spent.items()))
                  + f"; full collections (at CPU s, ms): {gc_full}"]
        lines += ["", "self %  function"]
        lines += [f"{100 * n / total:6.1f}  {name(w)}" for w, n in own.most_common(40)]
        if tracemalloc.is_tracing():
            snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, "<frozen*")])
            stats = snapshot.statistics("lineno")
            lines += ["", f"memory traced: {sum(x.size for x in stats) / 2**20:.1f} MB; largest by line:"]
            lines += [f"{x.size / 2**20:8.2f} MB {x.count:8d}  {x.traceback[0].filename.replace(os.getcwd() + '/', '')}"
                      f":{x.traceback[0].lineno}" for x in stats[:40]]
        with open(out, "w") as f:
            f.write("\n".join(lines) + "\n")
        if os.environ.get("SAMPLE_STACKS"):  # every stack, for a closer look (pickle)
            import pickle
            with open(out + ".stacks", "wb") as f:
                pickle.dump({tuple(name(w) for w in stack): n for stack, n in stacks.items()}, f)
        os._exit(0)

    import gc
    import time
    gc_spent: dict = {}
    gc_start = [0.0]
    gc_full: list = []

    def gc_timer(phase, info):
        if phase == "start":
            gc_start[0] = time.process_time()
        else:
            n, t = gc_spent.get(info["generation"], (0, 0.0))
            gc_spent[info["generation"]] = (n + 1, t + time.process_time() - gc_start[0])
            if info["generation"] == 2:
                gc_full.append((round(time.process_time(), 2), round((time.process_time() - gc_start[0]) * 1e3, 1)))

    gc.callbacks.append(gc_timer)
    if os.environ.get("SAMPLE_MEMORY"):  # where the memory is at the end (slows the server down)
        tracemalloc.start()
    signal.signal(signal.SIGPROF, sample)
    signal.signal(signal.SIGTERM, dump)
    signal.setitimer(signal.ITIMER_PROF, INTERVAL, INTERVAL)
    runpy.run_module("app", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
