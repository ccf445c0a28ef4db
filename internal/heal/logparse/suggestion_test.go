package logparse

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

// Recorded from the real tools (rustc 1.95, gcc 12, javac 17, tsc 5,
// eslint 9), trimmed to the lines that matter.
const (
	rustJSONLog = `{"reason":"compiler-artifact","package_id":"x"}
{"reason":"compiler-message","package_id":"path+file:///w/rs#0.1.0","manifest_path":"/w/rs/Cargo.toml","target":{"kind":["bin"],"name":"rs","src_path":"/w/rs/src/main.rs"},"message":{"rendered":"error","$message_type":"diagnostic","children":[{"children":[],"code":null,"level":"help","message":"add ` + "`;`" + ` here","rendered":null,"spans":[{"byte_end":124,"byte_start":124,"column_end":14,"column_start":14,"expansion":null,"file_name":"src/main.rs","is_primary":true,"label":null,"line_end":5,"line_start":5,"suggested_replacement":";","suggestion_applicability":"MachineApplicable","text":[]}]}],"code":null,"level":"error","message":"expected ` + "`;`" + `, found ` + "`println`" + `","spans":[{"byte_end":134,"byte_start":127,"column_end":12,"column_start":5,"expansion":null,"file_name":"src/main.rs","is_primary":false,"label":"unexpected token","line_end":6,"line_start":6,"suggested_replacement":null,"suggestion_applicability":null,"text":[]},{"byte_end":124,"byte_start":124,"column_end":14,"column_start":14,"expansion":null,"file_name":"src/main.rs","is_primary":true,"label":"help: add ` + "`;`" + ` here","line_end":5,"line_start":5,"suggested_replacement":null,"suggestion_applicability":null,"text":[]}]}}
not json
{"reason":"compiler-message","message":{"children":[{"children":[],"code":null,"level":"help","message":"consider importing one of these items","rendered":null,"spans":[{"byte_end":0,"byte_start":0,"column_end":1,"column_start":1,"file_name":"src/lib.rs","is_primary":true,"line_end":1,"line_start":1,"suggested_replacement":"use std::fmt::Result;\n","suggestion_applicability":"MaybeIncorrect"},{"byte_end":0,"byte_start":0,"column_end":1,"column_start":1,"file_name":"src/lib.rs","is_primary":true,"line_end":1,"line_start":1,"suggested_replacement":"use std::io::Result;\n","suggestion_applicability":"MaybeIncorrect"}]}],"code":{"code":"E0412","explanation":null},"level":"error","message":"cannot find type ` + "`Result`" + ` in this scope","spans":[{"byte_end":40,"byte_start":34,"column_end":20,"column_start":14,"file_name":"src/lib.rs","is_primary":true,"line_end":3,"line_start":3,"suggested_replacement":null,"suggestion_applicability":null}]}}
{"reason":"compiler-message","message":{"children":[],"code":null,"level":"error","message":"outside","spans":[{"byte_end":1,"byte_start":0,"column_end":2,"column_start":1,"file_name":"/home/u/.cargo/registry/src/x/lib.rs","is_primary":true,"line_end":1,"line_start":1,"suggested_replacement":null,"suggestion_applicability":null}]}}
`
	fixitLog = `./stats.c: In function ‘sum’:
./stats.c:10:12: error: ‘totl’ undeclared (first use in this function); did you mean ‘total’?
   10 |     return totl;
      |            ^~~~
      |            total
fix-it:"./stats.c":{10:12-10:16}:"total"
./stats.c:10:12: note: each undeclared identifier is reported only once for each function it appears in
./main.cpp:10:10: error: ‘cout’ is not a member of ‘std’
./main.cpp:2:1: note: ‘std::cout’ is defined in header ‘<iostream>’; did you forget to ‘#include <iostream>’?
fix-it:"./main.cpp":{2:1-2:1}:"#include <iostream>\n"
/usr/include/stdio.h:5:1: error: x
fix-it:"/usr/include/stdio.h":{5:1-5:2}:"y"
`
	javacLog = `./Main.java:12: error: cannot find symbol
        return nmes.size();
               ^
  symbol:   variable nmes
  location: class Main
[ERROR] /w/src/main/java/a/App.java:[7,9] cannot find symbol
[ERROR]   symbol:   class Lst
[ERROR]   location: class a.App
1 error
`
	eslintLog = `[{"filePath":"/w/app.js","messages":[{"ruleId":"semi","severity":2,"message":"Missing semicolon.","line":1,"column":14,"fix":{"range":[13,13],"text":";"}},{"ruleId":"eqeqeq","severity":2,"message":"Expected '===' and instead saw '=='.","line":4,"column":9,"suggestions":[{"fix":{"range":[70,72],"text":"==="}}]}]},{"filePath":"/elsewhere/x.js","messages":[{"ruleId":"semi","line":1,"column":1,"fix":{"range":[0,0],"text":";"}}]}]`
	tscLog    = `src/main.ts(4,9): error TS6133: 'scale' is declared but its value is never read.
src/main.ts(5,34): error TS2339: Property 'yy' does not exist on type 'Point'.
src/main.ts(5,46): error TS2552: Cannot find name 'scal'. Did you mean 'scale'?
src/b.ts:3:7 - error TS2551: Property 'lenght' does not exist on type 'string[]'. Did you mean 'length'?
`
)

