package executor

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCappedLog writes outputs of many sizes in chunks of many sizes and
// checks the file: the whole output when it fits, else its head, a marker
// with the count dropped, and its tail; the ring file is gone.
func TestCappedLog(t *testing.T) {
	const max = 1000
	for _, size := range []int{0, 10, 499, 500, 501, 999, 1000, 1001, 1499, 1500, 1501, 5000, 100000} {
		for _, chunk := range []int{1, 7, 500, 501, 4096} {
			t.Run(fmt.Sprintf("size%d_chunk%d", size, chunk), func(t *testing.T) {
				data := make([]byte, size)
				for i := range data {
					data[i] = 'a' + byte(i%26)
				}
				path := filepath.Join(t.TempDir(), LogFile)
				c, err := newCappedLog(path, max)
				if err != nil {
					t.Fatal(err)
				}
				for p := data; len(p) > 0; {
					k := min(chunk, len(p))
					if n, err := c.Write(p[:k]); err != nil || n != k {
						t.Fatalf("write: %d, %v", n, err)
					}
					p = p[k:]
				}
				dropped := c.Dropped()
				if err := c.Close(); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := os.Lstat(path + tailSuffix); err == nil {
					t.Error("the ring file is left behind")
				}
				if size <= max {
					if dropped != 0 || !bytes.Equal(got, data) {
						t.Fatalf("dropped %d; file differs from the output (%d bytes, want %d)", dropped, len(got), size)
					}
					return
				}
				if want := int64(size - max); dropped != want {
					t.Errorf("dropped %d, want %d", dropped, want)
				}
				head, rest, ok := bytes.Cut(got, []byte("\n... [salve: "))
				if !ok {
					t.Fatalf("no marker in %q", got)
				}
				marker, tail, _ := bytes.Cut(rest, []byte("] ...\n"))
				if !bytes.Equal(head, data[:max/2]) || !bytes.Equal(tail, data[size-max/2:]) {
					t.Errorf("head or tail wrong: head %d bytes, tail %d bytes", len(head), len(tail))
				}
				if !strings.HasPrefix(string(marker), fmt.Sprintf("%d bytes of output dropped", size-max)) {
					t.Errorf("marker %q", marker)
				}
			})
		}
	}
}

func TestCappedLogUncapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), LogFile)
	c, err := newCappedLog(path, -1)
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("x"), 10000)
	_, _ = c.Write(data)
	if err := c.Close(); err != nil || c.Dropped() != 0 {
		t.Fatal(err, c.Dropped())
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
		t.Errorf("uncapped log holds %d bytes", len(got))
	}
}
