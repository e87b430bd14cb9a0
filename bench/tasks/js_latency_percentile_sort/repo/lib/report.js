'use strict';
const { summarize } = require('./stats');

/** Request durations (ms) per endpoint from access-log lines: `GET /path 200 123ms`. */
function durationsByEndpoint(lines) {
  const byEndpoint = new Map();
  for (const line of lines) {
    const match = /^(\w+) (\S+) \d{3} (\d+(?:\.\d+)?)ms$/.exec(line.trim());
    if (!match) continue;
    const key = `${match[1]} ${match[2]}`;
    if (!byEndpoint.has(key)) byEndpoint.set(key, []);
    byEndpoint.get(key).push(Number(match[3]));
  }
  return byEndpoint;
}

/** The report as a text table, one endpoint a row, in the endpoints' order of first appearance. */
function report(lines) {
  const rows = [['endpoint', 'count', 'mean', 'p50', 'p95', 'p99', 'max']];
  for (const [endpoint, values] of durationsByEndpoint(lines)) {
    const s = summarize(values);
    rows.push([endpoint, String(s.count), s.mean.toFixed(1), String(s.p50), String(s.p95), String(s.p99), String(s.max)]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  return rows.map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')).join('\n');
}

module.exports = { durationsByEndpoint, report };
