package logparse

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadWorkspaceFileStaysInside checks that a file name taken from a
// log is read inside the workspace only: not through "..", an absolute
// name, or a link the repository holds leading out of it.
func TestReadWorkspaceFileStaysInside(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.go")
	if err := os.WriteFile(secret, []byte("package secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.Symlink(secret, filepath.Join(ws, "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "dir")); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(ws, secret)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"link.go", "dir/secret.go", filepath.ToSlash(rel), secret} {
		t.Run(name, func(t *testing.T) {
			if got := readWorkspaceFile(ws, name); got != "" {
				t.Errorf("readWorkspaceFile(%q) = %q: read a file outside the workspace", name, got)
			}
		})
	}
}

// TestReadWorkspaceFileInside checks that the workspace's own files, links
// inside it included, are still read.
func TestReadWorkspaceFileInside(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "pkg", "a.go"), []byte("package pkg\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("pkg", filepath.Join(ws, "alias")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pkg/a.go", "alias/a.go"} {
		if got := readWorkspaceFile(ws, name); got != "package pkg\n" {
			t.Errorf("readWorkspaceFile(%q) = %q", name, got)
		}
	}
}
