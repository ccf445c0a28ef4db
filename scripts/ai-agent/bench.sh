#!/usr/bin/env bash
# Cold-start benchmarks of ai-agent (docs/bench-ai-agent.md): --help and a
# one-turn session against a local OpenAI-compatible server, wall time with
# hyperfine and peak RSS with /usr/bin/time -v. Needs hyperfine and python3.
#
# BENCH_SMALL=1 is the small run of make bench: 3 runs each, and, when
# hyperfine is not installed, each command timed once by the shell instead
# (the figures are then no benchmark, only proof that the commands run).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
small=${BENCH_SMALL:-}
runs=${RUNS:-100}
if [ -n "$small" ]; then runs=${RUNS:-3}; fi
if ! command -v hyperfine >/dev/null && [ -z "$small" ]; then
	echo "bench: hyperfine is not installed (apt-get install hyperfine); BENCH_SMALL=1 runs each command once without it" >&2
	exit 1
fi
work=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill $server 2>/dev/null; rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$work/ai-agent" "$root/cmd/ai-agent"
ls -l "$work/ai-agent" | awk '{print "binary bytes:", $5}'
port=${PORT:-18765}
python3 "$root/scripts/ai-agent/stub_server.py" "$port" & server=$!
cat > "$work/.ai-agent.json" <<JSON
{"providers":{"local":{"type":"openai-compatible","baseUrl":"http://127.0.0.1:$port/v1"}}}
JSON
cd "$work"
for i in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" -X POST -d '{}' && break; sleep 0.1; done
session=(./ai-agent --models local/bench --tooling-transport native --billing-file "$work/b.jsonl" --sessions-dir "$work/s" sys user)
"${session[@]}"
if command -v hyperfine >/dev/null; then
	hyperfine -N --warmup "$([ -n "$small" ] && echo 1 || echo 5)" --runs "$runs" './ai-agent --help' "${session[*]}"
else
	TIMEFORMAT='%R s wall'
	for cmd in './ai-agent --help' "${session[*]}"; do
		echo "$cmd (once, hyperfine is not installed):"
		time $cmd >/dev/null
	done
fi
for cmd in './ai-agent --help' "${session[*]}"; do
  /usr/bin/time -v $cmd 2>&1 >/dev/null | awk -v c="$cmd" '/Maximum resident set size/ {print c ": peak RSS " $6 " KB"}'
done
