package retrykit

import (
	"context"
	"fmt"
	"time"
)

// sleep waits for d or until ctx is done; tests replace it.
var sleep = func(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// Do calls fn until it succeeds, the policy's attempts are used up or ctx is done.
func Do(ctx context.Context, p Policy, fn func() error) error {
	for attempt := 0; ; attempt++ {
		err := fn()
		if err == nil {
			return nil
		}
		if p.Attempts > 0 && attempt+1 >= p.Attempts {
			return fmt.Errorf("gave up after %d attempts: %w", attempt+1, err)
		}
		wait := p.Delay(attempt)
		if p.Logf != nil {
			p.Logf("attempt %d failed: %v; retrying in %v", attempt+1, err, wait)
		}
		if err := sleep(ctx, wait); err != nil {
			return fmt.Errorf("stopped after %d attempts: %w", attempt+1, err)
		}
	}
}
