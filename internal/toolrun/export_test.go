package toolrun

// WithoutPIDNamespace makes a run its own tests start use the subreaper
// fallback, as on a kernel that refuses new namespaces.
func WithoutPIDNamespace(a *Adapter) *Adapter {
	a.noPIDNamespace = true
	return a
}
