package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// DefaultTmpSize caps each private tmpfs of a bwrap sandbox (/tmp, /var/tmp)
// when [Job.TmpSize] is zero.
const DefaultTmpSize = 2 << 30

// homeTmpSize caps the empty tmpfs that stands in for HOME.
const homeTmpSize = 256 << 20

// Bwrap runs the script under bubblewrap, in a filesystem built from an
// allow-list: the system directories (/usr, /bin, /sbin, /lib*) and the
// entries of /etc in [EtcAllow], read-only; the toolchains the job's PATH
// and toolchain variables name (such as ~/.cargo, ~/.rustup, ~/.pyenv),
// read-only; the Go module cache read-only; salve's cache directory and the
// workspace writable; a fresh /dev and /proc; size-capped private tmpfs
// mounts on /tmp, /var/tmp and HOME. Everything else is absent: the user's
// files under HOME, the run store, other repositories, /etc/shadow, the SSH
// host keys. Credential files of [SecretPaths] inside a bound toolchain are
// hidden too. The workspace's git metadata (its .git entries, and the git
// directories they lead to inside the workspace) is bound read-only over
// the writable workspace, so that the build can neither write, rename nor
// remove it. The sandbox has no network (an empty network namespace with
// only its own loopback), its own PID, IPC and UTS namespaces, a new session
// (no terminal injection), every capability dropped (so that root inside
// cannot remount anything writable), and dies with its parent.
//
// When [Job.Caches] name caches of the user and the backend can mount
// overlays ([Bwrap.Overlay]), each cache is the read-only lower layer of an
// overlay whose upper layer is a per-job scratch directory deleted after the
// run: the build reads the user's warm cache and its writes vanish. A cache
// with a [Cache.Layer] of salve's own has that layer above the user's, read
// only too; after the run, the new files the build wrote are moved from the
// scratch directory into the layer ([Bwrap.Cleanup]), so the next build
// reuses them. Without overlays the layer is bound writable at the cache's
// place instead.
type Bwrap struct {
	// Path is the bwrap program; empty means "bwrap" looked up in PATH.
	Path string
	// Features says what this bwrap and kernel support; see [Bwrap.Detect].
	// The zero value assumes an old bwrap: no tmpfs size, no overlays.
	Features BwrapFeatures
}

