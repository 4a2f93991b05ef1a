package taskrouting

import (
	"fmt"
	"io"
)

// The types below hold a secret (the API key, a worker's token, a PIN).
// String and GoString alone do not keep it from fmt: %d or %x skip String,
// a value (not a pointer) has no pointer-receiver methods, and fmt's report
// of a verb that does not fit (%!s(...)) prints the pointed-to struct with
// every field. So each implements fmt.Formatter, which fmt asks first for
// every verb, and prints only its safe description. secretfmt_test.go
// (TestSecretsInEveryVerb) covers every verb on each.

// formatSafe prints desc for every verb: %#v prints goDesc; %v, %s, %q, %x
// and %X print desc as fmt prints a string (flags, width and precision
// kept); any other verb is reported as fmt reports a wrong verb, around
// desc.
func formatSafe(f fmt.State, verb rune, desc, goDesc string) {
	switch verb {
	case 'v':
		if f.Flag('#') {
			_, _ = io.WriteString(f, goDesc)
			return
		}
		_, _ = fmt.Fprintf(f, fmt.FormatString(f, 's'), desc)
	case 's', 'q', 'x', 'X':
		_, _ = fmt.Fprintf(f, fmt.FormatString(f, verb), desc)
	default:
		_, _ = fmt.Fprintf(f, "%%!%c(%s)", verb, desc)
	}
}

// Format prints the client without its key, whatever the verb.
func (c Client) Format(f fmt.State, verb rune) {
	formatSafe(f, verb, c.String(), c.GoString())
}

// Format prints the worker client without its token, whatever the verb.
func (w WorkerClient) Format(f fmt.State, verb rune) {
	formatSafe(f, verb, w.String(), w.GoString())
}

// Format prints the supervisor client without its token, whatever the verb.
func (s SupervisorClient) Format(f fmt.State, verb rune) {
	formatSafe(f, verb, s.String(), s.GoString())
}

// Format prints the parameters without the PIN, whatever the verb.
func (p WorkerLoginParams) Format(f fmt.State, verb rune) {
	formatSafe(f, verb, p.String(), p.GoString())
}

// Format prints the parameters without the PIN, whatever the verb.
func (p SetIdentityParams) Format(f fmt.State, verb rune) {
	formatSafe(f, verb, p.String(), p.GoString())
}

// Format prints the credentials as redacted, whatever the verb.
func (cr *credentials) Format(f fmt.State, verb rune) {
	const desc = "taskrouting.credentials{secret: [redacted]}"
	formatSafe(f, verb, desc, desc)
}

// Format prints a call's settings without the bearer and the secrets to
// redact, whatever the verb.
func (o config) Format(f fmt.State, verb rune) {
	desc := fmt.Sprintf("taskrouting.config{maxRetries: %d, timeout: %s, bearer: [redacted]}", o.maxRetries, o.timeout)
	formatSafe(f, verb, desc, desc)
}
