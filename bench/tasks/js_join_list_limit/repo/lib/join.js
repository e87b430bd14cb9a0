'use strict';

const DEFAULTS = { conjunction: 'and', serialComma: true };

/** The items as an English phrase: "Ann, Bo, and Cy". */
function joinList(items, options = {}) {
  if (!Array.isArray(items)) {
    throw new TypeError(`joinList expects an array, got ${typeof items}`);
  }
  const { conjunction, serialComma } = { ...DEFAULTS, ...options };
  const words = items.filter((item) => item !== null && item !== undefined && item !== '').map(String);
  if (words.length <= 1) {
    return words.join('');
  }
  if (words.length === 2) {
    return `${words[0]} ${conjunction} ${words[1]}`;
  }
  const head = words.slice(0, -1).join(', ');
  const comma = serialComma ? ',' : '';
  return `${head}${comma} ${conjunction} ${words[words.length - 1]}`;
}

module.exports = { joinList };
