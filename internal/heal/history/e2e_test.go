package history_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/history"
	"github.com/salve-dev/salve/internal/heal/logparse"
	"github.com/salve-dev/salve/internal/sandbox"
)

// e2eCase is a project whose second commit renames something or changes
// a signature and misses a site: the build of that commit fails, and the
// tier must make it pass from the commit's own diff.
type e2eCase struct {
	name   string
	tool   string
	build  []string
	before map[string]string
	// after is written over before for the second commit.
	after map[string]string
	// later, when set, is written over after for a third commit that
	// changes something else: the breaking commit is then HEAD~1.
	later map[string]string
}

var e2eCases = []e2eCase{
	{
		name: "go rename and new parameter", tool: "go", build: []string{"go", "vet", "./..."},
		before: map[string]string{
			"go.mod": "module example.com/shop\n\ngo 1.21\n",
			"price/price.go": `package price

// Cents returns the price in cents.
func Cents(euros float64) int { return int(euros * 100) }

// Total adds the prices.
func Total(items []float64) int {
	n := 0
	for _, e := range items {
		n += Cents(e)
	}
	return n
}
`,
			"cart/cart.go": `package cart

import "example.com/shop/price"

// Sum is the cart's total in cents.
func Sum(items []float64) int { return price.Total(items) }

// One is the price of one item in cents.
func One(e float64) int { return price.Cents(e) }
`,
			"main.go": `package main

import (
	"fmt"

	"example.com/shop/cart"
	"example.com/shop/price"
)

func main() {
	fmt.Println(cart.Sum([]float64{1.5, 2}), price.Cents(3), price.Total([]float64{4}))
}
`,
		},
		after: map[string]string{
			"price/price.go": `package price

// ToCents returns the price in cents.
func ToCents(euros float64) int { return int(euros * 100) }

// Total adds the prices, less the discount in cents.
func Total(items []float64, discount int) int {
	n := 0
	for _, e := range items {
		n += ToCents(e)
	}
	return n - discount
}
`,
			"main.go": `package main

import (
	"fmt"

	"example.com/shop/cart"
	"example.com/shop/price"
)

func main() {
	fmt.Println(cart.Sum([]float64{1.5, 2}), price.ToCents(3), price.Total([]float64{4}, 0))
}
`,
		},
	},
	{
		// The breaking commit gave a method a parameter; its updated
		// calls pass a variable in one place and nil in another; the
		// test's calls were missed, and a changelog commit came after.
		// Only nil exists in the test: the type check picks it.
		name: "go new parameter, calls disagree, an older commit", tool: "go", build: []string{"go", "vet", "./..."},
		before: map[string]string{
			"go.mod":     "module example.com/feed\n\ngo 1.21\n",
			"CHANGES.md": "# Changes\n",
			"feed/reader.go": `package feed

import "os/exec"

// Reader reads items from a command's output.
type Reader struct{ Items []string }

// load runs the command and keeps its output.
func (r *Reader) load(command string) bool {
	out, err := exec.Command("sh", "-c", command).Output()
	if err != nil {
		return false
	}
	r.Items = append(r.Items, string(out))
	return true
}

// Run loads the user's command.
func (r *Reader) Run(command string, env []string) bool {
	return r.load(command)
}

// Default loads the default command.
func (r *Reader) Default() bool {
	return r.load("ls")
}
`,
			"feed/reader_test.go": `package feed

import "testing"

func TestLoad(t *testing.T) {
	var r Reader
	if !r.load("echo a") {
		t.Fatal("echo failed")
	}
	if r.load("no-such-command-here") {
		t.Fatal("a missing command loaded")
	}
}
`,
		},
		after: map[string]string{
			"feed/reader.go": `package feed

import "os/exec"

// Reader reads items from a command's output.
type Reader struct{ Items []string }

// load runs the command, with env added to its environment, and keeps its output.
func (r *Reader) load(command string, env []string) bool {
	cmd := exec.Command("sh", "-c", command)
	cmd.Env = append(cmd.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		return false
	}
	r.Items = append(r.Items, string(out))
	return true
}

// Run loads the user's command.
func (r *Reader) Run(command string, env []string) bool {
	return r.load(command, env)
}

// Default loads the default command.
func (r *Reader) Default() bool {
	return r.load("ls", nil)
}
`,
		},
		later: map[string]string{"CHANGES.md": "# Changes\n\n- the user's command sees the environment\n"},
	},
	{
		name: "c renamed macro and function", tool: "gcc", build: []string{"gcc", "-Wall", "-Werror", "-o", "app", "main.c", "buf.c", "log.c"},
		before: map[string]string{
			"buf.h":  "#ifndef BUF_H\n#define BUF_H\n#define BUF_SIZE 64\nint buf_fill(char *dst, const char *src, int base);\n#endif\n",
			"buf.c":  "#include <string.h>\n#include \"buf.h\"\n\nint buf_fill(char *dst, const char *src, int base) {\n\tstrncpy(dst, src, BUF_SIZE - 1);\n\tdst[BUF_SIZE - 1] = 0;\n\treturn (int)strlen(dst) + base;\n}\n",
			"main.c": "#include <stdio.h>\n#include \"buf.h\"\n\nint main(void) {\n\tchar line[BUF_SIZE];\n\tint n = buf_fill(line, \"hello\", 0);\n\tprintf(\"%s %d\\n\", line, n);\n\treturn 0;\n}\n",
			"log.c":  "#include <stdio.h>\n#include \"buf.h\"\n\nvoid log_line(const char *msg) {\n\tchar tmp[BUF_SIZE];\n\tbuf_fill(tmp, msg, 0);\n\tfputs(tmp, stderr);\n}\n",
		},
		after: map[string]string{
			"buf.h": "#ifndef BUF_H\n#define BUF_H\n#define BUFFER_SIZE 64\nint buffer_fill(char *dst, const char *src);\n#endif\n",
			"log.c": "#include <stdio.h>\n#include \"buf.h\"\n\nvoid log_line(const char *msg) {\n\tchar tmp[BUFFER_SIZE];\n\tbuffer_fill(tmp, msg);\n\tfputs(tmp, stderr);\n}\n",
			"buf.c": "#include <string.h>\n#include \"buf.h\"\n\nint buffer_fill(char *dst, const char *src) {\n\tstrncpy(dst, src, BUFFER_SIZE - 1);\n\tdst[BUFFER_SIZE - 1] = 0;\n\treturn (int)strlen(dst);\n}\n",
		},
	},
	{
		name: "python renamed function and new parameter", tool: "python3", build: []string{"python3", "main.py"},
		before: map[string]string{
			"stats.py":  "def mean(xs):\n    return sum(xs) / len(xs)\n\n\ndef spread(xs, lo):\n    return max(xs) - lo\n",
			"report.py": "from stats import mean, spread\n\n\ndef line(xs):\n    return f\"mean {mean(xs)} spread {spread(xs, 0)}\"\n",
			"main.py":   "import stats\nfrom report import line\n\nprint(line([1, 2, 3]))\nprint(stats.mean([4, 5]), stats.spread([4, 5], 1))\n",
		},
		after: map[string]string{
			"stats.py": "def average(xs):\n    return sum(xs) / len(xs)\n\n\ndef spread(xs, lo, hi):\n    return min(max(xs), hi) - lo\n",
			"main.py":  "import stats\nfrom report import line\n\nprint(line([1, 2, 3]))\nprint(stats.average([4, 5]), stats.spread([4, 5], 1, 10))\n",
		},
	},
	{
		name: "javascript renamed function", tool: "node", build: []string{"node", "main.js"},
		before: map[string]string{
			"dates.js": "function fmtDate(d) {\n  return d.toISOString().slice(0, 10);\n}\nmodule.exports = { fmtDate };\n",
			"page.js":  "const { fmtDate } = require('./dates');\nfunction title(d) {\n  return 'Report ' + fmtDate(d);\n}\nmodule.exports = { title };\n",
			"main.js":  "const { fmtDate } = require('./dates');\nconst { title } = require('./page');\nconst d = new Date(0);\nconsole.log(title(d), fmtDate(d));\n",
		},
		after: map[string]string{
			"dates.js": "function formatDate(d) {\n  return d.toISOString().slice(0, 10);\n}\nmodule.exports = { formatDate };\n",
			"main.js":  "const { formatDate } = require('./dates');\nconst { title } = require('./page');\nconst d = new Date(0);\nconsole.log(title(d), formatDate(d));\n",
		},
	},
}

