package main

import (
	"context"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWatchSignalsSecondSignalDies: the first signal cancels the context and the second,
// read from the same channel, reaches die; nothing is lost between them.
func TestWatchSignalsSecondSignalDies(t *testing.T) {
	sigs := make(chan os.Signal) // unbuffered: each send completes only when watchSignals reads it
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	died := make(chan os.Signal, 1)
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		watchSignals(ctx, sigs, cancel, func(s os.Signal) { died <- s })
	}()
	sigs <- syscall.SIGTERM
	<-ctx.Done()
	require.Empty(t, died, "the first signal only cancels")
	sigs <- os.Interrupt
	<-returned
	assert.Equal(t, os.Interrupt, <-died)
}

// TestWatchSignalsReturnsWithoutSignal: a context ended by the caller stops the watcher
// without calling die.
func TestWatchSignalsReturnsWithoutSignal(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	called := false
	watchSignals(ctx, make(chan os.Signal), cancel, func(os.Signal) { called = true })
	assert.False(t, called)
}
