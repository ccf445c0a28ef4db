package executor

import (
	"slices"
	"testing"

	"github.com/salve-dev/salve/internal/sandbox"
)

func TestCachesFor(t *testing.T) {
	var all []sandbox.Cache
	for _, n := range []string{"go-build", "go-mod", "cargo-registry", "cargo-git", "npm", "maven", "gradle-caches", "gradle-wrapper", "node_modules", "target"} {
		all = append(all, sandbox.Cache{Name: n})
	}
	tests := []struct {
		typ  string
		want []string
	}{
		{TypeGo, []string{"go-build", "go-mod"}},
		{TypeRust, []string{"cargo-registry", "cargo-git", "target"}},
		{TypeNode, []string{"npm", "node_modules"}},
		{TypePython, nil},
		{TypeMaven, []string{"maven"}},
		{TypeGradle, []string{"gradle-caches", "gradle-wrapper"}},
		{TypeMake, []string{"go-build", "go-mod", "cargo-registry", "cargo-git", "npm", "maven", "gradle-caches", "gradle-wrapper", "node_modules", "target"}},
		{TypeMulti, []string{"go-build", "go-mod", "cargo-registry", "cargo-git", "npm", "maven", "gradle-caches", "gradle-wrapper", "node_modules", "target"}},
	}
	for _, tt := range tests {
		var got []string
		for _, c := range cachesFor(tt.typ, all) {
			got = append(got, c.Name)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.typ, got, tt.want)
		}
	}
}
