package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	replies := filepath.Join(dir, "replies.json")
	record := filepath.Join(dir, "requests.jsonl")
	if err := os.WriteFile(replies, []byte(`[{"text":"one"},{"status":429,"header":{"Retry-After":"2"}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"-replies", replies, "-record", record}, pw, &stderr)
		pw.Close()
	}()
	url, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url = strings.TrimSpace(url)
	want := []struct {
		path   string
		status int
		body   string
	}{
		{"/v1/chat/completions", 200, `"content":"one"`},
		{"/v1/messages", 429, `"rate_limit_error"`},
		{"/api/chat", 500, "no scripted reply left"},
	}
	for _, w := range want {
		resp, err := http.Post(url+w.path, "application/json", strings.NewReader(`{"model":"m","stream":false}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != w.status || !strings.Contains(string(b), w.body) {
			t.Errorf("%s: %d %s", w.path, resp.StatusCode, b)
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(lines), "\n"); n != 3 || !strings.Contains(string(lines), `"wire":"anthropic"`) {
		t.Fatalf("recorded %d lines: %s", n, lines)
	}
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{`), 0o644)
	tests := []struct {
		args []string
		code int
	}{
		{nil, 2},
		{[]string{"-nope"}, 2},
		{[]string{"-replies", filepath.Join(dir, "missing.json")}, 1},
		{[]string{"-replies", bad}, 1},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if code := run(context.Background(), tt.args, &out, &errb); code != tt.code || out.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q; want %d", tt.args, code, out.String(), tt.code)
		}
	}
}
