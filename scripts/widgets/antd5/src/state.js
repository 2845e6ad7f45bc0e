// set records a widget's value, as the library reported it, in window.__state.
export function set(key, value) {
  window.__state[key] = value;
}

// day formats a dayjs value (or null) as YYYY-MM-DD.
export function day(d) {
  return d ? d.format("YYYY-MM-DD") : null;
}
