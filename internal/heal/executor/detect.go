package executor

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/salve-dev/salve/internal/plain"
)

// Project types, as recorded in contract.EnvironmentMetadata.ProjectType.
// TypeMulti marks a workspace whose sub-projects are each built in turn.
const (
	TypeGo     = "go"
	TypeRust   = "rust"
	TypeNode   = "node"
	TypePython = "python"
	TypeMaven  = "maven"
	TypeGradle = "gradle"
	TypeCMake  = "cmake"
	TypeMake   = "make"
	TypeMulti  = "multi"
	// TypeUnknown is recorded when a command was given and no marker says
	// what the project is.
	TypeUnknown = "unknown"
)

// ErrNoProject is returned (wrapped) by [Detect] when no marker is found in
// the workspace or in its sub-directories.
var ErrNoProject = errors.New("executor: no project marker found")

// ErrUnknownProjectType is returned (wrapped) when a project type override
// names no row of the detection table.
var ErrUnknownProjectType = errors.New("executor: unknown project type")

// ErrNoCommand is returned (wrapped) when a project is recognised but no
// build command can be derived from it (a package.json without scripts).
var ErrNoCommand = errors.New("executor: no build command for project")

// Detector is one row of the detection table: the marker files of a project
// type, how to derive its command, and what to probe.
type Detector struct {
	// Type is the project type name.
	Type string
	// Markers are glob patterns matched against the names of the files of
	// one directory (not paths).
	Markers []string
	// Tools are the programs looked for on PATH when this type is built.
	Tools []string
	// Runtimes are keys of the version probes (see [versionProbes]).
	Runtimes []string
	// Image is the default container image.
	Image string
	// Resolve derives the command for the project in dir.
	Resolve func(dir string, env ResolveEnv) (Resolution, error)
}

// ResolveEnv is what a resolver may ask of the machine.
type ResolveEnv struct {
	// HasTool reports whether a program is on the build's PATH.
	HasTool func(name string) bool
}

// Resolution is a resolved command and why it was chosen.
type Resolution struct {
	Command string
	Reason  string
	// Tools are extra programs to look for (the package manager chosen).
	Tools []string
}

// detectors is the detection table, in priority order: when one directory
// holds markers of several types, the first row wins.
var detectors = []Detector{
	{Type: TypeGo, Markers: []string{"go.mod"}, Tools: []string{"go", "gofmt"}, Runtimes: []string{"go"},
		Image: "golang:1", Resolve: fixed("go build ./... && go vet ./... && go test ./...", "go.mod found")},
	{Type: TypeRust, Markers: []string{"Cargo.toml"}, Tools: []string{"cargo", "rustc"}, Runtimes: []string{"rustc"},
		Image: "rust:1", Resolve: fixed("cargo build && cargo test", "Cargo.toml found")},
	{Type: TypeNode, Markers: []string{"package.json"}, Tools: []string{"node"}, Runtimes: []string{"node"},
		Image: "node:lts", Resolve: resolveNode},
	{Type: TypePython, Markers: []string{"pyproject.toml", "setup.cfg", "requirements*.txt"},
		Tools: []string{"python3", "pip3"}, Runtimes: []string{"python3"}, Image: "python:3", Resolve: resolvePython},
	{Type: TypeMaven, Markers: []string{"pom.xml"}, Tools: []string{"mvn", "java", "javac"}, Runtimes: []string{"javac"},
		Image: "maven:3-eclipse-temurin-21", Resolve: resolveMaven},
	{Type: TypeGradle, Markers: []string{"build.gradle*"}, Tools: []string{"gradle", "java", "javac"},
		Runtimes: []string{"javac"}, Image: "gradle:jdk21", Resolve: resolveGradle},
	{Type: TypeCMake, Markers: []string{"CMakeLists.txt"}, Tools: []string{"cmake", "ctest", "make", "gcc", "cc"},
		Runtimes: []string{"gcc"}, Image: "gcc:14",
		Resolve: fixed("cmake -S . -B build && cmake --build build && ctest --test-dir build --output-on-failure",
			"CMakeLists.txt found")},
	{Type: TypeMake, Markers: []string{"Makefile", "makefile", "GNUmakefile"}, Tools: []string{"make", "gcc", "cc"},
		Runtimes: []string{"gcc"}, Image: "gcc:14", Resolve: resolveMake},
}

