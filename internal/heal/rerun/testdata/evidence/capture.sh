#!/usr/bin/env bash
# Captures the real runner outputs the evidence tests read: each case
# writes a tiny project into a temporary folder, runs the runner the way
# a proof command does, and keeps the merged stdout and stderr as
# <runner>/<case>.log. Run from this folder; then `go test -update` in
# internal/heal/rerun rewrites the expected .json files, to be read over.
set -uo pipefail
here=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out() { mkdir -p "$here/$1"; cat >"$here/$1/$2.log"; }

# Go: a failing test, the fix, a subtest that fails, an init that exits 0.
go_case() {
	local name=$1 code=$2
	rm -rf "$tmp/go" && mkdir -p "$tmp/go" && cd "$tmp/go"
	printf 'module example.com/calc\n\ngo 1.22\n' >go.mod
	printf '%s\n' "$code" >calc.go
	cat >calc_test.go <<'T'
package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Errorf("Add(2, 3) = %d, want 5", got)
	}
}

func TestTable(t *testing.T) {
	for _, c := range []struct{ a, b, want int }{{1, 1, 2}, {0, 4, 4}} {
		t.Run("case", func(t *testing.T) {
			if got := Add(c.a, c.b); got != c.want {
				t.Errorf("Add(%d, %d) = %d", c.a, c.b, got)
			}
		})
	}
}
T
	go test -count=1 -json -run '^(TestAdd|TestTable)$' '.' 2>&1 | sed -E 's/"Time":"[^"]*",//; s/"Elapsed":[0-9.]+/"Elapsed":0/; s/[0-9]+\.[0-9]+s/0.00s/g' | out go "$name"
	# The same tests run from the test binary itself, as a heal's flaky
	# check runs the binary its failing build linked: framed output.
	go test -c -o calc.test . >/dev/null 2>&1 &&
		./calc.test -test.paniconexit0 -test.v=test2json -test.timeout=10m0s -test.count=1 '-test.run=^(TestAdd|TestTable)$' 2>&1 |
		sed -E "s#$tmp#/tmp/x#g; s/[0-9]+\.[0-9]+s/0.00s/g" | out go-binary "$name"
	cd "$here"
}
go_case fail 'package calc

func Add(a, b int) int { return a - b }'
go_case pass 'package calc

func Add(a, b int) int { return a + b }'
go_case init-exit 'package calc

import "os"

func init() { os.Exit(0) }

func Add(a, b int) int { return a - b }'
go_case panic 'package calc

func Add(a, b int) int { return []int{a}[b] }'

# node --test in TAP: a failure, the fix, a process.exit(0) in the module.
node_case() {
	local name=$1 code=$2
	rm -rf "$tmp/node" && mkdir -p "$tmp/node" && cd "$tmp/node"
	printf '%s\n' "$code" >calc.js
	cat >calc.test.js <<'T'
const test = require('node:test');
const assert = require('node:assert');
const { add } = require('./calc');
test('adds', () => { assert.strictEqual(add(2, 3), 5); });
test('group', async (t) => { await t.test('inner', () => { assert.ok(true); }); });
T
	node --test --test-reporter=tap calc.test.js 2>&1 | sed -E "s#$tmp#/tmp/x#g; s/duration_ms: [0-9.]+/duration_ms: 1/" | out node "$name"
	cd "$here"
}
node_case fail 'exports.add = (a, b) => a - b;'
node_case pass 'exports.add = (a, b) => a + b;'
node_case exit 'exports.add = (a, b) => a - b; process.exit(0);'

# unittest -v: a failure, the fix, os._exit(0) on import.
py_case() {
	local name=$1 code=$2
	rm -rf "$tmp/py" && mkdir -p "$tmp/py" && cd "$tmp/py"
	printf '%s\n' "$code" >calc.py
	cat >test_calc.py <<'T'
import unittest
from calc import add


class CalcTest(unittest.TestCase):
    def test_add(self):
        """Adds two numbers."""
        self.assertEqual(add(2, 3), 5)

    def test_zero(self):
        print("noise")
        self.assertEqual(add(0, 0), 0)

    @unittest.skip("slow")
    def test_big(self):
        pass
T
	python3 -m unittest discover -v -k '*.test_add' -k '*.test_zero' -k '*.test_big' 2>&1 | sed -E "s#$tmp#/tmp/x#g; s/in [0-9.]+s/in 0.000s/" | out unittest "$name"
	cd "$here"
}
py_case fail 'def add(a, b):
    return a - b'
py_case pass 'def add(a, b):
    return a + b'
py_case import-exit 'import os
os._exit(0)'

# cargo test: a failure, the fix, std::process::exit(0) in a test's path.
cargo_case() {
	local name=$1 code=$2
	rm -rf "$tmp/rs" && mkdir -p "$tmp/rs/src" "$tmp/rs/tests" && cd "$tmp/rs"
	printf '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n' >Cargo.toml
	printf '%s\n' "$code" >src/lib.rs
	printf 'use calc::add;\n\n#[test]\nfn adds() {\n    assert_eq!(add(2, 3), 5);\n}\n\n#[test]\nfn zero() {\n    assert_eq!(add(0, 0), 0);\n}\n' >tests/add.rs
	cargo test --offline -q -- --exact adds zero >/dev/null 2>&1
	cargo test --offline -- --exact adds zero 2>&1 | grep -v -E '^\s+(Compiling|Finished|Running|Doc-tests)' |
		sed -E "s#$tmp#/tmp/x#g; s/finished in [0-9.]+s/finished in 0.00s/; s/\(([0-9]+)\)/(1)/; s/-[0-9a-f]{16}/-0/" | out cargo "$name"
	cd "$here"
}
cargo_case fail 'pub fn add(a: i32, b: i32) -> i32 { a - b }'
cargo_case pass 'pub fn add(a: i32, b: i32) -> i32 { a + b }'
cargo_case exit 'pub fn add(a: i32, b: i32) -> i32 { if a == 2 { std::process::exit(0) } a + b }'