func TestParseRustJSON(t *testing.T) {
	got := ParseRustJSON(rustJSONLog, "/w/rs")
	if len(got) != 3 {
		t.Fatalf("want 3 suggestions (one, then two alternatives), got %d: %+v", len(got), got)
	}
	want := Suggestion{File: "src/main.rs", Line: 5, Column: 14, Message: "expected `;`, found `println`", Tool: "rustc", Applicability: MachineApplicable, Label: "add `;` here",
		Edits: []Edit{{File: "src/main.rs", Line: 5, EndLine: 5, Start: 124, End: 124, New: ";"}}}
	if !reflect.DeepEqual(got[0], want) {
		t.Errorf("got %+v\nwant %+v", got[0], want)
	}
	if got[1].Line != 3 || got[2].Line != 3 || got[1].Edits[0].New == got[2].Edits[0].New || got[1].Code != "E0412" || got[1].Applicability != MaybeIncorrect {
		t.Errorf("alternatives: %+v %+v", got[1], got[2])
	}
}

func TestParseFixits(t *testing.T) {
	got := ParseFixits(fixitLog, "/w")
	if len(got) != 2 {
		t.Fatalf("want 2, got %+v", got)
	}
	if e := got[0].Edits[0]; got[0].File != "stats.c" || got[0].Line != 10 || e.Col != 12 || e.EndCol != 16 || e.New != "total" {
		t.Errorf("first: %+v", got[0])
	}
	if e := got[1].Edits[0]; got[1].Line != 10 || e.Line != 2 || e.Col != 1 || e.New != "#include <iostream>\n" {
		t.Errorf("a note's fix-it belongs to its error: %+v", got[1])
	}
}

