// Package sqlitedbtest is test support for the packages that open SQLite
// files through internal/sqlitedb: the state of a folder, to show that a
// read-only open left it as it was, and the paths every read-only open must
// refuse.
package sqlitedbtest

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// FolderState names each file of dir with its mode and a digest of its
// bytes, one line a file, sorted.
func FolderState(t testing.TB, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprintf("%s %s %x", e.Name(), info.Mode(), sha256.Sum256(b)))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// ReadOnlyRefuses checks a read-only open, openRO, in the folder dir: a
// missing file is an error wrapping missing and its folder is not created;
// a file that is not a database, a folder and a device are refused.
func ReadOnlyRefuses(t *testing.T, dir string, missing error, openRO func(path string) error) {
	t.Helper()
	none := filepath.Join(dir, "sub", "none.db")
	if err := openRO(none); !errors.Is(err, missing) {
		t.Errorf("missing file: %v, want %v", err, missing)
	}
	if _, err := os.Stat(filepath.Dir(none)); !errors.Is(err, fs.ErrNotExist) {
		t.Error("a read-only open created a folder")
	}
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{notes, dir, "/dev/zero"} {
		if err := openRO(p); err == nil {
			t.Errorf("read-only open of %s succeeded", p)
		}
	}
}
