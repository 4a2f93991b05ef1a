package main

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestBufferedLog: info lines wait in the buffer, a warning writes them out with itself at
// once, and Close writes what is left. The timer is an hour, so only those three write.
func TestBufferedLog(t *testing.T) {
	var out lockedBuffer
	buf := newBufferedLog(&out, time.Hour)
	log := slog.New(flushOnWarn{Handler: slog.NewTextHandler(buf, nil), buf: buf}).With("server", "mock")
	log.Info("request", "n", 1)
	log.Info("request", "n", 2)
	assert.Empty(t, out.String(), "info lines are buffered")
	log.Warn("stalled")
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	assert.Len(t, lines, 3, "the warning and every line before it")
	assert.Contains(t, lines[2], "level=WARN msg=stalled server=mock")
	log.Info("request", "n", 3)
	buf.Close()
	assert.Contains(t, out.String(), "n=3", "Close writes the rest")
}
