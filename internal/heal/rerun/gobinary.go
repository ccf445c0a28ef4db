package rerun

import (
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
)

// A go plan's proof run links the failing packages' test binaries anew:
// go caches compiled packages and test results, not linked test
// binaries. When the failing build kept its binaries (a heal's executor
// runs go test -json with -work), [Plan.BinaryProof] runs those instead,
// each in its package's folder, the way go test -json runs them: the
// same tests, the same results, without the link.

// goBinary is what a go plan's run from test binaries needs.
type goBinary struct {
	// ok says every flag of the original go test is one a test binary
	// runs the same without: built into it (-race, -tags, -mod…), of no
	// effect on one test binary's run (-p, -vet, -count, -json…), or
	// passed on (-short).
	ok bool
	// pkgs are the packages the plan passes to go test: ".", "./dir",
	// "./..." (none can be told), or import paths.
	pkgs  []string
	short bool
}

// goBuildFlags are the go flags whose effect is built into a test binary
// or ends with the build, and whether each takes a value as a word of its
// own: a test binary runs the same with or without them.
var goBuildFlags = map[string]bool{
	"-race": false, "-msan": false, "-asan": false, "-trimpath": false, "-buildvcs": false, "-modcacherw": false,
	"-a": false, "-linkshared": false, "-work": false, "-x": false,
	"-mod": true, "-modfile": true, "-tags": true, "-ldflags": true, "-gcflags": true, "-asmflags": true,
	"-gccgoflags": true, "-p": true, "-pgo": true, "-buildmode": true, "-compiler": true, "-installsuffix": true,
	"-overlay": true, "-vet": true,
}

// GoBuildFlag reports whether name ("-race", "--tags") is a go flag whose
// effect is built into a test binary or ends with the build, so that a
// test binary the build linked runs the same whether it was given or
// not; the test flags go test passes to the binary (-short, -run, -count…)
// are not.
func GoBuildFlag(name string) bool {
	_, ok := goBuildFlags["-"+strings.TrimLeft(name, "-")]
	return ok
}

// goRunFlags are the go test flags a plan's run from binaries gives the
// binary itself, or has no need of, and whether each takes a value.
var goRunFlags = map[string]bool{
	"-short": false, "-v": false, "-json": false, "-failfast": false,
	"-timeout": true, "-run": true, "-count": true,
}

// goBinaryOf reads the original go test invocation's flags (rest, after
// "go test") and the plan's package folders (dirs, as buildGo made them).
func goBinaryOf(rest []string, dirs []string) goBinary {
	b := goBinary{ok: true, pkgs: dirs}
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		if !plainWord.MatchString(w) {
			return goBinary{}
		}
		if !strings.HasPrefix(w, "-") {
			continue // a package
		}
		name, val, hasVal := strings.Cut(strings.TrimPrefix(w, "-"), "=")
		name = "-" + strings.TrimPrefix(name, "-")
		takes, known := goRunFlags[name]
		if !known {
			takes, known = goBuildFlags[name]
		}
		if !known {
			return goBinary{}
		}
		if takes && !hasVal {
			i++ // the value is the next word
		}
		if name == "-short" {
			b.short = !hasVal || val == "true" || val == "1"
		}
	}
	return b
}

// BinaryRun is a proof run made of the test binaries a failing go test
// build linked ([Plan.BinaryProof]).
type BinaryRun struct {
	// Command runs them one after the other, each in its package's
	// folder; it fails when one fails.
	Command string
	// Binaries is how many it runs: read its output with [ReadGoBinary].
	Binaries int
}

// BinaryProof returns the plan's proof run made of the test binaries the
// failing build linked, and true; binary gives the host path of an
// import path's test binary, module is the main module's path (the
// workspace's go.mod, see [GoModule]). Each binary runs by itself in its
// package's folder, with the flags go test -json gives it
// (-test.v=test2json): its own framed lines are its results. Going
// through go tool test2json instead would cost each binary a go command's
// start-up and a look-up of the tool's build, more than a small
// package's tests take. It returns false, and the plan's Proof stands,
// when the plan is not a narrowed go plan, the original command has a
// flag a binary cannot be run with, a package cannot be placed in the
// module, or a binary is missing.
func (p Plan) BinaryProof(module string, binary func(importPath string) (string, bool)) (BinaryRun, bool) {
	if p.Runner != "go" || p.Proof == "" || !p.Narrowed || !p.bin.ok || len(p.bin.pkgs) == 0 || !goImportPath.MatchString(module) {
		return BinaryRun{}, false
	}
	flags := []string{"-test.paniconexit0 -test.v=test2json -test.timeout=10m0s -test.count=1", quote("-test.run=" + regexAlt(p.Tests))}
	if p.bin.short {
		flags = append(flags, "-test.short")
	}
	var steps []string
	for _, pkg := range p.bin.pkgs {
		ip, dir, ok := goPackage(module, pkg)
		if !ok {
			return BinaryRun{}, false
		}
		bin, ok := binary(ip)
		if !ok || !filepath.IsAbs(bin) || strings.ContainsAny(bin, "\x00\n") {
			return BinaryRun{}, false
		}
		step := joinPlan(append([]string{quote(bin)}, flags...)...)
		if dir != "." {
			step = "cd " + quote(dir) + " && " + step
		}
		steps = append(steps, step)
	}
	if len(steps) == 1 {
		return BinaryRun{Command: steps[0], Binaries: 1}, true
	}
	var b strings.Builder
	b.WriteString("s=0")
	for _, s := range steps {
		fmt.Fprintf(&b, "; (%s) || s=1", s)
	}
	b.WriteString("; exit $s")
	return BinaryRun{Command: b.String(), Binaries: len(steps)}, true
}

// goPackage places a package a plan names (".", "./dir" or an import
// path) in module: its import path, and its folder relative to the
// module's root.
func goPackage(module, pkg string) (importPath, dir string, ok bool) {
	switch {
	case pkg == ".":
		return module, ".", true
	case strings.HasPrefix(pkg, "./"):
		rel := pkg[2:]
		if !okPath(rel) || strings.Contains(rel, "...") {
			return "", "", false
		}
		return module + "/" + rel, rel, true
	case pkg == module:
		return module, ".", true
	case strings.HasPrefix(pkg, module+"/") && goImportPath.MatchString(pkg):
		rel := strings.TrimPrefix(pkg, module+"/")
		if !okPath(rel) || strings.Contains(rel, "...") {
			return "", "", false
		}
		return pkg, rel, true
	}
	return "", "", false
}

// maxGoMod bounds the go.mod read.
const maxGoMod = 1 << 20

// GoModule returns the module path of the go.mod at the root of fsys, or
// "" when there is none or it names none.
func GoModule(fsys fs.FS) string {
	f, err := fsys.Open("go.mod")
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	data, err := io.ReadAll(io.LimitReader(f, maxGoMod))
	if err != nil {
		return ""
	}
	return modfile.ModulePath(data)
}
