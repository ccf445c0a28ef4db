package rules

import (
	"path"
	"strings"
)

// importers maps a file extension to the test of whether the tier's
// import rule for that language binds a name in a file of a workspace.
var importers = map[string]func(ws, file, name string) bool{
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

// Importable reports whether the rules tier can add the import that binds
// name in file (repo-relative, slash-separated) of workspace: a Go package
// of the standard library or of the file's module; a Python module of the
// standard library or of the project, or a name one sibling module
// defines; a JDK or project class for Java; a std item of the tier's
// table for Rust; a node built-in module or a name a module of the
// project exports for JavaScript and TypeScript. The language is the
// file's extension; it is false for any other. A name that can be
// imported is not a misspelling: the suggest tier asks this before it
// renames an undefined name to a near one.
func Importable(workspace, file, name string) bool {
	f := importers[strings.ToLower(path.Ext(file))]
	return f != nil && name != "" && f(workspace, file, name)
}

func goImportable(ws, file, name string) bool {
	_, _, ok := resolvePackage(ws, file, name)
	return ok
}

func pyImportable(ws, file, name string) bool {
	line, _ := pyImportFor(ws, file, name)
	return line != ""
}

func javaImportable(ws, file, name string) bool {
	loadIndexes()
	_, _, ok := resolveJavaType(name, javaProjectClasses(ws, file)[name], "")
	return ok
}

func rustImportable(_, _, name string) bool {
	_, ok := rustStd[name]
	return ok
}

func jsImportable(ws, file, name string) bool {
	loadIndexes()
	if nodeBuiltins[name] && isIdent(name) {
		return true
	}
	_, ok := jsModuleExporting(ws, file, name)
	return ok
}
