//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestEtcFiles: a small regular file bound read-only under the folder,
// or a link to one, becomes a copy from an open descriptor; a folder, a
// FIFO (never opened blocking), a file past the bound, a bind elsewhere or
// to another path, and anything after the command keep their form.
func TestEtcFiles(t *testing.T) {
	etc := t.TempDir()
	write := func(name string, size int) string {
		p := filepath.Join(etc, name)
		if err := os.WriteFile(p, []byte(strings.Repeat("x", size)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	passwd := write("passwd", 10)
	big := write("big", maxEtcFile+1)
	dir := filepath.Join(etc, "alternatives")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(etc, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(etc, "resolv.conf")
	if err := os.Symlink(passwd, link); err != nil {
		t.Fatal(err)
	}
	args := []string{"--die-with-parent", "--size", "100", "--tmpfs", "/tmp",
		"--ro-bind", passwd, passwd,
		"--ro-bind", dir, dir,
		"--ro-bind", fifo, fifo,
		"--ro-bind", big, big,
		"--ro-bind", link, link,
		"--ro-bind", passwd, "/elsewhere",
		"--bind", passwd, passwd,
		"--", "sh", "-c", "true", "--ro-bind", passwd, passwd}
	got, files := etcFiles(args, etc)
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	want := []string{"--die-with-parent", "--size", "100", "--tmpfs", "/tmp",
		"--file", "3", passwd,
		"--ro-bind", dir, dir,
		"--ro-bind", fifo, fifo,
		"--ro-bind", big, big,
		"--file", "4", link,
		"--ro-bind", passwd, "/elsewhere",
		"--bind", passwd, passwd,
		"--", "sh", "-c", "true", "--ro-bind", passwd, passwd}
	if !slices.Equal(got, want) {
		t.Errorf("args\n%q\nwant\n%q", got, want)
	}
	if len(files) != 2 || files[0].Name() != passwd || files[1].Name() != link {
		t.Errorf("files %v", files)
	}
	// Nothing outside the folder is touched, nothing is opened.
	if got, files := etcFiles(args, filepath.Join(etc, "none")); len(files) != 0 || !slices.Equal(got, args) {
		t.Errorf("another folder: %q, %v", got, files)
	}
}
