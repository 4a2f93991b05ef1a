package main

import (
	"bytes"
	"context"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestQuickTextMatchesSlog: the binary's text handler writes every record as
// slog.TextHandler does, byte for byte: the plain lines it writes itself (times in several
// zones and seconds, every level, each attribute kind it takes) and every line it hands to
// slog (texts slog quotes, kinds it does not take, attributes added with With).
func TestQuickTextMatchesSlog(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		berlin = time.FixedZone("CET", 3600)
	}
	base := time.Date(2026, 11, 27, 22, 6, 21, 992_345_678, time.UTC)
	texts := []string{"request", "/v1/tasks", "POST", "a-b_c.d~e/f:g", "with space", "k=v", `say "hi"`, `back\slash`,
		"", "tab\there", "naïve", "\x7f", "+", "a,b;c", "é"}
	attr := func(rng *rand.Rand) slog.Attr {
		key := texts[rng.IntN(len(texts))]
		if rng.IntN(3) > 0 {
			key = []string{"method", "path", "status", "took", "fault"}[rng.IntN(5)]
		}
		switch rng.IntN(8) {
		case 0, 1:
			return slog.String(key, texts[rng.IntN(len(texts))])
		case 2:
			return slog.Int(key, rng.IntN(1000)-500)
		case 3:
			return slog.Uint64(key, rng.Uint64())
		case 4:
			return slog.Bool(key, rng.IntN(2) == 0)
		case 5:
			return slog.Duration(key, time.Duration(rng.Int64N(int64(3*time.Second))))
		case 6:
			return slog.Float64(key, rng.Float64()) // not taken: slog's
		default:
			return slog.Time(key, base) // not taken: slog's
		}
	}
	levels := []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError, slog.LevelInfo + 2}
	rng := rand.New(rand.NewPCG(1, 2))
	var records []slog.Record
	for i := range 2000 {
		// Times a few ms apart run through many seconds; every 50th jumps zones, days,
		// and years that slog writes in another width.
		at := base.Add(time.Duration(i) * 7_300 * time.Microsecond)
		switch i % 50 {
		case 10:
			at = at.In(berlin)
		case 20:
			at = time.Date(2026, 3, 29, 1, 59, 59, 999_000_000, berlin).Add(time.Duration(i) * time.Microsecond)
		case 30:
			at = time.Date(12345, 1, 1, 0, 0, 0, 5_000_000, time.UTC)
		case 40:
			at = time.Time{}
		case 41:
			at = time.Now() // a monotonic reading, which slog strips
		}
		msg := texts[rng.IntN(len(texts))]
		if i%2 == 0 {
			msg = "request"
		}
		r := slog.NewRecord(at, levels[rng.IntN(len(levels))], msg, 0)
		for range rng.IntN(7) {
			r.AddAttrs(attr(rng))
		}
		records = append(records, r)
	}

	for _, with := range [][]slog.Attr{nil, {slog.String("server", "mock")}} {
		var got, want bytes.Buffer
		opts := &slog.HandlerOptions{Level: slog.LevelDebug}
		var quick slog.Handler = newQuickText(&got, opts)
		var std slog.Handler = slog.NewTextHandler(&want, opts)
		if with != nil {
			quick, std = quick.WithAttrs(with), std.WithAttrs(with)
		}
		for _, r := range records {
			if err := quick.Handle(context.Background(), r); err != nil {
				t.Fatal(err)
			}
			if err := std.Handle(context.Background(), r); err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff(strings.Split(want.String(), "\n"), strings.Split(got.String(), "\n")); diff != "" {
			t.Errorf("with %v: lines differ from slog's (-slog +quick):\n%s", with, diff)
		}
	}
}

// TestQuickTextWritesPlainLines: the request line is the plain case, written without slog
// (its time from the second's cached text), so the test above compares the quick path and
// not only slog with itself.
func TestQuickTextWritesPlainLines(t *testing.T) {
	h := newQuickText(&bytes.Buffer{}, nil)
	at := time.Date(2026, 11, 27, 22, 6, 21, 992_000_000, time.UTC)
	for _, tc := range []struct {
		at   time.Time
		want string
	}{
		{at, "time=2026-11-27T22:06:21.992Z level=INFO msg=request method=POST path=/v1/tasks status=202 took=1.5ms\n"},
		{at.Add(3 * time.Millisecond), "time=2026-11-27T22:06:21.995Z level=INFO msg=request method=POST path=/v1/tasks status=202 took=1.5ms\n"},
	} {
		r := slog.NewRecord(tc.at, slog.LevelInfo, "request", 0)
		r.AddAttrs(slog.String("method", "POST"), slog.String("path", "/v1/tasks"), slog.Int("status", 202), slog.Duration("took", 1500*time.Microsecond))
		line, ok := h.appendLine(nil, r)
		if !ok {
			t.Fatalf("the request line at %v went to slog", tc.at)
		}
		if diff := cmp.Diff(tc.want, string(line)); diff != "" {
			t.Errorf("line (-want +got):\n%s", diff)
		}
	}
}
