"""nginx in front of N Classroom Games workers: the configuration, generated.

    python deploy/nginx_conf.py --ports 8001,8002 --listen 80 > /etc/nginx/conf.d/classroom.conf
    python deploy/nginx_conf.py --ports 8001,8002 --listen 8000 --standalone /tmp/cg-nginx > /tmp/cg-nginx/nginx.conf

Default output: an `upstream` and a `server` block for nginx's conf.d/ (the distribution's
nginx.conf includes it inside `http {}`). `--standalone DIR`: a complete nginx.conf that
keeps its pid, logs and temporary files under DIR, for `nginx -p DIR -c DIR/nginx.conf`
without root (deploy/run_workers.py and bench/classroom_load.py use it).

Why each part is there:

* Sticky sessions. Socket.IO's long-polling transport (the phones' fallback when a
  WebSocket cannot get through, e.g. a school proxy) sends each request of one
  connection separately; they must all reach the worker that holds it. `--sticky cookie`
  (default) hashes a random `cg_lb` cookie nginx sets on the first response, so a class
  behind one NAT address still spreads over the workers; `--sticky ip` is nginx's
  `ip_hash` (simplest, but every phone behind one address lands on one worker).
* WebSocket upgrade: HTTP/1.1 to the upstream with the Upgrade/Connection headers
  passed through, and long read timeouts (a quiet table's socket stays open).
* X-Forwarded-For/-Proto/-Host/-Port: the workers run with PROXY_COUNT=1 so that
  request.remote_addr, the scheme (Secure cookies, links) and host are the visitor's.
* The door (as app/edge/serving.py keeps it for a worker without a proxy, which switches
  its own off behind one since every connection then comes from nginx): at most
  --connections-per-address (150) connections per visitor address (`limit_conn`; a class
  behind one NAT address needs about 75), and 10 s to send a request's headers or the
  next piece of its body (`client_header_timeout`, `client_body_timeout`), so a student
  trickling headers cannot hold nginx's connections either. 0 turns the cap off (the
  load bench's thousand phones all come from 127.0.0.1).
* client_max_body_size: uploads (question banks) are capped by the app at 64 KiB; 1m
  lets the app give its own clear error instead of nginx's.
"""
from __future__ import annotations

import argparse
import os
import sys

STICKY = ("cookie", "ip")
COOKIE = "cg_lb"
PER_ADDRESS = 150  # app/edge/serving.py's CONNECTIONS_PER_ADDRESS: the same class, the same number
HEADER_SECONDS = 10  # app/edge/serving.py's HEADER_SECONDS


def upstream_block(ports: list[int], host: str = "127.0.0.1", sticky: str = "cookie",
                   per_address: int = PER_ADDRESS) -> str:
    if sticky not in STICKY:
        raise ValueError(f"sticky is one of {', '.join(STICKY)}, not {sticky!r}")
    if not ports:
        raise ValueError("at least one worker port")
    rule = "    ip_hash;" if sticky == "ip" else "    hash $cg_lb_key consistent;"
    servers = "\n".join(f"    server {host}:{int(p)} max_fails=0;" for p in ports)
    parts = []
    if sticky == "cookie":
        # The phone's cookie if it has one, else this request's random id (which the
        # response then sets as the cookie): every later request of that phone hashes alike.
        parts.append(f"map $cookie_{COOKIE} $cg_lb_key {{\n    \"\" $request_id;\n    default $cookie_{COOKIE};\n}}\n"
                     f"map $cookie_{COOKIE} $cg_lb_set {{\n"
                     f"    \"\" \"{COOKIE}=$request_id; Path=/; HttpOnly; SameSite=Lax\";\n    default \"\";\n}}\n")
    # Upgrade only when the client asked for it; otherwise keep-alive to the upstream.
    parts.append("map $http_upgrade $cg_connection {\n    default upgrade;\n    \"\" \"\";\n}\n")
    if per_address:  # a zone lives at http level; the server block applies it
        parts.append("limit_conn_zone $binary_remote_addr zone=cg_per_address:10m;\n")
    parts.append(f"upstream classroom_games {{\n{rule}\n{servers}\n    keepalive 32;\n}}\n")
    return "\n".join(parts)