// TestEndToEnd builds each project's second commit with the real
// toolchain, reads the log with logparse, runs the tier on each failing
// file with the commit's diff from git, and builds again, for up to
// three rounds (an interpreter stops at the first error): the build must
// pass.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs git and real toolchains")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: this test needs it")
	}
	for _, c := range e2eCases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := exec.LookPath(c.tool); err != nil {
				t.Skipf("%s is not installed: this test needs it", c.tool)
			}
			repo := t.TempDir()
			write(t, repo, c.before)
			run(t, repo, "git", "init", "-q", "-b", "main")
			run(t, repo, "git", "add", "-A")
			run(t, repo, "git", "commit", "-qm", "before")
			write(t, repo, c.after)
			run(t, repo, "git", "commit", "-qam", "rename and change signatures")
			if c.later != nil {
				write(t, repo, c.later)
				run(t, repo, "git", "add", "-A")
				run(t, repo, "git", "commit", "-qm", "an unrelated change")
			}
			fixer := &history.Fixer{Diff: gitShow}
			for round := 1; ; round++ {
				log, ok := build(t, repo, c.build)
				if ok {
					if round == 1 {
						t.Fatal("the broken commit builds")
					}
					return
				}
				if round > 3 {
					t.Fatalf("still failing after 3 rounds:\n%s", log)
				}
				reports := logparse.ParseString(log, logparse.Options{Workspace: repo})
				if len(reports) == 0 {
					t.Fatalf("no report in the log:\n%s", log)
				}
				fixed := fixFiles(t, fixer, repo, reports)
				if fixed == 0 {
					t.Fatalf("round %d: no fix for %v\n%s", round, reports, log)
				}
			}
		})
	}
}

