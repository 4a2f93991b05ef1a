package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// logFlushEvery is how long an info or debug line may wait in the buffer.
const logFlushEvery = 100 * time.Millisecond

// bufferedLog collects log lines and writes them out together: under load the binary logs
// every request, and a write to standard error per line costs a system call each. A line
// waits at most logFlushEvery; warnings and errors are written at once (flushOnWarn), and
// Close writes what is left.
type bufferedLog struct {
	mu    sync.Mutex
	w     *bufio.Writer
	dirty bool
	stop  chan struct{}
	done  chan struct{}
}

func newBufferedLog(w io.Writer, every time.Duration) *bufferedLog {
	b := &bufferedLog{w: bufio.NewWriterSize(w, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(b.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				b.Flush()
			case <-b.stop:
				return
			}
		}
	}()
	return b
}

func (b *bufferedLog) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.dirty = true
	return b.w.Write(p)
}

// Flush writes out every buffered line.
func (b *bufferedLog) Flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dirty {
		_ = b.w.Flush()
		b.dirty = false
	}
}

// Close stops the timer and writes what is left; nothing is written after it returns.
func (b *bufferedLog) Close() {
	close(b.stop)
	<-b.done
	b.Flush()
}

// flushOnWarn writes a warning or an error out at once, with every line before it.
type flushOnWarn struct {
	slog.Handler
	buf *bufferedLog
}

func (h flushOnWarn) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		h.buf.Flush()
	}
	return err
}

func (h flushOnWarn) WithAttrs(as []slog.Attr) slog.Handler {
	return flushOnWarn{Handler: h.Handler.WithAttrs(as), buf: h.buf}
}

func (h flushOnWarn) WithGroup(name string) slog.Handler {
	return flushOnWarn{Handler: h.Handler.WithGroup(name), buf: h.buf}
}
