package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// SecretPaths lists credential files and directories, relative to HOME,
// that the bwrap backend hides from a build. HOME is an empty tmpfs in the
// sandbox, so they are absent unless a toolchain root bound read-only holds
// one (cargo's credentials in ~/.cargo); there each existing directory is
// covered by an empty tmpfs and each existing file by /dev/null. The
// environment scrub keeps API keys out of a build's variables; this keeps
// them out of its reach on disk, so a build (or a test it runs) cannot print
// them into a log that salve may later show an LLM.
var SecretPaths = []string{
	".ssh", ".gnupg", ".netrc", ".git-credentials", ".config/git/credentials",
	".aws", ".azure", ".config/gcloud", ".kube", ".docker", ".config/gh", ".config/hub",
	".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc", ".cargo/credentials", ".cargo/credentials.toml",
	".m2/settings-security.xml", ".ai-agent", ".config/openai", ".anthropic",
}

// secretMasks returns the bwrap arguments that hide SecretPaths under the
// HOME of env, where they lie inside one of the bound read-only roots (HOME
// itself is an empty tmpfs in the sandbox, so the rest are absent anyway).
// A symlink is followed and its target hidden. Nothing is returned when env
// has no absolute HOME.
func secretMasks(env []string, bound []string) []string {
	home := envValue(env, "HOME")
	if !filepath.IsAbs(home) {
		return nil
	}
	var args []string
	for _, rel := range SecretPaths {
		p, fi, ok := resolveSecret(filepath.Join(home, rel))
		if !ok || !boundUnder(p, bound) {
			continue
		}
		if fi.IsDir() {
			args = append(args, "--tmpfs", p)
		} else {
			args = append(args, "--ro-bind", "/dev/null", p)
		}
	}
	return args
}

// resolveSecret stats p, following a symlink to its target.
func resolveSecret(p string) (string, os.FileInfo, bool) {
	fi, err := os.Lstat(p)
	if err != nil {
		return "", nil, false
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		return p, fi, true
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", nil, false
	}
	if fi, err = os.Stat(real); err != nil {
		return "", nil, false
	}
	return real, fi, true
}

// envValue returns the value of key in a KEY=VALUE list; the last one wins.
func envValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}
