// Package expr reads and evaluates TaskRouter expressions: the SQL-like language of a
// TaskQueue's target_workers, a Workflow filter's expression and a target's expression.
//
// Parse turns the text into a tree, with a *SyntaxError naming the place (byte offset, line
// and column) and what was expected; Eval evaluates it against JSON documents (an Env), with
// the taskrouter.* time values taken from Env.Now, never the wall clock; Analyze and
// SkillTerms say what a tree reads, which the migration planner uses to decide how (and
// whether) it can be expressed as tags.
//
// Semantics, where the documentation leaves room, are chosen here and tested in
// TestEvalDocumentedExamples and the tests beside it: a missing key is null and null equals
// nothing (so != against a missing key is true, and NOT IN of a missing key is true); strings
// compare exactly (case-sensitive); HAS needs an array on its left; CONTAINS is a substring
// test on a string, or on any string element of an array; IN with an array on its left is
// true when any element is in the right side. Keywords (AND, OR, NOT, IN, HAS, CONTAINS,
// true, false) are case-insensitive; "=" is "==" and "->" is HAS.
//
// A string holding a number (spaces around it aside) and a number compare as numbers, for
// equality as for order: "8" == 8 is true, "10" > 9 is true (two strings still compare as
// strings: "10" > "9" is false, "8" == "8.0" is false). TaskRouter's expression page only
// says that comparisons between different types should be avoided; its time-of-day page
// compares taskrouter.currentHour, a two-digit string, with numbers (currentHour > 8 AND
// currentHour < 18), which works only if a numeric string orders as a number, and equality
// follows the same rule so that == 8 agrees with >= 8 AND <= 8 (TestEvalStringAgainstNumber).
//
// The taskrouter.* values are in UTC, as the time-of-day page states for each of them,
// whatever the zone of Env.Now or of the machine: currentTime is HHMM as a number,
// currentHour and currentMin two-digit strings, dayOfWeek "Mon".."Sun" (compared without
// regard to case, as the page's own example writes 'THU').
//
// Limits: nesting (parentheses, NOT, brackets) is at most 200 levels deep; the parser reads
// tokens as it goes, so input past the first error, or past the nesting limit, is never
// read. An error quotes at most 40 bytes of what it found, with an ellipsis when cut.
//
// A tree's String is its expression with only the parentheses its grouping needs (chains of
// AND or OR print flat), written in time linear in the tree's size; for a tree that Parse
// returned it parses again to the same tree, within the nesting limit
// (TestParsePrintParseGenerated, FuzzParse).
package expr
