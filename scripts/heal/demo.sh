#!/usr/bin/env bash
# salve heal on the bundled examples, with no API key: each example is
# copied to a temporary folder and made a git repository; salve heal fixes it
# on a new branch with the rules tier; the fix lines and the heal branch's
# commits are shown. Then the logic-bug example: not fixed without an LLM,
# fixed with the test-llm scripted provider.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
bin=$root/bin
if [ ! -x "$bin/salve" ] || [ ! -x "$bin/git_agent" ]; then
	make build >/dev/null
fi
export SALVE_GIT_AGENT=$bin/git_agent
export GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-salve demo} GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-demo@salve.invalid}
export GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-$GIT_AUTHOR_NAME} GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-$GIT_AUTHOR_EMAIL}
work=$(mktemp -d "${TMPDIR:-/tmp}/salve-demo-XXXXXX")
trap 'rm -rf "$work"' EXIT
store=$work/runs.db

# prepare NAME: copy examples/testdata/NAME into $work/NAME as a git repo.
prepare() {
	cp -r "$root/examples/testdata/$1" "$work/$1"
	# X.go.input is a deliberately unformatted X.go, kept under that name
	# so that gofmt -l over salve's own tree stays clean.
	find "$work/$1" -name '*.go.input' -exec sh -c 'mv "$1" "${1%.input}"' _ {} \;
	git -C "$work/$1" init -q -b main
	git -C "$work/$1" add -A
	git -C "$work/$1" commit -qm "$1: broken"
}

# heal NAME ARGS...: run salve heal, show its fix lines and the branch.
n=0
heal() {
	local name=$1
	shift
	n=$((n + 1))
	local branch=salve/heal-demo-$n results=$work/results-$n.json rc=0
	echo
	echo "== salve heal $* ($name)"
	"$bin/salve" heal --workspace "$work/$name" --branch "$branch" --store "$store" --results "$results" "$@" \
		2>"$work/$name-$n.log" || rc=$?
	tail -n 1 "$work/$name-$n.log"
	# A heal makes its branch at its first commit: a red heal leaves none.
	if git -C "$work/$name" rev-parse -q --verify "refs/heads/$branch" >/dev/null; then
		echo "-- commits on $branch:"
		git -C "$work/$name" log --format='   %h %s' "main..$branch"
	else
		echo "-- no branch: nothing was committed"
	fi
	grep -m1 -A3 '"requests": [1-9]' "$results" | tr -d ' "\n' | sed 's/^/-- llm usage: /; s/,$/\n/' || true
	echo "-- exit status $rc; the user's checkout: $(git -C "$work/$name" status --short | wc -l) changed files, still on $(git -C "$work/$name" branch --show-current)"
}

for ex in go-broken python-broken c-broken logic-bug; do prepare "$ex"; done

heal go-broken --fixers rules --cmd 'sh check.sh'
heal python-broken --fixers rules --cmd 'python3 -m unittest discover -v'
heal c-broken --fixers rules
heal logic-bug --fixers rules
heal logic-bug --fixers rules,llm --models test/fix-last --config "$root/examples/testdata/scenarios/.ai-agent.json"
