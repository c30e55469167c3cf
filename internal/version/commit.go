package version

import (
	"runtime/debug"
	"sync"
)

// commit is set by `make build` (-ldflags -X), where go build's own
// record may be off (-buildvcs=false).
var commit string

// Commit is the git commit that gpuc was built from, with "+dirty" if
// the tree had changes, or "" where the build recorded none (make build
// and go build in a git checkout record it; go test does not).
var Commit = sync.OnceValue(func() string {
	if commit != "" {
		return commit
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev string
	var dirty bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "+dirty"
	}
	return rev
})

// Full is the version and, where known, the commit: "0.1.0-dev (abc123...)".
func Full() string {
	if c := Commit(); c != "" {
		return Version + " (" + c + ")"
	}
	return Version
}
