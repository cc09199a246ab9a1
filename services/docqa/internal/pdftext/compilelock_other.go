//go:build !unix

package pdftext

// lockCompile does not lock where there is no flock: each process
// compiles on its own, as without a cache.
func lockCompile(dir string) (unlock func(), err error) {
	return func() {}, nil
}
