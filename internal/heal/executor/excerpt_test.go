package executor

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/sandbox"
)

func TestExcerpt(t *testing.T) {
	lines := func(from, to int) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name  string
		input string
		want  string
	}{
		{"empty", "", ""},
		{"short", "a\nb\n", "a\nb\n"},
		{"unterminated", "a\nb", "a\nb\n"},
		{"exactly full", lines(1, 5), lines(1, 5)},
		{"cut", lines(1, 9), lines(1, 2) + "... [4 lines omitted] ...\n" + lines(7, 9)},
		{"cut unterminated", lines(1, 9) + "last", lines(1, 2) + "... [5 lines omitted] ...\n" + lines(8, 9) + "last\n"},
		{"long line", strings.Repeat("x", 30) + "\n", strings.Repeat("x", 10) + " …[20 bytes cut]\n"},
		{"crlf kept", "a\r\nb\r\n", "a\r\nb\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Write byte by byte and all at once: the result must not depend
			// on how the log was chunked.
			for _, chunk := range []int{1, 7, len(tt.input) + 1} {
				e := NewExcerpt(2, 3, 10)
				for in := []byte(tt.input); len(in) > 0; {
					n := min(chunk, len(in))
					e.Write(in[:n])
					in = in[n:]
				}
				if got := e.String(); got != tt.want {
					t.Errorf("chunk %d:\n got %q\nwant %q", chunk, got, tt.want)
				}
			}
		})
	}
}

func FuzzExcerpt(f *testing.F) {
	f.Add([]byte("a\nb\nc\nd\ne\nf\ng\n"), 3)
	f.Add([]byte("no newline"), 1)
	f.Add([]byte("\n\n\n\n\n\n\n\n\n\n\n\n"), 5)
	f.Fuzz(func(t *testing.T, log []byte, chunk int) {
		if chunk <= 0 || chunk > 1<<16 {
			chunk = 1
		}
		e := NewExcerpt(3, 4, 16)
		for in := log; len(in) > 0; {
			n := min(chunk, len(in))
			e.Write(in[:n])
			in = in[n:]
		}
		got := e.String()
		n := strings.Count(got, "\n")
		if n > 3+4+1 {
			t.Fatalf("excerpt has %d lines, more than head+tail+marker: %q", n, got)
		}
		total := int64(bytes.Count(log, []byte("\n")))
		if len(log) > 0 && log[len(log)-1] != '\n' {
			total++
		}
		if e.Lines() != total {
			t.Fatalf("Lines() = %d, want %d", e.Lines(), total)
		}
		if (total > 7) != strings.Contains(got, "lines omitted]") {
			t.Fatalf("marker presence wrong for %d lines: %q", total, got)
		}
	})
}

func TestParseProbe(t *testing.T) {
	out := "noise\n@@salve-tool go\n@@salve-tool make\n@@salve-tool go\n" +
		"@@salve-version go go version go1.26.8 linux/amd64\n@@salve-version gcc \n" +
		"@@salve-version javac javac 21.0.5\n@@salve-tool \n"
	tools, versions := ParseProbe([]byte(out))
	if want := []string{"go", "make"}; !reflect.DeepEqual(tools, want) {
		t.Errorf("tools = %q, want %q", tools, want)
	}
	want := map[string]string{"go": "go version go1.26.8 linux/amd64", "javac": "javac 21.0.5"}
	if !reflect.DeepEqual(versions, want) {
		t.Errorf("versions = %q, want %q", versions, want)
	}
}

// TestProbeScriptRuns runs the probe script for real, through sh, and
// checks it against what PATH holds.
func TestProbeScriptRuns(t *testing.T) {
	script := ProbeScript([]string{"sh", "salve-no-such-tool"}, []string{"go", "gcc", "python3"})
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: "sh", Args: []string{"-c", script},
		Env: []string{"PATH=" + os.Getenv("PATH")}, Combined: true})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("probe script: exit %d err %v: %s", res.ExitCode, err, res.Stdout)
	}
	tools, versions := ParseProbe(res.Stdout)
	if !contains(tools, "sh") || contains(tools, "salve-no-such-tool") {
		t.Errorf("tools = %q", tools)
	}
	if !strings.HasPrefix(versions["go"], "go version go1.") {
		t.Errorf("go version = %q", versions["go"])
	}
	for _, r := range []string{"gcc", "python3"} {
		if _, err := os.Stat("/usr/bin/" + r); err == nil && versions[r] == "" {
			t.Errorf("%s is installed but its version was not found: %q", r, res.Stdout)
		}
	}
}

// TestProbeScriptYields: the probe's runtimes start at the lowest
// priority, so that beside the first build they take the CPU it leaves.
// The fake python3 reports its own nice value as its version.
func TestProbeScriptYields(t *testing.T) {
	if _, err := exec.LookPath("renice"); err != nil {
		t.Skip("renice is not installed: the probe runs at the build's priority")
	}
	bin := t.TempDir()
	fake := "#!/bin/sh\nawk '{print \"Python nice=\" $19}' /proc/self/stat\n"
	if err := os.WriteFile(filepath.Join(bin, "python3"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: "sh", Args: []string{"-c", ProbeScript(nil, []string{"python3"})},
		Env: []string{"PATH=" + bin + ":/usr/bin:/bin"}, Combined: true})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("probe script: exit %d err %v: %s", res.ExitCode, err, res.Stdout)
	}
	if _, versions := ParseProbe(res.Stdout); versions["python3"] != "Python nice=19" {
		t.Errorf("the runtime ran at %q, want nice 19:\n%s", versions["python3"], res.Stdout)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func FuzzParseProbe(f *testing.F) {
	f.Add([]byte("@@salve-tool go\n@@salve-version go go version x\n"))
	f.Add([]byte("@@salve-version \n@@salve-tool\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tools, versions := ParseProbe(b)
		for _, tool := range tools {
			if tool == "" || strings.ContainsAny(tool, "\n") {
				t.Fatalf("bad tool %q", tool)
			}
		}
		for k, v := range versions {
			if k == "" || v == "" || len(v) > maxVersionLen || strings.Contains(v, "\n") {
				t.Fatalf("bad version %q=%q", k, v)
			}
		}
	})
}
