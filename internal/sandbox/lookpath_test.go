package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLookPath: a program is found in the PATH of the environment given,
// never in the caller's own, and only as an executable regular file.
func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tool := write("tool", 0o755)
	write("plain", 0o644)
	if err := os.Mkdir(filepath.Join(dir, "folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, bin string
		env       []string
		want      string
	}{
		{"in the child's PATH", "tool", []string{"PATH=/nonexistent:" + dir}, tool},
		{"not executable", "plain", []string{"PATH=" + dir}, ""},
		{"a folder", "folder", []string{"PATH=" + dir}, ""},
		{"no PATH in the environment", "tool", []string{"HOME=" + dir}, ""},
		{"the last PATH wins", "tool", []string{"PATH=" + dir, "PATH=/nonexistent"}, ""},
		{"an absolute executable", tool, nil, tool},
		{"an absolute file that is not executable", filepath.Join(dir, "plain"), nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LookPath(tt.bin, tt.env); got != tt.want {
				t.Errorf("LookPath(%q) = %q, want %q", tt.bin, got, tt.want)
			}
		})
	}
}
