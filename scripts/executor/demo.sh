#!/bin/sh
# Shows the Executor on the bundled sample projects: a failing Go build
# streamed live, a passing C build as JSON, a monorepo, the scrubbed
# environment, the network cut under bwrap, and a timeout.
#
# Usage: scripts/executor/demo.sh [path/to/salve]   (default: bin/salve)
set -u
SALVE=${1:-bin/salve}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SAMPLES="$ROOT/executor/testdata/projects"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export SALVE_STORE="$WORK/runs.db"
export XDG_STATE_HOME="$WORK/state"

step() { printf '\n\033[1m$ %s\033[0m\n' "$*" >&2; }
copy() { cp -R "$SAMPLES/$1" "$WORK/$1"; }

for p in go-fail c-make-pass monorepo; do copy "$p"; done

step "salve exec --workspace go-fail            # detected: go; log streams, summary on stderr"
"$SALVE" exec --workspace "$WORK/go-fail"
echo "exit status: $?" >&2

step "salve exec --workspace c-make-pass --json  # the ExecutorOutput object"
"$SALVE" exec --workspace "$WORK/c-make-pass" --json
echo "exit status: $?" >&2

step "salve exec --workspace monorepo            # no root marker: each sub-project in turn"
"$SALVE" exec --workspace "$WORK/monorepo" --json | grep -E '"(project_type|command_reason|exit_code)"'

step "OPENAI_API_KEY=sk-demo salve exec --cmd 'env | grep API_KEY || echo no API key visible'   # scrubbed"
OPENAI_API_KEY=sk-demo "$SALVE" exec --workspace "$WORK/c-make-pass" --cmd 'env | grep API_KEY || echo no API key visible'
echo "exit status: $?" >&2

if command -v bwrap >/dev/null 2>&1; then
	step "salve exec --isolation bwrap --cmd 'tail -n +3 /proc/net/dev | cut -d: -f1; touch \$HOME/x'   # only lo; HOME read-only"
	"$SALVE" exec --workspace "$WORK/c-make-pass" --isolation bwrap --cmd 'tail -n +3 /proc/net/dev | cut -d: -f1; touch "$HOME/x"'
	echo "exit status: $?" >&2
fi

step "salve exec --cmd 'sleep 30 & sleep 30' --timeout 1   # killed, exit 124"
"$SALVE" exec --workspace "$WORK/c-make-pass" --cmd 'sleep 30 & sleep 30' --timeout 1
echo "exit status: $?" >&2
exit 0
