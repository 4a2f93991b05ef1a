// Package expr reads and evaluates TaskRouter expressions: the SQL-like language of a
// TaskQueue's target_workers, a Workflow filter's expression and a target's expression.
//
// Parse turns the text into a tree, with a *SyntaxError naming the column and what was
// expected; Eval evaluates it against JSON documents (an Env), with the taskrouter.* time
// values taken from Env.Now, never the wall clock; Analyze and SkillTerms say what a tree
// reads, which the migration planner uses to decide how (and whether) it can be expressed as
// tags.
//
// Semantics, where the documentation leaves room, are chosen here and tested in
// TestEvalDocumentedExamples: a missing key is null and null equals nothing (so != against a
// missing key is true, and NOT IN of a missing key is true); strings compare exactly
// (case-sensitive); a number and a string holding a number compare as numbers; HAS needs an
// array on its left; CONTAINS is a substring test on a string, or on any string element of an
// array; IN with an array on its left is true when any element is in the right side.
// Keywords (AND, OR, NOT, IN, HAS, CONTAINS, true, false) are case-insensitive; "=" is "=="
// and "->" is HAS.
package expr
