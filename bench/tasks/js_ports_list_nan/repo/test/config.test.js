'use strict';
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { loadConfig } = require('../lib/config');

describe('loadConfig', () => {
  it('uses the defaults', () => {
    assert.deepEqual(loadConfig({ PROXY_TARGET: 'http://localhost:3000' }),
      { ports: [8080], target: 'http://localhost:3000', timeoutMs: 30000 });
  });

  it('needs a target', () => {
    assert.throws(() => loadConfig({}), /PROXY_TARGET is required/);
  });

  it('names the variable of a bad value', () => {
    assert.throws(() => loadConfig({ PROXY_TARGET: 'x', PROXY_TIMEOUT_MS: 'soon' }), /PROXY_TIMEOUT_MS/);
    assert.throws(() => loadConfig({ PROXY_TARGET: 'x', PROXY_PORTS: 'http' }), /PROXY_PORTS: invalid port NaN/);
  });

  it('listens on several ports', () => {
    const config = loadConfig({ PROXY_TARGET: 'http://localhost:3000', PROXY_PORTS: '3000,3001' });
    assert.deepEqual(config.ports, [3000, 3001]);
  });
});
