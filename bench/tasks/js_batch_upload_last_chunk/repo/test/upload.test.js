'use strict';
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { toContact, uploadAll } = require('../lib/upload');

function rows(n) {
  return Array.from({ length: n }, (_, i) => ({ email: `person${i}@example.com`, name: `Person ${i}` }));
}

describe('uploadAll', () => {
  it('sends every contact', async () => {
    const received = [];
    const result = await uploadAll(rows(237), async (batch) => { received.push(batch.length); });
    assert.deepEqual(received, [100, 100, 37]);
    assert.deepEqual(result, { sent: 237, batches: 3, skipped: 0 });
  });

  it('sends a list shorter than one batch', async () => {
    const received = [];
    await uploadAll(rows(3), async (batch) => { received.push(...batch.map((c) => c.email)); }, { batchSize: 50 });
    assert.deepEqual(received, ['person0@example.com', 'person1@example.com', 'person2@example.com']);
  });

  it('sends full batches', async () => {
    const sizes = [];
    const lines = [];
    await uploadAll(rows(40), async (batch) => { sizes.push(batch.length); }, { batchSize: 20, log: (l) => lines.push(l) });
    assert.deepEqual(sizes, [20, 20]);
    assert.deepEqual(lines, ['uploaded 40 contacts in 2 batches (0 rows without an email skipped)']);
  });

  it('skips rows without an email', async () => {
    const result = await uploadAll([{ name: 'No Mail' }, ...rows(4)], async () => {}, { batchSize: 2 });
    assert.deepEqual(result, { sent: 4, batches: 2, skipped: 1 });
  });

  it('refuses batches the CRM would reject', async () => {
    await assert.rejects(uploadAll(rows(1), async () => {}, { batchSize: 500 }), RangeError);
  });
});

describe('toContact', () => {
  it('tidies a row', () => {
    assert.deepEqual(toContact({ email: ' Ann@Example.COM ', name: 'Ann ', tags: 'vip; newsletter;' }),
      { email: 'ann@example.com', name: 'Ann', tags: ['vip', 'newsletter'] });
  });
});
