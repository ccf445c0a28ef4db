package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// includeTree writes files (path → content) under a fresh directory that
// holds the prompt tree in "p/" and a neighbour outside it.
func includeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(content, "->") {
			if err := os.Symlink(strings.TrimPrefix(content, "->"), path); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestResolveIncludes(t *testing.T) {
	deep := map[string]string{"p/main.ai": "${include:d" + itoa(1) + ".md}"}
	for i := 1; i <= MaxIncludeDepth+1; i++ {
		deep["p/d"+itoa(i)+".md"] = "${include:d" + itoa(i+1) + ".md}"
	}
	deep["p/d"+itoa(MaxIncludeDepth+2)+".md"] = "bottom"
	cases := []struct {
		name  string
		files map[string]string
		want  string
		err   string
	}{
		{name: "none", files: map[string]string{"p/main.ai": "plain ${VAR} {{FORMAT}}"}, want: "plain ${VAR} {{FORMAT}}"},
		{name: "both forms", files: map[string]string{"p/main.ai": "a ${include:x.md} b {{include: sub/y.md }} c", "p/x.md": "X", "p/sub/y.md": "Y"}, want: "a X b Y c"},
		{name: "nested relative to includer", files: map[string]string{"p/main.ai": "${include:sub/a.md}", "p/sub/a.md": "[${include:b.md}]", "p/sub/b.md": "B"}, want: "[B]"},
		{name: "parent within tree", files: map[string]string{"p/main.ai": "${include:sub/a.md}", "p/sub/a.md": "${include:../top.md}", "p/top.md": "T"}, want: "T"},
		{name: "frontmatter and shebang dropped", files: map[string]string{"p/main.ai": "${include:f.ai}", "p/f.ai": "#!/usr/bin/env ai-agent\n---\nmodels: x\n---\nbody"}, want: "body"},
		{name: "same file twice is no cycle", files: map[string]string{"p/main.ai": "${include:x.md}${include:x.md}", "p/x.md": "X"}, want: "XX"},
		{name: "symlink inside tree", files: map[string]string{"p/main.ai": "${include:l.md}", "p/l.md": "->x.md", "p/x.md": "X"}, want: "X"},
		{name: "missing", files: map[string]string{"p/main.ai": "${include:nope.md}"}, err: "does not exist"},
		{name: "empty path", files: map[string]string{"p/main.ai": "${include: }"}, err: "the path is empty"},
		{name: "escapes", files: map[string]string{"p/main.ai": "${include:../out.md}", "out.md": "O"}, err: "outside the prompt's directory"},
		{name: "absolute outside", files: map[string]string{"p/main.ai": "${include:/etc/hostname}"}, err: "outside the prompt's directory"},
		{name: "symlink out", files: map[string]string{"p/main.ai": "${include:l.md}", "p/l.md": "->../out.md", "out.md": "O"}, err: "resolves to"},
		{name: "dotenv", files: map[string]string{"p/main.ai": "${include:.ENV}", "p/.ENV": "K=V"}, err: "forbidden"},
		{name: "dotenv local", files: map[string]string{"p/main.ai": "${include:.env.local}", "p/.env.local": "K=V"}, err: "forbidden"},
		{name: "config env", files: map[string]string{"p/main.ai": "${include:.ai-agent.env}", "p/.ai-agent.env": "K=V"}, err: "forbidden"},
		{name: "link to dotenv", files: map[string]string{"p/main.ai": "${include:style.md}", "p/style.md": "->.env", "p/.env": "K=V"}, err: "resolves to .env: including this file is forbidden"},
		{name: "chain to dotenv", files: map[string]string{"p/main.ai": "${include:a.md}", "p/a.md": "->b.md", "p/b.md": "->sub/.Env", "p/sub/.Env": "K=V"}, err: "forbidden"},
		{name: "nested include of link", files: map[string]string{"p/main.ai": "${include:x.md}", "p/x.md": "{{include:y.md}}", "p/y.md": "->.env", "p/.env": "K=V"}, err: "forbidden"},
		{name: "env-like name is fine", files: map[string]string{"p/main.ai": "${include:environment.md}", "p/environment.md": "E"}, want: "E"},
		{name: "directory", files: map[string]string{"p/main.ai": "${include:sub}", "p/sub/x": "x"}, err: "failed to include 'sub'"},
		{name: "cycle", files: map[string]string{"p/main.ai": "${include:a.md}", "p/a.md": "{{include:b.md}}", "p/b.md": "${include:a.md}"}, err: "include cycle: main.ai -> a.md -> b.md -> a.md"},
		{name: "self", files: map[string]string{"p/main.ai": "${include:main.ai}"}, err: "include cycle: main.ai -> main.ai"},
		{name: "too deep", files: deep, err: "nested deeper than 8"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := includeTree(t, tc.files)
			main := filepath.Join(dir, "p", "main.ai")
			got, err := ResolveIncludes(tc.files["p/main.ai"], main)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrConfig) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func itoa(i int) string { return string(rune('0'+i/10)) + string(rune('0'+i%10)) }

// FuzzResolveIncludes: any prompt text, directives included, either
// expands or fails cleanly, and never reads outside the tree.
func FuzzResolveIncludes(f *testing.F) {
	f.Add("${include:a.md} {{include:../x}}")
	f.Add("{{include:{{include:a.md}}}}")
	f.Add("${include:/etc/passwd}")
	f.Add("${include:../secret}")
	dir := f.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "p"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p", "a.md"), []byte("A ${include:a.md}"), 0o644); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "secret"), []byte("SECRET"), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		out, err := ResolveIncludes(text, filepath.Join(dir, "p", "main.ai"))
		if err == nil && strings.Contains(out, "SECRET") && !strings.Contains(text, "SECRET") {
			t.Fatalf("read outside the tree: %q", text)
		}
	})
}
