#!/usr/bin/env bash
# The system tools orca's tests drive, checked before `npm test` runs them (README, Requirements):
# rg (ripgrep: Grep's fast path), bwrap (bubblewrap: the Bash sandbox, which must work here, not
# only be installed), jq (Claude Code-style hook scripts), tmux (a real terminal: its asks and
# its Ctrl-C), socat (the sandbox's proxy relay; without it orca falls back to a slower one in
# Node), Debian's chromium (the web board in a real browser) and a Redis answering at
# REDIS_URL (redis-server, started here when nothing answers).
# As root, what is missing is installed with apt; otherwise one line says what to install.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
chromium_path="${CHROMIUM_PATH:-/usr/bin/chromium}"

# program:package pairs; chromium is looked for where the browser tests look (CHROMIUM_PATH).
missing_packages() {
  local missing=()
  for pair in rg:ripgrep bwrap:bubblewrap jq:jq tmux:tmux socat:socat redis-server:redis-server; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
  done
  [ -x "$chromium_path" ] || missing+=(chromium)
  echo "${missing[*]:-}"
}

missing="$(missing_packages)"
if [ -n "$missing" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "system-tools: the tests need ${missing// /, }: install them with \`sudo apt-get install -y --no-install-recommends $missing\` (or run npm test as root to have them installed)" >&2
    exit 1
  fi
  echo "system-tools: installing $missing" >&2
  # shellcheck disable=SC2086 # one word per package
  if ! apt-get install -y --no-install-recommends $missing >/dev/null 2>&1; then
    apt-get update >/dev/null 2>&1 || true
    # shellcheck disable=SC2086
    apt-get install -y --no-install-recommends $missing >/dev/null
  fi
  still="$(missing_packages)"
  if [ -n "$still" ]; then
    echo "system-tools: ${still// /, } still missing after apt-get install (chromium is looked for at $chromium_path; set CHROMIUM_PATH to another)" >&2
    exit 1
  fi
fi

# Installed is not enough: bwrap must build a sandbox here (user namespaces may be off in a container).
if ! problem="$(bwrap --ro-bind / / --unshare-net --unshare-pid --cap-drop ALL -- true 2>&1)"; then
  echo "system-tools: bwrap is installed but cannot create a sandbox here (${problem:-no reason given}): the sandbox tests need user namespaces (sysctl kernel.unprivileged_userns_clone=1, or a container run with them)" >&2
  exit 1
fi

# Redis must answer at REDIS_URL (default 127.0.0.1:6379): Debian's redis-server is started when nothing does.
url="${REDIS_URL:-redis://127.0.0.1:6379}"
hostport="${url#redis://}"; hostport="${hostport##*@}"; hostport="${hostport%%/*}"
host="${hostport%%:*}"; port="${hostport##*:}"; [ "$port" = "$host" ] && port=6379
redis_answers() {
  # A PING over bash's /dev/tcp: no redis-cli needed. Any reply (+PONG, or -NOAUTH) is a Redis there.
  { exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null || return 1
  printf 'PING\r\n' >&3
  local reply=''
  read -r -t 2 reply <&3 || true
  exec 3<&- 3>&-
  [ -n "$reply" ]
}
if ! redis_answers; then
  echo "system-tools: starting redis-server on $host:$port" >&2
  mkdir -p /tmp/orca-test-redis
  redis-server --daemonize yes --bind "$host" --port "$port" --save "" --appendonly no \
    --dir /tmp/orca-test-redis --logfile /tmp/orca-test-redis/redis.log
  for _ in $(seq 1 50); do redis_answers && break; sleep 0.2; done
  if ! redis_answers; then
    echo "system-tools: redis-server did not answer on $host:$port (see /tmp/orca-test-redis/redis.log)" >&2
    exit 1
  fi
fi
