'use strict';

/** A list of TCP ports from text such as "8080" or "8080,8081"; duplicates are dropped. */
function parsePorts(text) {
  const ports = String(text)
    .split(',')
    .filter((part) => part.trim() !== '')
    .map(parseInt);
  if (ports.length === 0) {
    throw new Error('no port given');
  }
  for (const port of ports) {
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new Error(`invalid port ${port}`);
    }
  }
  return [...new Set(ports)];
}

module.exports = { parsePorts };
