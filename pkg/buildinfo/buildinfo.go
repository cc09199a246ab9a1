// Package buildinfo says which build a binary is: the version stamped into
// it at build time (`make build` passes `git describe` through -ldflags
// "-X main.version=..."), the commit Go recorded, and the toolchain. Each
// binary prints it for --version and exports it as the build_info metric.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// Info describes one build.
type Info struct {
	Service string
	// Version is what the build stamped ("dev" when nothing was).
	Version string
	// Revision is the commit Go recorded (vcs.revision, with "+dirty"
	// when the tree had changes), or "" when none was (a build outside a
	// checkout).
	Revision  string
	GoVersion string
}

// Read describes the running binary; version is main's stamped variable.
func Read(service, version string) Info {
	if version == "" {
		version = "dev"
	}
	info := Info{Service: service, Version: version, GoVersion: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if rev != "" {
			info.Revision = rev
			if modified == "true" {
				info.Revision += "+dirty"
			}
		}
	}
	return info
}

// IsVersionFlag reports whether args (without the program's name) ask for
// the version alone: --version, -version or version.
func IsVersionFlag(args []string) bool {
	return len(args) == 1 && (args[0] == "--version" || args[0] == "-version" || args[0] == "version")
}

// String is the --version line.
func (i Info) String() string {
	rev := ""
	if i.Revision != "" {
		rev = "revision " + i.Revision + ", "
	}
	return fmt.Sprintf("%s %s (%s%s, %s/%s)", i.Service, i.Version, rev, i.GoVersion, runtime.GOOS, runtime.GOARCH)
}

// Register adds build_info{service,version,revision,goversion} 1 to reg.
func (i Info) Register(reg prometheus.Registerer) error {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "build_info",
		Help: "The running build: its stamped version, the commit it was built from and the Go toolchain; always 1.",
	}, []string{"service", "version", "revision", "goversion"})
	g.WithLabelValues(i.Service, i.Version, i.Revision, i.GoVersion).Set(1)
	return reg.Register(g)
}
