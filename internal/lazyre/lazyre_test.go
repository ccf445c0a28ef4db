package lazyre

import (
	"regexp"
	"sync"
	"testing"
)

func TestMatchesAsRegexp(t *testing.T) {
	tests := []struct {
		pattern, in string
	}{
		{`(?P<file>[\w./]+):(?P<line>\d+)`, "see main.go:12 and a.go:3"},
		{`^x`, "yx"},
		{`(a)(b)?`, "ab a"},
	}
	for _, tt := range tests {
		l, r := New(tt.pattern), regexp.MustCompile(tt.pattern)
		if got, want := l.MatchString(tt.in), r.MatchString(tt.in); got != want {
			t.Errorf("%q MatchString(%q) = %v, want %v", tt.pattern, tt.in, got, want)
		}
		if got, want := l.FindAllStringSubmatch(tt.in, -1), r.FindAllStringSubmatch(tt.in, -1); len(got) != len(want) {
			t.Errorf("%q FindAllStringSubmatch(%q) = %q, want %q", tt.pattern, tt.in, got, want)
		}
		if got, want := l.ReplaceAllString(tt.in, "<$0>"), r.ReplaceAllString(tt.in, "<$0>"); got != want {
			t.Errorf("%q ReplaceAllString(%q) = %q, want %q", tt.pattern, tt.in, got, want)
		}
		if l.String() != tt.pattern {
			t.Errorf("String() = %q", l.String())
		}
	}
}

func TestLazyOutsideTests(t *testing.T) {
	old := inTest
	inTest = false
	defer func() { inTest = old }()
	l := New(`(`) // invalid: must not panic until used
	if l.rx != nil {
		t.Fatal("compiled before first use")
	}
	defer func() {
		if recover() == nil {
			t.Error("invalid pattern did not panic on first use")
		}
	}()
	l.MatchString("x")
}

func TestEagerInTests(t *testing.T) {
	if !inTest {
		t.Fatal("a test binary was not recognised")
	}
	if New(`a+`).rx == nil {
		t.Error("not compiled at declaration in a test binary")
	}
}

func TestConcurrentFirstUse(t *testing.T) {
	old := inTest
	inTest = false
	defer func() { inTest = old }()
	l := New(`b+`)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !l.MatchString("abbb") {
				t.Error("no match")
			}
		}()
	}
	wg.Wait()
}
