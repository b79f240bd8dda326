package zoo

import (
	_ "embed"
	"runtime/debug"
	"strings"
)

// goMod is this module's go.mod: the versions it pins, for binaries built
// without module information (test binaries).
//
//go:embed go.mod
var goMod string

// Version returns the version of module path in the running binary, such as
// "v5.0.3", or "(this repository)" for this repository's own modules. When
// the binary does not record it (test binaries), it is the version this
// module's go.mod requires, and "unknown" if it requires none.
func Version(path string) string {
	if path == "github.com/backofflab/backofflab" || strings.HasPrefix(path, "github.com/backofflab/backofflab/") {
		return "(this repository)"
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == path {
				if d.Replace != nil && d.Replace.Version != "" {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	for line := range strings.Lines(goMod) {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "require" {
			f = f[1:]
		}
		if len(f) >= 2 && f[0] == path {
			return f[1]
		}
	}
	return "unknown"
}
