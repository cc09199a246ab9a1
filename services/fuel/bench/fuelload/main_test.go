package main

import (
	"os"
	"runtime"
	"testing"
	"time"
)

func TestParseStatCPU(t *testing.T) {
	// utime 250 and stime 50 ticks; the command name holds a space and a ")".
	stat := "4242 (fuel service) x) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 50 0 0 20 0 9 0 123 456 789\n"
	got, err := parseStatCPU(stat)
	if err != nil {
		t.Fatal(err)
	}
	if want := 3 * time.Second; got != want {
		t.Errorf("parseStatCPU = %s, want %s", got, want)
	}
	for _, bad := range []string{"", "4242 fuel S 1", "4242 (fuel) S 1 2 3", "4242 (fuel) S 1 4242 4242 0 -1 4194560 1000 0 0 0 x 50 0"} {
		if _, err := parseStatCPU(bad); err == nil {
			t.Errorf("parseStatCPU(%q) gave no error", bad)
		}
	}
}

func TestProcessCPUOfThisProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("processCPU reads /proc, which only Linux has here")
	}
	before, err := processCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Burn CPU until the kernel's count moves (it ticks 100 times a second).
	deadline := time.Now().Add(10 * time.Second)
	x := 0
	for time.Now().Before(deadline) {
		for i := 0; i < 1e6; i++ {
			x += i
		}
		after, err := processCPU(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if after > before {
			return
		}
	}
	t.Errorf("the process's CPU time did not grow from %s in 10 s of work (%d)", before, x)
}