// fixFiles runs the tier on each file's reports and writes the fixes; it
// returns how many files it fixed.
func fixFiles(t *testing.T, f *history.Fixer, repo string, reports []contract.BugReport) int {
	t.Helper()
	byFile := map[string][]contract.BugReport{}
	for _, r := range reports {
		byFile[r.FilePath] = append(byFile[r.FilePath], r)
	}
	paths := make([]string, 0, len(byFile))
	for p := range byFile {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	fixed := 0
	for _, p := range paths {
		rs := byFile[p]
		abs := filepath.Join(repo, filepath.FromSlash(p))
		b, err := os.ReadFile(abs)
		if err != nil {
			t.Logf("skip %s: %v", p, err)
			continue
		}
		in := heal.FixInput{Workspace: repo, Path: p, Content: string(b), Base: "HEAD", Request: contract.FixRequest{BugReport: rs[0], Related: rs[1:]}}
		res, err := f.Fix(context.Background(), in)
		if err != nil {
			t.Logf("%s: %v", p, err)
			continue
		}
		t.Logf("%s: %s", p, res.FixReason)
		if err := os.WriteFile(abs, []byte(res.PatchedContent), 0o644); err != nil {
			t.Fatal(err)
		}
		fixed++
	}
	return fixed
}

// gitShow is the tier's Diff in these tests: the patch of base (HEAD,
// HEAD~1…).
func gitShow(ctx context.Context, dir, base string) (string, error) {
	res, err := sandbox.Run(ctx, sandbox.Cmd{Path: "git", Args: []string{"show", "--format=", "--no-color", "--no-ext-diff", base}, Dir: dir, Env: gitEnv(), Timeout: time.Minute})
	if err != nil {
		return "", err
	}
	if res.ExitCode != 0 {
		return "", fmt.Errorf("git show: exit %d: %s", res.ExitCode, res.Stderr)
	}
	return string(res.Stdout), nil
}

func gitEnv() []string {
	return sandbox.MergeEnv(sandbox.AllowedEnv(), map[string]string{
		"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@localhost", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@localhost",
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull, "LC_ALL": "C",
	})
}

// build runs the project's build and returns its combined output and
// whether it passed.
func build(t *testing.T, dir string, argv []string) (string, bool) {
	t.Helper()
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: argv[0], Args: argv[1:], Dir: dir, Env: gitEnv(), Timeout: 5 * time.Minute, Combined: true})
	if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	return string(res.Stdout), res.ExitCode == 0
}

func run(t *testing.T, dir string, argv ...string) {
	t.Helper()
	if log, ok := build(t, dir, argv); !ok {
		t.Fatalf("%v: %s", argv, log)
	}
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		abs := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
