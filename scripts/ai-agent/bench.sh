#!/usr/bin/env bash
# Cold-start benchmarks of ai-agent (docs/bench-ai-agent.md): --help and a
# one-turn session against a local OpenAI-compatible server, wall time with
# hyperfine and peak RSS with /usr/bin/time -v. Needs hyperfine and python3.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
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
hyperfine -N --warmup 5 --runs "${RUNS:-100}" './ai-agent --help' "${session[*]}"
for cmd in './ai-agent --help' "${session[*]}"; do
  /usr/bin/time -v $cmd 2>&1 >/dev/null | awk -v c="$cmd" '/Maximum resident set size/ {print c ": peak RSS " $6 " KB"}'
done
