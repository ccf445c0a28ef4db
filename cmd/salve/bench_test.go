package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/internal/heal"
)

func TestBenchBadInput(t *testing.T) {
	corpus := filepath.Join("..", "..", "testdata", "heal-corpus")
	empty := t.TempDir()
	bad := t.TempDir()
	_ = os.MkdirAll(filepath.Join(bad, "c1", "tree"), 0o755)
	_ = os.WriteFile(filepath.Join(bad, "c1", "case.json"), []byte(`{"class":"easy"}`), 0o644)
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"bench"}, "accepts 1 arg"},
		{[]string{"bench", filepath.Join(empty, "nope")}, "read corpus"},
		{[]string{"bench", empty}, "no case"},
		{[]string{"bench", bad}, `class "easy"`},
		{[]string{"bench", corpus, "--case", "no-such-case"}, "no case matches"},
	} {
		code, _, errOut := runSalve(t, tc.args...)
		if code != exitBadInput || !strings.Contains(errOut, tc.err) {
			t.Errorf("%v: exit %d, stderr %q; want %d containing %q", tc.args, code, errOut, exitBadInput, tc.err)
		}
	}
}

// TestHealExit maps outcomes and errors to heal's exit status, printing the
// error only when the summary line does not already say it.
func TestHealExit(t *testing.T) {
	envErr := fmt.Errorf("heal: network (go): x: %w", heal.ErrEnvironment)
	for _, tc := range []struct {
		name    string
		res     *results.Results
		err     error
		code    int
		printed bool
	}{
		{"green", &results.Results{Outcome: results.OutcomeGreen, Reason: "green"}, nil, exitOK, false},
		{"red", &results.Results{Outcome: results.OutcomeRed, Reason: "r"}, nil, exitFailure, false},
		{"environment", &results.Results{Outcome: results.OutcomeEnvironment, Reason: "r"}, envErr, exitEnvironment, false},
		{"environment before results", nil, envErr, exitEnvironment, true},
		{"bad input", nil, fmt.Errorf("x: %w", heal.ErrBadInput), exitBadInput, true},
		{"run error", &results.Results{Outcome: results.OutcomeError, Reason: "commit failed"}, errors.New("commit failed"), exitFailure, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, err := healExit(tc.res, tc.err)
			if code != tc.code || (err != nil) != tc.printed {
				t.Errorf("healExit = %d, %v; want %d, printed %v", code, err, tc.code, tc.printed)
			}
		})
	}
}

// TestBenchTestFileKeepsChecks: a slip in a test file heals green
// through the real binaries, with the proof that every check of the file
// is as it was, and no false success: a Go variable and its dead
// assignment seven lines apart (go/ast), an unused Python local
// (pyflakes' F841), an unused TypeScript constant (tsc's TS6133) and an
// unused JavaScript constant (eslint's no-unused-vars), the last three
// proven by the lexical proof.
func TestBenchTestFileKeepsChecks(t *testing.T) {
	salve, gitAgent := mcpBinaries(t)
	corpus := filepath.Join("..", "..", "testdata", "heal-corpus")
	for _, tc := range []struct {
		name  string
		tools []string
	}{
		{"go-test-unused-var", []string{"go"}},
		{"py-test-unused-var", []string{"python3", "flake8"}},
		{"ts-test-unused-var", []string{"node", "tsc"}},
		{"js-test-unused-var", []string{"node", "eslint"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needTools(t, append(tc.tools, "git")...)
			cmd := exec.Command(salve, "bench", corpus, "--case", tc.name)
			cmd.Env = mcpEnv(t, gitAgent)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("salve bench: %v\n%s", err, out)
			}
			for _, l := range strings.Split(string(out), "\n") {
				if f := strings.Fields(l); len(f) > 9 && f[0] == tc.name {
					// case class expect exit commits healed false-success untouched minimal pass
					if f[5] != "yes" || f[6] != "no" || f[7] != "yes" || f[9] != "yes" {
						t.Errorf("the case did not heal cleanly:\n%s", out)
					}
					return
				}
			}
			t.Fatalf("no line for the case:\n%s", out)
		})
	}
}
