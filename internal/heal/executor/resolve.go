package executor

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/salve-dev/salve/internal/plain"
	"github.com/salve-dev/salve/internal/safefile"
)

// maxManifest bounds how much of a manifest (package.json, Makefile) is
// read: detection must not be a way to exhaust memory.
const maxManifest = 4 << 20

func readManifest(path string) ([]byte, error) {
	f, err := safefile.Open(path, safefile.Options{})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, maxManifest)); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return buf.Bytes(), nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// nodeManagers maps a lockfile to the package manager that wrote it, in the
// order they are checked.
var nodeManagers = []struct{ lockfile, manager string }{
	{"pnpm-lock.yaml", "pnpm"},
	{"yarn.lock", "yarn"},
	{"package-lock.json", "npm"},
	{"npm-shrinkwrap.json", "npm"},
}

// NodeScripts returns the names of the "build" and "test" scripts that a
// package.json defines, in that order.
func NodeScripts(manifest []byte) ([]string, error) {
	var pkg struct {
		Scripts map[string]json.RawMessage `json:"scripts"`
	}
	if err := json.Unmarshal(manifest, &pkg); err != nil {
		return nil, fmt.Errorf("parse package.json: %w", err)
	}
	var out []string
	for _, s := range []string{"build", "test"} {
		if _, ok := pkg.Scripts[s]; ok {
			out = append(out, s)
		}
	}
	return out, nil
}

func resolveNode(dir string, _ ResolveEnv) (Resolution, error) {
	manifest, err := readManifest(filepath.Join(dir, "package.json"))
	if err != nil {
		return Resolution{}, err
	}
	scripts, err := NodeScripts(manifest)
	if err != nil {
		return Resolution{}, err
	}
	if len(scripts) == 0 {
		return Resolution{}, plain.Wrap(fmt.Errorf("package.json has no build or test script: %w", ErrNoCommand),
			"package.json has no \"build\" or \"test\" script, so salve does not know how to build it: add one, or give the command with --cmd")
	}
	manager, why := "npm", "no lockfile, so npm"
	for _, m := range nodeManagers {
		if exists(filepath.Join(dir, m.lockfile)) {
			manager, why = m.manager, m.lockfile+" found, so "+m.manager
			break
		}
	}
	var cmds []string
	for _, s := range scripts {
		if s == "test" {
			cmds = append(cmds, manager+" test")
		} else {
			cmds = append(cmds, manager+" run "+s)
		}
	}
	return Resolution{
		Command: strings.Join(cmds, " && "),
		Reason:  fmt.Sprintf("package.json found with scripts %s; %s", strings.Join(scripts, ", "), why),
		Tools:   []string{manager},
	}, nil
}

func resolvePython(dir string, env ResolveEnv) (Resolution, error) {
	marker := "a python marker"
	for _, pattern := range []string{"pyproject.toml", "setup.cfg", "requirements*.txt"} {
		if m, _ := filepath.Glob(filepath.Join(dir, pattern)); len(m) > 0 {
			marker = filepath.Base(m[0])
			break
		}
	}
	if env.HasTool != nil && env.HasTool("pytest") {
		return Resolution{Command: "pytest", Reason: marker + " found; pytest is installed", Tools: []string{"pytest"}}, nil
	}
	return Resolution{Command: "python3 -m unittest discover -v",
		Reason: marker + " found; pytest is not installed, so unittest"}, nil
}

func resolveMaven(dir string, _ ResolveEnv) (Resolution, error) {
	if exists(filepath.Join(dir, "mvnw")) {
		return Resolution{Command: "./mvnw -B verify", Reason: "pom.xml found; the Maven wrapper mvnw is present"}, nil
	}
	return Resolution{Command: "mvn -B verify", Reason: "pom.xml found"}, nil
}

func resolveGradle(dir string, _ ResolveEnv) (Resolution, error) {
	if exists(filepath.Join(dir, "gradlew")) {
		return Resolution{Command: "./gradlew build --no-daemon", Reason: "build.gradle found; the Gradle wrapper gradlew is present"}, nil
	}
	return Resolution{Command: "gradle build --no-daemon", Reason: "build.gradle found; no wrapper"}, nil
}

// makeTarget matches a rule line "name:" (and "a b: deps"), not a variable
// assignment "name := value".
var makeTarget = regexp.MustCompile(`^([A-Za-z0-9_.\-/ ]+?)\s*::?(?:[^=]|$)`)

// MakeTargets returns the explicit target names of a Makefile, in order of
// first appearance, skipping special targets such as .PHONY.
func MakeTargets(makefile []byte) []string {
	var out []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(makefile))
	sc.Buffer(make([]byte, 64*1024), maxManifest)
	for sc.Scan() {
		m := makeTarget.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		for _, name := range strings.Fields(m[1]) {
			if strings.HasPrefix(name, ".") || seen[name] {
				continue
			}
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

func resolveMake(dir string, _ ResolveEnv) (Resolution, error) {
	name := "Makefile"
	for _, n := range []string{"GNUmakefile", "makefile", "Makefile"} {
		if exists(filepath.Join(dir, n)) {
			name = n
			break
		}
	}
	content, err := readManifest(filepath.Join(dir, name))
	if err != nil {
		return Resolution{}, err
	}
	targets := MakeTargets(content)
	for _, t := range []string{"test", "check"} {
		for _, have := range targets {
			if have == t {
				return Resolution{Command: "make && make " + t,
					Reason: fmt.Sprintf("%s found with a %q target", name, t)}, nil
			}
		}
	}
	return Resolution{Command: "make", Reason: name + " found; no test or check target, so the default goal"}, nil
}
