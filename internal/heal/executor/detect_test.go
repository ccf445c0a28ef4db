package executor

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// withPytest is the detection environment of the golden file: pytest
// installed, nothing else asked.
var withPytest = ResolveEnv{HasTool: func(name string) bool { return name == "pytest" }}

// TestDetectGolden runs detection on every sample project and compares the
// plans with testdata/detect.golden (rewritten by -update).
func TestDetectGolden(t *testing.T) {
	dirs, err := os.ReadDir(filepath.Join("testdata", "projects"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		plan, err := Detect(filepath.Join("testdata", "projects", d.Name()), withPytest)
		fmt.Fprintf(&b, "== %s\n", d.Name())
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n\n", errors.Unwrap(err))
			continue
		}
		fmt.Fprintf(&b, "type: %s\ncommand: %s\nreason: %s\ntools: %s\nruntimes: %s\nimage: %s\n\n",
			plan.ProjectType, plan.Command, plan.Reason, strings.Join(plan.Tools, " "),
			strings.Join(plan.Runtimes, " "), plan.Image)
	}
	golden(t, filepath.Join("testdata", "detect.golden"), b.String())
}

// golden compares got with the file at path, or rewrites it under -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff lists the lines that differ, in order.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n- %s\n+ %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}

// TestEveryDetectorHasASample fails when a row of the table has no sample
// project that detection assigns to it, or when two rows share a type.
func TestEveryDetectorHasASample(t *testing.T) {
	seen := map[string]bool{}
	dirs, _ := filepath.Glob(filepath.Join("testdata", "projects", "*"))
	for _, dir := range dirs {
		if plan, err := Detect(dir, withPytest); err == nil {
			for _, p := range plan.Projects {
				seen[p.Type] = true
			}
		}
	}
	types := map[string]bool{}
	for _, d := range Detectors() {
		if types[d.Type] {
			t.Errorf("type %q appears twice in the table", d.Type)
		}
		types[d.Type] = true
		if !seen[d.Type] {
			t.Errorf("no sample project under testdata/projects is detected as %q", d.Type)
		}
		if d.Resolve == nil || len(d.Markers) == 0 || d.Image == "" || len(d.Runtimes) == 0 {
			t.Errorf("row %q is incomplete", d.Type)
		}
		for _, r := range d.Runtimes {
			if _, ok := versionProbes[r]; !ok {
				t.Errorf("row %q names runtime %q, which has no version probe", d.Type, r)
			}
		}
	}
}

func TestDetectPython(t *testing.T) {
	dir := filepath.Join("testdata", "projects", "python-pass")
	tests := []struct {
		pytest bool
		want   string
	}{{true, "pytest"}, {false, "python3 -m unittest discover -v"}}
	for _, tt := range tests {
		plan, err := Detect(dir, ResolveEnv{HasTool: func(string) bool { return tt.pytest }})
		if err != nil {
			t.Fatal(err)
		}
		if plan.Command != tt.want {
			t.Errorf("pytest installed %v: command %q, want %q", tt.pytest, plan.Command, tt.want)
		}
	}
}

func TestDetectErrors(t *testing.T) {
	tests := []struct {
		name string
		dir  string
		typ  string
		want error
	}{
		{"empty workspace", t.TempDir(), "", ErrNoProject},
		{"package.json without scripts", filepath.Join("testdata", "projects", "node-noscripts"), "", ErrNoCommand},
		{"unknown override", filepath.Join("testdata", "projects", "go-pass"), "haskell", ErrUnknownProjectType},
		{"override needing a manifest", filepath.Join("testdata", "projects", "go-pass"), TypeNode, os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.typ == "" {
				_, err = Detect(tt.dir, withPytest)
			} else {
				_, err = DetectAs(tt.dir, tt.typ, withPytest)
			}
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestDetectAsOverridesMarkers(t *testing.T) {
	plan, err := DetectAs(filepath.Join("testdata", "projects", "mixed-root"), TypeMake, withPytest)
	if err != nil {
		t.Fatal(err)
	}
	if plan.ProjectType != TypeMake || plan.Command != "make && make test" || !strings.HasPrefix(plan.Reason, "project type given as make") {
		t.Errorf("plan = %+v", plan)
	}
}

func TestMakeTargets(t *testing.T) {
	mk := "CC := gcc\nX = 1\nall: a b\n\tcc -o x\n.PHONY: test\ntest check: all\nlib/x.o: x.c\ninstall::\n# c: d\n\tfoo: bar\n"
	got := MakeTargets([]byte(mk))
	want := []string{"all", "test", "check", "lib/x.o", "install"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("MakeTargets = %q, want %q", got, want)
	}
}

func TestNodeScripts(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr bool
	}{
		{`{"scripts":{"test":"x","build":"y","lint":"z"}}`, "build,test", false},
		{`{"scripts":{"test":"x"}}`, "test", false},
		{`{"name":"a"}`, "", false},
		{`{"scripts":[]}`, "", true},
		{`not json`, "", true},
	}
	for _, tt := range tests {
		got, err := NodeScripts([]byte(tt.in))
		if (err != nil) != tt.wantErr || strings.Join(got, ",") != tt.want {
			t.Errorf("NodeScripts(%s) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"web": "web", "services/api": "services/api", "my dir": "'my dir'", "it's": `'it'\''s'`, "": "''", "$(x)": "'$(x)'",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func FuzzMakeTargets(f *testing.F) {
	for _, s := range []string{"all:\n\tx\n", "a b: c\n", "X := 1\n", ".PHONY: t\nt:\n", "::::\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		targets := MakeTargets(b)
		seen := map[string]bool{}
		for _, tg := range targets {
			if tg == "" || strings.HasPrefix(tg, ".") || strings.ContainsAny(tg, " \t\n:") || seen[tg] {
				t.Fatalf("bad target %q in %q", tg, targets)
			}
			seen[tg] = true
		}
	})
}

func FuzzNodeScripts(f *testing.F) {
	for _, s := range []string{`{"scripts":{"test":"x"}}`, `{}`, `[]`, `{"scripts":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := NodeScripts(b)
		if err != nil && got != nil {
			t.Fatalf("error %v with scripts %q", err, got)
		}
		for _, s := range got {
			if s != "build" && s != "test" {
				t.Fatalf("unexpected script %q", s)
			}
		}
		sort.Strings(got)
	})
}

// TestSubProjectDirLikeAnOption builds the command of a sub-project whose
// directory name starts with '-': cd must get it as a path, never as an
// option (a bare "cd -P" changes to $HOME).
func TestSubProjectDirLikeAnOption(t *testing.T) {
	for _, dirs := range [][]string{{"-P"}, {"-P", "api"}} {
		ws := t.TempDir()
		for _, d := range dirs {
			if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(ws, d, "go.mod"), []byte("module x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		plan, err := Detect(ws, ResolveEnv{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan.Command, "cd ./-P && ") || strings.Contains(plan.Command, "cd -P") {
			t.Errorf("%v: command %q, want cd ./-P", dirs, plan.Command)
		}
	}
}
