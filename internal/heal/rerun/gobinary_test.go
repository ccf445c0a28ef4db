package rerun

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/salve-dev/salve/contract"
)

// TestBinaryProof: a narrowed go plan runs the failing build's test
// binaries by themselves, one after the other, in their packages'
// folders, with the flags go test -json gives them; anything it cannot
// place or run the same way leaves the plan's own proof run.
func TestBinaryProof(t *testing.T) {
	const module = "example.com/m"
	bins := map[string]string{
		"example.com/m":        "/cache/w/go-build1/b001/m.test",
		"example.com/m/api":    "/cache/w/go-build1/b007/api.test",
		"example.com/m/series": "/cache/w/go-build1/b012/series.test",
	}
	lookup := func(ip string) (string, bool) { b, ok := bins[ip]; return b, ok }
	const seriesLog = `{"Action":"fail","Package":"example.com/m/series","Test":"TestLast"}` + "\n"
	root := []contract.BugReport{fail("go test", "m_test.go", "TestTwo")}
	two := []contract.BugReport{fail("go test", "m_test.go", "TestTwo"), fail("go test", "api/api_test.go", "TestServe/get")}
	inCode := []contract.BugReport{fail("go test", "series/series.go", "TestLast")}
	for _, tc := range []struct {
		name, command, log string
		bugs               []contract.BugReport
		module             string
		want               string // "" : no binary proof
	}{
		{"the root package", "go test ./...", "", root, module,
			`'/cache/w/go-build1/b001/m.test' -test.paniconexit0 -test.v=test2json -test.timeout=10m0s -test.count=1 '-test.run=^TestTwo$'`},
		{"two packages, each in its folder, flags built in or passed on", "go test -race -tags 'x y' -short -count=1 -v ./...", "", two, module,
			`s=0; ('/cache/w/go-build1/b001/m.test' -test.paniconexit0 -test.v=test2json -test.timeout=10m0s -test.count=1 '-test.run=^(TestServe|TestTwo)$' -test.short) || s=1; ` +
				`(cd 'api' && '/cache/w/go-build1/b007/api.test' -test.paniconexit0 -test.v=test2json -test.timeout=10m0s -test.count=1 '-test.run=^(TestServe|TestTwo)$' -test.short) || s=1; exit $s`},
		{"a failure in the code under test, placed by the log", "go test ./...", seriesLog, inCode, module,
			`cd 'series' && '/cache/w/go-build1/b012/series.test' -test.paniconexit0 -test.v=test2json -test.timeout=10m0s -test.count=1 '-test.run=^TestLast$'`},
		{"a failure in the code under test the log does not place", "go test ./...", "", inCode, module, ""},
		{"a flag a binary is not run the same with", "go test -cover ./...", "", root, module, ""},
		{"the test binary's own arguments", "go test ./... -args -update", "", root, module, ""},
		{"a coverage profile", "go test -coverprofile=c.out ./...", "", root, module, ""},
		{"an environment for go", "CGO_ENABLED=0 go test ./...", "", root, module, ""},
		{"several steps", "go vet ./... && go test ./...", "", root, module, ""},
		{"no module", "go test ./...", "", root, "", ""},
		{"a package of another module", "go test ./...", "", root, "example.com/other", ""},
		{"a package with no binary", "go test ./...", "", []contract.BugReport{fail("go test", "cmd/x_test.go", "TestX")}, module, ""},
		{"a plan that is not narrowed", "go test ./...", "", []contract.BugReport{fail("go test", "m_test.go", "Test$(id)")}, module, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := For(tc.command, "go", tc.bugs).InPackages(tc.log)
			got, ok := p.BinaryProof(tc.module, lookup)
			if got.Command != tc.want || ok != (tc.want != "") {
				t.Errorf("BinaryProof =\n  %q, %v\nwant\n  %q", got.Command, ok, tc.want)
			}
			if want := strings.Count(got.Command, ".test' "); ok && got.Binaries != want {
				t.Errorf("Binaries = %d for %q", got.Binaries, got.Command)
			}
			if strings.Contains(got.Command, "go tool test2json") {
				t.Errorf("a binary runs through go tool test2json: %q", got.Command)
			}
		})
	}
	// Only a go plan.
	py := For("pytest", "python", []contract.BugReport{fail("pytest", "tests/test_a.py", "test_a")})
	if got, ok := py.BinaryProof(module, lookup); ok {
		t.Errorf("a pytest plan ran from binaries: %q", got.Command)
	}
	// A binary's path that would break the command is refused.
	p := For("go test ./...", "go", root)
	for _, bad := range []string{"relative/m.test", "/cache/x\n/m.test"} {
		if got, ok := p.BinaryProof(module, func(string) (string, bool) { return bad, true }); ok {
			t.Errorf("binary %q: %q", bad, got.Command)
		}
	}
}

func TestGoModule(t *testing.T) {
	for _, tc := range []struct {
		name string
		fs   fstest.MapFS
		want string
	}{
		{"a module", fstest.MapFS{"go.mod": {Data: []byte("// c\nmodule example.com/m/v3\n\ngo 1.22\n")}}, "example.com/m/v3"},
		{"quoted", fstest.MapFS{"go.mod": {Data: []byte("module \"example.com/q\"\n")}}, "example.com/q"},
		{"none", fstest.MapFS{}, ""},
		{"no module line", fstest.MapFS{"go.mod": {Data: []byte("go 1.22\n")}}, ""},
		{"a folder", fstest.MapFS{"go.mod/x": {Data: []byte("module a\n")}}, ""},
		{"past the bound", fstest.MapFS{"go.mod": {Data: []byte(strings.Repeat("\n", maxGoMod) + "module late\n")}}, ""},
	} {
		if got := GoModule(tc.fs); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestGoBuildFlag(t *testing.T) {
	for name, want := range map[string]bool{
		"-race": true, "--tags": true, "-mod": true, "-buildvcs": true, "-trimpath": true, "-ldflags": true,
		"-short": false, "-run": false, "-count": false, "-cover": false, "-coverprofile": false, "-args": false, "-exec": false, "": false,
	} {
		if got := GoBuildFlag(name); got != want {
			t.Errorf("GoBuildFlag(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestShows: a run shows the plan's tests when each passed or failed in
// its output (a subtest's parent by its name); a passing run must also
// reach the runner's end, a failing one need not (a panicking Go test
// binary never prints its closing line).
func TestShows(t *testing.T) {
	ended := Evidence{Runner: "go", Format: "go-test-json", Completed: true, Passed: []string{"TestA", "TestA/case"}, Failed: []string{"TestB"}}
	cut := ended
	cut.Completed = false
	for _, tc := range []struct {
		name   string
		tests  []string
		failed bool
		ev     Evidence
		want   bool
	}{
		{"every test, run ended", []string{"TestA", "TestB"}, false, ended, true},
		{"a subtest named by its parent", []string{"TestA/case"}, false, ended, true},
		{"a test missing", []string{"TestA", "TestC"}, true, ended, false},
		{"a passing run cut short", []string{"TestA"}, false, cut, false},
		{"a failing run cut short", []string{"TestB"}, true, cut, true},
		{"no test named", nil, true, ended, false},
		{"nothing read", []string{"TestA"}, true, Evidence{}, false},
	} {
		if got := Shows(tc.tests, tc.failed, tc.ev); got != tc.want {
			t.Errorf("%s: Shows = %v, want %v", tc.name, got, tc.want)
		}
	}
}
