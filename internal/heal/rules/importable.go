package rules

import (
	"path"
	"strings"
)

// importers maps a file extension to the test of whether the tier's
// import rule for that language binds a name in a file of a workspace.
var importers = map[string]func(ws, file, content, name string) bool{
	".go":   goImportable,
	".py":   pyImportable,
	".java": javaImportable,
	".rs":   rustImportable,
}

func init() {
	for _, x := range []string{".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"} {
		importers[x] = jsImportable
	}
}

// Importable reports whether the rules tier adds the import that binds
// name in file (repo-relative, slash-separated) of workspace, whose
// current text is content, when a report says name is undefined there:
// a Go package of the standard library or of the file's module that the
// file uses as a package (name.Sel); a Python module of the standard
// library or of the project that the file uses as a module (name.attr);
// a JDK or project class for Java; a std item of the tier's table for
// Rust; a node built-in module or a name a module of the project exports
// for JavaScript and TypeScript (a built-in only when the file declares no
// name close to it). The language is the file's extension; it is false for any other.
//
// A name that can be imported is missing its import, not misspelt: the
// suggest tier asks this before it renames an undefined name to a near
// one, so that the two tiers never disagree on a name.
func Importable(workspace, file, content, name string) bool {
	f := importers[strings.ToLower(path.Ext(file))]
	return f != nil && name != "" && f(workspace, file, content, name)
}

func goImportable(ws, file, content, name string) bool {
	_, _, ok := resolvePackage(ws, file, name)
	return ok && goUsedAsPackage(content, name)
}

func pyImportable(ws, file, content, name string) bool {
	line, _ := pyImportFor(ws, file, name)
	src := strings.Split(content, "\n")
	used := false
	for i := range src {
		used = used || pyUsedAsModule(src, i+1, name)
	}
	return line != "" && pyImportWins(line, used)
}

func javaImportable(ws, file, content, name string) bool {
	loadIndexes()
	if javaKnownTypes(content)[name] || isConstantCase(name) {
		return false
	}
	_, _, ok := resolveJavaType(name, javaProjectClasses(ws, file)[name], javaOwnPackage(content))
	return ok
}

func rustImportable(_, _, _, name string) bool {
	_, ok := rustStd[name]
	return ok
}

func jsImportable(ws, file, content, name string) bool {
	loadIndexes()
	if jsDeclares(content, name) {
		return false
	}
	if nodeBuiltins[name] && isIdent(name) {
		return !jsDeclaresClose(content, name)
	}
	_, ok := jsModuleExporting(ws, file, name)
	return ok
}
