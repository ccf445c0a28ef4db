package rules

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/salve-dev/salve/internal/lazyre"
)

// reNoHeader is gcc's and clang's "CArray.h: No such file or directory"
// ("'CArray.h' file not found" for clang), for the header an #include
// names.
var reNoHeader = lazyre.New(`(?:^|fatal error: )'?([\w./-]+\.(?:h|hh|hpp|hxx))'?(?::| file not found)(?: No such file or directory)?`)

// reQuotedInclude is a line's `#include "name"`.
var reQuotedInclude = lazyre.New(`^(\s*#\s*include\s*")([^"]+)(".*)$`)

// fixCIncludeCase repairs a quoted #include whose header the compiler
// cannot find when the folder it names holds exactly one regular file
// of that name in another letter case (the file renamed carray.h, the
// include still "CArray.h"): a case-sensitive file system finds the one
// the include means under that name only. Links are not followed.
func fixCIncludeCase(_ context.Context, _ *Fixer, in ruleInput) (edit, bool, error) {
	ls := splitContent(in.content)
	var reasons []string
	for _, r := range in.reports {
		m := reNoHeader.FindStringSubmatch(r.Message)
		if m == nil || r.LineNumber < 1 || r.LineNumber > len(ls.l) {
			continue
		}
		inc := reQuotedInclude.FindStringSubmatch(ls.l[r.LineNumber-1])
		if inc == nil || inc[2] != m[1] || strings.Contains(inc[2], "..") || path.IsAbs(inc[2]) {
			continue
		}
		dir := path.Join(path.Dir(in.path), path.Dir(inc[2]))
		if dir == ".." || strings.HasPrefix(dir, "../") {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(in.workspace, filepath.FromSlash(dir)))
		if err != nil {
			continue
		}
		base := path.Base(inc[2])
		var found []string
		for _, e := range entries {
			if e.Type().IsRegular() && e.Name() != base && strings.EqualFold(e.Name(), base) {
				found = append(found, e.Name())
			}
		}
		if len(found) != 1 {
			continue
		}
		name := path.Join(path.Dir(inc[2]), found[0])
		ls.l[r.LineNumber-1] = inc[1] + name + inc[3]
		reasons = append(reasons, fmt.Sprintf("%q → %q, the one header of that name in another case (line %d)", inc[2], name, r.LineNumber))
	}
	if len(reasons) == 0 {
		return edit{}, false, nil
	}
	return edit{content: ls.String(), reason: "#include: " + strings.Join(reasons, "; "), confidence: 0.9}, true, nil
}
