package server

import (
	"slices"
	"testing"
)

// TestConfigEnv: of git's environment configuration only
// http.extraHeader (bare or scoped to an https URL) passes, renumbered
// from 0 with its count; every other key, a value with a line break, and
// a malformed count pass nothing.
func TestConfigEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		want []string
	}{
		{"none", []string{"PATH=/bin"}, nil},
		{"scoped header", []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.https://github.com/.extraheader", "GIT_CONFIG_VALUE_0=AUTHORIZATION: basic eA=="},
			[]string{"GIT_CONFIG_KEY_0=http.https://github.com/.extraheader", "GIT_CONFIG_VALUE_0=AUTHORIZATION: basic eA==", "GIT_CONFIG_COUNT=1"}},
		{"reset then header, any case", []string{"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=http.extraHeader", "GIT_CONFIG_VALUE_0=", "GIT_CONFIG_KEY_1=HTTP.extraheader", "GIT_CONFIG_VALUE_1=A: b"},
			[]string{"GIT_CONFIG_KEY_0=http.extraHeader", "GIT_CONFIG_VALUE_0=", "GIT_CONFIG_KEY_1=HTTP.extraheader", "GIT_CONFIG_VALUE_1=A: b", "GIT_CONFIG_COUNT=2"}},
		{"program-running keys dropped, the rest renumbered", []string{"GIT_CONFIG_COUNT=3",
			"GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0=/tmp/hooks",
			"GIT_CONFIG_KEY_1=core.sshCommand", "GIT_CONFIG_VALUE_1=touch /tmp/pwned",
			"GIT_CONFIG_KEY_2=http.https://ghe.corp.example/.extraheader", "GIT_CONFIG_VALUE_2=A: b"},
			[]string{"GIT_CONFIG_KEY_0=http.https://ghe.corp.example/.extraheader", "GIT_CONFIG_VALUE_0=A: b", "GIT_CONFIG_COUNT=1"}},
		{"plain http scope", []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.http://example.com/.extraheader", "GIT_CONFIG_VALUE_0=A: b"}, nil},
		{"other http keys", []string{"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=http.sslVerify", "GIT_CONFIG_VALUE_0=false",
			"GIT_CONFIG_KEY_1=http.proxy", "GIT_CONFIG_VALUE_1=http://evil"}, nil},
		{"header smuggling a line", []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.extraheader", "GIT_CONFIG_VALUE_0=A: b\r\nHost: evil"}, nil},
		{"key with a space in the URL", []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.https://a b/.extraheader", "GIT_CONFIG_VALUE_0=A: b"}, nil},
		{"count beyond the keys", []string{"GIT_CONFIG_COUNT=4", "GIT_CONFIG_KEY_0=http.extraheader", "GIT_CONFIG_VALUE_0=A: b"},
			[]string{"GIT_CONFIG_KEY_0=http.extraheader", "GIT_CONFIG_VALUE_0=A: b", "GIT_CONFIG_COUNT=1"}},
		{"malformed count", []string{"GIT_CONFIG_COUNT=x", "GIT_CONFIG_KEY_0=http.extraheader", "GIT_CONFIG_VALUE_0=A: b"}, nil},
		{"negative count", []string{"GIT_CONFIG_COUNT=-1", "GIT_CONFIG_KEY_0=http.extraheader", "GIT_CONFIG_VALUE_0=A: b"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ConfigEnv(tc.env); !slices.Equal(got, tc.want) {
				t.Errorf("ConfigEnv = %q, want %q", got, tc.want)
			}
		})
	}
}
