# Sourced by scripts/run and scripts/test: make sure .venv exists and holds the
# project (with the extras named in $VENV_EXTRAS), then put it first on PATH.
# Works with Debian's and Ubuntu's system Python, where `pip install` outside a
# virtual environment is refused (PEP 668): everything goes into .venv.
# Needs: python3 (3.11+). As root it installs what Debian lacks (python3-venv,
# WeasyPrint's Pango); otherwise it stops with the exact command to run.

need_root_or_say() {  # need_root_or_say "apt packages" "why"
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Debian packages ($2): $1"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $1 >/dev/null
  else
    echo "Classroom Games needs $2. Install it, then run this again:" >&2
    echo "    sudo apt-get install -y $1" >&2
    exit 1
  fi
}

PYTHON=${PYTHON:-python3}
if ! command -v "$PYTHON" >/dev/null 2>&1; then
  echo "Python 3.11 or newer is needed: install it (Debian/Ubuntu: sudo apt-get install -y python3), then run this again." >&2
  exit 1
fi
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "Python 3.11 or newer is needed; $("$PYTHON" --version 2>&1) was found." >&2
  exit 1
fi

VENV=.venv
if [ ! -x "$VENV/bin/python" ]; then
  rm -rf "$VENV"
  if ! "$PYTHON" -m venv "$VENV" >/dev/null 2>&1; then
    rm -rf "$VENV"
    need_root_or_say "python3-venv" "Python's venv module (python3-venv)"
    "$PYTHON" -m venv "$VENV"
  fi
fi

# WeasyPrint (the PDF reports) loads Pango from the system; Noto's fonts print students' names in
# the scripts the shipped DejaVu lacks (CJK, Devanagari, Thai; app/reports/render_worker.py).
if command -v ldconfig >/dev/null 2>&1 && ! ldconfig -p 2>/dev/null | grep -q "libpango-1.0"; then
  need_root_or_say "libpango-1.0-0 libpangoft2-1.0-0 fonts-dejavu-core fonts-noto-core fonts-noto-cjk" \
    "the Pango text library and fonts for PDF reports"
elif command -v dpkg >/dev/null 2>&1 && ! { dpkg -s fonts-noto-core && dpkg -s fonts-noto-cjk; } >/dev/null 2>&1; then
  need_root_or_say "fonts-noto-core fonts-noto-cjk" "the fonts that print names in every script in PDF reports"
fi

# Install (again) only when the lock or pyproject.toml changed since the last install. The
# packages come from the lock file (requirements/, written by scripts/lock): the same
# releases, checked against their hashes, on every machine; an install with the test
# extras also serves the server. The installer is uv (itself locked, requirements/tools.txt,
# and put in by pip): it installs the test lock in a few seconds where pip took 35 s, on
# every fresh clone CI tests. Its cache is ~/.cache/uv.
lock=requirements/${VENV_EXTRAS:-app}.txt
installed() {  # installed LOCK EXTRAS: the stamp an install from that lock leaves in .venv
  echo "$VENV/.installed-$(cat pyproject.toml "$1" requirements/tools.txt | cksum | cut -d' ' -f1)-$2"
}
stamp=$(installed "$lock" "${VENV_EXTRAS:-base}")
if [ ! -f "$stamp" ] && ! { [ -z "${VENV_EXTRAS:-}" ] && [ -f "$(installed requirements/test.txt test)" ]; }; then
  echo "Installing Classroom Games into $VENV from $lock (first run, or the lock changed)…"
  log="$VENV/install.log"
  uv=("$VENV/bin/python" -m uv pip install --python "$VENV/bin/python" --compile-bytecode)
  if ! { "$VENV/bin/python" -m pip install --disable-pip-version-check --require-hashes -r requirements/tools.txt &&
         "${uv[@]}" --require-hashes -r "$lock" && "${uv[@]}" --no-deps -e .; } >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "Installing into $VENV failed (the whole log: $log)." >&2
    exit 1
  fi
  for old in "$VENV"/.installed-*; do
    [ "$old" = "$stamp" ] || rm -f "$old"
  done
  touch "$stamp"
fi
export PATH="$PWD/$VENV/bin:$PATH"
