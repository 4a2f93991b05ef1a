package taskrouting

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/taskrouting/taskrouting-go/api"
)

// sweepCase is a request body type the limit sweep walks: op names its
// operation in api/openapi.json, base is a value both the client and the
// file accept, and check is the client's verdict on a value (its validate
// method when nil).
type sweepCase struct {
	op    string
	base  any
	check func(ctx context.Context, c *Client, w *WorkerClient, p any) error
}

// sweepCases are the request bodies whose top-level fields the sweep varies.
func sweepCases() []sweepCase {
	pin := NewSecret("4921")
	return []sweepCase{
		{op: "tasks.create", base: CreateTaskParams{Tags: []string{"t"}, References: []TaskReferenceParams{{URL: "https://crm.example/r"}},
			Slot:           &TimeSlot{StartAt: t0, Duration: time.Hour},
			RequiredSkills: []RequiredSkill{{SkillID: "s", MinLevel: 1}}}},
		{op: "tasks.update", base: UpdateTaskParams{Title: Some("t")}},
		{op: "tasks.suggestWorkers", base: SuggestWorkersParams{Tags: []string{"t"}}},
		{op: "tasks.context.set", base: SetTaskContextParams{References: []TaskReferenceParams{{URL: "https://crm.example/r"}}}},
		{op: "tasks.comments.add", base: AddCommentParams{Body: "b"}},
		{op: "tasks.attachments.create", base: CreateAttachmentParams{Filename: "f.pdf", ContentType: "application/pdf", SizeBytes: 1}},
		{op: "workers.upsert", base: UpsertWorkerParams{ID: "agent_1", Skills: []SkillAssignment{{SkillID: "s", Level: 1}}}},
		{op: "workers.patch", base: PatchWorkerParams{Tags: []string{"t"}}},
		{op: "skills.create", base: CreateSkillParams{Key: "k", Name: "n"}},
		{op: "teams.create", base: CreateTeamParams{Key: "k", Name: "n"}},
		{op: "teams.patch", base: PatchTeamParams{Name: "n"}},
		{op: "joinLinks.create", base: CreateJoinLinkParams{Label: "l", Skills: []SkillAssignment{{SkillID: "s", Level: 1}}}},
		{op: "identities.invite", base: InviteParams{Email: "ada@example.com", Skills: []SkillAssignment{{SkillID: "s", Level: 1}}}},
		{op: "identities.create", base: SetIdentityParams{Label: "l", PIN: pin}},
		{op: "identities.update", base: UpdateIdentityParams{Label: "l"}},
		{op: "notifications.channels.create", base: CreateNotificationChannelParams{Type: "webhook", Target: "https://h.example/x", Events: []string{"task.created"}}},
		{op: "workers.link", base: LinkWorkerParams{VendorUserID: "u"}},
		{op: "notifications.sequences.create", base: CreateNotificationSequenceParams{Name: "n",
			Steps: []NotificationStep{{Trigger: "matched", EventType: "task.reminder", Offset: time.Minute}}}},
		{op: "workflows.save", base: SaveWorkflowParams{Name: "n", Steps: []WorkflowStep{{ID: "s1", Name: "one", EndWorkflow: true}}}},
		{op: "worker.startBreak", base: StartBreakParams{}},
		{op: "skills.patch", base: PatchSkillParams{Name: "n"}},
		{op: "notifications.channels.update", base: UpdateNotificationChannelParams{Events: []string{"task.created"}}},
		{op: "notifications.sequences.update", base: UpdateNotificationSequenceParams{Name: "n",
			Steps: []NotificationStep{{Trigger: "matched", EventType: "task.reminder", Offset: time.Minute}}}},
		{op: "workers.createTimeEntry", base: CreateTimeEntryParams{StartedAt: t0, EndedAt: t0.Add(time.Hour), Note: "forgot to clock in"}},
		{op: "workers.correctTimeEntry", base: CorrectTimeEntryParams{Note: "wrong end"}},
		{op: "worker.attachments.create", base: WorkerCreateAttachmentParams{Filename: "f.pdf", ContentType: "application/pdf", SizeBytes: 1}},
		{op: "worker.login", base: WorkerLoginParams{WorkspaceID: "ws", WorkerID: "agent_1", PIN: pin},
			check: func(ctx context.Context, _ *Client, w *WorkerClient, p any) error {
				return sessionErr(w.Login(ctx, p.(WorkerLoginParams)))
			}},
		{op: "worker.join", base: JoinParams{Token: NewSecret("tok"), Name: "n", PIN: pin},
			check: func(ctx context.Context, _ *Client, w *WorkerClient, p any) error {
				_, err := w.Join(ctx, p.(JoinParams))
				return err
			}},
		{op: "worker.acceptInvite", base: AcceptInviteParams{Token: NewSecret("tok"), PIN: pin},
			check: func(ctx context.Context, _ *Client, w *WorkerClient, p any) error {
				_, err := w.AcceptInvite(ctx, p.(AcceptInviteParams))
				return err
			}},
		{op: "worker.changePin", base: ChangePINParams{CurrentPIN: pin, NewPIN: NewSecret("5032")},
			check: func(ctx context.Context, _ *Client, w *WorkerClient, p any) error {
				return w.ChangePIN(ctx, p.(ChangePINParams))
			}},
	}
}

