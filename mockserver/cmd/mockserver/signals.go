package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// notifyShutdown returns a context cancelled by the first SIGINT or SIGTERM; a second one kills
// the process at once (by that signal, so the exit status says so), for a Ctrl-C that must
// not wait for a webhook receiver that hangs. Both signals arrive on one channel, so the
// second can never reach a handler that is already gone, as it could when the first
// handler was removed from another goroutine.
func notifyShutdown(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go watchSignals(ctx, sigs, cancel, dieBySignal)
	return ctx, func() {
		signal.Stop(sigs)
		cancel()
	}
}

// watchSignals cancels on the first signal and calls die with the second. It returns when
// ctx ends without a first signal, or after die.
func watchSignals(ctx context.Context, sigs <-chan os.Signal, cancel context.CancelFunc, die func(os.Signal)) {
	select {
	case <-sigs:
		cancel()
	case <-ctx.Done():
		return
	}
	die(<-sigs)
}
