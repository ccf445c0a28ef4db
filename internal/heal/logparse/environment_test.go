package logparse

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnvironmentRecorded classifies output recorded from the real tools
// (testdata/environment, paths and hosts anonymised): each one a build that
// failed because of its environment, plus code failures that must not be
// taken for one.
func TestEnvironmentRecorded(t *testing.T) {
	tests := []struct {
		file     string
		exit     int
		kind     EnvironmentKind // "" means not an environment failure
		pattern  string
		evidence string
	}{
		{"go-proxy-off.log", 1, EnvNetwork, "go-proxy-off", "main.go:6:2: module lookup disabled by GOPROXY=off"},
		{"go-dns.log", 1, EnvNetwork, "go-dial", "no such host"},
		{"go-refused.log", 1, EnvNetwork, "go-dial", "connection refused"},
		{"go-sum.log", 1, EnvDependency, "go-missing-sum", "missing go.sum entry for module providing package github.com/acme/colorize"},
		{"go-noreq.log", 1, EnvDependency, "go-no-required-module", "no required module provides package github.com/acme/colorize"},
		{"go-readonly-cache.log", 1, EnvReadOnly, "erofs", "v1.4.2.lock: read-only file system"},
		{"go-killed.log", 1, EnvOutOfMemory, "go-test-killed", "signal: killed"},
		{"npm-enotfound.log", 1, EnvNetwork, "npm-network-code", "npm error code ENOTFOUND"},
		{"npm-offline.log", 1, EnvNetwork, "npm-network-code", "npm error code ENOTCACHED"},
		{"cargo-offline.log", 101, EnvDependency, "cargo-no-matching-package", "error: no matching package named `serde_acme_zz` found"},
		{"cargo-net.log", 101, EnvDependency, "cargo-failed-to-get", "error: failed to get `serde_acme_zz` as a dependency"},
		{"pip-net.log", 1, EnvDependency, "pip-no-version", "Could not find a version that satisfies the requirement requests-acme-zz==1.0"},
		{"pip-noindex.log", 1, EnvDependency, "pip-no-version", "requests-acme-zz"},
		{"mvn-offline.log", 1, EnvNetwork, "maven-offline", "in offline mode"},
		{"sh-127.log", 127, EnvMissingTool, "sh-not-found", "sh: 1: cmake: not found"},
		{"bash-127.log", 127, EnvMissingTool, "sh-not-found", "make-acme-zz: command not found"},
		{"make-127.log", 2, EnvMissingTool, "make-no-program", "make: protoc-acme-zz: No such file or directory"},
		{"bash-killed.log", 137, EnvOutOfMemory, "shell-killed", "Killed"},
		{"py-enospc.log", 1, EnvDiskFull, "enospc", "OSError: [Errno 28] No space left on device"},
		{"dd-enospc.log", 1, EnvDiskFull, "enospc", "No space left on device"},
		{"gcc-enospc.log", 1, EnvDiskFull, "enospc", "No space left on device"},
		{"gpp-oom.log", 1, EnvOutOfMemory, "cc-vm-exhausted", "virtual memory exhausted: Cannot allocate memory"},
		{"gpp-killed.log", 1, EnvOutOfMemory, "cc-killed", "g++: fatal error: Killed signal terminated program cc1plus"},
		// A module that is not installed may as well be a misspelt import:
		// it is left to the parser and the fixers.
		{"py-modnotfound.log", 1, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "environment", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got := Environment(string(b), tt.exit, false)
			if tt.kind == "" {
				if got != nil {
					t.Fatalf("Environment = %+v, want nil", *got)
				}
				return
			}
			if got == nil {
				t.Fatalf("Environment = nil, want %s", tt.kind)
			}
			if got.Kind != tt.kind || got.Pattern != tt.pattern || !strings.Contains(got.Evidence, tt.evidence) {
				t.Fatalf("Environment = %+v, want kind %s pattern %s evidence containing %q", *got, tt.kind, tt.pattern, tt.evidence)
			}
			if got.Line < 1 || !strings.Contains(strings.Split(string(b), "\n")[got.Line-1], strings.TrimSuffix(got.Evidence, "…")[:10]) {
				t.Fatalf("Line %d does not hold the evidence %q", got.Line, got.Evidence)
			}
			if got.Hint == "" {
				t.Fatal("no hint")
			}
		})
	}
}

