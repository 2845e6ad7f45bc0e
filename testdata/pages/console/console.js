// Functions the console fixture's buttons call: an exception thrown three
// calls deep, a console.error from a helper, and a deep recursion.
function outer() {
  middle();
}
function middle() {
  inner();
}
function inner() {
  const o = null;
  return o.x;
}
function report(what, n) {
  console.error(what, n);
}
function deep(n) {
  if (n === 0) throw new Error("deep end");
  deep(n - 1);
}
