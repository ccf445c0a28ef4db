package registry

import (
	"fmt"
	"os"

	"github.com/salve-dev/salve/internal/statedir"
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

// DefaultPath returns the per-user registry file: registry.db in salve's
// data folder ($XDG_DATA_HOME/salve, else ~/.local/share/salve; see
// [statedir.Data]).
func DefaultPath(getenv func(string) string) (string, error) {
	p, err := statedir.Data(getenv, DefaultFileName)
	if err != nil {
		return "", fmt.Errorf("registry: no per-user data directory: %w", err)
	}
	return p, nil
}
