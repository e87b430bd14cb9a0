'use strict';

/** The parameters of a URL query string (`?a=1&b=2`) as an object; later keys win. */
function parseQuery(search) {
  const params = {};
  const text = search.startsWith('?') ? search.slice(1) : search;
  for (const pair of text.split('&')) {
    if (!pair) continue;
    const at = pair.indexOf('=');
    const rawKey = at === -1 ? pair : pair.slice(0, at);
    const rawValue = at === -1 ? '' : pair.slice(at + 1);
    params[decodeURIComponent(rawKey)] = decodeURIComponent(rawValue);
  }
  return params;
}

/** `params` as a query string, without the leading `?`. */
function buildQuery(params) {
  return Object.entries(params)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    .join('&');
}

module.exports = { parseQuery, buildQuery };
