package match

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPackSetKeys pins the small-set key of a queue group's tag set: up to three ids below
// 2^21 pack into one integer, 21 bits per id holding id+1, so sets of different lengths or
// ids never share a key; a fourth id, or an id of 2^21 or more, does not fit (the zero key
// and false: the group is keyed by its string instead).
func TestPackSetKeys(t *testing.T) {
	const top = 1<<21 - 1 // the largest id that fits
	type packed struct {
		Key uint64
		OK  bool
	}
	cases := []struct {
		name string
		ids  []int32
		want packed
	}{
		{"no tags", nil, packed{0, true}},
		{"id 0", []int32{0}, packed{1, true}},
		{"id 0 twice is not id 0", []int32{0, 0}, packed{1<<21 | 1, true}},
		{"one id", []int32{5}, packed{6, true}},
		{"three ids", []int32{1, 2, 3}, packed{2<<42 | 3<<21 | 4, true}},
		{"the largest id that fits", []int32{top}, packed{1 << 21, true}},
		{"three of the largest", []int32{top, top, top}, packed{1<<63 | 1<<42 | 1<<21, true}},
		{"the first id too large", []int32{1 << 21}, packed{0, false}},
		{"a later id too large", []int32{0, 1 << 21}, packed{0, false}},
		{"four ids", []int32{0, 1, 2, 3}, packed{0, false}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k, ok := packSet(tc.ids)
			if diff := cmp.Diff(tc.want, packed{k, ok}); diff != "" {
				t.Errorf("packSet(%v) (-want +got):\n%s", tc.ids, diff)
			}
		})
	}
}
