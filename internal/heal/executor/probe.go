package executor

import (
	"bufio"
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// versionProbes maps a runtime to the command that prints its version. Only
// the runtimes of the detected project types are probed.
var versionProbes = map[string]string{
	"go":      "go version",
	"node":    "node --version",
	"python3": "python3 --version",
	"rustc":   "rustc --version",
	"javac":   "javac -version",
	"gcc":     "gcc --version",
}

const (
	toolTag    = "@@salve-tool "
	versionTag = "@@salve-version "
	// maxVersionLen bounds a recorded version string.
	maxVersionLen = 200
)

// ProbeScript returns a sh script that prints one tagged line per tool found
// on PATH and one per runtime version, so that one run through the same
// backend as the build (same PATH, same image) answers both questions.
//
// The script lowers its own priority first (where renice exists): it is
// metadata, run beside the first build, and its runtime start-ups (a
// pyenv shim is a dozen shell scripts) should take the CPU the build
// leaves, not share it.
func ProbeScript(tools, runtimes []string) string {
	var b strings.Builder
	b.WriteString("renice -n 19 -p $$ >/dev/null 2>&1 || :\n")
	for _, t := range union(tools, runtimes) {
		q := shellQuote(t)
		fmt.Fprintf(&b, "command -v %s >/dev/null 2>&1 && echo %s\n", q, shellQuote(toolTag+t))
	}
	for _, r := range runtimes {
		cmd, ok := versionProbes[r]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "command -v %s >/dev/null 2>&1 && printf '%%s%%s\\n' %s \"$(%s 2>&1 | head -n 1)\"\n",
			shellQuote(r), shellQuote(versionTag+r+" "), cmd)
	}
	b.WriteString("exit 0\n")
	return b.String()
}

// ParseProbe reads the output of a [ProbeScript] run: the tools found, in
// sorted order, and the first line of each runtime's version output. Lines
// without a tag are ignored.
func ParseProbe(out []byte) (tools []string, versions map[string]string) {
	versions = map[string]string{}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, toolTag); ok {
			name = strings.TrimSpace(name)
			if name != "" && !seen[name] {
				seen[name] = true
				tools = append(tools, name)
			}
			continue
		}
		rest, ok := strings.CutPrefix(line, versionTag)
		if !ok {
			continue
		}
		name, version, _ := strings.Cut(rest, " ")
		version = strings.TrimSpace(version)
		if len(version) > maxVersionLen {
			version = strings.ToValidUTF8(version[:maxVersionLen], "")
		}
		if name != "" && version != "" {
			versions[name] = version
		}
	}
	sort.Strings(tools)
	return tools, versions
}
