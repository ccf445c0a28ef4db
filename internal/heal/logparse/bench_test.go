package logparse

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// benchChunk is about 1 MiB of log: the corpus logs, each followed by CI
// noise (progress lines, downloads, passing tests), built once.
var benchChunk = sync.OnceValue(func() []byte {
	logs, _ := filepath.Glob(filepath.Join(corpusDir, "*", "*", "log.txt"))
	noise := []string{
		"2026-11-23T03:00:00.0000000Z Downloading https://example.invalid/pkg/v1.2.3.tar.gz (1.2 MB)",
		"   Compiling serde v1.0.210",
		"=== RUN   TestSomethingPasses",
		"--- PASS: TestSomethingPasses (0.00s)",
		"ok  \texample.com/app/internal/util\t0.012s",
		"[INFO] Building jar: /workspace/app/target/app-1.0.jar",
		"npm WARN deprecated inflight@1.0.6: This module is not supported",
		"#12 0.532 Collecting requests==2.31.0",
		"test_util.py::test_ok PASSED                                   [ 50%]",
		"  ✓ renders the header (12 ms)",
		"-- Build files have been written to: /workspace/app/build",
	}
	if len(logs) == 0 {
		return nil // run from elsewhere than the package folder
	}
	var b strings.Builder
	for b.Len() < 1<<20 {
		for _, p := range logs {
			data, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			b.Write(data)
			for i := 0; i < 40; i++ {
				b.WriteString(noise[i%len(noise)])
				b.WriteByte('\n')
			}
			if b.Len() >= 1<<20 {
				break
			}
		}
	}
	return []byte(b.String()[:1<<20])
})

// repeatReader yields chunk over and over until n bytes, without holding
// more than the chunk in memory.
type repeatReader struct {
	chunk []byte
	off   int
	left  int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	n := copy(p, r.chunk[r.off:])
	if int64(n) > r.left {
		n = int(r.left)
	}
	r.off = (r.off + n) % len(r.chunk)
	r.left -= int64(n)
	return n, nil
}

func benchParse(b *testing.B, size int64) {
	chunk := benchChunk()
	if len(chunk) == 0 {
		b.Fatalf("no corpus logs under %s: run the benchmark from the package folder", corpusDir)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(&repeatReader{chunk: chunk, left: size}, Options{Root: "/workspace/app"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse1MB parses 1 MiB of mixed corpus logs and CI noise.
func BenchmarkParse1MB(b *testing.B) { benchParse(b, 1<<20) }

// BenchmarkParse100MB parses 100 MiB, streamed: memory stays bounded.
func BenchmarkParse100MB(b *testing.B) { benchParse(b, 100<<20) }

// TestWriteBenchLogs writes the benchmark logs to $SALVE_BENCH_DIR, so
// that scripts/corpus/bench.sh can time other parsers on the same bytes.
func TestWriteBenchLogs(t *testing.T) {
	dir := os.Getenv("SALVE_BENCH_DIR")
	if dir == "" {
		t.Skip("set SALVE_BENCH_DIR to write the benchmark logs")
	}
	if len(benchChunk()) == 0 {
		t.Fatalf("no corpus logs under %s", corpusDir)
	}
	for _, size := range []int64{1 << 20, 100 << 20} {
		name := filepath.Join(dir, fmt.Sprintf("bench-%dMB.log", size>>20))
		f, err := os.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(f, &repeatReader{chunk: benchChunk(), left: size}); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
