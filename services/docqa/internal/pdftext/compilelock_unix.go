//go:build unix

package pdftext

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
)

// lockCompile takes an exclusive lock on the compilation cache in dir and
// returns its release. Processes that start the engine on one cache at
// once (the test packages of a cold make test, replicas sharing a volume)
// then compile one after the other: the first compiles and writes the
// cache, the others wait and load it (a tenth of a second) instead of each
// compiling PDFium at once (under -race about 40 s of CPU each). The kernel
// releases the lock of a process that dies.
//
// The lock is a file beside the directory wazero keeps the process's
// compiled code in (cacheSubdir): processes that would not share the
// code do not wait on each other.
func lockCompile(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, cacheSubdir()+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// cacheSubdir is the directory of a compilation cache in which wazero
// keeps its compiled code, "wazero-VERSION-GOARCH-GOOS", VERSION being
// what its internal/version reads from the build: wazero's version among
// the dependencies, else the main module's, else "dev". A test binary of a
// package other than main carries no dependencies and so uses "dev"; the
// service binary and its tests, wazero's release.
func cacheSubdir() string {
	version := ""
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if strings.Contains(dep.Path, "github.com/tetratelabs/wazero") {
				version = dep.Version
			}
		}
		if version == "" || version == "(devel)" {
			version = info.Main.Version
		}
	}
	if version == "" || version == "(devel)" {
		version = "dev"
	}
	return "wazero-" + version + "-" + runtime.GOARCH + "-" + runtime.GOOS
}
