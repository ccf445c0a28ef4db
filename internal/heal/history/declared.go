package history

// Declared returns the name one line of a file at p declares, read with
// the tier's table of declaration lines (a function, a type, a variable or
// constant, a class, a macro): the heal's reach of a fix that spans files
// finds the declaration of a name with it. ok is false when the line
// declares nothing the table knows, or the tier does not know p's
// language.
func Declared(line, p string) (name string, ok bool) {
	fam := familyOf(p)
	if fam == "" {
		return "", false
	}
	d, ok := declOf(line, p, fam)
	return d.name, ok
}

// SameFamily reports whether files at a and b may name each other's
// declarations: both Go; C or C++; Python; JavaScript or TypeScript;
// Java; Rust.
func SameFamily(a, b string) bool {
	fa := familyOf(a)
	return fa != "" && fa == familyOf(b)
}
