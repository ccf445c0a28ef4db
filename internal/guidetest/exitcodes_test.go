package guidetest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// exitTable reads the exit-code table of docs/guide/exit-codes.md: the
// codes of each program, keyed by the command whose --help states them
// ("salve heal", "ai-agent"…). A code cell holds numbers separated by
// commas, or words ("any other") that name no code.
func exitTable(text string) (map[string][]int, error) {
	out := map[string][]int{}
	rows := 0
	for _, line := range strings.Split(text, "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if len(cells) != 3 || !strings.HasPrefix(strings.TrimSpace(cells[0]), "`") {
			continue
		}
		prog := strings.TrimSpace(cells[0])
		prog = prog[1:]
		end := strings.IndexByte(prog, '`')
		if end < 0 {
			return nil, errorf("row %q: the program is not in backquotes", line)
		}
		prog = prog[:end]
		rows++
		if _, ok := out[prog]; !ok {
			out[prog] = nil
		}
		for _, c := range strings.Split(cells[1], ",") {
			if n, err := strconv.Atoi(strings.TrimSpace(c)); err == nil {
				out[prog] = append(out[prog], n)
			}
		}
	}
	if rows == 0 {
		return nil, errorf("no exit-code table")
	}
	return out, nil
}

// exitParagraphRE finds the paragraph of a --help text that states the
// exit codes.
var exitParagraphRE = regexp.MustCompile(`(?mi)^(the )?exit (status|codes?)\b`)

// codeRE is a number in that paragraph that is not negative (a result
// field's -1…) and not part of a word or a flag.
var codeRE = regexp.MustCompile(`(?:^|[\s(,;:])(\d{1,3})\b`)

// helpCodes returns the exit codes a --help text states, sorted, and
// whether it has an exit paragraph at all.
func helpCodes(help string) ([]int, bool) {
	loc := exitParagraphRE.FindStringIndex(help)
	if loc == nil {
		return nil, false
	}
	para := help[loc[0]:]
	if i := strings.Index(para, "\n\n"); i >= 0 {
		para = para[:i]
	}
	seen := map[int]bool{}
	for _, m := range codeRE.FindAllStringSubmatch(para, -1) {
		n, _ := strconv.Atoi(m[1])
		seen[n] = true
	}
	return sortedSet(seen), true
}

func sortedSet(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

func TestHelpCodes(t *testing.T) {
	for _, tt := range []struct {
		help string
		want []int
	}{
		{"Usage\n\nExit status: 0 green, 1 still red, 3 missing (git,\nthe build), 130 or 143 interrupted.\n\nFlags: -n 7", []int{0, 1, 3, 130, 143}},
		{"The exit status is the build's: 124 when the timeout killed it, 2 for bad\ninput.", []int{2, 124}},
		{"Exit status: 0 when it succeeded (exit_code 0), 1 otherwise (-1 timeout, -2 not found), 2 on bad usage.", []int{0, 1, 2}},
		{"Exit codes: 0 success, 1 session failure, 3 MCP/initialisation failure,\n4 invalid, 5 schema.", []int{0, 1, 3, 4, 5}},
	} {
		got, ok := helpCodes(tt.help)
		if !ok || !equalInts(got, tt.want) {
			t.Errorf("helpCodes(%q) = %v, %v; want %v", tt.help, got, ok, tt.want)
		}
	}
	if _, ok := helpCodes("Usage: x [flags]\n"); ok {
		t.Error("a help without exit codes has an exit paragraph")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestExitCodeTableMatchesHelp checks the guide's one exit-code table
// against the --help of every program (and salve command) it lists: a
// code in the table that the help does not state, or one the help states
// that the table lacks, fails.
func TestExitCodeTableMatchesHelp(t *testing.T) {
	bin := binaries(t)
	page, err := os.ReadFile(filepath.Join(repoRoot, "docs", "guide", "exit-codes.md"))
	if err != nil {
		t.Fatal(err)
	}
	table, err := exitTable(string(page))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"salve", "ai-agent", "git_agent"} {
		if _, ok := table[want]; !ok {
			t.Errorf("the exit-code table has no rows for %s", want)
		}
	}
	for prog, codes := range table {
		t.Run(prog, func(t *testing.T) {
			args := strings.Fields(prog)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, filepath.Join(bin, args[0]), append(args[1:], "--help")...)
			cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s --help: %v\n%s", prog, err, stderr.String())
			}
			got, ok := helpCodes(stdout.String())
			if !ok {
				t.Fatalf("%s --help states no exit codes (no paragraph starting \"Exit status\"); the guide lists %v", prog, codes)
			}
			inTable := map[int]bool{}
			for _, c := range codes {
				inTable[c] = true
			}
			inHelp := map[int]bool{}
			for _, c := range got {
				inHelp[c] = true
				if !inTable[c] {
					t.Errorf("%s --help states exit %d, which the guide's table lacks", prog, c)
				}
			}
			for _, c := range sortedSet(inTable) {
				if !inHelp[c] {
					t.Errorf("the guide's table gives %s exit %d, which its --help does not state", prog, c)
				}
			}
		})
	}
}

func errorf(format string, args ...any) error {
	return fmt.Errorf("exit-codes.md: "+format, args...)
}