// TestLimitSweepMatchesContract varies every top-level string, secret,
// list and number field of each request body around every limit its
// operation's schema in api/openapi.json states (one below, at, one
// above), and holds the client's verdict to the file's: the client
// refuses with a *ParamError exactly the values the file refuses. A field
// the client checks too loosely or too strictly, at any limit of the file,
// is a difference listed here. The table of TestClientLimitsMatchContract
// holds the nested fields.
func TestLimitSweepMatchesContract(t *testing.T) {
	ct, err := wireContract()
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(api.OpenAPI(), &doc))

	// No request leaves the client: an answer that decodes to nothing is
	// enough for a call the client lets through.
	hc := &http.Client{Transport: sweepTransport(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(`{}`)), Request: r}, nil
	})}
	c := newTestClient(t, "http://127.0.0.1:1/v1", WithHTTPClient(hc), WithMaxRetries(0))
	w := newTestWorkerClient(t, "http://127.0.0.1:1/v1", WithHTTPClient(hc), WithMaxRetries(0))
	signIn(w)
	ctx := context.Background()

	var diffs []string
	checked := 0
	for _, tc := range sweepCases() {
		limits := schemaLimits(t, doc, tc.op)
		verdicts := func(p any) (client, file bool) {
			var err error
			if tc.check != nil {
				err = tc.check(ctx, c, w, p)
			} else {
				err = p.(validator).validate()
			}
			if err != nil && !errors.Is(err, ErrInvalidParams) {
				err = nil // an answer the stub could not satisfy: the client sent it
			}
			var sent any = p
			if wf, ok := p.(wireForm); ok {
				sent = wf.wireBody()
			}
			body, mErr := json.Marshal(sent)
			require.NoError(t, mErr)
			return err == nil, ct.ValidateRequest(tc.op, nil, body) == nil
		}
		client, file := verdicts(tc.base)
		require.True(t, client && file, "%s: base value refused (client ok %v, file ok %v)", tc.op, client, file)

		p := reflect.New(reflect.TypeOf(tc.base)).Elem()
		p.Set(reflect.ValueOf(tc.base))
		sweepFields(p, reflect.TypeOf(tc.base).Name(), func(path string, field reflect.Value) {
			for _, v := range fieldVariants(field, limits) {
				// The field may sit behind a pointer or in a list the base
				// shares: set it, judge, and put the base's value back.
				old := reflect.New(field.Type()).Elem()
				old.Set(field)
				field.Set(v.value)
				client, file := verdicts(p.Interface())
				field.Set(old)
				checked++
				if client != file {
					diffs = append(diffs, fmt.Sprintf("%s %s %s: client accepts %v, file accepts %v",
						tc.op, path, v.what, client, file))
				}
			}
		})
	}
	t.Logf("%d values checked", checked)
	if checked < 500 {
		t.Errorf("only %d values checked: the sweep lost its fields", checked)
	}
	compareDifferences(t, sweepKnownDifferences, diffs)
}

// compareDifferences reports each difference found that is not known, and
// each known one no longer found.
func compareDifferences(t *testing.T, known, found []string) {
	t.Helper()
	for _, d := range found {
		if !slices.Contains(known, d) {
			t.Errorf("client and api/openapi.json differ: %s", d)
		}
	}
	for _, d := range known {
		if !slices.Contains(found, d) {
			t.Errorf("a known difference is gone (remove it from the list): %s", d)
		}
	}
}

