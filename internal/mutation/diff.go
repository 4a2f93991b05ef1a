package mutation

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// lineSet holds line numbers of one file; a nil set with all set holds every line.
type lineSet struct {
	all   bool
	lines map[int]bool
}

func (s lineSet) has(line int) bool { return s.all || s.lines[line] }

// changedLines maps the absolute path of each file changed since the merge base of HEAD and rev
// (committed or not) to its changed lines; an untracked file counts as changed throughout.
func changedLines(ctx context.Context, dir, rev string) (map[string]lineSet, error) {
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	root := strings.TrimSpace(string(top))
	diff, err := git(ctx, dir, "diff", "-U0", "--no-color", "--no-ext-diff", "--merge-base", rev, "--")
	if err != nil {
		return nil, err
	}
	out, err := parseDiff(root, diff)
	if err != nil {
		return nil, err
	}
	untracked, err := git(ctx, dir, "ls-files", "--others", "--exclude-standard", "--full-name")
	if err != nil {
		return nil, err
	}
	for _, name := range strings.Fields(string(untracked)) {
		out[filepath.Join(root, filepath.FromSlash(name))] = lineSet{all: true}
	}
	return out, nil
}

// parseDiff reads the new-side line ranges of a zero-context unified diff.
func parseDiff(root string, diff []byte) (map[string]lineSet, error) {
	out := map[string]lineSet{}
	var cur string
	sc := bufio.NewScanner(bytes.NewReader(diff))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "+++ "):
			name := strings.TrimPrefix(line, "+++ ")
			if name == "/dev/null" {
				cur = ""
				continue
			}
			cur = filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(name, "b/")))
			if _, ok := out[cur]; !ok {
				out[cur] = lineSet{lines: map[int]bool{}}
			}
		case strings.HasPrefix(line, "@@ ") && cur != "":
			// @@ -a,b +c,d @@: d lines from c on the new side (d omitted means 1).
			fields := strings.Fields(line)
			if len(fields) < 3 || !strings.HasPrefix(fields[2], "+") {
				return nil, fmt.Errorf("unreadable hunk header %q", line)
			}
			startS, countS, hasCount := strings.Cut(fields[2][1:], ",")
			start, err := strconv.Atoi(startS)
			if err != nil {
				return nil, fmt.Errorf("unreadable hunk header %q", line)
			}
			count := 1
			if hasCount {
				if count, err = strconv.Atoi(countS); err != nil {
					return nil, fmt.Errorf("unreadable hunk header %q", line)
				}
			}
			for l := start; l < start+count; l++ {
				out[cur].lines[l] = true
			}
		}
	}
	return out, sc.Err()
}

func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
