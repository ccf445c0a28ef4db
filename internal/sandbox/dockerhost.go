package sandbox

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// DefaultDockerSocket is where the docker CLI looks for its engine when
// nothing names another: no DOCKER_HOST, no DOCKER_CONTEXT, no current
// context in its configuration.
const DefaultDockerSocket = "/var/run/docker.sock"

// dockerUnreachable says why the docker CLI would find no engine, without
// starting it: the CLI's own rules lead to the default socket and nothing
// is there. "" means the CLI must be asked (something names another
// engine, or a socket exists, or the configuration cannot be read).
// Asking costs a process start and, for an engine that does not answer,
// up to a quarter of a second; the probe of auto isolation asks on every
// heal.
func dockerUnreachable(getenv func(string) string, lstat func(string) (fs.FileInfo, error), readFile func(string) ([]byte, error)) string {
	if getenv("DOCKER_HOST") != "" || getenv("DOCKER_CONTEXT") != "" {
		return ""
	}
	dir := getenv("DOCKER_CONFIG")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".docker")
	}
	b, err := readFile(filepath.Join(dir, "config.json"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return ""
	default:
		var cfg struct {
			CurrentContext string `json:"currentContext"`
		}
		if json.Unmarshal(b, &cfg) != nil || (cfg.CurrentContext != "" && cfg.CurrentContext != "default") {
			return ""
		}
	}
	if _, err := lstat(DefaultDockerSocket); !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	return "no engine: DOCKER_HOST, DOCKER_CONTEXT and a current context are unset, and " + DefaultDockerSocket + " does not exist"
}

// osDockerUnreachable is dockerUnreachable of this process. On Windows
// the engine's default is a named pipe, not a socket: the CLI is asked.
func osDockerUnreachable() string {
	if runtime.GOOS == "windows" {
		return ""
	}
	return dockerUnreachable(os.Getenv, os.Lstat, os.ReadFile)
}
