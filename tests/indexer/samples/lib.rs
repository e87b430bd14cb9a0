//! A token bucket rate limiter.

use std::time::{Duration, Instant};

/// Why a request was refused.
#[derive(Debug, PartialEq)]
pub enum Refusal {
    Empty { retry_after: Duration },
    TooLarge(u32),
}

/// Something that tells the time.
pub trait Clock {
    fn now(&self) -> Instant;
}

pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// A bucket of `capacity` tokens refilled at `rate` per second.
pub struct Bucket<C: Clock> {
    capacity: u32,
    tokens: f64,
    rate: f64,
    last: Instant,
    clock: C,
}

impl<C: Clock> Bucket<C> {
    pub fn new(capacity: u32, rate: f64, clock: C) -> Self {
        let last = clock.now();
        Bucket { capacity, tokens: capacity as f64, rate, last, clock }
    }

    /// Take `n` tokens, or say when to retry.
    pub fn take(&mut self, n: u32) -> Result<(), Refusal> {
        if n > self.capacity {
            return Err(Refusal::TooLarge(n));
        }
        self.refill();
        if self.tokens < n as f64 {
            let missing = n as f64 - self.tokens;
            return Err(Refusal::Empty { retry_after: Duration::from_secs_f64(missing / self.rate) });
        }
        self.tokens -= n as f64;
        Ok(())
    }

    fn refill(&mut self) {
        let now = self.clock.now();
        let elapsed = now.duration_since(self.last).as_secs_f64();
        self.tokens = (self.tokens + elapsed * self.rate).min(self.capacity as f64);
        self.last = now;
    }
}

pub const DEFAULT_RATE: f64 = 10.0;

macro_rules! bucket {
    ($cap:expr) => {
        Bucket::new($cap, DEFAULT_RATE, SystemClock)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_more_than_capacity() {
        let mut b = bucket!(2);
        assert_eq!(b.take(3), Err(Refusal::TooLarge(3)));
    }
}
