package heal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestDecideEnd(t *testing.T) {
	for _, tc := range []struct {
		name       string
		keep       WorktreeKeep
		persistent bool
		tracked    int
		threshold  int
		want       ending
	}{
		{"small repository", KeepAuto, true, 120, 2000, endRemove},
		{"one file under", KeepAuto, true, 1999, 2000, endRemove},
		{"at the threshold", KeepAuto, true, 2000, 2000, endKeepClean},
		{"large repository", KeepAuto, true, 20000, 2000, endKeepClean},
		{"count unknown", KeepAuto, true, -1, 2000, endRemove},
		{"empty index", KeepAuto, true, 0, 1, endRemove},
		{"no threshold", KeepAuto, true, 20000, 0, endRemove},
		{"a fresh worktree of its own folder", KeepAuto, false, 20000, 2000, endRemove},
		{"always keep, small", KeepAlways, true, 3, 2000, endKeep},
		{"always keep, large", KeepAlways, true, 20000, 2000, endKeep},
		{"always keep, fresh folder", KeepAlways, false, 3, 2000, endKeep},
		{"never keep, large", KeepNever, true, 20000, 2000, endRemove},
		{"never keep, unknown", KeepNever, true, -1, 2000, endRemove},
		{"a value out of range", WorktreeKeep(9), true, 20000, 2000, endRemove},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := decideEnd(tc.keep, tc.persistent, tc.tracked, tc.threshold); got != tc.want {
				t.Errorf("decideEnd(%v, %v, %d, %d) = %v, want %v", tc.keep, tc.persistent, tc.tracked, tc.threshold, got, tc.want)
			}
		})
	}
}

func TestParseWorktreeKeep(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want WorktreeKeep
		bad  bool
	}{
		{in: "auto", want: KeepAuto},
		{in: "true", want: KeepAlways},
		{in: " TRUE ", want: KeepAlways},
		{in: "always", want: KeepAlways},
		{in: "1", want: KeepAlways},
		{in: "false", want: KeepNever},
		{in: "never", want: KeepNever},
		{in: "0", want: KeepNever},
		{in: "", bad: true},
		{in: "sometimes", bad: true},
		{in: "2", bad: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseWorktreeKeep(tc.in)
			if tc.bad {
				if !errors.Is(err, ErrBadInput) {
					t.Errorf("ParseWorktreeKeep(%q) = %v, %v; want a bad-input error", tc.in, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("ParseWorktreeKeep(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
			// What String prints reads back as the same value.
			if again, err := ParseWorktreeKeep(got.String()); err != nil || again != got {
				t.Errorf("ParseWorktreeKeep(%q) = %v, %v", got.String(), again, err)
			}
		})
	}
}

func TestKeepFiles(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want int
		bad  bool
	}{
		{env: "", want: DefaultKeepFiles},
		{env: "  ", want: DefaultKeepFiles},
		{env: "5000", want: 5000},
		{env: " 1 ", want: 1},
		{env: "0", bad: true},
		{env: "-3", bad: true},
		{env: "2k", bad: true},
		{env: "lots", bad: true},
	} {
		t.Run(fmt.Sprintf("%q", tc.env), func(t *testing.T) {
			got, err := KeepFiles(func(k string) string {
				if k != EnvKeepFiles {
					t.Errorf("read %s", k)
				}
				return tc.env
			})
			if tc.bad {
				if !errors.Is(err, ErrBadInput) {
					t.Errorf("KeepFiles(%q) = %d, %v; want a bad-input error", tc.env, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("KeepFiles(%q) = %d, %v; want %d", tc.env, got, err, tc.want)
			}
		})
	}
}

// TestIndexEntries reads the entry count of indexes git wrote (each
// version it writes) and refuses what is not an index.
func TestIndexEntries(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 37; i++ {
		files[fmt.Sprintf("f%d.txt", i)] = fmt.Sprintf("%d\n", i)
	}
	repo := newRepo(t, files)
	gitDir := filepath.Join(repo, ".git")
	for _, v := range []string{"2", "3", "4"} {
		git(t, repo, "update-index", "--index-version", v)
		if got := indexEntries(gitDir); got != 37 {
			t.Errorf("index version %s: %d entries, want 37", v, got)
		}
	}
	header := func(sig string, version, n uint32) []byte {
		b := append([]byte(sig), make([]byte, 8)...)
		binary.BigEndian.PutUint32(b[4:], version)
		binary.BigEndian.PutUint32(b[8:], n)
		return b
	}
	for _, tc := range []struct {
		name  string
		index []byte // nil: no index file
		want  int
	}{
		{"no index", nil, -1},
		{"an index of 20000", header("DIRC", 2, 20000), 20000},
		{"not an index", header("PACK", 2, 20000), -1},
		{"version 1", header("DIRC", 1, 20000), -1},
		{"version 5", header("DIRC", 5, 20000), -1},
		{"cut short", header("DIRC", 2, 20000)[:10], -1},
		{"an absurd count", header("DIRC", 2, 1<<31), -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.index != nil {
				if err := os.WriteFile(filepath.Join(dir, "index"), tc.index, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := indexEntries(dir); got != tc.want {
				t.Errorf("indexEntries = %d, want %d", got, tc.want)
			}
		})
	}
	t.Run("a symbolic link", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Symlink(filepath.Join(gitDir, "index"), filepath.Join(dir, "index")); err != nil {
			t.Fatal(err)
		}
		if got := indexEntries(dir); got != -1 {
			t.Errorf("indexEntries through a symbolic link = %d, want -1", got)
		}
	})
	t.Run("a folder", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "index"), 0o755); err != nil {
			t.Fatal(err)
		}
		if got := indexEntries(dir); got != -1 {
			t.Errorf("indexEntries of a folder = %d, want -1", got)
		}
	})
}
