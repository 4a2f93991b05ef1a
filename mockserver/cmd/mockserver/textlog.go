package main

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// quickText is the binary's text log handler: it writes the lines slog.TextHandler writes,
// byte for byte, and hands every line it is not sure of to that handler. Under load the
// binary logs every request, and slog's text handler spends about as many instructions on
// that line as the mock server spends on the create itself outside net/http (formatting its
// time alone, about 3,000); a plain line here costs a fraction of that, mostly because the
// time's date and clock are formatted once per second, not once per line.
//
// It writes a record itself when the handler has no attributes or groups of its own (With
// goes to slog's handler), and every attribute is a string, integer, boolean or duration
// whose key and text slog would print unquoted (printable ASCII without space, '=', '"' or
// '\'); anything else is slog's. TestQuickTextMatchesSlog holds the two to the same bytes.
type quickText struct {
	slog.Handler // slog.NewTextHandler(w, opts), for every other record and for Enabled
	w            io.Writer
	mu           *sync.Mutex // shared by copies: one line's Write at a time, as slog's own handler
	clock        *clockCache
}

// newQuickText writes to w; of opts it honours Level only (the binary sets nothing else):
// a ReplaceAttr or AddSource would have to send every record to slog's handler.
func newQuickText(w io.Writer, opts *slog.HandlerOptions) quickText {
	return quickText{Handler: slog.NewTextHandler(w, opts), w: w, mu: new(sync.Mutex), clock: new(clockCache)}
}

// clockCache is the text of the last second a line was written in: "2006-01-02T15:04:05."
// and the zone after the milliseconds ("Z", "+01:00"). A zone's offset changes only on a
// whole second, so within one second and one location only the milliseconds differ.
type clockCache struct {
	sec    int64
	loc    *time.Location
	prefix []byte
	zone   []byte
}

func (h quickText) Handle(ctx context.Context, r slog.Record) error {
	var stack [256]byte
	line, ok := h.appendLine(stack[:0], r)
	if !ok {
		return h.Handler.Handle(ctx, r)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := h.w.Write(line)
	return err
}

// appendLine appends the record's line as slog.TextHandler writes it, or reports false when
// the record needs anything but the plain case.
func (h quickText) appendLine(b []byte, r slog.Record) ([]byte, bool) {
	if !plainText(r.Message) {
		return nil, false
	}
	if !r.Time.IsZero() {
		b = append(b, "time="...)
		b = h.appendTime(b, r.Time) // a monotonic reading changes none of the text
		b = append(b, ' ')
	}
	lv := r.Level.String()
	if !plainText(lv) {
		return nil, false
	}
	b = append(b, "level="...)
	b = append(b, lv...)
	b = append(b, " msg="...)
	b = append(b, r.Message...)
	ok := true
	r.Attrs(func(a slog.Attr) bool {
		if !plainText(a.Key) {
			ok = false
			return false
		}
		b = append(b, ' ')
		b = append(b, a.Key...)
		b = append(b, '=')
		switch v := a.Value; v.Kind() {
		case slog.KindString:
			if ok = plainText(v.String()); ok {
				b = append(b, v.String()...)
			}
		case slog.KindInt64:
			b = strconv.AppendInt(b, v.Int64(), 10)
		case slog.KindUint64:
			b = strconv.AppendUint(b, v.Uint64(), 10)
		case slog.KindBool:
			b = strconv.AppendBool(b, v.Bool())
		case slog.KindDuration:
			b = append(b, v.Duration().String()...)
		default:
			ok = false
		}
		return ok
	})
	if !ok {
		return nil, false
	}
	return append(b, '\n'), true
}

// appendTime is slog's text time (RFC 3339 with milliseconds: 2006-01-02T15:04:05.000Z07:00)
// with the second's text reused.
func (h quickText) appendTime(b []byte, t time.Time) []byte {
	sec, ms := t.Unix(), t.Nanosecond()/int(time.Millisecond)
	h.mu.Lock()
	c := h.clock
	if c.prefix == nil || sec != c.sec || t.Location() != c.loc {
		full := appendRFC3339Millis(nil, t)
		const prefixLen = len("2006-01-02T15:04:05.")
		if len(full) < prefixLen+3 || full[prefixLen-1] != '.' {
			h.mu.Unlock()
			return append(b, full...) // a year past 9999 or before 0: not cached
		}
		c.sec, c.loc = sec, t.Location()
		c.prefix = append(c.prefix[:0], full[:prefixLen]...)
		c.zone = append(c.zone[:0], full[prefixLen+3:]...)
	}
	b = append(b, c.prefix...)
	b = append(b, byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	b = append(b, c.zone...)
	h.mu.Unlock()
	return b
}

// appendRFC3339Millis is log/slog's time text: RFC 3339 truncated to milliseconds, always
// three digits.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10) // four digits, the last dropped
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...)
}

// plainText reports whether slog's text handler writes s as it is: not empty, printable
// ASCII without space, '=', '"' or '\' (slog leaves a backslash unquoted, and quotes more
// than this leaves out; a text this refuses goes to slog, which decides).
func plainText(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '=' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
