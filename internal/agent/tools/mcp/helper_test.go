package mcp

import (
	"bufio"
	"context"
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

	"github.com/salve-dev/salve/internal/agent/tools/mcp/mcptest"
)

// helperEnv makes the test binary act as the mcptest server (the os/exec
// helper-process pattern): TestMain serves MCP on stdio instead of running
// tests.
const helperEnv = "SALVE_MCPTEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "exit":
		fmt.Fprintln(os.Stderr, "mcptest helper: exiting before initialize")
		os.Exit(7)
	default:
		// "while:PATH" serves only while PATH exists: a server that cannot
		// be restarted until the test says so.
		if path, ok := strings.CutPrefix(os.Getenv(helperEnv), "while:"); ok {
			if _, err := os.Stat(path); err != nil {
				fmt.Fprintln(os.Stderr, "mcptest helper: refusing to start:", err)
				os.Exit(7)
			}
		}
		opts := mcptest.Options{Process: true, BadSchema: os.Getenv(helperEnv) == "badschema"}
		if err := mcptest.ServeStdio(context.Background(), opts, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "mcptest helper:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// helperConfig is a stdio server running the mcptest helper.
func helperConfig(name, mode string) ServerConfig {
	return ServerConfig{Name: name, Command: os.Args[0], Env: map[string]string{helperEnv: mode}}
}

// refServer returns the path of a reference MCP server's entry point, or
// skips the test naming the setup script.
func refServer(t testing.TB, pkg string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed; run scripts/mcp/setup.sh (needs node and npm) to enable the reference MCP server tests")
	}
	p, err := filepath.Abs(filepath.Join("..", "..", "..", "..", ".deps", "mcp", "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not installed; run scripts/mcp/setup.sh to install the reference MCP servers", pkg)
	}
	return p
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// closedPort returns a loopback port that refuses connections for the
// whole test: a socket is bound to it but never listens, so no other
// process can start listening there meanwhile.
func closedPort(t testing.TB) int {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return sa.(*syscall.SockaddrInet4).Port
}

// startHTTPEverything runs server-everything with the given transport
// (streamableHttp or sse) on a free port and returns its base URL. The
// process group is killed at cleanup.
func startHTTPEverything(t testing.TB, transport string) string {
	t.Helper()
	entry := refServer(t, "server-everything")
	port := freePort(t)
	cmd := exec.Command("node", entry, transport)
	cmd.Env = append(childEnv(ServerConfig{}, Options{}), "PORT="+strconv.Itoa(port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		signalled := false
		for sc.Scan() {
			if !signalled && strings.Contains(sc.Text(), strconv.Itoa(port)) {
				close(ready)
				signalled = true
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(failAfter):
		t.Fatalf("server-everything %s did not start on port %d", transport, port)
	}
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}

// children lists the live (non-zombie) processes whose parent is pid.
func children(t testing.TB, pid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var out []int
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, state, ok := procStat(p)
		if ok && ppid == pid && state != "Z" {
			out = append(out, p)
		}
	}
	return out
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	_, state, ok := procStat(pid)
	return ok && state != "Z"
}

// procStat reads the parent pid and state of pid from /proc/PID/stat.
func procStat(pid int) (ppid int, state string, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, "", false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, f[0], err == nil
}

// failAfter caps every wait on an event: it is reached only when the
// event never comes, so it is long enough for the busiest machine.
const failAfter = 2 * time.Minute

// eventually polls cond until it holds; failAfter is only the failure cap.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(failAfter)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached within %s", what, failAfter)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
