package executor_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/sandbox"
)

// testCacheDir keeps the sandboxed tool caches between test runs, so only
// the first run compiles the Go standard library for the bwrap backend.
var testCacheDir = filepath.Join(os.TempDir(), "salve-executor-test-cache")

// isolations returns the backends to test for real: none always, bwrap when
// it works here (make test installs it).
func isolations(t *testing.T) []string {
	t.Helper()
	out := []string{sandbox.IsolationNone}
	if err := (sandbox.Bwrap{}).Probe(context.Background(), ""); err != nil {
		t.Logf("bwrap backend not tested: unavailable here (scripts/executor/setup.sh installs bubblewrap): %v", err)
		return out
	}
	return append(out, sandbox.IsolationBwrap)
}

// workspace copies the sample project name into a fresh directory.
func workspace(t *testing.T, name string) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join("testdata", "projects", name)
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func newExec(t *testing.T, isolation string, opts executor.Options) *executor.Executor {
	t.Helper()
	opts.Isolation = isolation
	if opts.RunDir == "" {
		opts.RunDir = filepath.Join(t.TempDir(), "run")
	}
	opts.CacheDir = testCacheDir
	return executor.New(opts)
}

// TestRealProjects builds every sample project, passing and failing, with
// the real compilers of this machine, under each working backend.
func TestRealProjects(t *testing.T) {
	noPytest := func(name string) bool { return name != "pytest" && lookPath(name) }
	tests := []struct {
		project string
		tool    string
		hasTool func(string) bool
		pass    bool
		want    string
	}{
		{"go-pass", "go", nil, true, "ok  \texample.com/calc"},
		{"go-fail", "go", nil, false, "Add(2, 3) = 5, want 6"},
		{"c-make-pass", "make", nil, true, "calc_test: ok"},
		{"c-make-fail", "make", nil, false, "calc.c:3:37: error: expected"},
		{"rust-pass", "cargo", nil, true, "test result: ok. 1 passed"},
		{"rust-fail", "cargo", nil, false, "test result: FAILED"},
		{"python-pass", "pytest", nil, true, "1 passed"},
		{"python-fail", "pytest", nil, false, "AssertionError"},
		{"python-pass", "python3", noPytest, true, "\nOK\n"},
		{"python-fail", "python3", noPytest, false, "AssertionError: 6 != 5"},
		{"node-pass", "npm", nil, true, "# pass 1"},
		{"node-fail", "npm", nil, false, "# fail 1"},
		{"cmake", "cmake", nil, true, "100% tests passed"},
	}
	for _, iso := range isolations(t) {
		for _, tt := range tests {
			t.Run(iso+"/"+tt.project+"/"+tt.tool, func(t *testing.T) {
				if !lookPath(tt.tool) {
					t.Skipf("%s is not installed here", tt.tool)
				}
				ex := newExec(t, iso, executor.Options{HasTool: tt.hasTool})
				out, err := ex.Run(context.Background(), contract.ExecutorInput{
					WorkspacePath: workspace(t, tt.project), TimeoutSeconds: 120})
				if err != nil {
					t.Fatal(err)
				}
				if (out.ExitCode == 0) != tt.pass || !strings.Contains(out.BuildLog, tt.want) {
					t.Errorf("exit %d (want pass %v), log lacks %q:\n%s", out.ExitCode, tt.pass, tt.want, out.BuildLog)
				}
				m := out.EnvironmentMetadata
				if m.Isolation != iso || m.TimedOut || m.ResolvedCommand == "" || m.CommandReason == "" {
					t.Errorf("metadata %+v", m)
				}
				if len(m.RuntimeVersions) == 0 || len(m.DetectedTools) == 0 {
					t.Errorf("no runtime versions or tools probed: %+v", m)
				}
				checkLogFile(t, out)
			})
		}
	}
}

