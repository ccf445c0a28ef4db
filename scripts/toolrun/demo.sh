#!/usr/bin/env bash
# Demo of the tool adapter (seed 000) with no API key: the fake aider stands
# in for aider. It runs `salve tool run aider` on a throw-away git work tree,
# once inside its file scope and once with an edit outside it (reverted),
# then reads the audit trail back with `salve runs` and checks that the
# recorded patch applies with git.
#
# Usage: scripts/toolrun/demo.sh [SALVE_BINARY]
set -eu
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

salve=${1:-}
if [ -z "$salve" ]; then
	go build -o "$work/bin/salve" ./cmd/salve
	salve=$work/bin/salve
fi
go build -o "$work/bin/aider" ./internal/toolrun/internal/fakeaider/cmd/aider
export PATH="$work/bin:$PATH"
export SALVE_STORE="$work/runs.db"

tree=$work/tree
mkdir -p "$tree/src" "$tree/patterns"
printf 'def main():\n    return 1\n' > "$tree/src/app.py"
printf '# demo\n' > "$tree/README.md"
cat > "$tree/PATTERN_INDEX.yaml" <<'YAML'
aider_refactor:
  enabled: true
  spec_path: patterns/aider_refactor.spec.yaml
  executor: MINI_PIPE_executor.execute_aider_refactor
  category: code_modification
  guardrails:
    allowed_tools: [aider]
    path_scope:
      include: ["**/*.py"]
YAML
echo "operation_kind: EXEC-AIDER-EDIT" > "$tree/patterns/aider_refactor.spec.yaml"
git -C "$tree" init -q -b main
git -C "$tree" -c user.name=demo -c user.email=demo@example.invalid add -A
git -C "$tree" -c user.name=demo -c user.email=demo@example.invalid commit -q -m base
git clone -q "$tree" "$work/pristine"

# The fake aider follows the directives in its message file.
printf 'Make main return 2.\nwrite src/app.py def main():\\n    return 2\nappend README.md an edit outside the scope\n' > "$work/prompt.txt"

echo "== salve tool run aider (README.md is outside the scope)"
"$salve" tool run aider --cwd "$tree" --model gpt-4 --message-file "$work/prompt.txt" \
	--pattern aider_refactor --timeout 60 -- src/app.py || true

echo "== README.md after the run (reverted)"
cat "$tree/README.md"

echo "== a guardrail refusal (-4): README.md is outside the pattern's path_scope"
"$salve" tool run aider --cwd "$tree" --model gpt-4 --message-file "$work/prompt.txt" \
	--pattern aider_refactor -- README.md | grep -E '"(exit_code|stderr)"' || true

echo "== salve runs list"
"$salve" runs list
echo "== salve runs show (the first run)"
first=$("$salve" runs list --json | grep -o '"run_id": "[^"]*"' | tail -1 | cut -d'"' -f4)
"$salve" runs show "$first"
echo "== salve runs patch | git apply --check (on the original tree)"
"$salve" runs patch "$first" | tee "$work/run.patch"
git -C "$work/pristine" apply --check "$work/run.patch"
echo "git apply --check: ok"
