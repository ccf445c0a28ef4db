package logparse

import (
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/salve-dev/salve/internal/lazyre"
)

// maxIndexedFiles bounds the workspace walk, so that memory stays bounded
// whatever the checkout holds.
const maxIndexedFiles = 200000

// foreignMarkers are path fragments of code that is not the workspace's own:
// standard libraries, installed packages, caches and toolchains.
var foreignMarkers = []string{
	"/site-packages/", "/dist-packages/", "/node_modules/", "/.cargo/registry/",
	"/.cargo/git/", "/.rustup/", "/go/pkg/mod/", "/pkg/mod/", "/usr/local/go/", "/usr/lib/go",
	"/usr/include/", "/usr/lib/", "/usr/local/lib/", "/usr/share/", "/.pyenv/", "/lib/python3",
	"/lib/python2", "/opt/hostedtoolcache/", "/.m2/repository/", "/.gradle/caches/",
	"/nix/store/", "/usr/local/include/", "/.nvm/", "/.local/lib/", "/.venv/lib/", "/venv/lib/",
	"/Library/Frameworks/", "/.rbenv/", "/jdk/", "/usr/lib/jvm/",
	"/.nuget/packages/", "/Program Files/", "/Program Files (x86)/", "/Windows Kits/", ":/Windows/",
	"/vendor/bundle/", "/.gem/", "/gems/",
}

// foreignPrefixes are path starts that are never workspace code.
var foreignPrefixes = []string{
	"<", "node:", "/rustc/", "/usr/bin/", "/bin/", "/lib/", "/lib64/", "/proc/", "/dev/",
	"webpack:", "[",
}

// ciRoots recognise the checkout roots of common CI systems and containers.
// The first group is the root.
var ciRoots = []*lazyre.Regexp{
	lazyre.New(`^(/home/runner/work/[^/]+/[^/]+)/`),
	lazyre.New(`^(/__w/[^/]+/[^/]+)/`),
	lazyre.New(`^(/github/workspace)/`),
	lazyre.New(`^(/builds/[^/]+/[^/]+)/`),
	lazyre.New(`^(/var/lib/jenkins/workspace/[^/]+)/`),
	lazyre.New(`^(/home/jenkins/agent/workspace/[^/]+)/`),
	lazyre.New(`^(/var/jenkins_home/workspace/[^/]+)/`),
	lazyre.New(`^(/home/vsts/work/\d+/s)/`),
	lazyre.New(`^(/drone/src)/`),
	lazyre.New(`^(/workspace/[^/]+)/`),
	lazyre.New(`^(/go/src/[^/]+/[^/]+/[^/]+)/`),
	lazyre.New(`^(/usr/src/app|/usr/app|/opt/app|/srv/app|/app|/code|/project|/repo|/workdir|/work|/build|/source)/`),
	lazyre.New(`^([A-Za-z]:/a/[^/]+/[^/]+)/`),
	lazyre.New(`(?i)^([A-Z]:/(?:[^/]+/)?_work/\d+/s)/`),
	lazyre.New(`(?i)^([A-Z]:/(?:ProgramData/)?Jenkins/(?:\.jenkins/)?workspace/[^/]+)/`),
	lazyre.New(`(?i)^([A-Z]:/GitLab-Runner/builds/[^/]+/[^/]+/[^/]+)/`),
	lazyre.New(`(?i)^([A-Z]:/projects/[^/]+)/`),
}

// resolver turns the paths a log mentions into repo-relative paths.
type resolver struct {
	cache  map[[2]string]resolved // recent answers; cleared when full
	root   string                 // the workspace root as the log sees it
	roots  []string               // roots learned from the log itself
	byBase map[string][]string    // workspace files by base name
	files  map[string]bool        // workspace files
}

func newResolver(root, workspace string) *resolver {
	r := &resolver{root: cleanRoot(root)}
	if workspace != "" {
		r.index(workspace)
		// A log made on this host names the workspace by its absolute
		// path: that is a root too, ahead of any the log teaches.
		if abs, err := filepath.Abs(workspace); err == nil {
			r.learnRoot(filepath.ToSlash(abs))
			if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
				r.learnRoot(filepath.ToSlash(real))
			}
		}
	}
	return r
}