func lookPath(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

// checkLogFile checks that the log file holds the whole log, equal to the
// in-memory one when that was not cut.
func checkLogFile(t *testing.T, out contract.ExecutorOutput) {
	t.Helper()
	m := out.EnvironmentMetadata
	b, err := os.ReadFile(m.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(b)) != m.LogBytes {
		t.Errorf("log file has %d bytes, metadata says %d", len(b), m.LogBytes)
	}
	if !m.LogTruncated && string(b) != out.BuildLog {
		t.Errorf("log file and build_log differ")
	}
}

func TestGivenCommandAndOverride(t *testing.T) {
	ws := workspace(t, "mixed-root")
	typ := executor.TypeMake
	ex := newExec(t, sandbox.IsolationNone, executor.Options{})
	out, err := ex.Run(context.Background(), contract.ExecutorInput{
		WorkspacePath: ws, ProjectType: &typ, ResolvedBuildCommand: "echo hello from $CI; exit 7"})
	if err != nil {
		t.Fatal(err)
	}
	m := out.EnvironmentMetadata
	if out.ExitCode != 7 || out.BuildLog != "hello from true\n" || m.CommandReason != "given" ||
		m.ProjectType != executor.TypeMake || m.ResolvedCommand != "echo hello from $CI; exit 7" {
		t.Errorf("out %+v", out)
	}
	if _, ok := m.RuntimeVersions["gcc"]; !ok && lookPath("gcc") {
		t.Errorf("make project, but gcc version not probed: %v", m.RuntimeVersions)
	}
	// A given command in an unrecognisable workspace still runs.
	out, err = ex.Run(context.Background(), contract.ExecutorInput{WorkspacePath: t.TempDir(), ResolvedBuildCommand: "true"})
	if err != nil || out.ExitCode != 0 || out.EnvironmentMetadata.ProjectType != executor.TypeUnknown {
		t.Errorf("unknown project: %v %+v", err, out)
	}
}

// TestEnvironmentScrubbed proves that API keys in salve's environment never
// reach a build, and that variables named in PassEnv do.
func TestEnvironmentScrubbed(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-openai-must-not-leak")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-must-not-leak")
	t.Setenv("GITHUB_TOKEN", "ghp-must-not-leak")
	t.Setenv("SALVE_PASSED", "passed-on")
	for _, iso := range isolations(t) {
		t.Run(iso, func(t *testing.T) {
			ex := newExec(t, iso, executor.Options{PassEnv: []string{"SALVE_PASSED"}})
			out, err := ex.Run(context.Background(), contract.ExecutorInput{
				WorkspacePath: t.TempDir(), ResolvedBuildCommand: "env; cat /proc/self/environ | tr '\\0' '\\n'"})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out.BuildLog, "must-not-leak") || strings.Contains(out.BuildLog, "API_KEY") {
				t.Errorf("a secret reached the build:\n%s", out.BuildLog)
			}
			for _, want := range []string{"SALVE_PASSED=passed-on", "CI=true", "PATH="} {
				if !strings.Contains(out.BuildLog, want) {
					t.Errorf("build environment lacks %s:\n%s", want, out.BuildLog)
				}
			}
		})
	}
}

// TestTimeoutKillsEverything runs a build whose children and orphaned
// grandchildren sleep, and checks the 124, the flag and that none survive.
func TestTimeoutKillsEverything(t *testing.T) {
	for _, iso := range isolations(t) {
		t.Run(iso, func(t *testing.T) {
			marker := fmt.Sprintf("%d.%d", 800+os.Getpid()%90, time.Now().UnixNano()%1000000)
			ex := newExec(t, iso, executor.Options{SkipProbe: true})
			// The time limit must leave the shell time to echo on a busy
			// machine: the log is checked to hold what came before it.
			out, err := ex.Run(context.Background(), contract.ExecutorInput{WorkspacePath: t.TempDir(), TimeoutSeconds: 5,
				ResolvedBuildCommand: fmt.Sprintf("(sleep %s &); sleep %s & echo started; wait", marker, marker)})
			if err != nil {
				t.Fatal(err)
			}
			if out.ExitCode != executor.ExitTimeout || !out.EnvironmentMetadata.TimedOut || out.BuildLog != "started\n" {
				t.Errorf("exit %d timed_out %v log %q", out.ExitCode, out.EnvironmentMetadata.TimedOut, out.BuildLog)
			}
			// The processes die with the group kill; the deadline is only
			// the failure cap.
			deadline := time.Now().Add(time.Minute)
			for len(procsWith(marker)) > 0 && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			if left := procsWith(marker); len(left) > 0 {
				t.Errorf("processes survived the timeout: %v", left)
			}
		})
	}
}

