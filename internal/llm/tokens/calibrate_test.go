package tokens

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/tiktoken-go/tokenizer"
)

var calibrate = flag.Bool("calibrate", false, "fit the Approx weights against cl100k_base and print them")

// corpus loads testdata/corpus, keyed by file name.
func corpus(t testing.TB) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	out := make(map[string]string, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = string(b)
	}
	return out
}

// chunks splits text into pieces of about n bytes at line ends.
func chunks(text string, n int) []string {
	var out []string
	for len(text) > 0 {
		end := min(n, len(text))
		for end < len(text) && text[end-1] != '\n' {
			end++
		}
		out = append(out, text[:end])
		text = text[end:]
	}
	return out
}

func (f features) vector() []float64 {
	return []float64{float64(f.words), float64(f.wordChars), float64(f.digitGroups), float64(f.punct),
		float64(f.newlines), float64(f.spaceRuns), float64(f.cjk), float64(f.other)}
}

// TestCalibrate fits the feature weights of Approx by non-negative-free
// least squares against cl100k_base on 400-byte chunks of the corpus, and
// prints them next to the weights in use. It only runs with -calibrate.
func TestCalibrate(t *testing.T) {
	if !*calibrate {
		t.Skip("run with -calibrate to refit the Approx weights")
	}
	codec, err := tokenizer.Get(tokenizer.Cl100kBase)
	if err != nil {
		t.Fatal(err)
	}
	var xs [][]float64
	var ys []float64
	for _, text := range corpus(t) {
		for _, c := range chunks(text, 400) {
			n, _ := codec.Count(c)
			if n == 0 {
				continue
			}
			// Each row is divided by its token count, so the fit minimises
			// the relative error and every kind of text weighs the same.
			x := countFeatures(c).vector()
			for i := range x {
				x[i] /= float64(n)
			}
			xs = append(xs, x)
			ys = append(ys, 1)
		}
	}
	w := nonNegativeLeastSquares(xs, ys)
	names := []string{"word", "wordChar", "digitGroup", "punct", "newline", "spaceRun", "cjk", "otherRune"}
	for i, name := range names {
		fmt.Printf("%-10s %8.0f milli-tokens\n", name, w[i]*1000)
	}
	fmt.Printf("%d chunks\n", len(ys))
}

// nonNegativeLeastSquares fits, drops the features whose weight comes out
// negative, and refits the rest until every weight is non-negative.
func nonNegativeLeastSquares(xs [][]float64, ys []float64) []float64 {
	k := len(xs[0])
	active := make([]bool, k)
	for i := range active {
		active[i] = true
	}
	for {
		var idx []int
		for i, a := range active {
			if a {
				idx = append(idx, i)
			}
		}
		sub := make([][]float64, len(xs))
		for r, x := range xs {
			for _, i := range idx {
				sub[r] = append(sub[r], x[i])
			}
		}
		ws := leastSquares(sub, ys)
		w := make([]float64, k)
		changed := false
		for j, i := range idx {
			w[i] = ws[j]
			if ws[j] < 0 {
				active[i], changed = false, true
			}
		}
		if !changed {
			return w
		}
	}
}

// leastSquares solves the normal equations XᵀX w = Xᵀy by Gaussian
// elimination with partial pivoting.
func leastSquares(xs [][]float64, ys []float64) []float64 {
	k := len(xs[0])
	a := make([][]float64, k)
	for i := range a {
		a[i] = make([]float64, k+1)
	}
	for r, x := range xs {
		for i := range k {
			for j := range k {
				a[i][j] += x[i] * x[j]
			}
			a[i][k] += x[i] * ys[r]
		}
	}
	for col := range k {
		p := col
		for r := col + 1; r < k; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[p][col]) {
				p = r
			}
		}
		a[col], a[p] = a[p], a[col]
		if a[col][col] == 0 {
			continue
		}
		for r := range k {
			if r == col {
				continue
			}
			f := a[r][col] / a[col][col]
			for c := col; c <= k; c++ {
				a[r][c] -= f * a[col][c]
			}
		}
	}
	w := make([]float64, k)
	for i := range k {
		if a[i][i] != 0 {
			w[i] = a[i][k] / a[i][i]
		}
	}
	return w
}

// TestApproxAgainstTiktoken compares Approx with both current OpenAI
// encodings on every corpus file: it must never be more than 15% under
// cl100k_base (the guard must not under-count) nor more than 60% over it,
// and over the whole corpus it must be at or above both encodings.
func TestApproxAgainstTiktoken(t *testing.T) {
	files := corpus(t)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	cl, o2 := codec(t, tokenizer.Cl100kBase), codec(t, tokenizer.O200kBase)
	var totA, totCL, totO2 int
	for _, name := range names {
		text := files[name]
		a, c, o := Approx{}.Count(text), exact(t, cl, text), exact(t, o2, text)
		totA, totCL, totO2 = totA+a, totCL+c, totO2+o
		ratio := float64(a) / float64(c)
		t.Logf("%-16s bytes=%6d cl100k=%5d o200k=%5d approx=%5d approx/cl100k=%.2f", name, len(text), c, o, a, ratio)
		if ratio < 0.85 || ratio > 1.6 {
			t.Errorf("%s: approx/cl100k = %.2f, want within [0.85, 1.6]", name, ratio)
		}
	}
	t.Logf("total cl100k=%d o200k=%d approx=%d", totCL, totO2, totA)
	if totA < totCL || totA < totO2 {
		t.Errorf("approx total %d is below cl100k %d or o200k %d", totA, totCL, totO2)
	}
}

// codec builds one tiktoken encoding. The exact counters of package
// internal/llm/tokens/tiktoken cannot be imported here (they import tokens), so the
// tests use the library itself.
func codec(t *testing.T, enc tokenizer.Encoding) tokenizer.Codec {
	t.Helper()
	c, err := tokenizer.Get(enc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// exact is the exact token count of text.
func exact(t *testing.T, c tokenizer.Codec, text string) int {
	t.Helper()
	n, err := c.Count(text)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
