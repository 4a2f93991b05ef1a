package taskrouting

import (
	"strings"
	"sync"
)

// operation is one operation of api/openapi.json.
type operation struct {
	method   string // "POST"
	template string // "/tasks/{id}/accept"
	id       string // "tasks.accept"
}

// operationIndex groups the contract's operations by method and number of
// path segments, the two things a sent path must share with its template.
type operationIndex map[string]map[int][]indexedOperation

type indexedOperation struct {
	operation
	segments []string // "" for a parameter
	literals int      // how many segments are fixed text
}

var (
	indexOnce sync.Once
	opIndex   operationIndex
)

// lookupOperation names the operation that method and the escaped path
// send, or returns the zero operation when none of the contract's matches.
// Where several templates match, the one with the most fixed segments
// wins, as a router does: GET /tasks/check is tasks.check, not tasks.get
// with id "check".
func lookupOperation(method, path string) operation {
	indexOnce.Do(func() { opIndex = buildOperationIndex(contractTable[:]) })
	sent := strings.Split(strings.Trim(path, "/"), "/")
	best, bestLiterals := operation{}, -1
	for _, cand := range opIndex[method][len(sent)] {
		if cand.literals > bestLiterals && cand.matches(sent) {
			best, bestLiterals = cand.operation, cand.literals
		}
	}
	return best
}

func (o indexedOperation) matches(sent []string) bool {
	for i, seg := range o.segments {
		if seg == "" {
			if sent[i] == "" {
				return false // an id is never empty
			}
			continue
		}
		if seg != sent[i] {
			return false
		}
	}
	return true
}

func buildOperationIndex(ops []operation) operationIndex {
	idx := operationIndex{}
	for _, op := range ops {
		segs := strings.Split(strings.Trim(op.template, "/"), "/")
		io := indexedOperation{operation: op, segments: segs}
		for i, s := range segs {
			if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
				segs[i] = ""
			} else {
				io.literals++
			}
		}
		if idx[op.method] == nil {
			idx[op.method] = map[int][]indexedOperation{}
		}
		idx[op.method][len(segs)] = append(idx[op.method][len(segs)], io)
	}
	return idx
}