// TestEnvironmentStatus covers the verdicts from the exit status and the
// executor's timeout alone.
func TestEnvironmentStatus(t *testing.T) {
	tests := []struct {
		name     string
		log      string
		exit     int
		timedOut bool
		kind     EnvironmentKind
		evidence string
	}{
		{"green", "sh: 1: cmake: not found\n", 0, false, "", ""},
		{"timed out", "=== RUN TestSlow\n", -1, true, EnvTimeout, "=== RUN TestSlow"},
		{"timed out, empty log", "", -1, true, EnvTimeout, "the build was stopped at its time limit"},
		{"exit 127 unknown shell", "xonsh: no such command frob\n\n", 127, false, EnvMissingTool, "xonsh: no such command frob"},
		{"exit 137 no line", "running tests\n", 137, false, EnvOutOfMemory, "running tests"},
		{"exit 124", "", 124, false, EnvTimeout, "exit 124"},
		{"code error exit 1", "main.go:3:2: undefined: fmt.Printn\n", 1, false, "", ""},
		// go test's own -timeout is a hang in the code under test (a LOGIC
		// report), not salve's time limit on the build.
		{"go test timeout is the code's", "panic: test timed out after 10m0s\n\trunning tests:\n", 1, false, "", ""},
		{"ansi npm", "\x1b[31mnpm ERR!\x1b[0m code EAI_AGAIN\n", 1, false, EnvNetwork, "npm ERR! code EAI_AGAIN"},
		{"program says not found", "error: user alice not found\n", 1, false, "", ""},
		{"test prints Killed", "FAIL: test_kill (tests.Test) Killed process\n", 1, false, "", ""},
		{"test dials a local server", "    server_test.go:12: dial tcp 127.0.0.1:8080: connect: connection refused\n", 1, false, "", ""},
		{"env missing python", "/usr/bin/env: 'python': No such file or directory\n", 127, false, EnvMissingTool, "'python'"},
		{"go exec", "    run_test.go:9: exec: \"protoc\": executable file not found in $PATH\n", 1, false, EnvMissingTool, "protoc"},
		{"maven deps", "[ERROR] Failed to execute goal on project app: Could not resolve dependencies for project com.acme:app:jar:1.0: x\n", 1, false, EnvDependency, "Could not resolve dependencies"},
		{"gradle", "> Could not resolve all files for configuration ':app:compileClasspath'.\n", 1, false, EnvDependency, "compileClasspath"},
		{"python erofs", "OSError: [Errno 30] Read-only file system: '/usr/lib/x'\n", 1, false, EnvReadOnly, "Errno 30"},
		{"node erofs", "Error: EROFS: read-only file system, open '/x'\n", 1, false, EnvReadOnly, "EROFS"},
		// Documented messages of tools not installed here.
		{"yarn timeout", "error An unexpected error occurred: \"https://registry.example/left-pad: ETIMEDOUT\".\n", 1, false, EnvNetwork, "ETIMEDOUT"},
		{"pnpm 404", " ERR_PNPM_FETCH_404  GET https://registry.example/nope: Not Found - 404\n", 1, false, EnvDependency, "ERR_PNPM_FETCH_404"},
		{"yarn engine", "error left-pad@2.0.0: The engine \"node\" is incompatible with this module. Expected version \">=22\". Got \"20.1.0\"\n", 1, false, EnvMissingTool, "engine"},
		{"cargo msrv", "error: package `clap v4.5.0` cannot be built because it requires rustc 1.74 or newer, while the currently active rustc version is 1.70.0\n", 101, false, EnvMissingTool, "rustc 1.74 or newer"},
		{"pip python", "ERROR: Package 'acme' requires a different Python: 3.8.10 not in '>=3.10'\n", 1, false, EnvMissingTool, "different Python"},
		{"uv offline", "  Caused by: Could not connect, are you offline?\n", 2, false, EnvNetwork, "offline"},
		{"uv resolve", "  × No solution found when resolving dependencies:\n", 1, false, EnvDependency, "No solution found"},
		{"go checksum", "verifying github.com/acme/x@v1.0.0: checksum mismatch\n", 1, false, EnvDependency, "checksum mismatch"},
		{"maven descriptor", "[ERROR] Failed to execute goal on project app: Failed to read artifact descriptor for com.acme:x:jar:1.0\n", 1, false, EnvDependency, "artifact descriptor"},
		{"gradle find", "   > Could not find com.acme:widgets:1.2.3.\n", 1, false, EnvDependency, "com.acme:widgets:1.2.3"},
		{"nuget", "/src/App.csproj : error NU1101: Unable to find package Acme.Widgets. No packages exist with this id in source(s): nuget.org\n", 1, false, EnvDependency, "NU1101"},
		{"bundler", "Could not find gem 'rails (~> 7.1)' in locally installed gems.\n", 7, false, EnvDependency, "rails"},
		{"go toolchain", "go: go.mod requires go >= 1.99 (running go 1.22.1; GOTOOLCHAIN=local)\n", 1, false, EnvMissingTool, "GOTOOLCHAIN=local"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Environment(tt.log, tt.exit, tt.timedOut)
			if tt.kind == "" {
				if got != nil {
					t.Fatalf("Environment = %+v, want nil", *got)
				}
				return
			}
			if got == nil || got.Kind != tt.kind || !strings.Contains(got.Evidence, tt.evidence) {
				t.Fatalf("Environment = %+v, want %s with %q", got, tt.kind, tt.evidence)
			}
		})
	}
}

// TestEnvironmentCodeCorpus checks that no log of the parser's corpus of
// code errors is taken for an environment failure, except the few that
// are one.
func TestEnvironmentCodeCorpus(t *testing.T) {
	logs, err := filepath.Glob(filepath.Join(corpusDir, "*", "*", "log.txt"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	for _, p := range logs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := Environment(string(b), 1, false); got != nil {
			t.Errorf("%s: Environment = %s", p, got)
		}
	}
}

// FuzzEnvironment checks that no input panics, that the verdict is the
// same twice, that evidence is bounded, and that its line number points
// into the log.
func FuzzEnvironment(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "environment", "*.log"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b), 1, false)
		}
	}
	f.Add("", 127, false)
	f.Add("\x1b[\r\n\xff\xfe Killed \n", 137, true)
	f.Fuzz(func(t *testing.T, log string, exit int, timedOut bool) {
		a := Environment(log, exit, timedOut)
		b := Environment(log, exit, timedOut)
		if (a == nil) != (b == nil) || (a != nil && *a != *b) {
			t.Fatalf("not deterministic: %v vs %v", a, b)
		}
		if a == nil {
			return
		}
		if exit == 0 && !timedOut {
			t.Fatal("a green build classified")
		}
		if len(a.Evidence) > maxEvidence+len("…") || a.Evidence == "" || a.Hint == "" || a.Kind == "" {
			t.Fatalf("bad verdict %+v", *a)
		}
		if a.Line < 0 || a.Line > strings.Count(log, "\n")+1 {
			t.Fatalf("line %d out of the log", a.Line)
		}
	})
}