// Detectors returns a copy of the detection table, in priority order.
func Detectors() []Detector { return append([]Detector(nil), detectors...) }

// detectorFor returns the row for a project type.
func detectorFor(typ string) (Detector, bool) {
	for _, d := range detectors {
		if d.Type == typ {
			return d, true
		}
	}
	return Detector{}, false
}

func fixed(cmd, reason string) func(string, ResolveEnv) (Resolution, error) {
	return func(string, ResolveEnv) (Resolution, error) { return Resolution{Command: cmd, Reason: reason}, nil }
}

// SubProject is one project found in a workspace.
type SubProject struct {
	// Dir is the project directory relative to the workspace, with forward
	// slashes; "." is the workspace itself.
	Dir string
	// Type is the project type.
	Type string
	// Markers are the marker files found there, of every type.
	Markers []string
	Resolution
}

// Plan is what detection decided: the command to run and why.
type Plan struct {
	// ProjectType is the type of the single project, or TypeMulti.
	ProjectType string
	Command     string
	Reason      string
	// Projects lists the projects the command builds.
	Projects []SubProject
	// Tools are the programs looked for, and Runtimes the version probes.
	Tools    []string
	Runtimes []string
	// Image is the default container image for the plan.
	Image string
}

// MaxDepth is how deep below the workspace root [Detect] looks for
// sub-projects when the root holds no marker.
const MaxDepth = 2

// skipDirs are never searched for sub-projects.
var skipDirs = map[string]bool{
	"node_modules": true, "vendor": true, "target": true, "build": true, "dist": true,
	"__pycache__": true, "venv": true, "testdata": true,
}

// Detect resolves the build of the workspace at root. When the root holds
// markers, the highest-priority type among them wins and the others are
// named in the reason. Otherwise each directory down to [MaxDepth] that holds
// markers is a sub-project (its own sub-directories are not searched), and
// the plan builds every one of them in turn, failing if any fails.
func Detect(root string, env ResolveEnv) (Plan, error) {
	projects, err := findProjects(root, ".", 0, env)
	if err != nil {
		return Plan{}, err
	}
	switch len(projects) {
	case 0:
		return Plan{}, plain.Wrap(fmt.Errorf("detect %s: %w (looked for %s)", root, ErrNoProject, allMarkers()),
			"salve cannot tell how to build this project: it has none of "+allMarkers()+
				". Give the command that builds and tests it with --cmd, for example --cmd 'make test'")
	case 1:
		return singlePlan(projects[0]), nil
	}
	return multiPlan(projects), nil
}

// DetectAs resolves the command for the workspace root as a project of the
// given type, whatever its markers say.
func DetectAs(root, typ string, env ResolveEnv) (Plan, error) {
	d, ok := detectorFor(typ)
	if !ok {
		return Plan{}, plain.Wrap(fmt.Errorf("project type %q: %w (known: %s)", typ, ErrUnknownProjectType, strings.Join(knownTypes(), ", ")),
			fmt.Sprintf("salve knows no project type %q: use one of %s, or give the build command with --cmd", typ, strings.Join(knownTypes(), ", ")))
	}
	res, err := d.Resolve(root, env)
	if err != nil {
		return Plan{}, fmt.Errorf("resolve %s project in %s: %w", typ, root, err)
	}
	res.Reason = "project type given as " + typ + "; " + res.Reason
	return singlePlan(SubProject{Dir: ".", Type: typ, Resolution: res}), nil
}

func knownTypes() []string {
	var out []string
	for _, d := range detectors {
		out = append(out, d.Type)
	}
	return out
}

func allMarkers() string {
	var out []string
	for _, d := range detectors {
		out = append(out, d.Markers...)
	}
	return strings.Join(out, ", ")
}

// findProjects returns the projects at rel (below root) or, when rel holds
// no marker, below it.
func findProjects(root, rel string, depth int, env ResolveEnv) ([]SubProject, error) {
	dir := filepath.Join(root, filepath.FromSlash(rel))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("detect: read %s: %w", dir, err)
	}
	if p, ok, err := projectIn(dir, rel, entries, env); ok || err != nil {
		return []SubProject{p}, err
	}
	if depth >= MaxDepth {
		return nil, nil
	}
	var out []SubProject
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, ".") || skipDirs[name] {
			continue
		}
		sub, err := findProjects(root, path.Join(rel, name), depth+1, env)
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
	}
	return out, nil
}

