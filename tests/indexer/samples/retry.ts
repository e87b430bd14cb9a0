import { setTimeout as sleep } from "node:timers/promises";

/** How a retry loop backs off. */
export interface RetryPolicy {
  attempts: number;
  baseMs: number;
  retryable?: (error: unknown) => boolean;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export enum Jitter {
  None,
  Full,
}

export const DEFAULT_POLICY: RetryPolicy = { attempts: 3, baseMs: 100 };

/** The delay before attempt `n` (0-based). */
export const backoff = (policy: RetryPolicy, n: number, jitter: Jitter = Jitter.None): number => {
  const delay = policy.baseMs * 2 ** n;
  return jitter === Jitter.Full ? Math.random() * delay : delay;
};

export async function retry<T>(fn: () => Promise<T>, policy: RetryPolicy = DEFAULT_POLICY): Promise<Outcome<T>> {
  let last: unknown;
  for (let n = 0; n < policy.attempts; n++) {
    try {
      return { ok: true, value: await fn() };
    } catch (error) {
      last = error;
      if (policy.retryable && !policy.retryable(error)) break;
      await sleep(backoff(policy, n));
    }
  }
  return { ok: false, error: last };
}

export abstract class Transport {
  abstract send(body: string): Promise<number>;
}

export class RetryingTransport extends Transport {
  private sent = 0;

  constructor(private readonly inner: Transport, private readonly policy: RetryPolicy = DEFAULT_POLICY) {
    super();
  }

  async send(body: string): Promise<number> {
    const outcome = await retry(() => this.inner.send(body), this.policy);
    if (!outcome.ok) throw outcome.error;
    this.sent++;
    return outcome.value;
  }

  get count(): number {
    return this.sent;
  }

  static wrap = (inner: Transport): RetryingTransport => new RetryingTransport(inner);
}
