//go:build !windows

package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// dieBySignal ends the process with sig's default action.
func dieBySignal(sig os.Signal) {
	signal.Reset(sig)
	if s, ok := sig.(syscall.Signal); ok {
		_ = syscall.Kill(syscall.Getpid(), s)
		// The runtime may handle the signal on another thread: give it time before the
		// fallback exit, which would hide that the process died by the signal.
		time.Sleep(time.Second)
	}
	os.Exit(128 + 2) // the shell's status for death by SIGINT
}
