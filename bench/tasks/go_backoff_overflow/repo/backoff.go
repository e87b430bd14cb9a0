// Package retrykit retries operations with exponential backoff.
package retrykit

import "time"

// Policy says how long to wait between tries.
type Policy struct {
	Base     time.Duration // the first wait
	Max      time.Duration // no wait is longer than this
	Attempts int           // tries in all; 0 means until the context is done
	// Logf, when set, is told about every failed try and the wait after it.
	Logf func(format string, args ...any)
}

// Delay is the wait after the failure numbered attempt (0 for the first): Base doubled attempt
// times, at most Max.
func (p Policy) Delay(attempt int) time.Duration {
	if attempt < 0 {
		attempt = 0
	}
	d := p.Base << uint(attempt)
	if d > p.Max {
		return p.Max
	}
	return d
}
