// The page's record of the library's own values, read by the browser tests.
import dayjs from 'dayjs';

export function initState(values) {
  window.__state = Object.assign(window.__state || {}, values);
}

export function setState(key, value) {
  window.__state = window.__state || {};
  window.__state[key] = value;
}

// day formats a Mantine 7 date value (a Date or null) as YYYY-MM-DD, or null.
export function day(d) {
  return d ? dayjs(d).format('YYYY-MM-DD') : null;
}
