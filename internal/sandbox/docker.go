package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Container runs the script in a throw-away container through the docker or
// podman CLI: no network, the workspace bind-mounted at the same path (so
// paths in the log match the host), a private /tmp, and an init process that
// reaps strays. A timeout kills the CLI's process group, and Cleanup then
// removes the container by name, so nothing keeps running in the engine.
type Container struct {
	// Engine is "docker" or "podman".
	Engine string
	// Path is the CLI program; empty means Engine looked up in PATH.
	Path string
}

var _ Backend = Container{}

// Name returns the engine name.
func (c Container) Name() string { return c.Engine }

func (c Container) path() string {
	if c.Path != "" {
		return c.Path
	}
	return c.Engine
}

// hostOnlyEnv lists variables that name host paths or the host user, and so
// mean nothing inside an image: [ContainerEnv] drops them.
var hostOnlyEnv = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true, "TMPDIR": true,
	"GOPATH": true, "GOROOT": true, "GOCACHE": true, "GOMODCACHE": true,
	"CARGO_HOME": true, "RUSTUP_HOME": true, "JAVA_HOME": true, "GRADLE_USER_HOME": true,
	"PYENV_ROOT": true, "VIRTUAL_ENV": true, "PYTHONPATH": true, "NODE_PATH": true,
	"NPM_CONFIG_CACHE": true, "PKG_CONFIG_PATH": true,
}

// engineEnv lists the variables the docker and podman clients themselves
// read to find their engine.
var engineEnv = []string{
	"PATH", "HOME", "DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG", "DOCKER_CERT_PATH",
	"DOCKER_TLS_VERIFY", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "CONTAINER_HOST", "CONTAINERS_CONF",
}

// ContainerEnv returns the entries of env that are passed into a container:
// all but the host-path variables of hostOnlyEnv, sorted.
func ContainerEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		k, _, ok := strings.Cut(kv, "=")
		if ok && k != "" && !hostOnlyEnv[k] {
			out = append(out, kv)
		}
	}
	sort.Strings(out)
	return out
}

// Args returns the CLI arguments that run job, without the program name.
// uid and gid are the host user's: a non-root docker user runs as itself in
// the container, a rootless podman keeps its id; root stays root. Variable
// values are not on the command line: "--env NAME" takes them from the
// client's environment, which [Container.Command] fills.
//
// The workspace's git metadata (see [Bwrap]) is mounted read-only over the
// workspace; a path a volume option cannot name (one holding ':' or ',')
// is left out here, and refused by [Container.Command].
func (c Container) Args(job Job, uid, gid int) []string {
	return c.args(job, uid, gid, gitReadOnly(job.Workspace))
}

// args is Args with the read-only git paths given.
func (c Container) args(job Job, uid, gid int, gitPaths []string) []string {
	args := []string{
		"run", "--rm", "--name", job.Name,
		"--network", "none", "--init",
		"--volume", job.Workspace + ":" + job.Workspace,
	}
	for _, p := range gitPaths {
		if !strings.ContainsAny(p, ":,") {
			args = append(args, "--volume", p+":"+p+":ro")
		}
	}
	args = append(args,
		"--workdir", job.Workspace,
		"--tmpfs", "/tmp",
		"--label", "dev.salve.exec=1",
	)
	if uid != 0 {
		if c.Engine == IsolationPodman {
			args = append(args, "--userns", "keep-id")
		} else {
			args = append(args, "--user", strconv.Itoa(uid)+":"+strconv.Itoa(gid))
		}
		args = append(args, "--env", "HOME=/tmp")
	}
	for _, c := range containerCaches(job) {
		args = append(args, "--volume", c.Src+":"+c.Dst+":ro")
		if c.Env != "" {
			args = append(args, "--env", c.Env)
		}
	}
	for _, c := range containerLayers(job) {
		args = append(args, "--volume", c.Layer+":"+c.Dst, "--env", c.Env)
	}
	for _, kv := range ContainerEnv(job.Env) {
		k, _, _ := strings.Cut(kv, "=")
		args = append(args, "--env", k)
	}
	return append(args, job.Image, "sh", "-c", job.Script)
}

// Command builds the engine command line for job, naming the container
// when job.Name is empty (the name is then lost to Cleanup, so callers that
// care set it; see [ContainerName]).
func (c Container) Command(job Job) (Cmd, error) {
	if err := checkJob(job); err != nil {
		return Cmd{}, err
	}
	if job.Image == "" {
		return Cmd{}, errors.New("no container image")
	}
	if job.Name == "" {
		job.Name = ContainerName()
	}
	gitPaths := gitReadOnly(job.Workspace)
	for _, p := range gitPaths {
		if strings.ContainsAny(p, ":,") {
			return Cmd{}, fmt.Errorf("git metadata %q cannot be mounted read-only: its path holds ':' or ','", p)
		}
	}
	env := append(clientEnv(), ContainerEnv(job.Env)...)
	for _, c := range containerCaches(job) {
		if c.Env != "" {
			env = append(env, c.Env+"="+c.Dst)
		}
	}
	for _, c := range containerLayers(job) {
		if err := os.MkdirAll(c.Layer, 0o700); err != nil {
			return Cmd{}, fmt.Errorf("create cache layer: %w", err)
		}
		env = append(env, c.Env+"="+c.Dst)
	}
	return baseCmd(job, c.path(), c.args(job, os.Getuid(), os.Getgid(), gitPaths), env), nil
}

