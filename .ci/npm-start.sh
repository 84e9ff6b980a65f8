# Sourced by .ci/smoke and .ci/sdk-package: `npm start` on the embedded default in a folder of its
# own ($tmp) on a free port ($PORT, or $1), stopped and removed when the calling script exits.
# `wait_listening` waits for it (up to 60 s), printing its log and failing if it dies or never listens.
tmp=$(mktemp -d)
# A free port, so a leftover server elsewhere on the machine cannot make this fail.
free_port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
export DATA_DIR="$tmp/data" KEYS_DIR="$tmp/keys" PORT=${1:-$free_port}
# Its own process group: npm does not always pass SIGTERM on to the node process it started,
# so the whole group is signalled at the end (nothing is left listening after CI).
setsid npm start >"$tmp/server.log" 2>&1 &
pid=$!
# npm may exit before the server it started has closed its database: wait for the whole process
# group (up to 20 s) before removing the folder it writes in.
trap 'kill -TERM -- -$pid 2>/dev/null || true; wait $pid 2>/dev/null || true; for _ in $(seq 1 200); do kill -0 -- -$pid 2>/dev/null || break; sleep 0.1; done; rm -rf "$tmp"' EXIT

wait_listening() {
  for _ in $(seq 1 60); do
    grep -q "listening on" "$tmp/server.log" && return 0
    kill -0 $pid 2>/dev/null || { cat "$tmp/server.log"; exit 1; }
    sleep 1
  done
  echo "npm start: not listening after 60 s"; cat "$tmp/server.log"; exit 1
}
