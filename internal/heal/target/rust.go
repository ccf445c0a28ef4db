package target

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/salve-dev/salve/internal/heal/undertest"
	"github.com/salve-dev/salve/internal/lazyre"
)

// A Rust test reaches the code under test by paths: an integration test
// in tests/ names the crate (`tiny_bank::fees::fee`) or what it `use`s,
// and a unit test in a `#[cfg(test)] mod tests` names `super::f` or what
// `use super::*` brings in. The resolver follows those paths lexically
// through the crate's module files and inline modules, and the method
// calls to the impls of the types the test names. A function of a test
// module is never returned.
var (
	rustUseRe  = lazyre.New(`(?s)\b(pub(?:\s*\([^)]*\))?\s+)?use\s+([^;]{1,1000});`)
	rustTomlRe = lazyre.New(`(?m)^\s*\[([\w.-]+)\]\s*$|^\s*name\s*=\s*"([\w-]{1,200})"`)
)

// Bound of a Rust resolution.
const maxRustHops = 8 // re-exports and modules followed for one path

// rustCrate is the crate a test belongs to.
type rustCrate struct {
	name string // the crate's name as code spells it (dashes as underscores)
	root string // repo-relative src/lib.rs or src/main.rs
}

// rustCalls resolves, lexically, the functions and methods a failing Rust
// test calls, to their definitions outside any test module.
func (r *resolver) rustCalls() []cand {
	t, ok := r.readTest([]string{".rs"}, rustLex)
	if !ok {
		return nil
	}
	cr, ok := r.rustCrate(path.Dir(t.rel))
	if !ok {
		return nil
	}
	uses := readRustUses(t.code)
	// The module the test's code sits in: for a unit test, the file's own
	// (its test module's `super`); for an integration test, none.
	self := t.rel
	if strings.HasPrefix(t.rel, path.Join(path.Dir(path.Dir(cr.root)), "tests")+"/") {
		self = ""
	}
	// A test at the top level of a module file (src/tests.rs, declared by
	// `#[cfg(test)] mod tests;`) has the file that declares it as super.
	super := self
	if self != "" && !rustInInlineModule(t) {
		super = r.rustParentModule(cr, self)
	}
	why := "called by " + t.name + " (lexical)"
	var types []rustItem // the types the test names, for method calls
	for _, p := range uses.named {
		if it, ok := r.rustResolveIn(cr, self, super, p); ok && it.typ {
			types = append(types, it)
		}
	}
	for _, g := range uses.globs {
		if it, ok := r.rustResolveIn(cr, self, super, g); ok && it.def == nil && !it.typ {
			types = append(types, it) // a module: its impls' methods
		}
	}
	slices.SortFunc(types, func(a, b rustItem) int {
		return strings.Compare(a.file+strings.Join(a.owners, "::"), b.file+strings.Join(b.owners, "::"))
	})
	var out []cand
	emit := func(it rustItem, c call) {
		d := it.def
		sym := d.symbol("::")
		if m := rustModPath(cr, it.file); m != "" {
			sym = m + "::" + sym
		}
		out = append(out, cand{Region: undertest.Region{Path: it.file, Start: d.start, End: d.end, Symbol: sym, Why: why}, name: c.name, line: c.line})
	}
	for _, c := range readCalls(t.code, t.from, t.to, t.lines) {
		if r.ctx.Err() != nil {
			break
		}
		switch {
		case c.macro || c.isNew:
			continue
		case c.member:
			for _, ty := range types {
				if it, ok := r.rustMember(ty, c.name); ok {
					emit(it, c)
				}
			}
			continue
		}
		p := append(slices.Clone(c.path), c.name)
		if u, ok := uses.named[p[0]]; ok {
			p = append(slices.Clone(u), p[1:]...)
		} else if !rustRoots[p[0]] && p[0] != cr.name {
			// A bare name: what a glob brings in, or, in a unit test, the
			// name of the file's module the test module sees.
			found := false
			for _, g := range uses.globs {
				if it, ok := r.rustResolveIn(cr, self, super, append(slices.Clone(g), p...)); ok && it.def != nil {
					emit(it, c)
					found = true
					break
				}
			}
			if found || self == "" {
				continue
			}
			p = append([]string{"self"}, p...)
		}
		if it, ok := r.rustResolveIn(cr, self, super, p); ok && it.def != nil {
			emit(it, c)
		}
	}
	return out
}

