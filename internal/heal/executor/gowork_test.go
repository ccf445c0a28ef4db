package executor

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/sandbox"
)

// goModule writes a module example.com/m whose root package's test
// fails and whose sub package's test passes.
func goModule(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"go.mod":          "module example.com/m\n\ngo 1.21\n",
		"m.go":            "package m\n\nfunc Two() int { return 3 }\n",
		"m_test.go":       "package m\n\nimport \"testing\"\n\nfunc TestTwo(t *testing.T) {\n\tif Two() != 2 {\n\t\tt.Fatal(\"Two is not 2\")\n\t}\n}\n",
		"sub/sub.go":      "package sub\n\nfunc One() int { return 1 }\n",
		"sub/ext_test.go": "package sub_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/sub\"\n)\n\nfunc TestOne(t *testing.T) {\n\tif sub.One() != 1 {\n\t\tt.Fatal(\"One is not 1\")\n\t}\n}\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGoTestKeepsFailingBinaries: a failing go test -json build leaves
// its test binaries where GoTestBinary finds them, for a package tested
// by its own files and one tested from outside; the next builds see
// them and can run them, the log does not name the work directory, a
// passing build or Discard leaves nothing behind, and a build in a
// container's place (a command that is not go test -json) keeps none.
func TestGoTestKeepsFailingBinaries(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go here")
	}
	isolations := []string{sandbox.IsolationNone}
	bw := sandbox.Bwrap{}.Detect(context.Background())
	if err := bw.Probe(context.Background(), ""); err == nil {
		isolations = append(isolations, sandbox.IsolationBwrap)
	}
	for _, iso := range isolations {
		t.Run(iso, func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			ws, cacheDir := t.TempDir(), t.TempDir()
			goModule(t, ws)
			e := New(Options{Isolation: iso, SkipProbe: true, CacheDir: cacheDir, RepoIdentity: "example", KeepTestBinaries: true})
			run := func(cmd string) contract.ExecutorOutput {
				t.Helper()
				out, err := e.Run(context.Background(), contract.ExecutorInput{WorkspacePath: ws, ResolvedBuildCommand: cmd})
				if err != nil {
					t.Fatalf("%s: %v", cmd, err)
				}
				return out
			}
			out := run("go test -json -count=1 ./...")
			if out.ExitCode == 0 {
				t.Fatalf("the failing build passed: %s", out.BuildLog)
			}
			if strings.Contains(out.BuildLog, "WORK=") {
				t.Errorf("the log names the work directory:\n%s", out.BuildLog)
			}
			if b, _ := os.ReadFile(out.EnvironmentMetadata.LogPath); bytes.Contains(b, []byte("WORK=")) || !bytes.Contains(b, []byte(`"Test":"TestTwo"`)) {
				t.Errorf("build.log holds the work line or lacks the test:\n%s", b)
			}
			if out.EnvironmentMetadata.ResolvedCommand != "go test -json -count=1 ./..." {
				t.Errorf("resolved command %q, want the command as given", out.EnvironmentMetadata.ResolvedCommand)
			}
			root, ok := e.GoTestBinary(ws, "example.com/m")
			if !ok {
				t.Fatal("no test binary kept for the failing package")
			}
			sub, ok := e.GoTestBinary(ws, "example.com/m/sub")
			if !ok || sub == root {
				t.Fatalf("the external tests' binary: %q, %v", sub, ok)
			}
			if _, ok := e.GoTestBinary(ws, "example.com/other"); ok {
				t.Error("a binary for a package that was not tested")
			}
			if _, ok := e.GoTestBinary(t.TempDir(), "example.com/m"); ok {
				t.Error("a binary for another workspace")
			}
			// The next build runs the binary it names, as go test would.
			rerun := run("go tool test2json -t -p example.com/m '" + root + "' -test.v=test2json -test.count=1 '-test.run=^TestTwo$'")
			if rerun.ExitCode == 0 || !strings.Contains(rerun.BuildLog, `"Action":"fail","Package":"example.com/m","Test":"TestTwo"`) {
				t.Errorf("the kept binary's re-run: exit %d\n%s", rerun.ExitCode, rerun.BuildLog)
			}
			if _, ok := e.GoTestBinary(ws, "example.com/m"); !ok {
				t.Error("a build that is not go test -json dropped the kept binaries")
			}
			// A second failing build's binaries replace the first's.
			if out := run("go test -json -count=1 ./..."); out.ExitCode == 0 {
				t.Fatal("the failing build passed")
			}
			again, ok := e.GoTestBinary(ws, "example.com/m")
			if !ok || again == root {
				t.Fatalf("after a second failing build: %q, %v (first %q)", again, ok, root)
			}
			if _, err := os.Stat(root); !os.IsNotExist(err) {
				t.Errorf("the first failing build's binary is still there: %v", err)
			}
			root = again
			// The fix: the next go test -json build passes, and keeps nothing.
			if err := os.WriteFile(filepath.Join(ws, "m.go"), []byte("package m\n\nfunc Two() int { return 2 }\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if out := run("go test -json -count=1 ./..."); out.ExitCode != 0 {
				t.Fatalf("the fixed build failed:\n%s", out.BuildLog)
			}
			if _, ok := e.GoTestBinary(ws, "example.com/m"); ok {
				t.Error("a passing build's binaries are still offered")
			}
			if _, err := os.Stat(root); !os.IsNotExist(err) {
				t.Errorf("the last failing build's binary is still there: %v", err)
			}
			if err := e.Discard(); err != nil {
				t.Fatal(err)
			}
			left, _ := filepath.Glob(filepath.Join(cacheDir, "repos", "*", keptDir, "*"))
			if len(left) != 0 {
				t.Errorf("Discard left %v", left)
			}
		})
	}
}

