package rerun_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/logparse"
	"github.com/salve-dev/salve/internal/heal/rerun"
)

// TestBinaryProofMatchesGoTest runs the real go: a module whose tests fail
// in two packages (one by a panic in the code under test, one in tests
// of its own external test package) is run with go test -json; then the
// failing tests are re-run twice, by the plan's proof run (go test) and
// by its run from test binaries (Plan.BinaryProof), and the runner's
// output of each must show the same tests passing and failing, with the
// same exit status. After the fix the same holds of a pass, and the
// binaries' run reaches the runner's end.
func TestBinaryProofMatchesGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real go")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":  "module example.com/shop\n\ngo 1.22\n",
		"shop.go": "// Package shop sells things.\npackage shop\n\n// Last returns the last item.\nfunc Last(items []string) string { return items[len(items)] }\n",
		"shop_test.go": "package shop\n\nimport \"testing\"\n\nfunc TestLast(t *testing.T) {\n\tif got := Last([]string{\"a\", \"b\"}); got != \"b\" {\n" +
			"\t\tt.Errorf(\"Last = %q, want b\", got)\n\t}\n}\n\nfunc TestOther(t *testing.T) {}\n",
		"price/price.go":       "// Package price rounds prices.\npackage price\n\n// Round rounds cents to the nearest ten.\nfunc Round(c int) int { return c / 10 * 10 }\n",
		"price/testdata/cases": "14 15\n",
		"price/price_test.go": "package price_test\n\nimport (\n\t\"os\"\n\t\"testing\"\n\n\t\"example.com/shop/price\"\n)\n\n" +
			"func TestRound(t *testing.T) {\n\tif _, err := os.Stat(\"testdata/cases\"); err != nil {\n\t\tt.Fatal(err) // run in the package's folder, as go test does\n\t}\n\tfor _, c := range []struct{ in, want int }{{14, 10}, {15, 20}} {\n" +
			"\t\tt.Run(\"case\", func(t *testing.T) {\n\t\t\tif got := price.Round(c.in); got != c.want {\n\t\t\t\tt.Errorf(\"Round(%d) = %d, want %d\", c.in, got, c.want)\n\t\t\t}\n\t\t})\n\t}\n}\n",
	}
	write := func(name, body string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range files {
		write(name, body)
	}
	code, log := shell(t, dir, "go test -json ./...")
	if code == 0 {
		t.Fatalf("the module passes:\n%s", log)
	}
	bugs := logparse.ParseString(log, logparse.Options{Root: dir, Workspace: dir})
	plan := rerun.For("go test ./...", "go", bugs).InPackages(log)
	if plan.Proof == "" || !slices.Equal(plan.Tests, []string{"TestLast", "TestRound"}) {
		t.Fatalf("plan %+v from reports %v", plan, bugs)
	}
	module := rerun.GoModule(os.DirFS(dir))
	bins := t.TempDir()
	// The test binaries, linked as go test links them (go test -c).
	link := func() func(string) (string, bool) {
		for pkg, name := range map[string]string{".": "shop", "./price": "price"} {
			if code, out := shell(t, dir, "go test -c -o "+filepath.Join(bins, name+".test")+" "+pkg); code != 0 {
				t.Fatalf("go test -c %s:\n%s", pkg, out)
			}
		}
		return func(ip string) (string, bool) {
			p := filepath.Join(bins, ip[strings.LastIndex(ip, "/")+1:]+".test")
			_, err := os.Stat(p)
			return p, err == nil
		}
	}
	// The two packages' plan, and a plan for each package alone (which
	// runs its one binary by itself).
	plans := map[string]rerun.Plan{"both": plan}
	for _, b := range bugs {
		one := rerun.For("go test ./...", "go", []contract.BugReport{b}).InPackages(log)
		if one.Proof != "" && len(one.Tests) == 1 {
			plans[one.Tests[0]] = one
		}
	}
	if len(plans) != 3 {
		t.Fatalf("want a plan for both packages and one for each, got %d from %v", len(plans), bugs)
	}
	compare := func(stage string, wantCode bool) {
		t.Helper()
		for name, plan := range plans {
			bin, ok := plan.BinaryProof(module, link())
			if !ok {
				t.Fatalf("%s, %s: no run from binaries", stage, name)
			}
			if bin.Binaries != len(plan.Tests) {
				t.Errorf("%s, %s: %d binaries for %d tests in as many packages", stage, name, bin.Binaries, len(plan.Tests))
			}
			bcode, bout := shell(t, dir, bin.Command)
			gcode, gout := shell(t, dir, plan.Proof)
			bev := rerun.ReadGoBinary([]byte(bout), bin.Binaries)
			gev := rerun.Read("go", []byte(gout), nil, time.Time{})
			if (bcode == 0) != (gcode == 0) || (gcode == 0) != wantCode {
				t.Errorf("%s, %s: exit %d from binaries, %d from go test", stage, name, bcode, gcode)
			}
			if len(gev.Passed)+len(gev.Failed) == 0 || !slices.Equal(bev.Passed, gev.Passed) || !slices.Equal(bev.Failed, gev.Failed) || !slices.Equal(bev.Skipped, gev.Skipped) {
				t.Errorf("%s, %s: binaries show %+v\ngo test shows %+v\n%s\n%s", stage, name, bev, gev, bout, gout)
			}
			if wantCode && (!bev.Completed || !gev.Completed) {
				t.Errorf("%s, %s: a passing run did not reach its end: binaries %v, go test %v", stage, name, bev.Completed, gev.Completed)
			}
			if slices.Contains(bev.Passed, "TestOther") {
				t.Errorf("%s, %s: the binaries ran a test the plan did not select", stage, name)
			}
		}
	}
	compare("failing", false)
	write("shop.go", "// Package shop sells things.\npackage shop\n\n// Last returns the last item.\nfunc Last(items []string) string { return items[len(items)-1] }\n")
	write("price/price.go", "// Package price rounds prices.\npackage price\n\n// Round rounds cents to the nearest ten.\nfunc Round(c int) int { return (c + 5) / 10 * 10 }\n")
	compare("fixed", true)
}
