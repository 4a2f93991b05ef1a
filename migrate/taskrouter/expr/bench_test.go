package expr

import (
	"fmt"
	"strings"
	"testing"
)

// chainSource is an expression of n comparisons, ANDs grouped by ORs, like a long list of
// business rules: "k0 == 0 AND k1 HAS 'v1' OR ...".
func chainSource(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			if i%8 == 0 {
				b.WriteString(" OR ")
			} else {
				b.WriteString(" AND ")
			}
		}
		if i%2 == 0 {
			fmt.Fprintf(&b, "k%d == %d", i, i)
		} else {
			fmt.Fprintf(&b, "k%d HAS 'v%d'", i, i)
		}
	}
	return b.String()
}

var benchSizes = []struct {
	name  string
	terms int
}{{"1k", 1000}, {"10k", 10000}, {"100k", 100000}}

// BenchmarkString prints expressions of 1k, 10k and 100k comparisons: the time per
// comparison stays flat when printing is linear.
func BenchmarkString(b *testing.B) {
	for _, size := range benchSizes {
		src := chainSource(size.terms)
		n, err := Parse(src)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(size.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				_ = n.String()
			}
		})
	}
}

// BenchmarkParse parses the same expressions.
func BenchmarkParse(b *testing.B) {
	for _, size := range benchSizes {
		src := chainSource(size.terms)
		b.Run(size.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
