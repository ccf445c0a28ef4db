package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Bwrap runs the script under bubblewrap: a read-only view of the whole
// host filesystem, a fresh /dev and /proc, a private /tmp, the workspace and
// the cache directory writable, no network (an empty network namespace with
// only its own loopback), its own PID and IPC namespaces, a new session (no
// terminal injection), every capability dropped (so that root inside cannot
// remount anything writable), and death with its parent.
//
// HOME stays read-only, and the credential files and directories of
// [SecretPaths] under it are hidden. Tools that write caches under HOME are
// pointed at the job's CacheDir instead (see [BwrapCacheEnv]).
type Bwrap struct {
	// Path is the bwrap program; empty means "bwrap" looked up in PATH.
	Path string
}

var _ Backend = Bwrap{}

// Name returns "bwrap".
func (Bwrap) Name() string { return IsolationBwrap }

func (b Bwrap) path() string {
	if b.Path != "" {
		return b.Path
	}
	return "bwrap"
}

// bwrapBase are the isolation flags shared by jobs and the probe.
var bwrapBase = []string{
	"--die-with-parent",
	"--new-session",
	"--unshare-net",
	"--unshare-pid",
	"--unshare-ipc",
	"--cap-drop", "ALL",
	"--ro-bind", "/", "/",
	"--dev", "/dev",
	"--proc", "/proc",
	"--tmpfs", "/tmp",
}

// Args returns the bwrap arguments that run job, without the program name.
func (b Bwrap) Args(job Job) []string {
	args := append([]string(nil), bwrapBase...)
	if job.CacheDir != "" {
		args = append(args, "--bind", job.CacheDir, job.CacheDir)
	}
	args = append(args, "--bind", job.Workspace, job.Workspace)
	// The masks come after every bind, so no later mount can expose what
	// they hide.
	args = append(args, secretMasks(job.Env)...)
	args = append(args, "--chdir", job.Workspace)
	return append(args, "--", "sh", "-c", job.Script)
}

// BwrapCacheEnv returns the variables that point build tools at writable
// places inside a bwrap sandbox: their caches under cacheDir (or the
// private /tmp when cacheDir is empty), and TMPDIR at the private /tmp.
// GOMODCACHE is left alone: the host's module cache is readable, and
// nothing can be downloaded without a network anyway.
func BwrapCacheEnv(cacheDir string) map[string]string {
	if cacheDir == "" {
		cacheDir = "/tmp/salve-cache"
	}
	return map[string]string{
		"TMPDIR":                     "/tmp",
		"GOCACHE":                    filepath.Join(cacheDir, "go-build"),
		"XDG_CACHE_HOME":             filepath.Join(cacheDir, "xdg"),
		"npm_config_cache":           filepath.Join(cacheDir, "npm"),
		"npm_config_update_notifier": "false",
		"PYTHONPYCACHEPREFIX":        filepath.Join(cacheDir, "pycache"),
	}
}

// Command builds the bwrap command line for job. It creates job.CacheDir on
// the host when it is set.
func (b Bwrap) Command(job Job) (Cmd, error) {
	if err := checkJob(job); err != nil {
		return Cmd{}, err
	}
	if job.CacheDir != "" {
		if !filepath.IsAbs(job.CacheDir) {
			return Cmd{}, fmt.Errorf("cache dir %q is not absolute", job.CacheDir)
		}
	}
	cacheEnv := BwrapCacheEnv(job.CacheDir)
	if job.CacheDir != "" {
		for k, dir := range cacheEnv {
			if k == "TMPDIR" || k == "npm_config_update_notifier" {
				continue
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return Cmd{}, fmt.Errorf("create cache dir: %w", err)
			}
		}
	}
	env := MergeEnv(job.Env, cacheEnv)
	return baseCmd(job, b.path(), b.Args(job), env), nil
}

// Probe runs "true" inside a sandbox with the same isolation flags, so that
// a bwrap that is installed but cannot create namespaces here (some
// containers forbid it) is reported unavailable.
func (b Bwrap) Probe(ctx context.Context, _ string) error {
	args := append(append([]string(nil), bwrapBase...), "--", "true")
	res, err := Run(ctx, Cmd{
		Path: b.path(), Args: args, Timeout: DefaultProbeTimeout, Combined: true,
		MaxOutput: 4096, Env: []string{"PATH=" + os.Getenv("PATH")},
	})
	if err != nil {
		return fmt.Errorf("sandbox: bwrap: %w: %w", ErrBackendUnavailable, err)
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("sandbox: bwrap: %w: exit %d: %s", ErrBackendUnavailable,
			res.ExitCode, strings.TrimSpace(string(res.Stdout)))
	}
	return nil
}

// Cleanup does nothing: the group kill and --die-with-parent end every
// process in the sandbox's PID namespace.
func (Bwrap) Cleanup(context.Context, Job) error { return nil }
