// Package measure holds what the benchmark programs share: timing a
// function, medians, ratios and how a duration is printed.
package measure

import (
	"cmp"
	"fmt"
	"log"
	"slices"
	"sort"
	"time"
)

// Median runs f once to warm up, then n times, and returns the median.
func Median(n int, f func()) time.Duration {
	f()
	ds := make([]time.Duration, n)
	for i := range ds {
		t0 := time.Now()
		f()
		ds[i] = time.Since(t0)
	}
	return Med(ds)
}

// Med is the median of v, the upper one of an even count (0 when v is
// empty; v is not reordered).
func Med[T cmp.Ordered](v []T) T {
	if len(v) == 0 {
		var zero T
		return zero
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// Pct is the value at fraction p (0 to 1) of v sorted, by the index
// floor(p*(len-1)) (0 when v is empty; v is not reordered).
func Pct[T cmp.Ordered](v []T, p float64) T {
	if len(v) == 0 {
		var zero T
		return zero
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1))]
}

// Mean is the arithmetic mean of v (0 when empty).
func Mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t / float64(len(v))
}

// Quantile is the num/den quantile of ds (0 when empty; ds is not
// reordered).
func Quantile(ds []time.Duration, num, den int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)*num/den]
}

// Ratio is a/b.
func Ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

// D prints a duration with a unit that suits it.
func D(x time.Duration) string {
	switch {
	case x < time.Microsecond:
		return fmt.Sprintf("%d ns", x.Nanoseconds())
	case x < time.Millisecond:
		return fmt.Sprintf("%.1f µs", float64(x.Nanoseconds())/1e3)
	case x < time.Second:
		return fmt.Sprintf("%.2f ms", float64(x.Nanoseconds())/1e6)
	}
	return fmt.Sprintf("%.2f s", x.Seconds())
}

// Must stops the program on an error.
func Must[T any](v T, err error) T {
	if err != nil {
		log.Fatal(err)
	}
	return v
}
