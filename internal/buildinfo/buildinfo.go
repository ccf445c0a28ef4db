// Package buildinfo gives salve's binaries one version string.
//
// A release build stamps the version from the git tag at link time
// (-ldflags "-X main.version=v1.2.3", as `make build` and `make dist` do).
// A binary built with `go install github.com/salve-dev/salve/cmd/...@v1.2.3`
// carries no stamp, so the module version Go records in the binary is used;
// a plain `go build` in a checkout falls back to the VCS revision Go
// records, marked "-dirty" when the tree had changes, and to "dev" when
// even that is missing.
package buildinfo

import "runtime/debug"

// Version returns the version string: stamped when it is set (not "" and
// not "dev"), else what the Go build information holds.
func Version(stamped string) string {
	if stamped != "" && stamped != "dev" {
		return stamped
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	return fromBuildInfo(info)
}

func fromBuildInfo(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "dev-" + rev
}
