package aiderfix

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/llm/llmtest"
	"github.com/salve-dev/salve/internal/toolrun"
	"github.com/salve-dev/salve/internal/toolrun/clitest"
)

// TestMain doubles as a stand-in aider: run under the name "aider", the
// test binary fixes "a - b" in the files it is given (or fails when its
// message says "unfixable"), and also touches a file outside its scope,
// which the tool adapter must revert.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "aider" {
		os.Exit(fakeAider(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func fakeAider(args []string) int {
	var files []string
	msg := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--model" || a == "--message-file" || a == "--edit-format" || a == "--read":
			if a == "--message-file" && i+1 < len(args) {
				b, _ := os.ReadFile(args[i+1])
				msg = string(b)
			}
			i++
		case strings.HasPrefix(a, "-"):
		default:
			files = append(files, a)
		}
	}
	if strings.Contains(msg, "unfixable") || !strings.Contains(msg, "Fix Agent") {
		os.Stderr.WriteString("model error\n")
		return 1
	}
	if strings.Contains(msg, "make-fifo") {
		// A hostile tool swaps the file for a FIFO: reading it would block.
		for _, f := range files {
			_ = os.Remove(f)
			_ = syscall.Mkfifo(f, 0o644)
		}
		return 0
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return 2
		}
		_ = os.WriteFile(f, []byte(strings.Replace(string(b), "a - b", "a + b", 1)), 0o644)
	}
	_ = os.WriteFile("outside.txt", []byte("aider was here\n"), 0o644)
	os.Stdout.WriteString("Applied edit to calc.py\n")
	return 0
}

func install(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(dir, "aider")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func TestAiderTier(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	install(t)
	src := "def add(a, b):\n    # the sum\n    return a - b\n"
	for _, tc := range []struct {
		name, message string
		want          string
		err           error
	}{
		{"edits in scope", "AssertionError: -1 != 5", "def add(a, b):\n    # the sum\n    return a + b\n", nil},
		{"aider fails", "unfixable", "", results.ErrNoFix},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "calc.py"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			in := heal.FixInput{Workspace: ws, Path: "calc.py", Content: src, Request: contract.FixRequest{
				BugReport: contract.BugReport{FilePath: "calc.py", LineNumber: 3, ErrorType: contract.ErrLogic, Message: tc.message}}}
			res, err := (&Fixer{}).Fix(context.Background(), in)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.PatchedContent != tc.want || res.Fixer != Name || res.ConfidenceScore != DefaultConfidence || !strings.Contains(res.FixReason, "Applied edit") {
				t.Errorf("result %+v", res)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, "calc.py")); string(b) != src {
				t.Errorf("calc.py not restored:\n%s", b)
			}
			if _, err := os.Stat(filepath.Join(ws, "outside.txt")); !os.IsNotExist(err) {
				t.Errorf("the out-of-scope file was not reverted by the tool adapter (stat: %v)", err)
			}
		})
	}
}

// TestAiderTierFIFO: a tool that replaces the file with a FIFO gets no fix
// and cannot make the tier hang; the file is a regular file again.
func TestAiderTierFIFO(t *testing.T) {
	install(t)
	src := "def add(a, b):\n    return a - b\n"
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "calc.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	in := heal.FixInput{Workspace: ws, Path: "calc.py", Content: src, Request: contract.FixRequest{
		BugReport: contract.BugReport{FilePath: "calc.py", LineNumber: 2, ErrorType: contract.ErrLogic, Message: "make-fifo"}}}
	done := make(chan error, 1)
	go func() {
		_, err := (&Fixer{}).Fix(context.Background(), in)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, results.ErrNoFix) {
			t.Errorf("err = %v, want ErrNoFix", err)
		}
	case <-time.After(30 * time.Second):
		// Unblock the reader so the test binary can end.
		if f, err := os.OpenFile(filepath.Join(ws, "calc.py"), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Fatal("the aider tier hangs on a FIFO")
	}
	fi, err := os.Lstat(filepath.Join(ws, "calc.py"))
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("calc.py is not a regular file again: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "calc.py")); string(b) != src {
		t.Errorf("calc.py = %q", b)
	}
}

// TestClaudeTier runs the real Claude Code through the tier against a
// local Anthropic-wire server: the scripted model's edit of the reported
// file comes back as the fix (the file itself restored for the gate),
// and an edit of the test is put back by the tool adapter and gives no
// fix, saying so.
func TestClaudeTier(t *testing.T) {
	claude := clitest.Claude(t)
	src := "def add(a, b):\n    return a - b\n"
	test := "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n"
	for _, tc := range []struct {
		name string
		mode clitest.Mode
		want string
		err  string
	}{
		{"edits the code", clitest.Fix, "def add(a, b):\n    return a + b\n", ""},
		{"edits the test", clitest.EditTest, "", "claude changed only files outside its scope calc.py (test_calc.py), which were put back"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer()
			defer srv.Close()
			model := &clitest.Model{Mode: tc.mode}
			srv.Handle(model.Answer)
			ws := t.TempDir()
			for name, content := range map[string]string{"calc.py": src, "test_calc.py": test} {
				if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			in := heal.FixInput{Workspace: ws, Path: "calc.py", Content: src, Request: contract.FixRequest{
				BugReport: contract.BugReport{FilePath: "calc.py", LineNumber: 2, ErrorType: contract.ErrLogic,
					Message: "test_calc.py:4: assert add(2, 3) == 5: add(2, 3) = -1, want 5"}}}
			f := &Fixer{Tool: Claude, Model: "claude-local", Adapter: &toolrun.Adapter{Env: []string{
				"PATH=" + filepath.Dir(claude) + ":/usr/bin:/bin", "ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=sk-ant-local-test"}}}
			res, err := f.Fix(context.Background(), in)
			if tc.err != "" {
				if !errors.Is(err, results.ErrNoFix) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want ErrNoFix saying %q (model calls %q)", err, tc.err, model.Calls())
				}
			} else if err != nil || res.PatchedContent != tc.want || res.Fixer != Claude || res.ConfidenceScore != DefaultConfidence {
				t.Fatalf("result %+v, %v (model calls %q)", res, err, model.Calls())
			}
			for name, content := range map[string]string{"calc.py": src, "test_calc.py": test} {
				if b, _ := os.ReadFile(filepath.Join(ws, name)); string(b) != content {
					t.Errorf("%s = %q, want it as it was", name, b)
				}
			}
		})
	}
}
