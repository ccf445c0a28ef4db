package rerun

import (
	"testing"
)

// tapOne is node 20's TAP of one test file run alone: the tests at the
// top, each with its block.
const tapOne = `TAP version 13
# Subtest: last of three
not ok 1 - last of three
  ---
  duration_ms: 1.06
  location: '/ws/series.test.js:6:1'
  failureType: 'testCodeFailure'
  stack: |-
    last (/ws/series.js:6:24)
  ...
# Subtest: total of three
ok 2 - total of three
  ---
  duration_ms: 0.18
  ...
1..2
`

// tapTwo is node 20's TAP of two files: each file a subtest whose tests
// are nested, reported before the file's own line.
const tapTwo = `TAP version 13
# Subtest: /ws/test/a.test.js
    # Subtest: debit takes the amount
    not ok 1 - debit takes the amount
      ---
      duration_ms: 0.9
      location: '/ws/test/a.test.js:9:1'
      failureType: 'testCodeFailure'
      ...
    1..1
not ok 1 - /ws/test/a.test.js
  ---
  duration_ms: 40.1
  failureType: 'subtestsFailed'
  ...
# Subtest: /ws/test/b.test.js
    # Subtest: credit adds the amount
    ok 1 - credit adds the amount
      ---
      duration_ms: 0.4
      ...
    1..1
ok 2 - /ws/test/b.test.js
  ---
  duration_ms: 38.2
  ...
1..2
`

// TestInTestFiles: a node plan that names no file gets the files where
// its runner's TAP locates each failing test; anything it cannot be sure
// of leaves the plan as it was.
func TestInTestFiles(t *testing.T) {
	plan := func(tests ...string) Plan {
		return Plan{Runner: "node", Narrowed: true, Tests: tests,
			Command: "node --test --test-name-pattern='x'", Proof: "node --test --test-reporter=tap --test-name-pattern='x'"}
	}
	for _, tc := range []struct {
		name      string
		plan      Plan
		log, ws   string
		cmd, prof string // "" means unchanged
	}{
		{"one file", plan("last of three"), tapOne, "/ws",
			"node --test --test-name-pattern='x' 'series.test.js'", "node --test --test-reporter=tap --test-name-pattern='x' 'series.test.js'"},
		{"nested, two files", plan("debit takes the amount"), tapTwo, "/ws",
			"node --test --test-name-pattern='x' 'test/a.test.js'", "node --test --test-reporter=tap --test-name-pattern='x' 'test/a.test.js'"},
		{"a test not located", plan("debit takes the amount", "other"), tapTwo, "/ws", "", ""},
		{"a passing test is never a location", plan("credit adds the amount"), tapTwo, "/ws", "", ""},
		{"outside the workspace", plan("last of three"), tapOne, "/elsewhere", "", ""},
		{"a relative workspace", plan("last of three"), tapOne, "ws", "", ""},
		{"not a test file by name", plan("last of three"), `not ok 1 - last of three
  ---
  location: '/ws/series.js:6:1'
  ...
`, "/ws", "", ""},
		{"files named already", Plan{Runner: "node", Narrowed: true, Tests: []string{"last of three"},
			Command: "node --test --test-name-pattern='x' 'series.test.js'"}, tapOne, "/ws", "", ""},
		{"another runner", Plan{Runner: "mocha", Narrowed: true, Tests: []string{"last of three"}, Command: "npx --no -- mocha --grep 'x'"}, tapOne, "/ws", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.plan.InTestFiles(tc.log, tc.ws)
			want := tc.plan
			if tc.cmd != "" {
				want.Command, want.Proof = tc.cmd, tc.prof
			}
			if got.Command != want.Command || got.Proof != want.Proof {
				t.Errorf("command %q\nproof   %q\nwant    %q\n        %q", got.Command, got.Proof, want.Command, want.Proof)
			}
		})
	}
}

func FuzzNodeLocations(f *testing.F) {
	f.Add(tapOne)
	f.Add(tapTwo)
	f.Fuzz(func(t *testing.T, log string) {
		for name, file := range nodeLocations(log) {
			if name == "" {
				t.Fatalf("an empty name located at %q", file)
			}
		}
		_ = Plan{Runner: "node", Narrowed: true, Tests: []string{"a"}, Command: "node --test --test-name-pattern='a'"}.InTestFiles(log, "/ws")
	})
}
