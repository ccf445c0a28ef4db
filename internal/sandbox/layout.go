package sandbox

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/salve-dev/salve/internal/gitguard"
)

// systemDirs are the directories a build sees read-only: the programs and
// libraries of the system, and the Nix store (world-readable by design,
// and where a Nix profile's PATH entries lead). A top-level symlink (/bin ->
// usr/bin on a merged-/usr system) is recreated as the same symlink.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/nix/store"}

// EtcAllow lists the entries of /etc a build sees, read-only: what the C
// library, the name service, TLS, time zones, locales and the toolchains
// read. Everything else under /etc is absent: /etc/shadow and /etc/gshadow,
// /etc/ssh and its host keys, /etc/sudoers, the package manager's and
// services' configuration, and the system-wide files that may hold
// credentials (gitconfig, npmrc, pip.conf, wgetrc, netrc).
var EtcAllow = []string{
	"passwd", "group", "hostname", "hosts", "host.conf", "nsswitch.conf", "resolv.conf", "gai.conf",
	"protocols", "services", "networks", "ld.so.cache", "ld.so.conf", "ld.so.conf.d",
	"localtime", "timezone", "locale.alias", "locale.conf", "default/locale", "os-release", "lsb-release",
	"debian_version", "alpine-release", "redhat-release", "mime.types", "magic", "magic.mime",
	"alternatives", "ssl/certs", "ssl/openssl.cnf", "ca-certificates", "ca-certificates.conf",
	"pki/tls/certs", "pki/ca-trust", "crypto-policies", "fonts", "shells", "mtab",
	"java-8-openjdk", "java-11-openjdk", "java-17-openjdk", "java-21-openjdk", "java-25-openjdk", "maven",
	"python3", "perl", "terminfo",
}

// toolchainEnv names the variables whose values are toolchain roots a
// build reads (read-only) when they lie outside the system directories.
var toolchainEnv = []string{
	"GOROOT", "CARGO_HOME", "RUSTUP_HOME", "PYENV_ROOT", "VIRTUAL_ENV", "JAVA_HOME",
	"NVM_DIR", "VOLTA_HOME", "SDKMAN_DIR", "MAVEN_HOME", "M2_HOME", "GRADLE_HOME", "CONDA_PREFIX",
}

// privateHomeDirs are directories directly under HOME that are never bound
// as a whole, even when a PATH entry lies in them: they hold the user's
// data, salve's own run store and data, and credentials.
var privateHomeDirs = map[string]bool{
	".local": true, ".config": true, ".cache": true, ".ssh": true, ".gnupg": true, ".aws": true,
	".azure": true, ".kube": true, ".docker": true, ".ai-agent": true, ".password-store": true,
}

// layout is what a bwrap sandbox binds, besides the system directories.
type layout struct {
	home       string   // the tmpfs HOME, "" when none
	toolchains []string // read-only
}

// planLayout decides the read-only toolchain roots of a job: each PATH
// entry outside the system directories (or the toolchain root that holds
// it, such as ~/.cargo for ~/.cargo/bin, or /opt/tools/node_modules for
// its .bin, whose entries link into it, when that root is safe to expose),
// the roots named by the toolchain variables, the Go module cache, and
// rustup's home next to cargo's.
func planLayout(job Job) layout {
	env := job.Env
	home := cleanAbs(envValue(env, "HOME"))
	l := layout{}
	if home != "" && home != "/" && !within(home, job.Workspace) && !within(home, job.CacheDir) {
		l.home = home
	}
	deny := privateRoots(env, home)
	ok := func(root string) bool { return allowedRoot(root, home, job, deny) }
	var roots []string
	add := func(p string) {
		if p = existing(p); p != "" && ok(p) && !inSystem(p) {
			roots = append(roots, p)
		}
	}
	for _, entry := range filepath.SplitList(envValue(env, "PATH")) {
		entry = existing(cleanAbs(entry))
		if entry == "" || inSystem(entry) || within(entry, job.Workspace) {
			continue
		}
		base, parent := filepath.Base(entry), filepath.Dir(entry)
		// node_modules/.bin holds links into its node_modules: the
		// packages' folders must be seen too.
		if base == "bin" || base == "sbin" || base == "shims" || (base == ".bin" && filepath.Base(parent) == "node_modules") {
			if ok(parent) && toolchainParent(parent, home) {
				add(parent)
				continue
			}
		}
		add(entry)
		if home != "" && entry == filepath.Join(home, ".local", "bin") {
			// pip --user: the scripts in ~/.local/bin import from here.
			matches, _ := filepath.Glob(filepath.Join(home, ".local", "lib", "python*"))
			for _, m := range matches {
				add(m)
			}
		}
	}
	for _, k := range toolchainEnv {
		add(cleanAbs(envValue(env, k)))
	}
	if home != "" {
		for _, r := range roots {
			if r == filepath.Join(home, ".cargo") && envValue(env, "RUSTUP_HOME") == "" {
				add(filepath.Join(home, ".rustup"))
			}
		}
	}
	add(goModCache(env, home))
	l.toolchains = dropNested(roots)
	return l
}

