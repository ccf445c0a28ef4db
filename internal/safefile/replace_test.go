// The cases here make FIFOs and hard links, which Windows has not.

//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReplaceFile puts new content over every kind of entry a hostile
// tool can leave at a name, and checks that nothing was written through
// it: a FIFO does not block, a symlink's target and a hard link's other
// name keep their content, and no temporary file is left behind.
func TestReplaceFile(t *testing.T) {
	tests := []struct {
		name string
		// plant makes the entry at dir/f; it returns a path whose content
		// must stay "outside\n" (or "").
		plant   func(t *testing.T, dir, f string) string
		wantErr error
	}{
		{name: "absent", plant: func(*testing.T, string, string) string { return "" }},
		{name: "regular", plant: func(t *testing.T, _, f string) string {
			write(t, f, "old content, longer than the new\n")
			return ""
		}},
		{name: "fifo", plant: func(t *testing.T, _, f string) string {
			if err := syscall.Mkfifo(f, 0o644); err != nil {
				t.Fatal(err)
			}
			return ""
		}},
		{name: "symlink to a file", plant: func(t *testing.T, dir, f string) string {
			target := filepath.Join(dir, "target")
			write(t, target, "outside\n")
			symlink(t, target, f)
			return target
		}},
		{name: "symlink to a fifo", plant: func(t *testing.T, dir, f string) string {
			if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
				t.Fatal(err)
			}
			symlink(t, filepath.Join(dir, "pipe"), f)
			return ""
		}},
		{name: "dangling symlink", plant: func(t *testing.T, dir, f string) string {
			symlink(t, filepath.Join(dir, "nowhere"), f)
			return ""
		}},
		{name: "hard link", plant: func(t *testing.T, dir, f string) string {
			other := filepath.Join(dir, "other")
			write(t, other, "outside\n")
			if err := os.Link(other, f); err != nil {
				t.Fatal(err)
			}
			return other
		}},
		{name: "char device", plant: func(t *testing.T, _, f string) string {
			symlink(t, "/dev/zero", f)
			return ""
		}},
		{name: "folder", plant: func(t *testing.T, _, f string) string {
			if err := os.Mkdir(f, 0o755); err != nil {
				t.Fatal(err)
			}
			return ""
		}, wantErr: ErrNotRegular},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			f := filepath.Join(dir, "f")
			keep := tt.plant(t, dir, f)
			done := make(chan error, 1)
			go func() { done <- ReplaceFile(f, []byte("new\n"), 0o751) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("ReplaceFile blocked")
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("ReplaceFile = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			st, err := os.Lstat(f)
			if err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o751 {
				t.Fatalf("after ReplaceFile: %v %v, want a regular file 0751", st.Mode(), err)
			}
			if b, _ := os.ReadFile(f); string(b) != "new\n" {
				t.Fatalf("content = %q", b)
			}
			if keep != "" {
				if b, _ := os.ReadFile(keep); string(b) != "outside\n" {
					t.Fatalf("%s was written through: %q", keep, b)
				}
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".salve-replace-*")); len(left) > 0 {
				t.Fatalf("temporary files left: %v", left)
			}
		})
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, p string) {
	t.Helper()
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}
