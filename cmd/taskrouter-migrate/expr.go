package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/taskrouting/taskrouting-go/migrate/taskrouter/expr"
)

// exprJSON is expr's -json answer.
type exprJSON struct {
	Expression string `json:"expression"`
	Parsed     string `json:"parsed"` // the tree, with the parentheses its grouping needs
	Scope      string `json:"scope"`
	Result     bool   `json:"result"`
	// SkillTags are the tags plan would give a queue with this target_workers (worker
	// scope, a conjunction of HAS or == terms); empty when it would use one queue tag.
	SkillTags      []string `json:"skillTags,omitempty"`
	ReadsTimeOfDay bool     `json:"readsTimeOfDay,omitempty"`
	TaskVsWorker   bool     `json:"taskVsWorker,omitempty"`
	KnownWorker    bool     `json:"knownWorker,omitempty"`
}

// runExpr parses one TaskRouter expression and evaluates it against a JSON document: the
// attributes of a worker (-scope worker, the default: a queue's target_workers) or of a task
// (-scope task: a workflow filter). -task and -worker give the other side's document for
// the task. and worker. keys of a target expression.
func runExpr(args []string, stdout, stderr io.Writer, now func() time.Time) error {
	fs := newFlagSet("expr", stderr)
	scope := fs.String("scope", "worker", "what the document is, and what keys without a prefix read: worker (target_workers, a target's expression) or task (a workflow filter)")
	taskPath := fs.String("task", "", "a task's attributes (JSON) for task. keys")
	workerPath := fs.String("worker", "", "a worker's attributes (JSON) for worker. keys")
	at := fs.String("at", "", "time (RFC 3339) the taskrouter.* values are taken from; default now")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: taskrouter-migrate expr [flags] EXPRESSION [DOCUMENT.json]\n\nevaluates one TaskRouter expression against a JSON document (the attributes of -scope; an empty object when none is given) and prints true or false")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 || fs.NArg() > 2 {
		return fmt.Errorf("%w: want EXPRESSION and at most one DOCUMENT.json, got %d arguments", errFlags, fs.NArg())
	}
	env := &expr.Env{Task: map[string]any{}, Worker: map[string]any{}, Now: now().UTC()}
	switch *scope {
	case "worker":
		env.Default = expr.ScopeWorker
	case "task":
		env.Default = expr.ScopeTask
	default:
		return fmt.Errorf("%w: -scope %q is neither worker nor task", errFlags, *scope)
	}
	if *at != "" {
		t, err := time.Parse(time.RFC3339, *at)
		if err != nil {
			return fmt.Errorf("%w: -at %q is not an RFC 3339 time", errFlags, *at)
		}
		env.Now = t.UTC()
	}
	docs := []struct {
		path string
		into *any
	}{{*taskPath, &env.Task}, {*workerPath, &env.Worker}}
	if fs.NArg() == 2 {
		doc := &env.Worker
		if env.Default == expr.ScopeTask {
			doc = &env.Task
		}
		docs = append(docs, struct {
			path string
			into *any
		}{fs.Arg(1), doc})
	}
	for _, d := range docs {
		if d.path == "" {
			continue
		}
		v, err := readDocument(d.path)
		if err != nil {
			return err
		}
		*d.into = v
	}
	src := fs.Arg(0)
	n, err := expr.Parse(src)
	if err != nil {
		var se *expr.SyntaxError
		if errors.As(err, &se) {
			// The line the parser stopped on and a caret under the place.
			line, caret := caretAt(src, se)
			return fmt.Errorf("%w\n  %s\n  %s^", err, line, strings.Repeat(" ", caret))
		}
		return err
	}
	out := exprJSON{Expression: src, Parsed: n.String(), Scope: *scope, Result: expr.Eval(n, env)}
	u := expr.Analyze(n, env.Default)
	out.ReadsTimeOfDay, out.TaskVsWorker, out.KnownWorker = u.Time, u.CrossScope, u.KnownWorker
	if terms, ok := expr.SkillTerms(n, env.Default); ok {
		for _, t := range terms {
			out.SkillTags = append(out.SkillTags, t.Tag())
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false) // expressions hold < and >
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintln(stdout, out.Result)
	if len(out.SkillTags) > 0 {
		fmt.Fprintf(stdout, "note: as a queue's target_workers, one tag per term: %s (plan checks them against the matching rules and may use one queue tag instead)\n", strings.Join(out.SkillTags, " "))
	}
	if out.ReadsTimeOfDay {
		fmt.Fprintf(stdout, "note: reads the time of day, taken from %s (-at)\n", env.Now.Format(time.RFC3339))
	}
	if out.TaskVsWorker {
		fmt.Fprintln(stdout, "note: compares task and worker attributes (finding taskVsWorker): give the other side with -task or -worker")
	}
	if out.KnownWorker {
		fmt.Fprintln(stdout, "note: names a worker (finding knownWorker)")
	}
	return nil
}

// readDocument reads a JSON document; an error names the file and the line.
func readDocument(path string) (any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := 1 + bytes.Count(b[:min(int(se.Offset), len(b))], []byte{'\n'})
			return nil, fmt.Errorf("%s:%s: not JSON: %w", path, strconv.Itoa(line), err)
		}
		return nil, fmt.Errorf("%s: not JSON: %w", path, err)
	}
	return v, nil
}

// caretWindow is how many bytes of the failing line caretAt shows either side of the place:
// an expression can be megabytes long, and only its place matters.
const caretWindow = 40

// caretAt returns the line of src holding the error, cut to caretWindow bytes either side of
// the place (an ellipsis marks a cut), and the caret's offset in what it returns.
func caretAt(src string, se *expr.SyntaxError) (line string, caret int) {
	pos := min(max(se.Pos, 0), len(src))
	start := strings.LastIndexByte(src[:pos], '\n') + 1
	end := len(src)
	if i := strings.IndexByte(src[pos:], '\n'); i >= 0 {
		end = pos + i
	}
	line, caret = strings.TrimRight(src[start:end], "\r"), pos-start
	if len(line) > caret+caretWindow {
		cut := caret + caretWindow
		for cut > caret && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line = line[:cut] + "…"
	}
	if caret > caretWindow {
		cut := caret - caretWindow
		for cut < caret && !utf8.RuneStart(line[cut]) {
			cut++
		}
		// The ellipsis takes one column on a terminal, however many bytes it is.
		line, caret = "…"+line[cut:], caret-cut+1
	}
	return line, caret
}
