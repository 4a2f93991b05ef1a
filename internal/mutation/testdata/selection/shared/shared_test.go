package shared

import "testing"

func TestFirst(t *testing.T) {
	if got := Next(); got != 1 {
		t.Errorf("Next() = %d, want 1", got)
	}
}

// TestSecond passes only after TestFirst.
func TestSecond(t *testing.T) {
	if got := Next(); got != 2 {
		t.Errorf("Next() = %d, want 2", got)
	}
}
