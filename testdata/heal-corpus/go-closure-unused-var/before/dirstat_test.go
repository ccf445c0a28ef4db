package dirstat

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWalk(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"a.txt": "hello", "sub/b.txt": "hi"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := Walk(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Files != 2 || st.Bytes != 7 {
		t.Errorf("Walk = %+v, want 2 files, 7 bytes", st)
	}
}
