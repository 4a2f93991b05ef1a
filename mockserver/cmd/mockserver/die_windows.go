package main

import (
	"os"
	"syscall"
)

// dieBySignal ends the process at once. Windows has no signal to die by; the status is the
// one a shell gives a process killed by sig, as on other systems.
func dieBySignal(sig os.Signal) {
	if s, ok := sig.(syscall.Signal); ok {
		os.Exit(128 + int(s))
	}
	os.Exit(128 + 2)
}
