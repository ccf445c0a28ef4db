#!/usr/bin/env bash
# Runs the mining scripts as written on a repository made here: a small Go
# module whose second commit renames a function and misses one call, and
# whose third commit fixes it. mine.py must find that pair, measure.py must
# see salve heal it (the history tier, from the breaking commit's rename),
# and figures.py must print it healed. No network, nothing outside a
# temporary folder. make bench runs it (BENCH_SMALL changes nothing: the
# repository is already small).
set -euo pipefail
cd "$(dirname "$0")/../.."
here=scripts/history
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/bin/salve" ./cmd/salve
go build -o "$tmp/bin/git_agent" ./cmd/git_agent

repo=$tmp/shop
mkdir -p "$repo/price"
export GIT_AUTHOR_NAME=smoke GIT_AUTHOR_EMAIL=smoke@localhost GIT_COMMITTER_NAME=smoke GIT_COMMITTER_EMAIL=smoke@localhost
git -C "$repo" init -q -b main
printf 'module example.com/shop\n\ngo 1.21\n' >"$repo/go.mod"
cat >"$repo/price/price.go" <<'EOF'
package price

// Cents returns a price in cents.
func Cents(euros float64) int { return int(euros * 100) }
EOF
cat >"$repo/main.go" <<'EOF'
package main

import (
	"fmt"

	"example.com/shop/price"
)

func main() {
	fmt.Println(price.Cents(1.5))
	fmt.Println(price.Cents(2))
}
EOF
git -C "$repo" add -A
git -C "$repo" commit -qm "shop: prices in cents"
sed -i 's/func Cents/func ToCents/; s/^\/\/ Cents/\/\/ ToCents/' "$repo/price/price.go"
sed -i '0,/price.Cents(1.5)/s//price.ToCents(1.5)/' "$repo/main.go"
git -C "$repo" commit -qam "price: Cents is ToCents"
sed -i 's/price.Cents(2)/price.ToCents(2)/' "$repo/main.go"
git -C "$repo" commit -qam "fix build: the last call of Cents"

python3 "$here/mine.py" --repo "$repo" --name smoke/shop --ecosystem go --out "$tmp/pairs.jsonl" --scratch "$tmp/scratch"
test "$(wc -l <"$tmp/pairs.jsonl")" -eq 1 || { echo "smoke: mine.py found no pair" >&2; exit 1; }
python3 "$here/measure.py" --manifest "$tmp/pairs.jsonl" --mirror "smoke/shop=$repo" --salve "$tmp/bin/salve" --out "$tmp/after.jsonl" --scratch "$tmp"
python3 "$here/figures.py" --before "$tmp/after.jsonl" --after "$tmp/after.jsonl" | tee "$tmp/figures.md"
grep -q '| smoke/shop | [0-9a-f]* | undefined-name | healed | healed |' "$tmp/figures.md" || { echo "smoke: the pair was not healed" >&2; exit 1; }
