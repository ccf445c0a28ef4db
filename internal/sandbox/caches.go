package sandbox

import (
	"os"
	"path/filepath"
	"slices"
)

// Cache is a cache directory of the user's that a sandboxed build may read
// but must never change: the Go build and module caches, cargo's registry,
// npm's cache, Maven's repository, Gradle's caches, and the dependency
// folders of the checkout a heal worktree was made from.
type Cache struct {
	// Name says what the cache is ("go-build", "node_modules"…).
	Name string
	// Src is the user's directory on the host.
	Src string
	// Dst is where the build sees it; usually Src itself, so that paths
	// baked into cache keys still match.
	Dst string
	// Env, when set, is the variable that points the tool at Dst.
	Env string
	// ReadOnlyOK says the tool works with the cache read-only: where
	// overlays are unavailable it is then bound read-only instead of being
	// left out.
	ReadOnlyOK bool
	// Layer, when set, is salve's own layer of this cache: a host directory
	// inside [Job.CacheDir] that keeps what builds compile, from one build
	// to the next (see [Layered]). Src may then be empty or missing: the
	// layer alone is the cache.
	Layer string
	// Base, when set with Layer, is a layer of salve's below Layer, read
	// only: the repository's own layer under the throw-away layer of an
	// untrusted change, which reads what the repository's builds compiled
	// and writes only Layer. Only overlays stack it ([Bwrap]); where the
	// layer is bound writable (no overlays, containers), Layer alone is
	// the cache.
	Base string
	// Keep, when set, is a host directory inside [Job.CacheDir] that holds
	// this overlay's upper layer from one job to the next, instead of the
	// job's scratch directory: the jobs that name the same Keep (the builds
	// of one heal) each see what the last one wrote to Dst, above Src,
	// where each job would otherwise start from Src again. Only overlays
	// use it ([Bwrap]); whoever sets it removes the directory.
	Keep string
}

// layeredCaches names the caches that get a layer of salve's own from
// [Layered]: those a build fills with what it compiles, whose entries are
// keyed by their inputs (Go's build cache). The others are either read
// only (module caches, node_modules: nothing can be downloaded without a
// network) or not worth the disk.
var layeredCaches = []string{"go-build"}

// Layered returns caches with salve's own layer, under dir, set on each
// cache of [layeredCaches]; the Go build cache is added, at the path Go
// would use, when the user has none (a cold runner), so that the first
// build of a heal fills the layer and the next reuses it. dir is the
// directory of one repository's builds (the layers are per repository:
// see docs/executor.md §Caches); empty dir returns caches unchanged.
func Layered(caches []Cache, env []string, dir string) []Cache {
	if dir == "" {
		return caches
	}
	out := append([]Cache(nil), caches...)
	if !slices.ContainsFunc(out, func(c Cache) bool { return c.Name == "go-build" }) {
		if gocache := goBuildCache(env); gocache != "" {
			out = append(out, Cache{Name: "go-build", Dst: gocache, Env: "GOCACHE"})
		}
	}
	for i, c := range out {
		if slices.Contains(layeredCaches, c.Name) {
			out[i].Layer = filepath.Join(dir, c.Name)
		}
	}
	return out
}

// goBuildCache is the Go build cache env names: GOCACHE, else go-build in
// XDG_CACHE_HOME or ~/.cache; empty when none can be told.
func goBuildCache(env []string) string {
	if v := cleanAbs(envValue(env, "GOCACHE")); v != "" {
		return v
	}
	if x := cleanAbs(envValue(env, "XDG_CACHE_HOME")); x != "" {
		return filepath.Join(x, "go-build")
	}
	if home := cleanAbs(envValue(env, "HOME")); home != "" {
		return filepath.Join(home, ".cache", "go-build")
	}
	return ""
}

// UserCaches returns the caches of the user that builds may share, read
// from env (the build's environment: HOME, GOCACHE, GOMODCACHE, GOPATH,
// CARGO_HOME, GRADLE_USER_HOME, npm_config_cache, XDG_CACHE_HOME). When
// source is the checkout a separate workspace was made from (a heal
// worktree), its node_modules and Rust target/ are shared too, at the
// workspace's path, unless the workspace has its own. Only existing
// directories are returned.
func UserCaches(env []string, source, workspace string) []Cache {
	home := cleanAbs(envValue(env, "HOME"))
	under := func(rel ...string) string {
		if home == "" {
			return ""
		}
		return filepath.Join(append([]string{home}, rel...)...)
	}
	var out []Cache
	add := func(c Cache) {
		if c.Src == "" || existing(c.Src) == "" {
			return
		}
		if c.Dst == "" {
			c.Dst = c.Src
		}
		out = append(out, c)
	}
	add(Cache{Name: "go-build", Src: goBuildCache(env), Env: "GOCACHE"})
	add(Cache{Name: "go-mod", Src: goModCache(env, home), Env: "GOMODCACHE", ReadOnlyOK: true})
	cargo := cleanAbs(envValue(env, "CARGO_HOME"))
	if cargo == "" {
		cargo = under(".cargo")
	}
	if cargo != "" {
		add(Cache{Name: "cargo-registry", Src: filepath.Join(cargo, "registry"), ReadOnlyOK: true})
		add(Cache{Name: "cargo-git", Src: filepath.Join(cargo, "git"), ReadOnlyOK: true})
	}
	npm := cleanAbs(envValue(env, "npm_config_cache"))
	if npm == "" {
		npm = under(".npm")
	}
	add(Cache{Name: "npm", Src: npm, Env: "npm_config_cache"})
	add(Cache{Name: "maven", Src: under(".m2", "repository")})
	gradle := cleanAbs(envValue(env, "GRADLE_USER_HOME"))
	if gradle == "" {
		gradle = under(".gradle")
	}
	if gradle != "" {
		add(Cache{Name: "gradle-caches", Src: filepath.Join(gradle, "caches")})
		add(Cache{Name: "gradle-wrapper", Src: filepath.Join(gradle, "wrapper"), ReadOnlyOK: true})
	}
	source, workspace = cleanAbs(source), cleanAbs(workspace)
	if source != "" && workspace != "" && source != workspace {
		for _, dir := range []struct {
			name string
			ro   bool
		}{{"node_modules", true}, {"target", false}} {
			if _, err := os.Lstat(filepath.Join(workspace, dir.name)); err == nil {
				continue // the workspace's own wins
			}
			// The checkout's content may come from the repository (a pull
			// request in CI): a node_modules that is a symlink could point
			// anywhere, so only a real directory inside the checkout counts.
			src := filepath.Join(source, dir.name)
			if fi, err := os.Lstat(src); err != nil || !fi.IsDir() || !within(existing(src), existing(source)) {
				continue
			}
			add(Cache{Name: dir.name, Src: filepath.Join(source, dir.name),
				Dst: filepath.Join(workspace, dir.name), ReadOnlyOK: dir.ro})
		}
	}
	return out
}
