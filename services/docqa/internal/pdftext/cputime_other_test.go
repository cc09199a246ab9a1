//go:build !unix

package pdftext

import "time"

// cpuTime is not measured here: pages/cpu-s reads as +Inf.
func cpuTime() time.Duration { return 0 }
