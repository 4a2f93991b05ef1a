package expr

// Node is a boolean expression: an Or, And, Not or Compare.
type Node interface {
	// Pos is the byte offset in the source where the node starts.
	Pos() int
	String() string
}

// Or is true when either side is.
type Or struct {
	L, R Node
	At   int
}

// And is true when both sides are.
type And struct {
	L, R Node
	At   int
}

// Not negates its operand.
type Not struct {
	X  Node
	At int
}

// Op is a comparison operator, normalised: "=" is "==", "->" is "HAS", keywords upper case.
type Op string

// The comparison operators of the language.
const (
	OpEq       Op = "=="
	OpNe       Op = "!="
	OpLt       Op = "<"
	OpLe       Op = "<="
	OpGt       Op = ">"
	OpGe       Op = ">="
	OpHas      Op = "HAS"
	OpContains Op = "CONTAINS"
	OpIn       Op = "IN"
	OpNotIn    Op = "NOT IN"
)

// Compare applies Op to two operands.
type Compare struct {
	Op   Op
	L, R Operand
	At   int
}

// Operand is a Const, a Key or a List.
type Operand interface {
	Pos() int
	String() string
}

// Const is a string, float64 or bool constant.
type Const struct {
	Value any
	At    int
}

// Scope says which document a key reads.
type Scope string

// Key scopes. ScopeDefault is the document the expression is about: the task for a filter
// expression, the worker for a queue's target_workers and a target's expression.
const (
	ScopeDefault    Scope = ""
	ScopeTask       Scope = "task"
	ScopeWorker     Scope = "worker"
	ScopeTaskRouter Scope = "taskrouter"
)

// Key reads a value from a JSON document: a path of object members (string) and array
// indexes (int). A path that is not there resolves to null.
type Key struct {
	Scope Scope
	Path  []any
	At    int
}

// List is a bracketed list of operands: language IN ["en", "es"].
type List struct {
	Items []Operand
	At    int
}

func (n *Or) Pos() int      { return n.At }
func (n *And) Pos() int     { return n.At }
func (n *Not) Pos() int     { return n.At }
func (n *Compare) Pos() int { return n.At }
func (n *Const) Pos() int   { return n.At }
func (n *Key) Pos() int     { return n.At }
func (n *List) Pos() int    { return n.At }

func (n *Or) String() string      { return nodeString(n) }
func (n *And) String() string     { return nodeString(n) }
func (n *Not) String() string     { return nodeString(n) }
func (n *Compare) String() string { return nodeString(n) }
func (n *Const) String() string   { return operandString(n) }
func (n *Key) String() string     { return operandString(n) }
func (n *List) String() string    { return operandString(n) }

// Name is the key's path without its scope, dotted: "skills", "object.array[2]".
func (n *Key) Name() string { return (&Key{Path: n.Path}).String() }
