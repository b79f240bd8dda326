package zoo

import (
	"runtime/debug"
	"strings"
)

// Version returns the version of module path in the running binary, such as
// "v5.0.3", "(this module)" for this repository's own modules, or "unknown"
// when the binary carries no build information.
func Version(path string) string {
	if path == "github.com/backofflab/backofflab" || strings.HasPrefix(path, "github.com/backofflab/backofflab/") {
		return "(this repository)"
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, d := range info.Deps {
		if d.Path == path {
			if d.Replace != nil && d.Replace.Version != "" {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return "unknown"
}