func TestParseJavacSymbols(t *testing.T) {
	got := ParseJavacSymbols(javacLog, "/w")
	want := []MissingSymbol{
		{File: "Main.java", Line: 12, Column: 16, Kind: "variable", Name: "nmes", Location: "class Main"},
		{File: "src/main/java/a/App.java", Line: 7, Column: 9, Kind: "class", Name: "Lst", Location: "class a.App"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestParseESLintJSON(t *testing.T) {
	got := ParseESLintJSON("some banner\n"+eslintLog+"\n", "/w")
	if len(got) != 1 || got[0].Code != "semi" || got[0].Edits[0].Start != 13 || !got[0].Edits[0].UTF16 {
		t.Errorf("only the fix of the file under the root, not the suggestion: %+v", got)
	}
}

func TestParseTscHints(t *testing.T) {
	got := ParseTscHints(tscLog, "/w")
	if len(got) != 2 {
		t.Fatalf("want 2, got %+v", got)
	}
	if e := got[0].Edits[0]; got[0].Line != 5 || e.Col != 46 || e.Old != "scal" || e.New != "scale" || got[0].Code != "TS2552" {
		t.Errorf("first: %+v", got[0])
	}
	if e := got[1].Edits[0]; got[1].File != "src/b.ts" || e.Old != "lenght" || e.New != "length" {
		t.Errorf("pretty: %+v", got[1])
	}
}

func TestHintFromReport(t *testing.T) {
	for _, c := range []struct{ msg, old, new string }{
		{"NameError: name 'totl' is not defined. Did you mean: 'total'?", "totl", "total"},
		{"AttributeError: module 'math' has no attribute 'sqr'. Did you mean: 'sqrt'?", "sqr", "sqrt"},
		{"ImportError: cannot import name 'getcdw' from 'os' (/usr/lib/python3.12/os.py). Did you mean: 'getcwd'?", "getcdw", "getcwd"},
		{"‘coutn’ undeclared (first use in this function); did you mean ‘count’?", "coutn", "count"},
		{"'prnt' was not declared in this scope; did you mean 'print'?", "prnt", "print"},
		{"use of undeclared identifier 'coutn'; did you mean 'count'?", "coutn", "count"},
		{"‘struct point’ has no member named ‘z’; did you mean ‘x’?", "z", "x"},
		{"Cannot find name 'consol'. Did you mean 'console'?", "consol", "console"},
		{"Property 'lenght' does not exist on type 'string[]'. Did you mean 'length'?", "lenght", "length"},
		{"t.hello undefined (type T has no field or method hello, but does have method Hello)", "hello", "Hello"},
		{"t.Name undefined (type T has no field or method Name, but does have field name)", "Name", "name"},
		{"NameError: name 'x' is not defined", "", ""},
		{"cannot find value `countr` in this scope", "", ""},
	} {
		s, ok := HintFromReport(contract.BugReport{FilePath: "a", LineNumber: 3, Message: c.msg})
		if ok != (c.old != "") {
			t.Errorf("%q: ok=%v", c.msg, ok)
			continue
		}
		if ok && (s.Edits[0].Old != c.old || s.Edits[0].New != c.new || s.Applicability != DidYouMean) {
			t.Errorf("%q: got %+v", c.msg, s.Edits[0])
		}
	}
}

func checkSuggestions(t *testing.T, sugs []Suggestion) {
	t.Helper()
	for _, s := range sugs {
		if s.Line < 1 || s.File == "" || strings.HasPrefix(s.File, "/") || strings.HasPrefix(s.File, "..") {
			t.Fatalf("bad suggestion location %+v", s)
		}
		for _, e := range s.Edits {
			if e.File == "" || strings.HasPrefix(e.File, "/") || strings.HasPrefix(e.File, "../") || e.Line < 1 {
				t.Fatalf("bad edit %+v", e)
			}
		}
	}
}

// FuzzSuggestions checks that no input makes the suggestion parsers panic,
// that they only ever name files under the root, and that they are
// deterministic.
func FuzzSuggestions(f *testing.F) {
	for _, s := range []string{rustJSONLog, fixitLog, javacLog, eslintLog, tscLog, `fix-it:"a\101\"":{1:1-1:1}:"\n\\"`, `{"reason":"compiler-message","message":{"level":"error","spans":[{"is_primary":true,"file_name":"../x","line_start":1}]}}`,
		"{\n\"p\": {\"printf\": [{\"posn\": \"/w/a.go:2:3\", \"message\": \"m\", \"suggested_fixes\": [{\"edits\": [{\"filename\": \"/w/a.go\", \"start\": 9, \"end\": 12}]}]}]}\n}"} {
		f.Add(s, "/w")
	}
	f.Fuzz(func(t *testing.T, log, root string) {
		for _, parse := range []func(string, string) []Suggestion{ParseRustJSON, ParseFixits, ParseESLintJSON, ParseTscHints} {
			a := parse(log, root)
			checkSuggestions(t, a)
			b := parse(log, root)
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if string(ja) != string(jb) {
				t.Fatalf("two parses differ")
			}
		}
		vs, vd := ParseGoVetJSON(log, root)
		checkSuggestions(t, vs)
		for _, d := range append(vd, ParseGoDiagnostics(log, root)...) {
			if d.Line < 1 || strings.HasPrefix(d.File, "/") || strings.HasPrefix(d.File, "../") {
				t.Fatalf("bad diagnostic %+v", d)
			}
		}
		for _, s := range ParseJavacSymbols(log, root) {
			if s.Line < 1 && s.Line != 0 || strings.HasPrefix(s.File, "/") || strings.HasPrefix(s.File, "../") || s.Name == "" {
				t.Fatalf("bad symbol %+v", s)
			}
		}
		if s, ok := HintFromReport(contract.BugReport{FilePath: "a.py", LineNumber: 1, Message: log}); ok && (s.Edits[0].Old == "" || s.Edits[0].Old == s.Edits[0].New) {
			t.Fatalf("bad hint %+v", s)
		}
	})
}

func TestParseGoDiagnostics(t *testing.T) {
	log := "# example.com/g\n./main.go:14:6: undefined: fmt.Prinln\n./main.go:14:36: t.hello undefined (type T has no field or method hello, but does have method Hello)\nvet: ./a.go:3:2: x declared and not used\n/usr/lib/go/src/fmt/print.go:1:1: foreign\n"
	got := ParseGoDiagnostics(log, "/w/g")
	want := []Diagnostic{
		{File: "main.go", Line: 14, Column: 6, Message: "undefined: fmt.Prinln"},
		{File: "main.go", Line: 14, Column: 36, Message: "t.hello undefined (type T has no field or method hello, but does have method Hello)"},
		{File: "a.go", Line: 3, Column: 2, Message: "x declared and not used"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// TestParseGoVetJSON reads go vet -json's tree (recorded from go1.26's
// vet): fixes become suggestions with byte-offset edits, every diagnostic
// a Diagnostic, and text around the tree is skipped.
func TestParseGoVetJSON(t *testing.T) {
	log := "# example.com/v2\n{\n\t\"example.com/v2\": {\n\t\t\"assign\": [\n\t\t\t{\n\t\t\t\t\"posn\": \"/ws/pkg/a.go:6:2\",\n\t\t\t\t\"end\": \"/ws/pkg/a.go:6:2\",\n\t\t\t\t\"message\": \"self-assignment of n\",\n\t\t\t\t\"suggested_fixes\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"message\": \"Remove self-assignment\",\n\t\t\t\t\t\t\"edits\": [\n\t\t\t\t\t\t\t{\n\t\t\t\t\t\t\t\t\"filename\": \"/ws/pkg/a.go\",\n\t\t\t\t\t\t\t\t\"start\": 63,\n\t\t\t\t\t\t\t\t\"end\": 70,\n\t\t\t\t\t\t\t\t\"new\": \"\"\n\t\t\t\t\t\t\t}\n\t\t\t\t\t\t]\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t],\n\t\t\"printf\": [\n\t\t\t{\n\t\t\t\t\"posn\": \"/ws/pkg/a.go:9:21\",\n\t\t\t\t\"end\": \"/ws/pkg/a.go:9:24\",\n\t\t\t\t\"message\": \"fmt.Sprintf format %d has arg x of wrong type string\"\n\t\t\t}\n\t\t],\n\t\t\"tests\": {\"error\": \"boom\"}\n\t}\n}\nvet: other output\n"
	sugs, diags := ParseGoVetJSON(log, "/ws/pkg")
	if len(sugs) != 1 || sugs[0].File != "a.go" || sugs[0].Line != 6 || sugs[0].Code != "assign" || sugs[0].Tool != "go vet" ||
		len(sugs[0].Edits) != 1 || sugs[0].Edits[0].Start != 63 || sugs[0].Edits[0].End != 70 || sugs[0].Applicability != FixIt {
		t.Errorf("suggestions = %+v", sugs)
	}
	if len(diags) != 2 || diags[1].Line != 9 || diags[1].Column != 21 {
		t.Errorf("diagnostics = %+v", diags)
	}
	if s, d := ParseGoVetJSON("{\n\"x\": {\"printf\": [{\"posn\": \"/elsewhere/a.go:1:1\", \"message\": \"m\"}]}\n}", "/ws"); len(s)+len(d) != 0 {
		t.Errorf("a path outside root gave %v %v", s, d)
	}
}
