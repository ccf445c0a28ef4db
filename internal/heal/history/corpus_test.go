package history_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/salve-dev/salve/internal/heal/history"
	"github.com/salve-dev/salve/internal/heal/logparse"
	"github.com/salve-dev/salve/internal/heal/score"
)

// TestCorpusCases runs the tier alone on the heal corpus's history cases,
// as the heal loop would: the case's before/ tree (which must pass its
// command) committed, then its
// tree/, the command run, its log parsed, the tier run on each failing
// file with HEAD's diff, for up to three rounds. The command must pass,
// and the fixed files must be the case's reference fix.
func TestCorpusCases(t *testing.T) {
	n := 0
	for _, c := range loadCorpus(t) {
		if c.Class != score.ClassHistory {
			continue
		}
		n++
		t.Run(c.Name, func(t *testing.T) {
			repo := commitCase(t, c)
			fixer := &history.Fixer{Diff: gitShow}
			for round := 1; ; round++ {
				log, ok := build(t, repo, []string{"sh", "-c", c.Command})
				if ok {
					if round == 1 {
						t.Fatal("the broken tree passes")
					}
					break
				}
				if round > 3 {
					t.Fatalf("still failing after 3 rounds:\n%s", log)
				}
				if fixFiles(t, fixer, repo, logparse.ParseString(log, logparse.Options{Workspace: repo})) == 0 {
					t.Fatalf("round %d: no fix\n%s", round, log)
				}
			}
			fixed := filepath.Join(c.Dir, "fixed")
			err := filepath.WalkDir(fixed, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel, _ := filepath.Rel(fixed, p)
				want, _ := os.ReadFile(p)
				got, _ := os.ReadFile(filepath.Join(repo, rel))
				if string(got) != string(want) {
					t.Errorf("%s is not the reference fix:\n%s", rel, got)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
	if n == 0 {
		t.Fatal("no history case in the corpus")
	}
}

// TestCorpusDeclines runs the tier alone on the corpus's needs_llm cases
// that are a breaking commit (they have a before/ tree): what the commit
// shows leaves more than one fix (two candidate names, two candidate
// arguments), so the tier must change nothing.
func TestCorpusDeclines(t *testing.T) {
	n := 0
	for _, c := range loadCorpus(t) {
		if _, err := os.Stat(filepath.Join(c.Dir, "before")); c.Class != score.ClassNeedsLLM || err != nil {
			continue
		}
		n++
		t.Run(c.Name, func(t *testing.T) {
			repo := commitCase(t, c)
			log, ok := build(t, repo, []string{"sh", "-c", c.Command})
			if ok {
				t.Fatal("the broken tree passes")
			}
			if fixed := fixFiles(t, &history.Fixer{Diff: gitShow}, repo, logparse.ParseString(log, logparse.Options{Workspace: repo})); fixed != 0 {
				t.Fatalf("the tier changed %d file(s); it must decline", fixed)
			}
		})
	}
	if n == 0 {
		t.Fatal("no needs_llm case with a breaking commit in the corpus")
	}
}

// loadCorpus loads the heal corpus's cases; it skips the test in -short
// mode, since the cases run git and real toolchains.
func loadCorpus(t *testing.T) []score.Case {
	t.Helper()
	if testing.Short() {
		t.Skip("runs git and real toolchains")
	}
	cases, err := score.Load(filepath.Join("..", "..", "..", "testdata", "heal-corpus"))
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// commitCase makes a repository of case c: its before/ tree (which must
// pass its command) committed, then its tree/ committed on top.
func commitCase(t *testing.T, c score.Case) string {
	t.Helper()
	for _, tool := range append([]string{"git", "sh"}, c.Tools...) {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: this case needs it", tool)
		}
	}
	repo := t.TempDir()
	green := t.TempDir()
	copyDir(t, filepath.Join(c.Dir, "before"), green)
	if log, ok := build(t, green, []string{"sh", "-c", c.Command}); !ok {
		t.Fatalf("the before/ tree fails:\n%s", log)
	}
	copyDir(t, filepath.Join(c.Dir, "before"), repo)
	run(t, repo, "git", "init", "-q", "-b", "main")
	run(t, repo, "git", "add", "-A")
	run(t, repo, "git", "commit", "-qm", "the last green commit")
	run(t, repo, "git", "rm", "-rq", ".")
	copyDir(t, filepath.Join(c.Dir, "tree"), repo)
	run(t, repo, "git", "add", "-A")
	run(t, repo, "git", "commit", "-qm", "the breaking commit")
	return repo
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
