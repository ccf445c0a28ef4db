package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestStartupLinksNoSchemaCompiler keeps out of the salve binary the JSON
// Schema library that compiles its meta-schemas in its package init
// (about 3 ms of every start). salve validates its own contract objects
// with internal/schemacheck; the ai-agent binary keeps the full validator.
func TestStartupLinksNoSchemaCompiler(t *testing.T) {
	for _, dep := range linkedPackages(t) {
		if strings.HasPrefix(dep, "github.com/santhosh-tekuri/jsonschema") {
			t.Errorf("salve links %s, whose package init compiles JSON Schema meta-schemas at every start", dep)
		}
	}
}

// linkedPackages lists the packages the salve binary links (go list
// -deps); it skips the test in -short mode and where go list is missing.
func linkedPackages(t *testing.T) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	return strings.Fields(string(out))
}

// TestStartupInitAllocations runs the built binary with the runtime's
// init trace and bounds what package initialisation allocates: start-up
// work a command does not need (compiling regular expressions or schemas
// eagerly) shows up there first. Before the lazy compilation, salve's
// inits allocated 6.2 MB; now about 0.8 MB, most of it the embedded NATS
// server's tables.
func TestStartupInitAllocations(t *testing.T) {
	salve, _ := mcpBinaries(t)
	cmd := exec.Command(salve, "--help")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("salve --help: %v\n%s", err, out)
	}
	const (
		maxTotal   = 2 << 20   // bytes, all packages
		maxPackage = 512 << 10 // bytes, any one package
	)
	total, n := 0, 0
	for _, line := range strings.Split(string(out), "\n") {
		// init PKG @T ms, D ms clock, B bytes, A allocs
		f := strings.Fields(line)
		if len(f) < 9 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		b, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("unreadable init trace line %q", line)
		}
		n++
		total += b
		if b > maxPackage {
			t.Errorf("package %s allocates %d bytes at init (limit %d)", f[1], b, maxPackage)
		}
	}
	if n == 0 {
		t.Fatalf("no init trace in the output:\n%s", out)
	}
	if total > maxTotal {
		t.Errorf("package init allocates %d bytes in all (limit %d)", total, maxTotal)
	}
}

// BenchmarkStartup times whole processes: `salve --help`, `salve parse`
// of a 1 KB log, every command's --help, and `git_agent --help`, the peer
// the start-up goal compares with. Compare runs with benchstat.
//
//	go test ./cmd/salve -run '^$' -bench Startup -count 6
func BenchmarkStartup(b *testing.B) {
	salve, gitAgent := mcpBinaries(b)
	log := filepath.Join(b.TempDir(), "1k.log")
	data, err := os.ReadFile(filepath.Join("..", "..", "internal", "heal", "logparse", "testdata", "corpus", "go", "build-args", "log.txt"))
	if err != nil {
		b.Fatal(err)
	}
	for len(data) < 1024 {
		data = append(data, data...)
	}
	if err := os.WriteFile(log, data[:1024], 0o644); err != nil {
		b.Fatal(err)
	}
	runs := []struct {
		name string
		argv []string
	}{
		{"git_agent-help", []string{gitAgent, "--help"}},
		{"help", []string{salve, "--help"}},
		{"parse-1k", []string{salve, "parse", log}},
	}
	for _, c := range []string{"bench", "exec", "fix", "gc", "heal", "mcp", "parse", "registry", "runs", "serve", "tool", "ui", "validate", "worker"} {
		runs = append(runs, struct {
			name string
			argv []string
		}{c + "-help", []string{salve, c, "--help"}})
	}
	for _, r := range runs {
		b.Run(r.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				cmd := exec.Command(r.argv[0], r.argv[1:]...)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %v\n%s", r.argv, err, out)
				}
			}
		})
	}
}