func procsWith(s string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if bytes.Contains(cmdline, []byte(s)) && !bytes.Contains(stat, []byte(") Z ")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestLargeLogIsCapped streams a 200 MB log: memory keeps only the capped
// copies, while the log file gets every byte.
func TestLargeLogIsCapped(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 200 MB; skipped with -short")
	}
	const size = 200_000_000
	const line = "salve large log line 0123456789 abcdefghijklmnopqrstuvwxyz\n"
	const maxLog = 256 * 1024
	ex := newExec(t, sandbox.IsolationNone, executor.Options{SkipProbe: true, MaxLog: maxLog, MaxLogFile: -1})
	out, err := ex.Run(context.Background(), contract.ExecutorInput{WorkspacePath: t.TempDir(),
		ResolvedBuildCommand: fmt.Sprintf("yes %q | head -c %d; echo; echo THE-END", strings.TrimSuffix(line, "\n"), size)})
	if err != nil {
		t.Fatal(err)
	}
	m := out.EnvironmentMetadata
	total := int64(size + len("\nTHE-END\n"))
	if out.ExitCode != 0 || m.LogBytes != total || !m.LogTruncated {
		t.Fatalf("exit %d log_bytes %d (want %d) truncated %v", out.ExitCode, m.LogBytes, total, m.LogTruncated)
	}
	if len(out.BuildLog) > maxLog+100 || !strings.HasSuffix(out.BuildLog, "THE-END\n") ||
		!strings.HasPrefix(out.BuildLog, line) || !strings.Contains(out.BuildLog, "bytes omitted]") {
		t.Errorf("build_log: %d bytes, head %q, tail %q", len(out.BuildLog), head(out.BuildLog), out.BuildLog[max(0, len(out.BuildLog)-40):])
	}
	if len(out.LogExcerpt) > 130*600 || !strings.Contains(out.LogExcerpt, "lines omitted]") {
		t.Errorf("log_excerpt: %d bytes", len(out.LogExcerpt))
	}
	// The file holds exactly what was printed.
	want := sha256.New()
	for written := 0; written < size; written += len(line) {
		io.WriteString(want, line[:min(len(line), size-written)])
	}
	io.WriteString(want, "\nTHE-END\n")
	f, err := os.Open(m.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := sha256.New()
	if _, err := io.Copy(got, f); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Sum(nil), want.Sum(nil)) {
		t.Errorf("the log file does not hold exactly what the build printed")
	}
}

func head(s string) string { return s[:min(len(s), 60)] }

// recorder is a Recorder made of a function field.
type recorder struct {
	record func(ctx context.Context, runID string, in contract.ExecutorInput, out contract.ExecutorOutput, logPath string) error
}

func (r recorder) RecordExecution(ctx context.Context, runID string, in contract.ExecutorInput, out contract.ExecutorOutput, logPath string) error {
	return r.record(ctx, runID, in, out, logPath)
}

func TestRecorderAndOutputFile(t *testing.T) {
	var calls int
	var gotID, gotLog string
	var gotOut contract.ExecutorOutput
	rec := recorder{func(_ context.Context, id string, in contract.ExecutorInput, out contract.ExecutorOutput, logPath string) error {
		calls++
		gotID, gotOut, gotLog = id, out, logPath
		return nil
	}}
	runDir := filepath.Join(t.TempDir(), "r1")
	ex := newExec(t, sandbox.IsolationNone, executor.Options{RunID: "run-1", RunDir: runDir, Recorder: rec, SkipProbe: true})
	out, err := ex.Run(context.Background(), contract.ExecutorInput{WorkspacePath: t.TempDir(), ResolvedBuildCommand: "echo out; echo err >&2; exit 3"})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || gotID != "run-1" || gotLog != filepath.Join(runDir, executor.LogFile) || gotOut.ExitCode != 3 {
		t.Errorf("recorder got %d calls, id %q, log %q, exit %d", calls, gotID, gotLog, gotOut.ExitCode)
	}
	if out.BuildLog != "out\nerr\n" || out.LogExcerpt != "out\nerr\n" {
		t.Errorf("log %q excerpt %q", out.BuildLog, out.LogExcerpt)
	}
	b, err := os.ReadFile(filepath.Join(runDir, executor.OutputFile))
	if err != nil {
		t.Fatal(err)
	}
	var fromFile contract.ExecutorOutput
	if err := json.Unmarshal(b, &fromFile); err != nil || fromFile.ExitCode != 3 || fromFile.BuildLog != out.BuildLog {
		t.Errorf("output.json: %v %+v", err, fromFile)
	}

	failing := recorder{func(context.Context, string, contract.ExecutorInput, contract.ExecutorOutput, string) error {
		return errors.New("store is closed")
	}}
	ex = newExec(t, sandbox.IsolationNone, executor.Options{Recorder: failing, SkipProbe: true})
	out, err = ex.Run(context.Background(), contract.ExecutorInput{WorkspacePath: t.TempDir(), ResolvedBuildCommand: "exit 5"})
	if !errors.Is(err, executor.ErrRecord) || out.ExitCode != 5 {
		t.Errorf("failing recorder: err %v, exit %d", err, out.ExitCode)
	}
}

func TestDefaultRunDir(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	ex := executor.New(executor.Options{Isolation: sandbox.IsolationNone, SkipProbe: true})
	out, err := ex.Run(context.Background(), contract.ExecutorInput{WorkspacePath: t.TempDir(), ResolvedBuildCommand: "true"})
	if err != nil {
		t.Fatal(err)
	}
	if p := out.EnvironmentMetadata.LogPath; !strings.HasPrefix(p, filepath.Join(state, "salve", "runs")+"/") {
		t.Errorf("log path %q is not under the state dir", p)
	}
}

func TestBadInput(t *testing.T) {
	bogus := "cobol"
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	tests := []struct {
		name string
		iso  string
		in   contract.ExecutorInput
	}{
		{"relative workspace", "none", contract.ExecutorInput{WorkspacePath: "rel/dir", ResolvedBuildCommand: "true"}},
		{"missing workspace", "none", contract.ExecutorInput{WorkspacePath: "/nonexistent/salve", ResolvedBuildCommand: "true"}},
		{"workspace is a file", "none", contract.ExecutorInput{WorkspacePath: file, ResolvedBuildCommand: "true"}},
		{"negative timeout", "none", contract.ExecutorInput{WorkspacePath: t.TempDir(), ResolvedBuildCommand: "true", TimeoutSeconds: -1}},
		{"unknown type", "none", contract.ExecutorInput{WorkspacePath: t.TempDir(), ProjectType: &bogus}},
		{"unknown type with command", "none", contract.ExecutorInput{WorkspacePath: t.TempDir(), ProjectType: &bogus, ResolvedBuildCommand: "true"}},
		{"nothing to build", "none", contract.ExecutorInput{WorkspacePath: t.TempDir()}},
		{"unknown isolation", "chroot", contract.ExecutorInput{WorkspacePath: t.TempDir(), ResolvedBuildCommand: "true"}},
		{"filesystem root", "none", contract.ExecutorInput{WorkspacePath: "/", ResolvedBuildCommand: "true"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newExec(t, tt.iso, executor.Options{}).Run(context.Background(), tt.in)
			if !errors.Is(err, executor.ErrBadInput) {
				t.Errorf("err = %v, want ErrBadInput", err)
			}
		})
	}
}

func TestRunIDChecked(t *testing.T) {
	for _, id := range []string{"../../etc", "a/b", ".hidden", "-x", "a b", string(make([]byte, 200))} {
		ex := executor.New(executor.Options{Isolation: sandbox.IsolationNone, RunID: id, RunDir: t.TempDir(), SkipProbe: true})
		_, err := ex.Run(context.Background(), contract.ExecutorInput{WorkspacePath: t.TempDir(), ResolvedBuildCommand: "true"})
		if !errors.Is(err, executor.ErrBadInput) {
			t.Errorf("run id %q: err = %v, want ErrBadInput", id, err)
		}
	}
	ex := executor.New(executor.Options{Isolation: sandbox.IsolationNone, RunID: "heal-1.build_2", RunDir: t.TempDir(), SkipProbe: true})
	if _, err := ex.Run(context.Background(), contract.ExecutorInput{WorkspacePath: t.TempDir(), ResolvedBuildCommand: "true"}); err != nil {
		t.Errorf("a valid run id was refused: %v", err)
	}
}

func TestExitCode(t *testing.T) {
	tests := []struct {
		res  sandbox.Result
		want int
	}{
		{sandbox.Result{ExitCode: 0}, 0},
		{sandbox.Result{ExitCode: 2}, 2},
		{sandbox.Result{ExitCode: -1, Signal: "killed", TimedOut: true}, 124},
		{sandbox.Result{ExitCode: 1, TimedOut: true}, 124},
		{sandbox.Result{ExitCode: -1, Signal: "killed"}, 137},
		{sandbox.Result{ExitCode: -1, Signal: "terminated"}, 143},
		{sandbox.Result{ExitCode: -1, Signal: "segmentation fault"}, 139},
	}
	for _, tt := range tests {
		if got := executor.ExitCode(tt.res); got != tt.want {
			t.Errorf("ExitCode(%+v) = %d, want %d", tt.res, got, tt.want)
		}
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	recorded := false
	rec := recorder{func(ctx context.Context, _ string, _ contract.ExecutorInput, out contract.ExecutorOutput, _ string) error {
		recorded = ctx.Err() == nil && out.ExitCode == 137
		return nil
	}}
	// Cancel when the build's first output arrives, not after a fixed delay
	// that a loaded machine could outlast before the build even starts.
	var once sync.Once
	live := writerFunc(func(p []byte) (int, error) { once.Do(cancel); return len(p), nil })
	ex := newExec(t, sandbox.IsolationNone, executor.Options{SkipProbe: true, Recorder: rec, Live: live})
	out, err := ex.Run(ctx, contract.ExecutorInput{WorkspacePath: t.TempDir(), ResolvedBuildCommand: "echo go; sleep 30"})
	if !errors.Is(err, context.Canceled) || out.ExitCode != 137 || out.EnvironmentMetadata.TimedOut {
		t.Errorf("err %v exit %d timed_out %v", err, out.ExitCode, out.EnvironmentMetadata.TimedOut)
	}
	if !recorded {
		t.Errorf("the interrupted run was not recorded with a live context")
	}
}

// TestExecutorReuse runs one Executor twice: the second run reuses the
// probes, and the outputs do not share their maps and slices.
func TestExecutorReuse(t *testing.T) {
	ws := workspace(t, "c-make-pass")
	ex := newExec(t, sandbox.IsolationNone, executor.Options{})
	first, err := ex.Run(context.Background(), contract.ExecutorInput{WorkspacePath: ws})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.EnvironmentMetadata.DetectedTools) == 0 {
		t.Fatalf("no tools probed: %+v", first.EnvironmentMetadata)
	}
	first.EnvironmentMetadata.RuntimeVersions["gcc"] = "changed"
	first.EnvironmentMetadata.DetectedTools[0] = "changed"
	second, err := ex.Run(context.Background(), contract.ExecutorInput{WorkspacePath: ws})
	if err != nil {
		t.Fatal(err)
	}
	m := second.EnvironmentMetadata
	if m.RuntimeVersions["gcc"] == "changed" || m.DetectedTools[0] == "changed" || second.ExitCode != 0 {
		t.Errorf("second run: exit %d, metadata %+v", second.ExitCode, m)
	}
}

// TestMonorepoBuildsEverySubProject runs the monorepo sample for real: each
// sub-project is built even when an earlier one fails, and the run fails.
func TestMonorepoBuildsEverySubProject(t *testing.T) {
	for _, tool := range []string{"go", "npm"} {
		if !lookPath(tool) {
			t.Skipf("%s is not installed here", tool)
		}
	}
	ws := workspace(t, "monorepo")
	// Break the Go sub-project, which is built first.
	if err := os.WriteFile(filepath.Join(ws, "services", "api", "api.go"), []byte("package api\n\nvar x int = \"s\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ex := newExec(t, sandbox.IsolationNone, executor.Options{SkipProbe: true})
	out, err := ex.Run(context.Background(), contract.ExecutorInput{WorkspacePath: ws, TimeoutSeconds: 120})
	if err != nil {
		t.Fatal(err)
	}
	if out.ExitCode == 0 || out.EnvironmentMetadata.ProjectType != executor.TypeMulti {
		t.Errorf("exit %d type %s", out.ExitCode, out.EnvironmentMetadata.ProjectType)
	}
	for _, want := range []string{"==> salve: services/api (go)", "api.go:3", "==> salve: web (node)", "# pass 1"} {
		if !strings.Contains(out.BuildLog, want) {
			t.Errorf("log lacks %q:\n%s", want, out.BuildLog)
		}
	}
}

func TestPassEnvFromEnv(t *testing.T) {
	for in, want := range map[string]string{
		"":                 "",
		"A":                "A",
		"A,B":              "A|B",
		" A , B\tC,,":      "A|B|C",
		"NPM_TOKEN GH_URL": "NPM_TOKEN|GH_URL",
	} {
		got := executor.PassEnvFromEnv(func(k string) string {
			if k == executor.EnvPassEnv {
				return in
			}
			return ""
		})
		if strings.Join(got, "|") != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

// TestContainerBackendThroughExecutor runs the Executor with the docker
// backend against a stand-in engine CLI (no engine runs here): the image of
// the project type is used and recorded, and the container is removed.
func TestContainerBackendThroughExecutor(t *testing.T) {
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls.log")
	script := "#!/bin/sh\necho \"$*\" >> " + calls + "\ncase \"$1\" in\ninfo|image|rm) exit 0 ;;\n" +
		"run) eval \"s=\\${$#}\"; exec sh -c \"$s\" ;;\nesac\nexit 125\n"
	if err := os.WriteFile(filepath.Join(dir, "docker"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
	t.Setenv("DOCKER_HOST", "unix:///run/salve-fake-engine.sock") // an engine is named: the CLI is asked
	ex := newExec(t, sandbox.IsolationDocker, executor.Options{RunID: "c1", Images: map[string]string{executor.TypeMake: "gcc:local"}})
	out, err := ex.Run(context.Background(), contract.ExecutorInput{WorkspacePath: workspace(t, "c-make-pass")})
	if err != nil {
		t.Fatal(err)
	}
	m := out.EnvironmentMetadata
	if out.ExitCode != 0 || m.Isolation != sandbox.IsolationDocker || m.Image != "gcc:local" || !strings.Contains(out.BuildLog, "calc_test: ok") {
		t.Errorf("exit %d metadata %+v log %q", out.ExitCode, m, out.BuildLog)
	}
	log, _ := os.ReadFile(calls)
	for _, want := range []string{"--network none", "gcc:local sh -c make && make test", "rm --force salve-exec-c1"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("engine calls lack %q:\n%s", want, log)
		}
	}
}

// writerFunc is an io.Writer made of a function.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
