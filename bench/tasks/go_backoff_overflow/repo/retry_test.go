package retrykit

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

func fakeSleep(t *testing.T) *[]time.Duration {
	waits := []time.Duration{}
	old := sleep
	sleep = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	}
	t.Cleanup(func() { sleep = old })
	return &waits
}

func TestDoRetriesUntilSuccess(t *testing.T) {
	waits := fakeSleep(t)
	calls := 0
	err := Do(context.Background(), policy, func() error {
		calls++
		if calls < 4 {
			return errors.New("connection refused")
		}
		return nil
	})
	if err != nil || calls != 4 {
		t.Fatalf("err = %v, calls = %d", err, calls)
	}
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}
	if fmt.Sprint(*waits) != fmt.Sprint(want) {
		t.Errorf("waits = %v, want %v", *waits, want)
	}
}

func TestDoGivesUp(t *testing.T) {
	fakeSleep(t)
	p := policy
	p.Attempts = 3
	err := Do(context.Background(), p, func() error { return errors.New("boom") })
	if err == nil || err.Error() != "gave up after 3 attempts: boom" {
		t.Fatalf("err = %v", err)
	}
}

func TestDoStopsWithTheContext(t *testing.T) {
	fakeSleep(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Do(ctx, policy, func() error { return errors.New("boom") })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestDoLogsEveryWait(t *testing.T) {
	fakeSleep(t)
	var lines []string
	p := policy
	p.Attempts = 3
	p.Logf = func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	_ = Do(context.Background(), p, func() error { return errors.New("refused") })
	want := []string{"attempt 1 failed: refused; retrying in 500ms", "attempt 2 failed: refused; retrying in 1s"}
	if fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Errorf("lines = %q, want %q", lines, want)
	}
}
