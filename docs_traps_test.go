package taskrouting

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"strings"
	"testing"
)

// packageDocs returns the doc comments of a directory's package, by name:
// "Type", "Type.Method" or "Func".
func packageDocs(t *testing.T, dir string) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range pkgs {
		files := make([]*ast.File, 0, len(p.Files))
		for _, f := range p.Files {
			files = append(files, f)
		}
		d, err := doc.NewFromFiles(fset, files, "example.com/"+p.Name)
		if err != nil {
			t.Fatal(err)
		}
		out[""] = d.Doc
		for _, f := range d.Funcs {
			out[f.Name] = f.Doc
		}
		for _, ty := range d.Types {
			out[ty.Name] = ty.Doc
			for _, m := range ty.Methods {
				out[ty.Name+"."+m.Name] = m.Doc
			}
			for _, f := range ty.Funcs {
				out[f.Name] = f.Doc
			}
		}
	}
	return out
}

// The traps a new user met in the first hour are each answered where that
// user looks: the README's first page and the go doc of the thing in hand.
func TestFirstHourTrapsAreDocumented(t *testing.T) {
	root, hook, mock := packageDocs(t, "."), packageDocs(t, "webhook"), packageDocs(t, "mockserver")
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	// The first page runs to the end of the webhook section's example: the basic loop, who gets
	// a task, retries and the receiver, which is what a new user reads before writing code.
	lines := strings.Split(string(readme), "\n")
	firstPage := strings.Join(lines[:min(len(lines), 160)], "\n")
	tests := []struct {
		where, text string
		wants       []string
	}{
		{"README first page", firstPage, []string{"Tasks.Check", "EnsureAccepted", "WithErrorHook", "CreateAll",
			"one shared tag is enough", "RequiredSkills", "SkillThresholds", "reaches only its weighted tags"}},
		// The test snippet's expiry: by default the offer goes back to the same worker
		// (TestExpiredOfferGoesBackToTheSameWorkerByDefault in examples/mockserver-in-tests).
		{"README", string(readme), []string{"goes back to a1", "NoResponseBlock"}},
		// The package doc opens with the basic loop's identifiers, before anything else.
		{"package doc's start", root[""][:min(len(root[""]), 2200)], []string{"Start here", "NewClient", "WorkersService.Upsert",
			"TasksService.Create", "webhook.NewVerifier", "webhook.Handler", "TaskMatched", "DecisionsService.EnsureAccepted",
			"DecisionsService.Reject", "DecisionsService.Complete", "APIError", "ErrInvalidState", "mockserver.Start", "RequestOption"}},
		{"Option", root["Option"], []string{"Deprecated: use RequestOption"}},
		{"WithClock", root["WithClock"], []string{"webhook.WithClock", "mockserver.WithClock"}},
		{"webhook.WithClock", hook["WithClock"], []string{"mockserver.WithClock", "taskrouting.WithClock"}},
		{"mockserver.WithClock", mock["WithClock"], []string{"webhook.WithClock", "taskrouting.WithClock"}},
		{"UpsertWorkerParams", root["UpsertWorkerParams"], []string{"reaches only its weighted tags", "RequiredSkills"}},
		{"webhook.Handler", firstSentences(hook["Handler"], 2), []string{"WithErrorHook"}},
		{"webhook package doc", hook[""], []string{"handler [WithErrorHook] first", "EnsureAccepted"}},
		{"ManualClock.Advance", mock["ManualClock.Advance"], []string{"one at a time", "waits behind it", "1.55s"}},
		{"DeliveryPolicy", mock["DeliveryPolicy"], []string{"one at a time", "ManualClock"}},
		{"CreateMany", root["TasksService.CreateMany"], []string{"Which to pick", "CreateAll"}},
		{"CreateAll", root["TasksService.CreateAll"], []string{"CreateMany", "Which to pick"}},
		{"EnsureAccepted", root["DecisionsService.EnsureAccepted"], []string{"409 invalid_state", "webhook"}},
		{"WithMiddleware", root["WithMiddleware"], []string{"outermost", "order given"}},
	}
	for _, tt := range tests {
		text := strings.Join(strings.Fields(tt.text), " ") // a phrase may wrap across lines
		for _, w := range tt.wants {
			if !strings.Contains(text, w) {
				t.Errorf("%s does not say %q", tt.where, w)
			}
		}
	}
}

// firstSentences returns about the first n sentences of a doc comment.
func firstSentences(s string, n int) string {
	end := 0
	for i := 0; i < n; i++ {
		j := strings.Index(s[end:], ". ")
		if j < 0 {
			return s
		}
		end += j + 2
	}
	return s[:end]
}
