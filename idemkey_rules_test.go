package taskrouting

import (
	"regexp"
	"strconv"
	"testing"
)

// TestIdempotencyKeysAreRandomVersion4UUIDs: a generated key is a version 4 UUID of the
// RFC 9562 variant, and every one of its 122 other bits is random: over 64 keys each hex
// digit's low bit, those beside the version and variant bits included, takes both values.
func TestIdempotencyKeysAreRandomVersion4UUIDs(t *testing.T) {
	form := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[int]map[uint64]bool{}
	for range 64 {
		k, err := newIdempotencyKey()
		if err != nil {
			t.Fatal(err)
		}
		if !form.MatchString(k) {
			t.Fatalf("%q is not a version 4 UUID", k)
		}
		for i, c := range k {
			if c == '-' || i == 14 {
				continue
			}
			v, _ := strconv.ParseUint(string(c), 16, 8)
			if seen[i] == nil {
				seen[i] = map[uint64]bool{}
			}
			seen[i][v&1] = true
		}
	}
	for i, bits := range seen {
		if len(bits) != 2 {
			t.Errorf("the low bit of hex digit %d never changed over 64 keys", i)
		}
	}
}
