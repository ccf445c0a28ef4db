package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/store"
	"github.com/salve-dev/salve/internal/testrepo"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sampleWorkspace copies a sample project of the executor into a fresh
// directory.
func sampleWorkspace(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("..", "..", "internal", "heal", "executor", "testdata", "projects", name)
	dst := t.TempDir()
	testrepo.Copy(t, src, dst)
	return dst
}

// TestExecRealProjectsJSON drives "salve exec --json" on the sample
// projects of five ecosystems, passing and failing, with auto isolation.
func TestExecRealProjectsJSON(t *testing.T) {
	tempStore(t)
	tests := []struct {
		project, tool string
		pass          bool
	}{
		{"go-pass", "go", true}, {"go-fail", "go", false},
		{"c-make-pass", "make", true}, {"c-make-fail", "make", false},
		{"rust-pass", "cargo", true}, {"rust-fail", "cargo", false},
		{"python-pass", "python3", true}, {"python-fail", "python3", false},
		{"node-pass", "npm", true}, {"node-fail", "npm", false},
	}
	for _, tt := range tests {
		t.Run(tt.project, func(t *testing.T) {
			if _, err := exec.LookPath(tt.tool); err != nil {
				t.Skipf("%s is not installed here", tt.tool)
			}
			ws := sampleWorkspace(t, tt.project)
			code, stdout, stderr := runSalve(t, "exec", "--json", "--workspace", ws, "--run-dir", t.TempDir(), "--timeout", "120")
			var out contract.ExecutorOutput
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatalf("stdout is not an ExecutorOutput: %v\n%s\nstderr: %s", err, stdout, stderr)
			}
			if code != out.ExitCode || (code == 0) != tt.pass {
				t.Errorf("exit status %d, output exit_code %d, want pass %v\n%s", code, out.ExitCode, tt.pass, out.BuildLog)
			}
			if m := out.EnvironmentMetadata; m.Isolation == "" || m.ResolvedCommand == "" || m.LogPath == "" {
				t.Errorf("metadata incomplete: %+v", m)
			}
			validateAgainstSchema(t, "ExecutorOutput", stdout)
		})
	}
}

func TestExecStreamsLogAndSummary(t *testing.T) {
	tempStore(t)
	ws := t.TempDir()
	runDir := t.TempDir()
	code, stdout, stderr := runSalve(t, "exec", "--workspace", ws, "--run-dir", runDir, "--isolation", "none",
		"--cmd", "echo building; echo oops >&2; exit 3")
	if code != 3 {
		t.Errorf("exit status %d, want the build's 3", code)
	}
	if stdout != "building\noops\n" {
		t.Errorf("stdout %q, want the log only", stdout)
	}
	if !strings.HasPrefix(stderr, "salve exec: build failed (exit 3)") || strings.Count(stderr, "\n") != 1 ||
		!strings.Contains(stderr, filepath.Join(runDir, "build.log")) {
		t.Errorf("stderr %q, want one summary line", stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(runDir, "build.log")); string(b) != "building\noops\n" {
		t.Errorf("build.log = %q", b)
	}
}

func TestExecExitStatus(t *testing.T) {
	tempStore(t)
	ws := t.TempDir()
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"pass", []string{"--cmd", "true"}, 0},
		{"build status mirrored", []string{"--cmd", "exit 42"}, 42},
		{"timeout", []string{"--cmd", "sleep 30", "--timeout", "1"}, 124},
		{"missing workspace", []string{"--workspace", "/nonexistent/salve", "--cmd", "true"}, exitBadInput},
		{"bad timeout", []string{"--cmd", "true", "--timeout", "0"}, exitBadInput},
		{"unknown isolation", []string{"--cmd", "true", "--isolation", "chroot"}, exitBadInput},
		{"unknown project type", []string{"--project-type", "cobol"}, exitBadInput},
		{"nothing to build", nil, exitBadInput},
		{"extra argument", []string{"build"}, exitBadInput},
		{"bad --image-for", []string{"--cmd", "true", "--image-for", "golang:1"}, exitBadInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"exec", "--json", "--workspace", ws, "--run-dir", t.TempDir(), "--isolation", "none"}, tt.args...)
			code, stdout, stderr := runSalve(t, args...)
			if code != tt.want {
				t.Errorf("exit %d, want %d\nstdout %s\nstderr %s", code, tt.want, stdout, stderr)
			}
			if tt.want == exitBadInput && (stdout != "" || !strings.HasPrefix(stderr, "salve:")) {
				t.Errorf("bad input: stdout %q stderr %q", stdout, stderr)
			}
		})
	}
}

func TestExecPassesNamedEnvOnly(t *testing.T) {
	tempStore(t)
	t.Setenv("OPENAI_API_KEY", "sk-cli-must-not-leak")
	t.Setenv("SALVE_CLI_PASSED", "yes")
	t.Setenv("SALVE_CLI_CONFIGURED", "also")
	t.Setenv("SALVE_EXEC_ENV", "SALVE_CLI_CONFIGURED, OTHER")
	code, stdout, _ := runSalve(t, "exec", "--workspace", t.TempDir(), "--run-dir", t.TempDir(),
		"--env", "SALVE_CLI_PASSED", "--cmd", "env")
	if code != 0 || strings.Contains(stdout, "must-not-leak") || !strings.Contains(stdout, "SALVE_CLI_PASSED=yes") ||
		!strings.Contains(stdout, "SALVE_CLI_CONFIGURED=also") {
		t.Errorf("exit %d, environment:\n%s", code, stdout)
	}
}

