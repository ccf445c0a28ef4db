package main

import "testing"

func TestWorkerForges(t *testing.T) {
	env := map[string]string{"GH_TOKEN": "gh", "GITLAB_TOKEN": "gl", "CI_API_V4_URL": "https://git.corp.example/api/v4", "GITHUB_API_URL": "https://ghe.corp.example/api/v3"}
	f := workerForges(func(k string) string { return env[k] })
	if f.GitHubToken != "gh" || f.GitLabToken != "gl" || f.GitLabAPI != "https://git.corp.example/api/v4" || f.GitHubAPI != "https://ghe.corp.example/api/v3" {
		t.Errorf("workerForges = %+v", f)
	}
	env = map[string]string{"GITHUB_TOKEN": "a", "GH_TOKEN": "b", "GITLAB_API_URL": "https://gl.example/api/v4", "CI_API_V4_URL": "https://ci.example/api/v4"}
	f = workerForges(func(k string) string { return env[k] })
	if f.GitHubToken != "a" || f.GitLabToken != "" || f.GitLabAPI != "https://gl.example/api/v4" {
		t.Errorf("workerForges = %+v, want GITHUB_TOKEN first and GITLAB_API_URL before CI_API_V4_URL", f)
	}
}

func TestLoopbackListen(t *testing.T) {
	for hp, want := range map[string]bool{
		"127.0.0.1:4222": true, "localhost:0": true, "[::1]:4222": true,
		"0.0.0.0:4222": false, ":4222": false, "10.0.0.5:4222": false, "nats.example:4222": false, "bad": false,
	} {
		if got := loopbackListen(hp); got != want {
			t.Errorf("loopbackListen(%q) = %v, want %v", hp, got, want)
		}
	}
}
