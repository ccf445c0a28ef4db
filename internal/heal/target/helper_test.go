package target

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
)

// stallScripts stand in for the Python interpreter: each misbehaves the
// way a stuck or hostile helper can. PIDFILE is replaced by a file the
// script writes its process id to, so the test can check it was stopped.
var stallScripts = []struct {
	name, body string
	note       string // what the regions' Why must say
}{
	{"silent", "echo $$ > PIDFILE\nexec /bin/sleep 600\n", "gave no answer in time"},
	{"half-line", "echo $$ > PIDFILE\nprintf '[{\"defs\":['\nexec /bin/sleep 600\n", "gave no answer in time"},
	{"reads-then-hangs", "echo $$ > PIDFILE\nread line\nprintf '[{'\nexec /bin/sleep 600\n", "gave no answer in time"},
	{"orphan-holds-stdout", "/bin/sleep 600 &\necho $! > PIDFILE\nexit 0\n", "gave no answer in time"},
	{"garbage", "echo $$ > PIDFILE\nread line\necho 'not json'\nexec /bin/sleep 600\n", "the Python parser failed"},
}

// stallInterpreter writes one of stallScripts as an executable and
// returns its path and the file its process id goes to.
func stallInterpreter(t *testing.T, body string) (string, string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the stalling interpreter is a shell script")
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	script := filepath.Join(dir, "python3")
	body = "#!/bin/sh\n" + strings.ReplaceAll(body, "PIDFILE", "'"+pidFile+"'")
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, pidFile
}

// TestStalledPythonHelper points the resolver at an interpreter that
// never answers, answers half a line, or leaves an orphan holding its
// output: Resolve and TestContext must return within the parse timeout
// (and a margin for the kill), fall back to the lexical reading saying
// so, and leave no process of the helper running.
func TestStalledPythonHelper(t *testing.T) {
	const timeout = 1500 * time.Millisecond
	margin := closeGrace + 3*time.Second
	bug := contract.BugReport{FilePath: "tests/test_ops.py", LineNumber: 11, Message: "assert -1 == 3", TestName: strp("tests/test_ops.py::test_add")}
	for _, sc := range stallScripts {
		t.Run(sc.name, func(t *testing.T) {
			script, pidFile := stallInterpreter(t, sc.body)
			opt := Options{Python: script, ParseTimeout: timeout}
			start := time.Now()
			got, err := Resolve(context.Background(), "testdata/pyproj", bug, opt)
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if took > timeout+margin {
				t.Errorf("Resolve took %v with a stalled helper, want at most %v", took, timeout+margin)
			}
			checkRegions(t, got, []want{{"calc/ops.py", 4, 6, "calc.ops.add", "called by test_add"}})
			for _, r := range got {
				if !strings.Contains(r.Why, sc.note) {
					t.Errorf("%v: Why must say %q", r, sc.note)
				}
			}
			checkGone(t, pidFile)

			start = time.Now()
			src, err := TestContext(context.Background(), "testdata/pyproj", bug, opt)
			if took := time.Since(start); took > timeout+margin {
				t.Errorf("TestContext took %v with a stalled helper", took)
			}
			if err != nil || !strings.Contains(src, "test_add") {
				t.Errorf("TestContext = %q, %v; want the test read lexically", src, err)
			}
		})
	}
}

// TestStalledHelperHonoursContext checks that the caller's context ends
// a stalled helper long before the parse timeout.
func TestStalledHelperHonoursContext(t *testing.T) {
	script, pidFile := stallInterpreter(t, stallScripts[0].body)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	bug := contract.BugReport{FilePath: "tests/test_ops.py", LineNumber: 11, Message: "assert -1 == 3"}
	start := time.Now()
	_, err := Resolve(ctx, "testdata/pyproj", bug, Options{Python: script, ParseTimeout: time.Hour})
	if took := time.Since(start); took > time.Second+closeGrace+3*time.Second {
		t.Errorf("Resolve took %v after its context ended", took)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Resolve error = %v, want the context's", err)
	}
	checkGone(t, pidFile)
}

// checkGone checks that the process whose id the helper wrote is no
// longer running (gone, or a zombie waiting for its reaper).
func checkGone(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return // the helper was stopped before it ran this far
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		t.Fatalf("pid file %q", b)
	}
	// SIGKILL is delivered at once, but the state in /proc lags behind it
	// by a scheduling tick: wait for the change, bounded.
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(5 * time.Second); ; <-tick.C {
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			return
		}
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && strings.HasPrefix(strings.TrimSpace(string(stat[i+1:])), "Z") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("helper process %d still runs after the resolution returned:\n%s", pid, stat)
		}
	}
}

// TestStalledHelperOncePerHeal: resolutions that share a HelperHealth
// wait out a stalled interpreter once; the next reads Python lexically at
// once, saying why, without starting the interpreter again.
func TestStalledHelperOncePerHeal(t *testing.T) {
	script, pidFile := stallInterpreter(t, stallScripts[0].body)
	opt := Options{Python: script, ParseTimeout: 500 * time.Millisecond, Helper: &HelperHealth{}}
	bug := contract.BugReport{FilePath: "tests/test_ops.py", LineNumber: 11, Message: "assert -1 == 3", TestName: strp("tests/test_ops.py::test_add")}
	if _, err := Resolve(context.Background(), "testdata/pyproj", bug, opt); err != nil {
		t.Fatal(err)
	}
	if !opt.Helper.Stalled() {
		t.Fatal("the stall was not remembered")
	}
	checkGone(t, pidFile)
	if err := os.Remove(pidFile); err != nil {
		t.Fatal(err)
	}
	got, err := Resolve(context.Background(), "testdata/pyproj", bug, opt)
	if err != nil {
		t.Fatal(err)
	}
	checkRegions(t, got, []want{{"calc/ops.py", 4, 6, "calc.ops.add", "called by test_add"}})
	for _, r := range got {
		if !strings.Contains(r.Why, "earlier in this heal") {
			t.Errorf("%v: Why must say the parser stalled earlier", r)
		}
	}
	if _, err := os.Stat(pidFile); err == nil {
		t.Error("the stalled interpreter was started again")
	}
}
