// Package measure holds what the benchmark programs share: timing a
// function, medians, ratios and how a duration is printed.
package measure

import (
	"fmt"
	"log"
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

// Med is the median of ds (ds is not reordered).
func Med(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
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