// sweepFields calls visit with each exported field of the struct v and
// its path, and goes on into the structs v holds: behind a non-nil
// pointer, in place, and the first element of a list.
func sweepFields(v reflect.Value, path string, visit func(path string, field reflect.Value)) {
	typ := v.Type()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		fv := v.Field(i)
		name := path + "." + f.Name
		visit(name, fv)
		switch {
		case fv.Kind() == reflect.Pointer && !fv.IsNil() && fv.Elem().Kind() == reflect.Struct:
			sweepFields(fv.Elem(), name, visit)
		case fv.Kind() == reflect.Struct && fv.Type() != reflect.TypeFor[time.Time]():
			sweepFields(fv, name, visit)
		case fv.Kind() == reflect.Slice && fv.Len() > 0 && fv.Type().Elem().Kind() == reflect.Struct:
			sweepFields(fv.Index(0), name+"[0]", visit)
		}
	}
}

// sweepKnownDifferences are the values where the client's verdict and the
// file's differ on purpose: each is an empty value the file does not
// forbid but that can only be a caller's mistake, which the client refuses
// as such (a *ParamError without Limit, kept by WithoutLimitChecks).
var sweepKnownDifferences = []string{
	// An empty team id names no team.
	"identities.invite InviteParams.TeamIDs with an element of 0 characters: client accepts false, file accepts true",
	// A workflow without steps has nothing to run.
	"workflows.save SaveWorkflowParams.Steps of 0 elements: client accepts false, file accepts true",
	// An empty workspace id names no workspace to sign in to.
	"worker.login WorkerLoginParams.WorkspaceID of 0 characters: client accepts false, file accepts true",
	// An empty skill id names no skill.
	"tasks.create CreateTaskParams.RequiredSkills[0].SkillID of 0 characters: client accepts false, file accepts true",
	"workers.upsert UpsertWorkerParams.Skills[0].SkillID of 0 characters: client accepts false, file accepts true",
	"joinLinks.create CreateJoinLinkParams.Skills[0].SkillID of 0 characters: client accepts false, file accepts true",
	"identities.invite InviteParams.Skills[0].SkillID of 0 characters: client accepts false, file accepts true",
	// An update's empty, non-nil list of events or steps is refused (a
	// channel needs an event, a sequence a step); sent, it would be left
	// out of the body, so the file never sees it.
	"notifications.channels.update UpdateNotificationChannelParams.Events of 0 elements: client accepts false, file accepts true",
	"notifications.sequences.update UpdateNotificationSequenceParams.Steps of 0 elements: client accepts false, file accepts true",
	// A negative timeout is refused as a mistake; the file states no
	// minimum for the milliseconds.
	"workflows.save SaveWorkflowParams.Steps[0].Timeout = -1 ms: client accepts false, file accepts true",
	"workflows.save SaveWorkflowParams.DefaultTimeout = -1 ms: client accepts false, file accepts true",
}

// variant is one value of a field and how it reads in a difference.
type variant struct {
	what  string
	value reflect.Value
}

