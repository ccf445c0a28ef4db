package registry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// EnvDB is the environment variable that names the registry file when no
// explicit path is given.
const EnvDB = "SALVE_REGISTRY_DB"

// DefaultFileName is the file name of the registry inside the per-user data
// directory.
const DefaultFileName = "registry.db"

// ResolvePath returns the registry file to use: explicit when it is not
// empty (the --registry-db flag), else the value of [EnvDB], else
// [DefaultPath]. getenv is usually os.Getenv; nil means os.Getenv.
func ResolvePath(explicit string, getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if explicit != "" {
		return explicit, nil
	}
	if p := getenv(EnvDB); p != "" {
		return p, nil
	}
	return DefaultPath(getenv)
}

// DefaultPath returns the per-user registry file: $XDG_DATA_HOME/salve/
// registry.db when XDG_DATA_HOME is set, else ~/.local/share/salve/registry.db
// on Unix systems, else salve/registry.db under [os.UserConfigDir].
func DefaultPath(getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if x := getenv("XDG_DATA_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "salve", DefaultFileName), nil
	}
	if runtime.GOOS != "windows" && runtime.GOOS != "darwin" && runtime.GOOS != "plan9" {
		if home := getenv("HOME"); home != "" {
			return filepath.Join(home, ".local", "share", "salve", DefaultFileName), nil
		}
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("registry: no per-user data directory: %w", err)
	}
	if dir == "" {
		return "", errors.New("registry: no per-user data directory")
	}
	return filepath.Join(dir, "salve", DefaultFileName), nil
}
