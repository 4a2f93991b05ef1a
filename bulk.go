package taskrouting

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"sync"
)

// BulkOptions tunes CreateAll. The zero value is usable.
type BulkOptions struct {
	// ChunkSize is how many entries go in one CreateMany call: 1 to
	// MaxBulkTasks; 0 means MaxBulkTasks.
	ChunkSize int
	// Concurrency is how many CreateMany calls run at once; 0 means 4.
	Concurrency int
	// MaxAttempts is how many rounds an entry gets when it fails for a
	// transient reason (5xx, 429, a transport error); 0 means 3. Entries
	// refused for any other reason are never sent again.
	MaxAttempts int
}

// BulkEntry is the outcome of one input entry of CreateAll: the task id
// when it was created, otherwise the last error. Index is the entry's
// position in the input.
type BulkEntry struct {
	Index int
	ID    string
	Err   error
}

// BulkCreateReport is the outcome of CreateAll: Entries[i] is input i.
type BulkCreateReport struct {
	Created int
	Failed  int
	Calls   int // CreateMany calls made, retries included
	Entries []BulkEntry
}

// CreateAll creates any number of tasks through CreateMany: it splits them
// into chunks, runs a bounded number of calls at once and sends again only
// the entries that failed for a transient reason. It is the one to pick
// unless you need a single request: CreateMany sends at most MaxBulkTasks
// tasks in one call and retries nothing entry by entry (see CreateMany,
// "Which to pick").
//
// Retries never duplicate a task: every entry without an ID gets a random
// one before its first attempt, so a retry of an entry whose earlier
// attempt was committed but not answered (a lost connection, a 5xx after
// the write) answers task_exists, which CreateAll counts as created. An
// entry that fails its own check is reported with its *ParamError and not
// sent. The returned error is non-nil only for bad options or when ctx
// ends; the report is complete either way. tasks is not modified.
//
// opts apply to every call; WithIdempotencyKey and WithResponseInto are
// refused because one call's key or answer cannot serve many calls.
func (s *TasksService) CreateAll(ctx context.Context, tasks []CreateTaskParams, o BulkOptions, opts ...RequestOption) (*BulkCreateReport, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	if cfg, err := s.c.callConfig(opts); err != nil {
		return nil, err
	} else if cfg.idempotencyKey != "" || cfg.response != nil {
		return nil, &ParamError{Param: "opts", Problem: "WithIdempotencyKey and WithResponseInto apply to one call, not to CreateAll"}
	}
	run := &bulkRun{svc: s, opts: opts, rep: &BulkCreateReport{Entries: make([]BulkEntry, len(tasks))}}
	run.tasks = make([]CreateTaskParams, len(tasks))
	run.unsure = make([]bool, len(tasks))
	var pending []int
	for i, p := range tasks {
		run.rep.Entries[i].Index = i
		if err := s.c.admit(p.validate(), opts); err != nil {
			run.rep.Entries[i].Err = entryParamError(i, err)
			continue
		}
		if p.ID == "" {
			if p.ID, err = newTaskID(); err != nil {
				return nil, err
			}
		}
		run.tasks[i] = p
		pending = append(pending, i)
	}
	for attempt := 0; attempt < o.MaxAttempts && len(pending) > 0 && ctx.Err() == nil; attempt++ {
		pending = run.round(ctx, pending, o)
	}
	for i := range run.rep.Entries {
		e := &run.rep.Entries[i]
		switch {
		case e.ID != "":
			run.rep.Created++
		case e.Err == nil: // never sent: ctx ended first
			e.Err = ctx.Err()
			run.rep.Failed++
		default:
			run.rep.Failed++
		}
	}
	return run.rep, ctx.Err()
}

func (o BulkOptions) withDefaults() (BulkOptions, error) {
	if o.ChunkSize < 0 || o.ChunkSize > MaxBulkTasks || o.Concurrency < 0 || o.MaxAttempts < 0 {
		return o, &ParamError{Param: "BulkOptions", Problem: "ChunkSize must be 0 to 200, Concurrency and MaxAttempts not negative"}
	}
	if o.ChunkSize == 0 {
		o.ChunkSize = MaxBulkTasks
	}
	if o.Concurrency == 0 {
		o.Concurrency = 4
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = 3
	}
	return o, nil
}

