package deadvar

import (
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/salve-dev/salve/contract"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden removes the variables each testdata/*.txtar case names (its
// comment holds "line name" lines) from its input.go, and compares the
// removals and the result with the case's golden file. A result must
// parse.
func TestGolden(t *testing.T) {
	cases, _ := filepath.Glob("testdata/*.txtar")
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		t.Run(strings.TrimSuffix(filepath.Base(c), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(c)
			if err != nil || len(ar.Files) != 1 {
				t.Fatalf("want one input.go: %v", err)
			}
			src := string(ar.Files[0].Data)
			var b strings.Builder
			var rs []Removal
			for _, l := range strings.Split(strings.TrimSpace(string(ar.Comment)), "\n") {
				f := strings.Fields(l)
				line, _ := strconv.Atoi(f[0])
				rm, ok := Find(src, f[1], line)
				if !ok {
					fmt.Fprintf(&b, "%s: no removal\n", f[1])
					continue
				}
				fmt.Fprintf(&b, "%s: decl %d, assigns %v, kept %q, blanked %v, spans %v\n", rm.Name, rm.Decl, rm.Assigns, rm.Kept, rm.Blanked, rm.Spans)
				rs = append(rs, rm)
			}
			out, ok := Apply(src, rs)
			if !ok {
				b.WriteString("overlapping removals\n")
			}
			if len(rs) > 0 {
				if _, err := parser.ParseFile(token.NewFileSet(), "", out, parser.ParseComments); err != nil {
					t.Errorf("the result does not parse: %v\n%s", err, out)
				}
				b.WriteString("----\n" + out)
			}
			golden := strings.TrimSuffix(c, ".txtar") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if b.String() != string(want) {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
			}
		})
	}
}

func TestName(t *testing.T) {
	for msg, want := range map[string]string{
		"./a.go:3:2: declared and not used: count": "count",
		"a.go:3:2: t declared and not used":        "t",
		"a.go:3:2: x declared but not used":        "x",
		`"os" imported and not used`:               "",
	} {
		if got := Name(msg); got != want {
			t.Errorf("Name(%q) = %q, want %q", msg, got, want)
		}
	}
}

func TestSpansForTheGate(t *testing.T) {
	src := "package p\n\nfunc f() {\n\tvar last string\n\tfor i := 0; i < 3; i++ {\n\t\tprintln(i)\n\t}\n\tfunc() {\n\t\tlast = \"x\"\n\t}()\n}\n"
	got := Spans(src, []contract.BugReport{{LineNumber: 4, Message: "declared and not used: last"}, {LineNumber: 6, Message: "undefined: y"}})
	want := []Span{{4, 4}, {9, 9}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Spans = %v, want %v", got, want)
	}
}

// FuzzFind checks that a removal never panics and, when found, leaves a
// file that still parses.
func FuzzFind(f *testing.F) {
	f.Add("package p\nfunc f() {\n\tx, err := g()\n\tx = 1\n\t_ = err\n}\n", "x", 3)
	f.Add("package p\nfunc f() {\n\tif x := g(); true {\n\t}\n\tfor k, v := range m {\n\t}\n\tswitch t := a.(type) {\n\t}\n}\n", "v", 5)
	f.Add("package p\nfunc f() {\n\tvar (\n\t\ta = 1\n\t\tx = <-c\n\t)\n}\n", "x", 5)
	f.Fuzz(func(t *testing.T, src, name string, line int) {
		rm, ok := Find(src, name, line)
		if !ok {
			return
		}
		out, ok := Apply(src, []Removal{rm})
		if !ok {
			t.Fatal("one removal overlaps itself")
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "", out, parser.ParseComments); err != nil {
			t.Fatalf("the result does not parse: %v\n%s", err, out)
		}
	})
}