// BwrapFeatures are the optional abilities of an installed bwrap.
type BwrapFeatures struct {
	// TmpfsSize: bwrap knows --size (0.8 and later), so the private tmpfs
	// mounts are capped.
	TmpfsSize bool
	// Overlay: an overlay can be mounted inside the sandbox (kernel support,
	// privileges, and setpriv to drop the capabilities after the mount).
	Overlay bool
	// File: bwrap knows --file FD DEST, so the allow-list's files of /etc
	// are copied into the sandbox instead of bound one mount each (see
	// etcFiles).
	File bool
	// UserNS: salve does not run as root, so a sandbox that mounts overlays
	// gets its own user namespace in which the setup step is uid 0 (the
	// mount program insists on it, and the overlay takes the userxattr
	// option). The build then also runs as uid 0 of that namespace, which
	// is the user on the host, with no capabilities.
	UserNS bool
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

// bwrapIsolation are the namespace and process flags shared by jobs and
// the probe.
var bwrapIsolation = []string{
	"--die-with-parent",
	"--new-session",
	"--unshare-net",
	"--unshare-pid",
	"--unshare-ipc",
	"--unshare-uts",
	"--unshare-cgroup-try",
}

// overlayCaps are the capabilities the setup step keeps until it has
// mounted the overlays; setpriv then drops every capability, from the
// bounding set too, before the build starts.
var overlayCaps = []string{"CAP_SYS_ADMIN", "CAP_SETPCAP", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_CHOWN", "CAP_MKNOD"}

// overlayRoot is where, inside the sandbox, the lower and scratch layers of
// the overlays are staged.
const overlayRoot = "/run/salve"

// systemArgs binds the system directories read-only and the allowed
// entries of /etc.
func systemArgs() []string {
	var args []string
	for _, d := range systemDirs {
		args = append(args, mirror(d, false)...)
	}
	for _, e := range EtcAllow {
		args = append(args, mirror(filepath.Join("/etc", e), false)...)
	}
	return args
}

// mirror makes host path p appear at the same path: a symlink as the same
// symlink, anything else bound (read-only unless rw). A missing p gives
// nothing.
func mirror(p string, rw bool) []string {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		if target, err := os.Readlink(p); err == nil {
			return []string{"--symlink", target, p}
		}
		return nil
	}
	if rw {
		return []string{"--bind", p, p}
	}
	return []string{"--ro-bind", p, p}
}

func (b Bwrap) tmpfs(dir string, size int64) []string {
	if b.Features.TmpfsSize && size > 0 {
		return []string{"--size", strconv.FormatInt(size, 10), "--tmpfs", dir}
	}
	return []string{"--tmpfs", dir}
}

// Args returns the bwrap arguments that run job, without the program name.
func (b Bwrap) Args(job Job) []string {
	return b.plan(job).args
}

// bwrapPlan is what running a job takes: the arguments, the variables that
// point tools at their caches, and the host directories to create first.
type bwrapPlan struct {
	args   []string
	env    map[string]string
	mkdirs []string
}

// plan lays out the sandbox of job. With overlays, salve's cache directory
// is not bound at all: the tools' own caches live in the job's scratch
// directory, and the user's caches are overlays whose writes land there
// too. Without them, salve's cache directory is bound writable and the
// user's caches that a tool can use read-only are bound read-only.
func (b Bwrap) plan(job Job) bwrapPlan {
	tmpSize := job.TmpSize
	if tmpSize == 0 {
		tmpSize = DefaultTmpSize
	}
	l := planLayout(job)
	ovs := b.overlays(job)
	// Where overlays work, every job gets a scratch directory of its own
	// for the tools' caches, even with no overlay to mount: salve's shared
	// cache directory is then never writable by a build.
	scratch := b.Features.Overlay && job.CacheDir != ""
	p := bwrapPlan{env: map[string]string{}}
	args := append([]string(nil), bwrapIsolation...)
	args = append(args, "--cap-drop", "ALL")
	if len(ovs) > 0 {
		if b.Features.UserNS {
			args = append(args, "--unshare-user", "--uid", "0", "--gid", "0")
		}
		for _, c := range overlayCaps {
			args = append(args, "--cap-add", c)
		}
	}
	args = append(args, systemArgs()...)
	args = append(args, "--dev", "/dev", "--proc", "/proc")
	args = append(args, b.tmpfs("/tmp", tmpSize)...)
	args = append(args, b.tmpfs("/var/tmp", tmpSize)...)
	if l.home != "" {
		args = append(args, b.tmpfs(l.home, homeTmpSize)...)
	}
	var bound []string
	for _, t := range l.toolchains {
		if !overlaid(t, ovs) {
			args = append(args, "--ro-bind", t, t)
			bound = append(bound, t)
		}
	}
	switch {
	case scratch:
		own := overlayRoot + "/scratch/own"
		p.env = BwrapCacheEnv(own)
		// An empty pycache prefix would make Python recompile every module
		// it imports, the standard library included, in every build (79
		// modules, a second or more, for unittest alone). Without it Python
		// reads the installed .pyc files (read-only here) and writes the
		// project's own __pycache__ in the workspace, as a local run does.
		delete(p.env, "PYTHONPYCACHEPREFIX")
		for _, v := range p.env {
			if strings.HasPrefix(v, own+"/") {
				p.mkdirs = append(p.mkdirs, filepath.Join(scratchDir(job), "own", filepath.Base(v)))
			}
		}
	case job.CacheDir != "":
		args = append(args, "--bind", job.CacheDir, job.CacheDir)
		p.env = BwrapCacheEnv(job.CacheDir)
		for k, v := range p.env {
			if k != "TMPDIR" && k != "npm_config_update_notifier" {
				p.mkdirs = append(p.mkdirs, v)
			}
		}
	default:
		p.env = BwrapCacheEnv("")
	}
	args = append(args, "--bind", job.Workspace, job.Workspace)
	args = append(args, keptArgs(job)...)
	if scratch {
		for i, o := range ovs {
			if o.lower != "" {
				args = append(args, "--ro-bind", o.lower, o.stagedLower(i))
			}
			if o.layer != "" {
				args = append(args, "--ro-bind", o.layer, o.stagedLayer(i))
				p.mkdirs = append(p.mkdirs, o.layer)
			}
			if o.base != "" {
				args = append(args, "--ro-bind", o.base, o.stagedBase(i))
				p.mkdirs = append(p.mkdirs, o.base)
			}
			args = append(args, "--dir", o.dst)
			if o.env != "" {
				p.env[o.env] = o.dst
			}
			// The layers' directories are made on the host, which spares
			// the setup step a mkdir per overlay.
			up := filepath.Join(scratchDir(job), strconv.Itoa(i))
			if o.keep != "" {
				up = o.keep
				args = append(args, "--bind", o.keep, o.stagedKeep(i))
			}
			p.mkdirs = append(p.mkdirs, filepath.Join(up, "upper"), filepath.Join(up, "work"))
		}
		args = append(args, "--bind", scratchDir(job), overlayRoot+"/scratch")
	} else {
		for _, c := range job.Caches {
			src, dst := existing(cleanAbs(c.Src)), cleanAbs(c.Dst)
			if layer := cleanAbs(c.Layer); layer != "" && c.Env != "" {
				// salve's own layer is the cache, written directly.
				args = append(args, "--bind", layer, layer)
				p.env[c.Env] = layer
				p.mkdirs = append(p.mkdirs, layer)
				continue
			}
			if !c.ReadOnlyOK || src == "" || !safeDst(dst) || (dst == src && boundUnder(src, bound)) {
				continue
			}
			args = append(args, "--ro-bind", src, dst)
			if c.Env != "" {
				p.env[c.Env] = dst
			}
		}
	}
	// The checkout's git metadata is read-only, bound after the workspace
	// and the caches so that no other bind exposes it writable: a build
	// that could write .git/hooks or core.fsmonitor in .git/config would
	// run a program on the host at the user's next git command. Each .git
	// entry is a mount point, so it cannot be renamed or removed either.
	for _, p := range gitReadOnly(job.Workspace) {
		args = append(args, "--ro-bind", p, p)
	}
	// The masks come after every bind, so no later mount can expose what
	// they hide.
	args = append(args, secretMasks(job.Env, bound)...)
	args = append(args, "--remount-ro", "/", "--chdir", job.Workspace, "--")
	if len(ovs) == 0 {
		p.args = append(args, "sh", "-c", job.Script)
		return p
	}
	opts := ""
	if b.Features.UserNS {
		opts = "userxattr,"
	}
	args = append(args, "sh", "-c", overlaySetup, "salve-setup", opts)
	for i, o := range ovs {
		args = append(args, o.lowerdir(i), o.upper(i), o.dst)
	}
	p.args = append(args, "--", job.Script)
	return p
}

func boundUnder(p string, roots []string) bool {
	for _, r := range roots {
		if within(p, r) {
			return true
		}
	}
	return false
}

// safeDst reports whether a cache may be mounted at dst: an absolute path
// outside the system directories and salve's staging area.
func safeDst(dst string) bool {
	return dst != "" && dst != "/" && !inSystem(dst) && !within(dst, "/etc") && !within(dst, "/proc") &&
		!within(dst, "/dev") && !within(dst, overlayRoot) && !within(overlayRoot, dst)
}

// overlaySetup is the fixed setup step of a sandbox with overlays. Its
// arguments are the extra mount options (empty, or "userxattr," in a user
// namespace), triples (staged lower layers, colon-separated, top first;
// the directory of the upper and work directories: the job's scratch, or
// a kept one; mount point),
// then "--" and the build's script. It mounts each overlay and only
// then runs the script through setpriv with every capability dropped (the
// bounding set too) and no new privileges. Any failure stops it before
// the build runs.
const overlaySetup = `set -eu
opts=$1
shift
while [ "$1" != "--" ]; do
	mount -t overlay overlay -o "${opts}lowerdir=$1,upperdir=$2/upper,workdir=$2/work" "$3"
	shift 3
done
shift
exec setpriv --bounding-set=-all --inh-caps=-all --ambient-caps=-all --no-new-privs -- sh -c "$1"`

// overlay is one user cache mounted copy-on-write in the sandbox.
type overlay struct {
	lower string // the user's directory on the host; empty when none
	layer string // salve's own layer on the host, above lower; empty when none
	base  string // salve's read-only layer between layer and lower; empty when none
	dst   string // the mount point inside the sandbox
	env   string // the variable that names dst, if any
	keep  string // the host directory of a kept upper layer (Cache.Keep); empty: the job's scratch
}

func (o overlay) stagedLower(i int) string { return fmt.Sprintf("%s/lower/%d", overlayRoot, i) }
func (o overlay) stagedKeep(i int) string  { return fmt.Sprintf("%s/keep/%d", overlayRoot, i) }
func (o overlay) stagedLayer(i int) string { return fmt.Sprintf("%s/layer/%d", overlayRoot, i) }
func (o overlay) stagedBase(i int) string  { return fmt.Sprintf("%s/base/%d", overlayRoot, i) }

// upper is where the setup step finds the overlay's upper and work
// directories inside the sandbox: the kept directory, else the job's
// scratch.
func (o overlay) upper(i int) string {
	if o.keep != "" {
		return o.stagedKeep(i)
	}
	return fmt.Sprintf("%s/scratch/%d", overlayRoot, i)
}

// lowerdir is the overlay's lowerdir option: salve's layer above its
// read-only base, above the user's cache.
func (o overlay) lowerdir(i int) string {
	var dirs []string
	if o.layer != "" {
		dirs = append(dirs, o.stagedLayer(i))
	}
	if o.base != "" {
		dirs = append(dirs, o.stagedBase(i))
	}
	if o.lower != "" {
		dirs = append(dirs, o.stagedLower(i))
	}
	return strings.Join(dirs, ":")
}

func overlaid(p string, ovs []overlay) bool {
	for _, o := range ovs {
		if o.lower == p {
			return true
		}
	}
	return false
}

// overlays returns the job's caches that this backend mounts as overlays:
// none unless overlays work here and the job has a cache directory (which
// holds the scratch directories), and only caches that exist on the host
// or have a layer of salve's (inside the cache directory, where
// [Bwrap.Cleanup] can move the build's new files into it).
func (b Bwrap) overlays(job Job) []overlay {
	if !b.Features.Overlay || job.CacheDir == "" {
		return nil
	}
	var out []overlay
	for _, c := range job.Caches {
		lower, dst := existing(cleanAbs(c.Src)), cleanAbs(c.Dst)
		layer := cleanAbs(c.Layer)
		if layer != "" && (layer == cleanAbs(job.CacheDir) || !within(layer, cleanAbs(job.CacheDir))) {
			layer = ""
		}
		base := cleanAbs(c.Base)
		if layer == "" || base == layer || !within(base, cleanAbs(job.CacheDir)) {
			base = ""
		}
		if (lower == "" && layer == "") || !safeDst(dst) {
			continue
		}
		keep := cleanAbs(c.Keep)
		if keep != "" && (keep == cleanAbs(job.CacheDir) || !within(keep, cleanAbs(job.CacheDir)) || layer != "") {
			keep = "" // a layer of salve's keeps what it needs already
		}
		out = append(out, overlay{lower: lower, layer: layer, base: base, dst: dst, env: c.Env, keep: keep})
	}
	return out
}

// keptArgs binds the job's kept directories ([Job.Kept]) that lie inside
// its cache directory and exist as directories, at their own paths.
func keptArgs(job Job) []string {
	var args []string
	cache := cleanAbs(job.CacheDir)
	for _, k := range job.Kept {
		p := cleanAbs(k.Path)
		if cache == "" || p == "" || p == cache || !within(p, cache) {
			continue
		}
		if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
			continue
		}
		if k.Writable {
			args = append(args, "--bind", p, p)
		} else {
			args = append(args, "--ro-bind", p, p)
		}
	}
	return args
}

