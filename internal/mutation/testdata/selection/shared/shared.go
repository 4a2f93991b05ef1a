// Package shared has a test that fails when run alone: test selection is not sound for it.
package shared

var count int

// Next counts its calls.
func Next() int {
	count++
	return count
}
