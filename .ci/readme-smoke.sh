#!/usr/bin/env bash
# The README's commands as a newcomer runs them: a fresh clone of the committed HEAD in an empty folder,
# an empty HOME and no feedbridge-data. The Quick start's run command and the "Import CSV" section's
# `import csv` example are read from README.md itself (so the two cannot drift) and run as written; the
# daemon must answer /healthz, the curl lines it prints must work, and SIGINT (Ctrl-C) must end it with
# exit code 0.
#
# The Go toolchain's module and build caches stay the runner's (GOMODCACHE and GOCACHE are set to them
# explicitly, since an empty HOME would move both): a newcomer's first build downloads and compiles the
# dependencies once, which says nothing about the README and would cost CI minutes.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
export PATH="/usr/local/go/bin:$PATH"
export GOFLAGS="${GOFLAGS:-} -buildvcs=false"
GOMODCACHE=$(go env GOMODCACHE)
GOCACHE=$(go env GOCACHE)
export GOMODCACHE GOCACHE GOTOOLCHAIN=local

fail() { echo "readme-smoke: $*" >&2; exit 1; }

work=$(mktemp -d)
daemon_pid=
cleanup() {
  if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then kill -KILL -- "-$daemon_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# readme_block SECTION LEAD FENCE: the lines of the first block opened by FENCE after the line starting with
# LEAD inside the "## SECTION" part of README.md, without its fences.
readme_block() {
  awk -v section="## $1" -v lead="$2" -v fence="$3" '
    $0 == section { in_section = 1; next }
    in_section && /^## / { exit }
    in_section && !seen && index($0, lead) == 1 { seen = 1; next }
    seen && !open && $0 == fence { open = 1; next }
    open && /^```/ { exit }
    open { print }
  ' "$readme"
}

git clone -q "$repo" "$work/feedbridge"
git -C "$work/feedbridge" checkout -q "$(git -C "$repo" rev-parse HEAD)"
readme="$work/feedbridge/README.md"
run_cmd=$(readme_block "Quick start" "Run" '```sh' | sed '/^[[:space:]]*$/d')
[ -n "$run_cmd" ] || fail "no \`\`\`sh block after \"Run\" in README.md's Quick start"
[ "$(printf '%s\n' "$run_cmd" | wc -l)" -eq 1 ] || fail "the Quick start's run block is not one command: $run_cmd"
import_cmd=$(awk '/^## Import CSV/{s=1;next} s&&/^## /{exit} s&&/^feedbridge import csv /{print;exit}' "$readme")
[ -n "$import_cmd" ] || fail "no \`feedbridge import csv\` example in README.md's \"Import CSV\" section"
echo "run command from the README: $run_cmd"
echo "import example from the README: $import_cmd"

mkdir "$work/home"
cd "$work/feedbridge"
[ ! -e feedbridge-data ] || fail "the clone already has feedbridge-data"

# The README's address is 127.0.0.1:8080; when another process holds it here, the documented environment
# variable moves the daemon (the command itself stays as written).
port=8080
if (exec 3<>/dev/tcp/127.0.0.1/8080) 2>/dev/null; then
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  export FEEDBRIDGE_HTTP__LISTEN="127.0.0.1:$port"
  echo "127.0.0.1:8080 is taken on this machine; FEEDBRIDGE_HTTP__LISTEN=$FEEDBRIDGE_HTTP__LISTEN"
fi

# Its own process group, so that SIGINT reaches `go run` and the daemon as Ctrl-C in a terminal does.
HOME="$work/home" setsid bash -c "$run_cmd" >"$work/out.log" 2>&1 &
daemon_pid=$!
started=$(date +%s)
until curl -sf "http://127.0.0.1:$port/healthz" >/dev/null; do
  kill -0 "$daemon_pid" 2>/dev/null || { cat "$work/out.log"; fail "the run command exited before /healthz answered"; }
  [ $(( $(date +%s) - started )) -lt 600 ] || { cat "$work/out.log"; fail "/healthz did not answer within 600 s"; }
  sleep 1
done
echo "healthz answered after $(( $(date +%s) - started )) s"

verify=$(grep -m1 -E "^[[:space:]]*curl .*/api/records/verify" "$work/out.log" || true)
[ -n "$verify" ] || { cat "$work/out.log"; fail "the daemon printed no curl line"; }
answer=$(bash -c "$verify")
echo "$answer" | grep -q '"success": *true' || fail "the printed curl line answered: $answer"
create=$(awk '/^[[:space:]]*curl .*Content-Type/{on=1} on{print} on && !/\\$/{exit}' "$work/out.log")
[ -n "$create" ] || fail "the daemon printed no create example"
created=$(bash -c "$create")
echo "$created" | grep -q '"status": *"Triage"' || fail "the printed create answered: $created"
workspace=$(sed -n 's/^Demo workspace .* (\([0-9a-f]\{24\}\)) created.*/\1/p' "$work/out.log")
[ -n "$workspace" ] || fail "the daemon did not name its demo workspace"

# The triage loop, as the README writes it: suggestion, link, a moved idea with its demand.
key=$(grep -m1 -o 'fbk_[A-Za-z0-9]\{40\}' "$work/out.log" || true)
[ -n "$key" ] || fail "the daemon printed no API key"
awk '/^## The triage loop/{s=1} s&&/^```sh/{f=1;next} f&&/^```/{exit} f' "$readme" |
  sed "s#http://127.0.0.1:8080#http://127.0.0.1:$port#" >"$work/loop.sh"
[ -s "$work/loop.sh" ] || fail "the README has no triage loop"
loop=$(KEY=$key bash -e "$work/loop.sh" 2>&1) || { echo "$loop"; fail "the triage loop failed"; }
echo "$loop" | grep -q '"reason"' || { echo "$loop"; fail "the triage loop's feedback got no suggestion"; }
echo "$loop" | grep -q '"status":"Planned"' || { echo "$loop"; fail "the triage loop's idea did not move"; }
echo "$loop" | grep -q '"feedback_count":1' || { echo "$loop"; fail "the triage loop's idea shows no demand"; }
echo "triage loop: suggestion, link and a moved idea with its demand"

# The console's sign-in link the daemon printed opens the page where the demo admin chooses a password.
link=$(grep -m1 -o 'http://[^ ]*/signin/link?token=[A-Za-z0-9_-]*' "$work/out.log" || true)
[ -n "$link" ] || { cat "$work/out.log"; fail "the daemon printed no console sign-in link"; }
page=$(curl -s "${link/127.0.0.1:8080/127.0.0.1:$port}")
echo "$page" | grep -qi 'password' || fail "the sign-in link did not open the password page"
echo "console sign-in link opens its page"

# SIGINT goes to the daemon, which `go run` started: `go run` itself exits 1 whenever it receives an
# interrupt, whatever its program does, but otherwise passes the program's exit code on.
child=$(pgrep -P "$daemon_pid" | head -n1 || true)
[ -n "$child" ] || fail "found no daemon process under the run command (pid $daemon_pid)"
kill -INT "$child"
code=0
wait "$daemon_pid" || code=$?
daemon_pid=
[ "$code" -eq 0 ] || { cat "$work/out.log"; fail "the daemon exited with $code after SIGINT, want 0"; }
grep -q 'msg=stopped' "$work/out.log" || { cat "$work/out.log"; fail "the daemon did not log its orderly stop"; }
echo "daemon stopped by SIGINT with exit code 0"

# The import example, with the README's way to get a binary and the demo workspace's id for ID.
go build ./cmd/feedbridge
export PATH="$PWD:$PATH"
cp .ci/testdata/export.csv export.csv
cmd=${import_cmd//--workspace ID/--workspace $workspace}
[ "$cmd" != "$import_cmd" ] || fail "the import example has no --workspace ID to fill in"
HOME="$work/home" bash -c "$cmd" >"$work/import.log" 2>&1 || { cat "$work/import.log"; fail "the import example failed"; }
grep -q "4 rows, 3 created, 0 duplicates, 1 failed" "$work/import.log" || { cat "$work/import.log"; fail "the import example's summary is not the expected one"; }
echo "import example: $(grep -m1 'rows,' "$work/import.log")"