// scratchDir is the host directory that holds the upper layers of a job's
// overlays; [Bwrap.Cleanup] removes it.
func scratchDir(job Job) string {
	return filepath.Join(job.CacheDir, "scratch", job.Name)
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

// Command builds the bwrap command line for job. It creates the cache
// directories it points tools at (under job.CacheDir, or the job's
// overlay scratch directory) on the host.
func (b Bwrap) Command(job Job) (Cmd, error) {
	if err := checkJob(job); err != nil {
		return Cmd{}, err
	}
	if job.CacheDir != "" && !filepath.IsAbs(job.CacheDir) {
		return Cmd{}, fmt.Errorf("cache dir %q is not absolute", job.CacheDir)
	}
	p := b.plan(job)
	for _, dir := range p.mkdirs {
		// An overlay's root takes the mode of its upper layer: 0755, as a
		// cache directory has; the scratch directory above stays private.
		mode := os.FileMode(0o700)
		if filepath.Base(dir) == "upper" {
			mode = 0o755
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return Cmd{}, fmt.Errorf("create cache dir: %w", err)
		}
		if err := os.Chmod(dir, mode); err != nil {
			return Cmd{}, fmt.Errorf("create cache dir: %w", err)
		}
	}
	args := p.args
	var files []*os.File
	if b.Features.File {
		args, files = etcFiles(args, "/etc")
	}
	c := baseCmd(job, b.path(), args, MergeEnv(job.Env, p.env))
	c.Files = files
	return c, nil
}

// Detect returns b with its Features found: whether bwrap knows --size
// and --file (from its help text) and whether an overlay can be mounted in
// a sandbox here (by mounting one, in a sandbox laid out as a build's). It
// never fails: what cannot be confirmed is off.
func (b Bwrap) Detect(ctx context.Context) Bwrap {
	res, err := Run(ctx, Cmd{Path: b.path(), Args: []string{"--help"}, Timeout: DefaultProbeTimeout,
		Combined: true, MaxOutput: 64 << 10})
	if err == nil {
		b.Features.TmpfsSize = strings.Contains(string(res.Stdout), "--size")
		b.Features.File = strings.Contains(string(res.Stdout), "--file ")
	}
	b.Features.UserNS = os.Geteuid() != 0
	b.Features.Overlay = b.probeOverlay(ctx)
	return b
}

// probeOverlay mounts an overlay of an empty directory in a sandbox like
// a job's, writes through it, and checks that the lower layer is unchanged.
func (b Bwrap) probeOverlay(ctx context.Context) bool {
	dir, err := os.MkdirTemp("", "salve-overlay-probe-")
	if err != nil {
		return false
	}
	defer os.RemoveAll(dir)
	lower, ws, cache := filepath.Join(dir, "lower"), filepath.Join(dir, "ws"), filepath.Join(dir, "cache")
	for _, d := range []string{lower, ws, cache} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return false
		}
	}
	probe := b
	probe.Features.Overlay = true
	job := Job{Workspace: ws, CacheDir: cache, Name: "probe", Env: []string{"PATH=/usr/bin:/bin"},
		Script: `echo x > "$SALVE_PROBE/f" && grep -q '^CapBnd:[[:space:]]*0*$' /proc/self/status`,
		Caches: []Cache{{Src: lower, Dst: "/run/salve-probe", Env: "SALVE_PROBE"}}}
	c, err := probe.Command(job)
	if err != nil {
		return false
	}
	c.Timeout, c.MaxOutput = DefaultProbeTimeout, 4096
	res, err := Run(ctx, c)
	_ = probe.Cleanup(ctx, job)
	if err != nil || res.ExitCode != 0 {
		return false
	}
	_, err = os.Stat(filepath.Join(lower, "f"))
	return os.IsNotExist(err)
}

