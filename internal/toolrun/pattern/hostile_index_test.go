// The cases here make FIFOs and read /dev/zero, which Windows has not.

//go:build unix

package pattern_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/safefile"
	"github.com/salve-dev/salve/internal/toolrun/pattern"
)

// TestLoadRefusesHostileIndex: an index that is a device, a link to one,
// a FIFO or a file past MaxIndexBytes is refused at once, with an error
// that names the file. On a main without the bound, /dev/zero (directly
// or through a committed link) is read until memory runs out and a FIFO
// blocks Load forever: the cases fail (the FIFO one by its time limit).
func TestLoadRefusesHostileIndex(t *testing.T) {
	dir := t.TempDir()
	zeroLink := filepath.Join(dir, "linked", pattern.DefaultIndexFile)
	if err := os.MkdirAll(filepath.Dir(zeroLink), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", zeroLink); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	// Valid YAML (a comment) one byte past the bound.
	if err := os.WriteFile(big, []byte("#"+strings.Repeat("x", pattern.MaxIndexBytes)), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		want       error
	}{
		{"device", "/dev/zero", safefile.ErrNotRegular},
		{"committed link to a device", zeroLink, safefile.ErrNotRegular},
		{"fifo", fifo, safefile.ErrNotRegular},
		{"too large", big, safefile.ErrTooLarge},
		{"folder", dir, safefile.ErrNotRegular},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := pattern.Load(tt.path, executorNames)
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("Load(%s) did not return", tt.path)
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("Load(%s) = %v, want %v", tt.path, err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.path) {
				t.Fatalf("Load(%s) = %q, does not name the file", tt.path, err)
			}
		})
	}
}