// containerCacheRoot is where, in a container, the user's caches that have
// a variable of their own are mounted.
const containerCacheRoot = "/salve-cache"

// containerCaches returns the job's caches a container mounts read-only,
// with Dst set to the path inside: the ones a tool can use read-only and
// that it finds through a variable (mounted under /salve-cache) or that lie
// in the workspace (mounted at the same path). The others are not shared:
// the container builds with its own, and --rm throws them away.
func containerCaches(job Job) []Cache {
	var out []Cache
	for _, c := range job.Caches {
		src, dst := existing(cleanAbs(c.Src)), cleanAbs(c.Dst)
		if !c.ReadOnlyOK || src == "" || strings.ContainsAny(src+dst, ":,") {
			continue
		}
		switch {
		case dst != job.Workspace && within(dst, job.Workspace):
		case c.Env != "" && c.Name != "":
			dst = containerCacheRoot + "/" + c.Name
		default:
			continue
		}
		c.Src, c.Dst = src, dst
		out = append(out, c)
	}
	return out
}

// containerLayers returns the job's caches with a layer of salve's and a
// variable that points the tool at them, with Dst set to the path inside:
// a container cannot see the user's cache under it, so the layer, mounted
// writable under /salve-cache, is the tool's cache (per repository, like
// the layer; see docs/executor.md §Caches).
func containerLayers(job Job) []Cache {
	var out []Cache
	for _, c := range job.Caches {
		layer := cleanAbs(c.Layer)
		if layer == "" || c.Env == "" || c.Name == "" || strings.ContainsAny(layer, ":,") {
			continue
		}
		c.Layer, c.Dst = layer, containerCacheRoot+"/"+c.Name
		out = append(out, c)
	}
	return out
}

// ContainerName returns a fresh, unique container name.
func ContainerName() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "salve-exec-" + hex.EncodeToString(b[:])
}

func clientEnv() []string {
	var out []string
	for _, k := range engineEnv {
		if v, ok := os.LookupEnv(k); ok {
			out = append(out, k+"="+v)
		}
	}
	return out
}

// Probe checks that the engine answers ("info"), and, when image is given,
// that the image is already present, so that a probe never pulls. A docker
// that could only reach the default socket, where there is none, is not
// started at all (see dockerUnreachable).
func (c Container) Probe(ctx context.Context, image string) error {
	if c.Engine == IsolationDocker {
		if why := osDockerUnreachable(); why != "" {
			return fmt.Errorf("sandbox: docker: %w: %s", ErrBackendUnavailable, why)
		}
	}
	if err := c.engineOK(ctx, "info", "--format", "{{.ServerVersion}}"); err != nil {
		return err
	}
	if image == "" {
		return nil
	}
	if err := c.engineOK(ctx, "image", "inspect", "--format", "{{.Id}}", image); err != nil {
		return fmt.Errorf("image %s not present: %w", image, err)
	}
	return nil
}

func (c Container) engineOK(ctx context.Context, args ...string) error {
	res, err := Run(ctx, Cmd{Path: c.path(), Args: args, Env: clientEnv(), Timeout: DefaultProbeTimeout,
		Combined: true, MaxOutput: 4096})
	if err != nil {
		return fmt.Errorf("sandbox: %s: %w: %w", c.Engine, ErrBackendUnavailable, err)
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("sandbox: %s %s: %w: exit %d: %s", c.Engine, args[0], ErrBackendUnavailable,
			res.ExitCode, firstLineOf(res.Stdout))
	}
	return nil
}

// Cleanup removes the container by name ("rm --force"). A container that
// is already gone (the normal case, thanks to --rm) is not an error.
func (c Container) Cleanup(ctx context.Context, job Job) error {
	for _, cc := range containerCaches(job) {
		if within(cc.Dst, job.Workspace) {
			_ = os.Remove(cc.Dst) // the engine's empty mount point, only when empty
		}
	}
	if job.Name == "" {
		return nil
	}
	_, err := Run(ctx, Cmd{Path: c.path(), Args: []string{"rm", "--force", job.Name}, Env: clientEnv(),
		Timeout: DefaultProbeTimeout, Combined: true, MaxOutput: 4096})
	if err != nil {
		return fmt.Errorf("remove container %s: %w", job.Name, err)
	}
	return nil
}

func firstLineOf(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