// tempStore points the run store at a fresh file for the test.
func tempStore(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "runs.db")
	t.Setenv(store.EnvStore, path)
	return path
}

// TestExecRecordsInStore checks that an execution lands in the run store,
// with its output object in an event and the full log as an artifact, as
// "salve runs show" reads them (Store.View).
func TestExecRecordsInStore(t *testing.T) {
	path := tempStore(t)
	runID := "3f8a4c1e-0000-4000-8000-000000000001"
	code, _, stderr := runSalve(t, "exec", "--workspace", t.TempDir(), "--run-dir", t.TempDir(), "--isolation", "none",
		"--run-id", runID, "--cmd", "echo cc main.c; echo 'main.c:1: error' >&2; exit 1")
	if code != 1 || !strings.Contains(stderr, "run "+runID) {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	st := openStore(t, path)
	defer st.Close()
	v, err := st.View(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	if v.Run.Kind != store.KindExec || v.Run.Status != contract.RunFailed || len(v.Events) != 1 {
		t.Fatalf("view %+v", v)
	}
	out, _ := json.Marshal(v.Events[0].Context["executor_output"])
	var eo contract.ExecutorOutput
	if err := json.Unmarshal(out, &eo); err != nil || eo.ExitCode != 1 || eo.BuildLog != "cc main.c\nmain.c:1: error\n" {
		t.Errorf("event output %s (%v)", out, err)
	}
	_, data, err := st.ArtifactData(context.Background(), runID, "build.log")
	if err != nil || string(data) != eo.BuildLog {
		t.Errorf("build.log artifact %q %v", data, err)
	}

	// --no-record leaves the store alone.
	code, _, _ = runSalve(t, "exec", "--workspace", t.TempDir(), "--run-dir", t.TempDir(), "--isolation", "none",
		"--run-id", "3f8a4c1e-0000-4000-8000-000000000002", "--no-record", "--cmd", "true")
	if _, err := st.GetRun(context.Background(), "3f8a4c1e-0000-4000-8000-000000000002"); code != 0 || err == nil {
		t.Errorf("--no-record: exit %d, run found (err %v)", code, err)
	}
}

// TestProgressLine checks the TTY status line: drawn on stderr after whole
// lines, erased before each log chunk, never drawn after a partial line,
// and gone at the end. Stdout receives the log untouched.
func TestProgressLine(t *testing.T) {
	var out, errb strings.Builder
	p := newProgress(&out, &errb)
	p.Write([]byte("one\n"))
	if !strings.Contains(errb.String(), "salve exec: running 0s") {
		t.Fatalf("no status line after a whole line: %q", errb.String())
	}
	p.Write([]byte("partial"))
	if strings.Count(errb.String(), "salve exec: running") != 1 || !strings.HasSuffix(errb.String(), "\r\033[K") {
		t.Errorf("status line drawn after a partial line, or not erased: %q", errb.String())
	}
	p.Write([]byte(" done\n"))
	p.stop()
	if out.String() != "one\npartial done\n" {
		t.Errorf("stdout %q", out.String())
	}
	if !strings.HasSuffix(errb.String(), "\r\033[K") {
		t.Errorf("status line left on screen: %q", errb.String())
	}
	if isTerminal(&out) {
		t.Errorf("a buffer is not a terminal")
	}
}

// validateAgainstSchema checks doc against the contract's JSON Schema name.
func validateAgainstSchema(t *testing.T, name, doc string) {
	t.Helper()
	raw, err := contract.Schema(name)
	if err != nil {
		t.Fatal(err)
	}
	schemaDoc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem:///"+name+".json", schemaDoc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem:///" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("output does not match the %s schema: %v", name, err)
	}
}

func TestIsTerminal(t *testing.T) {
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	if isTerminal(devnull) {
		t.Errorf("%s is a character device, not a terminal", os.DevNull)
	}
}

// TestExecJSONFields pins the keys of "salve exec --json": the seed's five
// output fields and the metadata the Parser and the run store rely on.
func TestExecJSONFields(t *testing.T) {
	tempStore(t)
	_, stdout, _ := runSalve(t, "exec", "--json", "--workspace", t.TempDir(), "--run-dir", t.TempDir(), "--isolation", "none", "--cmd", "true")
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(doc["environment_metadata"], &meta); err != nil {
		t.Fatal(err)
	}
	keys := func(m map[string]json.RawMessage) string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return strings.Join(out, " ")
	}
	if got, want := keys(doc), "build_log environment_metadata execution_time_seconds exit_code log_excerpt"; got != want {
		t.Errorf("output keys %q, want %q", got, want)
	}
	// image is omitted outside containers.
	want := "command_reason detected_tools isolation log_bytes log_path log_truncated project_type resolved_command runtime_versions timed_out"
	if got := keys(meta); got != want {
		t.Errorf("metadata keys %q, want %q", got, want)
	}
}
