package sandbox

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// MergeEnv returns base with every KEY=VALUE of over applied, later entries
// winning, sorted by key so the result is deterministic.
func MergeEnv(base []string, over map[string]string) []string {
	m := make(map[string]string, len(base)+len(over))
	for _, kv := range base {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	for k, v := range over {
		m[k] = v
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// DefaultAllowEnv lists the variables [AllowedEnv] keeps by default: what
// compilers and test runners need to find themselves, and nothing that
// usually holds a secret.
var DefaultAllowEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR",
	"GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GONOSUMDB", "GOPRIVATE", "GOTOOLCHAIN", "CGO_ENABLED",
	"CARGO_HOME", "RUSTUP_HOME", "JAVA_HOME", "MAVEN_OPTS", "GRADLE_USER_HOME",
	"PYENV_ROOT", "VIRTUAL_ENV", "PYTHONPATH", "NODE_PATH", "NPM_CONFIG_CACHE",
	"CC", "CXX", "CFLAGS", "CXXFLAGS", "LDFLAGS", "PKG_CONFIG_PATH", "CI",
	"XDG_DATA_HOME", "XDG_STATE_HOME",
}

// AllowedEnv returns the variables of the current process whose names are
// in DefaultAllowEnv or extra, sorted.
func AllowedEnv(extra ...string) []string {
	allow := make(map[string]bool, len(DefaultAllowEnv)+len(extra))
	for _, k := range DefaultAllowEnv {
		allow[k] = true
	}
	for _, k := range extra {
		allow[k] = true
	}
	var out []string
	for _, kv := range os.Environ() {
		if k, _, ok := strings.Cut(kv, "="); ok && allow[k] {
			out = append(out, kv)
		}
	}
	sort.Strings(out)
	return out
}

// LookPath finds bin in the PATH of env (a child's environment, not the
// caller's own), and returns "" when no executable file of that name is
// there. An absolute bin is returned when it is an executable file (a
// project's own copy, such as node_modules/.bin).
func LookPath(bin string, env []string) string {
	if filepath.IsAbs(bin) {
		if st, err := os.Stat(bin); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return bin
		}
		return ""
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, bin)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}