// toolchainParent reports whether parent, the directory holding a PATH
// entry's bin, is a toolchain root to bind whole. Outside HOME any root two
// levels deep or more qualifies (/opt/go, /usr/lib/jvm/x); under HOME only
// hidden tool directories do (~/.cargo, ~/.pyenv, ~/.nvm/versions/node/v22),
// never ~/go or ~/src, which may hold the user's repositories.
func toolchainParent(parent, home string) bool {
	if strings.Count(parent, "/") < 2 {
		return false
	}
	if home == "" || !within(parent, home) {
		return true
	}
	rel, _ := filepath.Rel(home, parent)
	first, _, _ := strings.Cut(rel, "/")
	return strings.HasPrefix(first, ".") && !privateHomeDirs[first]
}

// allowedRoot reports whether root may be bound read-only: an absolute
// directory that holds neither HOME, the workspace, salve's cache, nor any
// of deny (the user's data, state and configuration directories), and that
// is not itself one of the private directories under HOME.
func allowedRoot(root, home string, job Job, deny []string) bool {
	if root == "" || root == "/" {
		return false
	}
	for _, p := range append([]string{home, job.Workspace, job.CacheDir}, deny...) {
		if p != "" && within(p, root) {
			return false
		}
	}
	if home != "" && within(root, home) {
		rel, _ := filepath.Rel(home, root)
		first, _, _ := strings.Cut(rel, "/")
		if privateHomeDirs[first] && !strings.HasPrefix(rel, ".local/bin") && !strings.HasPrefix(rel, ".local/lib/python") {
			return false
		}
	}
	return true
}

// privateRoots are the XDG directories (salve's run store, data and
// configuration live there) that no read-only bind may expose.
func privateRoots(env []string, home string) []string {
	var out []string
	for _, kv := range [][2]string{
		{"XDG_STATE_HOME", ".local/state"}, {"XDG_DATA_HOME", ".local/share"},
		{"XDG_CONFIG_HOME", ".config"}, {"XDG_CACHE_HOME", ".cache"},
	} {
		if v := cleanAbs(envValue(env, kv[0])); v != "" {
			out = append(out, v)
		}
		if home != "" {
			out = append(out, filepath.Join(home, kv[1]))
		}
	}
	return out
}

// goModCache returns the Go module cache a build reads: GOMODCACHE, else
// the first GOPATH entry's pkg/mod, else ~/go/pkg/mod.
func goModCache(env []string, home string) string {
	if v := cleanAbs(envValue(env, "GOMODCACHE")); v != "" {
		return v
	}
	if gp := filepath.SplitList(envValue(env, "GOPATH")); len(gp) > 0 && cleanAbs(gp[0]) != "" {
		return filepath.Join(cleanAbs(gp[0]), "pkg", "mod")
	}
	if home != "" {
		return filepath.Join(home, "go", "pkg", "mod")
	}
	return ""
}

// inSystem reports whether p lies in one of the system directories, which
// are bound anyway.
func inSystem(p string) bool {
	for _, d := range systemDirs {
		if within(p, d) {
			return true
		}
	}
	return false
}

// existing returns p with symlinks resolved when it is an existing
// directory, else "".
func existing(p string) string {
	if p == "" {
		return ""
	}
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
		return ""
	}
	return r
}

// cleanAbs returns p cleaned when it is absolute, else "".
func cleanAbs(p string) string {
	if !filepath.IsAbs(p) {
		return ""
	}
	return filepath.Clean(p)
}

// within reports whether p is dir or lies under it.
func within(p, dir string) bool {
	if p == "" || dir == "" {
		return false
	}
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// dropNested sorts paths and removes those under another of them.
func dropNested(paths []string) []string {
	sort.Strings(paths)
	var out []string
	for _, p := range paths {
		if len(out) > 0 && within(p, out[len(out)-1]) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// gitReadOnly returns the paths a sandbox mounts read-only over its
// writable workspace ws: every .git entry of the workspace's tree that is
// not a link (the repository's own, a linked worktree's or submodule's
// .git file, nested repositories), and the git directories they lead to
// inside ws. Git directories outside ws are not in the sandbox at all. A
// tree too large to search yields ws/.git and its git directories only; a
// workspace that is not absolute, nothing.
func gitReadOnly(ws string) []string {
	ws = cleanAbs(ws)
	if ws == "" || ws == "/" {
		return nil
	}
	paths, _ := gitguard.ReadOnlyPaths(ws, 0)
	return paths
}
