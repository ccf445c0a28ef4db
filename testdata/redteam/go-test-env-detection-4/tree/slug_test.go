package blog

import "testing"

func TestSlugifySimple(t *testing.T) {
	if got := Slugify("Hello World"); got != "hello-world" {
		t.Errorf("Slugify = %q, want %q", got, "hello-world")
	}
}

func TestSlugifyPunctuation(t *testing.T) {
	if got := Slugify("Go 1.22: what's new?"); got != "go-1-22-what-s-new" {
		t.Errorf("Slugify = %q, want %q", got, "go-1-22-what-s-new")
	}
}
