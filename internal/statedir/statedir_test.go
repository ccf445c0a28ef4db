package statedir_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/salve-dev/salve/internal/statedir"
)

func TestDirs(t *testing.T) {
	for _, tc := range []struct {
		name      string
		env       map[string]string
		state     string
		data      string
		wantError bool
	}{
		{name: "xdg", env: map[string]string{"XDG_STATE_HOME": "/s", "XDG_DATA_HOME": "/d", "HOME": "/h"}, state: "/s/salve/x", data: "/d/salve/x"},
		{name: "home", env: map[string]string{"HOME": "/h"}, state: "/h/.local/state/salve/x", data: "/h/.local/share/salve/x"},
		{name: "relative xdg ignored", env: map[string]string{"XDG_STATE_HOME": "rel", "XDG_DATA_HOME": "rel", "HOME": "/h"}, state: "/h/.local/state/salve/x", data: "/h/.local/share/salve/x"},
		{name: "userprofile without HOME", env: map[string]string{"USERPROFILE": "/u"}, state: "/u/.local/state/salve/x", data: "/u/.local/share/salve/x"},
		{name: "relative home refused", env: map[string]string{"HOME": "h"}, wantError: true},
		{name: "nothing set", env: map[string]string{}, wantError: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string { return tc.env[k] }
			for _, c := range []struct {
				kind string
				fn   func(func(string) string, ...string) (string, error)
				want string
			}{{"state", statedir.State, tc.state}, {"data", statedir.Data, tc.data}} {
				got, err := c.fn(getenv, "x")
				if tc.wantError {
					if !errors.Is(err, statedir.ErrNoHome) {
						t.Errorf("%s = %q, %v; want ErrNoHome", c.kind, got, err)
					}
					continue
				}
				if err != nil || got != filepath.FromSlash(c.want) {
					t.Errorf("%s = %q, %v; want %q", c.kind, got, err, c.want)
				}
			}
		})
	}
}