func cleanRoot(root string) string {
	root = strings.ReplaceAll(root, `\`, "/")
	if root == "" {
		return ""
	}
	if hasDrive(root) {
		root = strings.ToUpper(root[:1]) + root[1:]
	}
	root = path.Clean(root)
	if root == "/" || root == "." {
		return ""
	}
	return root
}

// index walks the workspace once and remembers its files.
func (r *resolver) index(ws string) {
	r.byBase = map[string][]string{}
	r.files = map[string]bool{}
	n := 0
	_ = filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p != ws && (name == ".git" || name == "node_modules" || name == "target" || name == "__pycache__" || name == ".venv" || name == "venv") {
				return filepath.SkipDir
			}
			return nil
		}
		if n >= maxIndexedFiles {
			return filepath.SkipAll
		}
		rel, err := filepath.Rel(ws, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		n++
		r.files[rel] = true
		r.byBase[name] = append(r.byBase[name], rel)
		return nil
	})
	for _, v := range r.byBase {
		sort.Strings(v)
	}
}

// learnRoot remembers a root seen in the log (for example the directory a
// Go module lives in). Roots given by the caller come first.
func (r *resolver) learnRoot(root string) {
	root = cleanRoot(root)
	if root == "" || !hasPrefix(root, "/") && !hasDrive(root) || isForeign(root+"/") {
		return
	}
	for _, x := range r.roots {
		if x == root {
			return
		}
	}
	if len(r.roots) < 8 {
		r.roots = append(r.roots, root)
		r.cache = nil
	}
}

// isForeign reports whether p is code outside any workspace.
func isForeign(p string) bool {
	if hasPrefix(p, "internal/") && hasSuffix(p, ".js") {
		return true // Node's own modules, as older versions print them
	}
	for _, m := range foreignPrefixes {
		if hasPrefix(p, m) {
			return true
		}
	}
	return hasForeignMarker(p)
}

// hasForeignMarker reports whether p has a directory of installed code.
func hasForeignMarker(p string) bool {
	for _, m := range foreignMarkers {
		if strings.Contains(p, m) {
			return true
		}
	}
	return false
}

// resolution grades how sure the resolver is of a path.
type resolution int

const (
	resDrop    resolution = iota // outside the workspace
	resGuess                     // kept, but could not be confirmed
	resMatched                   // matched by suffix against the workspace
	resSure                      // under the root, or present in the workspace
)

// normalise cleans the spelling of a path without interpreting it.
func normalise(p string) string {
	p = strings.TrimSpace(p)
	p = strings.Trim(p, `"'`+"`")
	p = strings.TrimPrefix(p, "file://")
	p = strings.ReplaceAll(p, `\`, "/")
	if len(p) > 3 && p[0] == '/' && hasDrive(p[1:]) { // file:///C:/x
		p = p[1:]
	}
	if hasDrive(p) { // C:/x
		p = strings.ToUpper(p[:1]) + p[1:]
	}
	if p == "" {
		return ""
	}
	return path.Clean(p)
}

// resolve maps p, which the log wrote relative to base (itself relative to
// the root, or absolute), to a repo-relative path.
func (r *resolver) resolve(p, base string) (string, resolution) {
	k := [2]string{p, base}
	if v, ok := r.cache[k]; ok {
		return v.rel, v.res
	}
	rel, res := r.resolveUncached(p, base)
	if r.cache == nil || len(r.cache) >= 4096 {
		r.cache = map[[2]string]resolved{}
	}
	r.cache[[2]string{own(p), own(base)}] = resolved{own(rel), res}
	return rel, res
}

// resolved is a cached answer of resolve.
type resolved struct {
	rel string
	res resolution
}

func (r *resolver) resolveUncached(p, base string) (string, resolution) {
	p = normalise(p)
	if p == "" || p == "." {
		return "", resDrop
	}
	abs := hasPrefix(p, "/") || (len(p) > 2 && p[1] == ':')
	if !abs && base != "" {
		p = path.Join(base, p)
		abs = hasPrefix(p, "/")
	}
	if isForeign(p) || p == "native" || (!abs && hasForeignMarker("/"+p)) {
		return "", resDrop
	}
	if abs {
		if rel, ok := r.stripRoot(p); ok {
			if rel == "" || hasForeignMarker("/"+rel) {
				return "", resDrop
			}
			return r.confirm(rel, resSure)
		}
		if m := r.suffixMatch(p); m != "" {
			return m, resMatched
		}
		if r.root != "" || r.files != nil {
			return "", resDrop
		}
		return p, resGuess
	}
	if hasPrefix(p, "../") || p == ".." {
		if m := r.suffixMatch(p); m != "" {
			return m, resMatched
		}
		return "", resDrop
	}
	if r.files != nil {
		if r.files[p] {
			return p, resSure
		}
		if m := r.suffixMatch(p); m != "" {
			return m, resMatched
		}
		return p, resGuess
	}
	return p, resSure
}

// confirm checks a root-stripped path against the workspace index. A path
// the index holds keeps res. One it lacks is replaced by the workspace file
// it is a suffix of, when there is one (a root learned from the log may sit
// below the workspace root, as a Go package directory does), and is
// otherwise kept as a guess.
func (r *resolver) confirm(rel string, res resolution) (string, resolution) {
	if r.files == nil || r.files[rel] {
		return rel, res
	}
	if m := r.suffixMatch(rel); m != "" && hasSuffix(m, "/"+rel) {
		return m, resMatched
	}
	return rel, resGuess
}

// hasDrive reports whether p starts with a Windows drive: "C:/".
func hasDrive(p string) bool {
	return len(p) > 2 && p[1] == ':' && p[2] == '/' && (p[0] >= 'A' && p[0] <= 'Z' || p[0] >= 'a' && p[0] <= 'z')
}

// underRoot reports whether p lies under root, and the rest. Windows
// paths (with a drive) compare without regard to case, as Windows does.
func underRoot(p, root string) (string, bool) {
	if len(p) <= len(root) || p[len(root)] != '/' {
		return "", false
	}
	if p[:len(root)] == root || hasDrive(root) && strings.EqualFold(p[:len(root)], root) {
		return p[len(root)+1:], true
	}
	return "", false
}

// stripRoot removes the caller's root, a learned root or a CI root.
func (r *resolver) stripRoot(p string) (string, bool) {
	if r.root != "" {
		if p == r.root {
			return "", true
		}
		if rel, ok := underRoot(p, r.root); ok {
			return rel, true
		}
	}
	// The log may come from a CI or container checkout other than Root
	// (recorded elsewhere, replayed here): the known checkout roots and the
	// roots learned from the log still apply.
	for _, root := range r.roots {
		if rel, ok := underRoot(p, root); ok {
			return rel, true
		}
	}
	for _, re := range ciRoots {
		if m := re.FindStringSubmatch(p); m != nil {
			return p[len(m[1])+1:], true
		}
	}
	return "", false
}

// suffixMatch finds the workspace file whose path is the longest suffix of
// p (or of which p is a suffix), on path-element boundaries. Ties go to the
// shortest, then the first in sorted order, so the answer is deterministic.
func (r *resolver) suffixMatch(p string) string {
	if r.byBase == nil {
		return ""
	}
	cands := r.byBase[path.Base(p)]
	best, bestLen := "", 0
	for _, c := range cands {
		n := commonSuffixElems(p, c)
		if n > bestLen || (n == bestLen && n > 0 && len(c) < len(best)) {
			best, bestLen = c, n
		}
	}
	return best
}

// commonSuffixElems counts the trailing path elements a and b share.
func commonSuffixElems(a, b string) int {
	n := 0
	for {
		ia, ib := strings.LastIndexByte(a, '/'), strings.LastIndexByte(b, '/')
		ea, eb := a[ia+1:], b[ib+1:]
		if ea != eb || ea == "" {
			return n
		}
		n++
		if ia < 0 || ib < 0 {
			return n
		}
		a, b = a[:ia], b[:ib]
	}
}

// readWorkspaceFile reads a small file of the workspace, for go.mod.
func readWorkspaceFile(ws, rel string) string {
	if ws == "" {
		return ""
	}
	// A hostile build may leave a FIFO or a device under a reported name:
	// open without blocking, and read regular files only, at most 1 MiB.
	// The name comes from the log, and the repository may hold links:
	// open it under the workspace as an os.Root, so that neither ".." nor
	// a link leads the read out of it.
	root, err := os.OpenRoot(ws)
	if err != nil {
		return ""
	}
	defer root.Close()
	f, err := root.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || st.Size() > 1<<20 {
		return ""
	}
	b, err := io.ReadAll(io.LimitReader(f, 1<<20+1))
	if err != nil || len(b) > 1<<20 {
		return ""
	}
	return string(b)
}

// firstSourceLine returns the number of the first line of file, read from
// the workspace, for which match is true, or 0: without a workspace, for a
// file outside it, or when no line matches. It reads at most 1 MiB of the
// file, and is called only for findings, never per log line.
func (p *parser) firstSourceLine(file string, match func(n int, line string) bool) int {
	if p.opts.Workspace == "" {
		return 0
	}
	rel, res := p.res.resolve(file, p.base())
	if res == resDrop {
		return 0
	}
	text := readWorkspaceFile(p.opts.Workspace, rel)
	for n := 1; text != ""; n++ {
		line := text
		if j := strings.IndexByte(text, '\n'); j >= 0 {
			line, text = text[:j], text[j+1:]
		} else {
			text = ""
		}
		if match(n, line) {
			return n
		}
	}
	return 0
}

// findCall returns the first line of file, read from the workspace, that
// calls sym (not one that declares it), or 0.
func (p *parser) findCall(file, sym string) int {
	if sym == "" {
		return 0
	}
	return p.firstSourceLine(file, func(_ int, line string) bool { return isCallOf(strings.TrimSpace(line), sym) })
}

// findImport returns the first line of file, read from the workspace, that
// imports or requires a specifier containing spec, or 0.
func (p *parser) findImport(file, spec string) int {
	if spec == "" {
		return 0
	}
	return p.firstSourceLine(file, func(_ int, line string) bool {
		return strings.Contains(line, spec) &&
			(strings.Contains(line, "import") || strings.Contains(line, "from") || strings.Contains(line, "require("))
	})
}

// isCallOf reports whether the source line t calls sym: sym( appears as a
// whole word, and what precedes it is not a bare type (a declaration).
func isCallOf(t, sym string) bool {
	for off := 0; ; {
		i := strings.Index(t[off:], sym+"(")
		if i < 0 {
			i = strings.Index(t[off:], sym+" (")
		}
		if i < 0 {
			return false
		}
		i += off
		if i > 0 && (isWordByte(t[i-1])) {
			off = i + len(sym)
			continue
		}
		prefix := t[:i]
		if hasPrefix(t, "//") || hasPrefix(t, "*") || hasPrefix(t, "#") {
			return false
		}
		if prefix == "" || hasPrefix(prefix, "return") || strings.ContainsAny(prefix, "(=,+-/!|?\"{};") {
			return true
		}
		return false // "int sym(" and the like: a declaration
	}
}

// isWordByte reports whether c is a word byte, as \w reads it in a
// regular expression.
func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// sourceLineHas reports whether line n of file, read from the workspace,
// starts with prefix (after indentation). Without a workspace it is false.
// It reads at most 1 MiB of the file, and only for findings, never per
// log line.
func (p *parser) sourceLineHas(file string, n int, prefix string) bool {
	if n < 1 {
		return false
	}
	has := false
	p.firstSourceLine(file, func(i int, line string) bool {
		if i == n {
			has = hasPrefix(strings.TrimSpace(line), prefix)
		}
		return i >= n
	})
	return has
}