// bulkRun is the state of one CreateAll. mu guards rep and unsure, which
// the calls of a round write.
type bulkRun struct {
	svc   *TasksService
	opts  []RequestOption
	tasks []CreateTaskParams // with ids assigned; zero for entries never sent

	mu     sync.Mutex
	rep    *BulkCreateReport
	unsure []bool // an earlier attempt may have created the task
}

// round sends the pending entries once, in chunks, and returns those to try again.
func (r *bulkRun) round(ctx context.Context, pending []int, o BulkOptions) []int {
	var (
		wg    sync.WaitGroup
		sem   = make(chan struct{}, o.Concurrency)
		retry []int
	)
	for start := 0; start < len(pending); start += o.ChunkSize {
		chunk := pending[start:min(start+o.ChunkSize, len(pending))]
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return nil
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			again := r.send(ctx, chunk)
			r.mu.Lock()
			retry = append(retry, again...)
			r.mu.Unlock()
		}()
	}
	wg.Wait()
	return retry
}

// send makes one CreateMany call for chunk (input indexes) and records each
// entry's outcome; it returns the indexes worth another attempt.
func (r *bulkRun) send(ctx context.Context, chunk []int) []int {
	batch := make([]CreateTaskParams, len(chunk))
	for k, i := range chunk {
		batch[k] = r.tasks[i]
	}
	out, err := r.svc.CreateMany(ctx, batch, r.opts...)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rep.Calls++
	if err != nil {
		transient := isTransient(err)
		for _, i := range chunk {
			r.rep.Entries[i].Err = err
			r.unsure[i] = r.unsure[i] || transient
		}
		if transient {
			return chunk
		}
		return nil
	}
	var again []int
	answered := make([]bool, len(chunk))
	for _, res := range out.Results {
		if res.Index < 0 || res.Index >= len(chunk) {
			continue
		}
		i := chunk[res.Index]
		answered[res.Index] = true
		e := &r.rep.Entries[i]
		switch {
		case res.Error == nil:
			e.ID, e.Err = res.ID, nil
		case res.Error.Code == CodeTaskExists && r.unsure[i]:
			e.ID, e.Err = r.tasks[i].ID, nil // committed by an attempt whose answer was lost
		default:
			e.Err = entryError(res.Error)
			if transientCode(res.Error.Code) {
				r.unsure[i] = true
				again = append(again, i)
			}
		}
	}
	for k, ok := range answered {
		if !ok { // a report without this entry: outcome unknown, so ask again
			i := chunk[k]
			r.rep.Entries[i].Err = errors.New("taskrouting: bulk report has no result for this entry")
			r.unsure[i] = true
			again = append(again, i)
		}
	}
	return again
}

// isTransient reports whether a failed call may succeed when sent again:
// 5xx, 429 and transport errors; never a refusal of the request itself.
func isTransient(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrInvalidParams) {
		return false
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.StatusCode >= 500 || ae.StatusCode == http.StatusTooManyRequests
	}
	return true
}

func transientCode(code string) bool {
	return code == CodeRateLimited || code == CodeInternalError || code == codeServiceUnavailable
}

// entryError turns one entry's failure into an *APIError, so the usual
// sentinels (ErrTaskExists, ErrValidation, ...) match it.
func entryError(e *BulkTaskError) error {
	status := map[string]int{
		CodeValidationFailed: http.StatusBadRequest, CodeInvalidBody: http.StatusBadRequest,
		CodePlanLimitExceeded: http.StatusPaymentRequired, CodeTaskExists: http.StatusConflict,
		CodeRateLimited: http.StatusTooManyRequests, CodeInternalError: http.StatusInternalServerError,
		codeServiceUnavailable: http.StatusServiceUnavailable,
	}[e.Code]
	return &APIError{StatusCode: status, Code: e.Code, Message: e.Message, Method: http.MethodPost, Path: "/tasks/bulk"}
}

// newTaskID returns a random task id, fixed before the first attempt so
// that a retry names the same task.
func newTaskID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "task_" + hex.EncodeToString(b[:]), nil
}

// codeServiceUnavailable is the envelope code of a 503.
const codeServiceUnavailable = "service_unavailable"
