// Package statedir is the one rule of where salve keeps its files on the
// user's machine: records (the run store, run logs) under the XDG state
// directory, lasting data (the tool registry, heal worktrees) under the XDG
// data directory, each in a folder named salve.
//
// A base directory comes from $XDG_STATE_HOME or $XDG_DATA_HOME when that is
// an absolute path (the XDG Base Directory rule: a relative value is
// ignored), else from $HOME/.local/state or $HOME/.local/share, else (on
// Windows, where there is no HOME) from %USERPROFILE%. getenv is usually
// os.Getenv; nil means os.Getenv.
package statedir

import (
	"errors"
	"os"
	"path/filepath"
)

// App is the name of salve's folder inside each base directory.
const App = "salve"

// ErrNoHome is returned when neither the XDG variable nor a home folder
// names where the files go.
var ErrNoHome = errors.New("statedir: no absolute XDG directory and no home folder")

// State returns salve's state folder joined with elem: records that may be
// lost without harm ($XDG_STATE_HOME/salve, else ~/.local/state/salve).
func State(getenv func(string) string, elem ...string) (string, error) {
	return dir(getenv, "XDG_STATE_HOME", "state", elem)
}

// Data returns salve's data folder joined with elem: files that should last
// ($XDG_DATA_HOME/salve, else ~/.local/share/salve).
func Data(getenv func(string) string, elem ...string) (string, error) {
	return dir(getenv, "XDG_DATA_HOME", "share", elem)
}

// dir applies the rule for one XDG variable and its ~/.local fallback.
func dir(getenv func(string) string, xdg, local string, elem []string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	base := getenv(xdg)
	if !filepath.IsAbs(base) {
		home := getenv("HOME")
		if home == "" {
			home = getenv("USERPROFILE")
		}
		if !filepath.IsAbs(home) {
			return "", ErrNoHome
		}
		base = filepath.Join(home, ".local", local)
	}
	return filepath.Join(append([]string{base, App}, elem...)...), nil
}
