#!/usr/bin/env bash
# Load test of the decision service with wrk: one `toolgate serve` process
# on loopback, with the decision log on, and wrk posting the request mix of
# serve/load_test.go (serve/testdata/load.lua) over keep-alive connections
# for a bounded time. Prints wrk's report, the server's CPU per decision
# (from /proc/PID/stat, the server process alone), the decision log's
# growth and the load average.
#
#   bash serve/testdata/load.sh
#
# Environment (all optional):
#   TOOLGATE_LOAD_DURATION  wrk's -d (default 10s)
#   TOOLGATE_LOAD_CONNS     keep-alive connections, wrk's -c (default 8)
#   TOOLGATE_LOAD_THREADS   wrk's -t (default 1)
#   TOOLGATE_LOAD_DB        serve's --db (default a fresh SQLite file;
#                           a postgres:// URL works too)
#   TOOLGATE_LOAD_FLAGS     more flags for toolgate serve
#   TOOLGATE_LOAD_BIN       a toolgate binary to use instead of building one
#   TOOLGATE_LOAD_ASSERT=1  fail unless ≥ 20,000 decisions/s and p99 < 5 ms
#                           (meant for a quiet machine)
# Needs wrk (Debian: apt-get install -y wrk) and curl.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
duration=${TOOLGATE_LOAD_DURATION:-10s}
conns=${TOOLGATE_LOAD_CONNS:-8}
threads=${TOOLGATE_LOAD_THREADS:-1}

for tool in wrk curl; do
	if ! command -v "$tool" >/dev/null; then
		echo "load.sh: $tool is not installed (Debian: apt-get install -y $tool)" >&2
		exit 2
	fi
done

work=$(mktemp -d)
pid=
cleanup() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

bin=${TOOLGATE_LOAD_BIN:-}
if [ -z "$bin" ]; then
	bin=$work/toolgate
	(cd "$root" && go build -o "$bin" ./cmd/toolgate)
fi
db=${TOOLGATE_LOAD_DB:-$work/toolgate.db}

token=$("$bin" serve token agent load --append "$work/tokens")
# shellcheck disable=SC2086 # TOOLGATE_LOAD_FLAGS is a list of flags
"$bin" serve --config "$here/load-policy.yaml" --tokens "$work/tokens" --db "$db" \
	--listen 127.0.0.1:0 --url-file "$work/url" --cwd /work --reload-interval 0 \
	${TOOLGATE_LOAD_FLAGS:-} 2>"$work/serve.log" &
pid=$!
for _ in $(seq 100); do
	[ -s "$work/url" ] && break
	kill -0 "$pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
	sleep 0.1
done
url=$(cat "$work/url")
curl -fsS "$url/readyz" >/dev/null

# newestSeq is the sequence number of the newest decision log entry (0 for
# none), to count what the run logged.
newestSeq() {
	"$bin" audit --store "$db" --newest --limit 1 --json 2>/dev/null |
		sed -n 's/.*"seq":\([0-9]*\).*/\1/p' | head -n 1
}
seq0=$(newestSeq)
seq0=${seq0:-0}

# cpuTicks is the server's user and system CPU time in clock ticks.
cpuTicks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)

# A short warm-up, so that the measured run sees a steady process.
# Its decisions are logged too: count them.
TOOLGATE_LOAD_TOKEN=$token wrk -t1 -c"$conns" -d1s -s "$here/load.lua" "$url/v1/decide" >"$work/warm.out"
warm=$(sed -n 's/^LOAD requests=\([0-9]*\).*/\1/p' "$work/warm.out")
warm=${warm:-0}

echo "load before: $(uptime)"
cpu0=$(cpuTicks)
TOOLGATE_LOAD_TOKEN=$token wrk -t"$threads" -c"$conns" -d"$duration" --latency -s "$here/load.lua" \
	"$url/v1/decide" | tee "$work/wrk.out"
cpu1=$(cpuTicks)
echo "load after: $(uptime)"

# Graceful shutdown flushes the decision log.
kill -TERM "$pid"
wait "$pid" || { echo "load.sh: toolgate serve exited with $?" >&2; cat "$work/serve.log" >&2; exit 1; }
pid=
seq1=$(newestSeq)
seq1=${seq1:-0}

summary=$(grep '^LOAD ' "$work/wrk.out")
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$summary"; }
requests=$(field requests)
duration_us=$(field duration_us)
non2xx=$(field non2xx)
p50=$(field p50_us)
p99=$(field p99_us)
logged=$((seq1 - seq0 - warm))
awk -v r="$requests" -v us="$duration_us" -v c0="$cpu0" -v c1="$cpu1" -v hz="$hz" \
	-v p50="$p50" -v p99="$p99" -v logged="$logged" -v conns="$conns" 'BEGIN {
	cpu = (c1 - c0) / hz
	printf "RESULT %.0f decisions/s, p50 %.2f ms, p99 %.2f ms, server CPU %.1f µs per decision (%.2f s over %d decisions; ceiling on 2 cores %.0f/s), %d connections, %d log entries\n",
		r / (us / 1e6), p50 / 1000, p99 / 1000, cpu * 1e6 / r, cpu, r, 2 / (cpu / r), conns, logged
}'

status=0
if [ "$non2xx" != 0 ]; then
	echo "load.sh: $non2xx answers were not 2xx" >&2
	status=1
fi
# Requests still in flight when wrk stopped (in either run) were decided
# and logged too.
if [ "$logged" -lt "$requests" ] || [ "$logged" -gt $((requests + 2 * conns * threads)) ]; then
	echo "load.sh: the decision log grew by $logged entries for $requests decisions" >&2
	status=1
fi
if [ "${TOOLGATE_LOAD_ASSERT:-}" = 1 ]; then
	if ! awk -v r="$requests" -v us="$duration_us" -v p99="$p99" 'BEGIN { exit !(r / (us / 1e6) >= 20000 && p99 < 5000) }'; then
		echo "load.sh: want ≥ 20,000 decisions/s and p99 < 5 ms" >&2
		status=1
	fi
fi
exit $status
