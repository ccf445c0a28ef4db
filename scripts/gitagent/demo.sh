#!/usr/bin/env bash
# git_agent on a throw-away repository: status, diff, add, commit, log,
# rev_parse, and one refused request. Each request goes to a fresh git_agent
# process on stdin; the JSON response it writes on stdout is printed as is.
#
#   scripts/gitagent/demo.sh            # builds git_agent into a temp dir
#   GIT_AGENT=bin/git_agent scripts/gitagent/demo.sh
#
# The agent registers itself in a temporary tool registry; when bin/salve
# exists, `salve registry list` shows the row at the end.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bin=${GIT_AGENT:-}
if [ -z "$bin" ]; then
	bin="$work/git_agent"
	(cd "$root" && CGO_ENABLED=0 go build -o "$bin" ./cmd/git_agent)
fi
case $bin in /*) ;; *) bin="$root/$bin" ;; esac

repo="$work/repo"
git init -q -b main "$repo"
git -C "$repo" config user.name "Salve Demo"
git -C "$repo" config user.email "demo@salve.invalid"
git -C "$repo" config commit.gpgsign false
echo "hello" >"$repo/hello.txt"
git -C "$repo" add hello.txt
git -C "$repo" commit -q -m "initial commit"
echo "hello, salve" >"$repo/hello.txt"

export SALVE_REGISTRY_DB="$work/registry.db"
n=0
ask() {
	local action=$1 payload=$2
	n=$((n + 1))
	local req
	req=$(printf '{"request_id":"00000000-0000-4000-8000-%012d","api_version":"V1","tool":"git_agent","action":"%s","context":"demo","plan_id":"demo-plan","task_id":"demo-task-%d","correlation_id":"demo-corr","payload":%s}' "$n" "$action" "$n" "$payload")
	printf '\n--> %s %s\n' "$action" "$payload"
	printf '%s' "$req" | "$bin" -C "$repo" 2>>"$work/agent.log"
	echo "    (exit status $?)"
}

ask git_status '{"command":{"type":"git_status"}}'
ask git_diff '{"files":["hello.txt"]}'
ask git_add '{"command":{"type":"git_add","files":["hello.txt"]}}'
ask git_commit '{"message":"demo: greet salve"}'
ask git_log '{"limit":"2"}'
ask git_rev_parse '{"command":{"type":"git_rev_parse","ref":"branch"}}'
ask git_add '{"files":["../outside.txt"]}'

printf '\n--- the first log records on stderr (JSON, one per line):\n'
head -n 3 "$work/agent.log"

if [ -x "$root/bin/salve" ]; then
	printf '\n--- salve registry list:\n'
	"$root/bin/salve" registry list
fi
