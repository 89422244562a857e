package measure

import (
	"testing"
	"time"
)

// The statistics the bench programs share, on the cases where their old
// private copies could differ: an even count (Med takes the upper middle,
// Pct the floor index), an empty slice (zero, not a panic), and the
// input left in its order.
func TestStats(t *testing.T) {
	ds := []time.Duration{4, 1, 3, 2}
	if got := Med(ds); got != 3 {
		t.Errorf("Med(4 1 3 2) = %v, want 3 (the upper middle)", got)
	}
	if got := Pct(ds, 0.5); got != 2 {
		t.Errorf("Pct(4 1 3 2, 0.5) = %v, want 2 (index floor(0.5*3))", got)
	}
	if got := Pct([]float64{5, 1, 9, 7, 3}, 0.95); got != 7 {
		t.Errorf("Pct(.., 0.95) = %v, want 7 (index floor(0.95*4) = 3)", got)
	}
	if ds[0] != 4 || ds[3] != 2 {
		t.Errorf("the input was reordered: %v", ds)
	}
	if Med([]int64(nil)) != 0 || Pct([]float64(nil), 0.9) != 0 || Mean(nil) != 0 {
		t.Error("an empty slice: want 0")
	}
	if got := Mean([]float64{1, 2, 6}); got != 3 {
		t.Errorf("Mean(1 2 6) = %v, want 3", got)
	}
}