// rustRoots are the path elements a path may start with itself.
var rustRoots = map[string]bool{"crate": true, "self": true, "super": true}

// rustUses are the names the use declarations of code bring in, by the
// name each binds, and the modules its globs (`use super::*`) open.
type rustUses struct {
	named map[string][]string
	globs [][]string
}

func readRustUses(code string) rustUses {
	u := rustUses{named: map[string][]string{}}
	for _, m := range rustUseRe.FindAllStringSubmatch(code, 256) {
		for _, p := range expandUse(normUse(m[2]), nil, 0) {
			last := p[len(p)-1]
			switch {
			case last == "*":
				u.globs = append(u.globs, p[:len(p)-1])
			case len(p) > 2 && p[len(p)-2] == "as":
				u.named[last] = p[:len(p)-2]
			case last == "self" && len(p) > 1:
				u.named[p[len(p)-2]] = p[:len(p)-1]
			default:
				u.named[last] = p
			}
		}
	}
	return u
}

// normUse folds the white space of a use tree: none around "::", braces
// and commas, one space elsewhere (`b as c`).
func normUse(tree string) string {
	t := strings.Join(strings.Fields(tree), " ")
	for _, sep := range []string{"::", "{", "}", ","} {
		t = strings.ReplaceAll(strings.ReplaceAll(t, " "+sep, sep), sep+" ", sep)
	}
	return t
}

// expandUse expands a use tree (`a::{b,c::d as e,f::*}`) into paths, an
// alias kept as the elements "as", name.
func expandUse(tree string, prefix []string, depth int) [][]string {
	if depth > 4 || tree == "" {
		return nil
	}
	if i := strings.IndexByte(tree, '{'); i >= 0 && strings.HasSuffix(tree, "}") {
		base := append(slices.Clone(prefix), splitPath(strings.TrimSuffix(tree[:i], "::"))...)
		var out [][]string
		for _, part := range splitTop(tree[i+1 : len(tree)-1]) {
			out = append(out, expandUse(strings.TrimSpace(part), base, depth+1)...)
		}
		return out
	}
	name, alias, aliased := strings.Cut(tree, " as ")
	p := append(slices.Clone(prefix), splitPath(name)...)
	if aliased {
		p = append(p, "as", strings.TrimSpace(alias))
	}
	if len(p) == 0 {
		return nil
	}
	return [][]string{p}
}

