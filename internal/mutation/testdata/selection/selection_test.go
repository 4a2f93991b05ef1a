package selection

import "testing"

func TestClamp(t *testing.T) {
	if got := Clamp(11); got != 10 {
		t.Errorf("Clamp(11) = %d, want 10", got)
	}
	if got := Clamp(3); got != 3 {
		t.Errorf("Clamp(3) = %d, want 3", got)
	}
}

func TestSum(t *testing.T) {
	if got := Sum([]int{1, 2}); got != 3 {
		t.Errorf("Sum = %d, want 3", got)
	}
}

func TestSumEmpty(t *testing.T) {
	if got := Sum(nil); got != 0 {
		t.Errorf("Sum(nil) = %d, want 0", got)
	}
}

func TestWarm(t *testing.T) { Warm() }

func TestGet(t *testing.T) {
	if got := Get(); got != 1 {
		t.Errorf("Get() = %d, want 1", got)
	}
}

func BenchmarkClamp(b *testing.B) {
	for range b.N {
		Clamp(11)
	}
}
