package contract

import "encoding/json"

// parsePlain parses the common body in one pass into the tree DecodeJSON gives (objects as
// map[string]any, arrays as []any, numbers as json.Number, strings, booleans, nil). It
// takes only text whose strings are printable ASCII without escapes and whose nesting is
// shallow; for anything else, valid or not, it reports false and DecodeJSON parses with
// encoding/json, which also words the errors.
func parsePlain(b []byte) (any, bool) {
	p := plainParser{b: b}
	if len(b) <= plainSharedMax {
		p.src = string(b)
	}
	v, ok := p.value(0)
	if !ok {
		return nil, false
	}
	p.space()
	return v, p.i == len(b)
}

type plainParser struct {
	b   []byte
	src string // b as one string, when short: names, strings and numbers are cut from it
	i   int
}

// plainSharedMax is the longest body whose strings share one copy of the text. A short body
// (every usual command) then costs one string allocation instead of one per name and value;
// a long one copies each string, so a value kept for long (a task's title) never holds a
// large body in memory.
const plainSharedMax = 1024

// text is b[start:end] as a string.
func (p *plainParser) text(start, end int) string {
	if p.src != "" {
		return p.src[start:end]
	}
	return string(p.b[start:end])
}

const plainMaxDepth = 64

func (p *plainParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *plainParser) value(depth int) (any, bool) {
	if depth > plainMaxDepth {
		return nil, false
	}
	p.space()
	if p.i >= len(p.b) {
		return nil, false
	}
	switch c := p.b[p.i]; {
	case c == '{':
		p.i++
		m := map[string]any{}
		p.space()
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			return m, true
		}
		for {
			p.space()
			k, ok := p.str()
			if !ok {
				return nil, false
			}
			p.space()
			if p.i >= len(p.b) || p.b[p.i] != ':' {
				return nil, false
			}
			p.i++
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			m[k] = v
			p.space()
			if p.i >= len(p.b) {
				return nil, false
			}
			switch p.b[p.i] {
			case ',':
				p.i++
			case '}':
				p.i++
				return m, true
			default:
				return nil, false
			}
		}
	case c == '[':
		p.i++
		a := make([]any, 0, 4) // one allocation for the usual short array, not one per growth
		p.space()
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			return a, true
		}
		for {
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			a = append(a, v)
			p.space()
			if p.i >= len(p.b) {
				return nil, false
			}
			switch p.b[p.i] {
			case ',':
				p.i++
			case ']':
				p.i++
				return a, true
			default:
				return nil, false
			}
		}
	case c == '"':
		return p.str()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	default:
		for _, lit := range [...]struct {
			text string
			v    any
		}{{"true", true}, {"false", false}, {"null", nil}} {
			if len(p.b)-p.i >= len(lit.text) && string(p.b[p.i:p.i+len(lit.text)]) == lit.text {
				p.i += len(lit.text)
				return lit.v, true
			}
		}
		return nil, false
	}
}

// str reads a string of printable ASCII without escapes.
func (p *plainParser) str() (string, bool) {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return "", false
	}
	start := p.i + 1
	for j := start; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '"':
			p.i = j + 1
			return p.text(start, j), true
		case c == '\\' || c < 0x20 || c >= 0x7f:
			return "", false
		}
	}
	return "", false
}

// number reads a number by JSON's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *plainParser) number() (any, bool) {
	b, start := p.b, p.i
	i := start
	digits := func() bool {
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if !digits() {
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return nil, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return nil, false
		}
	}
	p.i = i
	return json.Number(p.text(start, i)), true
}
