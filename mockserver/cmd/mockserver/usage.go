package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
)

// adminHelp lists the steering endpoints; docs/contract.md section 9 has the details.
const adminHelp = `
Admin endpoints, under adminUrl (http://HOST/_mock), with the apiKey of the start line as
bearer token (an -extra-api-key is refused: they act on every workspace); never faulted:

  GET    /_mock/clock           {"now": ms, "manual": bool}
  POST   /_mock/clock/advance   {"ms": n}: manual clock only; runs every expiry and retry due
  POST   /_mock/faults          a fault: {"method","path","status","retryAfterMs","delayMs",
                                "dropBeforeCommit","dropAfterCommit","times","fraction","seed",
                                "delayDistribution": {"type":"uniform","minMs","maxMs"} or
                                {"type":"lognormal","medianMs","sigma","maxMs"} or
                                {"type":"fixed","ms"}}
  DELETE /_mock/faults          clear every fault
  GET    /_mock/events          {"events": [webhook payloads as delivered], "nextSince"};
                                ?since=SEQ&kind=task.matched&taskId=ID&limit=N&count=true
  GET    /_mock/deliveries      {"deliveries": [{"eventId","kind","url","attempt","at",
                                "statusCode","error","outcome","reason"}]}: "kind" is the
                                event's kind (its "event" member); "reason" the refusal's
                                first line
  GET    /_mock/notifications   {"notifications": [{"id","sequenceId","channelId","url","event",
                                "trigger","taskId","dueAt","at","payload","statusCode","error",
                                "outcome"}]}: what notification sequences sent
  GET    /_mock/requests        {"requests": [recorded requests, key redacted], "nextSince"};
                                ?since=SEQ&method=POST&path=/v1/tasks/*&taskId=ID&limit=N&count=true
  GET    /_mock/tasks/{id}/unmatched  why a queued task waits (409 if not queued, 404)
  GET    /_mock/tasks/{id}      {"id","queuedAt","offerExpiresAt","vetoedWorkers","rejectedBy"}:
                                the mock's own task bookkeeping, in no platform answer (404)
  GET    /_mock/workers/{id}    {"id","createdAt","lastMatchedAt","onBreak","breakReason"}:
                                the mock's own worker bookkeeping, in no platform answer (404)
  GET    /_mock/ties            {"ties": [{"decisionId","taskId","workerId","workers","matchedAt"}]}:
                                decisions made on a tie between equally ranked workers
  GET    /_mock/outbox          {"mail": [invites sent, with the token a worker would receive]}
  POST   /_mock/flush           204 once no webhook attempt is in flight
  POST   /_mock/reset           forget all state (keys, secret, webhook urls, clock kept)
  GET    /_mock/state           the saved state: {"kind","version","clock","settings","workspaces":
                                [{"workers","tasks","teams","skills","learned","sequence",
                                "commands"}]}; 409 when a request it cannot carry happened
  POST   /_mock/state           load a saved state (as -state FILE does): 204, or 400 naming the
                                member at fault with the state untouched
  POST   /_mock/supervisor-links  {"workspaceId","label","email","teamId"} (all optional): a
                                single-use supervisor link {"token",...} to redeem at
                                POST /v1/supervisor-auth/accept
  GET    /_mock/supervisor-links  {"links": [every link made, "redeemedAt" once used]}
  GET    /_mock/push-registrations  {"registrations": [stored push targets; never sent to]}

With -proxy URL the binary is a contract-checking proxy to that deployment instead: /v1 is
forwarded with the caller's key; GET /_mock/proxy/report {"differences","decisions"} and
GET /_mock/proxy/requests take the start line's apiKey; the deployment's webhooks go to
POST /_mock/proxy/webhook (verified with -proxy-signing-secret, forwarded to -webhook-url).

With -manual-clock a failed webhook attempt waits for its retry until the clock is advanced,
and every later event to that url waits behind it; the log says so. A receiver whose verifier
reads the wall clock (any receiver outside Go) refuses every delivery as stale once the clock
is advanced more than 5 minutes: add -sign-with-wall-clock.

The basic loop over HTTP (bodies of api/openapi.json; docs/contract.md section 9):

  POST /v1/workers                {"id":"a1","tags":["english"],"available":true}
  POST /v1/tasks                  {"tags":["english"],"priority":10}: 202 {"id","status"}
  POST /v1/tasks/{id}/accept      {"workerId":"a1"}
  POST /v1/tasks/{id}/reject      {"workerId":"a1"} ("result": an object, optional)
  POST /v1/tasks/{id}/complete    {"workerId":"a1","result":{"resolved":true}} ("result" optional)
`

func usage(fs *flag.FlagSet) {
	out := fs.Output()
	fmt.Fprintf(out, "Usage: mockserver [flags]\n\nRuns the task-routing mock server; prints one JSON start line on standard output\n"+
		"(url, apiKey, signingSecret, workspaceId, adminUrl) and logs on standard error.\n\nFlags:\n")
	fs.PrintDefaults()
	fmt.Fprint(out, adminHelp)
}

// newLogger builds the standard-error logger the flags ask for.
func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("-log-level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(newQuickText(w, opts)), nil // slog's text, written faster (textlog.go)
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("-log-format %q: want text or json", format)
}
