// Package tiny is the module the end-to-end test of the mutation run mutates.
package tiny

// Max returns the larger of a and b. Its tests catch every mutant but one: > read as >= gives
// the same answer, so that mutant survives, equivalent.
func Max(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// first has only mutants that do not compile: an index one past or one before the array.
func first(xs [1]int) int { // mutation:ignore (a longer array would compile)
	return xs[0]
}