// projectIn picks the highest-priority type whose markers are among
// entries, and resolves its command.
func projectIn(dir, rel string, entries []os.DirEntry, env ResolveEnv) (SubProject, bool, error) {
	var found []string
	var best *Detector
	for i := range detectors {
		d := &detectors[i]
		for _, e := range entries {
			if e.IsDir() || !matchesAny(d.Markers, e.Name()) {
				continue
			}
			found = append(found, e.Name())
			if best == nil {
				best = d
			}
		}
	}
	if best == nil {
		return SubProject{}, false, nil
	}
	res, err := best.Resolve(dir, env)
	if err != nil {
		return SubProject{}, true, fmt.Errorf("resolve %s project in %s: %w", best.Type, rel, err)
	}
	if others := otherTypes(entries, best.Type); len(others) > 0 {
		res.Reason += fmt.Sprintf("; also found %s, lower in priority", strings.Join(others, ", "))
	}
	return SubProject{Dir: rel, Type: best.Type, Markers: found, Resolution: res}, true, nil
}

// otherTypes names the marker types present besides the chosen one.
func otherTypes(entries []os.DirEntry, chosen string) []string {
	var out []string
	for _, d := range detectors {
		if d.Type == chosen {
			continue
		}
		for _, e := range entries {
			if !e.IsDir() && matchesAny(d.Markers, e.Name()) {
				out = append(out, e.Name()+" ("+d.Type+")")
				break
			}
		}
	}
	return out
}

func matchesAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

func singlePlan(p SubProject) Plan {
	d, _ := detectorFor(p.Type)
	cmd := p.Command
	reason := p.Reason
	if p.Dir != "." {
		cmd = "cd " + cdTarget(p.Dir) + " && " + cmd
		reason = p.Dir + ": " + reason
	}
	return Plan{
		ProjectType: p.Type, Command: cmd, Reason: reason, Projects: []SubProject{p},
		Tools: union(d.Tools, p.Tools), Runtimes: append([]string(nil), d.Runtimes...), Image: d.Image,
	}
}

// multiPlan builds every sub-project in a subshell, announcing each, and
// exits with the status of the last one that failed (0 when all pass).
func multiPlan(projects []SubProject) Plan {
	sort.Slice(projects, func(i, j int) bool { return projects[i].Dir < projects[j].Dir })
	parts := []string{"rc=0"}
	var reasons []string
	plan := Plan{ProjectType: TypeMulti, Projects: projects}
	for _, p := range projects {
		d, _ := detectorFor(p.Type)
		banner := fmt.Sprintf("==> salve: %s (%s): %s", p.Dir, p.Type, p.Command)
		parts = append(parts, "echo "+shellQuote(banner),
			"(cd "+cdTarget(p.Dir)+" && "+p.Command+") || rc=$?")
		reasons = append(reasons, p.Dir+": "+p.Reason)
		plan.Tools = union(plan.Tools, union(d.Tools, p.Tools))
		plan.Runtimes = union(plan.Runtimes, d.Runtimes)
		if plan.Image == "" {
			plan.Image = d.Image
		}
	}
	plan.Command = strings.Join(append(parts, "exit $rc"), "; ")
	plan.Reason = fmt.Sprintf("no marker at the root; %d sub-projects, each built in turn: %s",
		len(projects), strings.Join(reasons, "; "))
	return plan
}

func union(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, s := range b {
		dup := false
		for _, t := range out {
			dup = dup || s == t
		}
		if !dup {
			out = append(out, s)
		}
	}
	return out
}

// cdTarget is the argument of "cd" for the sub-project directory dir: a
// name starting with '-' gets "./" so that cd never reads it as an option
// ("cd -P" alone would go to $HOME and build there).
func cdTarget(dir string) string {
	if strings.HasPrefix(dir, "-") {
		dir = "./" + dir
	}
	return shellQuote(dir)
}

// shellQuote quotes s for sh when it holds anything but safe characters.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@+,", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