func splitPath(s string) []string {
	var out []string
	for _, e := range strings.Split(s, "::") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// rustItem is where a path led: a function (def set) or a module or type
// (def nil) in a file, with the inline modules around it.
type rustItem struct {
	file   string
	owners []string // inline modules, and the type for a method
	def    *braceDef
	typ    bool // a struct, enum, trait or type alias
}

// rustResolve follows a path from the crate root (crate::, the crate's
// name), the test's module (self::, super:: for a unit test) through
// module files and inline modules, and `pub use` re-exports.
func (r *resolver) rustResolve(cr rustCrate, self string, p []string) (rustItem, bool) {
	return r.rustResolveIn(cr, self, self, p)
}

// rustResolveIn is rustResolve with super's file given apart from self's:
// super of an inline test module is its own file, of a module file the
// file that declares it.
func (r *resolver) rustResolveIn(cr rustCrate, self, super string, p []string) (rustItem, bool) {
	if len(p) == 0 {
		return rustItem{}, false
	}
	var at rustItem
	switch p[0] {
	case "crate", cr.name:
		at = rustItem{file: cr.root}
	case "self", "super":
		if self == "" {
			return rustItem{}, false
		}
		at = rustItem{file: self}
		if p[0] == "super" && super != "" {
			at = rustItem{file: super}
		}
	default:
		return rustItem{}, false
	}
	rest := p[1:]
	for hops := 0; len(rest) > 0 && hops < maxRustHops && r.ctx.Err() == nil; hops++ {
		name := rest[0]
		if name == "super" || name == "self" {
			rest = rest[1:]
			continue
		}
		src, ok := r.read(at.file)
		if !ok {
			return rustItem{}, false
		}
		_, defs := braceDefs(string(src), rustLex)
		if len(rest) == 1 {
			for i, d := range defs {
				if d.name == name && !d.test && !d.nested && slices.Equal(d.owners, at.owners) {
					return rustItem{file: at.file, owners: at.owners, def: &defs[i]}, true
				}
			}
		}
		if next, ok := r.rustModule(at, string(src), name); ok {
			at, rest = next, rest[1:]
			continue
		}
		if len(rest) == 2 { // Type::method
			if it, ok := r.rustMember(rustItem{file: at.file, owners: append(slices.Clone(at.owners), name), typ: true}, rest[1]); ok {
				return it, true
			}
		}
		if target, ok := rustReexport(string(src), name); ok {
			p := append(target, rest[1:]...)
			if p[0] != "crate" && p[0] != "self" && p[0] != "super" && p[0] != cr.name {
				p = append([]string{"self"}, p...)
			}
			if p[0] == "self" || p[0] == "super" {
				return r.rustResolve(cr, at.file, p)
			}
			return r.rustResolve(cr, self, p)
		}
		if len(rest) == 1 && rustDeclaresType(string(src), name) {
			return rustItem{file: at.file, owners: append(slices.Clone(at.owners), name), typ: true}, true
		}
		return rustItem{}, false
	}
	if len(rest) == 0 {
		return at, true
	}
	return rustItem{}, false
}

// rustModule steps into module name from at: an inline `mod name {…}`
// or the file the module declaration names (name.rs, name/mod.rs).
func (r *resolver) rustModule(at rustItem, src, name string) (rustItem, bool) {
	code := rustLex.Code(src)
	if !regexp.MustCompile(`\bmod\s+` + regexp.QuoteMeta(name) + `\s*[;{]`).MatchString(code) {
		return rustItem{}, false
	}
	for _, b := range braceBlocks(code) {
		if h := strings.Fields(annotationRe.ReplaceAllString(b.header, " ")); len(h) >= 2 && h[len(h)-2] == "mod" && h[len(h)-1] == name {
			return rustItem{file: at.file, owners: append(slices.Clone(at.owners), name)}, true
		}
	}
	dir := path.Dir(at.file)
	if base := path.Base(at.file); base != "lib.rs" && base != "main.rs" && base != "mod.rs" {
		dir = path.Join(dir, strings.TrimSuffix(base, ".rs"))
	}
	for _, dirs := range at.owners {
		dir = path.Join(dir, dirs)
	}
	for _, f := range []string{path.Join(dir, name+".rs"), path.Join(dir, name, "mod.rs")} {
		if rel, ok := r.w.file(f); ok && !isTestFile(rel) {
			return rustItem{file: rel}, true
		}
	}
	return rustItem{}, false
}

// rustReexport finds `pub use path::name;` (or name in a braces list) in
// a module's source and returns the path.
func rustReexport(src, name string) ([]string, bool) {
	code := rustLex.Code(src)
	for _, m := range rustUseRe.FindAllStringSubmatch(code, 256) {
		if m[1] == "" {
			continue
		}
		for _, p := range expandUse(normUse(m[2]), nil, 0) {
			last := p[len(p)-1]
			switch {
			case len(p) > 2 && p[len(p)-2] == "as" && last == name:
				return p[:len(p)-2], true
			case last == name:
				return p, true
			}
		}
	}
	return nil, false
}

// rustDeclaresType reports whether src declares a struct, enum, trait or
// type alias called name.
func rustDeclaresType(src, name string) bool {
	return regexp.MustCompile(`\b(?:struct|enum|trait|type|union)\s+` + regexp.QuoteMeta(name) + `\b`).MatchString(rustLex.Code(src))
}

// rustMember finds method name in an impl of the type ty names, or of
// any type of the module ty names, in ty's file, outside test code.
func (r *resolver) rustMember(ty rustItem, name string) (rustItem, bool) {
	if ty.def != nil || ty.typ && len(ty.owners) == 0 {
		return rustItem{}, false
	}
	src, ok := r.read(ty.file)
	if !ok {
		return rustItem{}, false
	}
	_, defs := braceDefs(string(src), rustLex)
	for i, d := range defs {
		var in bool
		if ty.typ { // a method of the type's impls
			in = slices.Equal(d.owners, ty.owners)
		} else { // a method of any impl of the module
			in = len(d.owners) == len(ty.owners)+1 && slices.Equal(d.owners[:len(ty.owners)], ty.owners)
		}
		if d.name == name && !d.test && !d.nested && in {
			return rustItem{file: ty.file, owners: d.owners, def: &defs[i]}, true
		}
	}
	return rustItem{}, false
}

// rustCrate finds the Cargo.toml at or above dir: the crate's name (its
// [lib] name, else its [package] name) and its root source.
func (r *resolver) rustCrate(dir string) (rustCrate, bool) {
	for d := dir; ; d = path.Dir(d) {
		if rel, ok := r.w.file(path.Join(d, "Cargo.toml")); ok {
			b, ok := r.read(rel)
			if !ok {
				return rustCrate{}, false
			}
			cr := rustCrate{}
			section := ""
			for _, m := range rustTomlRe.FindAllStringSubmatch(string(b), 256) {
				switch {
				case m[1] != "":
					section = m[1]
				case section == "lib" || section == "package" && cr.name == "":
					cr.name = strings.ReplaceAll(m[2], "-", "_")
				}
			}
			for _, root := range []string{"src/lib.rs", "src/main.rs"} {
				if f, ok := r.w.file(path.Join(path.Dir(rel), root)); ok {
					cr.root = f
					return cr, cr.name != ""
				}
			}
			return rustCrate{}, false
		}
		if d == "." || d == "/" || d == "" {
			return rustCrate{}, false
		}
	}
}

// rustModPath names a file's module in its crate: src/fees.rs -> "fees",
// src/a/mod.rs -> "a", the crate root -> "".
func rustModPath(cr rustCrate, file string) string {
	srcDir := path.Dir(cr.root)
	rel, ok := strings.CutPrefix(file, srcDir+"/")
	if !ok || file == cr.root {
		return ""
	}
	rel = strings.TrimSuffix(strings.TrimSuffix(rel, ".rs"), "/mod")
	return strings.ReplaceAll(rel, "/", "::")
}

// rustInInlineModule reports whether the failing test sits inside a
// module block of its file (`mod tests { … }`).
func rustInInlineModule(t testSource) bool {
	for _, d := range t.defs {
		if d.open == t.from {
			return len(d.owners) > 0
		}
	}
	return true
}

// rustParentModule is the file that declares the module file's module:
// src/a/b.rs and src/a/b/mod.rs are declared in src/a.rs or src/a/mod.rs,
// and a module of the source root in the crate root. It returns file
// itself when none is found.
func (r *resolver) rustParentModule(cr rustCrate, file string) string {
	dir := path.Dir(file)
	if path.Base(file) == "mod.rs" {
		dir = path.Dir(dir)
	}
	if dir == path.Dir(cr.root) {
		return cr.root
	}
	for _, c := range []string{dir + ".rs", path.Join(dir, "mod.rs")} {
		if f, ok := r.w.file(c); ok {
			return f
		}
	}
	return file
}
