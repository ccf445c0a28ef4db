package gitagent

import (
	"context"
	"encoding/base64"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/sandbox"
)

// TestClientExtraEnv: the entries ExtraEnv returns reach the agent, whose
// git environment keeps the http.extraHeader configuration and drops
// every other key; the credential never comes back in the agent's
// output; ExtraEnv is asked with each request's action, and its error
// fails the request.
func TestClientExtraEnv(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const token = "ghs_installationTokenValue1234"
	header := "AUTHORIZATION: basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+token))
	var actions []string
	fail := false
	c := &Client{Binary: self, NoRegister: true, Env: sandbox.MergeEnv(ClientEnv(), map[string]string{fakeAgentEnv: "git-config-env"}),
		ExtraEnv: func(_ context.Context, action string) ([]string, error) {
			actions = append(actions, action)
			if fail {
				return nil, errors.New("no token today")
			}
			return []string{"GIT_CONFIG_COUNT=3",
				"GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0=/tmp/hooks",
				"GIT_CONFIG_KEY_1=http.https://github.com/.extraheader", "GIT_CONFIG_VALUE_1=",
				"GIT_CONFIG_KEY_2=http.https://github.com/.extraheader", "GIT_CONFIG_VALUE_2=" + header}, nil
		}}
	resp, err := c.Do(context.Background(), contract.GitAgentCommandV1{Type: contract.ActionGitStatus})
	if err != nil {
		t.Fatal(err)
	}
	got := resp.Result.Data
	for _, want := range []string{"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=http.https://github.com/.extraheader", "GIT_CONFIG_VALUE_0=",
		"GIT_CONFIG_KEY_1=http.https://github.com/.extraheader", "GIT_CONFIG_VALUE_1=[masked]"} {
		if !strings.Contains(got, want) {
			t.Errorf("the agent's git environment lacks %q:\n%s", want, got)
		}
	}
	for _, leak := range []string{"hooksPath", token, header[len("AUTHORIZATION: basic "):]} {
		if strings.Contains(got, leak) || strings.Contains(string(resp.Raw), leak) {
			t.Errorf("%q reached the output:\n%s", leak, got)
		}
	}
	fail = true
	if _, err := c.Do(context.Background(), contract.GitAgentCommandV1{Type: contract.ActionGitPush}); err == nil || !strings.Contains(err.Error(), "no token today") {
		t.Errorf("a failing ExtraEnv: err %v", err)
	}
	if strings.Join(actions, ",") != "git_status,git_push" {
		t.Errorf("ExtraEnv asked for %q", actions)
	}
}