// fieldVariants are the values of a field of type typ around the limits:
// strings and secrets of each length, lists of each size (and with a first
// element of each length), numbers at each value, one less and one more.
func fieldVariants(field reflect.Value, limits []float64) []variant {
	typ := field.Type()
	var points []float64
	for _, l := range limits {
		points = append(points, l-1, l, l+1)
	}
	slices.Sort(points)
	points = slices.Compact(points)
	var out []variant
	lengths := func(yield func(n int)) {
		for _, p := range points {
			if p >= 0 && p == float64(int(p)) && p <= 20000 {
				yield(int(p))
			}
		}
	}
	switch {
	case typ == reflect.TypeFor[Secret]():
		lengths(func(n int) {
			out = append(out, variant{fmt.Sprintf("of %d characters", n), reflect.ValueOf(NewSecret(strings.Repeat("7", n)))})
		})
	case typ.Kind() == reflect.String:
		lengths(func(n int) {
			out = append(out, variant{fmt.Sprintf("of %d characters", n), reflect.ValueOf(strings.Repeat("a", n)).Convert(typ)})
		})
	case typ.Kind() == reflect.Slice && typ.Elem().Kind() == reflect.String:
		list := func(ss []string) reflect.Value {
			l := reflect.MakeSlice(typ, len(ss), len(ss))
			for j, s := range ss {
				l.Index(j).Set(reflect.ValueOf(s).Convert(typ.Elem()))
			}
			return l
		}
		lengths(func(n int) {
			if n <= 1000 {
				out = append(out, variant{fmt.Sprintf("of %d elements", n), list(strs(n, "t"))})
			}
			out = append(out, variant{fmt.Sprintf("with an element of %d characters", n), list([]string{strings.Repeat("a", n)})})
		})
	case typ.Kind() == reflect.Slice && typ.Elem().Kind() == reflect.Struct && field.Len() > 0:
		// A list of objects: the base's first element, repeated.
		lengths(func(n int) {
			if n <= 1000 {
				list := reflect.MakeSlice(typ, n, n)
				for j := range n {
					list.Index(j).Set(field.Index(0))
				}
				out = append(out, variant{fmt.Sprintf("of %d elements", n), list})
			}
		})
	case typ == reflect.TypeFor[map[string]float64]():
		lengths(func(n int) {
			if n <= 1000 {
				out = append(out, variant{fmt.Sprintf("of %d entries", n), reflect.ValueOf(weights(n))})
			}
		})
	case typ == reflect.TypeFor[time.Duration]():
		// Durations go on the wire in whole milliseconds.
		for _, p := range points {
			if p == float64(int64(p)) {
				out = append(out, variant{fmt.Sprintf("= %v ms", p), reflect.ValueOf(time.Duration(p) * time.Millisecond)})
			}
		}
	case isNumber(typ):
		for _, p := range points {
			if v, ok := numberValue(typ, p); ok {
				out = append(out, variant{fmt.Sprintf("= %v", p), v})
			}
		}
	case typ.Kind() == reflect.Pointer && isNumber(typ.Elem()):
		for _, p := range points {
			if v, ok := numberValue(typ.Elem(), p); ok {
				ptr := reflect.New(typ.Elem())
				ptr.Elem().Set(v)
				out = append(out, variant{fmt.Sprintf("= %v", p), ptr})
			}
		}
	}
	return out
}

func isNumber(typ reflect.Type) bool {
	switch typ.Kind() {
	case reflect.Int, reflect.Int64, reflect.Float64:
		return typ != reflect.TypeFor[time.Duration]()
	}
	return false
}

func numberValue(typ reflect.Type, p float64) (reflect.Value, bool) {
	if typ.Kind() != reflect.Float64 && p != float64(int64(p)) {
		return reflect.Value{}, false
	}
	return reflect.ValueOf(p).Convert(typ), true
}