def server_block(listen: str | int = 80, sticky: str = "cookie", server_name: str = "_",
                 per_address: int = PER_ADDRESS, header_seconds: int = HEADER_SECONDS) -> str:
    if per_address < 0:
        raise ValueError("connections per address is a number of connections, or 0 for no cap")
    limit = (f"    limit_conn cg_per_address {int(per_address)};\n    limit_conn_status 503;\n"
             if per_address else "")
    set_cookie = "        add_header Set-Cookie $cg_lb_set;  # empty (not sent) once the phone has it\n" \
        if sticky == "cookie" else ""
    return f"""server {{
    listen {listen};
    server_name {server_name};
    client_max_body_size 1m;
    client_header_timeout {int(header_seconds)}s;
    client_body_timeout {int(header_seconds)}s;
{limit}
    location / {{
        proxy_pass http://classroom_games;
        proxy_http_version 1.1;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $cg_connection;
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto $scheme;
        proxy_set_header X-Forwarded-Host $host;
        proxy_set_header X-Forwarded-Port $server_port;
        # A table's socket may be quiet for minutes; Socket.IO pings every 10 s anyway.
        proxy_read_timeout 3600s;
        proxy_send_timeout 3600s;
        # Views go out as they are made, not when a buffer fills.
        proxy_buffering off;
{set_cookie}    }}
}}
"""


def site_config(ports: list[int], listen: str | int = 80, host: str = "127.0.0.1", sticky: str = "cookie",
                server_name: str = "_", per_address: int = PER_ADDRESS, header_seconds: int = HEADER_SECONDS) -> str:
    """The conf.d/ snippet: lives inside the distribution's `http {}`."""
    return (f"# Classroom Games: {len(ports)} worker(s), generated by deploy/nginx_conf.py\n"
            + upstream_block(ports, host, sticky, per_address) + "\n"
            + server_block(listen, sticky, server_name, per_address, header_seconds))


def standalone_config(ports: list[int], listen: str | int, prefix: str, host: str = "127.0.0.1",
                      sticky: str = "cookie", worker_processes: int | str = "auto",
                      per_address: int = PER_ADDRESS, header_seconds: int = HEADER_SECONDS) -> str:
    """A whole nginx.conf whose pid, logs and temp files stay under `prefix`."""
    prefix = os.path.abspath(prefix)
    temp = "\n".join(f"    {name}_temp_path {prefix}/{name};"
                     for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    return f"""# Classroom Games: standalone nginx, generated by deploy/nginx_conf.py
worker_processes {worker_processes};
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;

events {{
    worker_connections 8192;
}}

http {{
    access_log off;
{temp}
    default_type application/octet-stream;

{_indent(site_config(ports, listen, host, sticky, per_address=per_address, header_seconds=header_seconds))}}}
"""


def _indent(text: str) -> str:
    return "".join(("    " + line if line.strip() else line) for line in text.splitlines(True))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="nginx configuration for N Classroom Games workers")
    parser.add_argument("--ports", required=True, help="the workers' ports, comma-separated (e.g. 8001,8002)")
    parser.add_argument("--host", default="127.0.0.1", help="the workers' address (default 127.0.0.1)")
    parser.add_argument("--listen", default="80", help="what nginx listens on (port, or address:port)")
    parser.add_argument("--sticky", choices=STICKY, default="cookie", help="how a phone sticks to its worker")
    parser.add_argument("--server-name", default="_")
    parser.add_argument("--connections-per-address", type=int, default=PER_ADDRESS,
                        help=f"open connections one visitor address may hold (default {PER_ADDRESS}; 0: no cap)")
    parser.add_argument("--standalone", metavar="DIR", help="a whole nginx.conf keeping its files under DIR")
    args = parser.parse_args(argv)
    try:
        ports = [int(p) for p in args.ports.split(",") if p.strip()]
    except ValueError:
        parser.error("--ports is a comma-separated list of numbers")
    if args.standalone:
        text = standalone_config(ports, args.listen, args.standalone, args.host, args.sticky,
                                 per_address=args.connections_per_address)
    else:
        text = site_config(ports, args.listen, args.host, args.sticky, args.server_name,
                           per_address=args.connections_per_address)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
