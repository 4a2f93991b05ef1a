// Package selection is the module the tests of coverage-guided test selection mutate: each
// function is reached by a known set of tests.
package selection

// limit is declared at package level, outside any coverage block: its mutants run every test.
const limit = 10

// Clamp is reached by TestClamp alone.
func Clamp(x int) int {
	if x > limit {
		return limit
	}
	return x
}

// Sum is reached by TestSum and TestSumEmpty; the function literal's body only by TestSum.
func Sum(xs []int) int {
	total := 0
	each(xs, func(x int) {
		total = total + x
	})
	return total
}

func each(xs []int, f func(int)) {
	for _, x := range xs {
		f(x)
	}
}

// unused is reached by no test.
func unused(x int) int {
	return x * 2
}

var warmed bool

// Warm fills the cache Get reads.
func Warm() { warmed = true }

// Get reaches cached only after Warm: in the suite TestGet runs after TestWarm and reaches it,
// alone it does not.
func Get() int {
	if warmed {
		return cached()
	}
	return 1
}

func cached() int {
	return 1
}