// schemaLimits collects every length, size and bound an operation's
// request body schema states, following references.
func schemaLimits(t *testing.T, doc map[string]any, op string) []float64 {
	t.Helper()
	var schema any
	for _, item := range doc["paths"].(map[string]any) {
		for _, o := range item.(map[string]any) {
			if m, ok := o.(map[string]any); ok && m["operationId"] == op {
				schema = m["requestBody"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"]
			}
		}
	}
	require.NotNil(t, schema, "%s has no JSON request body in api/openapi.json", op)
	return limitsOf(doc, schema)
}

// limitsOf collects the lengths, sizes and bounds stated anywhere in
// schema, following references, with 0 and 1 besides.
func limitsOf(doc map[string]any, schema any) []float64 {
	seen := map[string]bool{}
	var out []float64
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok && !seen[ref] {
				seen[ref] = true
				walk(resolveRef(doc, ref))
			}
			for k, x := range v {
				switch k {
				case "minLength", "maxLength", "minItems", "maxItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minProperties", "maxProperties":
					if n, ok := x.(float64); ok {
						out = append(out, n)
					}
				case "example", "examples", "default", "enum", "const":
				default:
					walk(x)
				}
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(schema)
	out = append(out, 0, 1)
	slices.Sort(out)
	return slices.Compact(out)
}

// resolveRef finds a local reference ("#/components/...") in doc.
func resolveRef(doc map[string]any, ref string) any {
	var target any = doc
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		target = target.(map[string]any)[tok]
	}
	return target
}

type sweepTransport func(*http.Request) (*http.Response, error)

func (f sweepTransport) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// querySweepCase is a read whose query parameters the query sweep varies:
// call sends p (a value of base's type) with opts.
type querySweepCase struct {
	op   string
	base any
	call func(ctx context.Context, c *Client, w *WorkerClient, p any, opts ...RequestOption) error
}

func querySweepCases() []querySweepCase {
	from := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	return []querySweepCase{
		{"tasks.list", ListTasksParams{}, func(ctx context.Context, c *Client, _ *WorkerClient, p any, opts ...RequestOption) error {
			_, err := c.Tasks.ListPage(ctx, p.(ListTasksParams), opts...)
			return err
		}},
		{"tasks.history", HistoryParams{}, func(ctx context.Context, c *Client, _ *WorkerClient, p any, opts ...RequestOption) error {
			_, err := c.Tasks.HistoryPage(ctx, p.(HistoryParams), opts...)
			return err
		}},
		{"tasks.bookings", BookingsParams{From: from, To: from.Add(time.Hour)}, func(ctx context.Context, c *Client, _ *WorkerClient, p any, opts ...RequestOption) error {
			_, err := c.Tasks.Bookings(ctx, p.(BookingsParams), opts...)
			return err
		}},
		{"tasks.comments.list", ListCommentsParams{}, func(ctx context.Context, c *Client, _ *WorkerClient, p any, opts ...RequestOption) error {
			_, err := c.Tasks.Comments.ListPage(ctx, "task_1", p.(ListCommentsParams), opts...)
			return err
		}},
		{"worker.comments", ListCommentsParams{}, func(ctx context.Context, _ *Client, w *WorkerClient, p any, opts ...RequestOption) error {
			_, err := w.CommentsPage(ctx, "task_1", p.(ListCommentsParams), opts...)
			return err
		}},
		{"decisions.list", ListDecisionsParams{}, func(ctx context.Context, c *Client, _ *WorkerClient, p any, opts ...RequestOption) error {
			_, err := c.Decisions.List(ctx, p.(ListDecisionsParams), opts...)
			return err
		}},
		{"history.workers", WorkerStatsParams{}, func(ctx context.Context, c *Client, _ *WorkerClient, p any, opts ...RequestOption) error {
			_, err := c.Stats.Workers(ctx, p.(WorkerStatsParams), opts...)
			return err
		}},
		{"learning.previewWeights", PreviewWeightsParams{}, func(ctx context.Context, c *Client, _ *WorkerClient, p any, opts ...RequestOption) error {
			_, err := c.Learning.PreviewWeights(ctx, p.(PreviewWeightsParams), opts...)
			return err
		}},
		{"skills.list", ListSkillsParams{}, func(ctx context.Context, c *Client, _ *WorkerClient, p any, opts ...RequestOption) error {
			_, err := c.Skills.List(ctx, p.(ListSkillsParams), opts...)
			return err
		}},
		{"skills.suggest", SuggestSkillsParams{}, func(ctx context.Context, c *Client, _ *WorkerClient, p any, opts ...RequestOption) error {
			_, err := c.Skills.Suggest(ctx, p.(SuggestSkillsParams), opts...)
			return err
		}},
		{"skills.expiring", ExpiringSkillsParams{}, func(ctx context.Context, c *Client, _ *WorkerClient, p any, opts ...RequestOption) error {
			_, err := c.Skills.Expiring(ctx, p.(ExpiringSkillsParams), opts...)
			return err
		}},
		{"queueAudit", QueueAuditParams{}, func(ctx context.Context, c *Client, _ *WorkerClient, p any, opts ...RequestOption) error {
			_, err := c.Stats.QueueAudit(ctx, p.(QueueAuditParams), opts...)
			return err
		}},
		{"team.time", TeamTimeParams{}, func(ctx context.Context, c *Client, _ *WorkerClient, p any, opts ...RequestOption) error {
			_, err := c.Teams.Time(ctx, p.(TeamTimeParams), opts...)
			return err
		}},
		{"workers.metrics", WorkerMetricsParams{}, func(ctx context.Context, c *Client, _ *WorkerClient, p any, opts ...RequestOption) error {
			_, err := c.Workers.Metrics(ctx, "agent_1", p.(WorkerMetricsParams), opts...)
			return err
		}},
		{"breaks.metrics", BreakMetricsParams{}, func(ctx context.Context, c *Client, _ *WorkerClient, p any, opts ...RequestOption) error {
			_, err := c.Workers.BreakMetrics(ctx, p.(BreakMetricsParams), opts...)
			return err
		}},
		{"runs.list", ListRunsParams{}, func(ctx context.Context, c *Client, _ *WorkerClient, p any, opts ...RequestOption) error {
			_, err := c.Runs.ListPage(ctx, p.(ListRunsParams), opts...)
			return err
		}},
	}
}

// TestQueryLimitSweepMatchesContract does for the query parameters of the
// reads what TestLimitSweepMatchesContract does for request bodies: every
// top-level string, list and number field of the params, one below, at
// and one above each limit the operation's query parameters state in
// api/openapi.json. The file's verdict is on the query the client sends
// with WithoutLimitChecks; a value the client still refuses as a caller's
// mistake sends nothing and is left out.
func TestQueryLimitSweepMatchesContract(t *testing.T) {
	ct, err := wireContract()
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(api.OpenAPI(), &doc))

	var sent *http.Request
	hc := &http.Client{Transport: sweepTransport(func(r *http.Request) (*http.Response, error) {
		sent = r
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(`{}`)), Request: r}, nil
	})}
	c := newTestClient(t, "http://127.0.0.1:1/v1", WithHTTPClient(hc), WithMaxRetries(0))
	w := newTestWorkerClient(t, "http://127.0.0.1:1/v1", WithHTTPClient(hc), WithMaxRetries(0))
	signIn(w)
	ctx := context.Background()

	var diffs []string
	checked := 0
	for _, tc := range querySweepCases() {
		limits := queryLimits(t, doc, tc.op)
		verdicts := func(p any) (client, file, known bool) {
			err := tc.call(ctx, c, w, p)
			client = !errors.Is(err, ErrInvalidParams)
			sent = nil
			_ = tc.call(ctx, c, w, p, WithoutLimitChecks())
			if sent == nil {
				return client, false, false
			}
			return client, ct.ValidateRequest(tc.op, sent.URL.Query(), nil) == nil, true
		}
		client, file, known := verdicts(tc.base)
		require.True(t, client && file && known, "%s: base value refused (client ok %v, file ok %v, sent %v)", tc.op, client, file, known)

		base := reflect.ValueOf(tc.base)
		typ := base.Type()
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() {
				continue
			}
			for _, v := range fieldVariants(base.Field(i), limits) {
				p := reflect.New(typ).Elem()
				p.Set(base)
				p.Field(i).Set(v.value)
				client, file, known := verdicts(p.Interface())
				if !known {
					continue
				}
				checked++
				if client != file {
					diffs = append(diffs, fmt.Sprintf("%s %s.%s %s: client accepts %v, file accepts %v",
						tc.op, typ.Name(), f.Name, v.what, client, file))
				}
			}
		}
	}
	t.Logf("%d values checked", checked)
	if checked < 200 {
		t.Errorf("only %d values checked: the sweep lost its fields", checked)
	}
	var known []string
	for _, n := range []int{63, 64, 65, 99, 100, 101, 127, 128, 129, 511, 512, 513} {
		// The client holds each status to 32 characters; the file's status
		// is one comma-separated string it leaves unbounded.
		known = append(known, fmt.Sprintf("tasks.history HistoryParams.Statuses with an element of %d characters: client accepts false, file accepts true", n))
	}
	// A negative limit is refused as a limit; with the checks off it is not
	// sent at all, so the file sees no limit.
	known = append(known, "tasks.history HistoryParams.Limit = -1: client accepts false, file accepts true")
	compareDifferences(t, known, diffs)
}

// queryLimits collects every length, size and bound an operation's query
// parameters state in api/openapi.json.
func queryLimits(t *testing.T, doc map[string]any, op string) []float64 {
	t.Helper()
	var params []any
	for _, item := range doc["paths"].(map[string]any) {
		item := item.(map[string]any)
		for _, o := range item {
			if m, ok := o.(map[string]any); ok && m["operationId"] == op {
				params, _ = m["parameters"].([]any)
				if shared, ok := item["parameters"].([]any); ok {
					params = append(params, shared...)
				}
			}
		}
	}
	require.NotEmpty(t, params, "%s has no parameters in api/openapi.json", op)
	var query []any
	for _, p := range params {
		p := p.(map[string]any)
		if ref, ok := p["$ref"].(string); ok {
			p = resolveRef(doc, ref).(map[string]any)
		}
		if p["in"] == "query" {
			query = append(query, p["schema"])
		}
	}
	return limitsOf(doc, query)
}
