// Package lazyre provides regular expressions compiled on first use, so
// that a package holding many of them costs nothing at start-up in the
// commands that never match them.
//
// Under "go test" every expression is compiled when it is declared, so an
// invalid pattern fails the package's tests at once, as
// regexp.MustCompile would.
package lazyre

import (
	"os"
	"regexp"
	"strings"
	"sync"
)

// Regexp is a regular expression compiled the first time it is used. It
// is safe for concurrent use.
type Regexp struct {
	src  string
	once sync.Once
	rx   *regexp.Regexp
}

// inTest reports whether the program is a test binary.
var inTest = len(os.Args) > 0 && strings.HasSuffix(strings.TrimSuffix(os.Args[0], ".exe"), ".test")

// New returns a Regexp for pattern. An invalid pattern panics on first use,
// or at once in a test binary.
func New(pattern string) *Regexp {
	r := &Regexp{src: pattern}
	if inTest {
		r.re()
	}
	return r
}

// re returns the compiled expression.
func (r *Regexp) re() *regexp.Regexp {
	r.once.Do(func() { r.rx = regexp.MustCompile(r.src) })
	return r.rx
}

// Regexp returns the compiled expression.
func (r *Regexp) Regexp() *regexp.Regexp { return r.re() }

// String returns the source text.
func (r *Regexp) String() string { return r.src }

// MatchString is [regexp.Regexp.MatchString].
func (r *Regexp) MatchString(s string) bool { return r.re().MatchString(s) }

// FindString is [regexp.Regexp.FindString].
func (r *Regexp) FindString(s string) string { return r.re().FindString(s) }

// FindStringIndex is [regexp.Regexp.FindStringIndex].
func (r *Regexp) FindStringIndex(s string) []int { return r.re().FindStringIndex(s) }

// FindStringSubmatch is [regexp.Regexp.FindStringSubmatch].
func (r *Regexp) FindStringSubmatch(s string) []string { return r.re().FindStringSubmatch(s) }

// FindStringSubmatchIndex is [regexp.Regexp.FindStringSubmatchIndex].
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.re().FindStringSubmatchIndex(s)
}

// FindAllString is [regexp.Regexp.FindAllString].
func (r *Regexp) FindAllString(s string, n int) []string { return r.re().FindAllString(s, n) }

// FindAllStringIndex is [regexp.Regexp.FindAllStringIndex].
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return r.re().FindAllStringIndex(s, n)
}

// FindAllStringSubmatch is [regexp.Regexp.FindAllStringSubmatch].
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.re().FindAllStringSubmatch(s, n)
}

// FindAllStringSubmatchIndex is [regexp.Regexp.FindAllStringSubmatchIndex].
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.re().FindAllStringSubmatchIndex(s, n)
}

// ReplaceAllString is [regexp.Regexp.ReplaceAllString].
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.re().ReplaceAllString(src, repl)
}

// ReplaceAllLiteralString is [regexp.Regexp.ReplaceAllLiteralString].
func (r *Regexp) ReplaceAllLiteralString(src, repl string) string {
	return r.re().ReplaceAllLiteralString(src, repl)
}

// ReplaceAllStringFunc is [regexp.Regexp.ReplaceAllStringFunc].
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.re().ReplaceAllStringFunc(src, repl)
}

// SubexpNames is [regexp.Regexp.SubexpNames].
func (r *Regexp) SubexpNames() []string { return r.re().SubexpNames() }

// SubexpIndex is [regexp.Regexp.SubexpIndex].
func (r *Regexp) SubexpIndex(name string) int { return r.re().SubexpIndex(name) }

// Split is [regexp.Regexp.Split].
func (r *Regexp) Split(s string, n int) []string { return r.re().Split(s, n) }

// Match is [regexp.Regexp.Match].
func (r *Regexp) Match(b []byte) bool { return r.re().Match(b) }

// FindSubmatch is [regexp.Regexp.FindSubmatch].
func (r *Regexp) FindSubmatch(b []byte) [][]byte { return r.re().FindSubmatch(b) }
