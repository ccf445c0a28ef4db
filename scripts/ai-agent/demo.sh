#!/usr/bin/env bash
# A deterministic ai-agent session (no network): the test-llm provider
# replays demo/scenario.json: a rate limit honoured through Retry-After, a
# batch call, then a JSON final report validated against the agent's schema.
# Stdout is the report; the result document's accounting is summarised.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/ai-agent" "$root/cmd/ai-agent"
cp "$root/scripts/ai-agent/demo/scenario.json" "$root/scripts/ai-agent/demo/demo.ai" "$work/"
echo '{"providers":{"test":{"type":"test-llm","scenarioFile":"scenario.json"}}}' > "$work/.ai-agent.json"
cd "$work"
for transport in native xml-final xml; do
  echo "== --tooling-transport $transport"
  HOME="$work" ./ai-agent --quiet --tooling-transport "$transport" --result-json result.json demo.ai "run the demo"
  python3 -c '
import json
r = json.load(open("result.json"))
print("success:", r["success"], "| status:", r["finalReport"]["status"], "| messages:", len(r["conversation"]))
for e in r["accounting"]:
    print("  ", e["type"], e.get("provider") or e.get("command"), e["status"], str(e["latency"]) + "ms", e.get("error", ""))
'
done
