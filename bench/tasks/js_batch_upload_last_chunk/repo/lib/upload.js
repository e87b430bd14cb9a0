'use strict';
const { chunk } = require('./batch');

/** A contact as the CRM's bulk endpoint takes it; rows without an email are skipped. */
function toContact(row) {
  const email = String(row.email || '').trim().toLowerCase();
  if (!email) return null;
  return { email, name: String(row.name || '').trim(), tags: row.tags ? String(row.tags).split(';').map((t) => t.trim()).filter(Boolean) : [] };
}

/**
 * Send `rows` to the CRM in batches of `batchSize` (the bulk endpoint takes at most 100),
 * one batch at a time; `send(batch)` resolves once the CRM has taken it.
 */
async function uploadAll(rows, send, { batchSize = 100, log = () => {} } = {}) {
  if (batchSize > 100) throw new RangeError('the CRM takes at most 100 contacts a request');
  const contacts = rows.map(toContact).filter(Boolean);
  const batches = chunk(contacts, batchSize);
  let sent = 0;
  for (const batch of batches) {
    await send(batch);
    sent += batch.length;
  }
  log(`uploaded ${sent} contacts in ${batches.length} batches (${rows.length - contacts.length} rows without an email skipped)`);
  return { sent, batches: batches.length, skipped: rows.length - contacts.length };
}

module.exports = { toContact, uploadAll };