// probeJob runs "true" as a job, laid out as a build's with b's features:
// where overlays do not work, it says whether the rest of the layout (the
// copies of /etc's files) does.
func (b Bwrap) probeJob(ctx context.Context) error {
	ws, err := os.MkdirTemp("", "salve-bwrap-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(ws)
	res, err := RunJob(ctx, b, Job{Workspace: ws, Name: "probe", Env: []string{"PATH=/usr/bin:/bin"}, Script: "true",
		Timeout: DefaultProbeTimeout, MaxOutput: 4096})
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("exit %d: %s", res.ExitCode, strings.TrimSpace(string(res.Stdout)))
	}
	return nil
}

// Probe runs "true" inside a sandbox with the same isolation flags, so that
// a bwrap that is installed but cannot create namespaces here (some
// containers forbid it) is reported unavailable.
func (b Bwrap) Probe(ctx context.Context, _ string) error {
	args := append(append([]string(nil), bwrapIsolation...), "--cap-drop", "ALL")
	args = append(append(args, systemArgs()...), "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", "true")
	res, err := Run(ctx, Cmd{
		Path: b.path(), Args: args, Timeout: DefaultProbeTimeout, Combined: true,
		MaxOutput: 4096, Env: []string{"PATH=/usr/bin:/bin"},
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

// Cleanup moves the new files of each overlay that has a layer of salve's
// into that layer (see [commitLayer]), removes the job's overlay scratch
// directory, if any, and the empty mount points it made in the workspace
// for shared caches. The group kill and --die-with-parent already ended
// every process in the sandbox's PID namespace, so nothing writes the
// scratch directory any more.
func (b Bwrap) Cleanup(_ context.Context, job Job) error {
	var errs []error
	for i, o := range b.overlays(job) {
		if o.layer == "" {
			continue
		}
		upper := filepath.Join(scratchDir(job), strconv.Itoa(i), "upper")
		if err := commitLayer(job.CacheDir, upper, o.layer, o.base, o.lower); err != nil {
			errs = append(errs, err)
		}
	}
	for _, c := range job.Caches {
		if dst := cleanAbs(c.Dst); dst != job.Workspace && within(dst, job.Workspace) {
			_ = os.Remove(dst) // only when empty: nothing the build made is lost
		}
	}
	if job.CacheDir == "" || job.Name == "" {
		return errors.Join(errs...)
	}
	if err := os.RemoveAll(scratchDir(job)); err != nil {
		errs = append(errs, fmt.Errorf("remove overlay scratch: %w", err))
	}
	return errors.Join(errs...)
}
