package retrykit

import (
	"testing"
	"time"
)

var policy = Policy{Base: 500 * time.Millisecond, Max: 30 * time.Second}

func TestDelayDoubles(t *testing.T) {
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}
	for attempt, w := range want {
		if got := policy.Delay(attempt); got != w {
			t.Errorf("Delay(%d) = %v, want %v", attempt, got, w)
		}
	}
}

func TestDelayStopsAtMax(t *testing.T) {
	for _, attempt := range []int{6, 7, 10, 20} {
		if got := policy.Delay(attempt); got != policy.Max {
			t.Errorf("Delay(%d) = %v, want the maximum %v", attempt, got, policy.Max)
		}
	}
}

func TestDelayAfterALongOutage(t *testing.T) {
	for attempt := 0; attempt <= 200; attempt++ {
		got := policy.Delay(attempt)
		if got < policy.Base || got > policy.Max {
			t.Fatalf("Delay(%d) = %v, want between %v and %v", attempt, got, policy.Base, policy.Max)
		}
		if attempt >= 6 && got != policy.Max {
			t.Fatalf("Delay(%d) = %v, want the maximum %v", attempt, got, policy.Max)
		}
	}
}

func TestDelayWithAMaxAboveAnyDoubling(t *testing.T) {
	p := Policy{Base: time.Hour, Max: time.Duration(1<<63 - 1)}
	prev := time.Duration(0)
	for attempt := 0; attempt < 100; attempt++ {
		got := p.Delay(attempt)
		if got < prev {
			t.Fatalf("Delay(%d) = %v is shorter than Delay(%d) = %v", attempt, got, attempt-1, prev)
		}
		prev = got
	}
}
