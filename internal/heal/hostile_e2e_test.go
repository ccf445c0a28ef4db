package heal_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/testrepo"
)

// These tests drive the salve binary with builds that behave as a hostile
// repository's build may: they swap reported files for FIFOs, or never end.

// startSalve starts the salve binary on its own process group, so that the
// test can signal salve alone and still clean up whatever it left.
func startSalve(t *testing.T, env []string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	_, salve := heal.Binaries()
	cmd := exec.Command(salve, args...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	return cmd, &out, &errb
}

// waitExit waits for cmd, failing the test (and killing the group) when it
// has not ended after limit: a hang, not a timing measurement.
func waitExit(t *testing.T, cmd *exec.Cmd, limit time.Duration, errb *bytes.Buffer) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("salve had not ended after %s: it hangs\n%s", limit, errb)
		return -1
	}
}

func hostileEnv(t *testing.T) []string {
	gitAgent, _ := heal.Binaries()
	return sandbox.MergeEnv(sandbox.AllowedEnv("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"),
		map[string]string{"SALVE_GIT_AGENT": gitAgent, "TMPDIR": t.TempDir(), "XDG_STATE_HOME": t.TempDir()})
}

// TestHealFIFOInPlaceOfReportedFile: the build fails, then replaces every
// C source (the files its errors name) with a FIFO. Reading one would block
// forever in open; heal must skip them with a clear reason and end.
func TestHealFIFOInPlaceOfReportedFile(t *testing.T) {
	need(t, "sh", "make", "cc", "mkfifo")
	gitIdentity(t)
	for _, isolation := range []string{"none", "bwrap"} {
		t.Run(isolation, func(t *testing.T) {
			if isolation == "bwrap" && !bwrapWorks() {
				t.Skip("bwrap is not installed or cannot create namespaces here")
			}
			repo := testrepo.Example(t, "c-broken")
			before := userState(t, repo)
			build := `make; rc=$?; for f in *.c *.h; do rm -f "$f"; mkfifo "$f"; done; exit 1`
			cmd, out, errb := startSalve(t, hostileEnv(t), "heal", "--workspace", repo, "--isolation", isolation, "--no-store", "--fixers", "rules", "--cmd", build)
			code := waitExit(t, cmd, 2*time.Minute, errb)
			if code != 1 {
				t.Fatalf("exit %d, want 1 (still red):\n%s\n%s", code, out, errb)
			}
			if !strings.Contains(out.String()+errb.String(), "not a regular file (a FIFO)") {
				t.Errorf("no bug was skipped as a FIFO:\n%s\n%s", out, errb)
			}
			if userState(t, repo) != before {
				t.Error("the user's work tree, index or branches changed")
			}
		})
	}
}

// bwrapWorks reports whether bwrap can start a process here.
func bwrapWorks() bool {
	if _, err := exec.LookPath("bwrap"); err != nil {
		return false
	}
	return exec.Command("bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all", "true").Run() == nil
}

// TestHealSIGTERM sends SIGTERM to salve while its build runs: salve ends
// within seconds, its build with it, and the user's checkout is unchanged.
func TestHealSIGTERM(t *testing.T) {
	need(t, "sh", "sleep")
	gitIdentity(t)
	repo := testrepo.Example(t, "c-broken")
	before := userState(t, repo)
	marker := filepath.Join(t.TempDir(), "build-started")
	build := "echo $$ > " + marker + "; exec sleep 300"
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			_ = os.Remove(marker)
			cmd, out, errb := startSalve(t, hostileEnv(t), "heal", "--workspace", repo, "--isolation", "none", "--no-store", "--cmd", build)
			deadline := time.Now().Add(time.Minute)
			var buildPID int
			for {
				if b, err := os.ReadFile(marker); err == nil && strings.HasSuffix(string(b), "\n") {
					buildPID, _ = strconv.Atoi(strings.TrimSpace(string(b)))
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the build never started:\n%s", errb)
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			code := waitExit(t, cmd, 30*time.Second, errb)
			if code != 128+int(sig) {
				t.Errorf("exit %d after %v, want %d:\n%s\n%s", code, sig, 128+int(sig), out, errb)
			}
			// The build ran in a process group of its own: it must be gone
			// too (a zombie is reaped by init shortly after).
			for end := time.Now().Add(10 * time.Second); buildPID > 0 && alive(buildPID); time.Sleep(50 * time.Millisecond) {
				if time.Now().After(end) {
					_ = syscall.Kill(buildPID, syscall.SIGKILL)
					t.Fatalf("the build (pid %d) outlived salve", buildPID)
				}
			}
			if !strings.Contains(errb.String(), "salve: interrupted by SIG") {
				t.Errorf("salve did not say it was interrupted:\n%s", errb)
			}
			if userState(t, repo) != before {
				t.Error("the user's work tree, index or branches changed")
			}
		})
	}
}

