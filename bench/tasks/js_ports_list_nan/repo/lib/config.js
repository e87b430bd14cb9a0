'use strict';

const { parsePorts } = require('./ports');

const DEFAULTS = { PROXY_PORTS: '8080', PROXY_TIMEOUT_MS: '30000' };

/** The proxy's settings from an environment such as process.env; throws on a bad value. */
function loadConfig(env) {
  const get = (name) => (env[name] !== undefined && env[name] !== '' ? env[name] : DEFAULTS[name]);
  let ports;
  try {
    ports = parsePorts(get('PROXY_PORTS'));
  } catch (err) {
    throw new Error(`PROXY_PORTS: ${err.message}`);
  }
  const target = get('PROXY_TARGET');
  if (!target) {
    throw new Error('PROXY_TARGET is required, e.g. PROXY_TARGET=http://localhost:3000');
  }
  const timeoutMs = Number(get('PROXY_TIMEOUT_MS'));
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new Error(`PROXY_TIMEOUT_MS: expected a positive number of milliseconds, got ${get('PROXY_TIMEOUT_MS')}`);
  }
  return { ports, target, timeoutMs };
}

module.exports = { loadConfig };