// TestGoWorkOnlyForGoTestJSON: only one go test -json step gets -work;
// a command of several steps, with a redirection, or with -work already,
// runs as given.
func TestGoWorkOnlyForGoTestJSON(t *testing.T) {
	e := New(Options{KeepTestBinaries: true})
	repo, ws := t.TempDir(), t.TempDir()
	for _, tc := range []struct {
		cmd  string
		iso  sandbox.Backend
		env  []string
		want bool
	}{
		{"go test -json ./...", sandbox.None{}, nil, true},
		{"go test -json", sandbox.Bwrap{}, nil, true},
		{"go test -json -race -run TestX ./pkg", sandbox.None{}, nil, true},
		{"go test ./...", sandbox.None{}, nil, false},
		{"go test -json ./... && go vet ./...", sandbox.None{}, nil, false},
		{"go test -json ./... > out.json", sandbox.None{}, nil, false},
		{"go test -json -work ./...", sandbox.None{}, nil, false},
		{"go test -jsonx ./...", sandbox.None{}, nil, false},
		{"go test -json ./...", sandbox.Container{Engine: "docker"}, nil, false},
		{"go test -json ./...", sandbox.None{}, []string{"GOFLAGS=-short"}, false},
		{"go test -json ./...", sandbox.None{}, []string{"GOFLAGS=-mod=mod -run=TestX"}, false},
		{"go test -json ./...", sandbox.None{}, []string{"GOFLAGS=-count=1"}, false},
		{"go test -json ./...", sandbox.None{}, []string{"GOFLAGS=", "PATH=/bin"}, true},
		{"go test -json ./...", sandbox.None{}, []string{"GOFLAGS= -buildvcs=false -mod=mod --tags=x -race"}, true},
	} {
		got := e.goWorkFor(tc.iso, repo, ws, tc.cmd, tc.env) != ""
		if got != tc.want {
			t.Errorf("%q on %s: kept %v, want %v", tc.cmd, tc.iso.Name(), got, tc.want)
		}
	}
	if New(Options{}).goWorkFor(sandbox.None{}, repo, ws, "go test -json ./...", nil) != "" {
		t.Error("an Executor not asked to keep test binaries kept them")
	}
}

// TestWorkLineFilter: the line -work adds is left out, however the
// output is split into writes; every other line passes unchanged,
// including one that starts like it.
func TestWorkLineFilter(t *testing.T) {
	dir := "/cache/kept/go-work-x"
	work := `{"ImportPath":"","Action":"build-output","Output":"WORK=/cache/kept/go-work-x/go-build123\n"}` + "\n"
	other := `{"ImportPath":"","Action":"build-output","Output":"WORK=/elsewhere/go-build1\n"}` + "\n"
	short := `{"ImportPath":""}` + "\n"
	for _, tc := range []struct{ name, in, want string }{
		{"first", work + "a\nb\n", "a\nb\n"},
		{"later", "go: downloading x\n" + work + "a\n", "go: downloading x\na\n"},
		{"other directory", other + "a\n", other + "a\n"},
		{"a shorter line", short + "a\n", short + "a\n"},
		{"unterminated", "a\nb", "a\nb"},
		{"only once", work + work, work},
	} {
		for _, size := range []int{1, 3, 7, 64, 1 << 20} {
			var buf bytes.Buffer
			f := newWorkLineFilter(&buf, dir)
			for in := []byte(tc.in); len(in) > 0; {
				n := min(size, len(in))
				if _, err := f.Write(in[:n]); err != nil {
					t.Fatal(err)
				}
				in = in[n:]
			}
			if err := f.Flush(); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tc.want {
				t.Errorf("%s, writes of %d: got %q, want %q", tc.name, size, buf.String(), tc.want)
			}
			if got := string(dropWorkLine([]byte(tc.in), dir)); got != tc.want {
				t.Errorf("%s: dropWorkLine gave %q, want %q", tc.name, got, tc.want)
			}
		}
	}
}

// TestGoTestBinaryFollowsNoSymlink: the work directory is the build's to
// write; a go-build folder that is a symlink to elsewhere is not read, so
// no binary outside it is offered.
func TestGoTestBinaryFollowsNoSymlink(t *testing.T) {
	e := New(Options{KeepTestBinaries: true})
	ws, work, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	action := filepath.Join(elsewhere, "b001")
	if err := os.MkdirAll(action, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"_testmain.go": "package main\n\nimport (\n\t_test \"example.com/m\"\n)\n", "m.test": "binary"} {
		if err := os.WriteFile(filepath.Join(action, name), []byte(body), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(elsewhere, filepath.Join(work, "go-build1")); err != nil {
		t.Fatal(err)
	}
	e.goWorkDone(ws, work, true)
	if got, ok := e.GoTestBinary(ws, "example.com/m"); ok {
		t.Errorf("a binary behind a symlink was offered: %s", got)
	}
	// The same folder, real, is read.
	if err := os.Remove(filepath.Join(work, "go-build1")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(elsewhere, filepath.Join(work, "go-build1")); err != nil {
		t.Fatal(err)
	}
	if got, ok := e.GoTestBinary(ws, "example.com/m"); !ok || filepath.Base(got) != "m.test" {
		t.Errorf("the real folder's binary: %q, %v", got, ok)
	}
}
