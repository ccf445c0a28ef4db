package target

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

// Size of the generated Go package: files, functions per file.
const benchFiles, benchFuncs = 40, 25

// writeBenchModule writes a module with a package of benchFiles files of
// benchFuncs functions each (about 12,000 lines), a helper package it
// imports, and a test file that calls into both.
func writeBenchModule(tb testing.TB) (string, contract.BugReport) {
	ws := tb.TempDir()
	write := func(name, body string) {
		p := filepath.Join(ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	write("go.mod", "module example.com/bench\n\ngo 1.22\n")
	write("util/util.go", "package util\n\nimport \"strings\"\n\n// Norm trims and lowers s.\nfunc Norm(s string) string {\n\treturn strings.ToLower(strings.TrimSpace(s))\n}\n")
	for f := range benchFiles {
		var b strings.Builder
		fmt.Fprintf(&b, "package big\n\nimport (\n\t\"errors\"\n\t\"fmt\"\n\t\"sort\"\n\t\"strings\"\n\n\t\"example.com/bench/util\"\n)\n\n")
		fmt.Fprintf(&b, "// T%d is a record.\ntype T%d struct {\n\tName string\n\tVals []int\n}\n\n", f, f)
		for i := range benchFuncs {
			fmt.Fprintf(&b, `// F%[1]d_%[2]d does work.
func F%[1]d_%[2]d(in []string) (string, error) {
	if len(in) == 0 {
		return "", errors.New("empty")
	}
	out := make([]string, 0, len(in))
	for _, s := range in {
		s = util.Norm(s)
		if strings.HasPrefix(s, "#") {
			continue
		}
		out = append(out, fmt.Sprintf("%%s-%%d", s, %[2]d))
	}
	sort.Strings(out)
	return strings.Join(out, ","), nil
}

// M%[2]d is a method.
func (t *T%[1]d) M%[2]d() int {
	n := 0
	for _, v := range t.Vals {
		n += v * %[2]d
	}
	return n
}

`, f, i)
		}
		write(fmt.Sprintf("big/f%02d.go", f), b.String())
	}
	write("big/big_test.go", `package big

import (
	"testing"

	"example.com/bench/util"
)

func TestBig(t *testing.T) {
	cases := []struct {
		in   []string
		want string
	}{
		{[]string{"a", "b"}, "a-3,b-3"},
	}
	for _, tc := range cases {
		got, err := F7_3(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("F7_3(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
	v := &T2{Vals: []int{1}}
	if v.M4() != 4 || util.Norm(" X ") != "x" {
		t.Error("M4")
	}
}
`)
	return ws, contract.BugReport{FilePath: "big/big_test.go", LineNumber: 20, Message: `F7_3([a b]) = "", want "a-3,b-3"`, TestName: strp("TestBig")}
}

// TestBenchModule resolves the bench module's failing test, as it is and
// with 400 other tests in its package (writeLargeTests), whose bodies the
// resolution does not type-check: they change nothing it finds.
func TestBenchModule(t *testing.T) {
	for _, large := range []bool{false, true} {
		ws, bug := writeBenchModule(t)
		if large {
			writeLargeTests(t, ws)
		}
		got, err := Resolve(context.Background(), ws, bug, Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkRegions(t, got, []want{
			{"big/f07.go", 97, 111, "big.F7_3", "called by TestBig"},
			{"big/f02.go", 140, 146, "big.(*T2).M4", "called by TestBig"},
			{"util/util.go", 6, 8, "util.Norm", "called by TestBig"},
		})
	}
}

// BenchmarkResolveGo resolves a failing test's calls in a package of about
// 12,000 lines that imports a package of its module.
func BenchmarkResolveGo(b *testing.B) {
	ws, bug := writeBenchModule(b)
	b.ResetTimer()
	for b.Loop() {
		if got, err := Resolve(context.Background(), ws, bug, Options{}); err != nil || len(got) == 0 {
			b.Fatal(got, err)
		}
	}
}

// BenchmarkResolvePython resolves a failing Python test's calls through
// the outline program (one interpreter start per resolution).
func BenchmarkResolvePython(b *testing.B) {
	bug := resolveCases[7].bug
	for _, opt := range []Options{{}, {Lexical: true}} {
		b.Run(fmt.Sprintf("lexical=%v", opt.Lexical), func(b *testing.B) {
			for b.Loop() {
				if got, err := Resolve(context.Background(), "testdata/pyproj", bug, opt); err != nil || len(got) == 0 {
					b.Skip("no Python resolution here:", got, err)
				}
			}
		})
	}
}

// writeLargeTests adds to the bench module's package 10 test files of 40
// table-driven tests each, none of which the failing test calls: the
// shape of a package whose other tests outweigh its code.
func writeLargeTests(tb testing.TB, ws string) {
	for f := range 10 {
		var b strings.Builder
		fmt.Fprintf(&b, "package big\n\nimport (\n\t\"strings\"\n\t\"testing\"\n)\n\n")
		for i := range 40 {
			fmt.Fprintf(&b, `func TestOther%[1]d_%[2]d(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"a"}, "a-%[2]d"},
		{[]string{"#x", "b"}, "b-%[2]d"},
	} {
		got, err := F%[3]d_%[4]d(tc.in)
		if err != nil || !strings.EqualFold(got, tc.want) {
			t.Errorf("got %%q, %%v", got, err)
		}
		v := &T%[3]d{Vals: []int{len(got)}}
		if v.M%[4]d() < 0 {
			t.Fatal("negative")
		}
	}
}

`, f, i, (f*40+i)%benchFiles, i%benchFuncs)
		}
		p := filepath.Join(ws, "big", fmt.Sprintf("other%02d_test.go", f))
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkResolveGoLargeTests is BenchmarkResolveGo with 400 other
// tests in the package (writeLargeTests).
func BenchmarkResolveGoLargeTests(b *testing.B) {
	ws, bug := writeBenchModule(b)
	writeLargeTests(b, ws)
	b.ResetTimer()
	for b.Loop() {
		if got, err := Resolve(context.Background(), ws, bug, Options{}); err != nil || len(got) == 0 {
			b.Fatal(got, err)
		}
	}
}
