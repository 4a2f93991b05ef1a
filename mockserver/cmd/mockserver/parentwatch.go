package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"time"
)

// parentPollInterval is how often the parent watch compares the parent process id: the
// longest a mock server outlives its parent.
const parentPollInterval = 200 * time.Millisecond

// watchParent cancels when the parent process goes away. A harness that loses its child,
// `go run` stopped by SIGTERM among them (the go command dies and leaves the built program
// running), would otherwise leave a server holding its port for the rest of a CI job. When the
// parent exits the kernel hands the process to another parent (init or a subreaper), so the
// parent process id changes; polling it needs no platform-specific call. On Windows the id does
// not change and the watch never fires.
func watchParent(ctx context.Context, cancel func(), getppid func() int, tick <-chan time.Time) {
	start := getppid()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			if getppid() != start {
				cancel()
				return
			}
		}
	}
}

// watchStdin cancels when r reaches its end or fails: the harness closed the pipe, or
// exited and the kernel closed it. Whatever is written to standard input is read and
// dropped.
func watchStdin(cancel func(), r io.Reader) {
	_, _ = io.Copy(io.Discard, r)
	cancel()
}

// exitWatches starts the watches the flags ask for (-exit-with-parent, -exit-on-stdin-close);
// the returned context ends when one fires, saying which on the log, or when parent ends.
func exitWatches(parent context.Context, logger *slog.Logger, withParent, onStdinClose bool) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	if withParent {
		t := time.NewTicker(parentPollInterval)
		go func() {
			defer t.Stop()
			watchParent(ctx, func() {
				logger.Info("parent process exited (-exit-with-parent)")
				cancel()
			}, os.Getppid, t.C)
		}()
	}
	if onStdinClose {
		go watchStdin(func() {
			if ctx.Err() == nil {
				logger.Info("standard input closed (-exit-on-stdin-close)")
			}
			cancel()
		}, os.Stdin)
	}
	return ctx, cancel
}
