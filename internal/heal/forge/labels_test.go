package forge_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/salve-dev/salve/internal/heal/forge"
	"github.com/salve-dev/salve/internal/heal/forge/forgetest"
)

// TestLabels reads a request's labels from both forges' documented
// shapes: GitHub's label objects of …/issues/{n}/labels, GitLab's names
// on the merge request; an unknown request is ErrNotFound, and the skip
// label is found without case.
func TestLabels(t *testing.T) {
	for _, k := range kits(t, token) {
		t.Run(k.name, func(t *testing.T) {
			n := k.srv.AddPR(k.name, k.repo, forgetest.PR{Head: "feature", Base: "main", Title: "t", Labels: []string{"bug", "Salve:Skip"}})
			plain := k.srv.AddPR(k.name, k.repo, forgetest.PR{Head: "other", Base: "main", Title: "t"})
			l := k.f.(forge.Labeler)
			for _, tc := range []struct {
				number   int
				want     []string
				skip     bool
				notFound bool
			}{
				{n, []string{"bug", "Salve:Skip"}, true, false},
				{plain, []string{}, false, false},
				{99, nil, false, true},
			} {
				got, err := l.Labels(context.Background(), tc.number)
				if tc.notFound {
					if !errors.Is(err, forge.ErrNotFound) {
						t.Fatalf("#%d: err %v, want ErrNotFound", tc.number, err)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, tc.want) && len(got)+len(tc.want) > 0 {
					t.Errorf("#%d: labels %q, want %q", tc.number, got, tc.want)
				}
				if forge.HasLabel(got, forge.SkipLabel) != tc.skip {
					t.Errorf("#%d: HasLabel(%q) = %v", tc.number, got, !tc.skip)
				}
			}
			if _, err := l.Labels(context.Background(), 0); err == nil {
				t.Error("Labels(0) succeeded")
			}
		})
	}
}