// alive reports whether pid is a live process (not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// TestBuildCannotReadSalveSecrets: under --isolation none a build can read
// /proc/<pid>/environ of its ancestors. It walks up from itself to the salve
// process and copies what it finds there: no provider key or token may be
// in it, while the llm tier still sees the key (it is configured).
func TestBuildCannotReadSalveSecrets(t *testing.T) {
	need(t, "sh", "awk", "tr")
	gitIdentity(t)
	repo := testrepo.Example(t, "c-broken")
	before := userState(t, repo)
	dump := filepath.Join(t.TempDir(), "salve-environ")
	// The build's parent may be salve or a shell salve started: walk up
	// by /proc/<pid>/stat until the process named salve.
	build := `p=$$; while [ "$p" -gt 1 ]; do if [ "$(cat /proc/$p/comm)" = salve ]; then tr '\0' '\n' < /proc/$p/environ > ` + dump + `; echo "salve pid $p" >> ` + dump + `; break; fi; p=$(awk '{print $4}' /proc/$p/stat); done; exit 0`
	secrets := map[string]string{"OPENAI_API_KEY": "sk-proc-environ-secret-1", "GITHUB_TOKEN": "ghp_proc_environ_secret_2", "NPM_TOKEN": "npm-proc-environ-secret-3"}
	env := hostileEnv(t)
	for k, v := range secrets {
		env = append(env, k+"="+v)
	}
	cmd, out, errb := startSalve(t, env, "heal", "--workspace", repo, "--isolation", "none", "--no-store", "--cmd", build)
	if code := waitExit(t, cmd, 2*time.Minute, errb); code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errb)
	}
	b, err := os.ReadFile(dump)
	if err != nil {
		t.Fatalf("the build found no salve process to read: %v\n%s", err, errb)
	}
	if !strings.Contains(string(b), "PATH=") || !strings.Contains(string(b), "salve pid ") {
		t.Fatalf("the build did not read salve's environment:\n%s", b)
	}
	for k, v := range secrets {
		if strings.Contains(string(b), v) {
			t.Errorf("%s is readable in salve's /proc environ", k)
		}
	}
	// The key was still read: with it, the default tiers include llm.
	if strings.Contains(errb.String(), "the llm tier is left out") && !strings.Contains(errb.String(), "OPENAI") {
		t.Logf("stderr: %s", errb)
	}
	if userState(t, repo) != before {
		t.Error("the user's work tree, index or branches changed")
	}
}

// TestSecondSignalStopsAtOnce: a command blocked where no context reaches
// (salve parse reading a pipe that never ends) stops on the second signal.
func TestSecondSignalStopsAtOnce(t *testing.T) {
	_, salve := heal.Binaries()
	cmd := exec.Command(salve, "parse", "--log-level", "debug", "-")
	cmd.Env = hostileEnv(t)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	// The stderr pipe is read here, line by line, so that the test can
	// wait for the first message without racing the writer.
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	if _, err := stdin.Write([]byte("main.go:1:1: error: partial log\n")); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var errb bytes.Buffer
	next := func(want string) {
		t.Helper()
		deadline := time.After(20 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("stderr ended before %q:\n%s", want, errb.String())
				}
				errb.WriteString(l + "\n")
				if strings.Contains(l, want) {
					return
				}
			case <-deadline:
				t.Fatalf("no %q on stderr:\n%s", want, errb.String())
			}
		}
	}
	// salve says it reads stdin only after its signal handler is in place.
	next("reading the build log from standard input")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	next("interrupted by SIGTERM")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	next("SIGTERM again; stopping now")
	if code := waitExit(t, cmd, 20*time.Second, &errb); code != 143 {
		t.Errorf("exit %d, want 143:\n%s", code, errb.String())
	}
}

// TestExecSIGTERM: salve exec ends on SIGTERM with its build.
func TestExecSIGTERM(t *testing.T) {
	need(t, "sh", "sleep")
	ws := t.TempDir()
	marker := filepath.Join(t.TempDir(), "build-pid")
	cmd, out, errb := startSalve(t, hostileEnv(t), "exec", "--workspace", ws, "--isolation", "none", "--no-record",
		"--run-dir", t.TempDir(), "--cmd", "echo $$ > "+marker+"; exec sleep 300")
	var buildPID int
	for deadline := time.Now().Add(time.Minute); buildPID == 0; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(marker); err == nil && strings.HasSuffix(string(b), "\n") {
			buildPID, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if time.Now().After(deadline) {
			t.Fatalf("the build never started:\n%s", errb)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd, 30*time.Second, errb); code != 143 {
		t.Errorf("exit %d, want 143:\n%s\n%s", code, out, errb)
	}
	for end := time.Now().Add(10 * time.Second); alive(buildPID); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			_ = syscall.Kill(buildPID, syscall.SIGKILL)
			t.Fatalf("the build (pid %d) outlived salve exec", buildPID)
		}
	}
}
