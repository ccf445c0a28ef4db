package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/sandbox"
)

// TestMain turns the test binary into helper programs when SANDBOX_HELPER is
// set, in the manner of os/exec's own tests.
func TestMain(m *testing.M) {
	if name := os.Getenv("SANDBOX_HELPER"); name != "" {
		os.Exit(helper(name, os.Args[1:]))
	}
	os.Exit(m.Run())
}

func helper(name string, args []string) int {
	switch name {
	case "echo":
		fmt.Fprint(os.Stdout, strings.Join(args, " "))
		fmt.Fprint(os.Stderr, "to-stderr")
		return 0
	case "exit":
		n, _ := strconv.Atoi(args[0])
		return n
	case "spew":
		n, _ := strconv.Atoi(args[0])
		chunk := bytes.Repeat([]byte("x"), 1024)
		for i := 0; i < n; i++ {
			os.Stdout.Write(chunk)
		}
		fmt.Fprint(os.Stdout, "END")
		return 0
	case "hang-with-child":
		// A grandchild that writes its pid, then both sleep.
		c := exec.Command("sleep", "300")
		if err := c.Start(); err != nil {
			return 3
		}
		os.WriteFile(args[0], []byte(strconv.Itoa(c.Process.Pid)), 0o644)
		fmt.Println("partial")
		time.Sleep(300 * time.Second)
		return 0
	case "env":
		fmt.Print(os.Getenv(args[0]))
		return 0
	case "dial":
		// Exit 0 when a TCP connection to args[0] succeeds, 3 when not.
		conn, err := net.DialTimeout("tcp", args[0], 3*time.Second)
		if err != nil {
			fmt.Println("dial:", err)
			return 3
		}
		conn.Close()
		fmt.Println("dial: connected")
		return 0
	}
	return 99
}

func self(t *testing.T, name string, args ...string) sandbox.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return sandbox.Cmd{Path: exe, Args: args, Env: []string{"SANDBOX_HELPER=" + name, "PATH=" + os.Getenv("PATH")}}
}

func TestRunExitCodes(t *testing.T) {
	for _, code := range []int{0, 1, 7, 255} {
		res, err := sandbox.Run(context.Background(), self(t, "exit", strconv.Itoa(code)))
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode != code || res.TimedOut {
			t.Errorf("exit %d: got code %d timedOut %v", code, res.ExitCode, res.TimedOut)
		}
	}
}

func TestRunCapturesStreams(t *testing.T) {
	res, err := sandbox.Run(context.Background(), self(t, "echo", "hello", "world"))
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Stdout) != "hello world" || string(res.Stderr) != "to-stderr" {
		t.Errorf("stdout %q stderr %q", res.Stdout, res.Stderr)
	}
	c := self(t, "echo", "a")
	c.Combined = true
	res, err = sandbox.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Stdout) != "ato-stderr" || len(res.Stderr) != 0 {
		t.Errorf("combined: stdout %q stderr %q", res.Stdout, res.Stderr)
	}
	var live bytes.Buffer
	c.Stdout = &live
	if _, err := sandbox.Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if live.String() != "ato-stderr" {
		t.Errorf("combined tee got %q, want both streams in order", live.String())
	}
}

func TestRunNotFound(t *testing.T) {
	for _, p := range []string{"salve-no-such-program", "/nonexistent/bin/prog"} {
		_, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: p})
		if !errors.Is(err, sandbox.ErrNotFound) {
			t.Errorf("%s: err = %v, want ErrNotFound", p, err)
		}
	}
}

func TestRunCapsOutputHeadAndTail(t *testing.T) {
	c := self(t, "spew", "4096") // 4 MiB
	c.MaxOutput = 64 * 1024
	var full bytes.Buffer
	c.Stdout = &full
	res, err := sandbox.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || res.StdoutBytes != 4096*1024+3 {
		t.Fatalf("truncated %v total %d", res.Truncated, res.StdoutBytes)
	}
	if len(res.Stdout) > 64*1024+100 {
		t.Errorf("kept %d bytes, over the cap", len(res.Stdout))
	}
	if !bytes.HasSuffix(res.Stdout, []byte("END")) || !bytes.Contains(res.Stdout, []byte("bytes omitted]")) {
		t.Errorf("tail or marker missing")
	}
	if int64(full.Len()) != res.StdoutBytes {
		t.Errorf("tee got %d bytes, want all %d", full.Len(), res.StdoutBytes)
	}
}

func TestRunTimeoutKillsGrandchildren(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	c := self(t, "hang-with-child", pidFile)
	// The child must start a grandchild and print before the kill; 2 s
	// leaves room for a loaded machine.
	c.Timeout = 2 * time.Second
	start := time.Now()
	res, err := sandbox.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.ExitCode != -1 {
		t.Errorf("timedOut %v exit %d", res.TimedOut, res.ExitCode)
	}
	if !strings.Contains(string(res.Stdout), "partial") {
		t.Errorf("partial output lost: %q", res.Stdout)
	}
	if time.Since(start) > 20*time.Second {
		t.Errorf("run took %v after a 2s timeout", time.Since(start))
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		t.Errorf("grandchild %d survived the timeout", pid)
	}
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(stat), ") Z ")
}

func TestRunEnvIsExplicit(t *testing.T) {
	t.Setenv("SALVE_SECRET_TEST", "leak")
	c := self(t, "env", "SALVE_SECRET_TEST")
	res, err := sandbox.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stdout) != 0 {
		t.Errorf("parent environment leaked: %q", res.Stdout)
	}
	env := sandbox.MergeEnv([]string{"A=1", "B=2"}, map[string]string{"B": "3", "C": "4"})
	if strings.Join(env, ",") != "A=1,B=3,C=4" {
		t.Errorf("MergeEnv = %v", env)
	}
}

func TestCaptureSmall(t *testing.T) {
	c := sandbox.NewCapture(10)
	c.Write([]byte("abc"))
	if c.String() != "abc" || c.Truncated() {
		t.Errorf("got %q", c.String())
	}
	c.Write([]byte("defghijklmnop"))
	if got := c.String(); !strings.HasPrefix(got, "abcde") || !strings.HasSuffix(got, "lmnop") || !c.Truncated() {
		t.Errorf("got %q", got)
	}
}
