// setState writes one widget's value into window.__state.
export function setState(key, value) {
  window.__state[key] = value;
}

// DAY and TIME are the formats of dates and times in window.__state.
export const DAY = 'YYYY-MM-DD';
export const TIME = 'HH:mm';
