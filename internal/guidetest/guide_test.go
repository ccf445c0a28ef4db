package guidetest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// blockTimeout bounds one block of the guide (a few heals at most).
const blockTimeout = 10 * time.Minute

// TestGuideCommands runs every command of every sh block of the guide, in
// page order, each page in a world of its own (so a page's later blocks see
// what its earlier ones did, as a reader's would). A command exits 0
// unless an exit annotation says otherwise; a block with a skip annotation
// is reported as skipped, with its reason.
func TestGuideCommands(t *testing.T) {
	blocks := guideBlocks(t)
	bin := binaries(t)
	byPage := map[string][]block{}
	var pages []string
	for _, b := range blocks {
		if b.lang != "sh" {
			continue
		}
		if _, ok := byPage[b.file]; !ok {
			pages = append(pages, b.file)
		}
		byPage[b.file] = append(byPage[b.file], b)
	}
	if len(pages) == 0 {
		t.Fatal("the guide has no sh blocks")
	}
	for _, page := range pages {
		t.Run(filepath.Base(page), func(t *testing.T) {
			var w *world
			for _, b := range byPage[page] {
				if b.skip == "" && w == nil {
					w = newWorld(t, bin)
				}
				t.Run(strconv.Itoa(b.line), func(t *testing.T) {
					if b.skip != "" {
						t.Skipf("guide-test: skip %s: %s", b.name(), b.skip)
					}
					runBlock(t, w, b)
				})
			}
		})
	}
}

// runBlock runs the commands of b as one bash script in the world's
// repository, so that `cd` and `export` carry from one command to the
// next as they do for a reader, and checks each command's exit status.
func runBlock(t *testing.T, w *world, b block) {
	t.Helper()
	cmds := commands(b.text)
	if len(cmds) == 0 {
		t.Fatalf("%s: an sh block without a command", b.name())
	}
	stepFile := filepath.Join(t.TempDir(), "step")
	var script strings.Builder
	script.WriteString("set -e\n")
	for i, c := range cmds {
		fmt.Fprintf(&script, "printf '%d\\n' > %s\n", i, shellQuote(stepFile))
		want, _ := b.exitFor(c)
		if want == 0 {
			script.WriteString(c + "\n")
			continue
		}
		// A command meant to fail: its status is checked, not fatal.
		fmt.Fprintf(&script, "if\n%s\nthen __s=0; else __s=$?; fi\n", c)
		fmt.Fprintf(&script, "if [ \"$__s\" != %d ]; then echo \"guide-test: exit $__s, want %d\" >&2; exit 97; fi\n", want, want)
	}
	used := map[string]bool{}
	for _, c := range cmds {
		if _, p := b.exitFor(c); p != "" {
			used[p] = true
		}
	}
	for p := range b.exits {
		if !used[p] {
			t.Errorf("%s: the exit annotation %q names no command of the block", b.name(), p)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), blockTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Dir, cmd.Env = w.repo, w.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	for _, c := range cmds {
		t.Logf("ran: %s", c)
	}
	if err == nil {
		return
	}
	step, _ := os.ReadFile(stepFile)
	i, _ := strconv.Atoi(strings.TrimSpace(string(step)))
	failed := "?"
	if i >= 0 && i < len(cmds) {
		failed = cmds[i]
	}
	t.Fatalf("%s: the guide's command failed (%v):\n  %s\nstdout:\n%s\nstderr:\n%s", b.name(), err, failed, tail(stdout.String()), tail(stderr.String()))
}

// shellQuote quotes s for bash.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// tail keeps the end of a long output.
func tail(s string) string {
	const max = 6000
	if len(s) > max {
		return "…" + s[len(s)-max:]
	}
	return s
}
